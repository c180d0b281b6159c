(function () {
  "use strict";
  var box = document.getElementById("js-error");
  window.onerror = function (message, source, line) {
    if (box) {
      box.hidden = false;
      box.textContent += "script error: " + message + " (line " + line + ")\n";
    }
    return false;
  };
  function byId(id) { return document.getElementById(id); }
  var rows = Array.prototype.slice.call(document.querySelectorAll("tr.finding"));
  var nodes = Array.prototype.slice.call(document.querySelectorAll("#fabric g.device"));
  var filters = {
    severity: byId("f-severity"),
    device: byId("f-device"),
    family: byId("f-family"),
    "class": byId("f-class")
  };
  var keys = Object.keys(filters).filter(function (k) { return filters[k] !== null; });
  function apply() {
    var shown = 0;
    var per = {};
    rows.forEach(function (r) {
      var ok = keys.every(function (k) {
        var want = filters[k].value;
        return want === "" || r.getAttribute("data-" + k) === want;
      });
      r.hidden = !ok;
      if (ok) {
        shown += 1;
        var c = r.getAttribute("data-class");
        per[c] = (per[c] || 0) + 1;
      }
    });
    byId("shown").textContent = String(shown);
    byId("total").textContent = String(rows.length);
    Array.prototype.forEach.call(document.querySelectorAll("[data-shown-for]"), function (el) {
      el.textContent = String(per[el.getAttribute("data-shown-for")] || 0);
    });
    var dev = filters.device ? filters.device.value : "";
    nodes.forEach(function (g) {
      g.classList.toggle("selected", dev !== "" && g.getAttribute("data-device") === dev);
    });
  }
  keys.forEach(function (k) { filters[k].addEventListener("change", apply); });
  function pick(g) {
    if (!filters.device) { return; }
    var name = g.getAttribute("data-device");
    filters.device.value = filters.device.value === name ? "" : name;
    apply();
  }
  nodes.forEach(function (g) {
    g.addEventListener("click", function () { pick(g); });
    g.addEventListener("keydown", function (e) {
      if (e.key === "Enter" || e.key === " ") { e.preventDefault(); pick(g); }
    });
  });
  var reset = byId("f-reset");
  if (reset) {
    reset.addEventListener("click", function () {
      keys.forEach(function (k) { filters[k].value = ""; });
      apply();
    });
  }
  apply();
  document.body.setAttribute("data-ready", "1");
})();

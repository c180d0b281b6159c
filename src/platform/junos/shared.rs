//! What every port of a Junos device shares, worked out once per device instead of once per
//! port: the forwarding classes on each queue, a classifier's DSCP table, a rewrite rule's code
//! point per (class, loss priority), the first scheduled class per queue of a scheduler map or
//! forwarding-class set, and the statements that do not apply (`inactive:`, `deactivate`) and
//! the DCBX interface lines by name. Each of these was read again per port by a scan of a
//! device-wide list, so a file of thousands of ports and thousands of entries cost their
//! product (`| display set` replicated to 16 MiB: 42 s; issue 19). A device keeps these lists
//! short (Junos configures "up to 16 forwarding classes" [V Juniper, "Configuring Up to 16
//! Custom Forwarding Classes",
//! <https://juniper.net/documentation/us/en/software/junos/cos/topics/task/cos-configuring-up-to-16-forwarding-classes.html>]),
//! but a file need not be a device's.
//!
//! Every answer is the one the per-port scan gave (the scans are kept as the tests' reference).

use super::apply::FcEff;
use super::apply::glob;
use super::read::{At, CodeMap, Config, Cos, SchedMap};
use crate::model::Src;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

/// The classes on one queue.
#[derive(Default)]
pub(super) struct QueueClasses<'c> {
    /// The classes on the queue in name order; explicit classes replace the defaults on their
    /// queue.
    pub(super) on: Vec<(&'c str, &'c FcEff)>,
    /// Some class on the queue is explicit (configured).
    explicit: bool,
    /// The one class on the queue, explicit or default, when there is exactly one.
    pub(super) only: Option<&'c str>,
    /// The first class of `on` that states a `pfc-priority`: that priority (when under 8) and
    /// its line.
    pub(super) stated_pfc: Option<(u8, &'c Src)>,
    /// Some class of `on` is no-loss.
    pub(super) no_loss: bool,
}

/// A classifier's class and loss priority per DSCP value, and the line that gives each (None:
/// not listed, the default).
pub(super) struct ClassTable<'c> {
    pub(super) fc: Rc<[(&'c str, &'c str)]>,
    pub(super) at: Rc<[Option<&'c Src>]>,
}

/// Per queue, the first class on it (name order) that a scheduler map gives a scheduler, and
/// that scheduler.
pub(super) type QueueScheds<'c> = [Option<(&'c str, &'c At<String>)>; 8];

/// A rewrite rule's first code point per (class, loss priority), with its line.
type Firsts<'c> = HashMap<(&'c str, &'c str), (u8, &'c Src)>;

pub(super) struct Shared<'c> {
    pub(super) cfg: &'c Config,
    pub(super) cos: &'c Cos,
    pub(super) fcs: &'c BTreeMap<String, FcEff>,
    queues: [QueueClasses<'c>; 8],
    default_table: ClassTable<'c>,
    tables: RefCell<HashMap<&'c str, Rc<ClassTable<'c>>>>,
    rewrites: RefCell<HashMap<&'c str, Rc<Firsts<'c>>>>,
    map_scheds: RefCell<HashMap<&'c str, Rc<QueueScheds<'c>>>>,
    set_scheds: RefCell<HashMap<(&'c str, &'c str), Rc<QueueScheds<'c>>>>,
    /// Positions of `cfg.inactive` sorted by their first k words (then position), per k.
    inactive_by: RefCell<BTreeMap<usize, Vec<u32>>>,
    /// The inactive `class-of-service interfaces PATTERN congestion-notification-profile`
    /// statements: the first position per plain name, and those with a wildcard in order.
    inactive_cnp: (HashMap<&'c str, u32>, Vec<(u32, &'c str)>),
    dcbx_if_disable: FirstByName<'c>,
    dcbx_no_autoneg: FirstByName<'c>,
}

/// The first entry of a `(name, line)` list that names a port or `all`.
struct FirstByName<'c> {
    list: &'c [(String, Src)],
    all: Option<usize>,
    by_name: HashMap<&'c str, usize>,
}

impl<'c> FirstByName<'c> {
    fn new(list: &'c [(String, Src)]) -> Self {
        let mut by_name = HashMap::new();
        for (i, (n, _)) in list.iter().enumerate() {
            by_name.entry(n.as_str()).or_insert(i);
        }
        let all = by_name.get("all").copied();
        FirstByName { list, all, by_name }
    }

    fn find(&self, name: &str) -> Option<&'c Src> {
        let own = self.by_name.get(name).copied();
        let at = match (self.all, own) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }?;
        self.list.get(at).map(|(_, s)| s)
    }
}

impl<'c> Shared<'c> {
    pub(super) fn new(cfg: &'c Config, fcs: &'c BTreeMap<String, FcEff>) -> Self {
        let mut queues: [QueueClasses<'c>; 8] = Default::default();
        let mut count = [0usize; 8];
        for (n, f) in fcs {
            let Some(q) = queues.get_mut(f.queue as usize) else {
                continue;
            };
            count[f.queue as usize] += 1;
            q.only = if count[f.queue as usize] == 1 {
                Some(n.as_str())
            } else {
                None
            };
            q.explicit |= f.src.is_some();
        }
        for (n, f) in fcs {
            let Some(q) = queues.get_mut(f.queue as usize) else {
                continue;
            };
            if q.explicit && f.src.is_none() {
                continue;
            }
            q.on.push((n.as_str(), f));
        }
        for q in &mut queues {
            q.no_loss = q.on.iter().any(|(_, f)| f.no_loss);
            q.stated_pfc =
                q.on.iter()
                    .find(|(_, f)| f.pfc_priority.is_some())
                    .and_then(|(_, f)| Some((f.pfc_priority.filter(|p| *p < 8)?, f.src.as_ref()?)));
        }
        let mut exact: HashMap<&'c str, u32> = HashMap::new();
        let mut wild = Vec::new();
        for (i, s) in cfg.inactive.iter().enumerate() {
            if let [a, b, pat, c, ..] = &s.words[..]
                && a == "class-of-service"
                && b == "interfaces"
                && c == "congestion-notification-profile"
            {
                if pat.contains(['*', '?']) {
                    wild.push((i as u32, pat.as_str()));
                } else {
                    exact.entry(pat.as_str()).or_insert(i as u32);
                }
            }
        }
        let default_table = ClassTable {
            fc: (0..64u8)
                .map(|d| (super::apply::default_dscp_fc(d), "low"))
                .collect(),
            at: vec![None; 64].into(),
        };
        Shared {
            cfg,
            cos: &cfg.cos,
            fcs,
            queues,
            default_table,
            tables: RefCell::default(),
            rewrites: RefCell::default(),
            map_scheds: RefCell::default(),
            set_scheds: RefCell::default(),
            inactive_by: RefCell::default(),
            inactive_cnp: (exact, wild),
            dcbx_if_disable: FirstByName::new(&cfg.dcbx_if_disable),
            dcbx_no_autoneg: FirstByName::new(&cfg.dcbx_no_autoneg),
        }
    }

    /// The classes on queue `q` (none past queue 7).
    pub(super) fn queue(&self, q: u8) -> Option<&QueueClasses<'c>> {
        self.queues.get(q as usize)
    }

    /// The queue of class `fc` when it is among the classes on that queue.
    fn on_queue(&self, fc: &str) -> Option<u8> {
        let f = self.fcs.get(fc)?;
        let q = self.queues.get(f.queue as usize)?;
        (!q.explicit || f.src.is_some()).then_some(f.queue)
    }

    /// The default DSCP classifier's table.
    pub(super) fn default_table(&self) -> ClassTable<'c> {
        ClassTable {
            fc: self.default_table.fc.clone(),
            at: self.default_table.at.clone(),
        }
    }

    /// The table of DSCP classifier `name` (`m`): code points it does not list take the default
    /// classifier's class with `import default`, else best-effort; a later line for a code
    /// point replaces an earlier one.
    pub(super) fn table(&self, name: &'c str, m: &'c CodeMap) -> ClassTable<'c> {
        let t = self
            .tables
            .borrow_mut()
            .entry(name)
            .or_insert_with(|| {
                let mut fc: Vec<(&'c str, &'c str)> = if m.import_default {
                    self.default_table.fc.to_vec()
                } else {
                    vec![("best-effort", "low"); 64]
                };
                let mut at: Vec<Option<&'c Src>> = vec![None; 64];
                for (code, f, lp, s) in &m.entries {
                    if let Some(slot) = fc.get_mut(*code as usize) {
                        *slot = (f.as_str(), lp.as_str());
                        at[*code as usize] = Some(s);
                    }
                }
                Rc::new(ClassTable {
                    fc: fc.into(),
                    at: at.into(),
                })
            })
            .clone();
        ClassTable {
            fc: t.fc.clone(),
            at: t.at.clone(),
        }
    }

    /// Rewrite rule `name` (`rule`): its first code point for (class, loss priority).
    pub(super) fn rewrite_firsts(&self, name: &'c str, rule: &'c CodeMap) -> Rc<Firsts<'c>> {
        self.rewrites
            .borrow_mut()
            .entry(name)
            .or_insert_with(|| {
                let mut m = Firsts::new();
                for (code, f, lp, s) in &rule.entries {
                    m.entry((f.as_str(), lp.as_str())).or_insert((*code, s));
                }
                Rc::new(m)
            })
            .clone()
    }

    /// Scheduler map `name` (`sm`): per queue, its first scheduled class on that queue.
    pub(super) fn map_scheds(&self, name: &'c str, sm: &'c SchedMap) -> Rc<QueueScheds<'c>> {
        self.map_scheds
            .borrow_mut()
            .entry(name)
            .or_insert_with(|| {
                let mut out: QueueScheds<'c> = Default::default();
                // name order: the first one on a queue is its first
                for (fc, s) in &sm.entries {
                    if let Some(q) = self.on_queue(fc)
                        && out[q as usize].is_none()
                    {
                        out[q as usize] = Some((fc.as_str(), s));
                    }
                }
                Rc::new(out)
            })
            .clone()
    }

    /// Forwarding-class set `set` under scheduler map `sm_name` (`sm`): per queue, the first
    /// (name order) class of the set on that queue that the map schedules.
    pub(super) fn set_scheds(
        &self,
        set: &'c str,
        sm_name: &'c str,
        sm: &'c SchedMap,
    ) -> Rc<QueueScheds<'c>> {
        self.set_scheds
            .borrow_mut()
            .entry((set, sm_name))
            .or_insert_with(|| {
                let mut out: QueueScheds<'c> = Default::default();
                for fc in self.cos.fc_sets.get(set).into_iter().flatten() {
                    let (Some(s), Some(q)) = (sm.entries.get(fc), self.on_queue(fc)) else {
                        continue;
                    };
                    let slot = &mut out[q as usize];
                    if slot.is_none_or(|(n, _)| fc.as_str() < n) {
                        *slot = Some((fc.as_str(), s));
                    }
                }
                Rc::new(out)
            })
            .clone()
    }

    /// The line of the first statement that does not apply under `prefix` (`*` matches any
    /// word), if any: cited by defaults that apply because that statement does not.
    pub(super) fn inactive_at(&self, prefix: &[&str]) -> Option<Src> {
        let stmts = &self.cfg.inactive;
        if prefix.contains(&"*") {
            return inactive_scan(&self.cfg.inactive, prefix);
        }
        let k = prefix.len();
        let mut by = self.inactive_by.borrow_mut();
        let order = by.entry(k).or_insert_with(|| {
            let mut o: Vec<u32> = (0..stmts.len() as u32)
                .filter(|&i| stmts[i as usize].words.len() >= k)
                .collect();
            // stable: equal prefixes stay in statement order
            o.sort_by(|&a, &b| stmts[a as usize].words[..k].cmp(&stmts[b as usize].words[..k]));
            o
        });
        let key = |i: &u32| &stmts[*i as usize].words[..k];
        let at =
            order.partition_point(|i| key(i).iter().map(String::as_str).lt(prefix.iter().copied()));
        let i = *order.get(at)?;
        key(&i)
            .iter()
            .map(String::as_str)
            .eq(prefix.iter().copied())
            .then(|| stmts[i as usize].src.clone())
    }

    /// The line of the first inactive `class-of-service interfaces P
    /// congestion-notification-profile` statement whose pattern P matches port `name`.
    pub(super) fn inactive_cnp(&self, name: &str) -> Option<Src> {
        let (exact, wild) = &self.inactive_cnp;
        let own = exact.get(name).copied();
        let wild = wild
            .iter()
            .take_while(|(i, _)| own.is_none_or(|o| *i < o))
            .find(|(_, pat)| glob(pat, name))
            .map(|(i, _)| *i);
        let i = wild.or(own)?;
        self.cfg.inactive.get(i as usize).map(|s| s.src.clone())
    }

    /// The first `dcbx interface NAME|all disable` line covering port `name`.
    pub(super) fn dcbx_if_disable(&self, name: &str) -> Option<Src> {
        self.dcbx_if_disable.find(name).cloned()
    }

    /// The first DCBX `no-auto-negotiation` line covering port `name`.
    pub(super) fn dcbx_no_autoneg(&self, name: &str) -> Option<Src> {
        self.dcbx_no_autoneg.find(name).cloned()
    }
}

/// [`Shared::inactive_at`] by a scan (a prefix with `*`, and the tests' reference).
fn inactive_scan(stmts: &[super::tree::Stmt], prefix: &[&str]) -> Option<Src> {
    stmts
        .iter()
        .find(|s| {
            s.words.len() >= prefix.len()
                && s.words.iter().zip(prefix).all(|(a, b)| a == b || *b == "*")
        })
        .map(|s| s.src.clone())
}

/// Per queue, the scheduler of the first class (name order) of the union of `sources`, a
/// later source replacing an earlier one's scheduler for the same class (as statements of the
/// port's scheduler map and then its forwarding-class sets are applied in turn).
pub(super) fn first_scheduled<'c>(
    sources: &[Rc<QueueScheds<'c>>],
    q: u8,
) -> Option<&'c At<String>> {
    let mut best: Option<(&'c str, &'c At<String>)> = None;
    for s in sources {
        if let Some(Some((n, a))) = s.get(q as usize)
            && best.is_none_or(|(b, _)| *n <= b)
        {
            best = Some((n, a));
        }
    }
    best.map(|(_, a)| a)
}

#[cfg(test)]
mod tests {
    //! Each index against the per-port scan it replaced, on lists with repeats, wildcards and
    //! names sharing prefixes (a small generator, fixed seed).
    use super::*;
    use crate::platform::junos::read::Fc;
    use crate::platform::junos::tree::Stmt;
    use std::sync::Arc;

    struct Lcg(u64);
    impl Lcg {
        fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            from[(self.0 >> 33) as usize % from.len()]
        }
    }

    fn src(line: u32) -> Src {
        Src::new(&Arc::from("leaf.conf"), line)
    }

    const PORTS: [&str; 6] = ["et-0/0/1", "et-0/0/10", "et-*", "xe-0/0/?", "all", "ae0"];

    fn config(seed: u64) -> Config {
        let mut r = Lcg(seed);
        let mut cfg = Config::default();
        let heads = ["interfaces", "class-of-service"];
        let seconds = [
            "interfaces",
            "schedulers",
            "congestion-notification-profile",
        ];
        let leaves = [
            "mtu",
            "disable",
            "congestion-notification-profile",
            "pfc-watchdog",
        ];
        for line in 1..400 {
            let n = 1 + (line as usize % 5);
            let mut words = vec![r.pick(&heads).to_string()];
            for _ in 1..n {
                let choices = [r.pick(&seconds), r.pick(&PORTS), r.pick(&leaves)];
                words.push(r.pick(&choices).into());
            }
            if line % 5 == 0 {
                words = ["class-of-service", "interfaces", r.pick(&PORTS)]
                    .into_iter()
                    .chain(["congestion-notification-profile", "cnp"])
                    .map(String::from)
                    .collect();
            }
            cfg.inactive.push(Stmt {
                words,
                src: src(line),
                active: false,
            });
            if line % 7 == 0 {
                cfg.dcbx_if_disable.push((r.pick(&PORTS).into(), src(line)));
            }
            if line % 11 == 0 {
                cfg.dcbx_no_autoneg.push((r.pick(&PORTS).into(), src(line)));
            }
        }
        cfg
    }

    #[test]
    fn inactive_statements_dcbx_lines_found_as_by_a_scan() {
        for seed in 0..8 {
            let cfg = config(seed);
            let fcs = BTreeMap::new();
            let sh = Shared::new(&cfg, &fcs);
            let mut r = Lcg(seed + 100);
            let vocab = [
                "interfaces",
                "class-of-service",
                "schedulers",
                "congestion-notification-profile",
                "mtu",
                "disable",
                "et-0/0/1",
                "et-*",
                "pfc-watchdog",
                "*",
            ];
            for _ in 0..300 {
                let k = 1 + (r.0 as usize % 4);
                let prefix: Vec<&str> = (0..k).map(|_| r.pick(&vocab)).collect();
                assert_eq!(
                    sh.inactive_at(&prefix),
                    inactive_scan(&cfg.inactive, &prefix),
                    "{prefix:?}"
                );
            }
            for port in ["et-0/0/1", "et-0/0/10", "xe-0/0/3", "ae0", "ge-1/0/0"] {
                let scan = cfg
                    .inactive
                    .iter()
                    .find(|s| match s.w()[..] {
                        [
                            "class-of-service",
                            "interfaces",
                            pat,
                            "congestion-notification-profile",
                            ..,
                        ] => glob(pat, port),
                        _ => false,
                    })
                    .map(|s| s.src.clone());
                assert_eq!(sh.inactive_cnp(port), scan, "{port}");
                let covers = |list: &[(String, Src)]| {
                    list.iter()
                        .find(|(n, _)| n == "all" || n == port)
                        .map(|(_, s)| s.clone())
                };
                assert_eq!(sh.dcbx_if_disable(port), covers(&cfg.dcbx_if_disable));
                assert_eq!(sh.dcbx_no_autoneg(port), covers(&cfg.dcbx_no_autoneg));
            }
        }
    }

    #[test]
    fn first_scheduled_class_per_queue_as_by_merging_the_maps() {
        const CLASSES: [&str; 7] = ["best-effort", "fc1", "fc2", "no-loss", "nc", "fc9", "zz"];
        for seed in 0..16 {
            let mut r = Lcg(seed);
            let mut cfg = Config::default();
            let cos = &mut cfg.cos;
            for (i, fc) in CLASSES.iter().enumerate() {
                if i % 3 != 2 {
                    let q = r.pick(&["0", "3", "4", "7"]).parse().unwrap_or(0);
                    cos.fcs.insert(
                        fc.to_string(),
                        Fc {
                            queue: q,
                            no_loss: false,
                            pfc_priority: None,
                            src: src(i as u32),
                        },
                    );
                }
            }
            for m in ["m1", "m2"] {
                let sm = cos.scheduler_maps.entry(m.to_string()).or_default();
                for _ in 0..5 {
                    sm.entries.insert(
                        r.pick(&CLASSES).to_string(),
                        At {
                            v: format!("{m}-{}", r.pick(&CLASSES)),
                            src: src(1),
                        },
                    );
                }
            }
            for set in ["s1", "s2"] {
                let v = cos.fc_sets.entry(set.to_string()).or_default();
                for _ in 0..4 {
                    v.push(r.pick(&CLASSES).to_string());
                }
            }
            // the classes a port sees: the defaults, each replaced by a class of its name
            let mut fcs: BTreeMap<String, FcEff> = BTreeMap::new();
            for (n, q) in [("best-effort", 0), ("network-control", 7), ("no-loss", 3)] {
                fcs.insert(
                    n.into(),
                    FcEff {
                        queue: q,
                        no_loss: false,
                        pfc_priority: None,
                        src: None,
                    },
                );
            }
            for (n, f) in &cfg.cos.fcs {
                fcs.insert(
                    n.clone(),
                    FcEff {
                        queue: f.queue,
                        no_loss: false,
                        pfc_priority: None,
                        src: Some(f.src.clone()),
                    },
                );
            }
            let sh = Shared::new(&cfg, &fcs);
            let cos = &cfg.cos;
            for (map, pairs) in [
                (Some("m1"), vec![("s1", "m2")]),
                (None, vec![("s1", "m1"), ("s2", "m2")]),
                (Some("m2"), vec![("s2", "m1"), ("s1", "m2")]),
                (Some("m1"), vec![]),
            ] {
                // the merge the port did before
                let mut fc_sched: BTreeMap<String, At<String>> = BTreeMap::new();
                let mut sources = Vec::new();
                if let Some(m) = map {
                    let sm = &cos.scheduler_maps[m];
                    fc_sched.extend(sm.entries.iter().map(|(k, v)| (k.clone(), v.clone())));
                    sources.push(sh.map_scheds(m, sm));
                }
                for (set, m) in &pairs {
                    let sm = &cos.scheduler_maps[*m];
                    for fc in &cos.fc_sets[*set] {
                        if let Some(s) = sm.entries.get(fc) {
                            fc_sched.insert(fc.clone(), s.clone());
                        }
                    }
                    sources.push(sh.set_scheds(set, m, sm));
                }
                for q in 0..8u8 {
                    let explicit: Vec<_> = fcs
                        .iter()
                        .filter(|(_, f)| f.queue == q && f.src.is_some())
                        .collect();
                    let on = if explicit.is_empty() {
                        fcs.iter().filter(|(_, f)| f.queue == q).collect()
                    } else {
                        explicit
                    };
                    let want = on.iter().find_map(|(n, _)| fc_sched.get(*n));
                    assert_eq!(
                        first_scheduled(&sources, q).map(|a| &a.v),
                        want.map(|a| &a.v),
                        "seed {seed} queue {q} {map:?} {pairs:?}"
                    );
                }
            }
        }
    }
}

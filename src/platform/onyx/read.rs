//! Reading an Onyx running-config: records become per-interface statements (each with the line
//! that said it; ranges expanded), the global PFC/RoCE/watchdog statements and the traffic
//! pools. Nothing here applies defaults; `apply` does that.

use super::{if_names, kind_of};
use crate::model::Src;
use crate::model::push_slim;
use crate::platform::{Output, util};
use std::collections::{BTreeMap, HashMap};

pub(super) use crate::platform::util::At;
use crate::platform::util::at;

/// ECN/RED on one traffic class (`traffic-class N congestion-control ...`).
#[derive(Debug, Clone)]
pub(super) struct CcStmt {
    /// ecn | red | both; `None` = `no traffic-class N congestion-control`.
    pub(super) mode: Option<String>,
    /// Thresholds in bytes (absolute mode); relative (percent) thresholds are not sizes.
    pub(super) min_bytes: Option<u64>,
    pub(super) max_bytes: Option<u64>,
    /// Thresholds in percent (relative mode), as configured.
    pub(super) min_pct: Option<f64>,
    pub(super) max_pct: Option<f64>,
    pub(super) src: Src,
}

/// ETS of one traffic class.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Ets {
    Strict,
    /// Relative WRR weight.
    Wrr(u32),
}

/// QoS statements a port inherits from its port-channel when it has none of its own.
#[derive(Debug, Clone, Default)]
pub(super) struct QosStmts {
    pub(super) mtu: Option<At<u32>>,
    /// The others ([`MoreQos`]): written only for the ports whose lines set one, so kept
    /// apart. A config of short stanzas (`interface ethernet 1/1 mtu 9216`) held 160 bytes of
    /// empty statements per interface while the ports were built from them (issue 19).
    more: Option<Box<MoreQos>>,
}

/// The inherited QoS statements other than the MTU.
#[derive(Debug, Clone, Default)]
pub(super) struct MoreQos {
    /// dscp | pcp | both | port
    pub(super) trust: Option<At<String>>,
    pub(super) rewrite_dscp: Option<At<bool>>,
    /// on | auto
    pub(super) pfc_mode: Option<At<String>>,
    pub(super) wd: Option<At<bool>>,
    pub(super) cc: BTreeMap<u8, CcStmt>,
    pub(super) ets: BTreeMap<u8, At<Ets>>,
    /// switch priority → traffic class (`traffic-class T bind switch-priority S...`)
    pub(super) bind: BTreeMap<u8, At<u8>>,
}

impl MoreQos {
    /// Nothing written.
    const NONE: MoreQos = MoreQos {
        trust: None,
        rewrite_dscp: None,
        pfc_mode: None,
        wd: None,
        cc: BTreeMap::new(),
        ets: BTreeMap::new(),
        bind: BTreeMap::new(),
    };
}

impl QosStmts {
    /// The statements other than the MTU (none written: all unset).
    pub(super) fn more(&self) -> &MoreQos {
        static NONE: MoreQos = MoreQos::NONE;
        self.more.as_deref().unwrap_or(&NONE)
    }

    fn more_mut(&mut self) -> &mut MoreQos {
        self.more.get_or_insert_with(Box::default)
    }

    /// Whether one of these statements was written at `src`.
    pub(super) fn has_line(&self, src: &Src) -> bool {
        let at = |a: Option<&Src>| a == Some(src);
        let m = self.more();
        at(self.mtu.as_ref().map(|x| &x.src))
            || at(m.trust.as_ref().map(|x| &x.src))
            || at(m.rewrite_dscp.as_ref().map(|x| &x.src))
            || at(m.pfc_mode.as_ref().map(|x| &x.src))
            || at(m.wd.as_ref().map(|x| &x.src))
            || m.cc.values().any(|c| c.src == *src)
            || m.ets.values().any(|e| e.src == *src)
            || m.bind.values().any(|b| b.src == *src)
    }

    /// Statements of `top` replace those of `self`.
    pub(super) fn overlay(&mut self, top: &QosStmts) {
        fn over<T: Clone>(b: &mut Option<T>, t: &Option<T>) {
            if t.is_some() {
                *b = t.clone();
            }
        }
        over(&mut self.mtu, &top.mtu);
        let Some(top) = top.more.as_deref() else {
            return;
        };
        let m = self.more_mut();
        over(&mut m.trust, &top.trust);
        over(&mut m.rewrite_dscp, &top.rewrite_dscp);
        over(&mut m.pfc_mode, &top.pfc_mode);
        over(&mut m.wd, &top.wd);
        for (k, v) in &top.cc {
            m.cc.insert(*k, v.clone());
        }
        for (k, v) in &top.ets {
            m.ets.insert(*k, v.clone());
        }
        for (k, v) in &top.bind {
            m.bind.insert(*k, v.clone());
        }
    }
}

/// Everything the config says about one interface. One is alive per interface while the
/// ports are built from them, so the lines few stanzas write are kept apart ([`PortStmts`],
/// [`MoreQos`]): inline they made it 336 bytes (64 now), most of what a short stanza cost
/// (issue 19).
#[derive(Debug, Clone)]
pub(super) struct IfCfg {
    pub(super) name: String,
    /// First line naming the interface.
    pub(super) src: Src,
    pub(super) qos: QosStmts,
    /// Written only for the interfaces whose lines set one of them.
    port: Option<Box<PortStmts>>,
}

/// The lines of an interface other than its QoS statements.
#[derive(Debug, Clone, Default)]
pub(super) struct PortStmts {
    pub(super) shutdown: Option<At<bool>>,
    /// Inner `None`: `speed auto` (negotiated, not a known speed).
    pub(super) speed: Option<At<Option<f64>>>,
    pub(super) switchport: Option<At<bool>>,
    pub(super) ip_address: Option<Src>,
    /// `Po1` / `Mpo2` this port is a member of.
    pub(super) lag: Option<At<String>>,
    pub(super) fc_rx: Option<At<bool>>,
    pub(super) fc_tx: Option<At<bool>>,
}

impl PortStmts {
    /// Nothing written.
    const NONE: PortStmts = PortStmts {
        shutdown: None,
        speed: None,
        switchport: None,
        ip_address: None,
        lag: None,
        fc_rx: None,
        fc_tx: None,
    };
}

impl IfCfg {
    /// The model kind of the interface (from its name, so not stored per interface).
    pub(super) fn kind(&self) -> &'static str {
        kind_of(&self.name)
    }

    /// The interface's lines other than QoS (none written: all unset).
    pub(super) fn port(&self) -> &PortStmts {
        static NONE: PortStmts = PortStmts::NONE;
        self.port.as_deref().unwrap_or(&NONE)
    }

    fn port_mut(&mut self) -> &mut PortStmts {
        self.port.get_or_insert_with(Box::default)
    }
}

/// One traffic pool (`traffic pool NAME ...`).
#[derive(Debug, Clone)]
pub(super) struct Pool {
    /// lossless | lossy | lossy-mc
    pub(super) ty: Option<At<String>>,
    pub(super) memory_pct: Option<At<f64>>,
}

/// Everything read from one running-config.
#[derive(Debug, Default)]
pub(super) struct Cfg {
    pub(super) hostname: Option<At<String>>,
    pub(super) version: Option<At<String>>,
    /// `roce [mode]`: inner `Some(mode)`; `no roce`: inner `None`.
    pub(super) roce: Option<At<Option<String>>>,
    pub(super) pfc_global: Option<At<bool>>,
    pub(super) pfc_prios: BTreeMap<u8, At<bool>>,
    pub(super) wd_global: Option<At<bool>>,
    pub(super) pools: BTreeMap<String, Pool>,
    /// switch priority → pool name (the last `map switch-priority` naming it wins).
    pub(super) sp_pool: BTreeMap<u8, At<String>>,
    pub(super) interfaces: Vec<IfCfg>,
    /// Position of each interface in `interfaces` (names boxed and positions 32-bit: 8
    /// bytes less per slot of the table than a `String` and a `usize`).
    index: HashMap<Box<str>, u32>,
    /// (kind, name as Onyx writes it, line, canonical name) of each port-channel a member
    /// names, checked once the whole file is read.
    refs: Vec<(&'static str, String, u32, String)>,
}

impl Cfg {
    fn iface(&mut self, name: &str, src: &Src) -> &mut IfCfg {
        let i = match self.index.get(name) {
            Some(i) => *i as usize,
            None => {
                push_slim(
                    &mut self.interfaces,
                    IfCfg {
                        name: name.to_string(),
                        src: src.clone(),
                        qos: QosStmts::default(),
                        port: None,
                    },
                );
                let i = self.interfaces.len() - 1;
                self.index.insert(name.into(), i as u32);
                i
            }
        };
        &mut self.interfaces[i]
    }

    pub(super) fn get(&self, name: &str) -> Option<&IfCfg> {
        self.index.get(name).map(|i| &self.interfaces[*i as usize])
    }

    fn pool(&mut self, name: &str) -> &mut Pool {
        self.pools.entry(name.to_string()).or_insert_with(|| Pool {
            ty: None,
            memory_pct: None,
        })
    }
}

/// `speed` arguments: `100G`, `40G`, `25G`, `10000` (Mb/s), `auto` (not a known speed).
fn onyx_speed(arg: &str) -> Option<f64> {
    let t = arg.trim();
    if t.eq_ignore_ascii_case("auto") {
        return None;
    }
    util::speed_gbps(t)
}

/// A list of priorities `3`, `0 1 2 4`, `0,1,2`.
fn prio_list(s: &str) -> Vec<u8> {
    util::num_list(s, 7)
        .unwrap_or_default()
        .into_iter()
        .map(|v| v as u8)
        .collect()
}

pub(super) fn read_config(o: &Output) -> Cfg {
    let p = &o.parsed;
    let mut cfg = Cfg::default();
    for r in &p.records {
        let src = o.src(r.line);
        let get = |n: &str| p.get(r, n).unwrap_or("");
        let no = p.get(r, "no").is_some();
        let kind = p.kind(r);
        match kind {
            "hostname" => cfg.hostname = at(get("name").to_string(), &src),
            "version" => cfg.version = at(get("version").to_string(), &src),
            "roce" => {
                let mode = (!no).then(|| p.get(r, "mode").unwrap_or("lossless").to_string());
                cfg.roce = at(mode, &src);
            }
            "pfc_global" => cfg.pfc_global = at(!no, &src),
            "pfc_priority" => {
                if let Some(prio) = p.num::<u8>(r, "prio") {
                    cfg.pfc_prios.insert(
                        prio,
                        At {
                            v: !no,
                            src: src.clone(),
                        },
                    );
                }
            }
            "wd_global" => cfg.wd_global = at(!no, &src),
            "pool" => {
                cfg.pool(get("name"));
            }
            "pool_type" => cfg.pool(get("name")).ty = at(get("type").to_string(), &src),
            "pool_memory" => {
                if let Some(pct) = p.num::<f64>(r, "pct") {
                    cfg.pool(get("name")).memory_pct = at(pct, &src);
                }
            }
            "pool_map" => {
                let name = get("name").to_string();
                cfg.pool(&name);
                for sp in prio_list(get("list")) {
                    cfg.sp_pool.insert(
                        sp,
                        At {
                            v: name.clone(),
                            src: src.clone(),
                        },
                    );
                }
            }
            k if k.starts_with("if_") => {
                let names = if_names(get("type"), get("ids"));
                for name in names {
                    if_stmt(&mut cfg, p, r, k, &name, &src, no);
                }
            }
            _ => {}
        }
    }
    cfg
}

/// Port-channels that members join but the config never creates (`interface port-channel N`
/// is always in an Onyx running-config before its members): (kind, name, line).
pub(super) fn undefined_refs(cfg: &Cfg) -> Vec<(String, String, u32)> {
    cfg.refs
        .iter()
        .filter(|(_, _, _, canon)| !cfg.index.contains_key(canon.as_str()))
        .map(|(k, n, l, _)| (k.to_string(), n.clone(), *l))
        .collect()
}

/// One interface statement applied to one (expanded) interface.
fn if_stmt(
    cfg: &mut Cfg,
    p: &crate::parser::Parsed,
    r: &crate::parser::Record,
    kind: &str,
    name: &str,
    src: &Src,
    no: bool,
) {
    let get = |n: &str| p.get(r, n).unwrap_or("");
    let f = cfg.iface(name, src);
    match kind {
        "if_shutdown" => f.port_mut().shutdown = at(!no, src),
        "if_mtu" => {
            if let Some(m) = p.num::<u32>(r, "mtu") {
                f.qos.mtu = at(m, src);
            }
        }
        "if_speed" => f.port_mut().speed = at(onyx_speed(get("speed")), src),
        "if_switchport" => f.port_mut().switchport = at(!no, src),
        "if_switchport_mode" => f.port_mut().switchport = at(true, src),
        "if_ip" => {
            f.port_mut().ip_address.get_or_insert(src.clone());
        }
        "if_channel_group" => {
            let (prefix, kind) = if p.get(r, "mlag").is_some() {
                ("Mpo", "mlag-port-channel")
            } else {
                ("Po", "port-channel")
            };
            let lag = format!("{prefix}{}", get("id"));
            f.port_mut().lag = at(lag.clone(), src);
            if !cfg.refs.iter().any(|x| x.2 == r.line && x.3 == lag) {
                cfg.refs.push((kind, get("id").to_string(), r.line, lag));
            }
        }
        "if_flowcontrol" => {
            let v = at(get("state") == "on", src);
            if get("dir") == "receive" {
                f.port_mut().fc_rx = v;
            } else {
                f.port_mut().fc_tx = v;
            }
        }
        "if_pfc_mode" => f.qos.more_mut().pfc_mode = at(get("mode").to_string(), src),
        // `no dcb priority-flow-control mode` returns the port to its default, auto [S: the
        // Ansible onyx_pfc_interface module uses it to disable PFC; ports then show `Auto`].
        "if_pfc_mode_no" => f.qos.more_mut().pfc_mode = at("auto".to_string(), src),
        "if_wd" => f.qos.more_mut().wd = at(!no, src),
        "if_trust" => {
            let mode = match get("mode") {
                "L3" => "dscp",
                "L2" => "pcp",
                "port" => "port",
                _ => "both",
            };
            f.qos.more_mut().trust = at(mode.to_string(), src);
        }
        "if_rewrite" if get("what") == "dscp" => f.qos.more_mut().rewrite_dscp = at(!no, src),
        "if_tc_cc" | "if_tc_cc_no" => {
            let Some(tc) = p.num::<u8>(r, "tc") else {
                return;
            };
            let absolute = get("kind") == "absolute";
            // Absolute thresholds are in KB (Onyx shows `Min (KB): 150`) [V RoCE Commands].
            let kb = |v: &str| {
                v.parse::<f64>()
                    .ok()
                    .filter(|_| absolute)
                    .and_then(|v| util::to_bytes(v, "KB"))
            };
            let stmt = CcStmt {
                mode: (kind == "if_tc_cc").then(|| get("mode").to_string()),
                min_bytes: kb(get("min")),
                max_bytes: kb(get("max")),
                min_pct: get("min").parse::<f64>().ok().filter(|_| !absolute),
                max_pct: get("max").parse::<f64>().ok().filter(|_| !absolute),
                src: src.clone(),
            };
            f.qos.more_mut().cc.insert(tc, stmt);
        }
        "if_tc_ets" => {
            let Some(tc) = p.num::<u8>(r, "tc") else {
                return;
            };
            let ets = if get("mode") == "strict" {
                Some(Ets::Strict)
            } else {
                p.num::<u32>(r, "weight").map(Ets::Wrr)
            };
            if let Some(e) = ets {
                f.qos.more_mut().ets.insert(
                    tc,
                    At {
                        v: e,
                        src: src.clone(),
                    },
                );
            }
        }
        "if_tc_bind" => {
            let Some(tc) = p.num::<u8>(r, "tc") else {
                return;
            };
            for sp in prio_list(get("list")) {
                f.qos.more_mut().bind.insert(
                    sp,
                    At {
                        v: tc,
                        src: src.clone(),
                    },
                );
            }
        }
        // if_create: the interface exists
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn speeds_and_lists() {
        assert_eq!(onyx_speed("100G"), Some(100.0));
        assert_eq!(onyx_speed("25G"), Some(25.0));
        assert_eq!(onyx_speed("auto"), None);
        assert_eq!(prio_list("0 1 2 4 5 7"), vec![0, 1, 2, 4, 5, 7]);
        assert_eq!(prio_list("3"), vec![3]);
    }
}

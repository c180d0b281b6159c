//! Platform semantics: one module per platform turns the records of its files into the model.
//!
//! The engine (`crate::parser`) has already split every file into records; a platform module
//! resolves references (NX-OS class-map → policy-map → system qos → interface), applies the
//! platform's defaults for absent lines (recorded with `default = true`), canonicalizes
//! interface names, and reports references to things the file never defines.

pub mod conflicts;
pub mod cumulus;
pub mod drift;
pub mod eos;
pub mod junos;
pub mod linux;
pub mod maps;
pub mod nxos;
pub mod onyx;
pub mod os10;
pub mod registry;
pub mod sonic;
pub mod util;

use crate::model::{Device, Src, UndefinedRef, Unrecognized};
use crate::parser::{Command, Parsed};
use std::collections::HashMap;
use std::sync::Arc;

/// One parsed input file of a device.
pub struct Output<'a> {
    /// Snapshot-relative path (what findings cite).
    pub file: Arc<str>,
    pub cmd: &'a Command,
    /// Placeholder values of a templated command (`if`, `dev`).
    pub args: HashMap<String, String>,
    pub parsed: Parsed<'a>,
}

impl Output<'_> {
    pub fn src(&self, line: u32) -> Src {
        Src::new(&self.file, line)
    }
}

/// What a platform module reports besides the device it fills.
#[derive(Debug, Default)]
pub struct BuildNotes {
    /// (index into the outputs slice, reference)
    pub undefined: Vec<(usize, UndefinedRef)>,
    /// References that could not be resolved only because the output that defines their
    /// names was not collected (a Linux RDMA device with no device → netdev map at all). They
    /// are listed with the file's undefined references, but the file, fully understood, keeps
    /// its status.
    pub unresolved: Vec<(usize, UndefinedRef)>,
    /// Lines the engine matched but the module could not read (an `interface` range it cannot
    /// expand): reported as unrecognized lines of their file, which then is `partial`.
    pub unrecognized: Vec<(usize, Unrecognized)>,
    /// Definitions of one file that contradict each other (see `conflicts`): (index into the
    /// outputs slice, the file's conflicts), for the files that have any.
    pub conflicts: Vec<(usize, conflicts::Found)>,
    /// Positions in `unrecognized` of the lines [`BuildNotes::not_read`] reported, their text
    /// not yet read (`text` holds why until then).
    not_read: Vec<usize>,
}

impl BuildNotes {
    /// Report line `line` of output `oi` as not understood, with why. The line's text is
    /// filled in once the build is done ([`BuildNotes::fill_not_read`]), for all such lines
    /// in one pass over each output (issue 19: a scan from the top per line was quadratic in
    /// a file of unreadable `interface` ranges).
    pub fn not_read(&mut self, oi: usize, line: u32, why: &str) {
        self.not_read.push(self.unrecognized.len());
        self.unrecognized.push((
            oi,
            Unrecognized {
                line,
                text: why.into(),
            },
        ));
    }

    /// The text of each line [`BuildNotes::not_read`] reported, as `TEXT (not read: WHY)`.
    fn fill_not_read(&mut self, outs: &[Output]) {
        let mut order = std::mem::take(&mut self.not_read);
        order.sort_by_key(|&i| self.unrecognized.get(i).map(|(oi, u)| (*oi, u.line)));
        let mut rest = order.as_slice();
        while let Some(&first) = rest.first() {
            let Some(&(oi, _)) = self.unrecognized.get(first) else {
                break;
            };
            let n = rest
                .iter()
                .take_while(|&&i| self.unrecognized.get(i).is_some_and(|(o, _)| *o == oi))
                .count();
            let (group, later) = rest.split_at(n.max(1));
            rest = later;
            let mut lines = outs
                .get(oi)
                .map(|o| o.parsed.text().lines())
                .into_iter()
                .flatten()
                .enumerate();
            let mut at: Option<(usize, &str)> = lines.next();
            for &i in group {
                let Some((_, u)) = self.unrecognized.get_mut(i) else {
                    continue;
                };
                let want = u.line.saturating_sub(1) as usize;
                while at.is_some_and(|(n, _)| n < want) {
                    at = lines.next();
                }
                let text = match at {
                    Some((n, t)) if n == want => t.trim(),
                    _ => "",
                };
                u.text = format!("{text} (not read: {})", u.text).into();
            }
        }
    }
}

/// Fill `dev` from its outputs with the platform's module.
pub fn build(platform: &str, dev: &mut Device, outs: &[Output]) -> BuildNotes {
    util::start_range_budget(dev.port_limit());
    let mut notes = build_platform(platform, dev, outs);
    notes.fill_not_read(outs);
    // The rest of each port's maps is filled only for the model the user asks to see
    // (`maps::model_fill`): rules read the value vectors.
    if crate::model::maps::keep_policies() {
        crate::model::maps::share(&mut dev.interfaces);
    } else {
        // Shown only by the model (see `model::sharing`): the ports' maps go.
        for i in &mut dev.interfaces {
            i.maps = Default::default();
        }
    }
    for i in &mut dev.interfaces {
        i.drop_blank_details();
        crate::model::sharing::cite_port_line(i);
    }
    crate::model::eight::share(&mut dev.interfaces, |i| &mut i.queues);
    crate::model::eight::share(&mut dev.interfaces, |i| &mut i.pgs);
    crate::model::part::share(&mut dev.interfaces, |i| &mut i.pfc);
    crate::model::part::share(&mut dev.interfaces, |i| &mut i.link_pause);
    crate::model::part::share(&mut dev.interfaces, |i| &mut i.watchdog);
    dev.sharing = Default::default();
    notes.conflicts = conflicts::find(platform, outs);
    notes
}

/// The platform's build; a platform with a parser file but no registry entry (one added by
/// `--parsers DIR`) fills nothing beyond its files' parse results.
fn build_platform(platform: &str, dev: &mut Device, outs: &[Output]) -> BuildNotes {
    match registry::get(platform) {
        Some(p) => (p.build)(dev, outs),
        None => BuildNotes::default(),
    }
}

/// Canonical interface name on a platform (used for LLDP port ids and fabric.toml links); a
/// platform without a registry entry keeps names as written.
pub fn canonical_ifname(platform: &str, name: &str) -> String {
    match registry::get(platform) {
        Some(p) => (p.canonical_ifname)(name),
        None => name.to_string(),
    }
}

/// An operational output's reader: it refines the device the config filled.
pub(crate) type Show = (&'static str, fn(&mut Device, &Output));

/// Read every output of each command of `shows`, in the table's order.
pub(crate) fn read_shows(dev: &mut Device, outs: &[Output], shows: &[Show]) {
    for (id, read) in shows {
        for o in outs.iter().filter(|o| o.cmd.id == *id) {
            read(dev, o);
        }
    }
}

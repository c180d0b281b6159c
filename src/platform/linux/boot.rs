//! Host boot and runtime settings: the kernel command line (IOMMU mode), the CPU architecture,
//! loaded modules, the files that re-apply RoCE QoS at boot, and NCCL's configuration file.

use crate::model::{Host, Nccl, Src, default_of, known};
use crate::platform::Output;

/// IOMMU mode a kernel command line asks for: off | pt | on | default (no IOMMU parameter,
/// the kernel's build-time default applies).
pub fn iommu_mode(cmdline: &str) -> &'static str {
    let params: Vec<(&str, &str)> = cmdline
        .split_whitespace()
        .map(|t| t.split_once('=').unwrap_or((t, "")))
        .collect();
    let has =
        |k: &str, pred: &dyn Fn(&str) -> bool| params.iter().any(|(pk, pv)| *pk == k && pred(pv));
    let first = |v: &str| v.split(',').next().unwrap_or("").to_string();
    if has("iommu", &|v| v == "off")
        || has("intel_iommu", &|v| first(v) == "off")
        || has("amd_iommu", &|v| first(v) == "off")
    {
        "off"
    } else if has("iommu", &|v| v == "pt")
        || has("iommu.passthrough", &|v| {
            matches!(v, "1" | "on" | "y" | "Y")
        })
        || has("amd_iommu", &|v| first(v) == "pt")
    {
        "pt"
    } else if has("intel_iommu", &|v| first(v) == "on")
        || has("amd_iommu", &|v| {
            matches!(first(v).as_str(), "on" | "force_isolation")
        })
        || has("iommu", &|v| matches!(v, "on" | "force" | "nopt"))
        || has("iommu.passthrough", &|v| {
            matches!(v, "0" | "off" | "n" | "N")
        })
    {
        "on"
    } else {
        "default"
    }
}

/// nvme_core's native multipath as the kernel command line sets it (`nvme_core.multipath=`,
/// the last one wins, `-` and `_` alike in the name); `None` when the line does not set it.
pub fn cmdline_nvme_multipath(cmdline: &str) -> Option<bool> {
    cmdline
        .split_whitespace()
        .filter_map(|t| t.split_once('='))
        .filter(|(k, _)| k.replace('-', "_") == "nvme_core.multipath")
        .filter_map(|(_, v)| match v {
            "y" | "Y" | "1" | "on" => Some(true),
            "n" | "N" | "0" | "off" => Some(false),
            _ => None,
        })
        .next_back()
}

/// Reads the boot/runtime outputs; returns whether any was present.
pub fn boot(host: &mut Host, outs: &[&Output]) -> bool {
    let mut found = false;
    for o in outs {
        let p = &o.parsed;
        match o.cmd.id.as_str() {
            "proc-cmdline" => {
                if let Some(r) = p.records.iter().find(|r| p.kind(r) == "cmdline")
                    && let Some(c) = p.get(r, "cmdline")
                {
                    let src = o.src(r.line);
                    host.iommu = known(iommu_mode(c).to_string(), &src);
                    host.cmdline = known(c.to_string(), &src);
                    found = true;
                }
            }
            "uname-m" => {
                if let Some(r) = p.records.first()
                    && let Some(a) = p.get(r, "arch")
                {
                    host.arch = known(a.to_string(), &o.src(r.line));
                    found = true;
                }
            }
            "proc-modules" => {
                let names: Vec<String> = p
                    .records
                    .iter()
                    .filter_map(|r| p.get(r, "name").map(str::to_string))
                    .collect();
                if let Some(r) = p.records.first() {
                    host.modules = known(names, &o.src(r.line));
                    found = true;
                }
            }
            "qos-boot" => {
                let files: Vec<String> = p
                    .records
                    .iter()
                    .filter(|r| p.num::<u64>(r, "n").is_some_and(|n| n > 0))
                    .filter_map(|r| p.get(r, "path").map(str::to_string))
                    .collect();
                // cite the first file that applies QoS, else the output itself
                let line = p
                    .records
                    .iter()
                    .find(|r| p.num::<u64>(r, "n").is_some_and(|n| n > 0))
                    .or(p.records.first())
                    .map(|r| r.line);
                if let Some(line) = line {
                    host.qos_boot_files = known(files, &o.src(line));
                    found = true;
                }
            }
            "nccl-conf" => {
                let block = o.src(1);
                let mut n = Nccl::default();
                let int = |key: &str| -> Option<(i64, Src)> {
                    let r = p.records.iter().rfind(|r| p.get(r, "key") == Some(key))?;
                    Some((p.get(r, "val")?.parse().ok()?, o.src(r.line)))
                };
                for (key, slot) in [
                    ("NCCL_IB_TC", &mut n.ib_tc),
                    ("NCCL_IB_TIMEOUT", &mut n.ib_timeout),
                    ("NCCL_IB_RETRY_CNT", &mut n.ib_retry_cnt),
                    ("NCCL_IB_GID_INDEX", &mut n.ib_gid_index),
                ] {
                    *slot = match int(key) {
                        Some((v, src)) => known(v, &src),
                        // not set: NCCL's own default applies
                        None => default_of(-1, Some(&block)),
                    };
                }
                if let Some(r) = p
                    .records
                    .iter()
                    .rfind(|r| p.get(r, "key") == Some("NCCL_IB_HCA"))
                    && let Some(v) = p.get(r, "val")
                {
                    n.ib_hca = known(v.to_string(), &o.src(r.line));
                }
                host.nccl = Some(n);
                found = true;
            }
            _ => {}
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::cmdline_nvme_multipath;

    #[test]
    fn nvme_multipath_from_cmdline() {
        assert_eq!(
            cmdline_nvme_multipath("ro nvme_core.multipath=n quiet"),
            Some(false)
        );
        assert_eq!(cmdline_nvme_multipath("nvme-core.multipath=Y"), Some(true));
        assert_eq!(
            cmdline_nvme_multipath("nvme_core.multipath=N nvme_core.multipath=1"),
            Some(true)
        );
        assert_eq!(cmdline_nvme_multipath("ro nvme_core.io_timeout=30"), None);
    }
}

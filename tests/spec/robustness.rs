//! Nothing panics on garbage: every command of every parser, fed deterministic pseudo-random
//! text, mutated real fixtures and pathological shapes, through the engine and the platform
//! module. Bounded: a fixed number of cases, each small.

use fabric_audit::device::build_device;
use fabric_audit::snapshot::DeviceInput;

/// xorshift64*: deterministic, no dependency.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn inputs(rng: &mut Rng) -> Vec<String> {
    let alphabet: Vec<char> =
        " \t\r\n!#:/.,-_()[]{}<>\"'0123456789abcdefghijklmnopqrstuvwxyzEIMPRST éü漢"
            .chars()
            .collect();
    let mut out = vec![
        String::new(),
        "\n\n\n".into(),
        "\r\r\r".into(),
        " ".repeat(10_000),
        "x".repeat(100_000),
        format!("{}\n", "  ".repeat(500) + "deep"),
        "banner motd #\nno end".into(),
        "banner login\ntext".into(),
        "{\"lldp\": {\"interface\": [1, \"x\", null, {\"eth0\": 5}]}}".into(),
        "[{\"ifname\": 3, \"mtu\": \"big\"}]".into(),
        "interface Ethernet1/1\n  mtu 99999999999999999999\n  speed -5\n".into(),
        "Ethernet1/1 is up\n  MTU 4294967296 bytes, BW 1 Kbit\n".into(),
        "prio:9 dscp:99,100,\nenabled 1 1\n".into(),
        "/sys/class/net/eth2/ecn/roce_np/enable/9:7\n".into(),
    ];
    for _ in 0..40 {
        let len = rng.below(400);
        out.push(
            (0..len)
                .map(|_| alphabet[rng.below(alphabet.len())])
                .collect(),
        );
    }
    // Real fixtures with random lines cut, duplicated and shuffled.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    for p in [
        "nxos/running-config/roce-leaf.txt",
        "eos/running-config/roce-leaf.txt",
        "linux/mlnx-qos/eth2-pfc3-dscp-ets.txt",
        "nxos/show-interface/leaf-ports.txt",
    ] {
        let text = std::fs::read_to_string(root.join(p)).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        for _ in 0..5 {
            let mut v: Vec<String> = Vec::new();
            for _ in 0..lines.len() {
                let l = lines[rng
                    .below(lines.len().max(1))
                    .min(lines.len().saturating_sub(1))];
                let cut = rng.below(l.len() + 1);
                let cut = (0..=cut)
                    .rev()
                    .find(|&c| l.is_char_boundary(c))
                    .unwrap_or(0);
                v.push(l[..cut].to_string());
            }
            out.push(v.join("\n"));
        }
    }
    out
}

#[test]
fn no_parser_panics_on_garbage() {
    let parsers = fabric_audit::load_parsers(None).unwrap();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let cases = inputs(&mut rng);
    let mut runs = 0;
    for p in &parsers.platforms {
        for c in &p.commands {
            let concrete = c.cmd.replace("{if}", "eth2").replace("{dev}", "mlx5_0");
            for text in &cases {
                let input = DeviceInput::one_file(
                    "dut",
                    &p.id,
                    "devices/dut/x.txt",
                    &concrete,
                    Ok(text.clone()),
                );
                let r = std::panic::catch_unwind(|| build_device(&parsers, &input));
                assert!(
                    r.is_ok(),
                    "{} {} panicked on {:?}",
                    p.id,
                    c.id,
                    &text[..text.len().min(200)]
                );
                runs += 1;
            }
        }
    }
    assert!(runs > 1000, "{runs}");
}

#[test]
fn detection_never_panics_and_stays_unsure_on_noise() {
    let parsers = fabric_audit::load_parsers(None).unwrap();
    let mut rng = Rng(42);
    for text in inputs(&mut rng).iter().take(54) {
        let _ = parsers.detect(text);
    }
    assert!(parsers.detect("hello world\n").is_err());
}

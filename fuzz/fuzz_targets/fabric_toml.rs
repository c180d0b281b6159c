//! fabric.toml: plan, devices, strict [policy].
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| fabric_audit::fuzzing::fabric_toml(data));

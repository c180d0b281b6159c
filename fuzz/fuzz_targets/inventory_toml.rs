//! The TOML collection inventory.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| fabric_audit::fuzzing::inventory(data, false));

//! The JSON reader (src/parser/json.rs) and its canonical-lines rendering.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| fabric_audit::fuzzing::json(data));

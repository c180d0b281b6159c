//! Every report format on a model built from one fuzzed device.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| fabric_audit::fuzzing::reports(data));

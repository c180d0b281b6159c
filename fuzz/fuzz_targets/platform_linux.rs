//! Every reader of the linux platform: its config file (first byte 0) and each command parser.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| fabric_audit::fuzzing::platform("linux", data));

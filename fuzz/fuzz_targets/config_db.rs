//! SONiC CONFIG_DB in any layout (src/parser/configdb.rs).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| fabric_audit::fuzzing::config_db(data));

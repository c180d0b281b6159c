//! Every reader of the eos platform: its config file (first byte 0) and each command parser.
#![no_main]

// Peak memory per input is measured and bounded (fabric_audit::fuzzing::smoke::checked).
#[global_allocator]
static ALLOC: fabric_audit::fuzzing::alloc::PeakAlloc = fabric_audit::fuzzing::alloc::PeakAlloc;

libfuzzer_sys::fuzz_target!(|data: &[u8]| fabric_audit::fuzzing::smoke::checked("platform_eos", data));

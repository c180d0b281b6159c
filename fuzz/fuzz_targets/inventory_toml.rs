//! The TOML collection inventory.
#![no_main]

// Peak memory per input is measured and bounded (fabric_audit::fuzzing::smoke::checked).
#[global_allocator]
static ALLOC: fabric_audit::fuzzing::alloc::PeakAlloc = fabric_audit::fuzzing::alloc::PeakAlloc;

libfuzzer_sys::fuzz_target!(|data: &[u8]| fabric_audit::fuzzing::smoke::checked("inventory_toml", data));

#![no_main]
//! Loads the input with format detection, then plans (idle, forced, size, count),
//! timelines and wires (rewrite, and cache-edits for Claude) with invariants.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    mcscope_fuzz::fuzz_pipeline(data);
});

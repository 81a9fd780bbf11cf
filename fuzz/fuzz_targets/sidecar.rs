#![no_main]
//! See `mcscope_fuzz::fuzz_sidecar`.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    mcscope_fuzz::fuzz_sidecar(data);
});

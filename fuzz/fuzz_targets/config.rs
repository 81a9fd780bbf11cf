#![no_main]
//! See `mcscope_fuzz::fuzz_config`.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    mcscope_fuzz::fuzz_config(data);
});

#![no_main]
//! Loads the input as an explicit `ClaudeJsonl` file and checks the session.

use libfuzzer_sys::fuzz_target;
use mcscope::session::Format;

fuzz_target!(|data: &[u8]| {
    mcscope_fuzz::fuzz_load(data, Format::ClaudeJsonl);
});

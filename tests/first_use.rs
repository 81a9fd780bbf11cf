//! What a new user trips on first (issue 14), through the real binary: a bare file
//! name with a sidecar, output errors, the TUI off a terminal, `timeline --follow`
//! on a session that has no requests yet.

use serde_json::Value;
use std::path::Path;
use std::process::Command;

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_mcscope"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("RUST_BACKTRACE");
    c
}

#[test]
fn a_bare_file_name_reads_its_sidecar() {
    // `cd sample-sessions && mcscope plan claude-demo.jsonl`: the sidecar's folder is
    // the current one (its parent is the empty path).
    let out = bin()
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-sessions"))
        .args(["plan", "claude-demo.jsonl", "--format", "json"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "stderr: {err}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    // claude-demo.mcscope.json says keep_recent 2 and trigger_threshold 3 (the
    // claude preset's own values are 5 and 10): the sidecar was read.
    assert_eq!(v["policy"]["keep_recent"], 2, "{v}");
    assert_eq!(v["policy"]["trigger_threshold"], 3, "{v}");
}

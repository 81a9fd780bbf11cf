//! The real binary, run from the repository as a user with no mcscope config
//! and no Claude config folder would run it.

use serde_json::Value;
use std::process::Command;

/// `mcscope ARGS…`: exit code, standard output, standard error.
pub fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mcscope"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("MCSCOPE_CONFIG", "/nonexistent/mcscope-config.toml")
        .env("HOME", "/home/dev")
        .env_remove("CLAUDE_CONFIG_DIR")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// Its standard output, which must come with exit 0.
pub fn ok(args: &[&str]) -> String {
    let (code, out, err) = run(args);
    assert_eq!(code, 0, "mcscope {args:?}: {err}");
    out
}

/// Its standard output read as JSON (exit 0).
pub fn json(args: &[&str]) -> Value {
    let out = ok(args);
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

/// A device node like `/dev/full` (every write fails: no space left on
/// device), made in a temp folder of the test's own, so that no test writes to
/// anything under `/dev`. None, with a note, where nodes cannot be made (not
/// root) or opened (a `nodev` mount).
pub fn full_device() -> Option<(tempfile::TempDir, std::fs::File)> {
    let dir = tempfile::tempdir().ok()?;
    let node = dir.path().join("full");
    let made = std::process::Command::new("mknod")
        .arg(&node)
        .args(["c", "1", "7"])
        .output()
        .is_ok_and(|o| o.status.success());
    let file = made
        .then(|| std::fs::OpenOptions::new().write(true).open(&node).ok())
        .flatten();
    match file {
        Some(f) => Some((dir, f)),
        None => {
            eprintln!(
                "note: no device node can be made or opened here (needs root, no nodev); the full-disk case is skipped"
            );
            None
        }
    }
}

/// A JSON list of strings as strings (ids, keys).
pub fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect()
}

/// The ids of an output's `caveats`, in order.
pub fn caveat_ids(v: &Value) -> Vec<String> {
    v["caveats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap().to_string())
        .collect()
}

/// The row of `requests[]` (a timeline's or the evidence's) whose `index` is
/// `k` (1-based).
pub fn request_at(v: &Value, k: usize) -> &Value {
    v["requests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["index"] == k)
        .unwrap()
}

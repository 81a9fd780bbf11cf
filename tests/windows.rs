//! Sessions recorded on Windows (SPEC §4) through the real binary:
//! tests/fixtures/windows/claude-windows.jsonl (made by make.py there), cwd
//! `C:\Users\dev\app`, Reads of a backslash path, a `c:/` path under
//! `.claude\memory`, a UNC path, a relative path and a `..` path, then a Bash call;
//! the last request follows a 110-minute gap, so `--policy idle --keep-recent 1`
//! clears every Read that is not protected.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

mod common;

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;

const ABS: &str = "toolu_01WinAbsBackslash";
const MEMORY: &str = "toolu_01WinMemorySlash";
const UNC: &str = "toolu_01WinUncShare";
const RELATIVE: &str = "toolu_01WinRelative";
const DOTDOT: &str = "toolu_01WinDotDot";

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/windows/claude-windows.jsonl")
}

/// `mcscope plan FIXTURE --protect --policy idle --keep-recent 1 --format json EXTRA…`
/// run in `dir`, with the Claude base pinned to `base`; stdout.
fn plan_in(dir: &Path, base: &Path, session: &Path, extra: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_mcscope"))
        .current_dir(dir)
        .env("CLAUDE_CONFIG_DIR", base)
        .arg("plan")
        .arg(session)
        .args([
            "--protect",
            "--policy",
            "idle",
            "--keep-recent",
            "1",
            "--format",
            "json",
        ])
        .args(extra)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{extra:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn plan(base: &Path, extra: &[&str]) -> Value {
    serde_json::from_str(&plan_in(base, base, &fixture(), extra)).unwrap()
}

/// (status, protection) of one candidate.
fn fate(v: &Value, id: &str) -> (Value, Value) {
    let c = v["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["tool_use_id"] == id)
        .unwrap_or_else(|| panic!("{id} not a candidate"));
    (c["status"].clone(), c["protection"].clone())
}

fn prot(outcome: &str, root: Option<&str>, resolved: &str) -> Value {
    json!({"outcome": outcome, "root": root, "resolved": resolved})
}

fn root_dir(v: &Value, root: &str) -> Value {
    v["protection"]["memory_roots"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["root"] == root)
        .unwrap()
        .clone()
}

#[test]
fn windows_roots_decide_windows_paths_lexically() {
    let t = tempfile::tempdir().unwrap();
    let base = t.path().canonicalize().unwrap();
    for (user, shown) in [
        (
            "user=C:\\Users\\dev\\.claude\\memory",
            "C:\\Users\\dev\\.claude\\memory",
        ),
        (
            "user=c:/USERS/dev/.claude/./memory/",
            "C:\\USERS\\dev\\.claude\\memory",
        ),
    ] {
        let v = plan(&base, &["--memory-root", user]);
        // The root is shown in normalized Windows form (drive upper-cased, `\`,
        // `.` folded, the components as given) and is not on this machine.
        assert_eq!(
            root_dir(&v, "user"),
            json!({"root": "user", "dir": shown, "exists": false}),
            "{user}"
        );
        // The default team root of a Windows cwd stays Windows: <git root>\.claude\team-memory.
        assert_eq!(
            root_dir(&v, "team")["dir"],
            "C:\\Users\\dev\\app\\.claude\\team-memory"
        );
        let expect = [
            (
                ABS,
                "cleared",
                prot("outside", None, "C:\\Users\\dev\\app\\src\\main.rs"),
            ),
            // c:/users/dev/.claude/memory/notes.md: another case, another separator, same root
            (
                MEMORY,
                "protected",
                prot(
                    "unverified",
                    Some("user"),
                    "C:\\users\\dev\\.claude\\memory\\notes.md",
                ),
            ),
            (
                UNC,
                "cleared",
                prot("outside", None, "\\\\fileserver\\team\\docs\\design.md"),
            ),
            // src\lib.rs against the recorded cwd, never against this machine's
            (
                RELATIVE,
                "cleared",
                prot("outside", None, "C:\\Users\\dev\\app\\src\\lib.rs"),
            ),
            // ..\app\.claude\team-memory\conventions.md folds back into the team root
            (
                DOTDOT,
                "protected",
                prot(
                    "unverified",
                    Some("team"),
                    "C:\\Users\\dev\\app\\.claude\\team-memory\\conventions.md",
                ),
            ),
        ];
        for (id, status, protection) in expect {
            assert_eq!(fate(&v, id), (json!(status), protection), "{user} {id}");
        }
        assert_eq!(v["protected"], json!([MEMORY, DOTDOT]));
        assert_eq!(
            v["metadata"]["evicted_read_paths"],
            json!([
                "C:\\Users\\dev\\app\\src\\main.rs",
                "\\\\fileserver\\team\\docs\\design.md",
                "C:\\Users\\dev\\app\\src\\lib.rs"
            ])
        );
    }
    // Without the Windows user root, the default one is this machine's
    // <claude base>/memory: the Windows notes are outside it, and cleared.
    let v = plan(&base, &[]);
    assert_eq!(
        root_dir(&v, "user")["dir"],
        json!(base.join("memory").display().to_string())
    );
    assert_eq!(
        fate(&v, MEMORY),
        (
            json!("cleared"),
            prot("outside", None, "C:\\users\\dev\\.claude\\memory\\notes.md")
        )
    );
    assert_eq!(v["protected"], json!([DOTDOT]));
}

#[test]
fn path_map_in_either_separator_style_brings_the_session_here() {
    let t = tempfile::tempdir().unwrap();
    let base = t.path().canonicalize().unwrap();
    let home = base.join("home");
    std::fs::create_dir_all(home.join(".claude/memory")).unwrap();
    std::fs::write(home.join(".claude/memory/notes.md"), "# Notes\n").unwrap();
    std::fs::create_dir_all(home.join("app/src")).unwrap();
    let h = |p: &str| home.join(p).display().to_string();
    let user = format!("user={}", h(".claude/memory"));
    let mut outputs = Vec::new();
    for (from, shown) in [
        ("C:\\Users\\dev", "C:\\Users\\dev"),
        ("c:/users/DEV/", "C:\\users\\DEV"),
        ("C:/Users\\dev", "C:\\Users\\dev"),
    ] {
        let map = format!("{from}={}", home.display());
        let v = plan(&base, &["--path-map", &map, "--memory-root", &user]);
        // The map applies before anything else: the notes now exist here, in the
        // user root, so they are protected (verified, not just lexically).
        assert_eq!(
            fate(&v, MEMORY),
            (
                json!("protected"),
                prot("protected", Some("user"), &h(".claude/memory/notes.md"))
            ),
            "{from}"
        );
        assert_eq!(
            fate(&v, ABS),
            (
                json!("cleared"),
                prot("outside", None, &h("app/src/main.rs"))
            )
        );
        // The relative path joins the recorded cwd, which the map brings here too.
        assert_eq!(
            fate(&v, RELATIVE),
            (
                json!("cleared"),
                prot("outside", None, &h("app/src/lib.rs"))
            )
        );
        // The team root follows the cwd through the map; it does not exist here,
        // so the `..` read inside it is decided lexically.
        assert_eq!(
            root_dir(&v, "team")["dir"],
            json!(h("app/.claude/team-memory"))
        );
        assert_eq!(
            fate(&v, DOTDOT),
            (
                json!("protected"),
                prot(
                    "unverified",
                    Some("team"),
                    &h("app/.claude/team-memory/conventions.md")
                )
            )
        );
        // A share the map does not name stays Windows and outside.
        assert_eq!(
            fate(&v, UNC),
            (
                json!("cleared"),
                prot("outside", None, "\\\\fileserver\\team\\docs\\design.md")
            )
        );
        assert_eq!(
            v["metadata"]["evicted_read_paths"],
            json!([
                "C:\\Users\\dev\\app\\src\\main.rs",
                "\\\\fileserver\\team\\docs\\design.md",
                "C:\\Users\\dev\\app\\src\\lib.rs"
            ])
        );
        assert_eq!(
            v["protection"]["path_map"],
            json!([{"from": shown, "to": home.display().to_string()}])
        );
        outputs.push(v["candidates"].clone());
    }
    assert!(outputs.windows(2).all(|w| w[0] == w[1]));
}

#[test]
fn answers_do_not_depend_on_the_working_directory() {
    let t = tempfile::tempdir().unwrap();
    let base = t.path().canonicalize().unwrap();
    let claude = base.join("claude");
    let a = base.join("a");
    let b = base.join("b");
    std::fs::create_dir_all(&a).unwrap();
    // Directory b holds, as relative paths, everything a Windows path would name
    // if it were joined to the working directory: `c:/users/dev/...` as folders,
    // backslash names as single folders, and a .git.
    for dir in [
        "c:/users/dev/.claude/memory",
        "C:\\Users\\dev\\.claude\\memory",
        "C:\\Users\\dev\\app/src\\lib.rs",
        "C:\\Users\\dev\\app/.git",
        ".git",
    ] {
        std::fs::create_dir_all(b.join(dir)).unwrap();
    }
    std::fs::write(b.join("c:/users/dev/.claude/memory/notes.md"), "x").unwrap();
    let args = [
        "--memory-root",
        "user=C:\\Users\\dev\\.claude\\memory",
        "--memory-root",
        "project=c:/users/dev/.claude/projects/C--Users-dev-app/memory",
    ];
    let in_a = plan_in(&a, &claude, &fixture(), &args);
    let in_b = plan_in(&b, &claude, &fixture(), &args);
    assert_eq!(in_a, in_b);
    let v: Value = serde_json::from_str(&in_a).unwrap();
    assert_eq!(v["protected"], json!([MEMORY, DOTDOT]));
    assert_eq!(
        root_dir(&v, "project")["dir"],
        "C:\\users\\dev\\.claude\\projects\\C--Users-dev-app\\memory"
    );
    // An explicit relative flag is the one way the working directory counts.
    let rel = ["--memory-root", "user=c:/users/dev/.claude/memory"];
    assert_eq!(
        plan_in(&a, &claude, &fixture(), &rel),
        plan_in(&b, &claude, &fixture(), &rel)
    );
    let posix_rel = ["--memory-root", "user=mem"];
    let (ra, rb): (Value, Value) = (
        serde_json::from_str(&plan_in(&a, &claude, &fixture(), &posix_rel)).unwrap(),
        serde_json::from_str(&plan_in(&b, &claude, &fixture(), &posix_rel)).unwrap(),
    );
    assert_eq!(
        root_dir(&ra, "user")["dir"],
        json!(a.join("mem").display().to_string())
    );
    assert_eq!(
        root_dir(&rb, "user")["dir"],
        json!(b.join("mem").display().to_string())
    );
}

#[test]
fn sidecar_windows_roots_and_maps_are_not_joined_to_its_folder() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().canonicalize().unwrap();
    let session = dir.join("win.jsonl");
    std::fs::copy(fixture(), &session).unwrap();
    std::fs::write(
        dir.join("win.mcscope.json"),
        serde_json::to_string(&json!({
            "memory_roots": {"user": "C:\\Users\\dev\\.claude\\memory"},
            "path_map": {"c:/users/dev/app": "mapped/app"}
        }))
        .unwrap(),
    )
    .unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let v: Value = serde_json::from_str(&plan_in(elsewhere.path(), &dir, &session, &[])).unwrap();
    assert_eq!(
        root_dir(&v, "user")["dir"],
        "C:\\Users\\dev\\.claude\\memory"
    );
    let to = dir.join("mapped/app");
    assert_eq!(
        v["protection"]["path_map"],
        json!([{"from": "C:\\users\\dev\\app", "to": to.display().to_string()}])
    );
    let at = |p: &str| to.join(p).display().to_string();
    assert_eq!(fate(&v, ABS).1, prot("outside", None, &at("src/main.rs")));
    assert_eq!(
        fate(&v, RELATIVE).1,
        prot("outside", None, &at("src/lib.rs"))
    );
    assert_eq!(
        fate(&v, MEMORY).1,
        prot(
            "unverified",
            Some("user"),
            "C:\\users\\dev\\.claude\\memory\\notes.md"
        )
    );
    // A flag naming the same FROM in another spelling replaces the sidecar's.
    let v: Value = serde_json::from_str(&plan_in(
        elsewhere.path(),
        &dir,
        &session,
        &["--path-map", "C:\\USERS\\dev\\app=/srv/app"],
    ))
    .unwrap();
    assert_eq!(
        v["protection"]["path_map"],
        json!([{"from": "C:\\USERS\\dev\\app", "to": "/srv/app"}])
    );
    assert_eq!(
        fate(&v, ABS).1,
        prot("outside", None, "/srv/app/src/main.rs")
    );
}

#[test]
fn evicted_read_paths_take_two_spellings_of_a_windows_file_as_one() {
    // cwd C:\w; Reads of a.rs, b.rs, b.rs again spelled c:/W/B.rs, then a.rs
    // spelled c:/w/./A.RS (kept by --keep-recent 1); a 120-minute gap.
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().canonicalize().unwrap();
    let mut c = common::Claude::default();
    c.cwd = "C:\\w".into();
    c.prompt("read", 0.0)
        .read("toolu_a", "C:\\w\\a.rs")
        .read("toolu_b", "C:\\w\\b.rs")
        .read("toolu_B", "c:/W/B.rs")
        .read("toolu_A", "c:/w/./A.RS")
        .answer("done")
        .prompt("again", 120.0);
    let session = c.write(&dir, "s.jsonl");
    let v: Value = serde_json::from_str(&plan_in(&dir, &dir, &session, &[])).unwrap();
    assert_eq!(v["cleared"], json!(["toolu_a", "toolu_b", "toolu_B"]));
    // a.rs is vouched for by the kept A.RS; b.rs is listed once, as first spelled.
    assert_eq!(v["metadata"]["evicted_read_paths"], json!(["C:\\w\\b.rs"]));
}

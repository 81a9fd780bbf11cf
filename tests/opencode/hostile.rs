//! Issue 41 on databases: malformed rows, wrong-shaped counts, JSON tree ids, the private copy.

use super::*;

/// Issue 41 item 2: one malformed row of *another* session (a blob as its
/// `session_id`) no longer makes the whole database unreadable: it is
/// skipped with one diagnostic.
#[test]
fn safe_io_2_a_malformed_row_of_another_session_is_skipped_with_one_diagnostic() {
    let mut db = Db::new();
    db.session("ses_a", None, None);
    let u = db.user("ses_a", "hi");
    db.assistant("ses_a", &u, json!({}), vec![text("ok")]);
    db.conn
        .execute(
            "INSERT INTO message VALUES ('msg_blob', X'00ff', 1, 1, '{}')",
            [],
        )
        .unwrap();
    db.conn
        .execute(
            "INSERT INTO part VALUES ('prt_blob', 'msg_blob', X'00ff', 1, 1, '{}')",
            [],
        )
        .unwrap();
    let t = timeline(db.p(), &[]);
    assert_eq!(t["session"]["responses"], 1);
    let d = t["session"]["diagnostics"].as_array().unwrap();
    let skipped: Vec<&Value> = d
        .iter()
        .filter(|d| d.to_string().contains("rows skipped"))
        .collect();
    assert_eq!(skipped.len(), 1, "{d:?}");
    assert!(
        skipped[0]
            .to_string()
            .contains("1 message and 1 part rows skipped")
    );
}

/// Issue 41 item 4: a token count of the wrong shape (negative, a string,
/// 1e308, past u64) is never read as 0 in silence: the response's usage is
/// unknown and a `malformed_record_field` warning names the field; a part
/// whose message is missing is a diagnostic.
#[test]
fn safe_io_4_opencode_counts_of_the_wrong_shape_and_orphan_parts_are_said() {
    let mut db = Db::new();
    db.session("ses_w", None, None);
    let u = db.user("ses_w", "hi");
    let bad = common::wrong_shaped_counts();
    for (v, _) in &bad {
        db.assistant(
            "ses_w",
            &u,
            json!({"tokens": {"input": v, "output": 1, "reasoning": 0, "cache": {"read": 0, "write": 0}}}),
            vec![text("a")],
        );
    }
    db.assistant("ses_w", &u, json!({}), vec![text("fine")]);
    db.part("ses_w", "msg_gone", 900, tool("call_x", "bash", "out"));
    let t = timeline(db.p(), &[]);
    let s = &t["session"];
    assert_eq!(
        s["recorded"]["responses"], 1,
        "only the well-formed usage counts"
    );
    assert_eq!(s["recorded"]["input"], 3);
    let warnings = s["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), bad.len(), "{warnings:?}");
    for (w, (_, what)) in warnings.iter().zip(&bad) {
        assert_eq!(w["id"], "malformed_record_field");
        let text = w["text"].as_str().unwrap();
        assert!(text.starts_with("tokens.input of message msg_"), "{text}");
        assert!(text.contains(what), "{text}");
        assert!(
            text.ends_with("not a token count; its usage is unknown"),
            "{text}"
        );
    }
    let d = s["diagnostics"].to_string();
    assert!(
        d.contains("skipped: its message msg_gone is not in the session"),
        "{d}"
    );
}

/// Issue 41 item 2: in the ≤ 1.1 JSON tree, folders are named from file
/// names, never from ids in the JSON: a session id `ses_/../../elsewhere`
/// or an absolute message id reads nothing outside the session's own folders.
#[test]
fn safe_io_2_json_tree_ids_never_name_a_folder() {
    let dir = tempfile::tempdir().unwrap();
    let st = dir.path().join("storage");
    let elsewhere = dir.path().join("elsewhere");
    let w = |p: &Path, v: Value| {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    };
    let m1 = id("msg", 1);
    let evil_msg = id("msg", 2);
    w(
        &st.join("session/global/ses_k.json"),
        json!({"id": "ses_/../../../elsewhere", "projectID": "global", "directory": "/d",
            "title": "t", "version": "1.1.65", "time": {"created": T0, "updated": T0}}),
    );
    // The session's own folder: one user message whose JSON id is absolute.
    w(
        &st.join(format!("message/ses_k/{m1}.json")),
        json!({"id": elsewhere.display().to_string(), "sessionID": "ses_k", "role": "user", "time": {"created": T0}}),
    );
    w(
        &st.join(format!("part/{m1}/{}.json", id("prt", 1))),
        json!({"id": id("prt", 1), "type": "text", "text": "mine"}),
    );
    // What the ids point at: a message and a part that are not the session's.
    w(
        &elsewhere.join(format!("{evil_msg}.json")),
        json!({"id": evil_msg, "role": "assistant", "time": {"created": T0 + 5},
            "tokens": {"input": 1, "output": 1, "reasoning": 0, "cache": {"read": 0, "write": 0}}}),
    );
    w(
        &elsewhere.join("prt_evil.json"),
        json!({"id": "prt_evil", "type": "text", "text": "not mine"}),
    );
    // `ses_` exists, so `ses_/../..` resolves (as an attacker would arrange).
    std::fs::create_dir_all(st.join("message/ses_")).unwrap();
    let path = st.join("session/global/ses_k.json");
    let t = timeline(path.to_str().unwrap(), &[]);
    assert_eq!(t["session"]["responses"], 0, "{t}");
    assert_eq!(t["session"]["records"], 1, "{}", t["session"]);
}

/// A database with one session whose newest rows are only in its `-wal`,
/// shared without its `-shm` (what needs a private copy, SPEC §18.22), plus
/// `pad` bytes of filler; the folder it is in.
fn wal_without_shm(pad: usize) -> (tempfile::TempDir, PathBuf) {
    let mut db = Db::new();
    db.conn
        .execute_batch(
            "PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0; CREATE TABLE filler(b);",
        )
        .unwrap();
    db.session("ses_c", None, None);
    let u = db.user("ses_c", "only in the wal");
    db.assistant("ses_c", &u, json!({}), vec![text("ok")]);
    for _ in 0..pad / (1 << 20) {
        db.conn
            .execute("INSERT INTO filler VALUES (zeroblob(1048576))", [])
            .unwrap();
    }
    let shared = tempfile::tempdir().unwrap();
    let path = shared.path().join("opencode.db");
    std::fs::copy(&db.path, &path).unwrap();
    std::fs::copy(
        format!("{}-wal", db.path.display()),
        format!("{}-wal", path.display()),
    )
    .unwrap();
    (shared, path)
}

fn leftovers(tmp: &Path) -> Vec<String> {
    std::fs::read_dir(tmp)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

/// Issue 41 item 2: the private copy is capped (`MCSCOPE_TMP_CAP`, else the
/// free space less 10 %): over the cap, one line naming the temp folder and
/// exit 2, and nothing is left in it; under it, the WAL's rows are read.
#[test]
fn safe_io_2_the_private_copy_is_capped_and_names_its_folder() {
    let (_shared, path) = wal_without_shm(0);
    let tmp = tempfile::tempdir().unwrap();
    let run = |cap: Option<&str>| {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_mcscope"));
        c.args(["wire", path.to_str().unwrap(), "--at", "1"])
            .env("TMPDIR", tmp.path());
        match cap {
            Some(n) => c.env("MCSCOPE_TMP_CAP", n),
            None => c.env_remove("MCSCOPE_TMP_CAP"),
        };
        c.output().unwrap()
    };
    let out = run(Some("1000"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains(&tmp.path().display().to_string()), "{err}");
    assert!(err.contains("MCSCOPE_TMP_CAP"), "{err}");
    assert!(leftovers(tmp.path()).is_empty());
    // A cap that is no number is said, not ignored.
    let out = run(Some("lots"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("MCSCOPE_TMP_CAP=lots: expected a number of bytes"),
        "{err}"
    );
    let out = run(None);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("only in the wal"));
    assert!(leftovers(tmp.path()).is_empty(), "removed at exit");
}

/// Issue 41 item 2: SIGTERM while the private copy exists leaves nothing in
/// `$TMPDIR` (the copy was a 291 MB leftover). The process is caught while
/// its folder exists (stopped, sent SIGTERM, continued).
#[test]
fn safe_io_2_sigterm_during_the_copy_leaves_nothing_behind() {
    let (_shared, path) = wal_without_shm(48 << 20);
    let mut caught = false;
    for _ in 0..5 {
        let tmp = tempfile::tempdir().unwrap();
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_mcscope"))
            .args(["timeline", path.to_str().unwrap(), "-j"])
            .env("TMPDIR", tmp.path())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let pid = child.id().to_string();
        let kill = |sig: &str| {
            std::process::Command::new("kill")
                .args([sig, &pid])
                .status()
                .unwrap();
        };
        let started = std::time::Instant::now();
        while started.elapsed() < std::time::Duration::from_secs(20) {
            if child.try_wait().unwrap().is_some() {
                break;
            }
            if !leftovers(tmp.path()).is_empty() {
                kill("-STOP");
                // Still there once stopped: the signal lands while it exists.
                caught = !leftovers(tmp.path()).is_empty();
                kill("-TERM");
                kill("-CONT");
                break;
            }
        }
        let status = child.wait().unwrap();
        assert!(
            leftovers(tmp.path()).is_empty(),
            "left behind: {:?} ({status:?})",
            leftovers(tmp.path())
        );
        if caught {
            use std::os::unix::process::ExitStatusExt;
            assert_eq!(status.signal(), Some(15), "{status:?}");
            break;
        }
    }
    assert!(caught, "the copy was never seen alive in five runs");
}

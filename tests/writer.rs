//! The one writer (issue 21 item 2), through the real binary: `compare -o`
//! refuses a target that is, or links to, a file being read or that lies under
//! a harness's folders; it writes atomically with the usual mode; a full disk
//! leaves the old file whole. The TUI's export asks before replacing a file.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const DEMO: &str = "sample-sessions/claude-demo.jsonl";

fn sample(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(p)
}

/// A folder of its own as HOME (no harness variable set, no config): the
/// demo session copied into `work/`.
struct Home {
    _t: tempfile::TempDir,
    home: PathBuf,
    session: PathBuf,
}

fn home() -> Home {
    let t = tempfile::tempdir().unwrap();
    let home = std::fs::canonicalize(t.path()).unwrap();
    std::fs::create_dir_all(home.join("work")).unwrap();
    let session = home.join("work/s.jsonl");
    std::fs::copy(sample(DEMO), &session).unwrap();
    Home {
        _t: t,
        home,
        session,
    }
}

fn mcscope(h: &Home) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_mcscope"));
    c.env("HOME", &h.home);
    for v in [
        "CLAUDE_CONFIG_DIR",
        "QWEN_RUNTIME_DIR",
        "GEMINI_CLI_HOME",
        "XDG_DATA_HOME",
        "XDG_CONFIG_HOME",
        "OPENCODE_DB",
        "MCSCOPE_CONFIG",
    ] {
        c.env_remove(v);
    }
    c
}

fn compare_to(h: &Home, path: &Path, out: &Path, env: &[(&str, &Path)]) -> Output {
    let mut c = mcscope(h);
    c.arg("compare").arg(path).arg("-o").arg(out).arg("--quiet");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().unwrap()
}

/// Exit 2 with one line on stderr naming `target`; returns that line.
fn refused(out: &Output, target: &Path) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(err.contains(&target.display().to_string()), "{err}");
    assert!(err.contains("refusing to write"), "{err}");
    assert!(out.stdout.is_empty());
    err
}

#[test]
fn o_never_names_a_file_being_read_nor_a_link_to_one() {
    let h = home();
    let before = std::fs::read(&h.session).unwrap();
    let dir = h.session.parent().unwrap();
    // A hard link and a symlink to the session.
    let hard = dir.join("hard.html");
    std::fs::hard_link(&h.session, &hard).unwrap();
    let soft = dir.join("soft.html");
    std::os::unix::fs::symlink(&h.session, &soft).unwrap();
    for target in [&h.session, &hard, &soft] {
        let err = refused(&compare_to(&h, &h.session, target, &[]), target);
        assert!(err.contains("which mcscope is reading"), "{err}");
        assert_eq!(std::fs::read(&h.session).unwrap(), before);
    }
    assert!(refused(&compare_to(&h, &h.session, &hard, &[]), &hard).contains("hard link"));
    assert!(refused(&compare_to(&h, &h.session, &soft, &[]), &soft).contains("symlink"));

    // A session of the folder compared, and its sidecar.
    let sibling = dir.join("t.jsonl");
    std::fs::copy(sample(DEMO), &sibling).unwrap();
    let sidecar = dir.join("t.mcscope.json");
    std::fs::copy(sample("sample-sessions/claude-demo.mcscope.json"), &sidecar).unwrap();
    let side_before = std::fs::read(&sidecar).unwrap();
    for target in [&sibling, &sidecar] {
        refused(&compare_to(&h, dir, target, &[]), target);
    }
    assert_eq!(std::fs::read(&sibling).unwrap(), before);
    assert_eq!(std::fs::read(&sidecar).unwrap(), side_before);

    // The config file mcscope reads.
    let config = h.home.join("mcscope.toml");
    std::fs::write(&config, "").unwrap();
    refused(
        &compare_to(&h, &h.session, &config, &[("MCSCOPE_CONFIG", &config)]),
        &config,
    );
    assert_eq!(std::fs::read(&config).unwrap(), b"");

    // Anything else in the folder is fine.
    let ok = dir.join("report.txt");
    let out = compare_to(&h, &h.session, &ok, &[]);
    assert!(out.status.success(), "{out:?}");
    assert!(
        std::fs::read_to_string(&ok)
            .unwrap()
            .contains("Recommended")
    );
}

#[test]
fn o_never_writes_under_a_harness_folder_even_through_a_link() {
    let h = home();
    let mk = |rel: &str| {
        let d = h.home.join(rel);
        std::fs::create_dir_all(&d).unwrap();
        d
    };
    let second = mk("alt-claude");
    let qwen = mk("qwen-runtime");
    let gemini = mk("gem");
    let xdg = mk("data");
    let db_dir = mk("oc-db");
    let claude_list = format!("/nowhere,{}", second.display());
    let db = db_dir.join("opencode.db");
    let cases: Vec<(PathBuf, Vec<(&str, &Path)>)> = vec![
        (mk(".claude/projects/-work"), vec![]),
        (mk(".config/claude/projects"), vec![]),
        (mk(".qwen/projects"), vec![]),
        (mk(".gemini/tmp"), vec![]),
        (mk(".local/share/opencode"), vec![]),
        // The second entry of a comma-separated CLAUDE_CONFIG_DIR.
        (
            second.join("projects"),
            vec![("CLAUDE_CONFIG_DIR", Path::new(&claude_list))],
        ),
        (qwen.clone(), vec![("QWEN_RUNTIME_DIR", qwen.as_path())]),
        (
            mk("gem/.gemini/tmp"),
            vec![("GEMINI_CLI_HOME", gemini.as_path())],
        ),
        (mk("data/opencode"), vec![("XDG_DATA_HOME", xdg.as_path())]),
        // The data folder holds more than the database: it is refused when
        // `$OPENCODE_DB` names a database elsewhere.
        (
            mk("data/opencode/storage"),
            vec![
                ("XDG_DATA_HOME", xdg.as_path()),
                ("OPENCODE_DB", db.as_path()),
            ],
        ),
    ];
    for (dir, env) in &cases {
        std::fs::create_dir_all(dir).unwrap();
        let target = dir.join("report.html");
        let err = refused(&compare_to(&h, &h.session, &target, env), &target);
        assert!(err.contains("session folder"), "{err}");
        assert!(!target.exists(), "{}", target.display());
    }
    let target = db_dir.join("r.html");
    refused(
        &compare_to(&h, &h.session, &target, &[("OPENCODE_DB", &db)]),
        &target,
    );
    // A database named by a relative path lives under the data folder
    // (reference §1.1: "relative to <data>"), not in the current folder: the
    // data folder is refused (above), the current folder is not.
    let out = mcscope(&h)
        .current_dir(&db_dir)
        .env("OPENCODE_DB", "opencode.db")
        .arg("compare")
        .arg(&h.session)
        .args(["-o", "here.html", "--quiet"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(db_dir.join("here.html").exists());
    // A link from an ordinary folder into one: refused after resolving it.
    let link = h.home.join("work/into-claude");
    std::os::unix::fs::symlink(h.home.join(".claude/projects"), &link).unwrap();
    let target = link.join("r.html");
    refused(&compare_to(&h, &h.session, &target, &[]), &target);
    assert!(!h.home.join(".claude/projects/r.html").exists());
    // And the root itself, reached by a link, as a file name.
    let dot = h.home.join("work/dot-claude");
    std::os::unix::fs::symlink(h.home.join(".claude"), &dot).unwrap();
    refused(&compare_to(&h, &h.session, &dot, &[]), &dot);
}

#[test]
fn o_writes_with_the_usual_mode_less_the_umask() {
    let h = home();
    let target = h.home.join("work/report.json");
    std::fs::write(&target, "old").unwrap();
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o600)).unwrap();
    let out = Command::new("sh")
        .arg("-c")
        .arg("umask 027; exec \"$0\" compare \"$1\" --format json -o \"$2\" --quiet")
        .arg(env!("CARGO_BIN_EXE_mcscope"))
        .arg(&h.session)
        .arg(&target)
        .env("HOME", &h.home)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let mode = std::fs::metadata(&target).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o640, "{mode:o}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&target).unwrap()).unwrap();
    assert!(v["rows"].is_array());
    let names: Vec<_> = std::fs::read_dir(h.home.join("work"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 2, "no temp file left: {names:?}");
}

/// `compare -o` onto a 64 KiB tmpfs that has no room for the report, in a
/// mount namespace of its own (nothing is mounted outside this test). Skips
/// with a note where namespaces or tmpfs are not allowed.
#[test]
fn a_full_disk_leaves_the_old_report_whole_and_exits_2() {
    let h = home();
    let mnt = h.home.join("small");
    std::fs::create_dir(&mnt).unwrap();
    let script = r#"
        mount -t tmpfs -o size=64k tmpfs "$1" || exit 99
        printf 'the old report\n' > "$1/report.html"
        # Leave about 8 KiB free: less than the page.
        head -c 57344 /dev/zero > "$1/filler" 2>/dev/null
        "$2" compare "$3" --format html -o "$1/report.html" --quiet
        echo "rc=$?"
        cat "$1/report.html"
        ls -a "$1"
    "#;
    let out = Command::new("unshare")
        .args(["-m", "sh", "-c", script, "sh"])
        .arg(&mnt)
        .arg(env!("CARGO_BIN_EXE_mcscope"))
        .arg(&h.session)
        .env("HOME", &h.home)
        .output();
    let out = match out {
        Ok(o) if o.status.code() != Some(99) && o.status.success() => o,
        other => {
            eprintln!("skipped: no private tmpfs here ({other:?})");
            return;
        }
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stdout.contains("rc=2"), "{stdout}\n{stderr}");
    assert!(stdout.contains("the old report"), "{stdout}");
    let mut listing: Vec<&str> = stdout
        .lines()
        .skip_while(|l| !l.starts_with("the old report"))
        .skip(1)
        .collect();
    listing.sort();
    assert_eq!(listing, [".", "..", "filler", "report.html"], "{stdout}");
    let line: Vec<&str> = stderr.lines().filter(|l| l.contains("mcscope")).collect();
    assert_eq!(line.len(), 1, "{stderr}");
    assert!(line[0].contains("report.html"), "{stderr}");
    assert!(line[0].contains("No space left"), "{stderr}");
}

/// The kind of node at `p` (not following a link), in words.
fn kind(p: &Path) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let t = std::fs::symlink_metadata(p).unwrap().file_type();
    if t.is_fifo() {
        "fifo"
    } else if t.is_char_device() {
        "char"
    } else if t.is_file() {
        "file"
    } else {
        "other"
    }
}

/// Issue 41 item 1: a FIFO and a device node named by `-o` (directly or by a
/// symlink) are refused with exit 2 and left as they are. The device node is
/// made here, in a temp folder (no test names `/dev/*` as an output); without
/// root it cannot be made, and that part is skipped with a note.
#[test]
fn safe_io_1_o_refuses_a_fifo_or_a_device_and_leaves_it() {
    let h = home();
    let pipe = h.home.join("work/pipe");
    assert!(
        Command::new("mkfifo")
            .arg(&pipe)
            .status()
            .unwrap()
            .success()
    );
    let mut targets = vec![(pipe.clone(), "a FIFO")];
    let null = h.home.join("work/null");
    let made = Command::new("mknod")
        .arg(&null)
        .args(["c", "1", "3"])
        .output()
        .is_ok_and(|o| o.status.success());
    if made {
        targets.push((null.clone(), "a character device"));
    } else {
        eprintln!("note: mknod needs root here; the device-node case is skipped");
    }
    for (target, what) in &targets {
        let before = kind(target);
        let link = h.home.join("work/link.html");
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(target, &link).unwrap();
        for named in [target, &link] {
            // compare, and explain: the same writer.
            let out = compare_to(&h, &h.session, named, &[]);
            let err = refused(&out, named);
            assert!(
                err.contains(&format!(
                    "not a regular file ({what}); use `-o -` and redirect"
                )),
                "{err}"
            );
            let out = mcscope(&h)
                .args(["explain"])
                .arg(&h.session)
                .arg("toolu_")
                .arg("-o")
                .arg(named)
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{err}");
            assert!(err.contains("not a regular file"), "{err}");
            assert_eq!(kind(target), before, "{} was replaced", target.display());
        }
    }
}

/// Issue 41 item 1 (SPEC §18.21): a transcript mcscope is not reading, named
/// directly or through a symlink, is refused and its bytes kept; a Messages
/// API body (mcscope's own wire export) may be replaced.
#[test]
fn safe_io_1_o_never_turns_another_transcript_into_a_report() {
    let h = home();
    let other = h.home.join("work/other.jsonl");
    std::fs::copy(sample(DEMO), &other).unwrap();
    let before = std::fs::read(&other).unwrap();
    let link = h.home.join("work/report.html");
    std::os::unix::fs::symlink(&other, &link).unwrap();
    for named in [&other, &link] {
        let out = compare_to(&h, &h.session, named, &[]);
        let err = refused(&out, named);
        assert!(err.contains("it is a session transcript"), "{err}");
    }
    assert_eq!(std::fs::read(&other).unwrap(), before);
    let body = h.home.join("work/wire.json");
    std::fs::write(&body, r#"{"model":"m","messages":[]}"#).unwrap();
    let out = mcscope(&h)
        .arg("compare")
        .arg(&h.session)
        .args(["-j", "--quiet", "-o"])
        .arg(&body)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        std::fs::read_to_string(&body)
            .unwrap()
            .contains("\"sessions\"")
    );
}

/// Issue 41 item 1: `-o -` is stdout, for compare and explain alike.
#[test]
fn safe_io_1_o_dash_is_stdout() {
    let h = home();
    let plain = mcscope(&h)
        .arg("compare")
        .arg(&h.session)
        .args(["-j", "--quiet"])
        .output()
        .unwrap();
    let dash = mcscope(&h)
        .arg("compare")
        .arg(&h.session)
        .args(["-j", "--quiet", "-o", "-"])
        .current_dir(h.home.join("work"))
        .output()
        .unwrap();
    assert!(dash.status.success());
    assert_eq!(dash.stdout, plain.stdout);
    assert!(!h.home.join("work/-").exists());
}

use super::*;

/// The process's umask, as the kernel reports it (reading it through `umask(2)`
/// would change it).
fn umask() -> u32 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("Umask:")).unwrap();
    u32::from_str_radix(line.split_whitespace().nth(1).unwrap(), 8).unwrap()
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn a_failing_write_leaves_the_old_file_whole_and_no_temp_file() {
    let t = tempfile::tempdir().unwrap();
    let target = t.path().join("report.html");
    std::fs::write(&target, "the old report\n").unwrap();
    let e = write_with(&target, &Reading::default(), |out| {
        // Half the new report, then the disk is full.
        out.write_all(&[b'x'; 10_000])?;
        Err(std::io::Error::from_raw_os_error(libc::ENOSPC))
    })
    .unwrap_err();
    let text = e.to_string();
    assert!(text.starts_with(&target.display().to_string()), "{text}");
    assert!(text.contains("No space left on device"), "{text}");
    assert!(!text.contains('\n'), "one line: {text}");
    assert_eq!(
        std::fs::read_to_string(&target).unwrap(),
        "the old report\n"
    );
    assert_eq!(names(t.path()), ["report.html"]);
}

#[test]
fn a_written_file_has_the_usual_mode_and_replaces_the_old_one() {
    use std::os::unix::fs::PermissionsExt;
    let t = tempfile::tempdir().unwrap();
    let target = t.path().join("out.json");
    std::fs::write(&target, "old").unwrap();
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o600)).unwrap();
    let dest = write(&target, &Reading::default(), b"new").unwrap();
    assert_eq!(dest, std::fs::canonicalize(&target).unwrap());
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
    let mode = std::fs::metadata(&target).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o666 & !umask(), "{mode:o}");
    assert_eq!(names(t.path()), ["out.json"]);
}

#[test]
fn a_symlink_to_an_ordinary_file_is_written_through() {
    let t = tempfile::tempdir().unwrap();
    let real = t.path().join("real.txt");
    std::fs::write(&real, "old").unwrap();
    let link = t.path().join("link.txt");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    write(&link, &Reading::default(), b"new").unwrap();
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(std::fs::read_to_string(&real).unwrap(), "new");
}

#[test]
fn a_missing_folder_or_a_folder_target_is_one_line_naming_the_target() {
    let t = tempfile::tempdir().unwrap();
    let missing = t.path().join("no/such/out.txt");
    let e = write(&missing, &Reading::default(), b"x").unwrap_err();
    assert!(e.to_string().starts_with(&missing.display().to_string()));
    let e = write(t.path(), &Reading::default(), b"x").unwrap_err();
    assert!(e.to_string().contains("it is a folder"), "{e}");
}

/// A FIFO made in `dir` (coreutils' mkfifo).
fn fifo(dir: &Path, name: &str) -> PathBuf {
    let p = dir.join(name);
    let ok = std::process::Command::new("mkfifo")
        .arg(&p)
        .status()
        .unwrap()
        .success();
    assert!(ok, "mkfifo {}", p.display());
    p
}

#[test]
fn safe_io_1_a_fifo_target_is_refused_and_left_a_fifo() {
    use std::os::unix::fs::FileTypeExt;
    let t = tempfile::tempdir().unwrap();
    let f = fifo(t.path(), "pipe");
    let e = write(&f, &Reading::default(), b"x").unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "{}: refusing to write: it is not a regular file (a FIFO); use `-o -` and redirect",
            f.display()
        )
    );
    // Through a symlink: the node it resolves to is judged the same way.
    let link = t.path().join("link");
    std::os::unix::fs::symlink(&f, &link).unwrap();
    let e = write(&link, &Reading::default(), b"x").unwrap_err();
    assert!(e.to_string().contains("(a FIFO)"), "{e}");
    assert!(std::fs::symlink_metadata(&f).unwrap().file_type().is_fifo());
    assert_eq!(names(t.path()), ["link", "pipe"]);
}

#[test]
fn safe_io_1_a_node_that_appears_during_the_write_is_never_replaced() {
    use std::os::unix::fs::FileTypeExt;
    let t = tempfile::tempdir().unwrap();
    let target = t.path().join("new.html");
    // Free at the check; a FIFO by the time the bytes are written.
    let e = write_with(&target, &Reading::default(), |out| {
        fifo(t.path(), "new.html");
        out.write_all(b"report")
    })
    .unwrap_err();
    assert!(
        e.to_string().contains("changed while mcscope was writing"),
        "{e}"
    );
    assert!(
        std::fs::symlink_metadata(&target)
            .unwrap()
            .file_type()
            .is_fifo()
    );
    assert_eq!(names(t.path()), ["new.html"]);
    // A regular file swapped for another between the check and the rename.
    let old = t.path().join("old.html");
    std::fs::write(&old, "old").unwrap();
    let e = write_with(&old, &Reading::default(), |out| {
        std::fs::rename(t.path().join("old.html"), t.path().join("aside")).unwrap();
        std::fs::write(t.path().join("old.html"), "someone else's").unwrap();
        out.write_all(b"report")
    })
    .unwrap_err();
    assert!(e.to_string().contains("changed while"), "{e}");
    assert_eq!(std::fs::read_to_string(&old).unwrap(), "someone else's");
}

#[test]
fn safe_io_1_a_transcript_is_refused_a_wire_export_replaced() {
    let t = tempfile::tempdir().unwrap();
    let claude = t.path().join("other.jsonl");
    let line = r#"{"type":"user","message":{"role":"user","content":"hi"},"uuid":"u1","timestamp":"2026-01-01T00:00:00Z"}"#;
    std::fs::write(&claude, format!("{line}\n")).unwrap();
    let e = write(&claude, &Reading::default(), b"x").unwrap_err();
    assert!(
        e.to_string().ends_with(
            "it is a session transcript (Claude Code claude-jsonl); mcscope never writes over one"
        ),
        "{e}"
    );
    assert_eq!(
        std::fs::read_to_string(&claude).unwrap(),
        format!("{line}\n")
    );
    // A Messages API body (what mcscope's wire export writes) may be replaced.
    let body = t.path().join("wire.json");
    std::fs::write(&body, r#"{"model":"m","messages":[]}"#).unwrap();
    write(&body, &Reading::default(), b"{}").unwrap();
    assert_eq!(std::fs::read_to_string(&body).unwrap(), "{}");
    // An SQLite file (OpenCode's database) is never replaced either.
    let db = t.path().join("x.db");
    std::fs::write(&db, b"SQLite format 3\0rest").unwrap();
    let e = write(&db, &Reading::default(), b"x").unwrap_err();
    assert!(
        e.to_string().contains("session transcript (OpenCode"),
        "{e}"
    );
}

/// The reviewer's case: a Claude Code transcript whose first record (a
/// pasted image, a long paste) runs past the loader's 1 MiB head is still
/// known as a transcript and refused.
#[test]
fn safe_io_1_a_transcript_with_a_first_record_past_1_mib_is_refused() {
    let t = tempfile::tempdir().unwrap();
    let claude = t.path().join("big-first.jsonl");
    let big = "x".repeat(2 << 20);
    let line = format!(
        r#"{{"type":"user","message":{{"role":"user","content":"{big}"}},"uuid":"u1","timestamp":"2026-01-01T00:00:00Z"}}"#
    );
    std::fs::write(&claude, format!("{line}\n")).unwrap();
    let e = write(&claude, &Reading::default(), b"x").unwrap_err();
    assert!(e.to_string().contains("it is a session transcript"), "{e}");
    assert_eq!(
        std::fs::metadata(&claude).unwrap().len(),
        line.len() as u64 + 1
    );
}

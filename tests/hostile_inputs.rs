//! Hostile inputs, part two: what a user sees when a transcript is pathological
//! rather than merely damaged (deep nesting, huge lines, a million lines, reused
//! ids, results before their calls, impossible timestamps, wrong JSON types,
//! Windows and `..` paths, symlink loops, unreadable and missing memory roots).
//!
//! Every risky call runs under a deadline (`within`, `run_bin`), so a hang fails
//! the test instead of blocking the suite. Small fixtures live in
//! `tests/fixtures/hostile2/` (built by `make.py` there); big inputs are generated
//! into temp dirs. Nothing here writes outside a temp dir.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

mod common;

use common::Claude;
use mcscope::analysis::{self, PlanAt, Setup};
use mcscope::cli::Opts;
use mcscope::load::load;
use mcscope::policy::engine::Status;
use mcscope::policy::protect::{Outcome, RootKind};
use mcscope::policy::{Delivery, PlanKind};
use mcscope::session::{HarnessId, Session};
use mcscope::wire::Side;
use serde_json::{Value, json};
use std::ffi::OsStr;
use std::io::{BufWriter, Read, Write};
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

#[path = "hostile_inputs/memory_roots.rs"]
mod memory_roots;
#[path = "hostile_inputs/records.rs"]
mod records;
#[path = "hostile_inputs/size.rs"]
mod size;

/// The deadline for one risky call: a hang detector, not a speed target (a
/// debug build on a loaded 2-core machine took over 20 s for a million lines).
const LIMIT: Duration = Duration::from_secs(120);

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/hostile2")
        .join(name)
}

/// Runs `f` on its own thread and waits at most [`LIMIT`]: a hang fails the
/// test (the stuck thread is left behind), a panic is reported as one.
fn within<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    let handle = std::thread::Builder::new()
        .name(what.to_string())
        .spawn(move || {
            let _ = tx.send(f());
        })
        .expect("spawn");
    match rx.recv_timeout(LIMIT) {
        Ok(v) => v,
        Err(mpsc::RecvTimeoutError::Timeout) => {
            panic!("{what}: did not finish within {LIMIT:?} (hang?)")
        }
        Err(mpsc::RecvTimeoutError::Disconnected) => match handle.join() {
            Err(e) => {
                let msg = e
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                panic!("{what}: panicked: {msg}")
            }
            Ok(()) => panic!("{what}: finished without a value"),
        },
    }
}

/// Runs a command with a deadline: on timeout the child (ours) is killed and the
/// test fails.
fn run_cmd(mut cmd: Command, what: &str) -> Output {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .env_remove("RUST_BACKTRACE");
    let mut child = cmd.spawn().unwrap_or_else(|e| panic!("{what}: spawn: {e}"));
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let reader_out = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = out.read_to_end(&mut v);
        v
    });
    let reader_err = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = err.read_to_end(&mut v);
        v
    });
    let start = Instant::now();
    let status = loop {
        if let Some(st) = child.try_wait().expect("wait") {
            break st;
        }
        if start.elapsed() > LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: did not finish within {LIMIT:?} (hang?)");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: reader_out.join().unwrap(),
        stderr: reader_err.join().unwrap(),
    }
}

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_mcscope")
}

/// The mcscope binary with these arguments, under the deadline.
fn run_bin<S: AsRef<OsStr>>(args: &[S]) -> Output {
    let mut cmd = Command::new(bin());
    cmd.args(args);
    let what = format!(
        "mcscope {}",
        args.iter()
            .map(|a| a.as_ref().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(" ")
    );
    run_cmd(cmd, &what)
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Exit 0, no panic, and the JSON it printed.
fn json_ok(out: &Output, what: &str) -> Value {
    let err = stderr(out);
    assert!(!err.contains("panicked"), "{what}: panic: {err}");
    assert_eq!(out.status.code(), Some(0), "{what}: {err}");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{what}: not JSON: {e}"))
}

fn load_ok(path: &Path) -> Session {
    let p = path.to_path_buf();
    within("load", move || {
        load(&p, None).unwrap_or_else(|e| panic!("{} did not load: {e}", p.display()))
    })
}

fn setup_ok(path: &Path, opts: Opts) -> Setup {
    let p = path.to_path_buf();
    within("setup", move || common::setup(&p, opts))
}

/// Byte offset of the start of each line (index 0 = line 1).
fn line_starts(bytes: &[u8]) -> Vec<u64> {
    let mut starts = vec![0u64];
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'\n' && i + 1 < bytes.len() {
            starts.push(i as u64 + 1);
        }
    }
    starts
}

/// The diagnostics are exactly one per listed line, at that line's first byte.
fn assert_diagnostics_at(s: &Session, path: &Path, lines: &[usize]) {
    let starts = line_starts(&std::fs::read(path).unwrap());
    let got: Vec<(usize, u64)> = s
        .diagnostics
        .iter()
        .map(|d| (d.line, d.byte_offset))
        .collect();
    let want: Vec<(usize, u64)> = lines.iter().map(|&l| (l, starts[l - 1])).collect();
    assert_eq!(got, want, "diagnostics: {:#?}", s.diagnostics);
    for d in &s.diagnostics {
        assert!(!d.message.is_empty());
    }
}

/// Every plan kind (and both deliveries for Claude) at every request, the
/// timeline, both sides of the wire and `explain` of every result: all of it must
/// answer, under one deadline.
fn exercise(setup: &Setup, wire: bool) {
    let setup = setup.clone();
    within("every plan at every request", move || {
        let n = setup.last_request();
        let mut deliveries = vec![Delivery::Rewrite];
        if setup.session.harness == HarnessId::Claude {
            deliveries.push(Delivery::CacheEdits);
        }
        for kind in PlanKind::ALL {
            for &delivery in &deliveries {
                let mut s = setup.clone();
                s.policy.kind = kind;
                s.policy.delivery = delivery;
                assert_eq!(analysis::timeline(&s, n).len(), n);
                // Every request of a small session; a sample of a long one (each
                // plan replays its view from the start).
                let ks: Vec<usize> = if n <= 40 {
                    (0..=n).collect()
                } else {
                    vec![0, 1, n / 2, n - 1, n]
                };
                for k in ks {
                    let p = analysis::plan_at(&s, k)
                        .unwrap_or_else(|e| panic!("{kind:?}/{delivery:?} plan at {k}: {e}"));
                    assert_eq!(p.request.index, k);
                    if wire {
                        for side in [Side::Local, Side::Wire] {
                            analysis::wire_at(&s, k, side).unwrap_or_else(|e| {
                                panic!("{kind:?}/{delivery:?} wire at {k}: {e}")
                            });
                        }
                    }
                }
                let results = &s.session.results;
                let sample: Vec<_> = if n <= 40 {
                    results.iter().collect()
                } else {
                    results.iter().take(3).chain(results.last()).collect()
                };
                for r in sample {
                    analysis::explain(&s, &r.id, n).expect("explain a known id");
                }
            }
        }
    });
}

fn plan(setup: &Setup, k: usize) -> PlanAt {
    let s = setup.clone();
    within("plan", move || {
        analysis::plan_at(&s, k).unwrap_or_else(|e| panic!("plan at {k}: {e}"))
    })
}

/// The candidates with this id, in rank order: (status, outcome, reason).
fn fates(setup: &Setup, p: &PlanAt, id: &str) -> Vec<(Status, Option<Outcome>, String)> {
    p.candidates
        .iter()
        .filter(|c| setup.session.results[c.result].id == id)
        .map(|c| {
            (
                c.status,
                c.protection.as_ref().map(|x| x.outcome),
                mcscope::report::words::reason(c, &p.step.note),
            )
        })
        .collect()
}

fn protection(setup: &Setup, p: &PlanAt, id: &str) -> mcscope::policy::protect::Protection {
    p.candidates
        .iter()
        .find(|c| setup.session.results[c.result].id == id)
        .unwrap_or_else(|| panic!("no candidate {id}"))
        .protection
        .clone()
        .unwrap_or_else(|| panic!("{id}: protection is off or not a read"))
}

fn opts_idle(keep: u32) -> Opts {
    Opts::default()
        .with("--policy", "idle")
        .with("--keep-recent", &keep.to_string())
}

fn canonical_tempdir() -> (tempfile::TempDir, PathBuf) {
    let t = tempfile::tempdir().unwrap();
    let base = t.path().canonicalize().unwrap();
    (t, base)
}

fn disp(p: &Path) -> String {
    p.display().to_string()
}

/// A temp memory root holding `MEMORY.md`, and the opts that map the fixtures'
/// recorded root onto it.
fn memory_opts(dir: &Path, protect: bool) -> (PathBuf, Opts) {
    let mem = dir.join("mem");
    std::fs::create_dir_all(&mem).unwrap();
    std::fs::write(mem.join("MEMORY.md"), "notes").unwrap();
    let opts = Opts {
        shared: mcscope::cli::SharedOpts {
            memory_root: vec![format!("project={}", disp(&mem))],
            path_map: vec![format!(
                "/home/dev/.claude/projects/-home-dev-shop/memory={}",
                disp(&mem)
            )],
            ..Default::default()
        },
        ..Opts::default()
            .with("--policy", "idle")
            .with("--keep-recent", "1")
    };
    let opts = if protect {
        opts.with("--protect", "")
    } else {
        opts
    };
    (mem, opts)
}

//! The usage a Claude session's sub-agent transcripts recorded (SPEC §9a): the
//! sibling `agent-*.jsonl` files and the `<session>/subagents/*.jsonl` files
//! whose `sessionId` is the session's. Only their responses' usage is read, a
//! line at a time: sub-agents are billed, never simulated.

use super::claude::fields::Warnings;
use super::claude::usage;
use super::raw::{self, Raw};
use crate::session::{Session, UsageLine};
use serde::Deserialize;
use std::io::BufRead;
use std::path::{Path, PathBuf};

/// The most one sub-agent file is read of (a sparse or endless file must not
/// cost its length); its lines past that are not counted.
const FILE_CAP: u64 = 1 << 30;

#[derive(Deserialize)]
struct Line<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Raw<'a>,
    #[serde(rename = "sessionId", borrow, default)]
    session_id: Raw<'a>,
    #[serde(rename = "requestId", borrow, default)]
    request_id: Raw<'a>,
    #[serde(borrow, default)]
    message: Option<Msg<'a>>,
    #[serde(borrow, default)]
    timestamp: Raw<'a>,
    #[serde(rename = "agentId", borrow, default)]
    agent_id: Raw<'a>,
}

#[derive(Deserialize)]
struct Msg<'a> {
    #[serde(borrow, default)]
    id: Raw<'a>,
    #[serde(borrow, default)]
    model: Raw<'a>,
    #[serde(borrow, default)]
    usage: Raw<'a>,
}

/// The sub-agent files of `s`, sorted by path: none for a session that is not a
/// Claude JSONL main thread.
pub fn files(s: &Session) -> Vec<PathBuf> {
    if !super::format::of(s.format).subagent_files() || s.subagent_what_if {
        return Vec::new();
    }
    let Some(dir) = s.path.parent() else {
        return Vec::new();
    };
    let stem = s.path.file_stem().and_then(|n| n.to_str()).unwrap_or("");
    let mut out = Vec::new();
    let jsonl = |p: &Path| p.extension().is_some_and(|e| e == "jsonl");
    let mut push_from = |folder: &Path, want_agent_prefix: bool| {
        let Ok(entries) = std::fs::read_dir(folder) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            let named = p
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("agent-"));
            let regular = e.file_type().is_ok_and(|t| t.is_file());
            if regular && jsonl(&p) && (named || !want_agent_prefix) && p != s.path {
                out.push(p);
            }
        }
    };
    // Claude Code 2.0: `<project>/agent-*.jsonl` beside the session.
    push_from(dir, true);
    // Claude Code 2.1: `<project>/<session>/subagents/*.jsonl`.
    if !stem.is_empty() {
        push_from(&dir.join(stem).join("subagents"), false);
    }
    out.sort();
    out
}

/// Every response line with usage in the sub-agent files of `s` whose
/// `sessionId` is the session's (its first recorded one, else the file name),
/// file by file in path order, lines in file order. A file that cannot be
/// read adds nothing.
pub fn usage_lines(s: &Session) -> Vec<UsageLine> {
    let stem = s.path.file_stem().and_then(|n| n.to_str());
    let Some(want) = s.session_id.as_deref().or(stem) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for f in files(s) {
        if let Ok(lines) = read(&f, want) {
            out.extend(lines);
        }
    }
    out
}

/// The usage lines of one file, when its first `sessionId` is `want`.
fn read(path: &Path, want: &str) -> std::io::Result<Vec<UsageLine>> {
    use std::io::Read as _;
    // Listed as a regular file; opened only if it still is one.
    let file = super::regular::open_regular_io(path)?;
    let mut r = std::io::BufReader::new(file.take(FILE_CAP));
    let mut buf = String::new();
    let mut out = Vec::new();
    let mut owner_checked = false;
    let mut n = 0;
    // `agent-<id>.jsonl`: the agent's id where a line names none.
    let named = path
        .file_stem()
        .and_then(|n| n.to_str())
        .and_then(|n| n.rsplit("agent-").next())
        .filter(|_| {
            path.file_stem()
                .is_some_and(|n| n.to_string_lossy().contains("agent-"))
        })
        .map(str::to_string);
    loop {
        buf.clear();
        n += 1;
        match r.read_line(&mut buf) {
            Ok(0) => break,
            Ok(_) => {}
            // A line that is not UTF-8 is passed over, as the loader does.
            Err(e) if e.kind() == std::io::ErrorKind::InvalidData => continue,
            Err(e) => return Err(e),
        }
        let Ok(line) = serde_json::from_str::<Line>(buf.trim_end()) else {
            continue;
        };
        if !owner_checked && let Some(id) = raw::owned(line.session_id) {
            if id != want {
                return Ok(Vec::new());
            }
            owner_checked = true;
        }
        if raw::string(line.kind).as_deref() != Some("assistant") {
            continue;
        }
        let Some(msg) = line.message else { continue };
        let Some(u) = usage(msg.usage, &mut Warnings::default()) else {
            continue;
        };
        out.push(UsageLine {
            message_id: raw::owned(msg.id),
            request_id: raw::owned(line.request_id),
            model: raw::owned(msg.model),
            usage: u,
            at: raw::owned(line.timestamp),
            line: n,
            agent: raw::owned(line.agent_id).or_else(|| named.clone()),
            path: Some(path.to_path_buf()),
        });
    }
    // A file that never names its session is nobody's.
    Ok(if owner_checked { out } else { Vec::new() })
}

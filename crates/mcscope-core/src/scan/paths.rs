//! Where a session file sits: its project folder and the project's name, and
//! whether it is a sub-agent's transcript (and whose).

use super::*;

/// A sub-agent transcript by its place: `agent-*.jsonl`, or under `subagents/`.
pub fn is_subagent_path(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with("agent-"))
        || path.components().any(|c| c.as_os_str() == "subagents")
}

/// The session file a sub-agent file belongs to, where its place says it:
/// `<project>/<session>/subagents/agent-*.jsonl` (Claude Code 2.1) →
/// `<project>/<session>.jsonl`; `<project>/subagents/<session>/agent-*.jsonl` (Qwen)
/// → `<project>/chats/<session>.jsonl`; a sibling `agent-*.jsonl` (Claude Code 2.0)
/// → `<project>/<session_id>.jsonl`, the id its records carry.
pub fn parent_session(path: &Path, session_id: Option<&str>) -> Option<PathBuf> {
    let dir = path.parent()?;
    if dir.file_name()? == "subagents" {
        let session = dir.parent()?;
        let name = session.file_name()?.to_str()?;
        return Some(session.parent()?.join(format!("{name}.jsonl")));
    }
    let up = dir.parent()?;
    if up.file_name().is_some_and(|n| n == "subagents") {
        let name = dir.file_name()?.to_str()?;
        return Some(up.parent()?.join("chats").join(format!("{name}.jsonl")));
    }
    let own = path.file_name()?.to_str()?;
    match session_id {
        Some(id) if own.starts_with("agent-") && !id.is_empty() => {
            Some(dir.join(format!("{id}.jsonl")))
        }
        _ => None,
    }
}

/// The project folder of a session file: its parent, above `chats/` (Qwen) and
/// `<session>/subagents/` or `subagents/<session>/` (sub-agent files).
pub fn project_dir(path: &Path) -> Option<&str> {
    let mut dirs: Vec<&str> = path
        .parent()?
        .components()
        .filter_map(|c| c.as_os_str().to_str())
        .collect();
    // <project>/<session>/subagents/agent-x.jsonl (Claude Code 2.1.x)
    if dirs.last() == Some(&"subagents") {
        dirs.pop();
        dirs.pop();
    } else if dirs.len() >= 2 && dirs[dirs.len() - 2] == "subagents" {
        // <project>/subagents/<session>/agent-x.jsonl (Qwen)
        dirs.truncate(dirs.len() - 2);
    }
    if dirs.last() == Some(&"chats") {
        dirs.pop();
    }
    dirs.last().copied()
}

/// A harness's sanitised project folder name back to a path: Claude Code and Qwen
/// Code write the cwd with `/` (and `.`) as `-`, so `-home-me-app` is
/// `/home/me/app`. A name that does not start with `-` is not one: kept as is.
/// (`-` in a folder name cannot be told from `/`; the records' `cwd` wins when
/// there is one.)
pub fn decode_project(name: &str) -> String {
    if name.starts_with('-') {
        name.replace('-', "/")
    } else {
        name.to_string()
    }
}

/// A project path for a narrow column: the home folder as `~`.
pub fn short_project(project: &str, home: Option<&str>) -> String {
    match home {
        Some(h) if !h.is_empty() && h != "/" => match project.strip_prefix(h) {
            Some("") => "~".into(),
            Some(rest) if rest.starts_with('/') => format!("~{rest}"),
            _ => project.to_string(),
        },
        _ => project.to_string(),
    }
}

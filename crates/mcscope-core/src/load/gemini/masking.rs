//! What Gemini CLI's masking writes over an output, and the originals it saved
//! apart from the transcript (reference §2.6).

use super::*;

static NULL: Value = Value::Null;

/// Per result, the harness's tokens, the masked text Gemini CLI would write
/// (the file's own where it recorded one) and that text's tokens.
/// `file` is the session's, which bodies are read back from.
pub(super) fn masking_facts(
    s: &mut Session,
    file: Option<&std::fs::File>,
    recorded: &HashMap<String, String>,
    sid: Option<&str>,
) {
    let dir = project_tmp(s, file, recorded);
    let n = s.results.len();
    let mut tokens = Vec::with_capacity(n);
    let mut masked_tokens = Vec::with_capacity(n);
    let mut texts = HashMap::new();
    // Results come in message order: each body is read once for all of its.
    let mut body = (usize::MAX, Value::Null);
    for r in 0..n {
        let res = &s.results[r];
        if body.0 != res.msg {
            body = (
                res.msg,
                crate::load::readback::message_body(s, file, res.msg),
            );
        }
        // Borrowed from the body: an output is never copied to be measured.
        let part = body
            .1
            .get("parts")
            .and_then(|p| p.get(res.part))
            .unwrap_or(&NULL);
        let fr = part.get("functionResponse").unwrap_or(&NULL);
        // `getToolOutputContent` null, or `isAlreadyMasked` (the tag anywhere
        // in it, a mere mention included): Gemini CLI neither counts nor
        // masks it.
        let content = gc::output_content(fr).filter(|_| res.already_cleared || !gc::is_masked(fr));
        let Some(content) = content else {
            tokens.push(None);
            masked_tokens.push(u64::MAX);
            continue;
        };
        tokens.push(Some(gc::part_tokens(part)));
        // The file's own text is kept; the snippet made here is made again
        // when a wire is written (`gc::masked_text`), not held for every result.
        let snippet = match recorded.get(&res.id) {
            Some(text) => {
                texts.insert(r, text.clone());
                std::borrow::Cow::Borrowed(text.as_str())
            }
            None => gc::snippet_of(&dir, sid, &res.id, fr, &content).into(),
        };
        masked_tokens.push(gc::part_tokens(&gc::masked_part(part, &snippet)));
    }
    s.harness_tokens = tokens;
    s.masking.tokens = masked_tokens;
    s.masking.recorded = texts;
    s.masking.project_tmp = dir;
    s.masking.session_id = sid.map(str::to_string);
    s.masking.saved_originals = saved_originals(s, file);
}

/// The largest saved original read (a picker of hostile files must not read
/// a huge one whole).
const SAVED_CAP: u64 = 64 << 20;

/// The originals Gemini CLI saved for outputs the file holds only masked
/// (reference §2.6: `JSON.stringify(response, null, 2)` under
/// `<project temp>/tool-outputs/`). The path a snippet names is the
/// transcript's, so untrusted: only its part after `/tool-outputs/` is taken,
/// joined to the `tool-outputs` folder beside this session's `chats/`, and
/// read only when it resolves inside that folder and is a regular file.
fn saved_originals(s: &Session, file: Option<&std::fs::File>) -> HashMap<usize, String> {
    let mut out = HashMap::new();
    let Some(dir) = tool_outputs_dir(&s.path) else {
        return out;
    };
    let mut budget: u64 = 4 * SAVED_CAP;
    for (r, res) in s.results.iter().enumerate() {
        if !res.already_cleared {
            continue;
        }
        let part = crate::load::readback::result_part(s, file, r);
        let Some(output) = part.get("functionResponse").and_then(output_of) else {
            continue;
        };
        // One budget for the session: a hostile file naming one large saved
        // original from many results reads it that many times at most up to it.
        if budget == 0 {
            break;
        }
        if let Some(text) = saved_original(&dir, output) {
            budget = budget.saturating_sub(text.len() as u64);
            out.insert(r, text);
        }
    }
    out
}

/// `<project temp>/tool-outputs` of a session under `…/<project>/chats/`,
/// resolved (None elsewhere: nothing to check a path against).
fn tool_outputs_dir(session: &Path) -> Option<std::path::PathBuf> {
    let abs = std::path::absolute(session).ok()?;
    let chats = abs
        .ancestors()
        .find(|a| a.file_name().is_some_and(|n| n == "chats"))?;
    chats.parent()?.join("tool-outputs").canonicalize().ok()
}

/// The original a masked snippet points at, when it lies inside `dir`.
fn saved_original(dir: &Path, snippet: &str) -> Option<String> {
    use std::io::Read;
    const AT: &str = "Full output available at: ";
    const UNDER: &str = "/tool-outputs/";
    let i = snippet.rfind(AT)?;
    let named = snippet[i + AT.len()..].lines().next()?;
    let rel = &named[named.find(UNDER)? + UNDER.len()..];
    let rel = Path::new(rel);
    if rel
        .components()
        .any(|c| !matches!(c, std::path::Component::Normal(_)))
    {
        return None;
    }
    let real = dir.join(rel).canonicalize().ok()?;
    if !real.starts_with(dir) {
        return None;
    }
    let file = crate::load::regular::open_regular(&real).ok()?;
    // Larger than the cap: not read at all (never a part shown as the whole).
    if file.metadata().ok()?.len() > SAVED_CAP {
        return None;
    }
    let mut text = String::new();
    file.take(SAVED_CAP).read_to_string(&mut text).ok()?;
    // The saved text is the response's pretty JSON: its output when it has one.
    let response: Option<Value> = serde_json::from_str(&text).ok();
    Some(
        match response
            .as_ref()
            .and_then(|r| r.get("output"))
            .and_then(Value::as_str)
        {
            Some(o) => o.to_string(),
            None => text,
        },
    )
}

/// The project's temporary folder: where a recorded masking says its
/// originals are, else what the session's context message says
/// (`The project's temporary directory is: …`, written by every 0.44+
/// session), else the folder that holds `chats/`, else a stand-in.
fn project_tmp(
    s: &Session,
    file: Option<&std::fs::File>,
    recorded: &HashMap<String, String>,
) -> String {
    const AT: &str = "Full output available at: ";
    for text in recorded.values() {
        if let Some(i) = text.rfind(AT) {
            let p = text[i + AT.len()..].lines().next().unwrap_or("");
            if let Some(k) = p.find("/tool-outputs/") {
                return p[..k].to_string();
            }
        }
    }
    const SAYS: &str = "The project's temporary directory is: ";
    let context = (0..s.messages.len().min(4)).find_map(|m| {
        crate::load::readback::message_body(s, file, m)
            .get("parts")?
            .as_array()?
            .iter()
            .filter_map(|p| p.get("text")?.as_str())
            .find_map(|t| {
                let i = t.find(SAYS)?;
                t[i + SAYS.len()..].lines().next().map(str::to_string)
            })
    });
    if let Some(dir) = context.filter(|d| !d.is_empty()) {
        return dir;
    }
    let mut dir = std::path::absolute(&s.path).ok();
    while let Some(d) = dir {
        if d.file_name().is_some_and(|n| n == "chats") {
            return d.parent().unwrap_or(&d).display().to_string();
        }
        dir = d.parent().map(Path::to_path_buf);
    }
    // The file is not where Gemini CLI keeps it: its project is unknown.
    "/home/user/.gemini/tmp/project".into()
}

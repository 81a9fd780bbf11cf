//! What Gemini CLI's masking writes over an output, and the originals it saved
//! apart from the transcript (reference §2.6).

use super::*;

/// What the masking facts need of one result, taken while loading, where
/// its part is at hand (the part is never read back for them): `None` for an
/// output Gemini CLI neither counts nor masks.
pub(super) struct Pending {
    /// The harness's tokens of the part.
    tokens: u64,
    /// The tokens of the part masked with any snippet.
    masked: gc::MaskedTokens,
    /// The escaped length of the snippet Gemini CLI would write, but for its
    /// path (known once the session's folder is).
    snippet: u64,
}

/// The masking facts of one `functionResponse` part `part` (`fr`), whether
/// it is a masking record (`already_cleared`).
pub(super) fn pending(part: &Value, fr: &Value, already_cleared: bool) -> Option<Pending> {
    // `getToolOutputContent` null, or `isAlreadyMasked` (the tag anywhere
    // in it, a mere mention included): Gemini CLI neither counts nor
    // masks it.
    if !already_cleared && gc::is_masked(fr) {
        return None;
    }
    let preview = gc::output_preview(gc::tool_of(fr), fr)?;
    let snippet = gc::masked_snippet(&preview, "");
    Some(Pending {
        tokens: gc::part_tokens(part),
        masked: gc::MaskedTokens::of(part),
        snippet: gc::escaped_units(&snippet),
    })
}

/// Per result, the harness's tokens, the masked text Gemini CLI would write
/// (the file's own where it recorded one) and that text's tokens, from what
/// the load took of each result (`pending`, in result order).
/// `file` is the session's, which bodies are read back from.
pub(super) fn masking_facts(
    s: &mut Session,
    pending: Vec<Option<Pending>>,
    file: Option<&crate::load::readback::Source<'_>>,
    recorded: &HashMap<String, String>,
    sid: Option<&str>,
) {
    let dir = project_tmp(s, file, recorded);
    let n = s.results.len();
    let mut tokens = Vec::with_capacity(n);
    let mut masked_tokens = Vec::with_capacity(n);
    let mut texts = HashMap::new();
    debug_assert_eq!(pending.len(), n, "one pending fact per result");
    for (r, (res, p)) in s.results.iter().zip(pending).enumerate() {
        let Some(p) = p else {
            tokens.push(None);
            masked_tokens.push(u64::MAX);
            continue;
        };
        tokens.push(Some(p.tokens));
        // The file's own text is kept; the snippet Gemini CLI would write is
        // made again when a wire is written (`gc::masked_text`), not held for
        // every result: here only its length counts.
        let escaped = match recorded.get(&res.id) {
            Some(text) => {
                texts.insert(r, text.clone());
                gc::escaped_units(text)
            }
            None => {
                let tool = gc::tool_named(res.name.as_deref());
                let path = gc::saved_path(&dir, sid, tool, &res.id, gc::STAND_IN);
                p.snippet + gc::escaped_units(&path)
            }
        };
        masked_tokens.push(p.masked.with(escaped));
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
fn saved_originals(
    s: &Session,
    file: Option<&crate::load::readback::Source<'_>>,
) -> HashMap<usize, String> {
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
    file: Option<&crate::load::readback::Source<'_>>,
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

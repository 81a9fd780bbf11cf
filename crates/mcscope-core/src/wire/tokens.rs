//! Estimated tokens of messages and bodies, measured from the loader's sizes
//! where it can, else from the JSON written.

use super::*;

/// Estimated tokens of every message of the session as recorded (no clearing),
/// read in one pass: `tokens_from` of a body is the sum of its messages' figures.
pub fn local_message_tokens(s: &Session) -> std::io::Result<Vec<u64>> {
    message_tokens(s, true)
}

/// As [`local_message_tokens`]; with `measured` false every message is built and
/// written (the exact way the sizes measured while loading must agree with).
pub fn message_tokens(s: &Session, measured: bool) -> std::io::Result<Vec<u64>> {
    if s.messages.is_empty() {
        return Ok(Vec::new());
    }
    use rayon::prelude::*;
    // Chunks of messages on every core, each reading with its own handle.
    let ids: Vec<usize> = (0..s.messages.len()).collect();
    let chunks: Vec<std::io::Result<Vec<u64>>> =
        ids.par_chunks(256)
            .map(|chunk| {
                let file = crate::load::readback::open_session(s)?;
                chunk
                    .iter()
                    .map(
                        |&m| match measured.then(|| measured_tokens(s, m)).flatten() {
                            Some(t) => Ok(t),
                            None => message_from(&file, s, m)
                                .map(|v| tokens_of(std::slice::from_ref(&v))),
                        },
                    )
                    .collect()
            })
            .collect();
    let mut out = Vec::with_capacity(s.messages.len());
    for c in chunks {
        out.extend(c?);
    }
    Ok(out)
}

/// The estimated tokens of message `m` as `message_from` would write it, from
/// the sizes the loader measured (`None` when one of its records was not
/// measured: the caller builds it).
fn measured_tokens(s: &Session, m: usize) -> Option<u64> {
    measured_written(s, m, &|_| false).map(|w| w.div_ceil(4))
}

/// The estimated tokens of Claude message `m` in a `rewrite` wire that clears
/// the results `cleared` says, from the measured sizes: each cleared result's
/// content reads the placeholder instead. `None`: not measured, or not Claude.
pub fn measured_rewrite_tokens(
    s: &Session,
    m: usize,
    cleared: &dyn Fn(usize) -> bool,
) -> Option<u64> {
    // The written lengths are those of Messages API records.
    if s.harness.dialect() != Dialect::Anthropic {
        return None;
    }
    measured_written(s, m, cleared).map(|w| w.div_ceil(4))
}

/// `measured_rewrite_tokens` of every message at once, as two tables: per
/// message its written length with nothing cleared (None: not measured, or not
/// Claude), and per result what clearing it adds to its message's length (0
/// for a result without a measured block). A message's tokens with some of
/// its results cleared are then its length plus theirs, a quarter rounded up.
pub fn measured_rewrite_table(s: &Session) -> (Vec<Option<u64>>, Vec<i64>) {
    let mut delta = vec![0i64; s.results.len()];
    // The written lengths are those of Messages API records.
    if s.harness.dialect() != Dialect::Anthropic {
        return (vec![None; s.messages.len()], delta);
    }
    let placeholder = s.harness.rules().placeholder.len() as i64 + 2;
    let base: Vec<Option<u64>> = (0..s.messages.len())
        .map(|m| measured_written(s, m, &|_| false))
        .collect();
    for (m, msg) in s.messages.iter().enumerate() {
        if base[m].is_none() {
            continue;
        }
        // As `measured_written` pairs the message's results with the sizes.
        let mut results = s.results_in(m, m + 1);
        'blocks: for part in &msg.parts {
            for size in part.result_sizes() {
                let Some(r) = results.next() else {
                    break 'blocks;
                };
                // An absent `content` is added as `,"content":` and the placeholder.
                delta[r] =
                    placeholder - size.unwrap_or(0) as i64 + if size.is_none() { 11 } else { 0 };
            }
        }
    }
    (base, delta)
}

/// The written UTF-16 length of message `m` with the results `cleared` says
/// cleared as `apply` clears a Claude result (its `content` set to the
/// placeholder, added at the end when absent).
fn measured_written(s: &Session, m: usize, cleared: &dyn Fn(usize) -> bool) -> Option<u64> {
    let msg = &s.messages[m];
    let shape = s.harness.rules().wire;
    let mut pieces = Vec::with_capacity(msg.parts.len());
    for part in &msg.parts {
        pieces.push(part.piece()?);
    }
    let content = match pieces.as_slice() {
        [PieceLen::Str(len)] => *len,
        _ => {
            let (mut count, mut elements) = (0u64, 0u64);
            for p in pieces {
                let (c, e) = match p {
                    PieceLen::Arr { count, elements } => (count, elements),
                    // `{"type":"text","text":` + the string + `}`
                    PieceLen::Str(len) if s.harness.dialect().string_is_text_block() => {
                        (1, 23 + len)
                    }
                    PieceLen::Str(len) | PieceLen::Other(len) => (1, len),
                    PieceLen::Missing => (0, 0),
                };
                count += c;
                elements += e;
            }
            2 + elements + count.saturating_sub(1)
        }
    };
    let role = match msg.role {
        Role::User => shape.user_role,
        Role::Assistant => shape.assistant_role,
    };
    // `{"role":"` + role + `","` + key + `":` + content + `}`
    let mut written = 9 + role.len() as u64 + 3 + shape.content.len() as u64 + 2 + content + 1;
    // The placeholder is plain ASCII: its written form is itself and two quotes.
    let placeholder = s.harness.rules().placeholder.len() as u64 + 2;
    let mut results = s.results_in(m, m + 1);
    'blocks: for part in &msg.parts {
        for size in part.result_sizes() {
            let Some(r) = results.next() else {
                break 'blocks;
            };
            if cleared(r) {
                // An absent `content` is added as `,"content":` and the placeholder.
                written = written + placeholder - size.unwrap_or(0);
                if size.is_none() {
                    written += 11;
                }
            }
        }
    }
    Some(written)
}

/// Estimated tokens of message `m` in the wire of a `rewrite` request (SPEC §6):
/// what `tokens_from` counts for it when `c` is that request's clearings. A
/// rewritten message depends only on its own results and media (and on thoughts
/// dropped), so one message is built alone.
pub fn wire_message_tokens(
    s: &Session,
    req: &Request,
    m: usize,
    c: &Clearings<'_>,
) -> std::io::Result<u64> {
    let file = crate::load::readback::open_session(s)?;
    let mut one = vec![std::borrow::Cow::Owned(message_from(&file, s, m)?)];
    let alone = Request {
        view_start: m,
        end: m + 1,
        ..req.clone()
    };
    apply(s, &alone, &mut one, c);
    Ok(tokens_of(&one))
}

/// Estimated tokens of messages `from..` of a body: a quarter of their JSON length.
pub fn tokens_from(body: &Value, from: usize) -> u64 {
    let list = body
        .get("messages")
        .or_else(|| body.get("contents"))
        .and_then(Value::as_array);
    list.map(|l| tokens_of(l.get(from..).unwrap_or(&[])))
        .unwrap_or(0)
}

/// Estimated tokens of messages: a quarter of each one's JSON length, rounded up.
pub(super) fn tokens_of<M: std::borrow::Borrow<Value>>(messages: &[M]) -> u64 {
    messages
        .iter()
        .map(|m| json_utf16_len(m.borrow()).div_ceil(4))
        .sum()
}

/// UTF-16 units of a value's compact JSON (what `to_string` gives), counted as
/// it is written: no string is built.
pub(super) fn json_utf16_len(v: &Value) -> u64 {
    crate::utf16::of_json(v)
}

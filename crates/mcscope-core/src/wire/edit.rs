//! What a plan does to the messages of a body: cleared results rewritten, cache
//! edits placed, the server's view of its own edits, thinking dropped.

use super::*;
use crate::harness::{anthropic, gemini};
use std::borrow::Cow;

fn blocks_mut(harness: HarnessId, msg: &mut Value) -> Option<&mut Vec<Value>> {
    msg.get_mut(harness.rules().wire.content)
        .and_then(Value::as_array_mut)
}

/// What a plan does to a request's messages, in place. A message is copied
/// (`Cow::to_mut`) only when it changes, so a body printed from the local
/// messages (`print_both`) does not copy the view.
pub(super) fn apply(
    s: &Session,
    req: &Request,
    messages: &mut [Cow<'_, Value>],
    c: &Clearings<'_>,
) {
    let dialect = s.harness.dialect();
    if let Some(server) = c.server.filter(|_| dialect.has_server_view()) {
        server_view(s, req, messages, c, server);
        return;
    }
    // A body without cache edits is always rewritten.
    let rewrite = c.delivery == Delivery::Rewrite || !dialect.has_cache_edits();
    if rewrite {
        for (i, msg) in messages.iter_mut().enumerate() {
            let m = req.view_start + i;
            let changes = s
                .results_in(m, m + 1)
                .any(|r| (c.result_cleared)(r) || (c.result_stripped)(r))
                || (dialect.has_media_parts()
                    && s.media_in(m, m + 1).any(|k| (c.media_cleared)(k)));
            if !changes {
                continue;
            }
            let mut results = s.results_in(m, m + 1);
            let mut media = s.media_in(m, m + 1);
            let Some(blocks) = blocks_mut(s.harness, msg.to_mut()) else {
                continue;
            };
            for block in blocks.iter_mut() {
                if dialect.is_tool_result(block) {
                    if let Some(r) = results.next() {
                        if (c.result_cleared)(r) {
                            match crate::harness::gemini_cli::masked_text(s, r, block) {
                                // The harness's own text for this result.
                                Some(text) => {
                                    *block = crate::harness::gemini_cli::masked_part(block, &text)
                                }
                                None => dialect.clear_block(block, s.harness.rules().placeholder),
                            }
                        } else if (c.result_stripped)(r) {
                            gemini::strip_parts(block);
                        }
                    }
                } else if dialect.has_media_parts()
                    && is_top_level_media(block)
                    && let Some(k) = media.next()
                    && (c.media_cleared)(k)
                {
                    *block = json!({"text": media_placeholder(block)});
                }
            }
        }
    }
    for &(m, b, text) in c.texts {
        if let Some(msg) = m
            .checked_sub(req.view_start)
            .and_then(|i| messages.get_mut(i))
            && let Some(block) = blocks_mut(s.harness, msg.to_mut()).and_then(|bl| bl.get_mut(b))
        {
            *block = json!({"type": "text", "text": text});
        }
    }
    if c.drop_thoughts && s.harness.asks().forced_drops_thoughts() {
        gemini::drop_thoughts(messages);
    }
    if c.delivery == Delivery::CacheEdits && dialect.has_cache_edits() {
        cache_edits(s, req, messages, c.edits);
    }
}

/// The request after the server's edits (SPEC §11): cleared results read the
/// placeholder, cleared inputs are emptied, cleared thinking is dropped.
fn server_view(
    s: &Session,
    req: &Request,
    messages: &mut [Cow<'_, Value>],
    c: &Clearings<'_>,
    server: &ServerEdits,
) {
    for (i, msg) in messages.iter_mut().enumerate() {
        let m = req.view_start + i;
        let input_cleared =
            |b: &Value| anthropic::tool_use_id(b).is_some_and(|id| server.inputs.contains(id));
        let changes = server.thinking.contains(&m)
            || s.results_in(m, m + 1).any(|r| (c.result_cleared)(r))
            || msg
                .get("content")
                .and_then(Value::as_array)
                .is_some_and(|blocks| blocks.iter().any(input_cleared));
        if !changes {
            continue;
        }
        let mut results = s.results_in(m, m + 1);
        let Some(blocks) = msg
            .to_mut()
            .get_mut("content")
            .and_then(Value::as_array_mut)
        else {
            continue;
        };
        if server.thinking.contains(&m) {
            anthropic::drop_thinking(blocks);
        }
        for block in blocks.iter_mut() {
            if anthropic::is_tool_result(block) {
                if let Some(r) = results.next()
                    && (c.result_cleared)(r)
                {
                    anthropic::server_clear(block, &server.placeholder);
                }
            } else if input_cleared(block) {
                anthropic::clear_input(block);
            }
        }
    }
}

/// Claude's cached microcompact: the deletions in force at `req`, each at its
/// message (a result deleted once), placed by the Messages API dialect.
fn cache_edits(s: &Session, req: &Request, messages: &mut [Cow<'_, Value>], edits: &[EditBlock]) {
    let mut seen: HashSet<String> = HashSet::new();
    let mut deletes: Vec<(usize, Vec<String>)> = Vec::new();
    for e in edits
        .iter()
        .filter(|e| e.at <= req.index && e.msg >= req.view_start && e.msg < req.end)
    {
        let ids: Vec<String> = e
            .results
            .iter()
            .map(|&r| s.results[r].id.clone())
            .filter(|id| seen.insert(id.clone()))
            .collect();
        if !ids.is_empty() {
            deletes.push((e.msg - req.view_start, ids));
        }
    }
    anthropic::place_cache_edits(messages, &deletes);
}

/// What the transcript records Claude Code did to the request itself, applied
/// to both sides (SPEC §15.4): a result cut by a `tool_results_cut` record reads
/// its stand-in from the record's request on (§13.E1), and after a
/// `thinking_stripped` record the thinking of every earlier assistant message is
/// left out (§13.E2).
pub(super) fn apply_recorded(s: &Session, req: &Request, messages: &mut [Cow<'_, Value>]) {
    // Only Claude Code's loader finds these records (SPEC §13.E).
    if s.cut.is_empty() && s.thinking_strips.is_empty() {
        return;
    }
    let strip_before = s
        .thinking_strips
        .iter()
        .filter(|t| t.segment == req.segment && t.request.is_some_and(|k| k <= req.index))
        .map(|t| t.before_msg)
        .max()
        .unwrap_or(0);
    for (i, msg) in messages.iter_mut().enumerate() {
        let m = req.view_start + i;
        let cut = !s.cut.is_empty() && s.results_in(m, m + 1).any(|r| s.cut_at(r, req.index));
        let strip = m < strip_before && s.messages[m].role == Role::Assistant;
        if !cut && !strip {
            continue;
        }
        let mut results = s.results_in(m, m + 1);
        let Some(blocks) = blocks_mut(s.harness, msg.to_mut()) else {
            continue;
        };
        if strip {
            anthropic::drop_thinking(blocks);
        }
        for block in blocks.iter_mut() {
            if is_tool_result(s.harness, block)
                && let Some(r) = results.next()
                && s.cut_at(r, req.index)
                && let Some(stand_in) = s.cut_stand_in(r)
                && let Some(obj) = block.as_object_mut()
            {
                obj.insert("content".into(), Value::String(stand_in.to_string()));
            }
        }
    }
}

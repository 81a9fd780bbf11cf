//! The evidence of the whole session: each `microcompact_boundary` record
//! attached to the request (or compaction) it describes, the per-request
//! evidence collected, and the counts the JSON reports.

use super::*;

pub use crate::session::PARTIAL_TRANSCRIPT;

/// Where a record belongs (SPEC §10).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// `evidence.microcompact` of request k.
    Request(usize),
    /// `evidence.compactions` of request k (the first after the compaction).
    Compaction(usize),
}

/// Each `microcompact_boundary` of the session (by index into
/// `Session::evidence`) with its writer and target; records that belong nowhere
/// are warned about instead.
pub fn attach(s: &Session) -> (Vec<(usize, Writer, Target)>, Vec<Warning>) {
    let mut out = Vec::new();
    let mut warnings = Vec::new();
    for (i, e) in s.evidence.iter().enumerate() {
        let writer = Writer::of_record(e);
        let warn = |message: String| Warning {
            line: e.line,
            message,
        };
        match writer {
            Writer::Budget => {
                // Written before the request it changed: the next response's.
                let Some(req) = s.request(e.before_request) else {
                    warnings.push(warn(format!(
                        "microcompact_boundary (budget) at line {}: no request follows it; not attached",
                        e.line
                    )));
                    continue;
                };
                if req.segment != e.segment {
                    // A compaction came first: the record changed its summarizing request.
                    out.push((i, writer, Target::Compaction(req.index)));
                    continue;
                }
                let Some(m) = response(s, req) else {
                    warnings.push(warn(format!(
                        "microcompact_boundary (budget) at line {}: no response follows it; not attached",
                        e.line
                    )));
                    continue;
                };
                if m.first_parent_uuid.is_none() || m.first_parent_uuid != e.uuid {
                    warnings.push(warn(format!(
                        "microcompact_boundary (budget) at line {}: the response of request {} (line {}) has parentUuid {}, not the record's uuid {}",
                        e.line,
                        req.index,
                        m.first_line,
                        m.first_parent_uuid.as_deref().unwrap_or("(none)"),
                        e.uuid.as_deref().unwrap_or("(none)"),
                    )));
                }
                out.push((i, writer, Target::Request(req.index)));
            }
            Writer::Mask => {
                // Written before the request whose wire first holds the masks.
                match s.request(e.before_request) {
                    Some(req) if req.segment == e.segment => {
                        out.push((i, writer, Target::Request(req.index)))
                    }
                    _ => warnings.push(warn(format!(
                        "masking checkpoint at line {}: no request of its view follows it; not attached",
                        e.line
                    ))),
                }
            }
            Writer::ClineContext => {
                // SPEC §17.K.4: the edits a request's usage triggered are in
                // force from the next request (the loader's `before_request`).
                let Some(req) = s.request(e.before_request) else {
                    warnings.push(warn(format!(
                        "Cline's notices on {} result(s): no request was sent after them; not attached",
                        e.compacted_tool_ids.len()
                    )));
                    continue;
                };
                out.push((i, writer, Target::Request(req.index)));
            }
            Writer::Prune => {
                // SPEC §15.14: the first request whose assistant began at or
                // after the mark (the loader's `before_request`).
                let Some(req) = s.request(e.before_request) else {
                    warnings.push(warn(format!(
                        "prune marks of {} result(s): no request was built after them; not attached",
                        e.compacted_tool_ids.len()
                    )));
                    continue;
                };
                out.push((i, writer, Target::Request(req.index)));
            }
            Writer::Cached => {
                // Written after the response to the request that carried the deletions.
                if e.after_request == 0 {
                    warnings.push(warn(format!(
                        "microcompact_boundary (cached) at line {}: no response before it; not attached",
                        e.line
                    )));
                    continue;
                }
                out.push((i, writer, Target::Request(e.after_request)));
            }
        }
    }
    (out, warnings)
}

/// What a record's comparison reads of the session (SPEC §15.2): in a file
/// that starts mid-session, the ids its `tool_use`s hold; None in a whole
/// file. Made once, used for every comparison of the session.
pub struct Held<'a>(Option<std::collections::HashSet<&'a str>>);

impl<'a> Held<'a> {
    pub fn of(s: &'a Session) -> Held<'a> {
        let partial = s.warnings.iter().any(|w| w.id == PARTIAL_TRANSCRIPT);
        Held(partial.then(|| s.calls.iter().map(|c| c.id.as_str()).collect()))
    }

    /// The comparison as the session reads it: the ids no `tool_use` of a
    /// partial file holds are `absent`, not `missing`, whichever plan the
    /// record is compared with.
    pub fn split(&self, c: Comparison) -> Comparison {
        match &self.0 {
            Some(held) => c.split_absent(&|id: &str| held.contains(id)),
            None => c,
        }
    }
}

/// The request whose simulation a record of `writer` attached to request `k`
/// is compared with: `k`, except for OpenCode's prune, whose simulation takes
/// effect at the first request after the loop that ran it (SPEC §15.14): a
/// mark written late, after that request began (reference §5.2: prune runs in
/// the background after a loop), is compared there.
pub fn compared_at(s: &Session, writer: Writer, k: usize) -> usize {
    if writer != Writer::Prune {
        return k;
    }
    (2..=k).rev().find(|&j| s.loop_ended_before(j)).unwrap_or(k)
}

/// The evidence of every request. `simulate(writer, at)` answers the ids the
/// plan the writer implies (`budget`, `count`) newly cleared at `at`, or None when
/// that plan is not available. Observed breaks come without `plan_rewrite`: add it
/// with [`ObservedBreak::with_plan_rewrite`] where the selected plan is known.
pub fn collect(
    s: &Session,
    simulate: &mut dyn FnMut(Writer, SimAt) -> Option<Vec<String>>,
) -> SessionEvidence {
    let n = s.requests.len();
    let mut out = SessionEvidence {
        requests: vec![RequestEvidence::default(); n],
        warnings: Vec::new(),
    };
    let (attached, warnings) = attach(s);
    out.warnings = warnings;
    // SPEC §15.2: in a partial file, ids no tool_use holds are `absent`.
    let held = Held::of(s);
    for (i, writer, target) in attached {
        let e = &s.evidence[i];
        let at = match target {
            Target::Request(k) => SimAt::Request(compared_at(s, writer, k)),
            Target::Compaction(k) => SimAt::BeforeCompaction(k),
        };
        let mc = Microcompact {
            writer,
            line: e.line,
            compacted_tool_ids: e.compacted_tool_ids.clone(),
            ids_complete: e.ids_complete,
            pre_tokens: e.pre_tokens,
            tokens_saved: e.tokens_saved,
            comparison: None,
        };
        let mc = Microcompact {
            comparison: simulate(writer, at).map(|ids| {
                let c = mc.compare_with(&ids);
                held.split(c)
            }),
            ..mc
        };
        match target {
            Target::Compaction(k) => out.requests[k - 1].compactions.push(mc),
            Target::Request(k) => {
                let slot = &mut out.requests[k - 1].microcompact;
                if let Some(first) = slot {
                    out.warnings.push(Warning {
                        line: e.line,
                        message: format!(
                            "microcompact_boundary at line {} also belongs to request {k}, which shows the one at line {}",
                            e.line, first.line
                        ),
                    });
                } else {
                    *slot = Some(Box::new(mc));
                }
            }
        }
    }

    for (r, f) in out.requests.iter_mut().zip(super::facts::collect_facts(s)) {
        r.facts = f;
    }
    // One pass over the responses (`usage_walk`).
    usage_walk(s, |i, m, step| {
        let k = i + 1;
        let req = &s.requests[i];
        out.requests[i].applied_edits = m.applied_edits.clone();
        let Some(UsageStep {
            raw,
            u,
            ttl,
            deleted_grew,
            brk,
        }) = step
        else {
            return;
        };
        if let Some((p, expected)) = brk {
            let ev = &out.requests[i];
            let pm = response(s, &s.requests[p - 1]);
            let facts = BreakFacts {
                // A compaction's own summary request (OpenCode: the
                // summarizer's prompt, no tools) is the compaction's too.
                compaction: (s.requests[p - 1].segment != req.segment
                    && !s.rewind_segments.contains(&req.segment))
                    || s.turns.summary_requests.contains(&k),
                server_compaction: raw.server_compaction,
                model_change: match (pm.and_then(|m| m.model.as_deref()), &m.model) {
                    (Some(a), Some(b)) => a != b,
                    _ => false,
                },
                ttl: super::gap(s, k, Some(p), ttl).by.is_some(),
                plan_rewrite: false,
                // The budget writer rewrote results (the prefix breaks);
                // the cached writer deleted from the cache (it stays).
                harness_rewrite: ev.microcompact.as_ref().is_some_and(|m| {
                    matches!(
                        m.writer,
                        Writer::Budget | Writer::Prune | Writer::Mask | Writer::ClineContext
                    )
                }),
                cache_edits: ev
                    .microcompact
                    .as_ref()
                    .is_some_and(|m| m.writer == Writer::Cached)
                    || deleted_grew,
                context_edits: m.applied_edits.as_ref().is_some_and(|e| !e.is_empty()),
                client_cut: ev.facts.client_cut(),
                restart: super::restarted(s, p, k),
                tools_changed: pm.is_some_and(|_| super::called_tool_search(s, p)),
                thinking_stripped: ev.facts.thinking_stripped.is_some(),
            };
            out.requests[i].observed_break = Some(ObservedBreak {
                expected,
                observed: u.cache_read,
                facts,
            });
        }
        out.requests[i].usage = Some(u);
    });
    out
}

/// What [`usage_walk`] gives a request whose response has a countable usage.
pub(crate) struct UsageStep<'a> {
    pub raw: &'a Usage,
    pub u: UsageEvidence,
    /// `ttl_auto` before this response's own write.
    pub ttl: Ttl,
    /// The cumulative cache deletions grew here.
    pub deleted_grew: bool,
    /// An observed break (SPEC §10): the request of the usage it is measured
    /// against (1-based) and the cache read expected.
    pub brk: Option<(usize, u64)>,
}

impl UsageStep<'_> {
    /// The cache read an observed break lost (`ObservedBreak::drop`).
    pub fn break_drop(&self) -> Option<u64> {
        self.brk
            .map(|(_, expected)| super::lost(expected, self.u.cache_read))
    }
}

/// The one pass over the responses that [`collect`] and the bill's break count
/// share: `f(i, response, step)` for each request with a response, in order;
/// `step` is None when the response's usage is not countable. The last
/// request measured against, the last cache write and the cumulative
/// deletions carry forward.
pub(crate) fn usage_walk<'a>(
    s: &'a Session,
    mut f: impl FnMut(usize, &'a Message, Option<UsageStep<'a>>),
) {
    let mut prev: Option<(usize, UsageEvidence)> = None;
    let mut last_write: Option<Ttl> = None;
    let mut deleted: Option<u64> = None;
    for (i, req) in s.requests.iter().enumerate() {
        let k = i + 1;
        let Some(m) = response(s, req) else { continue };
        let Some(raw) = countable(m) else {
            f(i, m, None);
            continue;
        };
        let u = UsageEvidence::of(s.harness, raw);
        let ttl = last_write.unwrap_or(Ttl::FiveMinutes);
        let deleted_grew = match (u.cache_deleted, deleted) {
            (Some(now), before) => now > before.unwrap_or(0),
            _ => false,
        };
        if u.cache_deleted.is_some() {
            deleted = u.cache_deleted;
        }
        if raw.cache_creation_input_tokens > 0 && s.harness.rules().cache_writes {
            last_write = Some(ttl_of_write(raw));
        }
        let mut brk = None;
        if !u.aggregated {
            if let Some((p, pu)) = &prev {
                let expected = pu.expected_next();
                if is_break(expected, u.cache_read) {
                    brk = Some((*p, expected));
                }
            }
            prev = Some((k, u.clone()));
        }
        f(
            i,
            m,
            Some(UsageStep {
                raw,
                u,
                ttl,
                deleted_grew,
                brk,
            }),
        );
    }
}

/// `counts` of `mcscope evidence` (SPEC §10), fields in schema order: breaks per
/// explanation (named as [`Explanation::name`], in [`Explanation::ALL`]'s
/// order), then the records and how many of them agree with their plan.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    pub compaction: usize,
    pub server_compaction: usize,
    pub model_change: usize,
    pub ttl: usize,
    pub plan_rewrite: usize,
    pub harness_rewrite: usize,
    pub cache_edits: usize,
    pub context_edits: usize,
    pub client_cut: usize,
    pub restart: usize,
    pub tools_changed: usize,
    pub unexplained: usize,
    pub boundaries: usize,
    pub agrees: usize,
    /// Ids records name that no tool_use of a partial file holds (SPEC §15.2).
    pub absent: usize,
    /// SPEC §13.J: requests with a cut record, a thinking strip, a resume note;
    /// `idle_server` comparisons (E4) that agree or differ.
    pub tool_results_cut: usize,
    pub thinking_stripped: usize,
    pub resumed_after_pause: usize,
    pub idle_server_agrees: usize,
    pub idle_server_differs: usize,
}

impl Counts {
    /// The observed breaks `e` explains.
    pub fn of(&self, e: Explanation) -> usize {
        match e {
            Explanation::Compaction => self.compaction,
            Explanation::ServerCompaction => self.server_compaction,
            Explanation::ModelChange => self.model_change,
            Explanation::Ttl => self.ttl,
            Explanation::PlanRewrite => self.plan_rewrite,
            Explanation::HarnessRewrite => self.harness_rewrite,
            Explanation::CacheEdits => self.cache_edits,
            Explanation::ContextEdits => self.context_edits,
            Explanation::ClientCut => self.client_cut,
            Explanation::Restart => self.restart,
            Explanation::ToolsChanged => self.tools_changed,
            Explanation::Unexplained => self.unexplained,
        }
    }

    fn slot(&mut self, e: Explanation) -> &mut usize {
        match e {
            Explanation::Compaction => &mut self.compaction,
            Explanation::ServerCompaction => &mut self.server_compaction,
            Explanation::ModelChange => &mut self.model_change,
            Explanation::Ttl => &mut self.ttl,
            Explanation::PlanRewrite => &mut self.plan_rewrite,
            Explanation::HarnessRewrite => &mut self.harness_rewrite,
            Explanation::CacheEdits => &mut self.cache_edits,
            Explanation::ContextEdits => &mut self.context_edits,
            Explanation::ClientCut => &mut self.client_cut,
            Explanation::Restart => &mut self.restart,
            Explanation::ToolsChanged => &mut self.tools_changed,
            Explanation::Unexplained => &mut self.unexplained,
        }
    }
}

/// `counts` of `mcscope evidence`: breaks per explanation, records, agreements.
pub fn counts(requests: &[(usize, &RequestEvidence)]) -> Counts {
    let mut out = Counts::default();
    for b in requests
        .iter()
        .filter_map(|(_, r)| r.observed_break.as_ref())
    {
        // SPEC §18.14: a simulation is never counted among the causes of a
        // real break (`plan_rewrite` stays in the counts, always 0).
        for e in b.explanations() {
            if e != Explanation::PlanRewrite {
                *out.slot(e) += 1;
            }
        }
    }
    let records = || {
        requests.iter().flat_map(|(_, r)| {
            r.microcompact
                .as_deref()
                .into_iter()
                .chain(r.compactions.iter())
        })
    };
    out.boundaries = records().count();
    out.agrees = records()
        .filter(|m| {
            m.comparison
                .as_ref()
                .is_some_and(|c| c.agrees == Some(true))
        })
        .count();
    out.absent = records()
        .filter_map(|m| m.comparison.as_ref())
        .map(|c| c.absent.len())
        .sum();
    for (_, r) in requests {
        let f = &r.facts;
        out.tool_results_cut += f.cuts.len();
        out.thinking_stripped += usize::from(f.thinking_stripped.is_some());
        out.resumed_after_pause += usize::from(f.resumed_after_pause);
        match super::facts::idle_agreement(f.idle_recorded.as_deref(), f.idle_simulated.as_deref())
            .0
        {
            Some(true) => out.idle_server_agrees += 1,
            Some(false) => out.idle_server_differs += 1,
            None => {}
        }
    }
    out
}

//! `evidence`: what the transcript says happened (SPEC §10), as JSON and text.

use super::*;

/// The requests of a session that hold evidence, with their index.
pub(super) fn evidence_rows(r: &EvidenceReport) -> Vec<(usize, &RequestEvidence)> {
    each_evidence_row(r).collect()
}

/// [`evidence_rows`], one at a time.
fn each_evidence_row(r: &EvidenceReport) -> impl Iterator<Item = (usize, &RequestEvidence)> {
    r.evidence
        .requests
        .iter()
        .enumerate()
        .filter(|(_, e)| !e.is_empty())
        .map(|(i, e)| (i + 1, e))
}

/// The `requests` of the JSON, each made as it is written: a long session
/// has a row a request, and all of them at once were a tenth of the
/// command's memory (issue 41 item 5).
struct RowsJson<'a>(&'a EvidenceReport);

impl Serialize for RowsJson<'_> {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        ser.collect_seq(each_evidence_row(self.0).map(|(k, e)| EvidenceRowJson {
            index: k,
            evidence: e.json(),
        }))
    }
}

/// `evidence --format json` (schema `mcscope.evidence/1`, SPEC §10), fields in
/// schema order.
#[derive(Serialize)]
pub struct EvidenceJson<'a> {
    schema: &'static str,
    session: SessionJson<'a>,
    policy: PolicyJson,
    caveats: Vec<CaveatJson>,
    requests: RowsJson<'a>,
    counts: CountsJson,
    warnings: Vec<WarningJson<'a>>,
    /// OpenCode: what prune marks after the file's last loop, by the
    /// simulation, where the file records no mark there (SPEC §17.O.6).
    #[serde(skip_serializing_if = "Option::is_none")]
    pending_prune: Option<Vec<String>>,
}

/// One request with evidence: its index, then the §10 `evidence` object's keys.
#[derive(Serialize)]
struct EvidenceRowJson<'a> {
    index: usize,
    #[serde(flatten)]
    evidence: RequestEvidenceJson<'a>,
}

/// The tallies of the session, then the api preset's (absent otherwise).
#[derive(Serialize)]
struct CountsJson {
    #[serde(flatten)]
    counts: crate::evidence::Counts,
    #[serde(flatten)]
    api: Option<api::CountsJson>,
}

/// A line the evidence could not use.
#[derive(Serialize)]
struct WarningJson<'a> {
    line: usize,
    message: &'a str,
}

/// `evidence --format json` (schema `mcscope.evidence/1`, SPEC §10).
/// `pending_prune` is [`analysis::pending_prune`]'s answer, taken before the
/// report was made (see [`analysis::pending_prune_owned`]).
pub fn evidence_json<'a>(
    setup: &'a Setup,
    r: &'a EvidenceReport,
    pending_prune: Option<Vec<String>>,
) -> EvidenceJson<'a> {
    let rows = evidence_rows(r);
    EvidenceJson {
        schema: "mcscope.evidence/1",
        session: session_json_ran(setup, &r.ran),
        policy: kinds::policy_all(setup),
        caveats: caveats_json(setup.caveats_all()),
        requests: RowsJson(r),
        counts: CountsJson {
            counts: crate::evidence::counts(&rows),
            api: api::counts_json(setup),
        },
        warnings: r
            .evidence
            .warnings
            .iter()
            .map(|w| WarningJson {
                line: w.line,
                message: &w.message,
            })
            .collect(),
        pending_prune,
    }
}

/// `evidence` as text: the observed breaks with their explanations in words, the
/// harness's boundary records with their comparisons, the server's edits.
/// (`pending_prune` as [`evidence_json`]'s.)
pub fn evidence_text(
    setup: &Setup,
    r: &EvidenceReport,
    pending_prune: Option<Vec<String>>,
) -> String {
    let s = &setup.session;
    let mut out = String::new();
    header(
        setup,
        &setup.kinds_chosen(),
        kinds::policy_all(setup).keep_recent(),
        &setup.caveats_all(),
        &mut out,
    );
    let rows = evidence_rows(r);
    let responses = rows.iter().filter(|(_, e)| e.usage.is_some()).count();
    let breaks = rows
        .iter()
        .filter(|(_, e)| e.observed_break.is_some())
        .count();
    let records = rows
        .iter()
        .map(|(_, e)| e.microcompact.iter().count() + e.compactions.len())
        .sum::<usize>();
    // The records' own kind (SPEC §15.21): Claude Code's boundaries, Gemini
    // CLI's maskings, OpenCode's prune marks.
    let kind = rows
        .iter()
        .flat_map(|(_, e)| e.microcompact.as_deref().into_iter().chain(&e.compactions))
        .map(|m| m.writer.record_kind())
        .next()
        .unwrap_or(s.harness.rules().words.records);
    let _ = writeln!(
        out,
        "evidence: {responses} responses with usage, {breaks} observed cache break(s), {records} {kind} record(s)"
    );
    // What it cost, as recorded (SPEC §9a): the bill beside the evidence.
    let _ = writeln!(
        out,
        "{}",
        crate::bill::of_setup(setup, &Default::default()).words()
    );
    let at = |k: usize| {
        s.request(k)
            .and_then(|q| q.at.as_deref())
            .map_or("?".into(), crate::zone::local)
    };
    let held = crate::evidence::Held::of(s);
    for (k, e) in &rows {
        if let Some(b) = &e.observed_break {
            let _ = writeln!(out);
            let _ = writeln!(
                out,
                "! request {k} at {}: cache read {} where {} were expected (drop {} tokens)",
                at(*k),
                fmt_int(b.observed),
                fmt_int(b.expected),
                fmt_int(b.drop())
            );
            for x in b.explanations() {
                let _ = writeln!(out, "    {}: {}", x.name(), x.words(s.harness));
            }
        }
        let records = e.microcompact.as_deref().into_iter().map(|m| (m, false));
        for (m, before_compaction) in records.chain(e.compactions.iter().map(|m| (m, true))) {
            let _ = writeln!(out);
            let place = if before_compaction {
                format!("the compaction before request {k}")
            } else {
                format!("request {k}")
            };
            let _ = writeln!(
                out,
                "◇ {}",
                words::record_line(setup.session.harness, m, &place)
            );
            let sim_at = crate::evidence::compared_at(&setup.session, m.writer, *k);
            let _ = writeln!(
                out,
                "    against the {} plan{}: {}",
                m.writer.plan(),
                super::words::at_other(sim_at, *k),
                match &m.comparison {
                    Some(c) => c.words(),
                    None => "not compared: no request to simulate it on".into(),
                }
            );
            let selected = setup.policy.kind.name();
            if !before_compaction
                && selected != m.writer.plan()
                && let Some(ids) = r.selected_newly.get(&sim_at)
            {
                let c = held.split(m.compare_with(ids));
                let _ = writeln!(
                    out,
                    "    against the selected plan ({selected}): {}",
                    c.words()
                );
            }
        }
        facts_text(*k, &e.facts, &mut out);
        if let Some(edits) = e.applied_edits.as_ref().filter(|v| !v.is_empty()) {
            let list: Vec<String> = edits.iter().map(Value::to_string).collect();
            let _ = writeln!(out);
            let _ = writeln!(
                out,
                "request {k}: the server applied context edits: {}",
                sanitize::joined(list, ", ")
            );
        }
    }
    if breaks > 0 {
        let _ = writeln!(out);
        let counts = crate::evidence::counts(&rows);
        let tally: Vec<String> = Explanation::ALL
            .iter()
            .filter(|x| counts.of(**x) > 0)
            .map(|x| format!("{} {}", x.name(), counts.of(*x)))
            .collect();
        let _ = writeln!(out, "breaks by explanation: {}", tally.join(", "));
    }
    api::counts_text(setup, &mut out);
    if let Some(ids) = pending_prune.filter(|ids| !ids.is_empty()) {
        let _ = writeln!(out);
        let _ = writeln!(
            out,
            "◇ after the last request: prune would mark [{}] when the last prompt loop ended (predicted, not yet recorded: the file was taken before OpenCode wrote them, or prune was off)",
            sanitize::joined(&ids, ", ")
        );
    }
    for w in &r.evidence.warnings {
        let _ = writeln!(out, "warning: line {}: {}", w.line, w.message);
    }
    out
}

/// Claude Code's newer records at request `k` in words (SPEC §13.E): facts,
/// said as what Claude Code did.
fn facts_text(k: usize, f: &crate::evidence::facts::RequestFacts, out: &mut String) {
    for c in &f.cuts {
        let _ = writeln!(out);
        let mut line = format!(
            "◇ tool_results_cut at line {} belongs to request {k}: cut by Claude Code (recorded) [{}]",
            c.line,
            sanitize::joined(&c.applied, ", "),
        );
        for (i, (id, why)) in c.not_applied.iter().enumerate() {
            line.push_str(if i == 0 { "; not applied: " } else { ", " });
            let _ = write!(line, "{} ({why})", sanitize::line(id));
        }
        let _ = writeln!(out, "{line}");
    }
    if let Some((scope, cause)) = f.thinking_stripped.as_deref() {
        let _ = writeln!(
            out,
            "request {k}: thinking stripped by Claude Code (scope {}, cause {}): older thinking is left out of the wire from here on",
            sanitize::line(scope.as_deref().unwrap_or("?")),
            sanitize::line(cause.as_deref().unwrap_or("?"))
        );
    }
    if f.resumed_after_pause {
        let _ = writeln!(
            out,
            "request {k}: Claude Code noted that the chat resumed after a long pause"
        );
    }
    if let Some(r) = &f.idle_recorded {
        let what = match (r.cleared_tool_uses, r.client_cut_tool_uses) {
            (Some(n), _) => format!("the server cleared {n} tool uses"),
            (None, Some(n)) if n > 0 => format!("cut by the client: {n} results, no edit sent"),
            _ => "no clearing recorded".into(),
        };
        let sim = match &f.idle_simulated {
            Some(s) if s.sent => format!(
                "the simulated idle-server plan sends trigger {} keep {} and the server clears {}",
                s.trigger.unwrap_or(0),
                s.keep.unwrap_or(0),
                s.cleared_tool_uses
            ),
            Some(_) => "the simulated idle-server plan sends no edit here".into(),
            None => "no simulated idle-server plan".into(),
        };
        let (agrees, differs) =
            crate::evidence::facts::idle_agreement(Some(r), f.idle_simulated.as_deref());
        let verdict = match agrees {
            Some(true) => "agrees".to_string(),
            Some(false) => format!("differs in {}", differs.join(", ")),
            None => "not compared".into(),
        };
        let _ = writeln!(
            out,
            "request {k}: context_management recorded: {what}; {sim}: {verdict}"
        );
    }
}

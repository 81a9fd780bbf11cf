//! `explain`: the fate of one tool result at every request, as JSON and text.

use super::*;

/// `explain --format json` (schema `mcscope.explain/1`), fields in schema order.
#[derive(Serialize)]
pub struct ExplainJson<'a> {
    schema: &'static str,
    /// Added so that explain carries `session.warnings` as every schema does (SPEC §15.2).
    session: SessionJson<'a>,
    tool_use_id: &'a str,
    tool: &'a Option<String>,
    path: &'a Option<String>,
    first_cleared_at: Option<usize>,
    /// The records that name the id (SPEC §15.21), in file order.
    records: Vec<RecordJson>,
    /// Whether a `tool_use` of the file holds the id.
    call_in_file: bool,
    caveats: Vec<CaveatJson>,
    requests: Vec<ExplainRowJson<'a>>,
}

#[derive(Serialize)]
struct RecordJson {
    line: usize,
    kind: &'static str,
    request: Option<usize>,
}

/// The result's fate at one request.
#[derive(Serialize)]
struct ExplainRowJson<'a> {
    index: usize,
    status: &'static str,
    reason: String,
    /// Set when a recorded cut replaced it there (SPEC §15.21).
    cut: Option<super::plan::CutJson<'a>>,
    /// SPEC §13.P, §15.21.
    harness_could_run: Option<bool>,
    harness_could_run_reason: &'static str,
}

/// `explain --format json` (schema `mcscope.explain/1`).
pub fn explain_json<'a>(setup: &'a Setup, e: &'a Explain) -> ExplainJson<'a> {
    ExplainJson {
        schema: "mcscope.explain/1",
        session: session_json(&setup.session),
        tool_use_id: &e.tool_use_id,
        tool: &e.tool,
        path: &e.path,
        first_cleared_at: e.first_cleared_at,
        records: e
            .records
            .iter()
            .map(|r| RecordJson {
                line: r.line,
                kind: r.kind,
                request: r.request,
            })
            .collect(),
        call_in_file: e.call_in_file,
        caveats: caveats_json(setup.caveats_all()),
        requests: e
            .rows
            .iter()
            .map(|r| ExplainRowJson {
                index: r.index,
                status: r.status.name(),
                reason: words::explain_reason(r),
                cut: super::plan::CutJson::of(&setup.session, r.candidate.result, r.index),
                harness_could_run: r.plausible.could_run,
                harness_could_run_reason: r.plausible.reason,
            })
            .collect(),
    }
}

/// Where the result first left the wire, in words (text and the TUI panel).
/// SPEC §13.P3: no wording presents a what-if as what happened.
pub fn fate_line(setup: &Setup, e: &Explain) -> String {
    let Some(k) = e.first_cleared_at else {
        return "never cleared from the wire".into();
    };
    match e.rows.iter().find(|r| r.index == k) {
        Some(_) if setup.session.subagent_what_if => format!(
            "what-if: would first vanish from the simulated wire at request {k} (a sub-agent's transcript: no harness clears a sub-agent's results)"
        ),
        Some(r) if r.plausible.what_if() => format!(
            "what-if: would first vanish from the simulated wire at request {k} (this Claude Code build / entrypoint has no code path for the plan there, reason {}): it did not happen",
            r.plausible.reason
        ),
        _ => format!("first vanished from the wire at request {k}"),
    }
}

/// A row's status in words, `(what-if)` where the clearing is one (§13.P3).
pub fn row_status(setup: &Setup, r: &crate::analysis::ExplainRow) -> String {
    let what_if =
        r.status == Status::Cleared && (setup.session.subagent_what_if || r.plausible.what_if());
    format!(
        "{} {}{}",
        glyph(r.status),
        r.status.name(),
        if what_if { " (what-if)" } else { "" }
    )
}

pub fn explain_text(setup: &Setup, e: &Explain) -> String {
    let mut out = String::new();
    header(
        setup,
        &setup.kinds_chosen(),
        kinds::policy_all(setup).keep_recent(),
        &setup.caveats_all(),
        &mut out,
    );
    // The records first (SPEC §15.21): what the transcript says, then the plans.
    for r in &e.records {
        let _ = writeln!(
            out,
            "◇ {}{}{}",
            r.kind,
            super::at_line(r.line),
            r.request
                .map_or(" (attached to no request)".into(), |k| format!(
                    " belongs to request {k}"
                ))
        );
    }
    if !e.records.is_empty() {
        let _ = writeln!(out);
    }
    let _ = writeln!(
        out,
        "{}  {}  {}",
        sanitize::line(&e.tool_use_id),
        sanitize::line(e.tool.as_deref().unwrap_or("?")),
        sanitize::line(e.path.as_deref().unwrap_or(""))
    );
    let _ = writeln!(out, "{}", fate_line(setup, e));
    let _ = writeln!(out);
    if e.rows.is_empty() {
        let _ = writeln!(
            out,
            "no tool result with this id in the file{}: only the records above name it",
            if e.call_in_file {
                ""
            } else {
                " (and no tool_use)"
            }
        );
        return out;
    }
    let mut rows = super::Rows::with_titles(["REQ", "STATUS", "REASON"]);
    for r in &e.rows {
        rows.push([
            r.index.to_string(),
            row_status(setup, r),
            words::explain_reason(r),
        ]);
    }
    out.push_str(&table(&rows, &[true]));
    out
}

//! The panels over the session: help (with the legend), explain, full content.

use super::*;

/// The help panel's place on `area`.
fn help_rect(area: Rect) -> Rect {
    layout::panel(area, layout::HELP_WIDTH, keymap::help_lines().len())
}

pub(super) fn draw_help(f: &mut Frame, area: Rect, scroll: usize) {
    draw_scrolled(
        f,
        help_rect(area),
        &keymap::help_lines(),
        scroll,
        " keys — ↑/↓ PgUp/PgDn g/G scroll, Esc/q close ",
        true,
    );
}

/// A bordered panel over `r` showing `all` from line `scroll` (clamped so the
/// last page stays full), with `title`; `position` adds "a–b of n" below.
pub(super) fn draw_scrolled(
    f: &mut Frame,
    r: Rect,
    all: &[String],
    scroll: usize,
    title: &str,
    position: bool,
) {
    let page = r.height.saturating_sub(2) as usize;
    let scroll = scroll.min(all.len().saturating_sub(page));
    let lines: Vec<Line> = all
        .iter()
        .skip(scroll)
        .take(page)
        .map(|l| Line::from(l.as_str()))
        .collect();
    let mut block = Block::default().borders(Borders::ALL).title(title);
    if position {
        let shown = format!(
            " {}–{} of {} ",
            scroll + 1,
            (scroll + page).min(all.len()),
            all.len()
        );
        block = block.title_bottom(Line::from(shown).right_aligned());
    }
    f.render_widget(Clear, r);
    f.render_widget(Paragraph::new(lines).block(block), r);
}

pub(super) fn draw_explain(
    f: &mut Frame,
    v: &SessionView,
    e: &crate::analysis::Explain,
    scroll: usize,
    area: Rect,
    theme: Theme,
) {
    let mut lines = vec![
        Line::from(format!(
            "{}  {}  {}",
            crate::sanitize::line(&e.tool_use_id),
            crate::sanitize::line(e.tool.as_deref().unwrap_or("?")),
            crate::sanitize::line(e.path.as_deref().unwrap_or(""))
        )),
        Line::styled(
            crate::report::fate_line(&v.setup, e),
            Style::default().add_modifier(Modifier::BOLD),
        ),
        Line::from(""),
    ];
    // The harness's own records that name this result (SPEC §10), above its fate.
    for (i, l) in explain_evidence_lines(v, &e.tool_use_id)
        .into_iter()
        .enumerate()
    {
        lines.push(if i == 0 || l.starts_with('◇') {
            Line::styled(l, theme.fg(Color::Magenta).add_modifier(Modifier::BOLD))
        } else {
            Line::styled(l, theme.fg(Color::Magenta))
        });
    }
    // Runs of identical rows fold into one, as the page folds them ("2–5"):
    // a long session's hundreds of rows read as the few changes they are.
    struct Fold {
        from: usize,
        to: usize,
        status: crate::policy::Status,
        shown: String,
        reason: String,
        notes: Vec<String>,
    }
    let mut folds: Vec<Fold> = Vec::new();
    let mut was_cleared = false;
    for r in &e.rows {
        let newly = r.status == crate::policy::Status::Cleared && !was_cleared;
        was_cleared = r.status == crate::policy::Status::Cleared;
        let shown = crate::report::row_status(&v.setup, r);
        let reason = crate::report::words::explain_reason(r);
        let notes = explain_row_notes(v, r, newly);
        match folds.last_mut() {
            Some(last)
                if last.to + 1 == r.index
                    && last.shown == shown
                    && last.reason == reason
                    && last.notes == notes =>
            {
                last.to = r.index;
            }
            _ => folds.push(Fold {
                from: r.index,
                to: r.index,
                status: r.status,
                shown,
                reason,
                notes,
            }),
        }
    }
    let label = |g: &Fold| {
        if g.from == g.to {
            g.from.to_string()
        } else {
            format!("{}–{}", g.from, g.to)
        }
    };
    let w = folds
        .iter()
        .map(|g| label(g).chars().count())
        .max()
        .unwrap_or(0)
        .max(4);
    for g in folds.iter().skip(scroll) {
        let here = if (g.from..=g.to).contains(&v.k) {
            "▶"
        } else {
            " "
        };
        lines.push(Line::from(vec![
            Span::raw(format!("{here}{:>w$}  ", label(g))),
            Span::styled(format!("{:<18}", g.shown), theme.status(g.status)),
            Span::raw(g.reason.clone()),
        ]));
        for note in &g.notes {
            lines.push(Line::styled(
                format!("{:>pad$}{note}", "", pad = w + 21),
                theme.fg(Color::DarkGray),
            ));
        }
    }
    let r = centered(
        area,
        area.width.saturating_sub(6),
        area.height.saturating_sub(4),
    );
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(lines).wrap(Wrap { trim: false }).block(
            Block::default().borders(Borders::ALL).title(
                " explain — its fate at every request (E: export the page, y: copy, Esc closes) ",
            ),
        ),
        r,
    );
}

/// The `microcompact_boundary` records that name result `id`, each with its
/// comparison with its writer's plan and, when it differs, with the selected
/// plan (SPEC §10); a budget firing without a record that cleared it; empty
/// when none does. Says so while the evidence is still being computed.
pub fn explain_evidence_lines(v: &SessionView, id: &str) -> Vec<String> {
    let Some(report) = &v.evidence else {
        return vec![
            "harness evidence: computing in the background…".into(),
            String::new(),
        ];
    };
    let short = |ids: &[String]| -> String {
        ids.iter()
            .map(|x| {
                let shown = crate::sanitize::line(x);
                if x == id {
                    format!("{shown} (this)")
                } else {
                    shown.into_owned()
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut out = Vec::new();
    let held = crate::evidence::Held::of(&v.setup.session);
    for &k in v.named.get(id).into_iter().flatten() {
        let Some(ev) = report.evidence.at(k) else {
            continue;
        };
        for (m, before_compaction) in ev.boundaries_naming(id) {
            let place = if before_compaction {
                format!("the compaction before request {k}")
            } else {
                format!("request {k}")
            };
            out.extend(crate::report::words::record_lines(
                v.setup.session.harness,
                m,
                &place,
                &short(&m.compacted_tool_ids),
            ));
            let sim_at = crate::evidence::compared_at(&v.setup.session, m.writer, k);
            out.push(format!(
                "  against the {} plan{}: {}",
                m.writer.plan(),
                crate::report::words::at_other(sim_at, k),
                match &m.comparison {
                    Some(c) => c.words(),
                    None => "not compared: no request to simulate it on".into(),
                }
            ));
            let selected = v.policy().kind.name();
            if !before_compaction
                && selected != m.writer.plan()
                && let Some(ids) = report.selected_newly.get(&sim_at)
            {
                let c = held.split(m.compare_with(ids));
                out.push(format!(
                    "  against the selected plan ({selected}): {}",
                    c.words()
                ));
            }
        }
        if let Some(ids) = &ev.unrecorded_budget
            && ids.iter().any(|x| x == id)
        {
            out.push(format!(
                "◇ no record: the budget plan cleared it at request {k} (not a turn start) and no microcompact_boundary names it: extra"
            ));
        }
    }
    // The harness's recorded cuts that name it (Claude Code's, SPEC §13.E1, §15.21).
    for c in v
        .setup
        .session
        .cuts
        .iter()
        .filter(|c| c.call_ids.iter().any(|x| x == id))
    {
        out.push(format!(
            "◇ tool_results_cut at line {} belongs to {}",
            c.line,
            c.request
                .map_or("no request".into(), |k| format!("request {k}"))
        ));
        out.push(match c.not_applied.iter().find(|(x, _)| x == id) {
            Some((_, why)) => format!("  not applied here: {why}"),
            None => format!(
                "  cut by {} (recorded): its stand-in is in every later wire",
                v.setup.session.harness.rules().title
            ),
        });
    }
    if !out.is_empty() {
        out.push(String::new());
    }
    out
}

/// What an explain row needs beside its reason: a Qwen request's send kind in
/// words where it decides the result's fate (a kind that runs fewer plans, and
/// the result stayed), the transcript's note about the send, and the `silent`
/// budget note where budget newly cleared it at a turn start.
pub fn explain_row_notes(
    v: &SessionView,
    r: &crate::analysis::ExplainRow,
    newly_cleared: bool,
) -> Vec<String> {
    use crate::session::SendKind;
    let mut out = Vec::new();
    let Some(req) = v.setup.session.request(r.index) else {
        return out;
    };
    if let Some(send) = &req.send {
        let limits = !matches!(send.kind, SendKind::UserQuery | SendKind::Cron);
        if limits
            && r.status != crate::policy::Status::Cleared
            && !crate::report::words::explain_reason(r)
                .contains(crate::report::words::send_words(send.kind))
        {
            out.push(format!(
                "{}: {}",
                send.kind.name(),
                crate::report::words::send_words(send.kind)
            ));
        }
        if let Some(note) = &send.note {
            out.push(format!("note: {note}"));
        }
    }
    if newly_cleared && v.mark(r.index).silent {
        out.push(SILENT.into());
    }
    out
}

pub(super) fn draw_content(
    f: &mut Frame,
    area: Rect,
    title: &str,
    lines: &[String],
    scroll: usize,
) {
    let r = centered(
        area,
        area.width.saturating_sub(4),
        area.height.saturating_sub(2),
    );
    let page = r.height.saturating_sub(2) as usize;
    let shown: Vec<Line> = lines
        .iter()
        .skip(scroll)
        .take(page)
        .map(|l| Line::from(l.as_str()))
        .collect();
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(shown).block(
            Block::default()
                .borders(Borders::ALL)
                .title(format!(" {title} — full content (Esc closes) "))
                .title_bottom(
                    Line::from(format!(
                        " line {} of {} ",
                        (scroll + 1).min(lines.len()),
                        lines.len()
                    ))
                    .right_aligned(),
                ),
        ),
        r,
    );
}

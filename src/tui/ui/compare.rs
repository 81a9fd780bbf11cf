//! The compare panel (`c`): `mcscope compare`'s rows for the loaded session,
//! a progress bar while they are computed, the sort, the selection.

use super::*;
use crate::compare::Comparison;
use crate::tui::compare_panel::{Column, ComparePanel, State};

/// A text progress bar `[####    ] 40%` of `width` cells inside the brackets.
pub fn progress_bar(done: u64, total: u64, width: usize) -> String {
    let pct = (done * 100).checked_div(total).unwrap_or(0).min(100);
    let filled = (width as u64 * pct / 100) as usize;
    format!(
        "[{}{}] {pct}%",
        "#".repeat(filled),
        " ".repeat(width - filled)
    )
}

/// The index of the row whose setting is the main view's, if any.
pub fn current_row(v: &SessionView) -> Option<usize> {
    let c = v.compare.computed()?;
    c.comparison
        .rows
        .iter()
        .position(|r| r.params.apply(&c.base) == v.setup.policy)
}

pub(super) fn draw_compare(f: &mut Frame, v: &SessionView, area: Rect, theme: Theme) {
    let r = Rect {
        x: area.x + 1,
        y: area.y + 1,
        width: area.width.saturating_sub(2),
        height: area.height.saturating_sub(2),
    };
    f.render_widget(Clear, r);
    let block = Block::default()
        .borders(Borders::ALL)
        .title(" compare: every setting over this session — Esc/q close ");
    let inner = block.inner(r);
    f.render_widget(block, r);
    let p = &v.compare;
    // SPEC §9a: the caveats of the table under it, when the panel has room.
    let roomy = inner.height >= 40;
    let foot_height = if roomy { 8 } else { 3 };
    let [status, table, foot] = Layout::vertical([
        Constraint::Length(3),
        Constraint::Min(1),
        Constraint::Length(foot_height),
    ])
    .areas(inner);
    // The keys in words where they fit, else in short; never cut mid-word.
    let full =
        "↑/↓ select  Enter apply the row  S sort by the next column  A reverse  C chart  Esc close";
    let keys = if full.chars().count() <= inner.width as usize {
        full.to_string()
    } else {
        crate::tui::layout::cut_words(
            "↑/↓ select  Enter apply  S sort  A reverse  C chart  Esc close",
            inner.width as usize,
        )
    };
    let Some(c) = comparison_or_progress(f, p, inner.width, status, foot, theme) else {
        return;
    };
    draw_rows(f, v, c, status, table, theme);
    draw_foot(f, v, c, foot, roomy, &keys, theme);
}

/// The comparison when it is ready; else the progress (or the failure) drawn
/// in its place.
fn comparison_or_progress<'a>(
    f: &mut Frame,
    p: &'a ComparePanel,
    width: u16,
    status: Rect,
    foot: Rect,
    theme: Theme,
) -> Option<&'a Comparison> {
    match &p.state {
        State::Computing { .. } | State::Idle => {
            let (done, total) = p.progress().unwrap_or((0, 0));
            let lines = vec![
                Line::styled(
                    format!(
                        "computing {done}/{total} settings on {} background thread{} at a lower priority{}",
                        p.threads,
                        if p.threads == 1 { "" } else { "s" },
                        if p.waiting_for_keys() {
                            " (waiting while keys arrive)"
                        } else {
                            "…"
                        }
                    ),
                    theme.fg(Color::Yellow),
                ),
                Line::from(progress_bar(
                    done,
                    total,
                    (width as usize).saturating_sub(8).min(60),
                )),
            ];
            f.render_widget(Paragraph::new(lines), status);
            f.render_widget(
                Paragraph::new("the keys work meanwhile; Esc closes, c opens it again"),
                foot,
            );
            None
        }
        State::Failed(e) => {
            f.render_widget(
                Paragraph::new(format!("the comparison failed: {e}")).wrap(Wrap { trim: true }),
                status,
            );
            None
        }
        State::Ready(c) => Some(&c.comparison),
    }
}

/// The status lines and the table of rows, sorted and scrolled to the
/// selection; narrow screens get short titles and settings.
fn draw_rows(
    f: &mut Frame,
    v: &SessionView,
    c: &Comparison,
    status: Rect,
    table: Rect,
    theme: Theme,
) {
    let p = &v.compare;
    let current = current_row(v);
    let dir = if p.descending { "▼" } else { "▲" };
    let price = match c.sessions.first().and_then(|s| s.price.as_ref()) {
        Some(pr) => format!("prices of {}", pr.prefix),
        None => "no price: dollars unknown (?)".into(),
    };
    let order = p.order();
    let height = table.height.saturating_sub(1) as usize;
    let top = p.selected.saturating_sub(height.saturating_sub(1));
    let cells_with = |compact: bool| -> Vec<Vec<String>> {
        let settings = compact.then(|| compact_settings(&c.rows));
        order
            .iter()
            .map(|&i| {
                let mut row = crate::compare::row_cells(c, i);
                if Some(i) == current {
                    row[0].push('●');
                }
                if let Some(s) = &settings {
                    row[1] = s[i].clone();
                }
                // SPEC §9a: who can set the row (the CLI's AVAILABLE).
                row.push(c.rows[i].availability.map_or("-".into(), |a| {
                    if compact {
                        short_availability(a).to_string()
                    } else {
                        a.name().to_string()
                    }
                }));
                row
            })
            .collect()
    };
    let mut cells = cells_with(false);
    // Full titles when they fit; on a narrow screen short ones, and the
    // setting takes what the figures leave.
    const SHORT: [&str; 10] = [
        "#", "SETTING", "FIRE", "CLR", "NOTSENT", "BRK", "REWR", "USED", "ΔUSD", "WHO",
    ];
    let title = |short: bool, col: Column| -> String {
        let t = if short {
            SHORT[col.index()]
        } else {
            col.title()
        };
        if col == p.sort {
            format!("{t} {dir}")
        } else {
            t.to_string()
        }
    };
    let width_of = |short: bool, cells: &[Vec<String>]| -> Vec<usize> {
        Column::ALL
            .iter()
            .enumerate()
            .map(|(j, &col)| {
                cells
                    .iter()
                    .map(|r| r[j].chars().count())
                    .chain([title(short, col).chars().count()])
                    .max()
                    .unwrap_or(1)
            })
            .collect()
    };
    let room = table.width as usize;
    let fits =
        |w: &[usize], spacing: usize| w.iter().sum::<usize>() + spacing * (w.len() - 1) <= room;
    let full = width_of(false, &cells);
    let (short, spacing, w) = if fits(&full, 2) {
        (false, 2, full)
    } else {
        // Narrow: the settings in short, what varies between rows first.
        cells = cells_with(true);
        (true, 1, width_of(true, &cells))
    };
    // The columns shown: on a very narrow panel the figures that matter least
    // give way before the setting gets too narrow to read; who can set a row,
    // the dollars and the sorted column always stay.
    let mut shown: Vec<Column> = Column::ALL.to_vec();
    let setting_room = |shown: &[Column]| -> usize {
        let others: usize = shown
            .iter()
            .filter(|&&col| col != Column::Setting)
            .map(|col| w[col.index()])
            .sum();
        room.saturating_sub(others + spacing * (shown.len() - 1))
    };
    for give in [
        Column::Rewritten,
        Column::Cleared,
        Column::WarmBreaks,
        Column::LaterUsed,
    ] {
        if setting_room(&shown) >= MIN_SETTING.min(w[1]) {
            break;
        }
        if give != p.sort {
            shown.retain(|&col| col != give);
        }
    }
    let setting_width = w[1].min(setting_room(&shown)).max(8);
    f.render_widget(
        Paragraph::new(vec![
            // SPEC §9a: the recorded bill first, then the rows.
            Line::styled(c.recorded().words(), theme.fg(Color::Cyan)),
            Line::from(format!(
                "{} settings · sorted by {} {dir} · cache TTL {} · {price}",
                c.rows.len(),
                p.sort.title(),
                c.cache_ttl.name()
            )),
            Line::styled(
                if short {
                    legend(status.width as usize)
                } else {
                    "* recommended   ● the main view's setting   Δ USD < 0: a saving".into()
                },
                theme.fg(Color::DarkGray),
            ),
        ]),
        status,
    );
    let header: Vec<String> = shown.iter().map(|&col| title(short, col)).collect();
    let widths: Vec<Constraint> = shown
        .iter()
        .map(|&col| {
            let x = if col == Column::Setting {
                setting_width
            } else {
                w[col.index()]
            };
            Constraint::Length(x as u16)
        })
        .collect();
    let rows: Vec<TRow> = cells
        .drain(..)
        .enumerate()
        .skip(top)
        .take(height)
        .map(|(line, mut row)| {
            let i = order[line];
            let style = if line == p.selected {
                theme.emph(Color::Cyan)
            } else if Some(i) == c.recommended {
                theme.fg(Color::Green)
            } else {
                Style::default()
            };
            // A setting wider than its column loses whole words, never
            // part of one.
            row[1] = crate::tui::layout::cut_words(&row[1], setting_width);
            let row: Vec<String> = shown
                .iter()
                .map(|col| std::mem::take(&mut row[col.index()]))
                .collect();
            TRow::new(row).style(style)
        })
        .collect();
    f.render_widget(
        Table::new(rows, widths)
            .header(TRow::new(header).style(Style::default().add_modifier(Modifier::BOLD)))
            .column_spacing(spacing as u16),
        table,
    );
}

/// The narrowest the setting gets before figures give way to it: a short
/// setting's varying part (`g10m k1 idle`, `t5 k2 cache-edits`).
const MIN_SETTING: usize = 16;

/// Who can set a row, in a narrow panel's WHO column.
fn short_availability(a: crate::compare::Availability) -> &'static str {
    use crate::compare::Availability;
    match a {
        Availability::User => "user",
        Availability::RemoteFlag => "remote",
        Availability::Internal => "internal",
        Availability::WhatIf => "what_if",
    }
}

/// A narrow panel's legend: as many of its parts as fit `width`, whole.
fn legend(width: usize) -> String {
    let mut out = String::new();
    for part in [
        "k=keep g=gap s=size t=trigger",
        "* recommended",
        "● current",
        "WHO: who sets it",
    ] {
        let sep = if out.is_empty() { 0 } else { 2 };
        if out.chars().count() + sep + part.chars().count() > width {
            break;
        }
        if sep > 0 {
            out.push_str("  ");
        }
        out.push_str(part);
    }
    out
}

/// Under the table: the recommendation, who can set the selected row, its
/// caveats (on a tall panel) and the keys.
fn draw_foot(
    f: &mut Frame,
    v: &SessionView,
    c: &Comparison,
    foot: Rect,
    roomy: bool,
    keys: &str,
    theme: Theme,
) {
    let p = &v.compare;
    let order = p.order();
    // SPEC §9a: the rule in short; the CLI's text says it whole.
    let rec = match c.recommended {
        Some(i) => format!(
            "* recommended: row {i} ({} {}), {}: the first that fires and saves with results reached for again no more than the median ({}){}",
            c.rows[i].params.preset.name(),
            c.rows[i].params.words(),
            c.rows[i].availability.map_or("-", |a| a.name()),
            c.median_later_used.unwrap_or(0),
            match c.rows[i].availability {
                Some(crate::compare::Availability::User) => String::new(),
                _ => format!(
                    "; a what-if: {}'s settings are remote flags, not yours to set",
                    c.rows[i].params.preset.rules().title
                ),
            }
        ),
        None => {
            "recommended: none — no clearing recommended: no setting you can use saves money here"
                .into()
        }
    };
    // SPEC §9a: who can set the selected row, and how.
    let selected = order.get(p.selected).map_or(String::new(), |&i| {
        let r = &c.rows[i];
        let knob = crate::compare::avail::knob_words(&r.knob);
        if r.baseline {
            return format!(
                "row {i}: what happened — the clearing the transcript's records prove, not a setting"
            );
        }
        format!(
            "row {i}: {}{}",
            r.availability.map_or("-", |a| a.words()),
            if r.knob.is_some() {
                format!(" — set {knob}")
            } else {
                String::new()
            }
        )
    });
    let [notes, keys_line] =
        Layout::vertical([Constraint::Min(1), Constraint::Length(1)]).areas(foot);
    // A small panel keeps one line each: cut at a space, with "…", never
    // mid-word.
    let one = |text: String| -> String {
        if roomy {
            return text;
        }
        crate::tui::layout::cut_words(&text, foot.width as usize)
    };
    let mut lines = vec![
        Line::styled(one(rec), theme.fg(Color::Green)),
        Line::from(one(selected)),
    ];
    // The caveats (SPEC §9a: every kind's in the table, as the CLI prints
    // them): the selected row's whole, then every id of the table.
    if let Some(r) = order
        .get(p.selected)
        .map(|&i| &c.rows[i])
        .filter(|r| roomy && !r.baseline)
    {
        let policy = r
            .params
            .apply(&crate::policy::Policy::preset(r.params.preset));
        for cv in crate::caveats::caveats(&policy, &[policy.kind], &[]) {
            lines.push(Line::styled(
                format!("caveat {}: {}", cv.id, crate::sanitize::line(&cv.text)),
                theme.fg(Color::DarkGray),
            ));
        }
    }
    if !c.caveats.is_empty() {
        let ids: Vec<&str> = c.caveats.iter().map(|(id, _)| id.as_str()).collect();
        lines.push(Line::styled(
            format!(
                "caveats of the table: {} (mcscope compare prints each in full)",
                ids.join(", ")
            ),
            theme.fg(Color::DarkGray),
        ));
    }
    // A small panel keeps one line each (the recommendation and the row).
    let notes_text = if roomy {
        Paragraph::new(lines).wrap(ratatui::widgets::Wrap { trim: false })
    } else {
        Paragraph::new(lines)
    };
    f.render_widget(notes_text, notes);
    f.render_widget(
        Paragraph::new(Line::styled(keys, theme.fg(Color::DarkGray))),
        keys_line,
    );
}

/// Every row's setting in short (`g5m k1 idle`), the parameters that vary
/// between rows first, the one that changes most often from a row to the next
/// leading: on a narrow panel the cut-off tail is what all rows share, so rows
/// never look alike.
pub fn compact_settings(rows: &[crate::compare::Row]) -> Vec<String> {
    use crate::policy::Delivery;
    // Its columns: the preset, the kind, each numeric parameter the grid
    // lists (the table's axes), the delivery.
    let axes: Vec<_> = crate::policy::params::axes().collect();
    let words = |p: &crate::compare::Params| -> Vec<Option<String>> {
        let api = p.kind.is_api();
        let mut w = vec![
            Some(p.preset_name().to_string()),
            (!api).then(|| p.kind.name().to_string()),
        ];
        for (row, axis) in &axes {
            // The api preset's edit is tuned by its keep and its trigger.
            let value = match (api, axis.name) {
                (true, "keep") => p.api_keep.map(|k| k.to_string()),
                (true, "trigger") => p.api_trigger.map(|t| t.to_string()),
                (true, _) => None,
                (false, _) => p
                    .values
                    .iter()
                    .find(|(k, _)| *k == row.key)
                    .map(|(_, v)| v.to_string()),
            };
            w.push(value.map(|v| format!("{}{v}{}", axis.short, axis.unit)));
        }
        w.push(
            (!api && (p.delivery != Delivery::Rewrite || p.kind.grid_deliveries(true).len() > 1))
                .then(|| p.delivery.name().to_string()),
        );
        w
    };
    // The baseline is named in words (SPEC §9a), and varies nothing.
    let all: Vec<Vec<Option<String>>> = rows
        .iter()
        .filter(|r| !r.baseline)
        .map(|r| words(&r.params))
        .collect();
    // How often each parameter changes from a row to the next.
    let columns = axes.len() + 3;
    let changes: Vec<usize> = (0..columns)
        .map(|j| all.windows(2).filter(|w| w[0][j] != w[1][j]).count())
        .collect();
    let mut order: Vec<usize> = (0..columns).collect();
    order.sort_by_key(|&j| std::cmp::Reverse(changes[j]));
    let mut settings = all.iter().map(|w| {
        order
            .iter()
            .filter_map(|&j| w[j].as_deref())
            .collect::<Vec<_>>()
            .join(" ")
    });
    rows.iter()
        .map(|r| {
            if r.baseline {
                "recorded: what happened".to_string()
            } else {
                settings.next().unwrap_or_default()
            }
        })
        .collect()
}

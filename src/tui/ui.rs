//! Drawing: one function per region, reading the state, never changing it.

use super::app::{App, Filter, Focus, ListRow, Overlay, Picker, Screen, SessionView};
use super::keymap::{self, KEYMAP};
use crate::diff::{Diff, Item, Kind, Row, Side};
use crate::policy::engine::{Candidate, Status, fmt_gap, fmt_int, fmt_num};
use crate::policy::protect::Outcome;
use crate::policy::{Delivery, PlanKind};
use crate::report::glyph;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Row as TRow, Table, Wrap};

pub const MIN_WIDTH: u16 = 60;
pub const MIN_HEIGHT: u16 = 16;

/// Colours, or none at all when `NO_COLOR` is set (glyphs carry the meaning).
#[derive(Debug, Clone, Copy)]
pub struct Theme {
    pub color: bool,
}

impl Theme {
    pub fn from_env() -> Theme {
        Theme {
            color: std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
        }
    }

    fn fg(&self, c: Color) -> Style {
        if self.color {
            Style::default().fg(c)
        } else {
            Style::default()
        }
    }

    fn emph(&self, c: Color) -> Style {
        if self.color {
            Style::default().bg(c).fg(Color::Black)
        } else {
            Style::default().add_modifier(Modifier::REVERSED)
        }
    }

    fn status(&self, st: Status) -> Style {
        self.fg(match st {
            Status::Kept => Color::Green,
            Status::Cleared => Color::Red,
            Status::Protected => Color::Cyan,
            Status::AlreadyCleared => Color::DarkGray,
            Status::ErrorKept => Color::Yellow,
            Status::NotCompactable => Color::Gray,
        })
    }
}

pub fn draw(f: &mut Frame, app: &App, theme: Theme) {
    let area = f.area();
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        let msg = format!(
            "terminal too small: {}x{} (mcscope needs {}x{})",
            area.width, area.height, MIN_WIDTH, MIN_HEIGHT
        );
        f.render_widget(Paragraph::new(msg), Rect { height: 1, ..area });
        return;
    }
    match &app.screen {
        Screen::Picker(p) => draw_picker(f, p, theme),
        Screen::Session(v) => draw_session(f, v, theme),
    }
}

/// A progress screen for a session still loading.
pub fn draw_loading(f: &mut Frame, path: &str, done: u64, total: u64) {
    let area = f.area();
    let pct = (done * 100).checked_div(total).unwrap_or(0).min(100);
    let width = area.width.saturating_sub(4).min(60) as u64;
    let filled = (width * pct / 100) as usize;
    let bar = format!(
        "[{}{}] {pct}%",
        "#".repeat(filled),
        " ".repeat(width as usize - filled)
    );
    let text = vec![
        Line::from(format!("loading {path}")),
        Line::from(format!("{} of {} MB", done / 1_000_000, total / 1_000_000)),
        Line::from(bar),
        Line::from("q quits"),
    ];
    f.render_widget(Paragraph::new(text), area);
}

fn draw_picker(f: &mut Frame, p: &Picker, theme: Theme) {
    let area = f.area();
    let [head, list, foot] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(1),
        Constraint::Length(1),
    ])
    .areas(area);
    f.render_widget(
        Paragraph::new(format!(
            "mcscope — {} ({} sessions, newest first)",
            p.title,
            p.sessions.len()
        )),
        head,
    );
    let height = list.height as usize;
    let top = picker_top(p, height);
    let lines: Vec<Line> = p
        .sessions
        .iter()
        .enumerate()
        .skip(top)
        .take(height)
        .map(|(i, (path, size, mtime))| {
            let date = chrono::DateTime::<chrono::Utc>::from(*mtime).format("%Y-%m-%d %H:%M");
            let text = format!(
                "{} {date}  {:>10}  {}",
                if i == p.selected { "▶" } else { " " },
                fmt_int(*size),
                path.display()
            );
            let style = if i == p.selected {
                theme.emph(Color::Cyan)
            } else {
                Style::default()
            };
            Line::styled(text, style)
        })
        .collect();
    f.render_widget(Paragraph::new(lines), list);
    f.render_widget(Paragraph::new("↑/↓ select  Enter open  q quit"), foot);
}

/// The session screen's four regions (header, age list, diff, footer) on `area`:
/// where they are drawn, and where the mouse finds them.
pub fn regions(area: Rect, v: &SessionView) -> [Rect; 4] {
    let list_rows = ((v.plan.candidates.len() + v.plan.media.len()) as u16 + 3)
        .min(area.height * 2 / 5)
        .max(5);
    Layout::vertical([
        Constraint::Length(2 + header_note_lines(v, area.width).len() as u16),
        Constraint::Length(list_rows),
        Constraint::Min(4),
        Constraint::Length(7 + observed_line(v).is_some() as u16),
    ])
    .areas(area)
}

/// The first row the age list shows when `height` rows fit (the selection stays
/// on screen).
pub fn list_top(v: &SessionView, height: usize) -> usize {
    let at = v
        .rows()
        .iter()
        .position(|r| *r == ListRow::Result(v.selected))
        .unwrap_or(0);
    at.saturating_sub(height.saturating_sub(1))
}

/// The first row the picker shows when `height` rows fit.
pub fn picker_top(p: &Picker, height: usize) -> usize {
    p.selected.saturating_sub(height.saturating_sub(1))
}

fn draw_session(f: &mut Frame, v: &SessionView, theme: Theme) {
    let area = f.area();
    let [header, list, diff, footer] = regions(area, v);
    draw_header(f, v, header, theme);
    draw_list(f, v, list, theme);
    draw_diff(f, v, diff, theme);
    draw_footer(f, v, footer, theme);
    match &v.overlay {
        Some(Overlay::Help { scroll }) => draw_help(f, area, *scroll),
        Some(Overlay::Explain { explain, scroll }) => {
            draw_explain(f, v, explain, *scroll, area, theme)
        }
        Some(Overlay::Search(q)) => draw_input(
            f,
            area,
            "search ids, tools, paths, commands (Enter: keep, then n/N; Esc: clear)",
            q,
        ),
        Some(Overlay::Content {
            title,
            lines,
            scroll,
        }) => draw_content(f, area, title, lines, *scroll),
        Some(Overlay::Command(c)) => draw_input(
            f,
            area,
            "command: 57, gap 7.5, keep 3, size 300000, trigger 4, policy count, explain ID (Tab completes)",
            &format!(":{c}"),
        ),
        Some(Overlay::Export(p)) => draw_input(
            f,
            area,
            "export the wire payload to (Enter: write, Esc: cancel)",
            p,
        ),
        None => {}
    }
    if let Some(stage) = v.demo {
        draw_caption(f, stage, [list, diff, footer], theme);
    }
}

/// The demo's caption, placed next to the region it talks about, with a pointer.
fn draw_caption(f: &mut Frame, stage: usize, [list, diff, footer]: [Rect; 3], theme: Theme) {
    use super::demo::{Region, STAGES};
    let Some(st) = STAGES.get(stage) else { return };
    let (pointer, target, place) = match st.region {
        Region::List => ("▲ the age list above", list, diff),
        Region::Diff => ("▼ the wire payload below, right side", diff, list),
        Region::Footer => ("▼ the footer below: cache prefix and tokens", footer, diff),
    };
    // Mark the region talked about: its first row stands out.
    let mark = if theme.color {
        Style::default()
            .fg(Color::Yellow)
            .add_modifier(Modifier::BOLD)
    } else {
        Style::default().add_modifier(Modifier::REVERSED)
    };
    for x in target.x..target.x + target.width {
        f.buffer_mut()[(x, target.y)].set_style(mark);
    }
    let lines = vec![
        Line::styled(
            pointer,
            theme.fg(Color::Yellow).add_modifier(Modifier::BOLD),
        ),
        Line::styled(st.title, Style::default().add_modifier(Modifier::BOLD)),
        Line::styled(
            format!("pain point: “{}”", st.pain),
            theme.fg(Color::Magenta),
        ),
        Line::from(st.text()),
        Line::styled(
            format!(
                "→ next  ← back  Esc leave the demo   ({}/{})",
                stage + 1,
                STAGES.len()
            ),
            theme.fg(Color::DarkGray),
        ),
    ];
    let width = place.width.saturating_sub(4).min(100);
    let inner_w = width.saturating_sub(2).max(1) as usize;
    let needed: u16 = lines
        .iter()
        .map(|l| l.width().div_ceil(inner_w).max(1) as u16)
        .sum::<u16>()
        + 2;
    // A caption about the diff sits above it (over the header and list), others
    // at the bottom of their placement, never over the region they point at.
    let (top, room) = match st.region {
        Region::Diff => (0, target.y),
        _ => (place.y, place.height),
    };
    let height = needed.min(room.max(3));
    let r = Rect {
        x: place.x + (place.width - width) / 2,
        y: top + room.saturating_sub(height),
        width,
        height,
    };
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(lines).wrap(Wrap { trim: true }).block(
            Block::default()
                .borders(Borders::ALL)
                .title(" mcscope demo "),
        ),
        r,
    );
}

pub fn draw_header(f: &mut Frame, v: &SessionView, area: Rect, theme: Theme) {
    let s = &v.setup.session;
    let p = v.policy();
    let changed = v.changed();
    // Tuned here or set by a flag: `*`; from the sidecar `s`, the config file `c`.
    let mark = |name: &str, text: String| -> Span<'static> {
        let key = match name {
            "gap" => "gap_threshold_minutes",
            "size" => "size_threshold",
            other => other,
        };
        let source = v.setup.settings.source(key).mark();
        if changed.contains(&name) {
            Span::styled(format!("{text}*"), theme.emph(Color::Yellow))
        } else if !source.is_empty() {
            Span::styled(format!("{text}{source}"), theme.emph(Color::Yellow))
        } else {
            Span::raw(text)
        }
    };
    let name = s
        .path
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    let req = &v.plan.request;
    // What a narrow screen must keep comes first: request, gap and turn kind.
    let mut line1 = vec![
        Span::styled(name, Style::default().add_modifier(Modifier::BOLD)),
        Span::raw(format!(
            "  request {}/{}  gap {} min  {}  {}",
            v.k,
            s.requests.len(),
            fmt_gap(req.gap_minutes),
            match &req.send {
                // A Qwen request: its send kind (its words are a note below).
                Some(send) => send.kind.name(),
                None if req.begins_turn => "new turn",
                None => "tool loop",
            },
            req.at.as_deref().unwrap_or("-"),
        )),
        Span::raw(format!("  {} ({})", s.format.name(), s.harness.name())),
    ];
    if v.following() {
        line1.push(Span::styled("  following", theme.fg(Color::Green)));
    }
    if !s.diagnostics.is_empty() {
        line1.push(Span::styled(
            format!("  {} diagnostics", s.diagnostics.len()),
            theme.fg(Color::Yellow),
        ));
    }
    // Under auto, the kind it chose at K.
    let chosen = if p.kind == PlanKind::Auto && v.plan.request.index > 0 {
        format!(" → {}", v.plan.step.kind.map_or("none", |k| k.name()))
    } else {
        String::new()
    };
    let mut line2 = vec![
        Span::raw("plan "),
        mark("kind", p.kind.name().into()),
        Span::raw(format!("{chosen} ({})  keep ", p.preset.name())),
        mark("keep_recent", v.keep_in_force().to_string()),
        Span::raw("  gap ≥ "),
        mark("gap", format!("{} min", fmt_num(p.gap_threshold_minutes))),
        Span::raw("  size > "),
        mark("size", fmt_int(p.size_threshold.max(0) as u64)),
        Span::raw(format!("  trigger {}  ", p.trigger_threshold)),
        mark("delivery", p.delivery.name().into()),
        Span::raw("  protect "),
        mark(
            "protect",
            if p.protect { "on".into() } else { "off".into() },
        ),
    ];
    if v.plan.step.kind == Some(PlanKind::Budget) {
        line2.push(Span::raw(format!(
            "  budget {} (min {}, gate {})",
            fmt_int(p.budget_tokens),
            fmt_int(p.budget_min_saving),
            fmt_int(p.budget_warning_at(&v.plan.request))
        )));
    }
    let mut lines = vec![Line::from(line1), Line::from(line2)];
    for note in header_note_lines(v, area.width) {
        lines.push(Line::styled(note, theme.fg(Color::Magenta)));
    }
    f.render_widget(Paragraph::new(lines), area);
}

/// The header's notes wrapped to `width` columns: what `regions` makes room for.
pub fn header_note_lines(v: &SessionView, width: u16) -> Vec<String> {
    header_notes(v)
        .iter()
        .flat_map(|n| wrap(n, width.max(20) as usize))
        .collect()
}

/// `text` cut into lines of at most `width` chars, at spaces where it can (a
/// continuation is indented by two).
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        let room = if out.is_empty() { width } else { width - 2 };
        let len = line.chars().count();
        let wlen = word.chars().count();
        if len > 0 && len + 1 + wlen > room {
            out.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
        // A word longer than a line is cut.
        while line.chars().count() > if out.is_empty() { width } else { width - 2 } {
            let at = if out.is_empty() { width } else { width - 2 };
            let head: String = line.chars().take(at).collect();
            let tail: String = line.chars().skip(at).collect();
            out.push(head);
            line = tail;
        }
    }
    if !line.is_empty() || out.is_empty() {
        out.push(line);
    }
    out.into_iter()
        .enumerate()
        .map(|(i, l)| if i == 0 { l } else { format!("  {l}") })
        .collect()
}

/// The `silent` budget note (SPEC §10), in short.
pub const SILENT: &str = "silent: budget fired at a turn start; Claude Code's prompt-suggestion fork usually ran it at the end of the previous turn, so no microcompact_boundary record is expected";

/// Warnings the header carries on a line of their own.
pub fn header_notes(v: &SessionView) -> Vec<String> {
    let mut notes = Vec::new();
    if v.policy().kind == PlanKind::Count
        && v.setup.session.harness == crate::session::Harness::Claude
    {
        notes.push(
            "count plan: Claude's real trigger and keep values are not public; these are guesses"
                .into(),
        );
    }
    if v.setup.session.subagent_what_if {
        notes.push("sub-agent transcript, planned as a what-if: the harnesses never microcompact sub-agents".into());
    }
    let s = &v.setup.session;
    if s.sidechain_records > 0 {
        notes.push(crate::report::left_out(s));
    }
    // A Qwen request: what its send kind runs, and what the transcript cannot settle.
    if let Some(send) = &v.plan.request.send {
        notes.push(format!("{}: {}", send.kind.name(), send.kind.words()));
        if let Some(note) = &send.note {
            notes.push(format!("note: {note}"));
        }
    }
    if crate::report::silent(&v.plan.step, v.plan.request.begins_turn) {
        notes.push(SILENT.into());
    }
    // What the harness may not have run (SPEC §5), in short.
    let kinds = if v.plan.request.index == 0 {
        v.setup.kinds_chosen()
    } else {
        v.plan.step.kind.into_iter().collect()
    };
    let caveats: Vec<&str> = crate::caveats::caveats(v.policy(), &kinds)
        .iter()
        .map(|c| c.short)
        .collect();
    if !caveats.is_empty() {
        notes.push(format!("may not have run: {}", caveats.join(" · ")));
    }
    notes
}

/// A region's top border with its title (cyan when focused); returns its inside.
fn region(f: &mut Frame, area: Rect, title: String, focused: bool, theme: Theme) -> Rect {
    let block = Block::default()
        .borders(Borders::TOP)
        .title(title)
        .border_style(if focused {
            theme.fg(Color::Cyan)
        } else {
            Style::default()
        });
    let inner = block.inner(area);
    f.render_widget(block, area);
    inner
}

/// The status cell of a candidate: glyph, word, and the protection detail, the
/// escape target shortened from the left to fit `width`.
pub fn status_label(c: &Candidate, width: usize) -> String {
    let mut s = format!("{} {}", glyph(c.status), c.status.name());
    if let Some(p) = &c.protection {
        let root = p.root.map(|r| r.name()).unwrap_or("");
        match p.outcome {
            Outcome::Protected => s.push_str(&format!(" ({root})")),
            Outcome::Unverified => s.push_str(&format!(" ({root}, unverified)")),
            Outcome::SymlinkEscape => {
                s.push_str(" ↗ symlink escape → ");
                let target = p.resolved.as_deref().unwrap_or("?");
                let room = width.saturating_sub(s.chars().count()).max(12);
                s.push_str(&shorten_left(target, room));
            }
            Outcome::UnresolvedId => s.push_str(" ? unresolved id"),
            Outcome::AmbiguousId => s.push_str(" ? ambiguous id"),
            Outcome::Outside => {}
        }
    }
    s
}

/// A media entry's status cell: `✗ media_cleared` or `· kept` (glyph and word,
/// so it reads without colour).
pub fn media_status(e: &crate::analysis::MediaEntry) -> String {
    if e.cleared {
        format!("{} media_cleared", glyph(Status::Cleared))
    } else {
        format!("{} kept", glyph(Status::Kept))
    }
}

pub fn draw_list(f: &mut Frame, v: &SessionView, area: Rect, theme: Theme) {
    let s = &v.setup.session;
    let focused = v.focus == Focus::List;
    let visible = v.visible();
    let rows_shown = v.rows();
    let media_total = v.plan.media.len();
    let media_shown = rows_shown
        .iter()
        .filter(|r| matches!(r, ListRow::Media(_)))
        .count();
    let media = match media_total {
        0 => String::new(),
        n if v.filter == Filter::All => format!(" + {n} media"),
        n => format!(" + {media_shown} of {n} media"),
    };
    let shown = if v.filter == Filter::All {
        format!("{}{media}", v.plan.candidates.len())
    } else {
        format!(
            "{} of {}{media}, {}, Esc clears",
            visible.len(),
            v.plan.candidates.len(),
            v.filter.name()
        )
    };
    let title = format!(
        " tool results by age ({shown}) — {} ",
        if v.plan.step.fired {
            format!(
                "{} fired: {}",
                v.plan.step.trigger.map(|t| t.name()).unwrap_or("?"),
                v.plan.step.note
            )
        } else {
            format!("no plan fired: {}", v.plan.step.note)
        }
    );
    let inner = region(f, area, title, focused, theme);
    let height = inner.height.saturating_sub(1) as usize;
    let top = list_top(v, height);
    let ids: Vec<&str> = v
        .plan
        .candidates
        .iter()
        .map(|c| s.results[c.result].id.as_str())
        .collect();
    let longest = ids.iter().map(|id| id.chars().count()).max().unwrap_or(8);
    // On a narrow screen an id shrinks to its unique tail before the path does.
    let tail = (inner.width < 120 && longest > 12).then(|| unique_tail(&ids).max(6));
    let id_w = match tail {
        Some(t) => (t + 1).min(longest),
        None => longest.clamp(8, 32),
    } as u16;
    let fixed = 4 + id_w + 10 + 14 + 5;
    let room = inner.width.saturating_sub(fixed) as usize;
    // The status takes what its longest shown label needs (at most 3/5 of the
    // room), the path the rest, cut from the left so the file name shows
    // (`…/src/config.ts`).
    let status_w = rows_shown
        .iter()
        .skip(top)
        .take(height)
        .map(|r| match *r {
            ListRow::Result(i) => status_label(&v.plan.candidates[i], room * 3 / 5)
                .chars()
                .count(),
            ListRow::Media(m) => media_status(&v.plan.media[m]).chars().count(),
        })
        .max()
        .unwrap_or(6)
        .clamp(6, (room * 3 / 5).max(6));
    let path_w = room.saturating_sub(status_w);
    let short_id = |id: &str| match tail {
        Some(t) => shorten_left(id, t + 1),
        None => id.to_string(),
    };
    let rows: Vec<TRow> = rows_shown
        .iter()
        .skip(top)
        .take(height)
        .map(|row| {
            let i = match *row {
                ListRow::Result(i) => i,
                ListRow::Media(m) => {
                    let e = &v.plan.media[m];
                    let (id, tool, place) = match &e.tool_use_id {
                        Some(id) => (
                            format!("↳{}", short_id(id)),
                            "nested",
                            format!("{} in {id}'s result", e.mime),
                        ),
                        None => (
                            String::new(),
                            "media",
                            format!(
                                "{} (message {}, part {})",
                                e.mime, e.message_index, e.part_index
                            ),
                        ),
                    };
                    return TRow::new(vec![
                        "▣".to_string(),
                        id,
                        tool.to_string(),
                        shorten_left(&place, path_w),
                        format!("-/{}", fmt_int(s.harness.rules().media_tokens)),
                        media_status(e),
                    ])
                    .style(theme.status(if e.cleared {
                        Status::Cleared
                    } else {
                        Status::Kept
                    }));
                }
            };
            let c = &v.plan.candidates[i];
            let r = &s.results[c.result];
            let mut style = theme.status(c.status);
            if c.protection
                .as_ref()
                .is_some_and(|p| p.outcome == Outcome::SymlinkEscape)
            {
                style = theme.fg(Color::Magenta);
            }
            if i == v.selected {
                style = style.add_modifier(Modifier::REVERSED);
            }
            TRow::new(vec![
                c.rank.map(|r| r.to_string()).unwrap_or_else(|| "-".into()),
                short_id(&r.id),
                c.tool.clone().unwrap_or_else(|| "?".into()),
                match &c.path {
                    Some(p) => shorten_left(p, path_w),
                    None => c.summary.clone().unwrap_or_default().replace('\n', " "),
                },
                format!("{}/{}", fmt_int(r.chars), fmt_int(r.est_tokens)),
                status_label(c, status_w),
            ])
            .style(style)
        })
        .collect();
    let widths = [
        Constraint::Length(4),
        Constraint::Length(id_w),
        Constraint::Length(10),
        Constraint::Length(path_w as u16),
        Constraint::Length(14),
        Constraint::Fill(1),
    ];
    let header = TRow::new(vec![
        "rank",
        "id",
        "tool",
        "path / command",
        "chars/~tok",
        "status",
    ])
    .style(Style::default().add_modifier(Modifier::BOLD));
    f.render_widget(
        Table::new(rows, widths).header(header).column_spacing(1),
        inner,
    );
}

pub fn draw_diff(f: &mut Frame, v: &SessionView, area: Rect, theme: Theme) {
    let focused = v.focus == Focus::Diff;
    if v.diff_pending() {
        let block = Block::default()
            .borders(Borders::TOP)
            .title(" local request (left) vs wire payload (right) — computing the diff in the background… ");
        f.render_widget(block, area);
        return;
    }
    let changes = v.diff.changes.len();
    let title = format!(
        " local request (left) vs wire payload (right) — {changes} change{}{} — n/N jump, </> scroll, z fold ",
        if changes == 1 { "" } else { "s" },
        if v.diff.coarse {
            ", coarse (time budget)"
        } else {
            ""
        }
    );
    let inner = region(f, area, title, focused, theme);
    let half = inner.width.saturating_sub(1) / 2;
    let lines: Vec<Line> = v
        .items
        .iter()
        .skip(v.diff_top)
        .take(inner.height as usize)
        .map(|item| match *item {
            Item::Fold { len, .. } => Line::styled(
                format!(
                    "{:^width$}",
                    format!("⋯ {len} unchanged lines ⋯"),
                    width = inner.width as usize
                ),
                theme.fg(Color::DarkGray),
            ),
            Item::Row(r) => diff_line(&v.diff, &v.diff.rows[r], half as usize, v.hscroll, theme),
        })
        .collect();
    f.render_widget(Paragraph::new(lines), inner);
}

fn diff_line(diff: &Diff, row: &Row, half: usize, hscroll: usize, theme: Theme) -> Line<'static> {
    let (lstyle, rstyle, lmark, rmark) = match row.kind {
        Kind::Equal => (Style::default(), Style::default(), ' ', ' '),
        Kind::Delete => (theme.fg(Color::Red), Style::default(), '-', ' '),
        Kind::Insert => (Style::default(), theme.fg(Color::Green), ' ', '+'),
        Kind::Change => (theme.fg(Color::Red), theme.fg(Color::Green), '~', '~'),
    };
    let mut spans = side_spans(
        row.left.as_ref().zip(diff.left_line(row)),
        half,
        hscroll,
        lmark,
        lstyle,
        theme.emph(Color::Red),
    );
    spans.push(Span::raw("│"));
    spans.extend(side_spans(
        row.right.as_ref().zip(diff.right_line(row)),
        half,
        hscroll,
        rmark,
        rstyle,
        theme.emph(Color::Green),
    ));
    Line::from(spans)
}

/// One half of a diff row: gutter (line number + mark) and the text window.
fn side_spans(
    side: Option<(&Side, &str)>,
    width: usize,
    hscroll: usize,
    mark: char,
    style: Style,
    emph: Style,
) -> Vec<Span<'static>> {
    let gutter = 6;
    let text_w = width.saturating_sub(gutter);
    let Some((side, text)) = side else {
        return vec![Span::raw(" ".repeat(width))];
    };
    let chars: Vec<char> = text.chars().collect();
    let start = hscroll.min(chars.len());
    let end = (start + text_w).min(chars.len());
    let mut spans = vec![Span::styled(
        format!("{:>4}{mark} ", side.no % 100_000),
        style,
    )];
    let (es, ee) = side.emph.unwrap_or((usize::MAX, usize::MAX));
    let mut cur = String::new();
    let mut cur_emph = false;
    for (i, ch) in chars[start..end].iter().enumerate() {
        let at = start + i;
        let is_emph = at >= es && at < ee;
        if is_emph != cur_emph && !cur.is_empty() {
            spans.push(Span::styled(
                std::mem::take(&mut cur),
                if cur_emph { emph } else { style },
            ));
        }
        cur_emph = is_emph;
        cur.push(*ch);
    }
    if !cur.is_empty() {
        spans.push(Span::styled(cur, if cur_emph { emph } else { style }));
    }
    let used = gutter + (end - start);
    if used < width {
        spans.push(Span::raw(" ".repeat(width - used)));
    }
    spans
}

/// The session totals of the current setting in one line (SPEC §9).
pub fn totals_line(v: &SessionView) -> String {
    let Some(t) = &v.totals else {
        return "session: counting…".into();
    };
    let s = &t.totals;
    let usd = match t.delta_usd {
        Some(x) => format!("Δ ${x:+.4}"),
        None => "Δ $? (no price for this model)".into(),
    };
    format!(
        "session: {} fires · {} cleared · {} tok not sent · {} warm breaks ({} re-written) · {} used later · {usd}",
        s.fires,
        s.cleared_results,
        fmt_int(s.tokens_not_sent),
        s.cache_breaks,
        fmt_int(s.tokens_rewritten),
        s.later_used,
    )
}

pub fn draw_footer(f: &mut Frame, v: &SessionView, area: Rect, theme: Theme) {
    let st = &v.plan.step;
    let cache = &v.plan.cache;
    let cache_text = match (&cache.prefix_broken_at_message, v.policy().delivery) {
        // The tokens come from the wire body, built with the diff.
        (Some(m), _) if v.diff_pending() => {
            format!("cache prefix broken at message {m} (tokens re-written: counting…)")
        }
        (Some(m), _) => format!(
            "cache prefix broken at message {m} (~{} tokens re-written)",
            fmt_int(cache.tokens_after_break)
        ),
        (None, Delivery::CacheEdits) if !cache.cache_edits_deleted.is_empty() => {
            format!(
                "cache prefix kept; cache_edits deletes {}",
                cache.cache_edits_deleted.join(", ")
            )
        }
        _ => "cache prefix kept".into(),
    };
    // The cache verdict comes first (SPEC §8: it survives 80×24), coloured and
    // with a glyph that carries it under NO_COLOR.
    let verdict = if cache.prefix_broken_at_message.is_some() {
        Span::styled(format!("✕ {cache_text}"), theme.fg(Color::Red))
    } else {
        Span::styled(format!("✓ {cache_text}"), theme.fg(Color::Green))
    };
    let meta = format!(
        "  ·  chars {} → {}{}  ·  newly cleared {} (~{} tokens saved, estimate)",
        fmt_int(st.chars_before),
        fmt_int(st.chars_after),
        st.target_chars
            .map(|t| format!(" (target {})", fmt_int(t)))
            .unwrap_or_default(),
        st.newly_cleared.len(),
        fmt_int(st.tokens_saved),
    );
    let width = area.width.saturating_sub(10) as usize;
    let s = &v.setup.session;
    let context: Vec<u64> = s
        .requests
        .iter()
        .map(|r| {
            r.response
                .and_then(|m| s.messages[m].usage.as_ref())
                .map(|u| u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens)
                .unwrap_or(0)
        })
        .collect();
    let cache_read: Vec<u64> = s
        .requests
        .iter()
        .map(|r| {
            r.response
                .and_then(|m| s.messages[m].usage.as_ref())
                .map(|u| u.cache_read_input_tokens)
                .unwrap_or(0)
        })
        .collect();
    // The marks, none while they are computed in the background.
    let none;
    let marks: &[super::app::Mark] = if v.marks.len() == s.requests.len() {
        &v.marks
    } else {
        none = vec![super::app::Mark::default(); s.requests.len()];
        &none
    };
    // Each line with its rank: when the screen is too short for all, the
    // lowest go first (SPEC §8: the verdict, then one sparkline, the hints).
    let mut lines: Vec<(u8, Line)> = vec![(0, Line::from(vec![verdict, Span::raw(meta)]))];
    // The whole session under this setting (SPEC §9), second at 80×24.
    lines.push((1, Line::styled(totals_line(v), theme.fg(Color::Yellow))));
    if let Some(line) = observed_line(v) {
        lines.push((3, Line::styled(line, theme.fg(Color::Red))));
    }
    lines.push((
        2,
        spark_line(
            "context ",
            &context,
            width,
            v.k,
            theme.fg(Color::Blue),
            &[],
            theme,
        ),
    ));
    // An observed cache break (!) sits on the cache reads' own line.
    lines.push((
        4,
        spark_line(
            "cache rd",
            &cache_read,
            width,
            v.k,
            theme.fg(Color::Cyan),
            marks,
            theme,
        ),
    ));
    lines.push((
        5,
        Line::from(format!("fired   {}", plan_marks(marks, width, v.k))),
    ));
    lines.push((
        6,
        Line::styled(
            format!("records {}", evidence_marks(marks, width, v.k)),
            theme.fg(Color::Magenta),
        ),
    ));
    let hint = v.status.clone().unwrap_or_else(|| match &v.search {
        Some(q) => format!("search {q:?}: n/N next/previous match, Esc clears"),
        None => keymap::hints(),
    });
    lines.push((1, Line::styled(hint, theme.fg(Color::DarkGray))));
    while lines.len() > area.height as usize
        && let Some(worst) = lines
            .iter()
            .enumerate()
            .max_by_key(|(_, (rank, _))| *rank)
            .map(|(i, _)| i)
    {
        lines.remove(worst);
    }
    let lines: Vec<Line> = lines.into_iter().map(|(_, l)| l).collect();
    f.render_widget(Paragraph::new(lines), area);
}

/// Buckets of requests → one column each (the max of the bucket).
fn buckets(n: usize, width: usize) -> Vec<std::ops::Range<usize>> {
    if n == 0 || width == 0 {
        return Vec::new();
    }
    let cols = n.min(width);
    (0..cols)
        .map(|c| (c * n / cols)..((c + 1) * n / cols).max(c * n / cols + 1))
        .collect()
}

/// A sparkline of `values`, one column per bucket of requests; a bucket where
/// `bang` marks an observed cache break shows `!` instead of its bar.
fn spark_line(
    label: &str,
    values: &[u64],
    width: usize,
    k: usize,
    style: Style,
    bang: &[super::app::Mark],
    theme: Theme,
) -> Line<'static> {
    const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    let max = values.iter().copied().max().unwrap_or(0).max(1);
    let mut spans = vec![Span::raw(format!("{label} "))];
    for b in buckets(values.len(), width) {
        let v = values[b.clone()].iter().copied().max().unwrap_or(0);
        let marked = b.clone().any(|i| bang.get(i).is_some_and(|m| m.observed));
        let ch = if marked {
            '!'
        } else if v == 0 {
            ' '
        } else {
            BARS[((v * 7) / max) as usize]
        };
        let here = b.contains(&(k.saturating_sub(1)));
        spans.push(Span::styled(
            ch.to_string(),
            if here {
                theme.emph(Color::Yellow)
            } else if marked {
                theme.fg(Color::Red).add_modifier(Modifier::BOLD)
            } else {
                style
            },
        ));
    }
    Line::from(spans)
}

/// ✕ where the simulated cache broke, ▲ where a plan fired without breaking it,
/// ^ under the request shown.
fn plan_marks(marks: &[super::app::Mark], width: usize, k: usize) -> String {
    buckets(marks.len(), width)
        .into_iter()
        .map(|b| {
            if marks[b.clone()].iter().any(|m| m.broke) {
                '✕'
            } else if marks[b.clone()].iter().any(|m| m.fired) {
                '▲'
            } else if b.contains(&(k.saturating_sub(1))) {
                '^'
            } else {
                ' '
            }
        })
        .collect()
}

/// ◇ where the transcript holds harness evidence (SPEC §10), ^ under the request
/// shown.
fn evidence_marks(marks: &[super::app::Mark], width: usize, k: usize) -> String {
    buckets(marks.len(), width)
        .into_iter()
        .map(|b| {
            if marks[b.clone()].iter().any(|m| m.evidence) {
                '◇'
            } else if b.contains(&(k.saturating_sub(1))) {
                '^'
            } else {
                ' '
            }
        })
        .collect()
}

/// The observed cache break at the request shown, in short: expected, observed,
/// drop and the explanations' names (SPEC §10).
pub fn observed_line(v: &SessionView) -> Option<String> {
    let b = v.evidence_at(v.k)?.observed_break.as_ref()?;
    let why: Vec<&str> = b.explanations().iter().map(|x| x.name()).collect();
    Some(format!(
        "! observed cache break: read {} of {} expected (drop {}): {}",
        fmt_int(b.observed),
        fmt_int(b.expected),
        fmt_int(b.drop()),
        why.join(", ")
    ))
}

fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    }
}

/// The help: every binding of the keymap, the `:` commands, then a legend of the
/// glyphs and marks.
pub fn help_lines() -> Vec<String> {
    let mut lines: Vec<String> = KEYMAP
        .iter()
        .map(|b| format!("{:>6}  {}", b.label, b.help))
        .collect();
    lines.push(format!(
        "{:>6}  quit from anywhere; Ctrl-Z suspends",
        "Ctrl-C"
    ));
    lines.push(String::new());
    lines.push("Commands (:), a unique prefix of an id is enough:".into());
    lines.push("  :57  :gap 7.5  :keep 3  :size 300000  :trigger 4".into());
    lines.push("  :policy auto|idle|…|budget  :delivery rewrite".into());
    lines.push("  :explain KuPA   (Tab completes a command name)".into());
    lines.push(String::new());
    lines.push("Plan kinds (p):".into());
    lines.push("  auto: the harness's own choice (claude: budget".into());
    lines.push("        on 2.0.0–2.1.87 by version, else idle; qwen".into());
    lines.push("        by send kind: idle after the gap, else size,".into());
    lines.push("        nothing at notifications or goal turns)".into());
    lines.push(String::new());
    lines.push("Legend: statuses in the age list".into());
    use crate::policy::Status;
    for (st, what) in [
        (Status::Kept, "sent as recorded"),
        (Status::Cleared, "replaced by the placeholder"),
        (Status::Protected, "managed memory, never cleared"),
        (Status::AlreadyCleared, "the transcript already cleared it"),
        (Status::ErrorKept, "an error result, kept"),
        (Status::NotCompactable, "a tool the plans never clear"),
    ] {
        lines.push(format!("  {} {:<16} {what}", glyph(st), st.name()));
    }
    lines.push("  ↗ symlink escape: the path leaves the root".into());
    lines.push("  ? unresolved or ambiguous id".into());
    lines.push(String::new());
    lines.push("Legend: marks on the footer's lines".into());
    lines.push("  ▲ a plan fired at this request".into());
    lines.push("  ✕ the simulated cache prefix broke here".into());
    lines.push("  ◇ harness evidence in the transcript".into());
    lines.push("  ! an observed cache break".into());
    lines.push("  ^ the request shown".into());
    lines.push(String::new());
    lines.push("Legend: the diff and the header".into());
    lines.push("  - removed  + added  ~ changed (left: local,".into());
    lines.push("    right: wire); ⋯ n unchanged lines ⋯ is a fold".into());
    lines.push("  * a parameter changed since the session opened".into());
    lines
}

/// The help panel's place on a screen of `size` (columns, rows).
fn help_rect(area: Rect) -> Rect {
    centered(
        area,
        area.width.saturating_sub(2).min(66),
        (help_lines().len() as u16 + 2).min(area.height.saturating_sub(2)),
    )
}

/// Rows of help text visible at once on a screen of `size`.
pub fn help_page(size: (u16, u16)) -> usize {
    let r = help_rect(Rect::new(0, 0, size.0, size.1));
    r.height.saturating_sub(2).max(1) as usize
}

/// How far the help scrolls on a screen of `size`: its last line at the bottom.
pub fn help_max_scroll(size: (u16, u16)) -> usize {
    help_lines().len().saturating_sub(help_page(size))
}

fn draw_help(f: &mut Frame, area: Rect, scroll: usize) {
    let all = help_lines();
    let r = help_rect(area);
    let page = r.height.saturating_sub(2) as usize;
    let scroll = scroll.min(all.len().saturating_sub(page));
    let lines: Vec<Line> = all
        .iter()
        .skip(scroll)
        .take(page)
        .map(|l| Line::from(l.as_str()))
        .collect();
    let shown = format!(
        " {}–{} of {} ",
        scroll + 1,
        (scroll + page).min(all.len()),
        all.len()
    );
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(lines).block(
            Block::default()
                .borders(Borders::ALL)
                .title(" keys — ↑/↓ PgUp/PgDn g/G scroll, Esc/q close ")
                .title_bottom(Line::from(shown).right_aligned()),
        ),
        r,
    );
}

fn draw_explain(
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
            e.tool_use_id,
            e.tool.as_deref().unwrap_or("?"),
            e.path.as_deref().unwrap_or("")
        )),
        Line::styled(
            match e.first_cleared_at {
                Some(k) => format!("first vanished from the wire at request {k}"),
                None => "never cleared from the wire".into(),
            },
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
    let mut was_cleared = false;
    for (i, r) in e.rows.iter().enumerate() {
        let newly = r.status == crate::policy::Status::Cleared && !was_cleared;
        was_cleared = r.status == crate::policy::Status::Cleared;
        if i < scroll {
            continue;
        }
        let here = if r.index == v.k { "▶" } else { " " };
        lines.push(Line::from(vec![
            Span::raw(format!("{here}{:>4}  ", r.index)),
            Span::styled(
                format!("{:<18}", format!("{} {}", glyph(r.status), r.status.name())),
                theme.status(r.status),
            ),
            Span::raw(r.reason.clone()),
        ]));
        for note in explain_row_notes(v, r, newly) {
            lines.push(Line::styled(
                format!("{:>25}{note}", ""),
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
            Block::default()
                .borders(Borders::ALL)
                .title(" explain — its fate at every request (Esc closes) "),
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
                if x == id {
                    format!("{x} (this)")
                } else {
                    x.clone()
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut out = Vec::new();
    for &k in v.named.get(id).into_iter().flatten() {
        let Some(ev) = report.evidence.at(k) else {
            continue;
        };
        let records = ev.microcompact.iter().map(|m| (m, false));
        for (m, before_compaction) in records.chain(ev.compactions.iter().map(|m| (m, true))) {
            if !m.compacted_tool_ids.iter().any(|x| x == id) {
                continue;
            }
            let place = if before_compaction {
                format!("the compaction before request {k}")
            } else {
                format!("request {k}")
            };
            out.push(format!(
                "◇ microcompact_boundary at line {} ({} writer) belongs to {place}",
                m.line,
                m.writer.name()
            ));
            out.push(format!("  cleared [{}]", short(&m.compacted_tool_ids)));
            out.push(format!(
                "  pre_tokens {}  tokens_saved {}",
                m.pre_tokens.map_or("none".into(), fmt_int),
                m.tokens_saved.map_or("none".into(), fmt_int)
            ));
            out.push(format!(
                "  against the {} plan: {}",
                m.writer.plan(),
                match &m.comparison {
                    Some(c) => c.words(),
                    None => "not compared: no request to simulate it on".into(),
                }
            ));
            let selected = v.policy().kind.name();
            if !before_compaction
                && selected != m.writer.plan()
                && let Some(ids) = report.selected_newly.get(&k)
            {
                let c = crate::evidence::compare(&m.compacted_tool_ids, ids);
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
            && !r.reason.contains(send.kind.words())
        {
            out.push(format!("{}: {}", send.kind.name(), send.kind.words()));
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

fn draw_content(f: &mut Frame, area: Rect, title: &str, lines: &[String], scroll: usize) {
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

fn draw_input(f: &mut Frame, area: Rect, title: &str, text: &str) {
    let r = centered(area, area.width.saturating_sub(10).min(90), 3);
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(format!("{text}▏")).block(
            Block::default()
                .borders(Borders::ALL)
                .title(format!(" {title} ")),
        ),
        r,
    );
}

/// The fewest last chars that tell every id of `ids` apart (the whole of the
/// longest when none do; ids repeat when a transcript reuses one).
pub fn unique_tail(ids: &[&str]) -> usize {
    let longest = ids.iter().map(|id| id.chars().count()).max().unwrap_or(0);
    let distinct: std::collections::HashSet<&str> = ids.iter().copied().collect();
    (1..=longest)
        .find(|&k| {
            let tails: std::collections::HashSet<&str> = distinct
                .iter()
                .map(|id| {
                    let n = id.chars().count();
                    let start = id
                        .char_indices()
                        .nth(n.saturating_sub(k))
                        .map_or(0, |(i, _)| i);
                    &id[start..]
                })
                .collect();
            tails.len() == distinct.len()
        })
        .unwrap_or(longest)
}

/// `…` and the last `max - 1` chars of `s` when it is longer than `max`.
pub fn shorten_left(s: &str, max: usize) -> String {
    let n = s.chars().count();
    if n <= max {
        return s.to_string();
    }
    let tail: String = s.chars().skip(n + 1 - max.max(1)).collect();
    format!("…{tail}")
}

//! The picker: the session list with its columns, filter line and help.

use super::*;
use crate::scan::{Kind, short_project};
use crate::tui::keymap::picker_hints;
use crate::tui::picker::{Entry, Picker, Row};

/// Column widths for a screen `width` wide: narrow screens get a short date and
/// a narrow project, and the prompt (last) takes what is left.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Columns {
    pub long_date: bool,
    pub project: usize,
    pub prompt: usize,
}

/// The harness column: as wide as the longest harness name (`opencode`), so
/// that no row shifts.
fn harness_col() -> usize {
    <crate::session::HarnessId as strum::VariantArray>::VARIANTS
        .iter()
        .map(|h| h.name().len())
        .max()
        .unwrap_or(8)
}

const COUNT: usize = 4;
const SIZE: usize = 5;

pub fn columns(width: u16) -> Columns {
    let w = width as usize;
    let (long_date, project) = if w >= 110 { (true, 30) } else { (false, 14) };
    let date = date_width(long_date);
    // "▶ " date harness project req res size prompt, one space between.
    let fixed = 2 + date + 1 + harness_col() + 1 + project + 1 + COUNT + 1 + COUNT + 1 + SIZE + 1;
    Columns {
        long_date,
        project,
        prompt: w.saturating_sub(fixed),
    }
}

/// The date column: `2026-02-14 22:28 CET` (room for a five-letter zone such
/// as `+0530`) on a wide screen, `02-14 22:28` on a narrow one.
fn date_width(long: bool) -> usize {
    if long { 22 } else { 11 }
}

/// `text` in at most `room` characters: whole when it fits, else its start and
/// its end around a `…`.
fn cut_middle(text: &str, room: usize) -> String {
    let n = text.chars().count();
    if n <= room {
        return text.to_string();
    }
    let keep = room.saturating_sub(1);
    let front = keep / 2;
    let back = keep - front;
    let start: String = text.chars().take(front).collect();
    let end: String = text.chars().skip(n - back).collect();
    format!("{start}…{end}")
}

/// A count in at most 4 columns: 9999, then 10k … 999k, then 1M ….
fn count(n: usize) -> String {
    match n {
        0..10_000 => n.to_string(),
        10_000..1_000_000 => format!("{}k", n / 1000),
        _ => format!("{}M", n / 1_000_000),
    }
}

/// A size in at most 5 columns: 117B, 23K, 1.2M, 201M, 1.5G.
pub fn size(b: u64) -> String {
    let f = |v: f64, unit: &str| {
        if v < 10.0 {
            format!("{v:.1}{unit}")
        } else {
            format!("{}{unit}", v as u64)
        }
    };
    match b {
        0..1000 => format!("{b}B"),
        1000..1_000_000 => format!("{}K", b / 1000),
        1_000_000..1_000_000_000 => f(b as f64 / 1e6, "M"),
        _ => f(b as f64 / 1e9, "G"),
    }
}

/// `s` cut to `max` chars, with `…` when cut.
fn cut(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// A project in `w` columns: whole if it fits, else its last folders that fit
/// after `…/` (the project's own name shows), else the name's tail.
pub fn project_cell(project: &str, w: usize) -> String {
    if project.chars().count() <= w {
        return project.to_string();
    }
    let parts: Vec<&str> = project.split('/').collect();
    let mut tail = String::new();
    for part in parts.iter().rev() {
        let next = if tail.is_empty() {
            part.to_string()
        } else {
            format!("{part}/{tail}")
        };
        if next.chars().count() + 2 > w {
            break;
        }
        tail = next;
    }
    if tail.is_empty() {
        shorten_left(project, w)
    } else {
        format!("…/{tail}")
    }
}

fn pad(s: &str, w: usize) -> String {
    let n = s.chars().count();
    format!("{s}{}", " ".repeat(w.saturating_sub(n)))
}

fn home() -> Option<String> {
    std::env::var("HOME").ok()
}

/// The prompt column of a file: its marks, then the prompt.
fn prompt_text(e: &Entry) -> String {
    let Some(s) = &e.summary else {
        return match e.kind() {
            Some(k) if k != Kind::Session => format!("[{}]", k.mark()),
            _ => "…".into(),
        };
    };
    if let Some(err) = &s.error {
        return format!("[unreadable: {err}]");
    }
    // What the light pass left unread leads the row: its counts are partial.
    let note = s.note.as_ref().map_or(String::new(), |n| format!("[{n}] "));
    let prompt = s.prompt.as_deref().unwrap_or("(no prompt)");
    let threads = match s.threads.len() {
        0 => String::new(),
        1 => "[1 sub-agent thread] ".into(),
        n => format!("[{n} sub-agent threads] "),
    };
    match s.kind {
        Kind::Session => format!("{note}{threads}{prompt}"),
        Kind::SubAgent => format!("{note}[sub-agent] {prompt}"),
        k => format!("{note}[{}]", k.mark()),
    }
}

/// The text of each row as a user reads it (no styles), for a screen `width` wide.
pub fn picker_line(p: &Picker, row: Row, selected: bool, width: u16) -> String {
    let c = columns(width);
    let date_w = date_width(c.long_date);
    let mark = if selected { "▶ " } else { "  " };
    match row {
        Row::File(i) => {
            let e = &p.entries[i];
            // In the display zone, as the timeline's times (SPEC §7a), with
            // its abbreviation where there is room.
            let fmt = if c.long_date {
                "%Y-%m-%d %H:%M %Z"
            } else {
                "%m-%d %H:%M"
            };
            let date = crate::zone::file_time(e.modified, fmt);
            let harness = match &e.summary {
                Some(s) => s.harness.name(),
                None => "",
            };
            // A sub-agent file under its session: its own name instead of the project.
            let project = match p.parent_of(i) {
                Some(_) => {
                    // Its id: `agent-a881341` → `a881341` ([sub-agent] says the rest).
                    let stem = match &e.session {
                        Some(id) => id.as_str().into(),
                        None => e.path.file_stem().unwrap_or_default().to_string_lossy(),
                    };
                    let id = stem.strip_prefix("agent-").unwrap_or(&stem);
                    cut(&format!("↳ {}", sanitize::line(id)), c.project)
                }
                None => project_cell(
                    &sanitize::line(&short_project(&e.project(), home().as_deref())),
                    c.project,
                ),
            };
            let (req, res) = match &e.summary {
                Some(s) => (count(s.requests), count(s.results)),
                None => ("…".into(), "…".into()),
            };
            format!(
                "{mark}{} {} {} {req:>COUNT$} {res:>COUNT$} {:>SIZE$} {}",
                pad(&date, date_w),
                pad(harness, harness_col()),
                pad(&project, c.project),
                size(e.size),
                cut(&sanitize::line(&prompt_text(e)), c.prompt)
            )
        }
        Row::Thread(i, t) => {
            let Some(th) = p.entries[i].summary.as_ref().and_then(|s| s.threads.get(t)) else {
                return String::new();
            };
            let label = format!("↳ sub-agent {}", th.n);
            let prompt = format!(
                "[what-if] {}",
                th.prompt.as_deref().unwrap_or("(no prompt)")
            );
            format!(
                "{mark}{} {} {} {:>COUNT$} {:>COUNT$} {:>SIZE$} {}",
                pad("", date_w),
                pad("", harness_col()),
                pad(&cut(&label, c.project), c.project),
                count(th.requests),
                count(th.results),
                "",
                cut(&sanitize::line(&prompt), c.prompt)
            )
        }
    }
}

/// The column titles, aligned with [`picker_line`].
pub fn picker_titles(width: u16) -> String {
    let c = columns(width);
    let date_w = date_width(c.long_date);
    format!(
        "  {} {} {} {:>COUNT$} {:>COUNT$} {:>SIZE$} {}",
        pad("date", date_w),
        pad("harness", harness_col()),
        pad("project", c.project),
        "req",
        "res",
        "size",
        "first prompt"
    )
}

pub(super) fn draw_picker(f: &mut Frame, p: &Picker, theme: Theme) {
    let area = f.area();
    let [head, titles, list, path, foot] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Min(1),
        Constraint::Length(1),
        Constraint::Length(1),
    ])
    .areas(area);
    let files = p.entries.len();
    let title = p
        .title
        .split(" + ")
        .map(|t| short_project(t, home().as_deref()))
        .collect::<Vec<_>>()
        .join(" + ");
    // The count and the sort come whole; a title too long for the line is
    // cut in its middle to make room for them.
    let mut tail = format!("  {files} session{}", if files == 1 { "" } else { "s" });
    if p.scanning_now() {
        tail += &format!(", reading {}/{files}", p.scanned);
    } else if p.stopped {
        tail += &format!(", reading stopped at {}/{files}", p.scanned);
    }
    tail += &format!(
        "  sort: {} {}",
        p.sort.name(),
        if p.reverse { "↑" } else { "↓" }
    );
    if p.sort == crate::tui::picker::SortKey::Date && !p.reverse {
        tail += " (newest first)";
    }
    let head_words = "mcscope — ";
    let room = (area.width as usize)
        .saturating_sub(head_words.chars().count() + tail.chars().count())
        .max(8);
    let top_line = format!("{head_words}{}{tail}", cut_middle(&title, room));
    f.render_widget(Paragraph::new(top_line), head);
    f.render_widget(
        Paragraph::new(picker_titles(area.width))
            .style(Style::default().add_modifier(Modifier::BOLD)),
        titles,
    );
    let height = list.height as usize;
    let top = p.top(height);
    let lines: Vec<Line> = p
        .rows
        .iter()
        .enumerate()
        .skip(top)
        .take(height)
        .map(|(i, &row)| {
            let selected = i == p.selected;
            let text = picker_line(p, row, selected, area.width);
            let style = if selected {
                theme.emph(Color::Cyan)
            } else {
                match row {
                    Row::File(e) if p.entries[e].kind().is_some_and(Kind::is_blank) => {
                        theme.fg(Color::DarkGray)
                    }
                    Row::File(e) if p.entries[e].kind() == Some(Kind::SubAgent) => {
                        theme.fg(Color::Magenta)
                    }
                    Row::Thread(..) => theme.fg(Color::Magenta),
                    _ => Style::default(),
                }
            };
            Line::styled(text, style)
        })
        .collect();
    if lines.is_empty() {
        let why = if p.filter.is_empty() {
            "no sessions here: `mcscope demo` is a guided tour on a bundled session, and a clone of mcscope has more in sample-sessions/".to_string()
        } else {
            format!("nothing matches “{}” (Esc clears the filter)", p.filter)
        };
        f.render_widget(Paragraph::new(why), list);
    } else {
        f.render_widget(Paragraph::new(lines), list);
    }
    // The selection's file, once (no long prefix on every row).
    if let Some(t) = p.target() {
        let mut text = sanitize::line(&short_project(
            &t.path.display().to_string(),
            home().as_deref(),
        ))
        .into_owned();
        if let Some((n, _)) = t.thread {
            text += &format!("  (sub-agent thread {n}, opened as a what-if)");
        }
        f.render_widget(
            Paragraph::new(shorten_left(&text, area.width as usize))
                .style(theme.fg(Color::DarkGray)),
            path,
        );
    }
    let shown = p.rows.iter().filter(|r| matches!(r, Row::File(_))).count();
    let footer = if p.typing {
        format!(
            "filter: {}▏  {shown} of {files} · Enter open · Esc clear · ↑/↓ select",
            p.filter
        )
    } else if !p.filter.is_empty() {
        format!(
            "filter: {} ({shown} of {files}, Esc clears)  {}",
            p.filter,
            picker_hints()
        )
    } else {
        picker_hints()
    };
    f.render_widget(Paragraph::new(footer), foot);
    if let Some(scroll) = p.help {
        draw_picker_help(f, area, scroll);
    }
}

fn draw_picker_help(f: &mut Frame, area: Rect, scroll: usize) {
    let all = keymap::picker_help_lines();
    let r = layout::panel(area, layout::PICKER_HELP_WIDTH, all.len());
    super::panels::draw_scrolled(
        f,
        r,
        &all,
        scroll,
        " picker keys — any other key closes ",
        false,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_counts_fit_their_columns() {
        assert_eq!(size(117), "117B");
        assert_eq!(size(23_744), "23K");
        assert_eq!(size(1_196_306), "1.2M");
        assert_eq!(size(200_795_994), "200M");
        assert_eq!(size(1_500_000_000), "1.5G");
        assert_eq!(count(9999), "9999");
        assert_eq!(project_cell("/srv/work/app", 14), "/srv/work/app");
        assert_eq!(project_cell("/home/USER/projects/spotter", 14), "…/spotter");
        assert_eq!(
            project_cell("/srv/work/billing-service", 14),
            "…lling-service"
        );
        assert_eq!(project_cell("~/code/a/b", 8), "…/a/b");
        assert_eq!(count(13_392), "13k");
        // 80 columns: 54 fixed (the harness column as wide as `opencode`),
        // 26 for the prompt; 200: 81 fixed.
        assert_eq!(harness_col(), "opencode".len());
        assert_eq!(columns(80).prompt, 26);
        assert_eq!(columns(200).prompt, 200 - 81);
    }
}

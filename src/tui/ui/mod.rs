//! Drawing: one function per region, reading the state, never changing it.

use super::app::{App, Filter, Focus, ListRow, Overlay, SILENT, Screen, SessionView};
use super::keymap;
use super::layout::{self, centered};
use super::theme::Palette;
use crate::diff::{Diff, Item, Kind, Row, Side};
use crate::numbers::{fmt_int, fmt_num};
use crate::policy::Delivery;
use crate::policy::engine::{Candidate, Status};
use crate::policy::protect::Outcome;
use crate::report::glyph;
use crate::sanitize;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Row as TRow, Table, Wrap};

mod bill;
mod caption;
mod chart;
mod compare;
mod diffview;
mod footer;
mod header;
mod list;
mod panels;
mod picker;
mod window;

pub use bill::*;
pub use chart::*;
pub use compare::*;
pub use diffview::*;
pub use footer::*;
pub use header::*;
pub use list::*;
pub use panels::*;
pub use picker::*;
pub use window::*;

pub const MIN_WIDTH: u16 = 60;
pub const MIN_HEIGHT: u16 = 16;

/// Colours (the configuration's `[theme]`, else the defaults), or none at all
/// when `NO_COLOR` is set (glyphs carry the meaning).
#[derive(Debug, Clone, Copy)]
pub struct Theme {
    pub color: bool,
    pub palette: Palette,
}

impl Theme {
    /// The default colours, or none.
    pub fn new(color: bool) -> Theme {
        Theme {
            color,
            palette: Palette::default(),
        }
    }

    /// `--color` and the environment decide whether there is colour (on a
    /// terminal, where the TUI always is: [`crate::color::wanted`]); `palette` which.
    pub fn with_choice(palette: Palette, choice: crate::color::ColorChoice) -> Theme {
        Theme {
            color: crate::color::wanted_here(choice, true),
            palette,
        }
    }

    /// As [`Theme::with_choice`] under `--color auto`.
    pub fn from_env_with(palette: Palette) -> Theme {
        Theme::with_choice(palette, crate::color::ColorChoice::Auto)
    }

    pub fn from_env() -> Theme {
        Theme::from_env_with(Palette::default())
    }

    fn fg(&self, c: impl Paint) -> Style {
        if self.color {
            Style::default().fg(c.paint())
        } else {
            Style::default()
        }
    }

    fn emph(&self, c: impl Paint) -> Style {
        if self.color {
            Style::default().bg(c.paint()).fg(Color::Black)
        } else {
            Style::default().add_modifier(Modifier::REVERSED)
        }
    }

    fn status(&self, st: Status) -> Style {
        let p = &self.palette;
        self.fg(match st {
            Status::Kept => p.kept,
            Status::Cleared => p.cleared,
            Status::Protected => p.protected,
            Status::AlreadyCleared | Status::Cut => p.already_cleared,
            Status::ErrorKept => p.error,
            Status::NotCompactable => p.not_compactable,
        })
    }

    /// A candidate's row: its status's colour, unless protection found a
    /// symlink escape or could not resolve the id.
    fn candidate(&self, c: &Candidate) -> Style {
        let p = &self.palette;
        match c.protection.as_ref().map(|p| p.outcome) {
            Some(Outcome::SymlinkEscape) => self.fg(p.symlink_escape),
            Some(Outcome::UnresolvedId | Outcome::AmbiguousId) if p.unresolved.is_some() => {
                self.fg(p.unresolved.unwrap_or_default())
            }
            _ => self.status(c.status),
        }
    }
}

/// A colour the terminal draws: ratatui's own, or a theme's (the core's
/// colours, which name no terminal crate) turned into it.
pub trait Paint: Copy {
    fn paint(self) -> Color;
}

impl Paint for Color {
    fn paint(self) -> Color {
        self
    }
}

impl Paint for crate::theme::Color {
    fn paint(self) -> Color {
        use crate::theme::Color as T;
        match self {
            T::Reset => Color::Reset,
            T::Black => Color::Black,
            T::Red => Color::Red,
            T::Green => Color::Green,
            T::Yellow => Color::Yellow,
            T::Blue => Color::Blue,
            T::Magenta => Color::Magenta,
            T::Cyan => Color::Cyan,
            T::Gray => Color::Gray,
            T::DarkGray => Color::DarkGray,
            T::LightRed => Color::LightRed,
            T::LightGreen => Color::LightGreen,
            T::LightYellow => Color::LightYellow,
            T::LightBlue => Color::LightBlue,
            T::LightMagenta => Color::LightMagenta,
            T::LightCyan => Color::LightCyan,
            T::White => Color::White,
            T::Rgb(r, g, b) => Color::Rgb(r, g, b),
            T::Indexed(i) => Color::Indexed(i),
        }
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
    scrub(f.buffer_mut());
}

/// The last guard before the terminal: the regions show transcript text through
/// `sanitize` (escapes made visible), and a cell that still holds a control or
/// invisible character (a region that missed it) shows U+FFFD instead, so no
/// such character is ever written to the terminal.
pub fn scrub(buf: &mut ratatui::buffer::Buffer) {
    for cell in buf.content.iter_mut() {
        let sym = cell.symbol();
        if sym != " " && sanitize::text(sym) != sym {
            cell.set_symbol("\u{FFFD}");
        }
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
        Line::from(format!("loading {}", sanitize::line(path))),
        Line::from(format!("{} of {} MB", done / 1_000_000, total / 1_000_000)),
        Line::from(bar),
        Line::from("q quits"),
    ];
    f.render_widget(Paragraph::new(text), area);
}

fn draw_session(f: &mut Frame, v: &SessionView, theme: Theme) {
    let area = f.area();
    let [header, list, diff, footer] = layout::regions(area, v.shape(area.width));
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
            if v.page_export.is_some() {
                "export the explain page to (.md: Markdown, .html: HTML; Enter: write, Esc: cancel)"
            } else {
                "export the wire payload to (Enter: write, Esc: cancel)"
            },
            p,
        ),
        Some(Overlay::ConfirmExport(p)) => draw_input(
            f,
            area,
            "the file exists: replace it? (y: replace, n/Esc/Enter: keep it)",
            &format!("{p}  [y/N]"),
        ),
        Some(Overlay::Compare) => draw_compare(f, v, area, theme),
        Some(Overlay::Chart) => draw_chart(f, v, area, theme),
        Some(Overlay::Window { scroll }) => draw_window(f, v, area, *scroll, theme),
        Some(Overlay::Bill { selected }) => draw_bill(f, v, area, *selected, theme),
        None => {}
    }
    if let Some(stage) = v.demo {
        caption::draw_caption(f, stage, [list, diff, footer], theme);
    }
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

#[cfg(test)]
mod theme_tests {
    use super::*;
    use crate::policy::protect::Protection;
    use std::str::FromStr;

    /// The theme reads a colour as the terminal crate would (its parse moved
    /// into the core, which names no terminal crate): every spelling, good or
    /// bad, gives the same colour or the same refusal.
    #[test]
    fn the_themes_colour_names_read_as_ratatuis() {
        let mut spellings: Vec<String> = [
            "reset",
            "Black",
            "RED",
            "green",
            "yellow",
            "blue",
            "magenta",
            "cyan",
            "gray",
            "grey",
            "silver",
            "dark gray",
            "Dark-Grey",
            "dark_gray",
            "darkgray",
            "light red",
            "bright red",
            "LightGreen",
            "light-yellow",
            "lightblue",
            "bright magenta",
            "light_cyan",
            "white",
            "light white",
            "lightgray",
            "light black",
            "bright black",
            "0",
            "15",
            "208",
            "255",
            "256",
            "-1",
            "#ff8000",
            "#FF8000",
            "#ff80",
            "#gg0000",
            "#ff80000",
            "ff8000",
            "",
            " ",
            "reddish",
            "red ",
            " blue",
            "lightsilver",
            "brightgrey",
            "é",
            "#ffé00",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        for n in 0..=300u32 {
            spellings.push(n.to_string());
            spellings.push(format!("#{:06x}", n * 55_555));
        }
        for s in &spellings {
            let ours = crate::theme::Color::from_str(s).ok().map(Paint::paint);
            assert_eq!(ours, Color::from_str(s).ok(), "{s:?}");
        }
    }

    fn candidate(status: Status, outcome: Option<Outcome>) -> Candidate {
        Candidate {
            result: 0,
            tool: None,
            compactable: true,
            rank: None,
            path: None,
            summary: None,
            paths: Vec::new(),
            file_path_tool: true,
            protection: outcome.map(|outcome| Protection {
                outcome,
                root: None,
                resolved: None,
            }),
            pending: false,
            status,
            reason: crate::policy::engine::Reason::Unset,
            cleared_at: None,
            dead_branch: false,
        }
    }

    /// Every status takes its own key; an unresolved or ambiguous id keeps its
    /// status's colour until `unresolved` is set; NO_COLOR draws none of them.
    #[test]
    fn each_status_and_outcome_takes_its_key() {
        let p = Palette::from_entries([
            ("kept", "#000001"),
            ("cleared", "#000002"),
            ("protected", "#000003"),
            ("already_cleared", "#000004"),
            ("error", "#000005"),
            ("not_compactable", "#000006"),
            ("symlink_escape", "#000007"),
        ])
        .unwrap();
        let t = Theme {
            color: true,
            palette: p,
        };
        let fg = |c: Candidate| t.candidate(&c).fg;
        for (st, b) in [
            (Status::Kept, 1),
            (Status::Cleared, 2),
            (Status::Protected, 3),
            (Status::AlreadyCleared, 4),
            (Status::ErrorKept, 5),
            (Status::NotCompactable, 6),
        ] {
            assert_eq!(fg(candidate(st, None)), Some(Color::Rgb(0, 0, b)), "{st:?}");
        }
        let escape = candidate(Status::Cleared, Some(Outcome::SymlinkEscape));
        assert_eq!(fg(escape), Some(Color::Rgb(0, 0, 7)));
        let unresolved = || candidate(Status::Cleared, Some(Outcome::UnresolvedId));
        assert_eq!(
            fg(unresolved()),
            Some(Color::Rgb(0, 0, 2)),
            "unset: cleared"
        );
        let t = Theme {
            color: true,
            palette: Palette::from_entries([("unresolved", "lightmagenta")]).unwrap(),
        };
        assert_eq!(t.candidate(&unresolved()).fg, Some(Color::LightMagenta));
        let ambiguous = candidate(Status::Kept, Some(Outcome::AmbiguousId));
        assert_eq!(t.candidate(&ambiguous).fg, Some(Color::LightMagenta));
        let plain = Theme { color: false, ..t };
        assert_eq!(plain.candidate(&unresolved()), Style::default());
    }
}

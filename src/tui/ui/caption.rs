//! The demo's caption: whole, with its navigation hint, beside the region it
//! talks about (above or under it), never over it.

use super::*;
use crate::tui::demo::{Region, STAGES};

/// The caption's lines at `inner` columns: where the region is (`above`: the
/// caption is above it), the title, the pain point, the text and the hint;
/// `full` false leaves out the pointer and the pain point (a short screen).
pub(super) fn caption_lines(stage: usize, inner: usize, above: bool, full: bool) -> Vec<String> {
    let Some(st) = STAGES.get(stage) else {
        return Vec::new();
    };
    let arrow = if above { "▼" } else { "▲" };
    let place = if above { "below" } else { "above" };
    let pointer = match st.region {
        Region::List => format!("{arrow} the age list {place}"),
        Region::Diff => format!("{arrow} the wire payload {place}, right side"),
        Region::LocalSide => format!("{arrow} the local request {place}, left side"),
        Region::Footer => format!("{arrow} the footer {place}: cache verdict and session totals"),
    };
    let hint = format!(
        "→ next  ← back  Esc leave the demo   ({}/{})",
        stage + 1,
        STAGES.len()
    );
    let mut texts = Vec::new();
    if full {
        texts.push(pointer);
    }
    texts.push(st.title.to_string());
    if full {
        texts.push(format!("pain point: “{}”", st.pain));
    }
    texts.push(st.text());
    texts.push(hint);
    texts.iter().flat_map(|t| words(t, inner)).collect()
}

/// `text` in lines of at most `width` chars, broken at spaces (a word longer
/// than a line is cut).
fn words(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut out = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        let mut word: Vec<char> = word.chars().collect();
        let len = line.chars().count();
        if len > 0 && len + 1 + word.len() > width {
            out.push(std::mem::take(&mut line));
        }
        while word.len() > width {
            if !line.is_empty() {
                out.push(std::mem::take(&mut line));
            }
            out.push(word.drain(..width).collect());
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.extend(word);
    }
    if !line.is_empty() || out.is_empty() {
        out.push(line);
    }
    out
}

/// The demo's caption, placed above or under the region it talks about (the
/// side with room for all of it), the region's first row marked.
pub(super) fn draw_caption(
    f: &mut Frame,
    stage: usize,
    [list, diff, footer]: [Rect; 3],
    theme: Theme,
) {
    let Some(st) = STAGES.get(stage) else { return };
    let area = f.area();
    let target = match st.region {
        Region::List => list,
        Region::Diff | Region::LocalSide => diff,
        Region::Footer => footer,
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
    let width = area.width.min(100);
    let inner = width.saturating_sub(2).max(1) as usize;
    let above_room = target.y.saturating_sub(area.y);
    let below_room = (area.y + area.height).saturating_sub(target.y + target.height);
    // The list is talked about from under it, the others from above; the
    // other side when that has no room for the whole caption; a shorter
    // caption when neither has.
    let prefer_above = st.region != Region::List;
    let fits = |above: bool, full: bool| {
        let room = if above { above_room } else { below_room };
        caption_lines(stage, inner, above, full).len() as u16 + 2 <= room
    };
    let choice = [
        (prefer_above, true),
        (!prefer_above, true),
        (prefer_above, false),
        (!prefer_above, false),
    ]
    .into_iter()
    .find(|&(above, full)| fits(above, full))
    .unwrap_or((above_room >= below_room, false));
    let (above, full) = choice;
    let lines = caption_lines(stage, inner, above, full);
    let room = if above { above_room } else { below_room };
    let height = (lines.len() as u16 + 2).min(room);
    let y = if above {
        target.y - height
    } else {
        target.y + target.height
    };
    let r = Rect {
        x: area.x + (area.width - width) / 2,
        y,
        width,
        height,
    };
    let n = lines.len();
    let styled: Vec<Line> = lines
        .into_iter()
        .enumerate()
        .map(|(i, l)| {
            let style = if i == n - 1 {
                theme.fg(Color::DarkGray)
            } else if full && i == 0 {
                theme.fg(Color::Yellow).add_modifier(Modifier::BOLD)
            } else if l == st.title {
                Style::default().add_modifier(Modifier::BOLD)
            } else if l.starts_with("pain point") {
                theme.fg(Color::Magenta)
            } else {
                Style::default()
            };
            Line::styled(l, style)
        })
        .collect();
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(styled).block(
            Block::default()
                .borders(Borders::ALL)
                .title(" mcscope demo "),
        ),
        r,
    );
}

//! The age list: every candidate by rank with its status (colour and glyph), and Qwen media entries.

use super::*;

/// The status cell of a candidate: glyph, word, and the protection detail, the
/// escape target shortened from the left to fit `width`.
pub fn status_label(c: &Candidate, width: usize) -> String {
    let mut s = format!("{} {}", glyph(c.status), c.status.name());
    if c.dead_branch {
        s.push_str(" (dead branch)");
    }
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
    let title = list_title(v, visible.len(), &rows_shown);
    let inner = region(f, area, title, focused, theme);
    let height = inner.height.saturating_sub(1) as usize;
    let top = layout::list_top(v.selected_row(), height);
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
                        format!("-/{}", fmt_int(s.shape().media_tokens)),
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
            let mut style = theme.candidate(c);
            if i == v.selected {
                style = style.add_modifier(Modifier::REVERSED);
            }
            TRow::new(vec![
                c.rank.map(|r| r.to_string()).unwrap_or_else(|| "-".into()),
                short_id(&sanitize::line(&r.id)),
                sanitize::line(c.tool.as_deref().unwrap_or("?")).into_owned(),
                match &c.path {
                    Some(p) => shorten_left(&sanitize::line(p), path_w),
                    None => sanitize::line(c.summary.as_deref().unwrap_or_default()).into_owned(),
                },
                // A PDF page text's size is not in the transcript (SPEC §17.C.U3).
                if r.size_unknown {
                    "?/?".to_string()
                } else {
                    format!("{}/{}", fmt_int(r.chars), fmt_int(r.est_tokens))
                },
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

/// The list's title: how many results (and media) it shows of how many, and
/// whether the plan fired at this request.
fn list_title(v: &SessionView, visible: usize, rows_shown: &[ListRow]) -> String {
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
            visible,
            v.plan.candidates.len(),
            v.filter.name()
        )
    };
    format!(
        " tool results by age ({shown}) — {} ",
        if v.plan.step.fired() {
            format!(
                "{} fired: {}",
                v.plan.step.trigger.map(|t| t.name()).unwrap_or("?"),
                v.plan.step.note
            )
        } else {
            format!("no plan fired: {}", v.plan.step.note)
        }
    )
}

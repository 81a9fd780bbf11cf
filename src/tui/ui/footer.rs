//! The footer: the cache verdict, the session totals, sparklines with their marks, the hints.

use super::*;

/// The session totals of the current setting in one line (SPEC §9).
pub fn totals_line(v: &SessionView) -> String {
    let Some(t) = &v.totals else {
        return "session: counting…".into();
    };
    let s = &t.totals;
    let usd = match t.delta_usd {
        Some(x) => format!("Δ ${x:+.4}"),
        None => "Δ $? (no price)".into(),
    };
    // Most telling first: at 80 columns the line is cut from the right.
    format!(
        "session: {usd} · {} tok not sent · {} warm breaks ({} re-written) · {} used later · {} fires · {} cleared",
        fmt_int(s.tokens_not_sent),
        s.cache_breaks,
        fmt_int(s.tokens_rewritten),
        s.later_used,
        s.fires,
        s.cleared_results,
    )
}

/// A piece of a footer line: its text, its style and its rank (0 is kept
/// longest). A line is as important as its most important piece.
struct Piece {
    text: String,
    style: Style,
    rank: u8,
}

fn piece(text: impl Into<String>, style: Style, rank: u8) -> Piece {
    Piece {
        text: text.into(),
        style,
        rank,
    }
}

/// The footer's ranks (SPEC §15.22), highest priority first; the plan's
/// metadata, which §15.22 does not list, goes with the other sparklines.
mod rank {
    pub(super) const VERDICT: u8 = 0;
    /// A status answers the key just pressed (a refusal says why nothing
    /// changed): it stays whole while anything else can go.
    pub(super) const STATUS: u8 = 1;
    pub(super) const OBSERVED: u8 = 2;
    pub(super) const RECORDED: u8 = 3;
    pub(super) const TOTALS: u8 = 4;
    pub(super) const SPARKLINE: u8 = 5;
    pub(super) const HINTS: u8 = 6;
    pub(super) const OTHER: u8 = 7;
    pub(super) const MORE_HINTS: u8 = 8;
    /// What fills the window: the last line kept (SPEC §15.22).
    pub(super) const CONTEXT: u8 = 9;
}

/// `pieces` packed into lines of `width` columns, each never cut inside a
/// piece (a piece wider than a line is wrapped at its spaces): `sep` between
/// two pieces, continuations indented by two. Each line keeps the best rank of
/// its pieces; `more` (when given) ranks every line after the first.
fn packed(
    pieces: Vec<Piece>,
    sep: &str,
    width: usize,
    more: Option<u8>,
) -> Vec<(u8, Line<'static>)> {
    let widths: Vec<usize> = pieces.iter().map(|p| p.text.chars().count()).collect();
    let mut out = Vec::new();
    for (n, r) in layout::pack(&widths, sep.chars().count(), 2, width)
        .into_iter()
        .enumerate()
    {
        let indent = if n == 0 { "" } else { "  " };
        let mut rank = r.clone().map(|i| pieces[i].rank).min().unwrap_or(u8::MAX);
        if n > 0
            && let Some(m) = more
        {
            rank = rank.max(m);
        }
        if let [i] = r.clone().collect::<Vec<_>>()[..]
            && indent.len() + widths[i] > width
        {
            // One piece longer than the line: at its spaces, never mid-word
            // unless one word is longer than the line.
            for text in layout::wrap(&pieces[i].text, width.saturating_sub(indent.len()).max(3)) {
                out.push((
                    rank,
                    Line::styled(format!("{indent}{text}"), pieces[i].style),
                ));
            }
            continue;
        }
        let mut spans = vec![Span::raw(indent)];
        for i in r.clone() {
            if i > r.start {
                spans.push(Span::raw(sep.to_string()));
            }
            spans.push(Span::styled(pieces[i].text.clone(), pieces[i].style));
        }
        out.push((rank, Line::from(spans)));
    }
    out
}

pub fn draw_footer(f: &mut Frame, v: &SessionView, area: Rect, theme: Theme) {
    let width = area.width as usize;
    let (mut lines, meta) = verdict_lines(v, width, theme);
    if let Some(line) = v.observed_line() {
        // Word by word: the first explanation is on the first line unless the
        // figures before it fill the line, and the whole of it stays.
        let style = theme.fg(Color::Red);
        let words = line
            .split(' ')
            .map(|w| piece(w, style, rank::OBSERVED))
            .collect();
        lines.extend(packed(words, " ", width, None));
    }
    // What the session really cost, as its records say (SPEC §9a, §15.22).
    if let Some(t) = &v.totals {
        // Then where the cache-write money went (SPEC §16.S): on the same
        // line where it fits, else a line that goes before the sparklines.
        let style = theme.fg(Color::Cyan);
        let bill = t
            .recorded
            .words()
            .split(" · ")
            .map(|w| piece(w, style, rank::RECORDED))
            .chain(
                t.bill
                    .cause_words(3)
                    .into_iter()
                    .flat_map(|c| c.split(" · ").map(str::to_string).collect::<Vec<_>>())
                    .map(|w| piece(w, style, rank::MORE_HINTS)),
            )
            .collect();
        lines.extend(packed(bill, " · ", width, None));
    }
    // The whole session under this setting (SPEC §9).
    let totals = totals_line(v)
        .split(" · ")
        .map(|t| piece(t, theme.fg(Color::Yellow), rank::TOTALS))
        .collect();
    lines.extend(packed(totals, " · ", width, None));
    lines.extend(meta);
    lines.extend(spark_lines(v, area.width as usize, theme));
    // Request k's window, right under the sparklines (the first line to go).
    lines.push((rank::CONTEXT, context_bar(v, width, theme)));
    let hint_style = theme.fg(Color::DarkGray);
    let hints: Vec<Piece> = match (&v.status, &v.search) {
        (Some(status), _) => status
            .split(' ')
            .map(|w| piece(w, hint_style, rank::STATUS))
            .collect(),
        (None, Some(q)) => format!("search {q:?}: n/N next/previous match, Esc clears")
            .split(' ')
            .map(|w| piece(w, hint_style, rank::HINTS))
            .collect(),
        (None, None) => keymap::hints()
            .split("  ")
            .map(|h| piece(h, hint_style, rank::HINTS))
            .collect(),
    };
    let sep = if v.status.is_none() && v.search.is_none() {
        "  "
    } else {
        " "
    };
    // A status answers the key just pressed: it stays whole (its lines rank
    // next to the verdict); the key hints' own further lines go first.
    let more = v.status.is_none().then_some(rank::MORE_HINTS);
    lines.extend(packed(hints, sep, width, more));
    // Too many lines for the rows: whole lines go, the lowest rank first (the
    // last of equals first), so no line is ever cut.
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

/// The cache verdict, whole, with the plan's metadata on its line where it
/// fits; the metadata that does not fit, on lines of its own.
type Lines = Vec<(u8, Line<'static>)>;
fn verdict_lines(v: &SessionView, width: usize, theme: Theme) -> (Lines, Lines) {
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
                crate::sanitize::joined(&cache.cache_edits_deleted, ", ")
            )
        }
        _ => "cache prefix kept".into(),
    };
    // The cache verdict comes first (SPEC §8), coloured and with a glyph that
    // carries it under NO_COLOR.
    let verdict = if cache.prefix_broken_at_message.is_some() {
        piece(
            format!("✕ {cache_text}"),
            theme.fg(theme.palette.prefix_broken),
            rank::VERDICT,
        )
    } else {
        piece(
            format!("✓ {cache_text}"),
            theme.fg(theme.palette.prefix_kept),
            rank::VERDICT,
        )
    };
    let chars = format!(
        "chars {} → {}{}",
        fmt_int(st.chars_before),
        fmt_int(st.chars_after),
        st.target_chars
            .map(|t| format!(" (target {})", fmt_int(t)))
            .unwrap_or_default(),
    );
    let cleared = format!(
        "newly cleared {} (~{} tokens saved, estimate)",
        st.newly_cleared.len(),
        fmt_int(st.tokens_saved),
    );
    let pieces = vec![
        verdict,
        piece(chars, Style::default(), rank::OTHER),
        piece(cleared, Style::default(), rank::OTHER),
    ];
    let mut lines = packed(pieces, "  ·  ", width, None);
    let at = lines
        .iter()
        .position(|(r, _)| *r != rank::VERDICT)
        .unwrap_or(lines.len());
    let mut meta = lines.split_off(at);
    // Under the totals, the metadata is a line of its own, not a continuation.
    if let Some((_, l)) = meta.first_mut()
        && l.spans.first().is_some_and(|s| s.content == "  ")
    {
        l.spans.remove(0);
    }
    (lines, meta)
}

/// The sparklines and the marks under the first, every one with its label
/// [`layout::SPARK_LABEL`] wide, so request k's cell is in the same column on
/// each (SPEC §15.22).
fn spark_lines(v: &SessionView, width: usize, theme: Theme) -> Vec<(u8, Line<'static>)> {
    let cells = width.saturating_sub(layout::SPARK_LABEL + 1);
    let s = &v.setup.session;
    let usage =
        |r: &crate::session::Request| r.response.and_then(|m| s.messages[m].usage.as_deref());
    let context: Vec<u64> = s
        .requests
        .iter()
        .map(|r| usage(r).map(crate::session::Usage::prompt).unwrap_or(0))
        .collect();
    let cache_read: Vec<u64> = s
        .requests
        .iter()
        .map(|r| usage(r).map(|u| u.cache_read_input_tokens).unwrap_or(0))
        .collect();
    // Both context lines on the recorded scale: tuning lowers the simulated one.
    let scale = context.iter().copied().max().unwrap_or(0);
    let mut out = vec![(
        rank::SPARKLINE,
        spark_line_scaled(
            "context",
            &context,
            scale,
            cells,
            v.k,
            theme.fg(Color::Blue),
            theme,
        ),
    )];
    out.push((rank::SPARKLINE, marks_line(v, cells, theme)));
    out.push((
        rank::OTHER,
        match simulated_context(v) {
            Some(sim) => spark_line_scaled(
                "sim ctx~",
                &sim,
                scale,
                cells,
                v.k,
                theme.fg(Color::Green),
                theme,
            ),
            None => Line::styled(
                format!("{:<w$}counting…", "sim ctx~", w = layout::SPARK_LABEL),
                theme.fg(Color::DarkGray),
            ),
        },
    ));
    out.push((
        rank::OTHER,
        spark_line(
            "cache rd",
            &cache_read,
            cells,
            v.k,
            theme.fg(Color::Cyan),
            theme,
        ),
    ));
    out
}

/// Whether request index `i` follows a compaction: a later view segment than
/// the request before it, or a server-side compaction in its usage.
fn compacted(s: &crate::session::Session, i: usize) -> bool {
    let r = &s.requests[i];
    s.compacted_before(i)
        || r.response
            .and_then(|m| s.messages[m].usage.as_ref())
            .is_some_and(|u| u.server_compaction)
}

/// The glyph of one column of the marks line: the first of `! ✕ ◇ ^ ▲` that
/// one of its requests holds (SPEC §15.22), or a space.
pub(super) fn column_glyph(marks: &[crate::tui::app::Mark], compaction: &[bool]) -> char {
    if marks.iter().any(|m| m.observed) {
        '!'
    } else if marks.iter().any(|m| m.broke) {
        '✕'
    } else if marks.iter().any(|m| m.evidence) {
        '◇'
    } else if compaction.iter().any(|&c| c) {
        '^'
    } else if marks.iter().any(|m| m.fired) {
        '▲'
    } else {
        ' '
    }
}

/// The `marks` line: one glyph per column (none while the marks are computed
/// in the background), the request shown highlighted.
fn marks_line(v: &SessionView, cells: usize, theme: Theme) -> Line<'static> {
    let s = &v.setup.session;
    let n = s.requests.len();
    let ready = v.marks.len() == n;
    let compaction: Vec<bool> = (0..n).map(|i| compacted(s, i)).collect();
    let mut spans = vec![Span::raw(format!(
        "{:<w$}",
        "marks",
        w = layout::SPARK_LABEL
    ))];
    // SPEC §16.S: an observed break's mark is its cause's glyph.
    let causes: Vec<(usize, char)> = v.totals.as_ref().map_or_else(Vec::new, |t| {
        t.bill
            .breaks
            .iter()
            .filter(|b| b.path == s.path.display().to_string())
            .filter_map(|b| {
                let c = crate::bill::causes::Cause::of_name(b.cause)?;
                Some((b.request?, c.glyph()))
            })
            .collect()
    });
    for b in layout::spark_columns(n, cells) {
        let mut ch = if ready {
            column_glyph(&v.marks[b.clone()], &compaction[b.clone()])
        } else {
            column_glyph(&[], &compaction[b.clone()])
        };
        if ch == '!'
            && let Some((_, g)) = causes.iter().find(|(k, _)| b.contains(&(k - 1)))
        {
            ch = *g;
        }
        let p = &theme.palette;
        let style = if b.contains(&v.k.saturating_sub(1)) {
            theme.emph(p.current)
        } else {
            match ch {
                '!' | 'T' | 'R' | '✂' | '⚙' | 'M' | '?' => {
                    theme.fg(p.observed_break).add_modifier(Modifier::BOLD)
                }
                '✕' => theme.fg(p.cache_break),
                '◇' => theme.fg(p.evidence),
                '^' => theme.fg(Color::Magenta),
                '▲' => theme.fg(p.fired),
                _ => Style::default(),
            }
        };
        spans.push(Span::styled(ch.to_string(), style));
    }
    Line::from(spans)
}

/// The simulated context of the current setting at every request (SPEC §9
/// `sim_ctx`: recorded P(k) + `recorded_cleared_tokens[k]` − `in_wire_tokens[k]`,
/// an estimate; 0 without usage); None
/// while the totals are counted.
pub fn simulated_context(v: &SessionView) -> Option<Vec<u64>> {
    let t = v.totals.as_ref()?;
    Some(
        t.series
            .iter()
            .map(|p| p.simulated().unwrap_or(0))
            .collect(),
    )
}

/// A sparkline of `values`, one column per [`layout::spark_columns`] column
/// (the max of its requests), on its own scale.
pub(super) fn spark_line(
    label: &str,
    values: &[u64],
    cells: usize,
    k: usize,
    style: Style,
    theme: Theme,
) -> Line<'static> {
    let max = values.iter().copied().max().unwrap_or(0);
    spark_line_scaled(label, values, max, cells, k, style, theme)
}

/// [`spark_line`] with the full bar at `max` (so two lines share a scale).
pub(super) fn spark_line_scaled(
    label: &str,
    values: &[u64],
    max: u64,
    cells: usize,
    k: usize,
    style: Style,
    theme: Theme,
) -> Line<'static> {
    const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    let max = max.max(1);
    let mut spans = vec![Span::raw(format!("{label:<w$}", w = layout::SPARK_LABEL))];
    for b in layout::spark_columns(values.len(), cells) {
        let v = values[b.clone()].iter().copied().max().unwrap_or(0);
        let ch = if v == 0 {
            ' '
        } else {
            BARS[((v.min(max) * 7) / max) as usize]
        };
        let here = b.contains(&(k.saturating_sub(1)));
        spans.push(Span::styled(
            ch.to_string(),
            if here {
                theme.emph(theme.palette.current)
            } else {
                style
            },
        ));
    }
    Line::from(spans)
}

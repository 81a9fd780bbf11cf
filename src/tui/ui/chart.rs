//! The chart view (`C`): recorded vs simulated context tokens per request, for
//! the current setting and the recommended one, with where each fired and
//! where its simulated cache prefix broke.

use super::*;
use crate::series::Point;
use ratatui::symbols::Marker;
use ratatui::widgets::{Axis, Chart, Dataset, GraphType, LegendPosition};

/// The (request, tokens) pairs of a series: `value` of each point that has one.
fn pairs(points: &[Point], value: impl Fn(&Point) -> Option<u64>) -> Vec<(f64, f64)> {
    points
        .iter()
        .filter_map(|p| value(p).map(|v| (p.k as f64, v as f64)))
        .collect()
}

/// The width of the y labels and of the strips' names.
const LABEL: usize = 11;

/// A strip of `width` columns under the chart's x axis (request 1 at the first
/// column, the last at the last): ▲ where the plan fired, ✕ where the simulated
/// cache prefix broke (✕ wins where both fall in one column).
pub fn strip(points: &[Point], width: usize) -> String {
    let mut cols = vec![' '; width];
    let n = points.len();
    if width == 0 || n == 0 {
        return String::new();
    }
    for (i, p) in points.iter().enumerate() {
        let c = if n == 1 {
            0
        } else {
            (i * (width - 1) + (n - 1) / 2) / (n - 1)
        };
        if p.broke {
            cols[c] = '✕';
        } else if p.fired && cols[c] != '✕' {
            cols[c] = '▲';
        }
    }
    cols.into_iter().collect()
}

/// What the chart shows of the recommended setting: its words and points.
pub fn recommended(v: &SessionView) -> Option<(String, &[Point])> {
    let c = v.compare.computed()?;
    let i = c.comparison.recommended?;
    let r = &c.comparison.rows[i];
    Some((
        format!("{} {}", r.params.preset.name(), r.params.words()),
        c.recommended.as_deref()?,
    ))
}

pub(super) fn draw_chart(f: &mut Frame, v: &SessionView, area: Rect, theme: Theme) {
    let r = Rect {
        x: area.x + 1,
        y: area.y + 1,
        width: area.width.saturating_sub(2),
        height: area.height.saturating_sub(2),
    };
    f.render_widget(Clear, r);
    let block = Block::default().borders(Borders::ALL).title(
        " context tokens per request: recorded vs simulated (~ estimate) — C/Esc close, c compare ",
    );
    let inner = block.inner(r);
    f.render_widget(block, r);
    let [head, plot, marks] = Layout::vertical([
        Constraint::Length(2),
        Constraint::Min(6),
        Constraint::Length(3),
    ])
    .areas(inner);
    let s = &v.setup.session;
    let n = s.requests.len();
    let recorded: Vec<(f64, f64)> = (1..=n)
        .filter_map(|k| s.recorded_prompt(k).map(|p| (k as f64, p as f64)))
        .collect();
    let current: Option<&[Point]> = v.totals.as_ref().map(|t| t.series.as_slice());
    let rec = recommended(v);
    draw_chart_head(f, v, current.is_some(), rec.as_ref(), head, theme);
    let sim_current = current.map_or_else(Vec::new, |c| pairs(c, Point::simulated));
    let sim_rec = rec
        .as_ref()
        .map_or_else(Vec::new, |(_, c)| pairs(c, Point::simulated));
    let at = |pts: Option<&[Point]>, pick: fn(&Point) -> bool| -> Vec<(f64, f64)> {
        pts.map_or_else(Vec::new, |c| {
            pairs(c, |p| if pick(p) { p.simulated() } else { None })
        })
    };
    let fired_current = at(current, |p| p.fired);
    let broke_current = at(current, |p| p.broke);
    let rec_points = rec.as_ref().map(|(_, c)| *c);
    let fired_rec = at(rec_points, |p| p.fired);
    let broke_rec = at(rec_points, |p| p.broke);
    let mut datasets = vec![
        Dataset::default()
            .name("recorded P(k)")
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(theme.fg(Color::Blue))
            .data(&recorded),
    ];
    if current.is_some() {
        datasets.push(
            Dataset::default()
                .name("simulated, current ~")
                .marker(Marker::Braille)
                .graph_type(GraphType::Line)
                .style(theme.fg(Color::Green))
                .data(&sim_current),
        );
    }
    if rec.is_some() {
        datasets.push(
            Dataset::default()
                .name("simulated, recommended ~")
                .marker(Marker::Braille)
                .graph_type(GraphType::Line)
                .style(theme.fg(Color::Magenta))
                .data(&sim_rec),
        );
    }
    // The marks on the lines, unnamed: the strips below the chart name them.
    for (data, marker, color) in [
        (&fired_current, Marker::Dot, Color::Yellow),
        (&broke_current, Marker::Block, Color::Red),
        (&fired_rec, Marker::Dot, Color::Cyan),
        (&broke_rec, Marker::Block, Color::LightRed),
    ] {
        if !data.is_empty() {
            datasets.push(
                Dataset::default()
                    .marker(marker)
                    .graph_type(GraphType::Scatter)
                    .style(theme.fg(color))
                    .data(data),
            );
        }
    }
    // The y axis spans the values drawn (not from 0): what a setting takes
    // away is a few percent of a prompt, and must show.
    let values = recorded
        .iter()
        .chain(&sim_current)
        .chain(&sim_rec)
        .map(|p| p.1);
    let ymax = values.clone().fold(0.0f64, f64::max).max(1.0);
    let ymin = values.fold(ymax, f64::min);
    let pad = ((ymax - ymin) * 0.05).max(1.0);
    let (ylo, yhi) = ((ymin - pad).max(0.0), ymax + pad);
    let xmax = (n as f64).max(2.0);
    // Y labels as wide as the strips' names, so the strips line up with the x axis.
    let label = |x: f64| Span::raw(format!("{:>LABEL$}", fmt_int(x.max(0.0) as u64)));
    let chart = Chart::new(datasets)
        .x_axis(
            Axis::default()
                .title("request")
                .bounds([1.0, xmax])
                .labels(vec![
                    Span::raw("1"),
                    Span::raw(format!("{}", n.div_ceil(2).max(1))),
                    Span::raw(format!("{n}")),
                ]),
        )
        .y_axis(
            Axis::default()
                .title("tokens")
                .bounds([ylo, yhi])
                .labels(vec![label(ylo), label((ylo + yhi) / 2.0), label(yhi)]),
        )
        .legend_position(Some(LegendPosition::BottomRight))
        .hidden_legend_constraints((Constraint::Ratio(1, 1), Constraint::Ratio(1, 1)));
    f.render_widget(chart, plot);
    draw_strips(f, marks, current, rec_points, theme);
}

/// The two lines over the chart: the current setting and the recommended one.
fn draw_chart_head(
    f: &mut Frame,
    v: &SessionView,
    counted: bool,
    rec: Option<&(String, &[Point])>,
    head: Rect,
    theme: Theme,
) {
    let p = v.policy();
    let current_words = format!(
        "{} keep {} gap {}m size {} trigger {} {}",
        p.kind.name(),
        v.keep_in_force(),
        fmt_num(p.gap_threshold_minutes),
        p.size_threshold,
        p.trigger_threshold,
        p.delivery.name()
    );
    let rec_words = match (rec, v.compare.progress()) {
        (Some((w, _)), _) => w.clone(),
        (None, Some((done, total))) => {
            format!("computing the comparison: {done}/{total} settings…")
        }
        (None, None) => "none (no setting ran)".into(),
    };
    f.render_widget(
        Paragraph::new(vec![
            Line::styled(
                format!(
                    "current: {current_words}{}",
                    if !counted { " (counting…)" } else { "" }
                ),
                theme.fg(Color::Green),
            ),
            Line::styled(
                format!("recommended: {rec_words}"),
                theme.fg(Color::Magenta),
            ),
        ]),
        head,
    );
}

/// The strips under the chart: where each setting fired and broke the cache.
fn draw_strips(
    f: &mut Frame,
    marks: Rect,
    current: Option<&[Point]>,
    rec_points: Option<&[Point]>,
    theme: Theme,
) {
    // The graph starts after the labels and the axis line.
    let width = marks.width.saturating_sub(LABEL as u16 + 1) as usize;
    let strip = |pts: Option<&[Point]>| match pts {
        Some(p) => strip(p, width),
        None => "…".into(),
    };
    f.render_widget(
        Paragraph::new(vec![
            Line::from(format!("{:<LABEL$} {}", "current", strip(current))),
            Line::from(format!("{:<LABEL$} {}", "recommended", strip(rec_points))),
            Line::styled(
                "▲ • the plan fired  ✕ █ the simulated cache prefix broke; simulated = recorded P(k) + the harness's own clearing − the setting's (an estimate)",
                theme.fg(Color::DarkGray),
            ),
        ]),
        marks,
    );
}

//! The header: session, request, gap and send kind, policy with the source of each value, notes and caveats.

use super::*;

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
            Span::styled(format!("{text}*"), theme.emph(theme.palette.changed))
        } else if !source.is_empty() {
            Span::styled(format!("{text}{source}"), theme.emph(theme.palette.changed))
        } else {
            Span::raw(text)
        }
    };
    let name = s
        .path
        .file_name()
        .map(|n| crate::sanitize::line(&n.to_string_lossy()).into_owned())
        .unwrap_or_default();
    let req = &v.plan.request;
    // What a narrow screen must keep comes first: request, gap and turn kind.
    let mut line1 = vec![
        Span::styled(name, Style::default().add_modifier(Modifier::BOLD)),
        Span::raw(format!(
            "  request {}/{}  {}  {}  {}",
            v.k,
            s.requests.len(),
            crate::numbers::gap_words(req.gap_minutes),
            match &req.send {
                // A Qwen request: its send kind (its words are a note below).
                Some(send) => send.kind.name(),
                None if req.begins_turn => "new turn",
                None => "tool loop",
            },
            req.at.as_deref().map_or("-".into(), crate::zone::local),
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
    let mut line2 = if p.kind == PlanKind::Api {
        api_line(p, &mark)
    } else {
        vec![
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
        ]
    };
    if v.plan.step.kind == Some(PlanKind::Budget) {
        line2.push(Span::raw(format!(
            "  budget {} (min {}, gate {})",
            fmt_int(p.budget_tokens),
            fmt_int(p.budget_min_saving),
            fmt_int(p.budget_warning_at(&v.plan.request))
        )));
    }
    let mut lines = vec![Line::from(line1), Line::from(line2)];
    for note in v.header_note_lines(area.width) {
        lines.push(Line::styled(note, theme.fg(Color::Magenta)));
    }
    f.render_widget(Paragraph::new(lines), area);
}

/// The api preset's plan line (SPEC §11): each edit in short, `keep` marked
/// where it came from (the `+`/`-` keys tune the first clear_tool_uses edit's).
fn api_line<'a>(
    p: &crate::policy::Policy,
    mark: &dyn Fn(&'static str, String) -> Span<'a>,
) -> Vec<Span<'a>> {
    use crate::policy::api::{Edit, TriggerOn};
    let mut out = vec![
        Span::raw("plan "),
        mark("kind", "api".into()),
        Span::raw(" (api)"),
    ];
    for e in &p.api.edits {
        match e {
            Edit::ClearToolUses {
                trigger,
                keep,
                clear_at_least,
                exclude_tools,
                ..
            } => {
                let trigger = match trigger {
                    TriggerOn::InputTokens(v) => format!("> {} tok", fmt_int(*v)),
                    TriggerOn::ToolUses(v) => format!("> {v} uses"),
                };
                out.push(Span::raw(format!("  clear_tool_uses {trigger}  keep ")));
                out.push(mark("api_edits", keep.to_string()));
                if let Some(least) = clear_at_least {
                    out.push(Span::raw(format!("  at least {}", fmt_int(*least))));
                }
                if !exclude_tools.is_empty() {
                    out.push(Span::raw(format!("  exclude {}", exclude_tools.join(","))));
                }
            }
            Edit::ClearThinking { keep } => out.push(Span::raw(match keep {
                Some(k) => format!("  clear_thinking keep {k}"),
                None => "  clear_thinking keep all".into(),
            })),
        }
    }
    out.push(Span::raw("  "));
    out.push(mark("delivery", p.delivery.name().into()));
    out
}

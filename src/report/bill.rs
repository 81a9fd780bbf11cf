//! `mcscope bill`'s text (SPEC §16.R): a session's causes with their breaks,
//! or one line per day (month, project, block) with the causes' shares, a
//! total, where the money went and the levers. Colour marks the causes.

use crate::bill::causes::{Cause, Level};
use crate::bill::report::{Bill, By, Row, caveat_words, lever_words};
use crate::numbers::fmt_int;
use std::fmt::Write as _;

/// ANSI colour of a cause where colour is on.
fn paint(c: Cause, text: &str, color: bool) -> String {
    if !color {
        return text.to_string();
    }
    let code = match c {
        Cause::Growth | Cause::Drift => "2",
        Cause::First | Cause::Subagent => "36",
        Cause::Ttl => "33",
        Cause::Unexplained => "31",
        Cause::Clearing => "35",
        Cause::Compaction => "34",
        Cause::Resume | Cause::ModelSwitch | Cause::ToolsChanged => "93",
    };
    format!("\x1b[{code}m{text}\x1b[0m")
}

/// A transcript's string (a label, a model, a version) made safe for a
/// terminal: the text is not sanitized as a whole, so that its colour stays.
fn clean(s: &str) -> String {
    crate::sanitize::line(s).into_owned()
}

fn dollars(x: Option<f64>) -> String {
    x.map_or("$?".into(), |x| format!("${x:.2}"))
}

/// `N break(s) (req a, b (W < D)…)` and what decided them.
fn break_words(row: &Row, c: Cause) -> String {
    let breaks: Vec<_> = row.breaks.iter().filter(|b| b.cause == c.name()).collect();
    if breaks.is_empty() {
        return String::new();
    }
    let reqs: Vec<String> = breaks
        .iter()
        .map(|b| {
            let k = b.request.map_or("?".into(), |k| k.to_string());
            // §18.24: a break whose writes are smaller than its drop.
            if b.rewritten < b.drop {
                return format!("{k} (W < D)");
            }
            k
        })
        .collect();
    let n = breaks.len();
    let mut out = format!(
        "{n} break{} (req {}",
        if n == 1 { "" } else { "s" },
        reqs.join(", ")
    );
    if c == Cause::Clearing {
        let marks: Vec<String> = breaks
            .iter()
            .filter_map(|b| {
                b.marker.map(|(what, line)| match line {
                    // A database row has no line.
                    0 => what.to_string(),
                    l => format!("{what} line {l}"),
                })
            })
            .collect();
        if !marks.is_empty() {
            let _ = write!(out, ", {}", marks.join(", "));
        }
    }
    out.push(')');
    if c == Cause::Unexplained {
        let level = |l: &str| breaks.iter().filter(|b| b.level == Some(l)).count();
        let floor = level(Level::Floor.name());
        let zero = level(Level::Zero.name());
        if floor == n {
            let r = breaks.iter().map(|b| b.observed).min().unwrap_or(0);
            let _ = write!(out, ", fell to the {}-token floor", fmt_int(r));
        } else if zero == n {
            out.push_str(", read nothing from the cache");
        } else {
            let _ = write!(
                out,
                ": {floor} to the tools + system floor, {zero} read nothing, {} partly",
                n - floor - zero
            );
        }
    }
    out
}

/// The text of `bill`.
pub fn bill_text(bill: &Bill, breakdown: bool, color: bool) -> String {
    let mut out = String::new();
    if bill.rows.is_empty() {
        return out;
    }
    match bill.by {
        By::Session => {
            for (i, row) in bill.rows.iter().enumerate() {
                if i > 0 {
                    out.push('\n');
                }
                session_block(&mut out, row, breakdown, color);
            }
            if bill.rows.len() > 1 {
                out.push('\n');
                total_lines(&mut out, &bill.totals, color);
            }
        }
        _ => table(&mut out, bill, breakdown, color),
    }
    for c in &bill.caveats {
        let _ = writeln!(out, "note: {}", caveat_words(c));
    }
    out
}

/// One session's block (SPEC §16.R's text).
fn session_block(out: &mut String, row: &Row, breakdown: bool, color: bool) {
    let when = row
        .first_at
        .map(|t| {
            t.to_zoned_datetime(crate::zone::display())
                .strftime("%Y-%m-%d %H:%M %Z")
                .to_string()
        })
        .unwrap_or_else(|| "no time recorded".into());
    // The model without its date (`claude-opus-4-5-20251101` reads
    // `claude-opus-4-5`).
    let mut models: Vec<&str> = row
        .models
        .values()
        .map(|m| match m.model.rsplit_once('-') {
            Some((head, date)) if date.len() == 8 && date.bytes().all(|b| b.is_ascii_digit()) => {
                head
            }
            _ => m.model.as_str(),
        })
        .collect();
    models.dedup();
    let models: Vec<String> = models.iter().map(|m| clean(m)).collect();
    let versions: Vec<String> = row.versions().map(clean).collect();
    let mut head = format!(
        "session {} ({}, {} response{}, {}",
        row.label
            .split_once(' ')
            .map_or(row.label.as_str(), |x| x.0),
        when,
        row.tally.responses,
        if row.tally.responses == 1 { "" } else { "s" },
        models.join(", ")
    );
    let project = clean(row.label.split_once(' ').map_or("", |x| x.1));
    if !project.is_empty() {
        head = head.replacen(" (", &format!(" ({project}, "), 1);
    }
    match (versions.first(), versions.last()) {
        (Some(a), Some(b)) if a == b => {
            let _ = write!(head, ", Claude Code {a}");
        }
        (Some(a), Some(b)) => {
            let _ = write!(head, ", Claude Code {a}–{b}");
        }
        _ => {
            let names: Vec<&str> = row.harnesses().iter().map(|h| h.rules().title).collect();
            if !names.is_empty() {
                let _ = write!(head, ", {}", names.join(", "));
            }
        }
    }
    head.push(')');
    let _ = writeln!(out, "{head}");
    total_lines(out, row, color);
    if breakdown {
        models_lines(out, row);
    }
}

/// The recorded line, the causes and the levers of a row.
fn total_lines(out: &mut String, row: &Row, color: bool) {
    let w = row.cache_write();
    let rate = row
        .hit_rate()
        .map_or("?".into(), |r| format!("{:.1} %", r * 100.0));
    let mut line = format!(
        "recorded: {} · hit rate {rate} · cache writes {} tokens = {}",
        dollars(row.usd),
        fmt_int(w),
        dollars(row.cache_write_usd())
    );
    if row.tally.cache_write_1h > 0 {
        let _ = write!(line, " (1h: {})", fmt_int(row.tally.cache_write_1h));
    }
    let _ = writeln!(out, "{line}");
    unpriced_line(out, row);
    let causes = row.causes_by_size();
    let usd_w = causes
        .iter()
        .map(|c| dollars(c.2).chars().count())
        .max()
        .unwrap_or(0);
    for (c, tokens, usd) in causes {
        let num = fmt_int(tokens);
        let name_w = 21usize.saturating_sub(num.len()).max(c.name().len() + 1);
        let name = paint(c, &format!("{:<name_w$}", c.name()), color);
        let mut l = format!(
            "  {name}{num}  {:>usd_w$}  {:>4.1} %",
            dollars(usd),
            row.share(tokens, usd) * 100.0
        );
        let words = break_words(row, c);
        if !words.is_empty() {
            let _ = write!(l, "   {words}");
        }
        let _ = writeln!(out, "{l}");
    }
    let levers = lever_words(row);
    if levers.is_empty() {
        let _ = writeln!(out, "levers: none in this transcript");
    } else {
        let _ = writeln!(out, "levers: {}", levers.join("; "));
    }
}

fn unpriced_line(out: &mut String, row: &Row) {
    let u = row.unpriced();
    if u.responses > 0 {
        let _ = writeln!(
            out,
            "{} response{} of {} unpriced (give --price-* or a [prices] row)",
            u.responses,
            if u.responses == 1 { "" } else { "s" },
            crate::sanitize::joined(&u.models, ", ")
        );
    }
}

fn models_lines(out: &mut String, row: &Row) {
    for m in row.models.values() {
        let _ = writeln!(
            out,
            "    {}: {} responses, input {}, output {}, write 5m {}, write 1h {}, read {}, {}",
            clean(&m.model),
            m.tally.responses,
            fmt_int(m.tally.input),
            fmt_int(m.tally.output),
            fmt_int(m.tally.cache_write_5m),
            fmt_int(m.tally.cache_write_1h),
            fmt_int(m.tally.cache_read),
            dollars(m.usd)
        );
    }
}

/// `--by day|month|project|block`: one line per row, a total, where the
/// money went and the levers.
fn table(out: &mut String, bill: &Bill, breakdown: bool, color: bool) {
    let labels: Vec<String> = bill.rows.iter().map(|r| clean(&r.label)).collect();
    let key_w = labels
        .iter()
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(5)
        .max(5);
    let head = [
        "resp", "input", "output", "write 5m", "write 1h", "read", "cost", "writes", "growth",
        "ttl", "unexpl.", "rest",
    ];
    let widths = [6, 11, 11, 12, 12, 14, 10, 10, 7, 6, 8, 6];
    let mut h = format!("{:<key_w$}", bill.by.name());
    for (t, w) in head.iter().zip(widths) {
        let _ = write!(h, " {t:>w$}");
    }
    let _ = writeln!(out, "{h}");
    let line = |out: &mut String, label: &str, r: &Row| {
        let pct = |c: &[Cause]| {
            let t: f64 = c
                .iter()
                .filter_map(|c| r.causes.get(c))
                .map(|s| r.share(s.tokens_5m.saturating_add(s.tokens_1h), s.usd))
                .sum();
            format!("{:.0} %", t * 100.0)
        };
        let rest: Vec<Cause> = Cause::ALL
            .iter()
            .copied()
            .filter(|c| !matches!(c, Cause::Growth | Cause::Ttl | Cause::Unexplained))
            .collect();
        let cells = [
            r.tally.responses.to_string(),
            fmt_int(r.tally.input),
            fmt_int(r.tally.output),
            fmt_int(r.tally.cache_write_5m),
            fmt_int(r.tally.cache_write_1h),
            fmt_int(r.tally.cache_read),
            dollars(r.usd),
            dollars(r.cache_write_usd()),
            pct(&[Cause::Growth]),
            pct(&[Cause::Ttl]),
            pct(&[Cause::Unexplained]),
            pct(&rest),
        ];
        let mut l = format!("{label:<key_w$}");
        for (c, w) in cells.iter().zip(widths) {
            let _ = write!(l, " {c:>w$}");
        }
        let _ = writeln!(out, "{}", l.trim_end());
    };
    for (r, label) in bill.rows.iter().zip(&labels) {
        line(out, label, r);
        if breakdown {
            models_lines(out, r);
        }
    }
    line(out, "total", &bill.totals);
    unpriced_line(out, &bill.totals);
    let t = &bill.totals;
    let went: Vec<String> = t
        .causes_by_size()
        .into_iter()
        .map(|(c, tokens, usd)| {
            let word = paint(c, c.name(), color);
            format!(
                "{word} {:.0} % ({})",
                t.share(tokens, usd) * 100.0,
                dollars(usd)
            )
        })
        .collect();
    if !went.is_empty() {
        let _ = writeln!(out, "where the cache-write money went: {}", went.join(", "));
    }
    let levers = lever_words(t);
    let avoidable = t.levers().avoidable();
    match (levers.is_empty(), avoidable) {
        (false, Some(a)) => {
            let _ = writeln!(out, "avoidable ≈ ${a:.2}: {}", levers.join("; "));
        }
        _ => {
            let _ = writeln!(out, "levers: none in these transcripts");
        }
    }
}

//! The live line in words, and its JSON (SPEC §12, §15.18).

use super::fold::Answer;
use serde::Serialize;

/// `ctx 143k/200k · hit 97% · 2 compactions · 1 microcompact · last break 12m ago (ttl)`.
pub(crate) fn line(a: &Answer, window: Option<u64>, now_ms: i64) -> String {
    let ctx = a.ctx_tokens.map_or("?".to_string(), short);
    let ctx = match window {
        Some(w) => format!("ctx {ctx}/{}", short(w)),
        None => format!("ctx {ctx}"),
    };
    let hit = a
        .hit_rate
        .map_or("hit ?".to_string(), |h| format!("hit {:.0}%", h * 100.0));
    let compactions = counted(a.compactions, "compaction");
    let clearings = counted(a.recorded_clearings, "microcompact");
    let last = match &a.last_break {
        None => "no break".to_string(),
        Some(b) => match minutes_ago(b.at_ms, now_ms) {
            Some(m) => format!("last break {} ago ({})", ago(m), b.explanation),
            None => format!("last break ({})", b.explanation),
        },
    };
    let text = [ctx, hit, compactions, clearings, last].join(" · ");
    format!("{}\n", crate::sanitize::line(&text))
}

/// The §15.18 object.
pub(crate) fn json(a: &Answer, window: Option<u64>, now_ms: i64) -> String {
    #[derive(Serialize)]
    struct LastBreak<'a> {
        at: Option<&'a str>,
        minutes_ago: Option<i64>,
        explanation: &'a str,
    }
    #[derive(Serialize)]
    struct Json<'a> {
        ctx_tokens: Option<u64>,
        window_tokens: Option<u64>,
        hit_rate: Option<f64>,
        compactions: u64,
        recorded_clearings: u64,
        last_break: Option<LastBreak<'a>>,
    }
    let out = Json {
        ctx_tokens: a.ctx_tokens,
        window_tokens: window,
        hit_rate: a.hit_rate,
        compactions: a.compactions,
        recorded_clearings: a.recorded_clearings,
        last_break: a.last_break.as_ref().map(|b| LastBreak {
            at: b.at.as_deref(),
            minutes_ago: minutes_ago(b.at_ms, now_ms),
            explanation: &b.explanation,
        }),
    };
    let mut s = crate::sanitize::json_pretty(&out);
    s.push('\n');
    s
}

/// Whole minutes from `at` to now (0 for a time in the future).
fn minutes_ago(at_ms: Option<i64>, now_ms: i64) -> Option<i64> {
    at_ms.map(|at| (now_ms.saturating_sub(at) / 60_000).max(0))
}

fn ago(minutes: i64) -> String {
    match minutes {
        m if m < 60 => format!("{m}m"),
        m if m < 24 * 60 => format!("{}h{:02}m", m / 60, m % 60),
        m => format!("{}d", m / (24 * 60)),
    }
}

fn counted(n: u64, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// Tokens in a few characters: 950, 143k, 1M, 1.2M.
fn short(n: u64) -> String {
    let k = (n as f64 / 1000.0).round();
    if n < 1000 {
        n.to_string()
    } else if k < 1000.0 {
        format!("{k:.0}k")
    } else {
        let m = format!("{:.1}", n as f64 / 1_000_000.0);
        format!("{}M", m.strip_suffix(".0").unwrap_or(&m))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_and_minutes_read_short() {
        assert_eq!(short(950), "950");
        assert_eq!(short(143_456), "143k");
        assert_eq!(short(200_000), "200k");
        assert_eq!(short(1_000_000), "1M");
        assert_eq!(short(1_240_000), "1.2M");
        assert_eq!(ago(12), "12m");
        assert_eq!(ago(125), "2h05m");
        assert_eq!(ago(3 * 24 * 60 + 5), "3d");
    }
}

//! The live line in words, and its JSON (SPEC §12, §15.18).

use super::fold::Answer;
use serde::Serialize;

/// What the session's cache writes cost, and what the next prompt will
/// (SPEC §16.S): the write cost of each cause, the last break's, the TTL left.
pub(crate) struct Cost {
    /// Σ over priced responses; None when none is priced.
    pub session_write_usd: Option<f64>,
    /// Every cause of §16.B4 in order, with its write cost.
    pub causes: Vec<(&'static str, Option<f64>)>,
    /// The last observed break's cause word and the write cost of what it
    /// re-wrote.
    pub last_break: Option<(String, Option<f64>)>,
    /// Seconds before the TTL of the last write runs out (negative: past).
    pub ttl_left_s: Option<i64>,
    /// What the next prompt re-writes once the cache is cold, and its cost.
    pub next_rewrite: Option<(u64, Option<f64>)>,
}

impl Cost {
    pub(crate) fn of(
        a: &Answer,
        price: &dyn Fn(Option<&str>) -> Option<crate::prices::Price>,
        now_ms: i64,
    ) -> Cost {
        let usd = |model: &Option<String>, t5: u64, t1: u64| {
            price(model.as_deref()).map(|p| (t5 as f64 * p.write_5m + t1 as f64 * p.write_1h) / 1e6)
        };
        let mut total: Option<f64> = None;
        let causes = crate::bill::causes::Cause::ALL
            .iter()
            .map(|c| {
                let mut sum = Some(0.0);
                for w in a.writes.iter().filter(|w| w.cause == c.name()) {
                    let x = usd(&w.model, w.tokens_5m, w.tokens_1h);
                    if let Some(x) = x {
                        total = Some(total.unwrap_or(0.0) + x);
                    }
                    sum = match (sum, x) {
                        (Some(s), Some(x)) => Some(s + x),
                        _ => None,
                    };
                }
                (c.name(), sum)
            })
            .collect();
        let last_break = a
            .last_break
            .as_ref()
            .map(|b| (b.cause.clone(), usd(&b.model, b.tokens_5m, b.tokens_1h)));
        let cold = a.cold.as_ref();
        let ttl_left_s = cold.and_then(|c| {
            let ttl_ms = if c.one_hour { 3_600_000 } else { 300_000 };
            c.sent_ms.map(|s| (s + ttl_ms - now_ms) / 1000)
        });
        let next_rewrite = cold.map(|c| {
            let rate =
                price(c.model.as_deref()).map(|p| if c.one_hour { p.write_1h } else { p.write_5m });
            (c.next_tokens, rate.map(|r| c.next_tokens as f64 * r / 1e6))
        });
        Cost {
            session_write_usd: total,
            causes,
            last_break,
            ttl_left_s,
            next_rewrite,
        }
    }

    /// The line's cost words, in order, only those that apply (§16.S).
    fn words(&self, a: &Answer) -> Vec<String> {
        let mut out = Vec::new();
        if a.break_is_latest
            && let Some((cause, usd)) = &self.last_break
        {
            let d = usd.map_or("$?".to_string(), |x| format!("${x:.2}"));
            out.push(format!("⟳ {d} {cause}"));
        }
        match (self.ttl_left_s, self.next_rewrite) {
            (Some(s), _) if s > 0 => out.push(format!("cold in {}m", (s + 59) / 60)),
            (Some(_), Some((tokens, usd))) => {
                let d = usd.map_or("$?".to_string(), |x| format!("${x:.2}"));
                out.push(format!(
                    "cold · next prompt re-writes {} ≈ {d}",
                    short(tokens)
                ));
            }
            _ => {}
        }
        out
    }
}

/// `ctx 143k/200k · hit 97% · 2 compactions · 1 microcompact · ⟳ $0.63 ttl ·
/// cold in 3m · last break 12m ago (ttl)`, kept within 80 columns (§18.11).
pub(crate) fn line(a: &Answer, cost: &Cost, window: Option<u64>, now_ms: i64) -> String {
    let ctx = a.ctx_tokens.map_or("?".to_string(), short);
    // Never a fill above its window.
    let ctx = match window {
        Some(w) if a.ctx_tokens.is_none_or(|c| c <= w) => format!("ctx {ctx}/{}", short(w)),
        _ => format!("ctx {ctx}"),
    };
    let hit = a
        .hit_rate
        .map_or("hit ?".to_string(), |h| format!("hit {:.0}%", h * 100.0));
    let costs = cost.words(a);
    let minutes = a.last_break.as_ref().map(|b| minutes_ago(b.at_ms, now_ms));
    let last = |short_form: bool| match &a.last_break {
        None => "no break".to_string(),
        Some(b) => {
            let why = if short_form {
                abbreviated(&b.explanation)
            } else {
                b.explanation.clone()
            };
            match (minutes.flatten(), short_form) {
                (Some(m), false) => format!("last break {} ago ({why})", ago(m)),
                (Some(m), true) => format!("break {} ({why})", ago(m)),
                (None, false) => format!("last break ({why})"),
                (None, true) => format!("break ({why})"),
            }
        }
    };
    // §18.11: drop, in order, zero counts, the word microcompacts, the hit
    // rate; then the break clause's short form.
    let mut compactions = Some(counted(a.compactions, "compaction"));
    let mut clearings = Some(counted(a.recorded_clearings, "microcompact"));
    let mut hit = Some(hit);
    let mut short_break = false;
    let mut no_break = false;
    let build = |c: &Option<String>, m: &Option<String>, h: &Option<String>, sb: bool, nb: bool| {
        let mut parts = vec![ctx.clone()];
        parts.extend(h.iter().cloned());
        parts.extend(c.iter().cloned());
        parts.extend(m.iter().cloned());
        parts.extend(costs.iter().cloned());
        if !nb {
            parts.push(last(sb));
        }
        parts.join(" · ")
    };
    let fits = |t: &str| t.chars().count() <= 80;
    let mut text = build(&compactions, &clearings, &hit, short_break, no_break);
    for step in 0..5 {
        if fits(&text) {
            break;
        }
        match step {
            0 => {
                if a.compactions == 0 {
                    compactions = None;
                }
                if a.recorded_clearings == 0 {
                    clearings = None;
                }
            }
            1 => {
                if a.recorded_clearings > 0 {
                    clearings = Some(a.recorded_clearings.to_string());
                }
            }
            2 => hit = None,
            3 => short_break = true,
            // The last break is the latest response's: `⟳` already says it.
            _ => no_break = a.break_is_latest && cost.last_break.is_some(),
        }
        text = build(&compactions, &clearings, &hit, short_break, no_break);
    }
    format!("{}\n", crate::sanitize::line(&text))
}

/// A long explanation cut to its first six letters (`unexplained` → `unexpl.`).
fn abbreviated(w: &str) -> String {
    if w.chars().count() > 8 {
        format!("{}.", w.chars().take(6).collect::<String>())
    } else {
        w.to_string()
    }
}

/// The §15.18 object, with §16.S's `cost`.
pub(crate) fn json(a: &Answer, cost: &Cost, window: Option<u64>, now_ms: i64) -> String {
    #[derive(Serialize)]
    struct LastBreak<'a> {
        at: Option<&'a str>,
        minutes_ago: Option<i64>,
        explanation: &'a str,
    }
    #[derive(Serialize)]
    struct CostBreak<'a> {
        cause: &'a str,
        usd: Option<f64>,
    }
    #[derive(Serialize)]
    struct CostJson<'a> {
        session_write_usd: Option<f64>,
        causes: serde_json::Map<String, serde_json::Value>,
        last_break: Option<CostBreak<'a>>,
        ttl_left_s: Option<i64>,
    }
    #[derive(Serialize)]
    struct Json<'a> {
        ctx_tokens: Option<u64>,
        window_tokens: Option<u64>,
        hit_rate: Option<f64>,
        compactions: u64,
        recorded_clearings: u64,
        last_break: Option<LastBreak<'a>>,
        cost: CostJson<'a>,
    }
    let r = |x: Option<f64>| crate::prices::usd_rounded(x);
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
        cost: CostJson {
            session_write_usd: r(cost.session_write_usd),
            causes: cost
                .causes
                .iter()
                .map(|(c, u)| (c.to_string(), serde_json::json!(r(*u))))
                .collect(),
            last_break: cost.last_break.as_ref().map(|(c, u)| CostBreak {
                cause: c,
                usd: r(*u),
            }),
            ttl_left_s: cost.ttl_left_s.map(|s| s.max(0)),
        },
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

    /// The README's example line, as §18.11 shortens it: 103 columns whole;
    /// the zero count goes (87), then the word microcompacts (74).
    #[test]
    fn the_readme_s_line_within_80_columns() {
        let now = 1_780_000_000_000;
        let a = Answer {
            ctx_tokens: Some(93_000),
            hit_rate: Some(0.8),
            compactions: 0,
            recorded_clearings: 1,
            last_break: Some(super::super::fold::Break {
                at: None,
                at_ms: Some(now - 46 * 60_000),
                explanation: "cache_edits".into(),
                cause: "clearing".into(),
                model: None,
                tokens_5m: 0,
                tokens_1h: 0,
            }),
            writes: Vec::new(),
            break_is_latest: false,
            max_prompt: 93_000,
            cold: Some(super::super::fold::Cold {
                sent_ms: Some(now - 60_000 - 30_000),
                one_hour: false,
                next_tokens: 93_000,
                model: None,
            }),
        };
        let cost = Cost::of(&a, &|_| None, now);
        assert_eq!(
            line(&a, &cost, Some(200_000), now),
            "ctx 93k/200k · hit 80% · 1 · cold in 4m · last break 46m ago (cache_edits)\n"
        );
    }

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

//! Numbers in words: gaps, decimals and thousands as the reports and the TUI
//! print them (a leaf: the engine records numbers, the edges write them).

/// `gap 12.5 min`, or `no gap` where the request has none (the first request,
/// or a body without timestamps).
pub fn gap_words(g: Option<f64>) -> String {
    g.map_or_else(|| "no gap".into(), |g| format!("gap {} min", fmt_num(g)))
}

pub fn fmt_gap(g: Option<f64>) -> String {
    g.map(fmt_num).unwrap_or_else(|| "none".into())
}

/// A number with at most two decimals, trailing zeros dropped.
pub fn fmt_num(x: f64) -> String {
    let s = format!("{x:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" { "0".into() } else { s.to_string() }
}

/// `1 tool use`, `2 tool uses`.
pub fn plural(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

pub fn fmt_int(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// A number as a message shows it: as written for everyday values, with an
/// exponent past 10^16 (`1e308`, not its 309 digits).
pub fn shown(x: f64) -> String {
    if x.is_finite() && x.abs() >= 1e16 {
        format!("{x:e}")
    } else {
        x.to_string()
    }
}

/// A figure as the reports print it: a whole number as an integer.
#[derive(serde::Serialize, Debug, Clone, Copy, PartialEq)]
#[serde(untagged)]
pub enum Num {
    Int(i64),
    Float(f64),
}

pub fn number(x: f64) -> Num {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        Num::Int(x as i64)
    } else {
        Num::Float(x)
    }
}

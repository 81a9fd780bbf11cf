//! Model prices (SPEC §9): the one table of rates in USD per million tokens, the
//! longest-prefix lookup, the `--price-*` overrides, and the cost change of a
//! setting against no clearing at all.

use serde::{Deserialize, Serialize};

/// Rates of one model family, USD per million tokens; serialized as the
/// `price` object of `compare` (fields in schema order), and read as a config
/// file's `[prices."<model prefix>"]` row (the prefix is the row's name).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Price {
    /// The table row (or the model id, for a row made from the flags).
    #[serde(skip_deserializing)]
    pub prefix: String,
    pub input: f64,
    pub write_5m: f64,
    pub write_1h: f64,
    pub read: f64,
    /// SPEC §15.16: the output rate (every table row has one; a row made from
    /// flags or the config may not, and then the recorded `usd` is unknown).
    #[serde(default)]
    pub output: Option<f64>,
}

/// `--cache-ttl` / sidecar `cache_ttl`.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Default,
    strum::IntoStaticStr,
    strum::EnumString,
    strum::VariantArray,
)]
pub enum CacheTtl {
    #[default]
    #[strum(serialize = "auto")]
    Auto,
    #[strum(serialize = "5m")]
    FiveMinutes,
    #[strum(serialize = "1h")]
    OneHour,
}

impl CacheTtl {
    pub fn parse(s: &str) -> Option<CacheTtl> {
        s.parse().ok()
    }

    pub fn name(self) -> &'static str {
        self.into()
    }
}

/// Anthropic's pricing page, November 2026 (SPEC §9). `(m)` rows of the SPEC
/// derive the write rates from the standard 1.25× / 2× multipliers.
/// Columns: prefixes, input, 5-minute write, 1-hour write, read, output.
/// One row: its prefixes and five rates.
pub(crate) type Row = (&'static [&'static str], f64, f64, f64, f64, f64);

pub(crate) const TABLE: &[Row] = &[
    (
        &["claude-fable-5-1", "claude-mythos-5-1"],
        10.0,
        12.50,
        20.0,
        0.25,
        50.0,
    ),
    (
        &["claude-fable-5", "claude-mythos-5"],
        10.0,
        12.50,
        20.0,
        1.00,
        50.0,
    ),
    (&["claude-opus-5-5"], 4.0, 5.00, 8.0, 0.20, 20.0),
    (
        &[
            "claude-opus-5",
            "claude-opus-4-8",
            "claude-opus-4-7",
            "claude-opus-4-6",
            "claude-opus-4-5",
        ],
        5.0,
        6.25,
        10.0,
        0.50,
        25.0,
    ),
    (
        &["claude-opus-4", "claude-opus-4-1", "claude-3-opus"],
        15.0,
        18.75,
        30.0,
        1.50,
        75.0,
    ),
    (&["claude-sonnet-5-5"], 2.0, 2.50, 4.0, 0.10, 10.0),
    (&["claude-sonnet-5"], 2.0, 2.50, 4.0, 0.20, 10.0),
    (
        &["claude-sonnet-4", "claude-3-7-sonnet"],
        3.0,
        3.75,
        6.0,
        0.30,
        15.0,
    ),
    (&["claude-haiku-5-5"], 0.10, 0.125, 0.20, 0.01, 0.50),
    (&["claude-haiku-4-5"], 1.0, 1.25, 2.0, 0.10, 5.0),
    (&["claude-3-5-haiku"], 0.80, 1.00, 1.60, 0.08, 4.0),
    (&["claude-3-haiku"], 0.25, 0.30, 0.50, 0.03, 1.25),
];

/// The rows whose rates hold only for short prompts, with what to say.
const CAVEATS: &[(&str, &str)] = &[(
    "claude-haiku-5-5",
    "claude-haiku-5-5 rates hold for prompts up to 100,000 tokens; longer prompts cost more, so the dollars are a lower bound",
)];

/// `--price-input`, `--price-write-5m`, `--price-write-1h`, `--price-read`,
/// `--price-output`.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PriceFlags {
    pub input: Option<f64>,
    pub write_5m: Option<f64>,
    pub write_1h: Option<f64>,
    pub read: Option<f64>,
    pub output: Option<f64>,
}

/// The table row whose prefix is the longest prefix of `model`.
pub(crate) fn lookup(model: &str) -> Option<Price> {
    TABLE
        .iter()
        .flat_map(|&(prefixes, input, w5, w1, read, output)| {
            prefixes
                .iter()
                .map(move |p| (*p, input, w5, w1, read, output))
        })
        .filter(|(p, ..)| model.starts_with(p))
        .max_by_key(|(p, ..)| p.len())
        .map(|(p, input, write_5m, write_1h, read, output)| Price {
            prefix: p.to_string(),
            input,
            write_5m,
            write_1h,
            read,
            output: Some(output),
        })
}

/// The price of `model` with the flags applied: they override the row's rates;
/// for a model the table does not know, all four make a row. Otherwise the note
/// says why there is no price (never a made-up one).
#[cfg(test)]
pub(crate) fn price_for(model: Option<&str>, flags: &PriceFlags) -> Result<Price, String> {
    price_with(model, flags, &Default::default())
}

/// As [`price_for`], with the config file's `[prices."<prefix>"]` rows added to
/// the table (a row of theirs wins over the table's for the same prefix; the
/// longest prefix still decides).
pub fn price_with(
    model: Option<&str>,
    flags: &PriceFlags,
    config: &std::collections::BTreeMap<String, Price>,
) -> Result<Price, String> {
    let from_config = model.and_then(|m| {
        config
            .iter()
            .filter(|(p, _)| m.starts_with(p.as_str()))
            .max_by_key(|(p, _)| p.len())
            .map(|(p, r)| Price {
                prefix: p.clone(),
                ..r.clone()
            })
    });
    let table = model.and_then(lookup);
    let row = match (from_config, table.clone()) {
        (Some(c), Some(t)) if t.prefix.len() > c.prefix.len() => Some(t),
        // A config row without `output` keeps the table's output rate.
        (Some(c), t) => Some(Price {
            output: c.output.or(t.and_then(|t| t.output)),
            ..c
        }),
        (None, t) => t,
    };
    if let Some(mut p) = row {
        p.input = flags.input.unwrap_or(p.input);
        p.write_5m = flags.write_5m.unwrap_or(p.write_5m);
        p.write_1h = flags.write_1h.unwrap_or(p.write_1h);
        p.read = flags.read.unwrap_or(p.read);
        p.output = flags.output.or(p.output);
        return Ok(p);
    }
    let name = model.unwrap_or("(no model recorded)");
    match (flags.input, flags.write_5m, flags.write_1h, flags.read) {
        (Some(input), Some(write_5m), Some(write_1h), Some(read)) => Ok(Price {
            prefix: model.unwrap_or("").to_string(),
            input,
            write_5m,
            write_1h,
            read,
            output: flags.output,
        }),
        _ => Err(format!(
            "model {name} is not in the price table: no dollars (give --price-input, --price-write-5m, --price-write-1h and --price-read)"
        )),
    }
}

/// What to say about a row's rates, if anything.
pub fn caveat(price: &Price) -> Option<&'static str> {
    CAVEATS
        .iter()
        .find(|(p, _)| *p == price.prefix)
        .map(|(_, text)| *text)
}

/// The token sums `delta_usd` needs (SPEC §9), by the TTL in force at each request.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CostTokens {
    /// Σ rewritten_tokens[k] over warm k, by TTL (5m, 1h): billed write − read.
    pub rewritten_warm_5m: u64,
    pub rewritten_warm_1h: u64,
    /// Σ in_wire_tokens[k] over warm k: would have been read from the cache.
    pub not_sent_warm: u64,
    /// Σ in_wire_tokens[k] over cold k, by TTL: would have been written.
    pub not_sent_cold_5m: u64,
    pub not_sent_cold_1h: u64,
}

impl CostTokens {
    pub fn add(&mut self, o: &CostTokens) {
        // Saturating, as every token sum is: a sum that could pass 2^64 is
        // better pinned than wrapped (or a panic in a debug build).
        self.rewritten_warm_5m = self.rewritten_warm_5m.saturating_add(o.rewritten_warm_5m);
        self.rewritten_warm_1h = self.rewritten_warm_1h.saturating_add(o.rewritten_warm_1h);
        self.not_sent_warm = self.not_sent_warm.saturating_add(o.not_sent_warm);
        self.not_sent_cold_5m = self.not_sent_cold_5m.saturating_add(o.not_sent_cold_5m);
        self.not_sent_cold_1h = self.not_sent_cold_1h.saturating_add(o.not_sent_cold_1h);
    }

    /// One request's share: `rewritten` re-written tokens, `in_wire` not sent.
    pub fn request(rewritten: u64, in_wire: u64, warm: bool, one_hour: bool) -> CostTokens {
        let mut c = CostTokens::default();
        match (warm, one_hour) {
            (true, false) => c.rewritten_warm_5m = rewritten,
            (true, true) => c.rewritten_warm_1h = rewritten,
            _ => {}
        }
        match (warm, one_hour) {
            (true, _) => c.not_sent_warm = in_wire,
            (false, false) => c.not_sent_cold_5m = in_wire,
            (false, true) => c.not_sent_cold_1h = in_wire,
        }
        c
    }
}

/// `delta_usd` = Σ_k (rewritten[k]·[warm]·(write(k) − read) − in_wire[k]·(warm ?
/// read : write(k))) / 1e6, unrounded (rounded once, at output).
pub fn delta_usd(p: &Price, t: &CostTokens) -> f64 {
    let m = |n: u64| n as f64;
    (m(t.rewritten_warm_5m) * (p.write_5m - p.read)
        + m(t.rewritten_warm_1h) * (p.write_1h - p.read)
        - m(t.not_sent_warm) * p.read
        - m(t.not_sent_cold_5m) * p.write_5m
        - m(t.not_sent_cold_1h) * p.write_1h)
        / 1_000_000.0
}

/// Dollars as printed: rounded to six decimals, −0 written as 0.
pub fn usd_rounded(x: Option<f64>) -> Option<f64> {
    x.map(|x| {
        let r = (x * 1e6).round() / 1e6;
        if r == 0.0 { 0.0 } else { r }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_longest_prefix_wins() {
        // claude-opus-4-5 and claude-opus-4 both prefix it: the longer row's rates.
        let p = lookup("claude-opus-4-5-20251101").unwrap();
        assert_eq!(
            (p.prefix.as_str(), p.read, p.write_5m),
            ("claude-opus-4-5", 0.50, 6.25)
        );
        let p = lookup("claude-opus-4-20250514").unwrap();
        assert_eq!((p.prefix.as_str(), p.read), ("claude-opus-4", 1.50));
        // claude-fable-5-1 is longer than claude-fable-5: read 0.25, not 1.00.
        assert_eq!(lookup("claude-fable-5-1-x").unwrap().read, 0.25);
        assert_eq!(lookup("claude-fable-5-x").unwrap().read, 1.00);
        assert_eq!(lookup("claude-sonnet-5-5").unwrap().read, 0.10);
        assert_eq!(lookup("claude-sonnet-5-0").unwrap().read, 0.20);
    }

    #[test]
    fn an_unknown_model_has_no_price_unless_all_four_are_given() {
        assert!(lookup("qwen3-coder-plus").is_none());
        // A config row adds a model and overrides the table's row for its prefix.
        let mut config = std::collections::BTreeMap::new();
        let row = |x: f64| Price {
            prefix: String::new(),
            input: x,
            write_5m: x,
            write_1h: x,
            read: x,
            output: None,
        };
        config.insert("qwen3".to_string(), row(1.0));
        config.insert("claude-opus-4-5".to_string(), row(2.0));
        let p = price_with(Some("qwen3-coder-plus"), &PriceFlags::default(), &config).unwrap();
        assert_eq!((p.prefix.as_str(), p.read), ("qwen3", 1.0));
        let p = price_with(Some("claude-opus-4-5-x"), &PriceFlags::default(), &config).unwrap();
        assert_eq!(p.read, 2.0);
        // The table's longer prefix still wins over a shorter config row.
        config.insert("claude".to_string(), row(3.0));
        let p = price_with(Some("claude-haiku-4-5"), &PriceFlags::default(), &config).unwrap();
        assert_eq!(p.prefix, "claude-haiku-4-5");
        let none = price_for(Some("qwen3-coder-plus"), &PriceFlags::default());
        assert!(none.unwrap_err().contains("qwen3-coder-plus"));
        let some = PriceFlags {
            read: Some(0.1),
            write_5m: Some(1.0),
            ..Default::default()
        };
        assert!(price_for(Some("qwen3-coder-plus"), &some).is_err());
        let all = PriceFlags {
            input: Some(1.0),
            write_5m: Some(1.25),
            write_1h: Some(2.0),
            read: Some(0.1),
            output: None,
        };
        let p = price_for(Some("qwen3-coder-plus"), &all).unwrap();
        assert_eq!((p.prefix.as_str(), p.write_1h), ("qwen3-coder-plus", 2.0));
        // A flag overrides one rate of a known row, the others stay.
        let p = price_for(
            Some("claude-haiku-4-5"),
            &PriceFlags {
                read: Some(0.5),
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!((p.read, p.write_5m, p.input), (0.5, 1.25, 1.0));
    }

    #[test]
    fn delta_is_a_saving_when_only_cold_tokens_go_and_a_cost_for_a_warm_rewrite() {
        let sonnet = lookup("claude-sonnet-4-5").unwrap(); // 3 / 3.75 / 6 / 0.30
        // 10,000 tokens not sent at a cold 5m request: -10,000 × 3.75 / 1e6.
        let cold = CostTokens::request(0, 10_000, false, false);
        assert!((delta_usd(&sonnet, &cold) - (-0.0375)).abs() < 1e-12);
        // The same at a cold 1h request: the 1h write rate, 6.
        let cold_1h = CostTokens::request(0, 10_000, false, true);
        assert!((delta_usd(&sonnet, &cold_1h) - (-0.06)).abs() < 1e-12);
        // A warm break re-writing 100,000 tokens while 10,000 are not read:
        // 100,000 × (3.75 − 0.30) − 10,000 × 0.30 = 345,000 − 3,000 → +0.342.
        let warm = CostTokens::request(100_000, 10_000, true, false);
        assert!((delta_usd(&sonnet, &warm) - 0.342).abs() < 1e-12);
        // 1h: 100,000 × (6 − 0.30) − 3,000 = 567,000 → 0.567.
        let warm_1h = CostTokens::request(100_000, 10_000, true, true);
        assert!((delta_usd(&sonnet, &warm_1h) - 0.567).abs() < 1e-12);
        // Re-written tokens at a cold request cost nothing extra.
        assert_eq!(
            CostTokens::request(100_000, 0, false, false),
            CostTokens::default()
        );
        let mut sum = cold;
        sum.add(&warm);
        assert!((delta_usd(&sonnet, &sum) - (0.342 - 0.0375)).abs() < 1e-12);
        assert_eq!(usd_rounded(Some(0.1234564)), Some(0.123456));
        // A saving that rounds to nothing is written 0, not -0.
        let tiny = usd_rounded(Some(-0.000_000_1));
        assert_eq!(serde_json::to_string(&tiny).unwrap(), "0.0");
        assert_eq!(usd_rounded(None), None);
    }
}

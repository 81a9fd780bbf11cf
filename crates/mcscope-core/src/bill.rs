//! The recorded bill (SPEC §9a "Recorded totals", §15.16): what a session's
//! responses recorded they used, priced by §9's row — the main thread's, and its
//! sub-agents' beside it (inline sidechain records and sub-agent files), never
//! simulated. A response is counted once by `message.id` + `requestId`, across
//! files too.

pub mod causes;
pub mod report;

use crate::evidence::{self, Ttl};
use crate::prices::{Price, usd_rounded};
use crate::session::{Session, Usage, UsageLine};
use serde::Serialize;

/// The model Claude Code writes on responses it made up itself (never billed).
use crate::session::SYNTHETIC_MODEL as SYNTHETIC;

/// Token sums of some responses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    pub responses: u64,
    pub input: u64,
    pub output: u64,
    /// W less its 1-hour part.
    pub cache_write_5m: u64,
    /// `cache_creation.ephemeral_1h_input_tokens` (0 without the object).
    pub cache_write_1h: u64,
    pub cache_read: u64,
}

impl Tally {
    /// One response's usage.
    pub fn add_usage(&mut self, u: &Usage) {
        let w = u.cache_creation_input_tokens;
        let w1 = u.cache_creation.map_or(0, |c| c.ephemeral_1h_input_tokens);
        self.add(&Tally {
            responses: 1,
            input: u.input_tokens,
            output: u.output_tokens,
            cache_write_5m: w.saturating_sub(w1),
            cache_write_1h: w1.min(w),
            cache_read: u.cache_read_input_tokens,
        });
    }

    pub fn add(&mut self, o: &Tally) {
        self.responses = self.responses.saturating_add(o.responses);
        self.input = self.input.saturating_add(o.input);
        self.output = self.output.saturating_add(o.output);
        self.cache_write_5m = self.cache_write_5m.saturating_add(o.cache_write_5m);
        self.cache_write_1h = self.cache_write_1h.saturating_add(o.cache_write_1h);
        self.cache_read = self.cache_read.saturating_add(o.cache_read);
    }

    /// (input·in + output·out + write_5m·w5 + write_1h·w1 + read·r) / 1e6;
    /// None without a price or an output rate. Unrounded.
    pub fn usd(&self, p: &Price) -> Option<f64> {
        let m = |n: u64| n as f64;
        Some(
            (m(self.input) * p.input
                + m(self.output) * p.output?
                + m(self.cache_write_5m) * p.write_5m
                + m(self.cache_write_1h) * p.write_1h
                + m(self.cache_read) * p.read)
                / 1_000_000.0,
        )
    }

    /// R / (input + W + R); None when that is 0.
    pub fn hit_rate(&self) -> Option<f64> {
        let p = self
            .input
            .saturating_add(self.cache_write_5m)
            .saturating_add(self.cache_write_1h)
            .saturating_add(self.cache_read);
        (p > 0).then(|| self.cache_read as f64 / p as f64)
    }
}

/// A session's (or a folder's) recorded bill.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Recorded {
    pub main: Tally,
    /// Unrounded; None without a price.
    pub usd: Option<f64>,
    pub observed_breaks: u64,
    /// Σ over observed breaks of drop·(write(k) − read) / 1e6; None without a price.
    pub break_usd: Option<f64>,
    /// None when the session has no sub-agent response.
    pub subagents: Option<(Tally, Option<f64>)>,
    /// The harness's own figure for what its responses cost, summed (OpenCode's
    /// `cost`, SPEC §15.14); None when the harness records none.
    pub harness_usd: Option<f64>,
}

impl Recorded {
    /// The sums of two bills (a folder's top-level `recorded`): dollars over
    /// the priced ones (SPEC §18.5: an unpriced session never blanks the
    /// others'; unknown only when neither is priced).
    pub fn add(&mut self, o: &Recorded) {
        let sum = |a: Option<f64>, b: Option<f64>| match (a, b) {
            (Some(a), Some(b)) => Some(a + b),
            (a, b) => a.or(b),
        };
        self.main.add(&o.main);
        self.usd = sum(self.usd, o.usd);
        self.observed_breaks += o.observed_breaks;
        self.break_usd = sum(self.break_usd, o.break_usd);
        self.subagents = match (self.subagents, o.subagents) {
            (Some((mut a, au)), Some((b, bu))) => {
                a.add(&b);
                Some((a, sum(au, bu)))
            }
            (a, b) => a.or(b),
        };
        self.harness_usd = match (self.harness_usd, o.harness_usd) {
            (Some(a), Some(b)) => Some(a + b),
            (a, b) => a.or(b),
        };
    }

    /// The empty bill a folder's sums start from (dollars known: 0).
    pub fn zero() -> Recorded {
        Recorded {
            usd: Some(0.0),
            break_usd: Some(0.0),
            ..Default::default()
        }
    }

    /// The JSON object of SPEC §9a (`session.recorded`, `sessions[].recorded`).
    pub fn json(&self) -> RecordedJson {
        RecordedJson {
            main: tally_json(&self.main, self.usd),
            observed_breaks: self.observed_breaks,
            break_usd: usd_rounded(self.break_usd),
            subagents: self.subagents.map(|(t, u)| tally_json(&t, u)),
            harness_usd: usd_rounded(self.harness_usd),
            unpriced: None,
        }
    }

    /// The line text and the TUI show first: `recorded: $12.18 · hit rate
    /// 96.6 % · 4 observed breaks, $0.73` (and the sub-agents' share).
    pub fn words(&self) -> String {
        if self.main.responses == 0 && self.subagents.is_none() {
            return "recorded: no response recorded its usage".into();
        }
        let dollars = |x: Option<f64>| x.map_or("$?".to_string(), |x| format!("${x:.2}"));
        let rate = self
            .main
            .hit_rate()
            .map_or("?".to_string(), |r| format!("{:.1} %", r * 100.0));
        let breaks = match self.observed_breaks {
            1 => "1 observed break".to_string(),
            n => format!("{n} observed breaks"),
        };
        let mut out = format!(
            "recorded: {} · hit rate {rate} · {breaks}, {}",
            dollars(self.usd),
            dollars(self.break_usd)
        );
        if let Some(h) = self.harness_usd {
            out.push_str(&format!(" · the harness's own figure ${h:.2}"));
        }
        if let Some((t, usd)) = &self.subagents {
            out.push_str(&format!(
                " · sub-agents {} ({} response{})",
                dollars(*usd),
                t.responses,
                if t.responses == 1 { "" } else { "s" }
            ));
        }
        out
    }
}

/// `{"responses", "input", "output", "cache_write_5m", "cache_write_1h",
/// "cache_read", "usd", "hit_rate"}`.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct TallyJson {
    pub responses: u64,
    pub input: u64,
    pub output: u64,
    pub cache_write_5m: u64,
    pub cache_write_1h: u64,
    pub cache_read: u64,
    pub usd: Option<f64>,
    pub hit_rate: Option<f64>,
}

/// SPEC §9a's `recorded` object, fields in schema order.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct RecordedJson {
    #[serde(flatten)]
    pub main: TallyJson,
    pub observed_breaks: u64,
    pub break_usd: Option<f64>,
    pub subagents: Option<TallyJson>,
    /// OpenCode's own `cost`, summed (SPEC §15.14); only for a harness that
    /// records one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub harness_usd: Option<f64>,
    /// A folder's sums (compare's top-level `recorded`, SPEC §18.5): the
    /// responses of sessions without a price, left out of `usd`, and their
    /// models.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unpriced: Option<crate::bill::report::Unpriced>,
}

pub(crate) fn tally_json(t: &Tally, usd: Option<f64>) -> TallyJson {
    TallyJson {
        responses: t.responses,
        input: t.input,
        output: t.output,
        cache_write_5m: t.cache_write_5m,
        cache_write_1h: t.cache_write_1h,
        cache_read: t.cache_read,
        usd: usd_rounded(usd),
        hit_rate: t.hit_rate().map(rate4),
    }
}

/// A rate to four decimals (SPEC §15.17).
pub fn rate4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

/// The bill of `s`: its main-thread responses with usage (`<synthetic>` ones
/// skipped), its observed breaks (§10), and beside them its sub-agents'
/// responses — the inline sidechain ones, then `files` (the sub-agent files'
/// lines) — each response once by `message.id` + `requestId`, the usage of the
/// last line of a response's group.
pub fn recorded(s: &Session, files: &[UsageLine], price: Option<&Price>) -> Recorded {
    let mut seen: crate::fasthash::FastSet<(&str, &str)> = Default::default();
    let mut main = Tally::default();
    for m in s.responses() {
        let Some(u) = m.usage.as_ref() else { continue };
        if m.model.as_deref() == Some(SYNTHETIC) {
            continue;
        }
        if let (Some(id), Some(rq)) = (m.response_id.as_deref(), m.request_id.as_deref())
            && !seen.insert((id, rq))
        {
            continue;
        }
        main.add_usage(u);
    }
    let groups: Vec<&UsageLine> = subagent_groups(s, files, |id, rq| seen.contains(&(id, rq)))
        .into_iter()
        .map(|(last, _)| last)
        .collect();
    let subagents = (!groups.is_empty()).then(|| {
        let mut t = Tally::default();
        for l in &groups {
            t.add_usage(&l.usage);
        }
        (t, price.and_then(|p| t.usd(p)))
    });
    let (observed_breaks, break_usd) = breaks(s, price);
    Recorded {
        main,
        usd: price.and_then(|p| main.usd(p)),
        observed_breaks,
        break_usd,
        subagents,
        harness_usd: s.harness_usd,
    }
}

/// A session's sub-agent responses (SPEC §9a): its inline sidechain lines,
/// then `files`' (the sub-agent files'), `<synthetic>` ones left out, grouped
/// by `message.id` + `requestId` in the order groups first appear — each as
/// (its last line, whose usage counts; its first line, where it is) — a line
/// without both ids its own response, a pair `billed` already left out.
pub fn subagent_groups<'a>(
    s: &'a Session,
    files: &'a [UsageLine],
    billed: impl Fn(&str, &str) -> bool,
) -> Vec<(&'a UsageLine, &'a UsageLine)> {
    let mut groups: Vec<(&UsageLine, &UsageLine)> = Vec::new();
    let mut slot: crate::fasthash::FastMap<(&str, &str), usize> = Default::default();
    for l in s.sidechain_usage.iter().chain(files) {
        if l.model.as_deref() == Some(SYNTHETIC) {
            continue;
        }
        match (l.message_id.as_deref(), l.request_id.as_deref()) {
            (Some(id), Some(rq)) => {
                if billed(id, rq) {
                    continue;
                }
                match slot.get(&(id, rq)) {
                    Some(&i) => groups[i].0 = l,
                    None => {
                        slot.insert((id, rq), groups.len());
                        groups.push((l, l));
                    }
                }
            }
            _ => groups.push((l, l)),
        }
    }
    groups
}

/// The observed breaks of `s` (§10) and what they cost against a warm read:
/// Σ drop·(write(k) − read) / 1e6, write(k) by `ttl_auto(k)` (what happened).
/// The breaks are `evidence::collect`'s, found by the same pass over the
/// responses without building every request's evidence beside it (a
/// 16,000-request session's peak RSS, issue 41 item 5).
fn breaks(s: &Session, price: Option<&Price>) -> (u64, Option<f64>) {
    let ttl = evidence::ttl_auto_all(s);
    let mut n = 0;
    let mut usd = 0.0;
    evidence::usage_walk(s, |i, _, step| {
        let Some(drop) = step.and_then(|t| t.break_drop()) else {
            return;
        };
        n += 1;
        if let Some(p) = price {
            let write = match ttl.get(i) {
                Some(Ttl::OneHour) => p.write_1h,
                _ => p.write_5m,
            };
            usd += drop as f64 * (write - p.read) / 1_000_000.0;
        }
    });
    (n, price.map(|_| usd))
}

/// The bill of a set-up session: its sub-agent files read, priced by its
/// model's row with `flags` and the configuration's rows.
pub fn of_setup(setup: &crate::analysis::Setup, flags: &crate::prices::PriceFlags) -> Recorded {
    let s = &setup.session;
    let model = crate::totals::session_model(s);
    let price =
        crate::prices::price_with(model.as_deref(), flags, &setup.settings.config.prices).ok();
    recorded(s, &crate::load::subagents::usage_lines(s), price.as_ref())
}

#[cfg(test)]
mod tests;

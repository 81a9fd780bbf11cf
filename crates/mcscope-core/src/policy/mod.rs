//! Plans (SPEC §3–§5): which tool results a harness would clear before each request.
//!
//! `crate::harness` holds every harness fact in one table; `protect` decides managed-memory
//! protection through one `Resolver`; `engine` walks the timeline once, carrying
//! the clearings that are still in force from request to request.

pub mod api;
use crate::harness::claude_budget as budget;
pub mod engine;
pub mod params;
pub mod plausible;
pub mod protect;
pub mod recorded;

use crate::harness::PresetId;
use crate::session::{HarnessId, Request};
pub use crate::vocab::{Delivery, PlanKind, Policy};

pub use engine::{Candidate, Engine, Status, Step, Trigger};

/// The keeps the plans use when none is given (`--keep-recent`'s default):
/// the common one, then each plan's own in words (`budget 3`, then
/// idle-server's by version; `named` says whose versions they are).
pub fn default_keeps(named: bool) -> (u32, Vec<String>) {
    let plans = engine::registry::PLANS.iter();
    let mut own: Vec<String> = plans
        .clone()
        .filter(|p| p.keep_words(named).is_none() && p.default_keep() != engine::DEFAULT_KEEP)
        .map(|p| format!("{} {}", p.kind().name(), p.default_keep()))
        .collect();
    own.extend(plans.filter_map(|p| p.keep_words(named)));
    (engine::DEFAULT_KEEP, own)
}

impl PlanKind {
    /// The `keep_recent` a kind uses when none is given: its plan's (SPEC §5:
    /// budget 3, else 5; idle-server by version, SPEC §13.S4: see
    /// `Policy::keep_at`).
    pub fn default_keep(self) -> u32 {
        engine::registry::of(self).map_or(engine::DEFAULT_KEEP, |p| p.default_keep())
    }

    /// The delivery it runs with where none is asked (`edits`: the session's
    /// requests can carry cache edits): its plan's (`auto`: rewrite).
    pub fn default_delivery(self, edits: bool) -> Delivery {
        engine::registry::of(self).map_or(Delivery::Rewrite, |p| p.default_delivery(edits))
    }

    /// The deliveries `compare`'s grid runs it with where no list is given:
    /// its plan's (`auto`: rewrite).
    pub fn grid_deliveries(self, edits: bool) -> Vec<Delivery> {
        engine::registry::of(self).map_or(vec![Delivery::Rewrite], |p| p.grid_deliveries(edits))
    }

    /// Where a replay that plans a request may start: its plan's answer
    /// (`auto`: as the kinds it chooses, asked of each).
    pub fn replay(self) -> engine::Replay {
        engine::registry::of(self).map_or(engine::Replay::Turn, |p| p.replay())
    }

    /// The idle gap it waits for under `p`: its plan's (`auto`: the
    /// policy's).
    pub fn gap(self, p: &Policy) -> f64 {
        engine::registry::of(self).map_or(p.gap_threshold_minutes, |plan| plan.gap(p))
    }

    /// A line of its own the text header adds while it is in force.
    pub fn header(self, p: &Policy) -> Option<String> {
        engine::registry::of(self).and_then(|plan| plan.header(p))
    }

    /// Whether this kind reads the numeric parameter `key` when it decides
    /// under preset `preset`: its plan's answer (`Plan::reads`, SPEC §15.6).
    /// False for a parameter no plan reads that way (the kind, the delivery,
    /// the api edits, the switches).
    pub fn reads(self, key: &str, preset: HarnessId) -> bool {
        use params::When;
        engine::registry::of(self).is_some_and(|plan| {
            plan.reads().iter().any(|&(k, when)| {
                k == key
                    && match when {
                        When::Always => true,
                        When::SizeNeedsIdle => preset.asks().size_off_with_idle(),
                    }
            })
        })
    }

    /// The values of the parameter of `key` in `compare`'s default grid for
    /// this kind: its plan's (`Plan::grid`); None: the session's value.
    pub fn default_grid(self, key: &str) -> Option<&'static [f64]> {
        engine::registry::of(self).and_then(|p| p.grid(key))
    }

    /// The parameters of a kind that reads only its own (Gemini CLI's
    /// `mask`, OpenCode's `prune`, SPEC §15.13), as a header shows them, in
    /// order: its plan's (`Plan::shown`); None for the kinds that read the
    /// shared ones (keep, gap, size…).
    pub fn shown(self, p: &Policy) -> Option<Vec<params::Shown>> {
        engine::registry::of(self).and_then(|plan| plan.shown(p))
    }

    /// Whether the server alone delivers it (idle-server's edit, the api
    /// preset's): no other delivery is tried.
    pub fn server_only(self) -> bool {
        engine::registry::of(self).is_some_and(|p| p.deliveries() == [Delivery::Server])
    }

    /// The `keep_recent` it uses under `p` at a request of `version`: its
    /// plan's (`Plan::keep_at`; None: it keeps by other means, the api
    /// preset's edits).
    pub fn keep_at(self, p: &Policy, version: Option<&str>) -> Option<u32> {
        match engine::registry::of(self) {
            Some(plan) => plan.keep_at(p, version),
            None => Some(p.keep_recent.unwrap_or(engine::DEFAULT_KEEP)),
        }
    }

    /// Whether its default keep is the request's version's (`Plan::keeps_by_version`).
    pub fn keeps_by_version(self) -> bool {
        engine::registry::of(self).is_some_and(|p| p.keeps_by_version())
    }

    /// Its own value of the parameter of `key` at a request of `version`
    /// (`Plan::own_value`: a default by version); None: the policy's.
    pub fn own_value(self, key: &str, p: &Policy, version: Option<&str>) -> Option<u64> {
        engine::registry::of(self).and_then(|plan| plan.own_value(key, p, version))
    }

    /// An idle gap of its own (`Plan::own_gap`: idle-server's).
    pub fn own_gap(self) -> Option<f64> {
        engine::registry::of(self).and_then(|p| p.own_gap())
    }

    /// What the harness sent in place of a result it cleared, where it is not
    /// the placeholder shown (`Plan::placeholder_note`).
    pub fn placeholder_note(self) -> Option<&'static str> {
        engine::registry::of(self).and_then(|p| p.placeholder_note())
    }

    /// The kind whose plan writes records of `writer` (`Plan::writes`):
    /// every writer is some plan's (the registry's test holds them).
    pub fn writing(writer: crate::vocab::Writer) -> Option<PlanKind> {
        engine::registry::PLANS
            .iter()
            .find(|p| p.writes() == Some(writer))
            .map(|p| p.kind())
    }

    /// Its own line in the TUI's header, in pieces (`Plan::header_parts`).
    pub fn header_parts(
        self,
        p: &Policy,
        req: &Request,
    ) -> Option<Vec<(Option<&'static str>, String)>> {
        engine::registry::of(self).and_then(|plan| plan.header_parts(p, req))
    }

    /// Whether its step says whether the server sent its edit
    /// (`Plan::reports_sends`).
    pub fn reports_sends(self) -> bool {
        engine::registry::of(self).is_some_and(|p| p.reports_sends())
    }

    /// Whether it fires at the request being viewed (`Plan::fires_at_view`).
    pub fn fires_at_view(self) -> bool {
        engine::registry::of(self).is_some_and(|p| p.fires_at_view())
    }

    /// Whether a firing without its harness's record is evidence
    /// (`Plan::shows_unrecorded`).
    pub fn shows_unrecorded(self) -> bool {
        engine::registry::of(self).is_some_and(|p| p.shows_unrecorded())
    }

    /// The one delivery its plan takes, where it takes one only (budget's
    /// rewrite, the server's own).
    pub fn only_delivery(self) -> Option<Delivery> {
        match engine::registry::of(self)?.deliveries() {
            [d] => Some(*d),
            _ => None,
        }
    }

    /// Whether its plan takes delivery `d` (`auto`: as the kind it chooses).
    fn takes(self, d: Delivery) -> bool {
        engine::registry::of(self).is_none_or(|p| p.deliveries().contains(&d))
    }
}

/// A plan a session's harness cannot run (SPEC §5, §11, §13.S): what `setup`
/// refuses, the TUI will not tune to, and `compare`'s grid leaves out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Illegal {
    /// A plan's own refusal, in its words (`Plan::refuses`): api without the
    /// api preset, idle-server off its harness or its delivery, budget off
    /// its harness or rewrite.
    Plan(Refusal),
    /// Delivery `server` for a kind the server does not edit, on a session of
    /// this harness.
    ServerDelivery(HarnessId),
    /// cache-edits on a session whose requests have no cache edits.
    CacheEdits(HarnessId),
    /// A kind the preset's harness does not have (Gemini CLI's `mask`
    /// elsewhere, Claude's plans on Gemini CLI).
    NotOffered { kind: PlanKind, preset: HarnessId },
}

/// What a plan refused ([`Illegal::Plan`]): the policy it was asked with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Refusal {
    pub kind: PlanKind,
    pub preset: HarnessId,
    pub delivery: Delivery,
    pub why: Refused,
}

/// Why a plan refuses a policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// It is not the preset's (or the session cannot carry what it sends).
    Preset,
    /// It does not take the delivery asked for.
    Delivery,
}

impl Refusal {
    /// The refusal of `p`'s kind, for the reason `why`.
    pub fn of(p: &Policy, why: Refused) -> Refusal {
        Refusal {
            kind: p.kind,
            preset: p.preset,
            delivery: p.delivery,
            why,
        }
    }

    /// The refusing plan's words: the message and the hint under it.
    fn words(&self) -> (String, String) {
        match engine::registry::of(self.kind) {
            Some(plan) => plan.refusal(self),
            None => (
                format!("plan kind {} cannot run here", self.kind.name()),
                "leave out --policy: auto runs the harness's own plan".into(),
            ),
        }
    }
}

impl Illegal {
    /// What would work instead (the hint line under the refusal).
    pub fn hint(&self) -> String {
        let s = match self {
            Illegal::Plan(r) => return r.words().1,
            // The api preset is offered only where the server's view exists.
            Illegal::ServerDelivery(h) if h.rules().offers_delivery(Delivery::Server) => {
                "--delivery rewrite keeps this plan; --preset api runs the server's edits"
            }
            Illegal::ServerDelivery(_) => "--delivery rewrite keeps this plan",
            Illegal::CacheEdits(_) => "--delivery rewrite is how these requests are sent",
            Illegal::NotOffered { .. } => "leave out --policy: auto runs the harness's own plan",
        };
        s.into()
    }
}

impl std::fmt::Display for Illegal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Illegal::Plan(r) => f.write_str(&r.words().0),
            Illegal::ServerDelivery(h) if h.rules().offers_delivery(Delivery::Server) => {
                f.write_str("delivery server is the api preset's (--preset api)")
            }
            Illegal::ServerDelivery(h) => write!(
                f,
                "delivery server is Anthropic's server-side clearing; {} sessions are sent with rewrite",
                h.name()
            ),
            Illegal::CacheEdits(h) => write!(
                f,
                "cache-edits delivery is {}'s cached microcompact; {} sessions are sent with rewrite",
                crate::harness::delivery_owner(Delivery::CacheEdits).title,
                h.name()
            ),
            Illegal::NotOffered { kind, preset } => write!(
                f,
                "plan kind {} is not one of the {} preset's ({})",
                kind.name(),
                preset.name(),
                preset.rules().kind_names()
            ),
        }
    }
}

/// What [`Policy::set_kind`] settled besides the kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Settled {
    /// The baseline: what the transcript proves (SPEC §15.3).
    Recorded,
    /// The kind's own delivery, in its plan's words (`Plan::settles`).
    Delivery(engine::Settles),
}

/// A delivery asked for under `auto` that the kind auto chooses at a request
/// does not take ([`Policy::check_requests`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AutoRefuses {
    /// The harness whose version the request records (its preset's).
    pub harness: HarnessId,
    pub request: usize,
    pub kind: Option<PlanKind>,
    pub version: Option<String>,
    pub delivery: Delivery,
}

impl std::fmt::Display for AutoRefuses {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "request {}: auto runs {} there ({} {}), which does not take delivery {}",
            self.request,
            self.kind.map_or("none", PlanKind::name),
            self.harness.rules().title,
            self.version.as_deref().unwrap_or("version unknown"),
            self.delivery.name()
        )
    }
}

/// OpenCode's prune thresholds: the harness's (`harness/opencode.rs`).
pub use crate::harness::{PRUNE_MINIMUM, PRUNE_PROTECT};

impl Policy {
    /// The defaults of a preset (SPEC §5 table).
    pub fn preset(preset: HarnessId) -> Policy {
        let d = preset.rules().defaults;
        Policy {
            kind: PlanKind::Auto,
            preset,
            keep_recent: None,
            gap_threshold_minutes: d.gap_threshold_minutes,
            size_threshold: d.size_threshold,
            low_watermark: d.low_watermark,
            trigger_threshold: d.trigger_threshold,
            delivery: Delivery::Rewrite,
            protect: d.protect,
            clear_errors: d.clear_errors,
            size_explicit: false,
            budget_tokens: budget::DEFAULT_BUDGET_TOKENS,
            budget_min_saving: budget::DEFAULT_MIN_SAVING,
            budget_warning_tokens: None,
            api: api::ApiSpec::default(),
            min_trigger_tool_uses: None,
            mask_protect_tokens: crate::harness::MASK_PROTECT_TOKENS,
            mask_min_prunable_tokens: crate::harness::MASK_MIN_PRUNABLE_TOKENS,
            mask_protect_latest_turn: true,
            gap_explicit: false,
            prune_protect_tokens: PRUNE_PROTECT,
            prune_minimum_tokens: PRUNE_MINIMUM,
            cline_context_window: None,
            cline_dedupe: true,
            did_not_run: Vec::new(),
        }
    }

    /// The `api` preset (SPEC §11): kind `api`, delivery `server`, the edits'
    /// defaults; the session stays Claude-shaped.
    pub fn api_preset() -> Policy {
        Policy {
            kind: PlanKind::Api,
            delivery: Delivery::Server,
            protect: false,
            ..Policy::preset(PresetId::SERVER.harness())
        }
    }

    /// SPEC §15.6: a delivery asked for under `auto` (`asked`; None: each
    /// kind's own) applies to the kinds that take it; the first request whose
    /// chosen kind refuses it. The legality [`Policy::check`] cannot judge
    /// without the requests: setup refuses by it (exit 2 naming the request),
    /// the TUI will not tune to it, and `compare` leaves the setting out.
    pub fn check_requests(
        &self,
        requests: &[Request],
        asked: Option<Delivery>,
    ) -> Result<(), AutoRefuses> {
        let Some(delivery) = asked else {
            return Ok(());
        };
        // Only where auto may choose a kind with deliveries of its own.
        let own_delivery = |k: PlanKind| {
            engine::registry::of(k)
                .is_some_and(|p| p.deliveries() != [Delivery::Rewrite, Delivery::CacheEdits])
        };
        let auto_kinds = self.preset.asks().auto_kinds();
        if !self.kind.is_auto() || !auto_kinds.iter().any(|&k| own_delivery(k)) {
            return Ok(());
        }
        for r in requests {
            let kind = self.kind_at(r, r.gap_minutes);
            let refuses = kind.is_some_and(|k| !k.takes(delivery));
            if refuses {
                return Err(AutoRefuses {
                    harness: self.preset,
                    request: r.index,
                    kind,
                    version: r.version.clone(),
                    delivery,
                });
            }
        }
        Ok(())
    }

    /// What the plan's rules answer: the api preset's for kind `api`, else the
    /// harness's.
    pub fn asks(&self) -> &'static dyn crate::harness::Harness {
        if self.kind.is_api() {
            PresetId::SERVER.asks()
        } else {
            self.preset.asks()
        }
    }

    /// `p`: the kind after this one in the preset's cycle — claude auto → idle
    /// → idle-server → forced → size → count → budget → recorded → auto; qwen
    /// the same without idle-server and budget; the api preset api → recorded
    /// → api (SPEC §15.3). The harness lists its kinds in cycle order, the
    /// baseline last; a kind it does not list (api) goes on to the baseline,
    /// and the api preset's baseline (delivery server) back to api.
    pub fn next_kind(&self) -> PlanKind {
        if self.kind.is_baseline() && self.delivery == Delivery::Server {
            return PlanKind::Api;
        }
        let kinds = self.preset.rules().offers.kinds;
        kinds
            .iter()
            .position(|&k| k == self.kind)
            .map_or(PlanKind::Recorded, |i| kinds[(i + 1) % kinds.len()])
    }

    /// Tunes the policy to `kind`, with a delivery the kind takes (checked
    /// then by [`Policy::check`]): idle-server's is the server's, budget's
    /// rewrite, the baseline's rewrite (the api preset's, reached from api,
    /// stays server), and a server delivery goes back to rewrite for the
    /// other kinds. What it
    /// settled, for the TUI to say.
    pub fn set_kind(&mut self, kind: PlanKind) -> Option<Settled> {
        let from = self.kind;
        self.kind = kind;
        match kind {
            PlanKind::Api => None,
            PlanKind::Recorded => {
                if !from.is_api() {
                    self.delivery = Delivery::Rewrite;
                }
                Some(Settled::Recorded)
            }
            _ => match engine::registry::of(kind).and_then(|p| p.settles()) {
                // A delivery the kind always takes, said whenever it is tuned
                // to (idle-server's server).
                Some(s) if s.always => {
                    self.delivery = s.delivery;
                    Some(Settled::Delivery(s))
                }
                s => {
                    if self.delivery == Delivery::Server {
                        self.delivery = Delivery::Rewrite;
                    }
                    // One it takes only: said where it changed the one asked
                    // for (budget's rewrite over cache-edits).
                    s.filter(|s| self.delivery != s.delivery).map(|s| {
                        self.delivery = s.delivery;
                        Settled::Delivery(s)
                    })
                }
            },
        }
    }

    /// `d`: rewrite ↔ cache-edits (what the harness or the kind cannot take
    /// is refused by [`Policy::check`]); None: the server's stays, for the
    /// server makes the edits of the plans that take it (SPEC §11, §13.S).
    pub fn next_delivery(&self) -> Option<Delivery> {
        match self.delivery {
            Delivery::Rewrite => Some(Delivery::CacheEdits),
            Delivery::CacheEdits => Some(Delivery::Rewrite),
            Delivery::Server => None,
        }
    }

    /// Whether a session of harness `session` can be planned with this policy:
    /// the one legality check `setup` refuses by, the TUI tunes by and
    /// `compare`'s grid leaves settings out by (SPEC §5, §11, §13.S).
    pub fn check(&self, session: HarnessId) -> Result<(), Illegal> {
        let plan = engine::registry::of(self.kind);
        // The plan's own refusals first (api, idle-server, budget).
        if let Some(why) = plan.and_then(|p| p.refuses(self, session)) {
            return Err(Illegal::Plan(Refusal::of(self, why)));
        }
        // The server edits for the api preset, idle-server, the baseline that
        // replays them, and auto where a version's row may be idle-server.
        let server_kind = match plan {
            Some(p) => p.deliveries().contains(&Delivery::Server),
            None => self.preset.asks().auto_kinds().iter().any(|&k| {
                engine::registry::of(k).is_some_and(|p| p.deliveries().contains(&Delivery::Server))
            }),
        };
        if self.delivery == Delivery::Server && !server_kind {
            return Err(Illegal::ServerDelivery(session));
        }
        // What the session's requests can carry (the api preset's are Claude's).
        if self.delivery == Delivery::CacheEdits
            && !session.rules().offers_delivery(Delivery::CacheEdits)
        {
            return Err(Illegal::CacheEdits(session));
        }
        // The kinds of the preset the plan's rules are (the api preset's for api).
        if !self.asks().facts().offers(self.kind) {
            return Err(Illegal::NotOffered {
                kind: self.kind,
                preset: self.preset,
            });
        }
        Ok(())
    }

    /// The preset's name as the JSON `policy.preset` gives it.
    pub fn preset_name(&self) -> &'static str {
        // The api preset's baseline keeps delivery server (`recorded` reads
        // no delivery; see `setup`).
        let api_baseline = self.kind.is_baseline() && self.delivery == Delivery::Server;
        if self.kind.is_api() || api_baseline {
            crate::harness::PresetId::SERVER.name()
        } else {
            self.preset.name()
        }
    }

    /// The `keep_recent` plan `kind` uses: the explicit value, else the kind's
    /// default; floored to 1 by both harnesses.
    pub fn keep_for(&self, kind: PlanKind) -> usize {
        self.keep_in_force(Some(kind))
    }

    /// The `keep_recent` in force where kind `kind` ran ([`Policy::keep_for`]),
    /// else the one every plan uses by default.
    pub fn keep_in_force(&self, kind: Option<PlanKind>) -> usize {
        let default = kind.map_or(engine::DEFAULT_KEEP, PlanKind::default_keep);
        self.keep_recent.unwrap_or(default).max(1) as usize
    }

    /// The plan kind in force at `req` with idle gap `gap`: the kind asked for,
    /// or what `auto` chooses there: claude, the kind of the version's row of
    /// SPEC §13.T1 (none in the rows without clearing); qwen (§5), `idle` where
    /// Qwen runs it and the gap holds, else `size` where Qwen runs that, else
    /// none (a notification, a goal turn…).
    pub fn kind_at(&self, req: &Request, gap: Option<f64>) -> Option<PlanKind> {
        match self.kind {
            // SPEC §16.I: a plan the session shows did not run is never auto's.
            PlanKind::Auto => self
                .preset
                .asks()
                .auto_kind(self, req, gap)
                .filter(|k| !self.did_not_run.iter().any(|d| d.0 == *k)),
            k => Some(k),
        }
    }

    /// Whether a kind of the preset reads the parameter of `key` (the
    /// harness's own parameters, Gemini CLI's `mask_*`, OpenCode's `prune_*`,
    /// are printed and carried only where a kind reads them).
    pub fn read_here(&self, key: &str) -> bool {
        let preset = self.preset;
        preset
            .rules()
            .offers
            .kinds
            .iter()
            .any(|k| k.reads(key, preset))
    }

    /// Whether a kind this policy may run holds `f`: the kind asked for, or
    /// one `auto` may choose under the preset.
    pub fn may_run(&self, f: impl Fn(PlanKind) -> bool) -> bool {
        match self.kind {
            PlanKind::Auto => self.preset.asks().auto_kinds().iter().any(|&k| f(k)),
            k => f(k),
        }
    }

    /// Whether the idle gap condition holds for `gap` (a null gap never does).
    pub fn gap_holds(&self, gap: Option<f64>) -> bool {
        self.gap_threshold_minutes >= 0.0 && gap.is_some_and(|g| g >= self.gap_threshold_minutes)
    }

    /// Whether error results may be cleared under this preset (never by `size`).
    pub fn errors_clearable(&self) -> bool {
        self.preset.rules().tools.errors_clearable && self.clear_errors
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use strum::VariantArray;

    /// Issue 22 item 5: `p` walks each preset's kinds in its cycle and back,
    /// and every kind it reaches, its delivery settled by `set_kind`, is one
    /// `Policy::check` lets the preset's own sessions run; `d` from there is
    /// either legal or refused by the same check, never a third answer.
    #[test]
    fn the_cycle_reaches_every_kind_settled_to_a_legal_delivery() {
        for &preset in PresetId::VARIANTS {
            let harness = preset.harness();
            let mut p = Policy::preset(harness);
            p.preset = harness;
            if preset.is_server() {
                p.kind = PlanKind::Api;
                p.delivery = Delivery::Server;
            }
            let start = p.kind;
            let mut seen = vec![start];
            for _ in 0..20 {
                let kind = p.next_kind();
                p.set_kind(kind);
                assert_eq!(p.kind, kind);
                p.check(harness).unwrap_or_else(|e| {
                    panic!(
                        "{}: {} with {}: {e}",
                        preset.name(),
                        kind.name(),
                        p.delivery.name()
                    )
                });
                if kind == start {
                    break;
                }
                seen.push(kind);
            }
            let want: Vec<PlanKind> = if preset.is_server() {
                vec![PlanKind::Api, PlanKind::Recorded]
            } else {
                preset.rules().offers.kinds.to_vec()
            };
            assert_eq!(seen, want, "{}", preset.name());
        }
        // budget settles to rewrite and says so; the api preset's baseline
        // keeps the server's delivery, another's goes to rewrite.
        let mut p = Policy::preset(HarnessId::Claude);
        p.delivery = Delivery::CacheEdits;
        let settled = p.set_kind(PlanKind::Budget);
        assert!(
            matches!(settled, Some(Settled::Delivery(s)) if !s.always && s.delivery == Delivery::Rewrite),
            "{settled:?}"
        );
        assert_eq!(p.delivery, Delivery::Rewrite);
        p.set_kind(PlanKind::IdleServer);
        assert_eq!(p.delivery, Delivery::Server);
        p.set_kind(PlanKind::Recorded);
        assert_eq!(p.delivery, Delivery::Rewrite);
        assert_eq!(p.next_kind(), PlanKind::Auto);
        assert_eq!(p.next_delivery(), Some(Delivery::CacheEdits));
        p.set_kind(PlanKind::IdleServer);
        assert_eq!(p.next_delivery(), None, "the server's stays");
    }
}

//! What a plan kind is to the engine: one implementation of [`Plan`] per kind,
//! in the kind's own file, listed once in `registry.rs`. The engine asks
//! the plan in force for its decision at a request; the legality check and the
//! keep window ask it which deliveries it takes and what it keeps by default.
//! A new kind is its file and one line of `registry::PLANS`.

use super::*;
use crate::policy::{Refusal, Refused};
use crate::session::HarnessId;

/// The `keep_recent` a plan uses when none is given and it says no other
/// (SPEC §5).
pub const DEFAULT_KEEP: u32 = 5;

/// One plan kind's answers.
pub(crate) trait Plan: Sync {
    /// The kind it is (its JSON name is the kind's).
    fn kind(&self) -> PlanKind;

    /// Its decision at `req`, the view and its carried state in `e`.
    fn decide(&self, e: &mut Engine<'_>, req: &Request, at: &At) -> Decided;

    /// Its own state in an engine under `policy` (a type in its file, read
    /// back by that type: `PlanStates::get`), where it keeps any.
    fn state(
        &self,
        _s: &Session,
        _derived: &Derived,
        _policy: &Policy,
    ) -> Option<super::own_state::PlanState> {
        None
    }

    /// The `keep_recent` it uses when none is given (SPEC §5: 5).
    fn default_keep(&self) -> u32 {
        DEFAULT_KEEP
    }

    /// The deliveries it takes (SPEC §5, §11, §13.S): the client's rewrite
    /// and cache edits, unless it is the server's own.
    fn deliveries(&self) -> &'static [Delivery] {
        &[Delivery::Rewrite, Delivery::CacheEdits]
    }

    /// The parameters it reads when it decides, by the table's key
    /// (`policy::params`), each with when it reads it: under `auto`, the
    /// `policy` object gives a numeric parameter the kind in force does not
    /// read no value (SPEC §15.6), `compare`'s grid does not multiply the kind
    /// by its list (SPEC §9), and a harness's own parameters are printed and
    /// carried only where one of its kinds reads them (`Policy::read_here`).
    /// None by default (the shared switches, protect and clear_errors, are
    /// every kind's).
    fn reads(&self) -> &'static [(&'static str, crate::policy::params::When)] {
        &[]
    }

    /// The values of the parameter of `key` in `compare`'s default grid for
    /// this kind (SPEC §9, §15.23); None: the session's value.
    fn grid(&self, _key: &str) -> Option<&'static [f64]> {
        None
    }

    /// The delivery tuning to it settles, where it takes one only (the TUI's
    /// `p` and `:policy` say so in these words). None by default.
    fn settles(&self) -> Option<Settles> {
        None
    }

    /// The delivery it runs with where none is asked (`edits`: the session's
    /// requests can carry cache edits): its settled one, else rewrite.
    fn default_delivery(&self, _edits: bool) -> Delivery {
        self.settles().map_or(Delivery::Rewrite, |s| s.delivery)
    }

    /// The deliveries `compare`'s default grid runs it with (`edits`: as
    /// above): its default one.
    fn grid_deliveries(&self, edits: bool) -> Vec<Delivery> {
        vec![self.default_delivery(edits)]
    }

    /// What a header shows of the parameters it reads, where it reads only
    /// its own (Gemini CLI's `mask`, OpenCode's `prune`); None: the shared
    /// ones, which the header shows itself.
    fn shown(&self, _p: &Policy) -> Option<Vec<crate::policy::params::Shown>> {
        None
    }

    /// An idle gap of its own, in minutes, that it waits for unless one is
    /// given (idle-server's, SPEC §13.S1). None by default.
    fn own_gap(&self) -> Option<f64> {
        None
    }

    /// The idle gap it waits for, in minutes, under `p` (SPEC §5): its own
    /// unless one is given, else the policy's.
    fn gap(&self, p: &Policy) -> f64 {
        match self.own_gap() {
            Some(g) if !p.gap_explicit => g,
            _ => p.gap_threshold_minutes,
        }
    }

    /// Its default keep in words where it is no one number (idle-server's,
    /// by version): `named` says whose versions they are.
    fn keep_words(&self, _named: bool) -> Option<String> {
        None
    }

    /// What the harness sent in place of a result it cleared, where it is
    /// not the placeholder shown (budget's `<persisted-output>` pointer).
    fn placeholder_note(&self) -> Option<&'static str> {
        None
    }

    /// A line of its own the text header adds while it is in force (budget's
    /// budget and gates), or none.
    fn header(&self, _p: &Policy) -> Option<String> {
        None
    }

    /// Where a replay that plans request k may start (SPEC §2, §5): at the
    /// last turn start before k where every clearing lapses there (the
    /// default), at k's view, or at the session's first request.
    fn replay(&self) -> Replay {
        Replay::Turn
    }

    /// How long a clearing of each trigger it fires stays in force, where it
    /// is not until a turn start (the default, [`Lasts::TurnStart`]).
    fn lasts(&self) -> &'static [(Trigger, Lasts)] {
        &[]
    }

    /// The `keep_recent` it uses under `p` at a request of Claude Code
    /// `version` (SPEC §5): the one given, else its default; None where it
    /// keeps by other means (the api preset's edits' `keep`, SPEC §11).
    fn keep_at(&self, p: &Policy, _version: Option<&str>) -> Option<u32> {
        Some(p.keep_recent.unwrap_or(self.default_keep()))
    }

    /// Whether its default keep is the request's version's (idle-server's,
    /// SPEC §13.S4): then no one default stands for a whole run.
    fn keeps_by_version(&self) -> bool {
        false
    }

    /// The value it uses for the parameter of `key` at a request of
    /// `version` where the value is its own, a default by version rather
    /// than the policy's (budget's warning, idle-server's least trigger);
    /// None: the policy's.
    fn own_value(&self, _key: &str, _p: &Policy, _version: Option<&str>) -> Option<u64> {
        None
    }

    /// What becomes of the clearings in force at a turn start, where the
    /// harness rebuilds the request from the originals (SPEC §5): they lapse
    /// before it decides, by default.
    fn at_turn_start(&self, _e: &Engine<'_>) -> AtTurnStart {
        AtTurnStart::Lapse
    }

    /// Whether the cache edits it sent stay in force at a turn start
    /// (count's deletions are cumulative within the view, SPEC §5); else
    /// only the edits of clearings still in force are sent again.
    fn edits_outlive_turns(&self) -> bool {
        false
    }

    /// Whether it decides each request afresh on the full history (the
    /// server's edit, SPEC §11): the clearings of the request before are not
    /// carried; they only tell which clearings are new.
    fn afresh(&self, _e: &Engine<'_>) -> bool {
        false
    }

    /// Whether it fires at the request being viewed (`forced`, SPEC §5):
    /// its timeline changes with the view, and what it clears there is the
    /// harness's command (Qwen Code's `/compress-fast`).
    fn fires_at_view(&self) -> bool {
        false
    }

    /// The record its harness writes where it clears (SPEC §10, §14): a
    /// record of this writer is compared with what it newly clears. None by
    /// default.
    fn writes(&self) -> Option<crate::vocab::Writer> {
        None
    }

    /// Its own line in the TUI's header while it is in force, in pieces, each
    /// with the key of the parameter it shows (marked where it was changed),
    /// or none.
    fn header_parts(
        &self,
        _p: &Policy,
        _req: &Request,
    ) -> Option<Vec<(Option<&'static str>, String)>> {
        None
    }

    /// Whether its step says whether the server sent its edit there
    /// (idle-server's: `Step::idle_server`), which the caveats read at every
    /// request (SPEC §13.C).
    fn reports_sends(&self) -> bool {
        false
    }

    /// Whether a firing of it without its harness's record is evidence
    /// (SPEC §10: budget's `microcompact_boundary` is written whenever it
    /// fires; none is shown as a record with `writer: null`).
    fn shows_unrecorded(&self) -> bool {
        false
    }

    /// Why it cannot run under `p` on a session of `session` (SPEC §5, §11,
    /// §13.S), asked before the legality check's own questions (a server
    /// delivery the kind does not take, cache edits the requests cannot
    /// carry, a kind the preset does not offer). None by default.
    fn refuses(&self, _p: &Policy, _session: HarnessId) -> Option<Refused> {
        None
    }

    /// The messages it leaves out of the wire at the request `e` last
    /// evaluated (Cline's truncated range), as ranges of the session's
    /// messages; none by default.
    fn dropped(&self, _e: &Engine<'_>) -> Vec<std::ops::Range<usize>> {
        Vec::new()
    }

    /// The text blocks it rewrites in the wire at the request `e` last
    /// evaluated: (message, block, text); none by default.
    fn wire_texts(&self, _e: &Engine<'_>) -> Vec<(usize, usize, &'static str)> {
        Vec::new()
    }

    /// Its refusal in words: the message, and the hint of what would work.
    fn refusal(&self, r: &Refusal) -> (String, String) {
        (
            format!(
                "plan kind {} does not run with the {} preset and delivery {}",
                r.kind.name(),
                r.preset.name(),
                r.delivery.name()
            ),
            "leave out --policy: auto runs the harness's own plan".into(),
        )
    }
}

/// What becomes of the clearings in force at a turn start (`Plan::at_turn_start`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AtTurnStart {
    /// They lapse before the plan decides.
    Lapse,
    /// They stay in force until the plan has decided over the view as if
    /// they had lapsed (the tracked size plan: most of them stay).
    Defer,
    /// The plan carries them and decides its whole prefix again (a carried
    /// `api` plan).
    Carry,
}

/// Where a replay that plans a request may start (`Plan::replay`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Replay {
    /// At the last turn start (where the harness has them): its clearings
    /// all lapse there and it reads nothing before it.
    Turn,
    /// At the view's first request: its clearings last over the view (count,
    /// budget, the baseline's boundaries), or it reads the request before
    /// (idle-server's "applied at k - 1").
    View,
    /// At the session's first request: its marks outlive a view and it reads
    /// into the view before a compaction (OpenCode's prune).
    Session,
}

/// The one delivery a plan takes, settled when the TUI tunes to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settles {
    pub delivery: Delivery,
    /// Said whenever the kind is tuned to (else only where it changed the
    /// delivery asked for).
    pub always: bool,
    /// What the TUI says.
    pub words: &'static str,
}

/// How long a plan's clearing stays in force (SPEC §5, §13.S8, §15.3,
/// §15.13): the engine lifts it there, asking the plan that fired it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lasts {
    /// At its request only: the server's edit of one request (idle-server's,
    /// an applied server edit replayed by `recorded`).
    Request,
    /// Until a turn start, where Claude Code rebuilds the request from the
    /// originals (idle, forced, size, and the others by default).
    TurnStart,
    /// Over the view: count's deletions and budget's clearings are
    /// cumulative, recorded boundaries and prune's marks are stored.
    View,
}

/// What a plan reads of the request besides the view.
pub(crate) struct At {
    /// The size total before it decides (the size plan's trigger).
    pub(crate) chars_before: u64,
    /// The idle gap as the harness measures it.
    pub(crate) gap: Option<f64>,
    /// A turn start where a carried `api` plan decides its whole prefix again.
    pub(crate) api_lapses: bool,
}

/// What the plan in force decided at a request ([`Engine::decide`]).
pub(crate) struct Decided {
    pub(super) verdict: Verdict,
    pub(super) api: Option<Box<ApiStep>>,
    pub(super) idle_server: Option<Box<IdleServerStep>>,
    /// A plan that made its clearings itself says what its own pass would
    /// list as new: (tokens, how many).
    pub(super) carried: Option<(u64, usize)>,
    /// `recorded` replayed an applied server edit here.
    pub(super) recorded_applied: bool,
}

impl Decided {
    /// A plan's verdict with nothing else to say.
    pub(super) fn verdict(verdict: Verdict) -> Decided {
        Decided {
            verdict,
            api: None,
            idle_server: None,
            carried: None,
            recorded_applied: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::registry::{PLANS, of};
    use super::*;
    use strum::VariantArray;

    /// Every kind but `auto` has exactly one plan, which says it is that kind.
    #[test]
    fn the_registry_holds_one_plan_per_kind() {
        for &kind in PlanKind::VARIANTS {
            let n = PLANS.iter().filter(|p| p.kind() == kind).count();
            let want = usize::from(!kind.is_auto());
            assert_eq!(n, want, "{}", kind.name());
            assert_eq!(of(kind).map(|p| p.kind()), (want == 1).then_some(kind));
        }
    }

    /// SPEC §10, §14: each record writer is one plan's, whose clearings its
    /// records are compared with.
    #[test]
    fn s10_each_record_writer_is_one_plan_s() {
        use crate::vocab::Writer;
        for &w in Writer::VARIANTS {
            let n = PLANS.iter().filter(|p| p.writes() == Some(w)).count();
            assert_eq!(n, 1, "{w:?}");
        }
        assert_eq!(PlanKind::writing(Writer::Budget), Some(PlanKind::Budget));
        assert_eq!(PlanKind::writing(Writer::Cached), Some(PlanKind::Count));
        assert_eq!(PlanKind::writing(Writer::Mask), Some(PlanKind::Mask));
        assert_eq!(PlanKind::writing(Writer::Prune), Some(PlanKind::Prune));
    }

    /// The deliveries each kind takes (SPEC §5, §11, §13.S).
    #[test]
    fn each_plan_says_the_deliveries_it_takes() {
        use Delivery::*;
        let takes = |k: PlanKind| of(k).map(|p| p.deliveries().to_vec());
        assert_eq!(takes(PlanKind::Api), Some(vec![Server]));
        assert_eq!(takes(PlanKind::IdleServer), Some(vec![Server]));
        assert_eq!(takes(PlanKind::Budget), Some(vec![Rewrite]));
        assert_eq!(
            takes(PlanKind::Recorded),
            Some(vec![Rewrite, CacheEdits, Server])
        );
        for k in [
            PlanKind::Idle,
            PlanKind::Forced,
            PlanKind::Size,
            PlanKind::Count,
        ] {
            assert_eq!(takes(k), Some(vec![Rewrite, CacheEdits]), "{}", k.name());
        }
        assert_eq!(of(PlanKind::Budget).map(|p| p.default_keep()), Some(3));
        assert_eq!(of(PlanKind::Idle).map(|p| p.default_keep()), Some(5));
    }
}

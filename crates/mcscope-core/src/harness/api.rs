//! Anthropic's server-side context editing (SPEC §11): the `api` preset. Its
//! sessions stay Claude-shaped; its plan is the server's (kind `api`, delivery
//! `server`). Upstream: Anthropic's "Context editing" documentation.

use super::caveat::{Rule, Template};
use super::*;
use serde_json::{Value, json};

/// Anthropic's server-side context editing (SPEC §11; Anthropic docs "Context
/// editing"): the Messages API shape, every tool clearable, the result replaced
/// by a placeholder, and the beta header the request carries. Loaded sessions
/// stay Claude-shaped (`messages-json` bodies, Claude Code transcripts).
pub(crate) static API: Preset = Preset {
    harness: HarnessId::Claude,
    name: "api",
    title: "Anthropic's server-side context editing",
    server_preset: true,
    offers: Offers {
        recorded_kinds: &[],
        caveats: &CAVEATS,
        kinds: &[PlanKind::Api, PlanKind::Recorded],
        ..super::claude::CLAUDE_FACTS.offers
    },
    tools: Tools {
        compactable: &[],
        every_tool: true,
        ..super::claude::CLAUDE_FACTS.tools
    },
    placeholder: CLEARED,
    beta_header: Some("context-management-2025-06-27"),
    ..super::claude::CLAUDE_FACTS
};

/// The api preset's answers.
pub(super) struct Api;

impl Harness for Api {
    fn facts(&self) -> &'static Preset {
        &API
    }

    fn auto_kind(&self, policy: &Policy, req: &Request, gap: Option<f64>) -> Option<PlanKind> {
        super::claude::Claude.auto_kind(policy, req, gap)
    }

    fn auto_kinds(&self) -> &'static [PlanKind] {
        super::claude::Claude.auto_kinds()
    }

    fn no_plan(&self, req: &Request) -> crate::vocab::NoRun {
        super::claude::Claude.no_plan(req)
    }

    fn lapses(&self, req: &Request) -> Lapses {
        super::claude::Claude.lapses(req)
    }

    /// `setup` runs the api kind under this preset whatever `--policy` asks.
    fn auto_words(&self) -> String {
        "api the api plan always".into()
    }
}

impl ForUsers for Api {
    /// The request's own field: a user sets it.
    fn availability(&self, _policy: &Policy, _s: &Session) -> Availability {
        Availability::User
    }

    /// The edits the row sends, as sent.
    fn knob(&self, policy: &Policy) -> Option<Value> {
        Some(json!({"context_management": {"edits": policy.api.edits_json()}}))
    }
}

pub(crate) const API_BETA_HEADER: Template = Template {
    id: "api_beta_header",
    short: "api: needs beta context-management-2025-06-27",
    text: "Context editing is a beta of the Messages API: the request carries the header anthropic-beta: context-management-2025-06-27. The server's edits are simulated from the documentation; the input tokens the trigger reads are the recorded prompt (plus what the server recorded clearing) where a response recorded usage, else an estimate.",
};

/// The api preset's caveat (SPEC §11), on every plan.
pub(super) static CAVEATS: [Rule; 1] = [Rule::always(API_BETA_HEADER)];

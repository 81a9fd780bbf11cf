//! What a caveat is and what its rule reads (SPEC §5 "What the harness may not
//! have run", §13.C): each harness's row lists its own (`Preset::caveats`), each
//! rule in the harness's file; `crate::caveats` makes a plan's list from them.

use crate::vocab::{PlanKind, Plausible, Policy};

/// One caveat as listed: its JSON id, the header's short form, and the full
/// text (SPEC §15.8: placeholders filled).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caveat {
    pub id: &'static str,
    pub short: &'static str,
    pub text: String,
}

/// A caveat's fixed parts: its text is a template where `{}`-free texts are
/// the whole text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Template {
    pub id: &'static str,
    pub short: &'static str,
    pub text: &'static str,
}

/// A caveat a harness shows (its row's `caveats`): the template, and when it
/// shows with what text (None: not here).
#[derive(Debug, Clone, Copy)]
pub struct Rule {
    pub template: Template,
    pub shows: Shows,
}

/// When a caveat shows: on every plan, while a plan kind is in force, or by a
/// rule of its own that also says the text.
#[derive(Debug, Clone, Copy)]
pub enum Shows {
    Always,
    OnKind(PlanKind),
    By(fn(&Ask<'_>, &Template) -> Option<String>),
}

impl Rule {
    /// A caveat on every plan of the harness's sessions.
    pub const fn always(template: Template) -> Rule {
        Rule {
            template,
            shows: Shows::Always,
        }
    }

    /// A caveat while plan `kind` is in force.
    pub const fn on_kind(template: Template, kind: PlanKind) -> Rule {
        Rule {
            template,
            shows: Shows::OnKind(kind),
        }
    }

    /// A caveat shown, and worded, by its own rule.
    pub const fn by(template: Template, rule: fn(&Ask<'_>, &Template) -> Option<String>) -> Rule {
        Rule {
            template,
            shows: Shows::By(rule),
        }
    }

    /// The caveat's text where it shows under `ask`.
    pub(crate) fn text(&self, ask: &Ask<'_>) -> Option<String> {
        match self.shows {
            Shows::Always => when(true, &self.template),
            Shows::OnKind(k) => when(ask.has(k), &self.template),
            Shows::By(rule) => rule(ask, &self.template),
        }
    }
}

/// What a caveat's rule reads: the policy, the plan kinds in force, each
/// request's facts and whether a recorded cut is in the view.
#[derive(Debug, Clone, Copy)]
pub struct Ask<'a> {
    pub policy: &'a Policy,
    pub kinds: &'a [PlanKind],
    pub at: &'a [At<'a>],
    pub cut: bool,
}

impl Ask<'_> {
    /// Whether plan kind `k` is in force.
    pub fn has(&self, k: PlanKind) -> bool {
        self.kinds.contains(&k)
    }

    /// Whether the policy is `auto`.
    pub fn auto(&self) -> bool {
        self.policy.kind.is_auto()
    }
}

/// The template's text where `cond` holds.
pub(crate) fn when(cond: bool, t: &Template) -> Option<String> {
    cond.then(|| t.text.to_string())
}

/// What the caveats read of one request (SPEC §13.C: "when the condition holds
/// at K"; `timeline`, `evidence` and `compare` give every request).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct At<'a> {
    /// The plan kind in force (auto's choice; None: none).
    pub kind: Option<PlanKind>,
    /// The version read (SPEC §13.T1).
    pub version: Option<&'a str>,
    pub plausible: Plausible,
    /// `idle-server` sent its edit here (SPEC §13.S6).
    pub idle_server_sent: bool,
    /// `idle-server` at 2.1.333+ found a page-text PDF row before the
    /// return here (SPEC §17.C.U7).
    pub pdf_page_texts: bool,
    /// The session is in a harness's older format, which tells no version,
    /// and records no clearing that would prove the plan on (SPEC §15.12).
    pub unversioned: bool,
    /// The session records the harness's own clearing (OpenCode's prune
    /// marks, Gemini CLI's masking): the plan was on, whatever the version.
    pub marked: bool,
    /// The file is an `opencode export --sanitize` (SPEC §17.O.5).
    pub sanitized: bool,
    /// The file's outputs carry its publisher's `REDACTED` and its marks
    /// differ from the simulation (SPEC §17.O.7, §18.16).
    pub redacted_differs: bool,
    /// The session records the harness summarizing where its plan would
    /// truncate (Cline's auto-condense, SPEC §18.4).
    pub condensed: bool,
}

/// Each distinct value of `f` over `at` (None left out), in order of first sight.
pub(crate) fn distinct<'a, T: PartialEq>(
    at: &[At<'a>],
    f: impl Fn(&At<'a>) -> Option<T>,
) -> Vec<T> {
    let mut out: Vec<T> = Vec::new();
    for v in at.iter().filter_map(f) {
        if !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

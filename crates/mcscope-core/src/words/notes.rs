//! A step's note in words: why the plan fired or not at a request, and why no
//! plan ran.

use super::*;

/// Why no plan (or not this one) runs at a request, in words.
impl Display for crate::policy::engine::NoRun {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        use crate::policy::engine::NoRun;
        let v = |(a, b, c): (u64, u64, u64)| format!("{a}.{b}.{c}");
        f.write_str(match self {
            NoRun::NoClearing { harness, versions } => {
                return write!(
                    f,
                    "auto: no plan ({} {versions} has no client-side tool-result clearing)",
                    harness.rules().title
                );
            }
            NoRun::BeforeSampled { harness, first } => {
                return write!(
                    f,
                    "auto: no plan ({} before {first}: no sampled build clears)",
                    harness.rules().title
                );
            }
            NoRun::NoPlan => "auto: no plan",
            NoRun::DidNotRun(kind) => {
                return write!(
                    f,
                    "auto: no plan (the {} plan did not run in this session: it would have cleared where it always writes a record, and left none)",
                    kind.name()
                );
            }
            NoRun::TurnOnly => "qwen looks at the gap only when a turn begins",
            NoRun::GoalHook => "a hook continuing a goal turn: Qwen runs no microcompaction here",
            NoRun::Send(kind) => send_words(*kind),
            NoRun::Unsaid => "",
            NoRun::DefaultOff => {
                "auto: no plan (prune is off unless the user's config sets compaction.prune: true, and no record shows it on)"
            }
            NoRun::Unsimulated { harness, versions } => {
                return write!(
                    f,
                    "auto: no plan ({} {versions} manages its context by a rule mcscope does not simulate yet)",
                    harness.rules().title
                );
            }
            NoRun::VersionGap { on_until, off_from } => {
                return write!(
                    f,
                    "auto: no plan (the version lies between {}, prune on by default, and {}, off; unsampled)",
                    v(*on_until),
                    v(*off_from)
                );
            }
        })
    }
}

/// A step's note: its plan's words (each in the plan's file).
impl Display for Note {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Note::NoRequests => f.write_str("the session has no requests"),
            Note::NotRun(why) => why.fmt(f),
            Note::Time(n) => n.fmt(f),
            Note::Size(n) => n.fmt(f),
            Note::Count(n) => n.fmt(f),
            Note::Budget(n) => n.fmt(f),
            Note::Api(n) => n.fmt(f),
            Note::IdleServer(why) => why.fmt(f),
            Note::Recorded(why) => why.fmt(f),
            Note::Mask(n) => n.fmt(f),
            Note::Prune(n) => n.fmt(f),
            Note::Cline(n) => n.fmt(f),
        }
    }
}

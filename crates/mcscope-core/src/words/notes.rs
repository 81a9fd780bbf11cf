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
            NoRun::TurnOnly => "qwen looks at the gap only when a turn begins",
            NoRun::GoalHook => "a hook continuing a goal turn: Qwen runs no microcompaction here",
            NoRun::Send(kind) => send_words(*kind),
            NoRun::Unsaid => "",
            NoRun::DefaultOff => {
                "auto: no plan (prune is off unless the user's config sets compaction.prune: true, and no record shows it on)"
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

impl Display for Note {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Note::NoRequests => f.write_str("the session has no requests"),
            Note::NotRun(why) => why.fmt(f),
            Note::IdleNotRun(why) => write!(f, "idle: {why}"),
            Note::IdleDisabled => f.write_str("idle: disabled (negative gap threshold)"),
            Note::IdleUnderGap { gap, threshold } => {
                write!(f, "idle: gap {} < {} min", fmt_gap(*gap), fmt_num(*threshold))
            }
            Note::ForcedElsewhere { at } => write!(f, "forced: acts at request {at} only"),
            Note::Time(why) => why.fmt(f),
            Note::TimeSavesNothing(why) => write!(f, "{why}, but nothing to clear saves tokens"),
            Note::SizeNotRun(why) => write!(f, "size: {why}"),
            Note::SizeOffWithIdle => f.write_str(
                "size: off with idle (negative gap and no size threshold set: Qwen's settings coupling)",
            ),
            Note::SizeDisabled => f.write_str("size: disabled (negative threshold)"),
            Note::SizeUnder { total, threshold } => {
                write!(f, "size: {} chars <= {}", fmt_int(*total), fmt_int(*threshold))
            }
            Note::Size {
                why,
                overage: None,
            } => why.fmt(f),
            Note::Size {
                why,
                overage: Some(gone),
            } => write!(f, "{why}; overage: only {} chars could go", fmt_int(*gone)),
            Note::CountUnder(CountWhy { active, trigger }) => {
                write!(f, "count: {active} active <= trigger {trigger}")
            }
            Note::Count(why) => why.fmt(f),
            Note::CountNothingSent(why) => write!(f, "{why}, but nothing sent can be deleted"),
            Note::BudgetGate(gate) => write!(f, "budget: {gate}"),
            Note::Budget { why, saved } => write!(f, "{why}; clearing saves {}", fmt_int(*saved)),
            Note::BudgetWithin(why) => write!(f, "{why}: nothing to clear"),
            Note::BudgetMinSaving { why, saved, min } => write!(
                f,
                "{why}, but clearing saves only {} < {} minimum",
                fmt_int(*saved),
                fmt_int(*min)
            ),
            Note::Api { prompt, edits } => {
                write!(f, "api: {prompt}; ")?;
                for (i, e) in edits.iter().enumerate() {
                    if i > 0 {
                        f.write_str("; ")?;
                    }
                    e.fmt(f)?;
                }
                Ok(())
            }
            Note::IdleServer(why) => why.fmt(f),
            Note::Recorded(why) => why.fmt(f),
            Note::MaskUnder(why) => write!(
                f,
                "{why}: under the {} least, nothing masked",
                fmt_int(why.min_prunable)
            ),
            Note::Mask { why, masked, saved } => write!(
                f,
                "{why}: masked {} (saves {} of the harness's tokens)",
                plural(*masked, "output"),
                fmt_int(*saved)
            ),
            Note::PruneMidLoop => {
                f.write_str("prune: runs when a prompt loop ends; none ended just before this request (it continues one, or the last was interrupted)")
            }
            Note::Prune { why, elsewhere } => {
                write!(
                    f,
                    "prune: {} tokens past the newest {} > {}: marked",
                    fmt_int(why.pruned),
                    fmt_int(why.protect),
                    fmt_int(why.minimum)
                )?;
                if *elsewhere > 0 {
                    write!(
                        f,
                        " ({} in the view before a compaction, which no request sends)",
                        plural(*elsewhere, "result")
                    )?;
                }
                Ok(())
            }
            Note::PruneUnder(why) => write!(
                f,
                "prune: {} tokens past the newest {} (of {} scanned) ≤ {}: nothing marked",
                fmt_int(why.pruned),
                fmt_int(why.protect),
                fmt_int(why.total),
                fmt_int(why.minimum)
            ),
        }
    }
}

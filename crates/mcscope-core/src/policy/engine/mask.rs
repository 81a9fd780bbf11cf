//! `mask` (SPEC §14): Gemini CLI's tool-output masking, run before every
//! request over the history already sent (`toolOutputMaskingService.ts`,
//! reference §2.1–§2.4). Newest first, the outputs are summed in the
//! harness's own token estimate; the one that makes the sum pass
//! `protect` and every older one are prunable; when they add up to at least
//! `min_prunable`, each is masked where the masked part is smaller.

use super::look::MaskIndexed;
use super::*;
use crate::policy::params::When;

/// `mask` at `req`. The history is the request's messages without the
/// content it sends (`history` before `sendMessageStream` pushes it); with
/// `protectLatestTurn` its last content is skipped too.
pub(super) fn mask<L: Look>(look: &L, p: &Policy, req: &Request) -> Verdict {
    let s = look.session();
    let why0 = MaskWhy {
        prunable: 0,
        min_prunable: p.mask_min_prunable_tokens,
        protect: p.mask_protect_tokens,
    };
    // The content this request sends is the last message when it is the
    // user's (a prompt or the function responses just produced).
    let sends_last = req.end > req.view_start
        && s.messages
            .get(req.end - 1)
            .is_some_and(|m| m.role == Role::User);
    let history_end = if sends_last { req.end - 1 } else { req.end };
    let scan_end = if p.mask_protect_latest_turn {
        history_end.saturating_sub(1).max(req.view_start)
    } else {
        history_end
    };
    // A step that need not say why each output was kept asks the engine's
    // index: it costs the outputs near the newest end, not the history.
    if !look.explains()
        && let Some(ix) = look.mask_index()
    {
        let v = indexed(look, ix, p, scan_end, why0);
        #[cfg(debug_assertions)]
        {
            let full = by_pass(look, p, history_end, scan_end, why0);
            assert_eq!(
                format!("{:?}", (&v.trigger, &v.note, &v.clear)),
                format!("{:?}", (&full.trigger, &full.note, &full.clear)),
                "mask by its index and by a pass"
            );
        }
        return v;
    }
    by_pass(look, p, history_end, scan_end, why0)
}

/// Mask as Gemini CLI runs it: a walk over every output of the history.
fn by_pass<L: Look>(
    look: &L,
    p: &Policy,
    history_end: usize,
    scan_end: usize,
    why0: MaskWhy,
) -> Verdict {
    let s = look.session();
    // Newest first: contents from the last, parts from the last.
    let mut order: Vec<usize> = (0..look.cands().len()).collect();
    order.sort_by_key(|&q| {
        let r = &s.results[look.cands()[q].result];
        std::cmp::Reverse((r.msg, r.part))
    });
    let mut kept = Why::default();
    let mut within = 0u64;
    let mut crossed = false;
    let mut prunable: Vec<(usize, u64)> = Vec::new();
    let mut total = 0u64;
    for q in order {
        let c = &look.cands()[q];
        let r = c.result;
        let res = &s.results[r];
        if c.dead_branch || !c.compactable || look.in_force(c) || res.already_cleared {
            continue;
        }
        // `getToolOutputContent` is null for a null response: never counted.
        let Some(tokens) = s.harness_tokens.get(r).copied().flatten() else {
            continue;
        };
        if res.msg >= history_end {
            kept.insert(q, Kept::Mask(MaskKept::Sending));
            continue;
        }
        if res.msg >= scan_end {
            kept.insert(q, Kept::Mask(MaskKept::Latest));
            continue;
        }
        if !crossed {
            within += tokens;
            if within > p.mask_protect_tokens {
                crossed = true;
                total += tokens;
                prunable.push((q, tokens));
            } else {
                kept.insert(
                    q,
                    Kept::Mask(MaskKept::Protected {
                        within,
                        protect: p.mask_protect_tokens,
                    }),
                );
            }
        } else {
            total += tokens;
            prunable.push((q, tokens));
        }
    }
    let why = MaskWhy {
        prunable: total,
        ..why0
    };
    if total < p.mask_min_prunable_tokens {
        for (q, _) in prunable {
            kept.insert(q, Kept::Mask(MaskKept::BatchUnder(why)));
        }
        let mut v = Verdict::none(Note::Mask(MaskNote::Under(why)));
        v.kept = kept;
        return v;
    }
    let mut clear = Vec::new();
    for (q, tokens) in prunable {
        let r = look.cands()[q].result;
        let masked_tokens = s.masking.tokens.get(r).copied().unwrap_or(u64::MAX);
        if tokens > masked_tokens {
            clear.push((
                q,
                ClearReason::Mask(MaskCleared {
                    why,
                    tokens,
                    masked_tokens,
                }),
            ));
        } else {
            kept.insert(
                q,
                Kept::Mask(MaskKept::NoSaving {
                    tokens,
                    masked_tokens,
                }),
            );
        }
    }
    masked(clear, why, kept)
}

/// The verdict of a batch that qualified: the outputs masked (each one's
/// saving in its reason), nothing smaller to put in meaning nothing masked.
fn masked(mut clear: Vec<(usize, ClearReason)>, why: MaskWhy, kept: Why) -> Verdict {
    let saved = clear
        .iter()
        .map(|(_, c)| match c {
            ClearReason::Mask(MaskCleared {
                tokens,
                masked_tokens,
                ..
            }) => tokens - masked_tokens,
            _ => 0,
        })
        .sum();
    // Newest first is the harness's order; the engine lists clearings by rank.
    clear.sort_by_key(|&(q, _)| q);
    Verdict {
        trigger: (!clear.is_empty()).then_some(Trigger::Mask),
        note: Note::Mask(MaskNote::Masked {
            why,
            masked: clear.len(),
            saved,
        }),
        clear,
        media: Vec::new(),
        strip: Vec::new(),
        media_kept: 0,
        target: None,
        kept,
        pre_tokens: None,
    }
}

/// The same decision from the engine's index (`mask_index`), with no
/// reasons for what is kept: the newest outputs up to where the protection
/// ends, one prefix sum for the prunable ones, and only those it masks.
fn indexed<L: Look>(
    look: &L,
    ix: &dyn MaskIndexed,
    p: &Policy,
    scan_end: usize,
    why0: MaskWhy,
) -> Verdict {
    let s = look.session();
    let mut within = 0u64;
    let mut crossing = None;
    for q in ix.members_newest() {
        let r = look.cands()[q].result;
        let res = &s.results[r];
        if res.msg >= scan_end {
            // Being sent, or the latest turn: never counted.
            continue;
        }
        within += s.harness_tokens.get(r).copied().flatten().unwrap_or(0);
        if within > p.mask_protect_tokens {
            crossing = Some(r);
            break;
        }
    }
    let total = crossing.map_or(0, |r| ix.tokens_through(r));
    let why = MaskWhy {
        prunable: total,
        ..why0
    };
    if total < p.mask_min_prunable_tokens {
        return Verdict::none(Note::Mask(MaskNote::Under(why)));
    }
    let mut clear = Vec::new();
    if let Some(r) = crossing {
        for q in ix.savers_through(r) {
            let r = look.cands()[q].result;
            clear.push((
                q,
                ClearReason::Mask(MaskCleared {
                    why,
                    tokens: s.harness_tokens.get(r).copied().flatten().unwrap_or(0),
                    masked_tokens: s.masking.tokens.get(r).copied().unwrap_or(u64::MAX),
                }),
            ));
        }
    }
    masked(clear, why, Why::default())
}

/// `mask` (SPEC §14): Gemini CLI's tool-output masking.
pub(super) struct Mask;

impl super::plan::Plan for Mask {
    /// Its index of the view's tool outputs (`mask_index`), where the policy
    /// may run it.
    fn state(&self, _s: &Session, _d: &Derived, p: &Policy) -> Option<PlanState> {
        PlanState::empty_where_runs::<super::mask_index::MaskIndex>(p)
    }

    /// What a header shows of its own parameters, in order (SPEC §15.13).
    fn shown(&self, p: &Policy) -> Option<Vec<crate::policy::params::Shown>> {
        use crate::numbers::fmt_int;
        use crate::policy::params;
        Some(vec![
            params::shown(
                "mask_protect_tokens",
                "protect ",
                fmt_int(p.mask_protect_tokens),
                " tok",
            ),
            params::shown(
                "mask_min_prunable_tokens",
                "prunable ≥ ",
                fmt_int(p.mask_min_prunable_tokens),
                "",
            ),
            params::shown(
                "mask_protect_latest_turn",
                "",
                if p.mask_protect_latest_turn {
                    "latest turn skipped"
                } else {
                    "latest turn scanned"
                }
                .into(),
                "",
            ),
        ])
    }

    /// Its own thresholds (`mask.rs`), none of the shared ones.
    /// Gemini CLI's masking writes its placeholder into the file (SPEC §14).
    fn writes(&self) -> Option<crate::vocab::Writer> {
        Some(crate::vocab::Writer::Mask)
    }

    fn reads(&self) -> &'static [(&'static str, When)] {
        &[
            ("mask_protect_tokens", When::Always),
            ("mask_min_prunable_tokens", When::Always),
            ("mask_protect_latest_turn", When::Always),
        ]
    }

    fn kind(&self) -> PlanKind {
        PlanKind::Mask
    }

    fn decide(&self, e: &mut Engine<'_>, req: &Request, _: &super::plan::At) -> Decided {
        Decided::verdict(mask(&*e, &e.policy, req))
    }
}

impl std::fmt::Display for MaskWhy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "mask: {} tokens of tool output past the newest {}",
            crate::numbers::fmt_int(self.prunable),
            crate::numbers::fmt_int(self.protect)
        )
    }
}

/// What `mask` said at a request (SPEC §14): the prunable tokens past the
/// protected window, and the least that lets it mask; `masked` how many it
/// masked.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MaskNote {
    Under(MaskWhy),
    Masked {
        why: MaskWhy,
        masked: usize,
        saved: u64,
    },
}

impl std::fmt::Display for MaskNote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use crate::numbers::{fmt_int, plural};
        match self {
            MaskNote::Under(why) => write!(
                f,
                "{why}: under the {} least, nothing masked",
                fmt_int(why.min_prunable)
            ),
            MaskNote::Masked { why, masked, saved } => write!(
                f,
                "{why}: masked {} (saves {} of the harness's tokens)",
                plural(*masked, "output"),
                fmt_int(*saved)
            ),
        }
    }
}

/// Past the newest `protect` tokens of tool output, in a batch of at least
/// `min_prunable`: its tokens and the masked part's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MaskCleared {
    pub why: MaskWhy,
    pub tokens: u64,
    pub masked_tokens: u64,
}

impl std::fmt::Display for MaskCleared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use crate::numbers::fmt_int;
        write!(
            f,
            "{} (>= {}); masked: {} tokens -> {}",
            self.why,
            fmt_int(self.why.min_prunable),
            fmt_int(self.tokens),
            fmt_int(self.masked_tokens)
        )
    }
}

/// Why `mask` kept an output.
#[derive(Debug, Clone, PartialEq)]
pub enum MaskKept {
    /// Among the newest `protect` tokens of tool output (`within` counted so
    /// far, this one included).
    Protected { within: u64, protect: u64 },
    /// The latest content of the history is skipped (`protectLatestTurn`).
    Latest,
    /// The output this request sends: not in the history yet.
    Sending,
    /// Prunable, but the batch is under the least.
    BatchUnder(MaskWhy),
    /// The masked part would not be smaller (`savings <= 0`).
    NoSaving { tokens: u64, masked_tokens: u64 },
}

impl std::fmt::Display for MaskKept {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use crate::numbers::fmt_int;
        match self {
            MaskKept::Protected { within, protect } => write!(
                f,
                "in the newest {} tokens of tool output ({} so far)",
                fmt_int(*protect),
                fmt_int(*within)
            ),
            MaskKept::Latest => {
                f.write_str("in the latest content: not scanned (protectLatestTurn)")
            }
            MaskKept::Sending => {
                f.write_str("sent by this request: not in the history masking reads")
            }
            MaskKept::BatchUnder(why) => write!(
                f,
                "prunable, but {} tokens < the {} least",
                fmt_int(why.prunable),
                fmt_int(why.min_prunable)
            ),
            MaskKept::NoSaving {
                tokens,
                masked_tokens,
            } => write!(
                f,
                "the masked text ({} tokens) is not smaller than the output ({})",
                fmt_int(*masked_tokens),
                fmt_int(*tokens)
            ),
        }
    }
}

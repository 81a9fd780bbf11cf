//! The header's text as groups of pieces: a value, its label and the mark of
//! where it came from stay together on one row. The rows depend on the width
//! (a line that does not fit goes on in the next row), so the layout, and the
//! mouse with it, asks here how many there are; `ui` only gives them colour.

use super::*;
use crate::config::Source;
use crate::numbers::{fmt_int, fmt_num};
use crate::tui::layout;

/// What a piece of the header is, for its style.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    /// The session's file name.
    Name,
    Plain,
    /// A value not at the preset's default, with its mark.
    Changed,
    Following,
    Diagnostics,
}

/// One piece of header text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Piece {
    pub text: String,
    pub tone: Tone,
}

/// Pieces that stay on one row: a value with its label and mark.
pub type Group = Vec<Piece>;

/// Between two groups on a row.
pub const GROUP_SEP: &str = "  ";

/// The mark of a value's source: `*` tuned here or set by a flag, `ˢ` the
/// sidecar, `ᶜ` the configuration file (the help's legend says so). Raised, so
/// that `keep 2ˢ` does not read as "2 seconds".
pub fn source_mark(source: Source) -> &'static str {
    match source {
        Source::Preset => "",
        Source::Flag => "*",
        Source::Sidecar => "ˢ",
        Source::Config => "ᶜ",
    }
}

fn plain(text: impl Into<String>) -> Piece {
    Piece {
        text: text.into(),
        tone: Tone::Plain,
    }
}

impl SessionView {
    /// The header's rows at `width` columns: the session line's groups, then
    /// the plan line's, each going on in an indented row where it does not fit.
    pub fn header_rows(&self, width: u16) -> Vec<Group> {
        let mut rows = Vec::new();
        for line in self.header_groups() {
            let widths: Vec<usize> = line
                .iter()
                .map(|g| g.iter().map(|p| p.text.chars().count()).sum())
                .collect();
            for (n, r) in layout::pack(&widths, GROUP_SEP.len(), 2, width as usize)
                .into_iter()
                .enumerate()
            {
                let mut row: Group = Vec::new();
                if n > 0 {
                    row.push(plain("  "));
                }
                for (i, g) in line[r.clone()].iter().enumerate() {
                    if i > 0 {
                        row.push(plain(GROUP_SEP));
                    }
                    row.extend(g.iter().cloned());
                }
                rows.push(row);
            }
        }
        rows
    }

    /// The session line and the plan line, as groups.
    pub fn header_groups(&self) -> [Vec<Group>; 2] {
        [self.session_groups(), self.plan_groups()]
    }

    /// What a narrow screen must keep comes first: request, gap and turn kind.
    fn session_groups(&self) -> Vec<Group> {
        let s = &self.setup.session;
        let name = s
            .path
            .file_name()
            .map(|n| crate::sanitize::line(&n.to_string_lossy()).into_owned())
            .unwrap_or_default();
        let req = &self.plan.request;
        let mut out = vec![
            vec![Piece {
                text: name,
                tone: Tone::Name,
            }],
            vec![plain(format!("request {}/{}", self.k, s.requests.len()))],
            vec![plain(crate::numbers::gap_words(req.gap_minutes))],
            vec![plain(match &req.send {
                // A Qwen request: its send kind (its words are a note below).
                Some(send) => send.kind.name(),
                None if req.begins_turn => "new turn",
                None => "tool loop",
            })],
            vec![plain(
                req.at.as_deref().map_or("-".into(), crate::zone::local),
            )],
            vec![plain(format!("{} ({})", s.format.name(), s.harness.name()))],
        ];
        if self.following() {
            out.push(vec![Piece {
                text: "following".into(),
                tone: Tone::Following,
            }]);
        }
        if !s.diagnostics.is_empty() {
            out.push(vec![Piece {
                text: format!("{} diagnostics", s.diagnostics.len()),
                tone: Tone::Diagnostics,
            }]);
        }
        out
    }

    /// `text` with the mark of where the value of parameter `key` came from:
    /// `*` where it differs from the value the session was opened with.
    fn marked(&self, key: &str, text: String) -> Piece {
        self.marked_if(self.changed().contains(&key), key, text)
    }

    /// As [`Self::marked`], where whether the value changed is the caller's
    /// to say (a part of a parameter: one field of an api edit).
    fn marked_if(&self, changed: bool, key: &str, text: String) -> Piece {
        let mark = if changed {
            "*"
        } else {
            source_mark(self.setup.settings.source(key))
        };
        if mark.is_empty() {
            plain(text)
        } else {
            Piece {
                text: format!("{text}{mark}"),
                tone: Tone::Changed,
            }
        }
    }

    fn plan_groups(&self) -> Vec<Group> {
        let p = self.policy();
        if p.kind.is_api() {
            return self.api_groups();
        }
        if p.kind.is_baseline() {
            // The baseline reads no parameter (SPEC §15.3): none is shown.
            return vec![
                vec![
                    plain("plan "),
                    self.marked("kind", p.kind.name().into()),
                    plain(format!(" ({})", p.preset_name())),
                ],
                vec![plain("what the records prove the harness cleared")],
            ];
        }
        // Under auto, the kind it chose at K.
        let chosen = if p.kind.is_auto() && self.plan.request.index > 0 {
            format!(" → {}", self.plan.step.kind.map_or("none", |k| k.name()))
        } else {
            String::new()
        };
        // A harness's own plan reads only its own parameters (SPEC §15.13),
        // also where auto chose none there (the plan it would run).
        let own = [
            Some(p.kind),
            self.plan.step.kind,
            p.preset.rules().offers.grid_kinds.first().copied(),
        ]
        .into_iter()
        .flatten()
        .find_map(|k| k.shown(p));
        if let Some(own) = own {
            let mut out = vec![vec![
                plain("plan "),
                self.marked("kind", p.kind.name().into()),
                plain(format!("{chosen} ({})", p.preset.name())),
            ]];
            out.extend(
                own.into_iter()
                    .map(|o| vec![plain(o.before), self.marked(o.key, o.value), plain(o.after)]),
            );
            out.push(vec![self.marked("delivery", p.delivery.name().into())]);
            return out;
        }
        let mut out = vec![
            vec![
                plain("plan "),
                self.marked("kind", p.kind.name().into()),
                plain(format!("{chosen} ({})", p.preset.name())),
            ],
            vec![
                plain("keep "),
                self.marked("keep_recent", self.keep_in_force().to_string()),
            ],
            vec![
                plain("gap ≥ "),
                self.marked(
                    "gap_threshold_minutes",
                    format!("{} min", fmt_num(p.gap_threshold_minutes)),
                ),
            ],
            vec![
                plain("size > "),
                self.marked("size_threshold", fmt_int(p.size_threshold.max(0) as u64)),
            ],
            vec![
                plain("trigger "),
                self.marked("trigger_threshold", p.trigger_threshold.to_string()),
            ],
            vec![self.marked("delivery", p.delivery.name().into())],
            vec![
                plain("protect "),
                self.marked("protect", if p.protect { "on" } else { "off" }.into()),
            ],
        ];
        // Shown where it is off (the size plan then clears to the threshold,
        // not below it), with where that came from.
        if !p.low_watermark {
            out.push(vec![
                self.marked("low_watermark", "low watermark off".into()),
            ]);
        }
        // Shown where it was set (each preset has its own default).
        let errors_set = self.changed().contains(&"clear_errors")
            || self.setup.settings.source("clear_errors") != crate::config::Source::Preset;
        if errors_set {
            let words = if p.errors_clearable() {
                "errors cleared"
            } else {
                "errors kept"
            };
            out.push(vec![self.marked("clear_errors", words.into())]);
        }
        // A line of the plan in force's own (budget's).
        let own = self
            .plan
            .step
            .kind
            .and_then(|k| k.header_parts(p, &self.plan.request));
        if let Some(parts) = own {
            out.push(
                parts
                    .into_iter()
                    .map(|(key, text)| match key {
                        Some(key) => self.marked(key, text),
                        None => plain(text),
                    })
                    .collect(),
            );
        }
        out
    }

    /// The api preset's plan line (SPEC §11): each edit in short, `keep` marked
    /// where it came from (the `+`/`-` keys tune the first clear_tool_uses edit's).
    fn api_groups(&self) -> Vec<Group> {
        use crate::policy::api::{Edit, TriggerOn};
        let p = self.policy();
        let mut out = vec![vec![
            plain("plan "),
            self.marked("kind", PlanKind::Api.name().into()),
            plain(format!(" ({})", crate::harness::PresetId::SERVER.name())),
        ]];
        // Each value of an edit is marked by itself: changed where the edit
        // the session opened with had another (the keys tune keep alone).
        let opened = &self.opened_with.api.edits;
        for (i, e) in p.api.edits.iter().enumerate() {
            match e {
                Edit::ClearToolUses {
                    trigger,
                    keep,
                    clear_at_least,
                    exclude_tools,
                    ..
                } => {
                    let was = match opened.get(i) {
                        Some(Edit::ClearToolUses {
                            trigger,
                            keep,
                            clear_at_least,
                            ..
                        }) => Some((trigger, keep, clear_at_least)),
                        _ => None,
                    };
                    let words = match trigger {
                        TriggerOn::InputTokens(v) => format!("> {} tok", fmt_int(*v)),
                        TriggerOn::ToolUses(v) => format!("> {v} uses"),
                    };
                    out.push(vec![
                        plain("clear_tool_uses "),
                        self.marked_if(was.is_none_or(|w| w.0 != trigger), "api_edits", words),
                    ]);
                    out.push(vec![
                        plain("keep "),
                        self.marked_if(
                            was.is_none_or(|w| w.1 != keep),
                            "api_edits",
                            keep.to_string(),
                        ),
                    ]);
                    if let Some(least) = clear_at_least {
                        out.push(vec![
                            plain("at least "),
                            self.marked_if(
                                was.is_none_or(|w| w.2 != clear_at_least),
                                "api_edits",
                                fmt_int(*least),
                            ),
                        ]);
                    }
                    if !exclude_tools.is_empty() {
                        out.push(vec![plain(format!("exclude {}", exclude_tools.join(",")))]);
                    }
                }
                Edit::ClearThinking { keep } => out.push(vec![plain(match keep {
                    Some(k) => format!("clear_thinking keep {k}"),
                    None => "clear_thinking keep all".into(),
                })]),
            }
        }
        out.push(vec![self.marked("delivery", p.delivery.name().into())]);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_source_marks_are_raised_and_distinct() {
        let marks = [Source::Flag, Source::Sidecar, Source::Config].map(source_mark);
        assert_eq!(marks, ["*", "ˢ", "ᶜ"]);
        assert_eq!(source_mark(Source::Preset), "");
    }
}

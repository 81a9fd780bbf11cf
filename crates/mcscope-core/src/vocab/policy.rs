//! The parameters of a plan as plain values: the `Policy` (the JSON `policy`
//! object, a sidecar, flags) and the `api` preset's edits as the Messages API
//! takes them (SPEC §11). What they default to and how they are read and
//! checked is `policy`'s; a harness reads them from here.

use super::{Delivery, HarnessId, PlanKind};
use serde::Serialize;
use serde_json::{Value, json};

pub const CLEAR_TOOL_USES: &str = "clear_tool_uses_20250919";
pub const CLEAR_THINKING: &str = "clear_thinking_20251015";

/// What a `clear_tool_uses` trigger counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum TriggerOn {
    InputTokens(u64),
    ToolUses(u64),
}

/// `clear_tool_inputs`: false, true, or the tools whose inputs are cleared.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum ClearInputs {
    None,
    All,
    Tools(Vec<String>),
}

impl ClearInputs {
    pub fn covers(&self, tool: &str) -> bool {
        match self {
            ClearInputs::None => false,
            ClearInputs::All => true,
            ClearInputs::Tools(t) => t.iter().any(|x| x == tool),
        }
    }
}

/// One edit of `context_management.edits`, with the API's defaults filled in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum Edit {
    ClearToolUses {
        trigger: TriggerOn,
        keep: u64,
        clear_at_least: Option<u64>,
        exclude_tools: Vec<String>,
        clear_inputs: ClearInputs,
    },
    /// `keep`: the last n assistant turns that hold thinking; None = `"all"`.
    ClearThinking { keep: Option<u64> },
}

impl Edit {
    pub fn type_name(&self) -> &'static str {
        match self {
            Edit::ClearToolUses { .. } => CLEAR_TOOL_USES,
            Edit::ClearThinking { .. } => CLEAR_THINKING,
        }
    }

    /// The edit as the client sends it (defaults written out).
    pub fn to_json(&self) -> Value {
        match self {
            Edit::ClearToolUses {
                trigger,
                keep,
                clear_at_least,
                exclude_tools,
                clear_inputs,
            } => {
                let trigger = match trigger {
                    TriggerOn::InputTokens(v) => json!({"type": "input_tokens", "value": v}),
                    TriggerOn::ToolUses(v) => json!({"type": "tool_uses", "value": v}),
                };
                let mut o = json!({
                    "type": CLEAR_TOOL_USES,
                    "trigger": trigger,
                    "keep": {"type": "tool_uses", "value": keep},
                });
                if let Some(v) = clear_at_least {
                    o["clear_at_least"] = json!({"type": "input_tokens", "value": v});
                }
                if !exclude_tools.is_empty() {
                    o["exclude_tools"] = json!(exclude_tools);
                }
                match clear_inputs {
                    ClearInputs::None => {}
                    ClearInputs::All => o["clear_tool_inputs"] = json!(true),
                    ClearInputs::Tools(t) => o["clear_tool_inputs"] = json!(t),
                }
                o
            }
            Edit::ClearThinking { keep } => match keep {
                Some(n) => {
                    json!({"type": CLEAR_THINKING, "keep": {"type": "thinking_turns", "value": n}})
                }
                None => json!({"type": CLEAR_THINKING, "keep": "all"}),
            },
        }
    }
}

/// The documented defaults of `clear_tool_uses_20250919`.
pub fn default_clear_tool_uses() -> Edit {
    Edit::ClearToolUses {
        trigger: TriggerOn::InputTokens(100_000),
        keep: 3,
        clear_at_least: None,
        exclude_tools: Vec::new(),
        clear_inputs: ClearInputs::None,
    }
}

/// The `api` preset's settings: the edits in the order sent and the readings
/// mcscope takes where the documentation is silent (SPEC §11, each an option).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ApiSpec {
    pub edits: Vec<Edit>,
    /// Excluded tools' uses count toward `keep` (default: they do not).
    pub excluded_count_toward_keep: bool,
    /// The trigger fires at `>=` (default: strictly `>`).
    pub trigger_inclusive: bool,
    pub placeholder: String,
}

impl ApiSpec {
    /// The first `clear_tool_uses` edit (what the TUI's `+`/`-` tune).
    pub fn first_tool_uses_keep(&mut self) -> Option<&mut u64> {
        self.edits.iter_mut().find_map(|e| match e {
            Edit::ClearToolUses { keep, .. } => Some(keep),
            _ => None,
        })
    }

    /// The first `clear_tool_uses` edit's keep, if there is one.
    pub fn first_keep(&self) -> Option<u64> {
        self.edits.iter().find_map(|e| match e {
            Edit::ClearToolUses { keep, .. } => Some(*keep),
            _ => None,
        })
    }

    /// The first `clear_tool_uses` edit's trigger value, if there is one.
    pub fn first_trigger(&self) -> Option<u64> {
        self.edits.iter().find_map(|e| match e {
            Edit::ClearToolUses {
                trigger: TriggerOn::InputTokens(v) | TriggerOn::ToolUses(v),
                ..
            } => Some(*v),
            _ => None,
        })
    }

    /// Sets the first `clear_tool_uses` edit's trigger value (of the type it
    /// has) and keep value, adding the documented default edit when there is
    /// none (`compare`'s api lists).
    pub fn tune_first_tool_uses(&mut self, trigger_value: Option<u64>, keep_value: Option<u64>) {
        if !self
            .edits
            .iter()
            .any(|e| matches!(e, Edit::ClearToolUses { .. }))
        {
            self.edits.push(default_clear_tool_uses());
        }
        if let Some(Edit::ClearToolUses { trigger, keep, .. }) = self
            .edits
            .iter_mut()
            .find(|e| matches!(e, Edit::ClearToolUses { .. }))
        {
            if let Some(v) = trigger_value {
                *trigger = match trigger {
                    TriggerOn::InputTokens(_) => TriggerOn::InputTokens(v),
                    TriggerOn::ToolUses(_) => TriggerOn::ToolUses(v),
                };
            }
            if let Some(k) = keep_value {
                *keep = k;
            }
        }
    }

    /// `context_management.edits` as the client sends them.
    pub fn edits_json(&self) -> Vec<Value> {
        self.edits.iter().map(Edit::to_json).collect()
    }

    /// The trigger comparison (strict unless `--api-trigger-inclusive`).
    pub fn exceeds(&self, value: u64, threshold: u64) -> bool {
        if self.trigger_inclusive {
            value >= threshold
        } else {
            value > threshold
        }
    }
}

/// The parameters of a plan: the JSON `policy` object, a sidecar, or flags.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Policy {
    pub kind: PlanKind,
    pub preset: HarnessId,
    /// The explicit value (flag, sidecar, config); None: the default of the kind
    /// that runs (SPEC §5 "Defaults are per plan kind").
    pub keep_recent: Option<u32>,
    pub gap_threshold_minutes: f64,
    pub size_threshold: i64,
    pub low_watermark: bool,
    pub trigger_threshold: u32,
    pub delivery: Delivery,
    pub protect: bool,
    pub clear_errors: bool,
    /// Whether `size_threshold` was set (flag, sidecar, config): with the qwen
    /// preset, a negative gap without one turns size off too (SPEC §5).
    #[serde(skip)]
    pub size_explicit: bool,
    /// `budget`: the tool-result tokens the plan clears down to.
    pub budget_tokens: u64,
    /// `budget`: the least saving that lets it fire.
    pub budget_min_saving: u64,
    /// `budget`: the usage gate; None = by the request's version (SPEC §5).
    pub budget_warning_tokens: Option<u64>,
    /// The `api` preset's edits and readings (SPEC §11); read only by kind `api`.
    pub api: ApiSpec,
    /// `idle-server`: the least trigger it sends (None: keep + 15, SPEC §13.S4).
    pub min_trigger_tool_uses: Option<u32>,
    /// `mask` (SPEC §15.13): the newest tool-output tokens protected, the
    /// least prunable tokens that let it mask, and whether the latest content
    /// of the history is skipped.
    pub mask_protect_tokens: u64,
    pub mask_min_prunable_tokens: u64,
    pub mask_protect_latest_turn: bool,
    /// Whether the gap was given (flag, sidecar, config): `idle-server` waits
    /// 65 minutes otherwise (SPEC §13.S1).
    #[serde(skip)]
    pub gap_explicit: bool,
    /// `prune` (OpenCode, SPEC §15.13): the newest tool-output tokens it never
    /// clears (`PRUNE_PROTECT`), and the least it clears (`PRUNE_MINIMUM`).
    pub prune_protect_tokens: u64,
    pub prune_minimum_tokens: u64,
    /// `cline` (SPEC §17.K.3, §18.2): the context window its limit is taken
    /// from (None: the model's, §18.4), and whether it replaces duplicate
    /// file reads before it truncates (`--no-dedupe`: a what-if).
    pub cline_context_window: Option<u64>,
    pub cline_dedupe: bool,
    /// SPEC §16.I: plan kinds the session shows did not run (they would have
    /// cleared where their harness always writes a record, and left none):
    /// `auto` plans nothing for them. Each with the request where it would
    /// first have cleared and how many results.
    #[serde(skip)]
    pub did_not_run: Vec<(PlanKind, usize, usize)>,
}

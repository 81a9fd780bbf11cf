//! The help overlay's lines, made from the keymap tables, the `:` commands and
//! the plan kinds (nothing here is typed twice).

use super::*;

/// The help: every binding of the keymap, the `:` commands, then a legend of the
/// glyphs and marks.
pub fn help_lines() -> Vec<String> {
    let mut lines: Vec<String> = KEYMAP
        .iter()
        .map(|b| format!("{:>6}  {}", b.label(), b.help()))
        .collect();
    lines.push(format!(
        "{:>6}  quit from anywhere; Ctrl-Z suspends",
        "Ctrl-C"
    ));
    lines.push(String::new());
    lines.extend(command_and_kind_lines());
    lines.push(String::new());
    lines.push("Legend: statuses in the age list".into());
    use crate::policy::Status;
    for (st, what) in [
        (Status::Kept, "sent as recorded"),
        (Status::Cleared, "replaced by the placeholder"),
        (Status::Protected, "managed memory, never cleared"),
        (Status::AlreadyCleared, "the transcript already cleared it"),
        (Status::Cut, "cut by Claude Code (recorded)"),
        (Status::ErrorKept, "an error result, kept"),
        (Status::NotCompactable, "a tool the plans never clear"),
    ] {
        lines.push(format!(
            "  {} {:<16} {what}",
            crate::report::glyph(st),
            st.name()
        ));
    }
    lines.push("  ↗ symlink escape: the path leaves the root".into());
    lines.push("  ? unresolved or ambiguous id".into());
    lines.push(String::new());
    lines.push("Legend: the footer's marks line, under the".into());
    lines.push("  request's own column (one column may hold".into());
    lines.push("  several requests: the first mark listed wins)".into());
    lines.push("  ! an observed cache break; its cause's glyph".into());
    lines.push("    where the bill names one: T ttl, R resume,".into());
    lines.push("    ^ compaction, ✂ clearing, ⚙ tools, M model,".into());
    lines.push("    ? unexplained ($: the bill panel)".into());
    lines.push("  ✕ the simulated cache prefix broke here".into());
    lines.push("  ◇ harness evidence in the transcript".into());
    lines.push("  ^ a compaction before this request".into());
    lines.push("  ▲ a plan fired at this request".into());
    lines.push("  the request shown is highlighted on every line".into());
    lines.push("  sim ctx~ the simulated context: recorded prompt".into());
    lines.push("           size − tokens cleared (an estimate)".into());
    lines.push(String::new());
    lines.push("Legend: the diff and the header".into());
    lines.push("  - removed  + added  ~ changed (left: local,".into());
    lines.push("    right: wire); ⋯ n unchanged lines ⋯ is a fold".into());
    lines.push("  * a parameter set by a flag or changed here".into());
    lines.push("  ˢ set by the session's sidecar (.mcscope.json)".into());
    lines.push("  ᶜ set by the configuration file".into());
    lines
}

/// The widest line of the help's text: whole in the panel on the smallest screen
/// the TUI draws (`ui::MIN_WIDTH`), as the keymap's own lines are.
pub(super) const HELP_TEXT_WIDTH: usize = 56;

/// The help's `:` commands and plan kinds, made from the parameter table and
/// the harness registry: a command or a harness added there is listed here.
pub(super) fn command_and_kind_lines() -> Vec<String> {
    use crate::policy::params::PARAMS;
    use crate::policy::{Delivery, PlanKind};
    let indented = |text: &str| -> Vec<String> {
        crate::tui::layout::wrap(text, HELP_TEXT_WIDTH - 2)
            .into_iter()
            .map(|l| format!("  {l}"))
            .collect()
    };
    let mut lines = vec!["Commands (:), a unique prefix of an id is enough:".to_string()];
    let mut commands = vec![":57".to_string(), ":explain KuPA".to_string()];
    for p in PARAMS {
        let Some(command) = p.command else { continue };
        let value = match (p.key, p.set.as_ref().and_then(|s| s.e_g)) {
            (_, Some(e_g)) => e_g.to_string(),
            ("kind", None) => "KIND".into(),
            ("delivery", None) => {
                let names: Vec<&str> = <Delivery as strum::VariantArray>::VARIANTS
                    .iter()
                    .map(|d| d.name())
                    .collect();
                names.join("|")
            }
            _ => "VALUE".into(),
        };
        commands.push(format!(":{command} {value}"));
    }
    // A command and its value stay on one line.
    let mut line = String::new();
    for c in commands {
        if line.chars().count() + 2 + c.chars().count() > HELP_TEXT_WIDTH {
            lines.push(std::mem::take(&mut line));
        }
        line.push_str("  ");
        line.push_str(&c);
    }
    lines.push(line);
    lines.push("  (Tab completes a command name)".into());
    lines.push(String::new());
    lines.push("Plan kinds (p, :policy KIND), each preset's in turn:".into());
    for &h in <crate::harness::HarnessId as strum::VariantArray>::VARIANTS {
        let kinds: Vec<&str> = h.rules().offers.kinds.iter().map(|k| k.name()).collect();
        lines.extend(indented(&format!("{}: {}", h.name(), kinds.join(" "))));
    }
    let api = crate::harness::PresetId::SERVER;
    let kinds: Vec<&str> = api.rules().offers.kinds.iter().map(|k| k.name()).collect();
    lines.extend(indented(&format!(
        "{} (--preset api): {}",
        api.name(),
        kinds.join(" ")
    )));
    lines.push(format!(
        "{}, the harness's own choice at each request:",
        PlanKind::Auto.name()
    ));
    for &h in <crate::harness::HarnessId as strum::VariantArray>::VARIANTS {
        lines.extend(indented(&h.asks().auto_words()));
    }
    lines
}

/// The picker's help: its keymap table, then what the marks mean.
pub fn picker_help_lines() -> Vec<String> {
    let mut lines: Vec<String> = PICKER_KEYMAP
        .iter()
        .map(|b| format!("{:>6}  {}", b.label(), b.help()))
        .collect();
    lines.push(format!("{:>6}  quit from anywhere", "Ctrl-C"));
    lines.push(String::new());
    lines.push("Columns: date modified, harness, project (the".into());
    lines.push("  session's cwd, else its folder name decoded),".into());
    lines.push("  requests, tool results, size, first prompt".into());
    lines.push(String::new());
    lines.push("Marks in the prompt column:".into());
    lines.push("  [sub-agent]     a sub-agent transcript: a what-if".into());
    lines.push("  ↳ sub-agent n   an inline sub-agent thread of the".into());
    lines.push("                  session above: Enter opens it alone".into());
    lines.push("  [empty] [summary only] [no messages]  nothing to".into());
    lines.push("                  plan: always listed last".into());
    lines.push("  …               not read yet (filled in as read)".into());
    lines
}

//! Tuning the parameters: `tune`, the plan kinds' order and the `:` command line.

use super::*;
use crate::policy::Settled;

/// The `:` commands, for completion and the help: the parameters' commands
/// (`policy::params`, in its order), then `explain`.
pub static COMMANDS: std::sync::LazyLock<Vec<&'static str>> = std::sync::LazyLock::new(|| {
    crate::policy::params::commands()
        .chain(std::iter::once("explain"))
        .collect()
});

/// Tab on the `:` line: the command name completed when one fits (with a space),
/// else as far as the candidates agree, and a note naming them.
pub fn complete(line: &str) -> (String, Option<String>) {
    if line.contains(char::is_whitespace) {
        return (line.to_string(), None);
    }
    let found: Vec<&str> = COMMANDS
        .iter()
        .copied()
        .filter(|c| c.starts_with(line))
        .collect();
    match found.as_slice() {
        [] => (
            line.to_string(),
            Some(format!("no command starts with {line:?}")),
        ),
        [one] => (format!("{one} "), None),
        many => {
            let mut common = many[0].to_string();
            for c in &many[1..] {
                while !c.starts_with(&common) {
                    common.pop();
                }
            }
            (common, Some(many.join("  ")))
        }
    }
}

impl SessionView {
    pub(crate) fn tune(&mut self, f: impl FnOnce(&mut Policy) -> Option<String>) {
        let mut policy = self.setup.policy.clone();
        let msg = f(&mut policy);
        // The one legality check (`Policy::check`): a plan `setup` would
        // refuse is never tuned to; the plan in force stays.
        if let Err(e) = policy.check(self.setup.session.harness) {
            self.status = Some(format!("refused: {e}"));
            return;
        }
        // Under auto, a delivery moved off rewrite (the one every kind but
        // idle-server takes, and auto's default) is asked for: each request's
        // chosen kind must take it, as setup requires (SPEC §15.6).
        let asked = (policy.delivery != Delivery::Rewrite).then_some(policy.delivery);
        if let Err(e) = policy.check_requests(&self.setup.session.requests, asked) {
            self.status = Some(format!("refused: {e}"));
            return;
        }
        self.setup.policy = policy;
        self.status = msg;
        self.replan(true);
        self.fix_selection();
        self.land_on(Landing::FirstChange);
    }

    /// Runs a `:` command: a request number, or a name and a value.
    pub fn run_command(&mut self, line: &str) {
        let line = line.trim().trim_start_matches(':').trim();
        if line.is_empty() {
            return;
        }
        if line.chars().all(|c| c.is_ascii_digit()) {
            self.go_to_request(line);
            return;
        }
        let (name, value) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let value = value.trim();
        let cmd = match command_named(name) {
            Ok(cmd) => cmd,
            Err(msg) => {
                self.status = Some(msg);
                return;
            }
        };
        // A command that tunes sets the status itself (`tune`); one refused
        // says why.
        let refused = match cmd {
            "policy" => self.tune_kind(value),
            "explain" => {
                self.status = self.explain_command(value);
                return;
            }
            _ => self.tune_value(cmd, value),
        };
        if let Err(msg) = refused {
            self.status = Some(msg);
        }
    }

    /// `:K`: to request K, or a note naming the requests there are.
    fn go_to_request(&mut self, line: &str) {
        let n = self.setup.session.requests.len();
        match line.parse::<usize>() {
            Ok(k) if (1..=n).contains(&k) => {
                self.step_to(k);
                self.status = None;
            }
            _ if n == 0 => self.status = Some(format!(":{line}: the session has no requests")),
            _ => self.status = Some(format!(":{line}: the session has requests 1..={n}")),
        }
    }

    /// A parameter's `:` command (`policy::params`: `:gap`, `:keep`, `:size`,
    /// `:trigger`, `:delivery`, …): the value tuned to, or what was expected.
    fn tune_value(&mut self, cmd: &str, value: &str) -> Result<(), String> {
        let param = crate::policy::params::by_command(cmd);
        let Some((param, set)) = param.and_then(|p| Some((p, p.set.as_ref()?))) else {
            self.status = None;
            return Ok(());
        };
        let mut tuned = self.setup.policy.clone();
        if !(set.parse)(&mut tuned, value) {
            let expected = param.expected().unwrap_or_default();
            return Err(format!(":{cmd} {value:?}: {expected}"));
        }
        self.tune(|p| {
            *p = tuned;
            None
        });
        Ok(())
    }

    /// `:policy KIND`: the kind tuned to, with the delivery it can take.
    fn tune_kind(&mut self, value: &str) -> Result<(), String> {
        let Some(kind) = PlanKind::parse(value) else {
            return Err(format!(
                ":policy {value:?}: expected one of {}",
                self.setup.policy.preset.rules().kind_names()
            ));
        };
        // Typed, so only what the user did not ask for is said: budget's
        // delivery.
        self.tune(|p| {
            p.set_kind(kind)
                .filter(|s| matches!(s, Settled::Delivery(d) if !d.always))
                .map(|s| settled_words(s).into())
        });
        Ok(())
    }

    /// `:explain ID`: the explain overlay of that result, or why not.
    fn explain_command(&mut self, value: &str) -> Option<String> {
        match crate::setup::resolve_id(&self.setup.session, value) {
            Ok(id) => {
                self.select_id(&id);
                match analysis::explain(&self.setup, &id, self.k) {
                    Some(explain) => {
                        self.overlay = Some(Overlay::Explain { explain, scroll: 0 });
                        None
                    }
                    None => Some(format!("no tool result with id {id:?}")),
                }
            }
            Err(e) => Some(format!(":explain: {e}")),
        }
    }
}

/// The command a `:` name stands for: itself, or the one command it begins;
/// else what to say.
fn command_named(name: &str) -> Result<&'static str, String> {
    if let Some(exact) = COMMANDS.iter().copied().find(|&c| c == name) {
        return Ok(exact);
    }
    let matches: Vec<&'static str> = COMMANDS
        .iter()
        .copied()
        .filter(|c| c.starts_with(name))
        .collect();
    match matches.as_slice() {
        [c] => Ok(c),
        [] => Err(format!(
            ":{name}: no such command (a request number, or {})",
            COMMANDS.join(", ")
        )),
        many => Err(format!(":{name}: which one? {}", many.join(", "))),
    }
}

/// What the TUI says of what `Policy::set_kind` settled (`p` says each,
/// `:policy` only a delivery changed from the one asked for, which the user
/// did not type): a plan's own words.
pub(super) fn settled_words(s: Settled) -> &'static str {
    match s {
        Settled::Recorded => "recorded: what the transcript proves the harness cleared",
        Settled::Delivery(d) => d.words,
    }
}

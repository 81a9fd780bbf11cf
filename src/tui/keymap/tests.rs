use super::*;

/// The help lists every `:` command of the parameter table, each preset's
/// `p` cycle and each harness's `auto`, as the table and the registry say
/// them (it once listed Claude's and Qwen's only).
#[test]
fn the_help_s_commands_and_kinds_come_from_the_table_and_the_registry() {
    let lines = help_lines();
    assert!(lines.iter().all(|l| l.chars().count() <= HELP_TEXT_WIDTH));
    let flat = lines.iter().map(|l| l.trim()).collect::<Vec<_>>().join(" ");
    for c in crate::policy::params::commands() {
        assert!(flat.contains(&format!(":{c} ")), ":{c}: {flat}");
    }
    assert!(flat.contains(":mask-protect 30000") && flat.contains(":keep 3"));
    for &h in <crate::harness::HarnessId as strum::VariantArray>::VARIANTS {
        let kinds: Vec<&str> = h.rules().offers.kinds.iter().map(|k| k.name()).collect();
        let cycle = format!("{}: {}", h.name(), kinds.join(" "));
        assert!(flat.contains(&cycle), "{cycle}");
        assert!(flat.contains(&h.asks().auto_words()), "{}", h.name());
    }
    assert!(flat.contains("opencode: auto prune recorded"));
    assert!(flat.contains("api (--preset api): api recorded"));
}

/// Each parameter a key steps: its label and words come from the table's
/// keys and step, and read in the help as they always did.
#[test]
fn the_keys_that_step_a_parameter_are_the_table_s() {
    let mut found = 0;
    for p in crate::policy::params::PARAMS {
        let Some(k) = p.keys else { continue };
        for (key, more) in [(k.more, true), (k.less, false)] {
            let b = KEYMAP
                .iter()
                .find(|b| b.keys[0] == Char(key))
                .unwrap_or_else(|| panic!("{}: no key {key}", p.key));
            assert_eq!(b.label(), key.to_string(), "{}", p.key);
            assert_eq!(b.help(), k.help(more), "{}", p.key);
            found += 1;
        }
    }
    assert_eq!(found, 6);
    let help = help_lines();
    for line in [
        "     +  keep_recent + 1 (api: keep)",
        "     -  keep_recent - 1 (api: keep)",
        "     ]  gap threshold + 5 min",
        "     [  gap threshold - 5 min",
        "     }  size threshold + 50,000 chars",
        "     {  size threshold - 50,000 chars",
    ] {
        assert!(help.iter().any(|l| l == line), "{line:?} not in the help");
    }
}

#[test]
fn every_key_maps_to_one_action() {
    for table in [KEYMAP, PICKER_KEYMAP] {
        let mut seen = std::collections::HashSet::new();
        for binding in table {
            for k in binding.keys {
                assert!(seen.insert(format!("{k:?}")), "{k:?} bound twice");
            }
        }
    }
}

#[test]
fn keys_outside_the_tables_become_actions_too() {
    let key = |c, m| KeyEvent::new(c, m);
    let (none, ctrl) = (KeyModifiers::NONE, KeyModifiers::CONTROL);
    for (picker, typing) in [(false, false), (false, true), (true, false), (true, true)] {
        let at = |k| key_action(k, picker, typing);
        assert_eq!(at(key(Char('c'), ctrl)), Action::Interrupt);
        assert_eq!(at(key(Char('z'), ctrl)), Action::Suspend);
        assert_eq!(at(key(Insert, none)), Action::Unbound);
    }
    // A printable key types while an input line is open, else is its binding.
    assert_eq!(
        key_action(key(Char('q'), none), false, true),
        Action::Type('q')
    );
    assert_eq!(key_action(key(Char('q'), none), false, false), Action::Quit);
    assert_eq!(key_action(key(Enter, none), true, false), Action::Open);
    assert_eq!(key_action(key(Enter, none), true, true), Action::Submit);
    assert_eq!(
        key_action(key(Char('x'), none), true, false),
        Action::Unbound
    );
    // While a session loads only q and Ctrl-C do anything.
    assert_eq!(
        loading_action(key(Char('q'), none)),
        Some(Action::Interrupt)
    );
    assert_eq!(
        loading_action(key(Char('c'), ctrl)),
        Some(Action::Interrupt)
    );
    assert_eq!(loading_action(key(Esc, none)), None);
}

#[test]
fn the_picker_types_into_its_filter_only_after_slash() {
    let key = |c| KeyEvent::new(c, KeyModifiers::NONE);
    assert_eq!(picker_action_for(key(Char('q')), false), Some(Action::Quit));
    assert_eq!(
        picker_action_for(key(Char('q')), true),
        Some(Action::Type('q'))
    );
    assert_eq!(
        picker_action_for(key(Char('s')), false),
        Some(Action::CycleSort)
    );
    assert_eq!(picker_action_for(key(Enter), false), Some(Action::Open));
    assert_eq!(picker_action_for(key(Enter), true), Some(Action::Submit));
    assert_eq!(picker_action_for(key(Esc), true), Some(Action::Back));
    assert_eq!(picker_action_for(key(Down), true), Some(Action::Down));
    assert_eq!(
        picker_hints(),
        "/ filter  Enter open  s sort  S reverse  ? help  q quit"
    );
}

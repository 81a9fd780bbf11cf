use crate::policy::params::*;
use crate::policy::{PlanKind, Policy};
use crate::session::HarnessId;

/// Every `:` command but `:policy` (the TUI's own) reads its value through
/// the table, says what it expected in the words users had before the
/// table held them, and leaves the policy as it was on a bad value.
#[test]
fn each_command_reads_its_value_and_names_what_it_expected() {
    type Case = (
        &'static str,
        &'static str,
        &'static str,
        fn(&Policy) -> String,
    );
    let cases: &[Case] = &[
        (
            "gap",
            "7.5",
            "expected minutes, e.g. :gap 7.5 (negative disables)",
            |p| p.gap_threshold_minutes.to_string(),
        ),
        (
            "keep",
            "3",
            "expected a count of 1 or more, e.g. :keep 3",
            |p| format!("{:?}", p.keep_recent),
        ),
        (
            "size",
            "300_000",
            "expected chars, e.g. :size 300000 (negative disables)",
            |p| format!("{} {}", p.size_threshold, p.size_explicit),
        ),
        ("trigger", "4", "expected a count, e.g. :trigger 4", |p| {
            p.trigger_threshold.to_string()
        }),
        (
            "delivery",
            "cache-edits",
            "expected rewrite or cache-edits",
            |p| p.delivery.name().to_string(),
        ),
        (
            "mask-protect",
            "30000",
            "expected tokens, e.g. :mask-protect 30000",
            |p| p.mask_protect_tokens.to_string(),
        ),
        (
            "mask-min",
            "10000",
            "expected tokens, e.g. :mask-min 10000",
            |p| p.mask_min_prunable_tokens.to_string(),
        ),
        (
            "window",
            "200000",
            "expected tokens, e.g. :window 200000",
            |p| format!("{:?}", p.cline_context_window),
        ),
    ];
    let with_set: Vec<&str> = PARAMS
        .iter()
        .filter(|p| p.set.is_some())
        .filter_map(|p| p.command)
        .collect();
    let named: Vec<&str> = cases.iter().map(|c| c.0).collect();
    assert_eq!(with_set.len(), named.len(), "{with_set:?}");
    for c in commands() {
        assert!(c == "policy" || named.contains(&c), ":{c} reads no value");
    }
    for &(cmd, good, expected, value) in cases {
        let param = by_command(cmd).unwrap();
        let set = param.set.as_ref().unwrap();
        assert_eq!(param.expected().as_deref(), Some(expected), ":{cmd}");
        let before = Policy::preset(HarnessId::Claude);
        let mut p = before.clone();
        assert!(!(set.parse)(&mut p, "soon"), ":{cmd} soon");
        assert_eq!(value(&p), value(&before), ":{cmd} soon left it");
        assert!((set.parse)(&mut p, good), ":{cmd} {good}");
        assert_ne!(value(&p), value(&before), ":{cmd} {good} set it");
    }
    // The count's floor and a negative size (which disables) read as before.
    let mut p = Policy::preset(HarnessId::Claude);
    let keep = by_command("keep").unwrap();
    assert!(!(keep.set.as_ref().unwrap().parse)(&mut p, "0"));
    let size = by_command("size").unwrap();
    assert!((size.set.as_ref().unwrap().parse)(&mut p, "-1"));
    assert_eq!(p.size_threshold, -1);
}

#[test]
fn the_tui_commands_are_the_table_s_then_explain() {
    use crate::tui::app::{COMMANDS, complete};
    let mut want: Vec<&str> = commands().collect();
    want.push("explain");
    assert_eq!(*COMMANDS, want);
    // Each completes to itself from its first letters where no other
    // command shares them.
    for c in commands() {
        let unique = (1..=c.len())
            .map(|n| &c[..n])
            .find(|head| COMMANDS.iter().filter(|o| o.starts_with(head)).count() == 1)
            .expect(c);
        assert_eq!(complete(unique), (format!("{c} "), None), "{unique}");
    }
}

/// The help clap prints for `--long` in `sub` (the command line as parsed).
fn help_of(sub: &str, long: &str) -> Option<String> {
    let mut cli = crate::cli::command();
    cli.build();
    let cmd = cli.find_subcommand(sub).expect(sub);
    let arg = cmd.get_arguments().find(|a| a.get_long() == Some(long))?;
    Some(arg.get_help().map(|h| h.to_string()).unwrap_or_default())
}

#[test]
fn every_flag_is_one_plan_takes_with_the_table_s_help() {
    for p in PARAMS {
        for sub in ["plan", "timeline", "explain", "wire", "evidence", "config"] {
            let help = help_of(sub, p.long()).unwrap_or_else(|| panic!("{sub} {}", p.flag));
            assert_eq!(help, p.help(), "{sub} {}", p.flag);
        }
        let compare = help_of("compare", p.long());
        match p.compare {
            Compare::List { .. } | Compare::Same => {
                assert_eq!(compare, p.compare_help(), "compare {}", p.flag);
            }
            // Compare's own words, left as its derive wrote them.
            Compare::Own => {
                assert!(compare.is_some_and(|h| !h.is_empty()), "compare {}", p.flag)
            }
            Compare::Not => assert_eq!(compare, None, "compare {}", p.flag),
        }
    }
    // compare's lists are named as lists.
    let mut cli = crate::cli::command();
    cli.build();
    let compare = cli.find_subcommand("compare").expect("compare");
    for p in PARAMS
        .iter()
        .filter(|p| matches!(p.compare, Compare::List { .. }))
    {
        let arg = compare
            .get_arguments()
            .find(|a| a.get_long() == Some(p.long()))
            .expect(p.flag);
        let names = arg.get_value_names().expect(p.flag);
        assert!(names[0].ends_with(",…"), "{}: {names:?}", p.flag);
    }
    // …and every list compare takes is a row's, but the api preset's
    // edit values (its edits are JSON, not policy keys).
    for arg in compare.get_arguments() {
        let list = arg.get_value_names().is_some_and(|n| n[0].ends_with(",…"));
        let long = arg.get_long().unwrap_or_default();
        if list && !["api-trigger", "api-keep"].contains(&long) {
            let row = by_flag(long).unwrap_or_else(|| panic!("--{long} is no row"));
            assert!(matches!(row.compare, Compare::List { .. }), "--{long}");
        }
    }
}

/// The value `help` shows for harness `h`: the one after `default `,
/// unless a `; h… V` part names `h`.
fn shown_for(help: &str, h: HarnessId) -> String {
    let tail = help.rsplit_once("default ").expect(help).1;
    let tail = tail.strip_suffix(')').expect(help);
    let mut parts = tail.split("; ");
    let common = parts.next().expect(help).to_string();
    for part in parts {
        let (names, v) = part.rsplit_once(' ').expect(help);
        if names.split(", ").any(|n| n == h.name()) {
            return v.to_string();
        }
    }
    common
}

/// The defaults `--help` shows are each harness's preset, read from the
/// policy's JSON (not through the table's functions).
#[test]
fn the_defaults_shown_are_each_harness_s_preset() {
    let mut checked = 0;
    for p in PARAMS {
        if p.preset_default().is_none() {
            continue;
        }
        let help = help_of("plan", p.long()).expect(p.flag);
        for &h in <HarnessId as strum::VariantArray>::VARIANTS {
            let json = serde_json::to_value(Policy::preset(h)).unwrap();
            let want = &json[p.key];
            let shown = shown_for(&help, h);
            match want {
                serde_json::Value::Bool(b) => {
                    assert_eq!(shown, if *b { "on" } else { "off" }, "{} {h:?}", p.key)
                }
                serde_json::Value::Number(n) => assert_eq!(
                    shown.parse::<f64>().ok(),
                    n.as_f64(),
                    "{} {h:?}: {help}",
                    p.key
                ),
                other => panic!("{}: {other}", p.key),
            }
            checked += 1;
        }
    }
    assert!(checked >= 12 * 4, "{checked}");
    // A harness whose value differs is named: gemini's size plan is off.
    let size = help_of("plan", "size-threshold").unwrap();
    assert!(size.contains("; gemini -1"), "{size}");
    // What no preset holds is said too: idle-server's own gap, and the
    // harnesses that keep error results whatever `--clear-errors` says.
    let gap = help_of("plan", "gap-minutes").unwrap();
    let own = crate::harness::claude_idle_server::GAP_MINUTES;
    assert!(gap.contains(&format!("idle-server {own}")), "{gap}");
    let errors = help_of("plan", "clear-errors").unwrap();
    for &h in <HarnessId as strum::VariantArray>::VARIANTS {
        let never = errors.contains(&format!("{} never clear", h.name()))
            || errors.contains(&format!("and {} never clear", h.name()))
            || errors.contains(&format!("{} and ", h.name()));
        assert_eq!(never, !h.rules().tools.errors_clearable, "{h:?}: {errors}");
    }
}

/// `--policy`'s default says what `auto` runs for every preset (Gemini CLI
/// and OpenCode too), and for Claude Code every row of the version table
/// with the kind `auto` takes there.
#[test]
fn the_policy_help_says_what_auto_runs_for_every_preset() {
    use crate::harness::PresetId;
    use crate::harness::claude_version::VersionRow;
    let help = help_of("plan", "policy").unwrap();
    for p in <PresetId as strum::VariantArray>::VARIANTS {
        let words = p.asks().auto_words();
        assert!(words.starts_with(p.name()), "{words}");
        assert!(help.contains(&words), "{p:?}: {help}");
    }
    for v in ["2.0.5", "2.1.70", "2.1.90", "2.1.200", "2.1.290", "2.1.332"] {
        let row = VersionRow::of(Some(v));
        let kind = row.auto_kind().map_or("nothing", PlanKind::name);
        assert!(
            help.contains(&format!("{kind} on {}", row.name())),
            "{v}: {help}"
        );
    }
    assert!(help.contains("gemini mask") && help.contains("opencode prune up to 1.3.2"));
}

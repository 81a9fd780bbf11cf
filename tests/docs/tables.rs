//! docs/tui.md, docs/config.md and docs/compare.md against the keymaps, the files and the grid.

use super::*;

// ---- docs/tui.md against the keymap tables ----

/// The keys (first column) of the table under the heading holding `needle`.
fn keys_under(text: &str, needle: &str) -> BTreeSet<String> {
    sections(text)
        .into_iter()
        .find(|(h, _)| h.contains(needle))
        .map(|(_, k)| k)
        .unwrap_or_else(|| panic!("docs/tui.md has no section {needle:?}"))
}

#[test]
fn tui_md_names_every_key_of_both_tables() {
    use mcscope::tui::keymap::{KEYMAP, PICKER_KEYMAP};
    let text = read("docs/tui.md");
    for (table, needle) in [(KEYMAP, "Session keys"), (PICKER_KEYMAP, "Picker keys")] {
        let documented = keys_under(&text, needle);
        let labels: BTreeSet<String> = table.iter().map(|b| b.label()).collect();
        let missing: Vec<&String> = labels.difference(&documented).collect();
        assert!(
            missing.is_empty(),
            "docs/tui.md, {needle}: no row for {missing:?}"
        );
        let extra: Vec<&String> = documented.difference(&labels).collect();
        assert!(
            extra.is_empty(),
            "docs/tui.md, {needle}: {extra:?} are in no table"
        );
    }
}

// ---- docs/config.md against what the files accept ----

/// The names in an "expected one of `a`, `b`" error.
fn expected_names(message: &str) -> Vec<String> {
    let list = message
        .split_once("expected one of")
        .map(|(_, l)| l)
        .unwrap_or_else(|| panic!("no list of keys in {message:?}"));
    list.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

#[test]
fn config_md_names_every_key_the_config_file_and_the_sidecar_accept() {
    let doc = read("docs/config.md");
    let bad = |text: &str| mcscope::config::parse(text).expect_err("an unknown key is an error");
    let mut keys: Vec<(String, String)> = Vec::new();
    for (place, text) in [
        ("the config file", "not_a_key = 1\n"),
        ("[policy]", "[policy]\nnot_a_key = 1\n"),
        ("[prices.\"x\"]", "[prices.\"x\"]\nnot_a_key = 1\n"),
    ] {
        let names = expected_names(&bad(text));
        assert!(names.len() >= 4, "{place}: {names:?}");
        keys.extend(names.into_iter().map(|n| (place.to_string(), n)));
    }
    let sidecar = mcscope::setup::Sidecar::parse(r#"{"not_a_key": 1}"#).expect_err("unknown key");
    keys.extend(
        expected_names(&sidecar)
            .into_iter()
            .map(|n| ("the sidecar".into(), n)),
    );
    for root in ["project", "user", "team"] {
        assert!(mcscope::config::parse(&format!("[memory_roots]\n{root} = \"/m\"\n")).is_ok());
        keys.push(("[memory_roots]".into(), root.into()));
    }
    keys.extend(
        mcscope::theme::KEYS
            .iter()
            .map(|k| ("[theme]".to_string(), k.to_string())),
    );
    let missing: Vec<String> = keys
        .iter()
        .filter(|(_, k)| !doc.contains(&format!("`{k}`")))
        .map(|(place, k)| format!("{place}: `{k}`"))
        .collect();
    assert!(
        missing.is_empty(),
        "docs/config.md does not name:\n{}",
        missing.join("\n")
    );
}

/// docs/config.md's table of policy keys: every parameter of the table
/// (`policy::params::PARAMS`) has a row with its flag, and where the default
/// is a harness's preset, the default cell gives the value most harnesses
/// share and names each harness whose own differs, beside its value — the
/// numbers the help reads from `Policy::preset`, so the page cannot keep an
/// old one. Every preset the registry has is in the `--preset` row.
#[test]
fn config_md_lists_every_parameter_with_its_flag_and_each_harness_s_default() {
    use mcscope::harness::PresetId;
    use mcscope::policy::Policy;
    use mcscope::policy::params::PARAMS;
    use mcscope::session::HarnessId;
    let page = read("docs/config.md");
    let row = |key: &str| {
        page.lines()
            .find(|l| l.starts_with(&format!("| `{key}` |")))
            .unwrap_or_else(|| panic!("docs/config.md has no row for `{key}`"))
    };
    // A value as a word of the text, with the synonyms the page uses for a
    // switch's (`on`: `true`).
    let says = |text: &str, value: &str| {
        let words: Vec<&str> = text
            .split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '.'))
            .collect();
        match value {
            "on" => words.contains(&"on") || words.contains(&"true"),
            "off" => words.contains(&"off") || words.contains(&"false"),
            v => words.contains(&v),
        }
    };
    let mut checked = 0;
    for p in PARAMS {
        let line = row(p.key);
        assert!(cell(line, 1).contains(p.flag), "{}: {line}", p.flag);
        let Some(show) = p.preset_default() else {
            continue;
        };
        let default = cell(line, 2);
        let values: Vec<(HarnessId, String)> = <HarnessId as strum::VariantArray>::VARIANTS
            .iter()
            .map(|&h| (h, show(&Policy::preset(h))))
            .collect();
        // The value the help gives first: most harnesses' (the first's on a tie).
        let words = p.default_words();
        let common = words.split(';').next().unwrap_or_default();
        for (h, v) in &values {
            let shared = v == common;
            assert!(
                says(default, v) && (shared || default.contains(h.name())),
                "docs/config.md `{}`: {} takes {v} by default; the page says {default:?}",
                p.key,
                h.name()
            );
            checked += 1;
        }
    }
    assert!(checked >= 40, "{checked}");
    let preset = cell(row("preset"), 1);
    for p in <PresetId as strum::VariantArray>::VARIANTS {
        assert!(preset.contains(p.name()), "{preset}");
    }
}

/// docs/compare.md gives the default grid's values as the parameter table
/// holds them (`Compare::List`'s grid column), each list in braces.
#[test]
fn compare_md_gives_the_default_grid_of_the_table() {
    use mcscope::policy::PlanKind;
    use mcscope::policy::params::by_key;
    let page = read("docs/compare.md");
    let grid = page
        .split("## The grid")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("docs/compare.md has a grid section");
    let words = |values: &[f64]| {
        let each: Vec<String> = values
            .iter()
            .map(|&v| mcscope::numbers::fmt_int(v as u64))
            .collect();
        format!("{{{}}}", each.join(", "))
    };
    for (key, kind) in [
        ("keep_recent", PlanKind::Idle),
        ("gap_threshold_minutes", PlanKind::Idle),
        ("keep_recent", PlanKind::IdleServer),
        ("size_threshold", PlanKind::Size),
        ("keep_recent", PlanKind::Count),
        ("trigger_threshold", PlanKind::Count),
    ] {
        let values = kind.default_grid(by_key(key).unwrap().key).unwrap();
        let text = words(values);
        assert!(grid.contains(&text), "{key} for {}: {text}", kind.name());
    }
    // One value is not a list in the page's words.
    let keep = by_key("keep_recent").unwrap();
    assert_eq!(PlanKind::Size.default_grid(keep.key), Some(&[5.0][..]));
    assert!(grid.contains("`size`: keep 5 ×"));
    let gap = by_key("gap_threshold_minutes").unwrap();
    assert_eq!(
        PlanKind::IdleServer.default_grid(gap.key),
        Some(&[65.0][..])
    );
    assert!(grid.contains("gap 65 minutes"));
}

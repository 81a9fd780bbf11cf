//! Issue 22 item 1: only `src/harness/` names a harness or preset variant or a row's static.

use super::*;

const ENUMS: [&str; 4] = ["HarnessId", "Preset", "PresetArg", "PresetId"];

/// Every `Enum::Variant` of a harness in `text`, as (line, the name), and
/// every import that would let a variant be named without its enum
/// (`HarnessId::*`, `HarnessId::{…}`) or under another name (`PresetId as P`,
/// unless `P` is one of the enum names counted here).
fn variant_names(text: &str) -> Vec<(usize, String)> {
    let variants = variants();
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or_default();
        for e in ENUMS {
            for glob in ["::*", "::{"] {
                let name = format!("{e}{glob}");
                if let Some(at) = code.find(&name) {
                    let before = code[..at].chars().next_back();
                    if !before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                        out.push((n + 1, name));
                    }
                }
            }
            let alias = format!("{e} as ");
            // An import's rename (`<HarnessId as VariantArray>` is a trait, not one).
            let import = code.trim_start().starts_with("use ") || code.contains("pub use ");
            if let Some(at) = code.find(&alias).filter(|_| import) {
                let to: String = code[at + alias.len()..]
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !ENUMS.contains(&to.as_str()) {
                    out.push((n + 1, format!("{e} as {to}")));
                }
            }
            for v in &variants {
                let name = format!("{e}::{v}");
                let mut from = 0;
                while let Some(at) = code[from..].find(&name) {
                    let start = from + at;
                    let end = start + name.len();
                    let before = code[..start].chars().next_back();
                    let after = code[end..].chars().next();
                    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
                    if !word(before) && !word(after) {
                        out.push((n + 1, name.clone()));
                    }
                    from = end;
                }
            }
        }
    }
    out
}

#[test]
fn no_source_file_outside_the_harness_folder_names_a_harness_variant() {
    let files = source_files();
    let mut found = Vec::new();
    let mut inside = 0;
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let rel = &rel_of(f);
        if rel.starts_with("harness") {
            inside += variant_names(&text).len();
            continue;
        }
        if let Some(code) = non_test_code(rel, &text) {
            for (line, name) in variant_names(&code) {
                found.push(format!("src/{}:{line}: {name}", rel.display()));
            }
        }
    }
    // The counter finds what it looks for: the harness folder names them.
    assert!(
        inside > 0,
        "the counter found no variant even in src/harness/"
    );
    assert!(
        found.is_empty(),
        "{} harness variant names outside src/harness/ (ask the harness's facts or Harness instead):\n{}",
        found.len(),
        found.join("\n")
    );
}

#[test]
fn the_counter_sees_a_variant_and_skips_comments_and_longer_names() {
    let text = "let a = HarnessId::Qwen;\n// HarnessId::Claude in words\nlet b = HarnessId::Claudes;\nx(Preset::Api)";
    let got: Vec<String> = variant_names(text).into_iter().map(|(_, n)| n).collect();
    assert_eq!(got, ["HarnessId::Qwen", "Preset::Api"]);
    // Every harness the registry has, the newest included; imports that
    // would hide a variant's enum; an alias only under another enum name.
    let text = "h == HarnessId::Gemini\nuse HarnessId::*;\nuse crate::harness::HarnessId::{Claude};\n\
                use crate::harness::HarnessId as H;\npub use crate::harness::PresetId as Preset;\n\
                x(PresetId::Opencode)\nfor h in <HarnessId as strum::VariantArray>::VARIANTS {}";
    let got: Vec<String> = variant_names(text).into_iter().map(|(_, n)| n).collect();
    assert_eq!(
        got,
        [
            "HarnessId::Gemini",
            "HarnessId::*",
            "HarnessId::{",
            "HarnessId as H",
            "PresetId::Opencode"
        ]
    );
    let code = non_test_code(
        Path::new("a.rs"),
        "fn a() {}\n#[cfg(test)]\nmod tests { HarnessId::Qwen }",
    )
    .unwrap();
    assert!(variant_names(&code).is_empty());
}

#[test]
fn the_registry_names_each_preset_and_refuses_an_unknown_one() {
    for name in ["claude", "qwen", "api", "gemini", "opencode", "cline"] {
        let p = harness::by_name(name).unwrap();
        assert_eq!(p.name(), name);
        assert_eq!(p.rules().name, name);
        assert_eq!(p.asks().facts().name, name);
    }
    let e = harness::by_name("cursor").unwrap_err();
    assert_eq!(
        e.to_string(),
        "unknown harness \"cursor\" (known: claude, qwen, api, gemini, opencode, cline)"
    );
}

#[test]
fn each_harness_row_is_its_own_and_owns_its_formats() {
    for &h in <HarnessId as strum::VariantArray>::VARIANTS {
        let facts = h.rules();
        assert_eq!(facts.harness, h);
        assert_eq!(facts.name, h.name());
        assert!(!facts.formats.is_empty(), "{}", h.name());
        for &f in facts.formats {
            assert_eq!(f.harness(), h, "{f:?}");
        }
        // Every kind the harness cycles through ends with the baseline.
        assert_eq!(
            facts.offers.kinds.last(),
            Some(&mcscope::policy::PlanKind::Recorded)
        );
    }
    assert!(PresetId::SERVER.is_server());
    assert!(!PresetId::SERVER.rules().offers.caveats.is_empty());
}

/// Nor does a source file outside the seam reach a harness's row by its static
/// (`harness::CLAUDE`, `harness::QWEN`, …): the rows are asked through a
/// session's `HarnessId`, a policy's preset or `PresetId::SERVER`. A loader
/// (`src/load/`) reads its own format's row, and the TUI's demo, whose
/// session and captions are Claude Code's, reads Claude's.
#[test]
fn no_source_file_outside_the_seam_reaches_a_row_by_its_static() {
    let files = source_files();
    let statics = ["CLAUDE", "QWEN", "GEMINI", "OPENCODE", "API"];
    let mut found = Vec::new();
    let mut loaders = 0;
    for f in &files {
        let rel = &rel_of(f);
        let text = std::fs::read_to_string(f).unwrap();
        let Some(code) = non_test_code(rel, &text) else {
            continue;
        };
        // A grouped import (`use crate::harness::{CLAUDE, Preset}`), over lines.
        for (at, _) in code.match_indices("harness::{") {
            let group = &code[at + "harness::{".len()..];
            let group = &group[..group.find('}').unwrap_or(group.len())];
            let line = code[..at].lines().count();
            for item in group
                .split(',')
                .map(|i| i.split_whitespace().next().unwrap_or_default())
            {
                if statics.contains(&item) {
                    if rel.starts_with("load") {
                        loaders += 1;
                    } else if !rel.starts_with("harness") && rel != Path::new("tui/demo.rs") {
                        found.push(format!("src/{}:{line}: harness::{{{item}}}", rel.display()));
                    }
                }
            }
        }
        for (n, line) in code.lines().enumerate() {
            let line = line.split("//").next().unwrap_or_default();
            for s in statics {
                let path = format!("harness::{s}");
                let named = line.match_indices(&path).any(|(at, _)| {
                    !line[at + path.len()..]
                        .chars()
                        .next()
                        .is_some_and(|c| c.is_alphanumeric() || c == '_')
                });
                if !named {
                    continue;
                }
                if rel.starts_with("load") {
                    loaders += 1;
                } else if !rel.starts_with("harness") && rel != Path::new("tui/demo.rs") {
                    found.push(format!("src/{}:{}: {path}", rel.display(), n + 1));
                }
            }
        }
    }
    assert!(
        loaders > 0,
        "the counter found no row static even in the loaders"
    );
    assert!(
        found.is_empty(),
        "rows reached by their statics outside the seam:\n{}",
        found.join("\n")
    );
}

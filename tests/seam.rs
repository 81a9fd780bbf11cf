//! One seam for every harness (issue 22 item 1): outside `src/harness/`, no
//! source file names a harness or preset variant; the engine asks the harness
//! through its facts and its `Rules`. Test code (a `#[cfg(test)]` module, a
//! `tests.rs` or `testkit.rs`) may name them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use mcscope::harness::{self, Harness, PresetId};
use std::path::{Path, PathBuf};

const ENUMS: [&str; 4] = ["Harness", "Preset", "PresetArg", "PresetId"];
const VARIANTS: [&str; 4] = ["Claude", "Qwen", "Api", "Opencode"];

/// Every `Enum::Variant` of a harness in `text`, as (line, the name).
fn variant_names(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or_default();
        for e in ENUMS {
            for v in VARIANTS {
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

/// The code of a source file that is not test code: up to its first
/// `#[cfg(test)]` (modules of tests come last in this crate).
fn non_test_code(path: &Path, text: &str) -> Option<String> {
    let name = path.file_name()?.to_str()?;
    if name == "tests.rs"
        || name == "testkit.rs"
        || path.components().any(|c| c.as_os_str() == "tests")
    {
        return None;
    }
    Some(
        text.split("#[cfg(test)]")
            .next()
            .unwrap_or_default()
            .to_string(),
    )
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn no_source_file_outside_the_harness_folder_names_a_harness_variant() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut found = Vec::new();
    let mut inside = 0;
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let rel = f.strip_prefix(&src).unwrap();
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
        "{} harness variant names outside src/harness/ (ask the harness's facts or Rules instead):\n{}",
        found.len(),
        found.join("\n")
    );
}

#[test]
fn the_counter_sees_a_variant_and_skips_comments_and_longer_names() {
    let text = "let a = Harness::Qwen;\n// Harness::Claude in words\nlet b = Harness::Claudes;\nx(Preset::Api)";
    let got: Vec<String> = variant_names(text).into_iter().map(|(_, n)| n).collect();
    assert_eq!(got, ["Harness::Qwen", "Preset::Api"]);
    let code = non_test_code(
        Path::new("a.rs"),
        "fn a() {}\n#[cfg(test)]\nmod tests { Harness::Qwen }",
    )
    .unwrap();
    assert!(variant_names(&code).is_empty());
}

#[test]
fn the_registry_names_each_preset_and_refuses_an_unknown_one() {
    for name in ["claude", "qwen", "api", "gemini", "opencode"] {
        let p = harness::by_name(name).unwrap();
        assert_eq!(p.name(), name);
        assert_eq!(p.rules().name, name);
        assert_eq!(p.asks().facts().name, name);
    }
    let e = harness::by_name("cursor").unwrap_err();
    assert_eq!(
        e.to_string(),
        "unknown harness \"cursor\" (known: claude, qwen, api, gemini, opencode)"
    );
}

#[test]
fn each_harness_row_is_its_own_and_owns_its_formats() {
    for &h in <Harness as strum::VariantArray>::VARIANTS {
        let facts = h.rules();
        assert_eq!(facts.harness, h);
        assert_eq!(facts.name, h.name());
        assert!(!facts.formats.is_empty(), "{}", h.name());
        for &f in facts.formats {
            assert_eq!(f.harness(), h, "{f:?}");
        }
        // Every kind the harness cycles through ends with the baseline.
        assert_eq!(
            facts.kinds.last(),
            Some(&mcscope::policy::PlanKind::Recorded)
        );
    }
    assert!(PresetId::SERVER.is_server());
    assert!(!PresetId::SERVER.rules().caveats.is_empty());
}

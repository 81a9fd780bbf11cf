//! One seam for every harness (issue 22 item 1): outside `src/harness/`, no
//! source file names a harness or preset variant; the engine asks the harness
//! through its facts and its `Harness`. Test code (a `#[cfg(test)]` module, a
//! `tests.rs` or `testkit.rs`) may name them.
//!
//! One seam for every transcript format (issue 22 item 2): outside
//! `src/load/format/` (one `FormatLoader` per variant), `src/vocab/` (the
//! enum) and the harness rows (`src/harness/`: the formats each harness
//! writes), no source file names a `Format` variant; the loaders are asked.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use mcscope::harness::{self, HarnessId, PresetId};
use mcscope::session::Format;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const ENUMS: [&str; 4] = ["HarnessId", "Preset", "PresetArg", "PresetId"];

/// Every harness and preset variant's name, read from the enums themselves, so
/// a harness added to the registry is counted without a change here.
fn variants() -> Vec<String> {
    let mut out: Vec<String> = <HarnessId as strum::VariantArray>::VARIANTS
        .iter()
        .map(|h| format!("{h:?}"))
        .chain(
            <PresetId as strum::VariantArray>::VARIANTS
                .iter()
                .map(|p| format!("{p:?}")),
        )
        .collect();
    out.sort();
    out.dedup();
    out
}

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

/// The code of a source file that is not test code: up to its first
/// `#[cfg(test)]` (modules of tests come last in this crate).
fn non_test_code(path: &Path, text: &str) -> Option<String> {
    let name = path.file_name()?.to_str()?;
    // A file of tests: `tests.rs`, `*_tests.rs`, or anything in a `tests` or
    // `*_tests` folder (the binary's checks of the core, `src/core_tests/`).
    let tests = |n: &str| n == "tests" || n.ends_with("_tests");
    if tests(name.trim_end_matches(".rs"))
        || name == "testkit.rs"
        || path
            .components()
            .any(|c| c.as_os_str().to_str().is_some_and(tests))
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

/// The two source folders: the core's (`crates/mcscope-core/src`) and the
/// binary's (`src`); a file's path is read relative to its own (`harness/…`).
fn src_roots() -> [PathBuf; 2] {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    [root.join("crates/mcscope-core/src"), root.join("src")]
}

/// Every Rust file of both source folders, sorted by path.
fn source_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for r in src_roots() {
        rust_files(&r, &mut files);
    }
    files.sort();
    files
}

/// A file's path relative to its source folder.
fn rel_of(f: &Path) -> PathBuf {
    src_roots()
        .iter()
        .find_map(|r| f.strip_prefix(r).ok())
        .unwrap()
        .to_path_buf()
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

/// The other names `Format` is imported under (`use …::Format as
/// InputFormatArg;`), whose `Name::Variant` names a format too.
fn format_aliases(text: &str) -> Vec<String> {
    text.lines()
        .map(|l| l.split("//").next().unwrap_or_default())
        .filter(|l| l.trim_start().starts_with("use ") || l.contains("pub use "))
        .filter_map(|l| {
            let at = l.find("Format as ")?;
            let before = l[..at].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                return None;
            }
            let name: String = l[at + "Format as ".len()..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            Some(name)
        })
        .collect()
}

/// Every `Format::Variant` in `text` (the variants as the enum has them), the
/// same under any of `aliases` (`InputFormatArg::ClaudeJsonl`), and every glob
/// or list import of them (`Format::*`, `Format::{…}`), which would name them
/// without the prefix: as (line, the name).
fn format_names(text: &str, aliases: &[String]) -> Vec<(usize, String)> {
    let mut out = format_names_as(text, "Format");
    for a in aliases {
        out.extend(format_names_as(text, a));
    }
    out.sort();
    out
}

/// [`format_names`] for one name of the enum.
fn format_names_as(text: &str, enum_name: &str) -> Vec<(usize, String)> {
    let variants: Vec<String> = <Format as strum::VariantArray>::VARIANTS
        .iter()
        .map(|f| format!("{f:?}"))
        .collect();
    let prefix = format!("{enum_name}::");
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or_default();
        let mut from = 0;
        while let Some(at) = code[from..].find(&prefix) {
            let start = from + at;
            let end = start + prefix.len();
            from = end;
            let before = code[..start].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue; // `OutputFormat::…`, `PageFormat::…`
            }
            let rest = &code[end..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if variants.contains(&name) {
                out.push((n + 1, format!("{prefix}{name}")));
            } else if rest.starts_with('*') || rest.starts_with('{') {
                out.push((n + 1, format!("{prefix}{}", &rest[..1])));
            }
        }
    }
    out
}

/// Where a `Format` variant may be named: the enum, the seam, and the
/// harness rows (the formats each harness writes, which `Format::harness`
/// reads).
fn may_name_formats(rel: &Path) -> bool {
    rel.starts_with("vocab") || rel.starts_with("load/format") || rel.starts_with("harness")
}

#[test]
fn no_source_file_outside_the_format_seam_names_a_format_variant() {
    let files = source_files();
    // Aliases anywhere in the crate (a `pub use` in one file, used in another).
    let aliases: Vec<String> = files
        .iter()
        .flat_map(|f| format_aliases(&std::fs::read_to_string(f).unwrap()))
        .collect();
    let (mut found, mut seam, mut allowed) = (Vec::new(), 0, 0);
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let rel = &rel_of(f);
        let Some(code) = non_test_code(rel, &text) else {
            continue;
        };
        let names = format_names(&code, &aliases);
        if rel.starts_with("load/format") {
            seam += names.len();
        } else if may_name_formats(rel) {
            allowed += names.len();
        } else {
            for (line, name) in names {
                found.push(format!("src/{}:{line}: {name}", rel.display()));
            }
        }
    }
    eprintln!(
        "Format variant names: {} outside the seam, {seam} in src/load/format/, {allowed} in src/session.rs and src/harness/",
        found.len()
    );
    // The counter finds what it looks for: the seam names every variant.
    assert!(
        seam >= <Format as strum::VariantArray>::VARIANTS.len(),
        "the counter found only {seam} format variants in src/load/format/"
    );
    assert!(
        found.is_empty(),
        "{} format variant names outside src/load/format/ (ask the format's loader, `load::format::of`, instead):\n{}",
        found.len(),
        found.join("\n")
    );
}

#[test]
fn the_format_counter_sees_variants_and_imports_and_skips_other_enums() {
    let text = "match f { Format::QwenJsonl => 1,\n// Format::ClaudeJsonl in words\nx(OutputFormat::Json)\nif f == crate::session::Format::OpencodeDb {}\nuse crate::session::Format::*;\nuse Format::{GeminiJson};\nFormat::GeminiJsonl | Format::GeminiJson";
    let got: Vec<String> = format_names(text, &[])
        .into_iter()
        .map(|(_, n)| n)
        .collect();
    assert_eq!(
        got,
        [
            "Format::QwenJsonl",
            "Format::OpencodeDb",
            "Format::*",
            "Format::{",
            "Format::GeminiJson",
            "Format::GeminiJsonl"
        ]
    );
    // An alias names the variants as well as the enum does.
    let text = "pub use crate::session::Format as InputFormatArg;\nlet f: InputFormatArg = x;\n\
                if f == InputFormatArg::QwenJsonl {}\nx(OutputFormat as Y)";
    let aliases = format_aliases(text);
    assert_eq!(aliases, ["InputFormatArg"]);
    let got: Vec<String> = format_names(text, &aliases)
        .into_iter()
        .map(|(_, n)| n)
        .collect();
    assert_eq!(got, ["InputFormatArg::QwenJsonl"]);
}

#[test]
fn each_format_has_one_loader_and_its_harness_names_it() {
    use mcscope::load::format;
    for &f in <Format as strum::VariantArray>::VARIANTS {
        let owners = format::LOADERS.iter().filter(|l| l.format() == f).count();
        assert_eq!(owners, 1, "{f:?}");
        assert_eq!(format::of(f).format(), f);
        assert!(f.harness().rules().formats.contains(&f), "{f:?}");
    }
    assert_eq!(
        format::LOADERS.len(),
        <Format as strum::VariantArray>::VARIANTS.len()
    );
}

/// Where each plan kind's verdict is written (issue 22 item 3): its file under
/// `src/policy/engine/` and its function. A kind added to `PlanKind` without a
/// row here fails the test below.
fn kind_function(kind: mcscope::policy::PlanKind) -> Option<(&'static str, &'static str)> {
    Some(match kind.name() {
        "auto" => return None,
        "idle" => ("idle.rs", "idle"),
        "forced" => ("idle.rs", "forced"),
        "idle-server" => ("idle_server.rs", "idle_server"),
        "size" => ("size.rs", "size"),
        "count" => ("count.rs", "count"),
        "budget" => ("budget_plan.rs", "budget"),
        "api" => ("api.rs", "api"),
        "recorded" => ("recorded.rs", "recorded"),
        "mask" => ("mask.rs", "mask"),
        "prune" => ("prune.rs", "prune"),
        other => panic!("plan kind {other} has no row in kind_function"),
    })
}

/// Issue 22 item 3: every plan kind is a plain function of what the view
/// holds (a `Look`) and the policy, not a method of the engine: its file
/// defines `fn <kind><L: Look>(` whose first parameter is the view. The
/// kinds that carry nothing from request to request have no engine code in
/// their files at all.
#[test]
fn every_plan_kind_is_a_function_of_a_look_and_the_policy() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/mcscope-core/src/policy/engine");
    let plain = [
        "idle.rs",
        "size.rs",
        "count.rs",
        "budget_plan.rs",
        "mask.rs",
    ];
    let mut seen = 0;
    for &kind in <mcscope::policy::PlanKind as strum::VariantArray>::VARIANTS {
        let Some((file, function)) = kind_function(kind) else {
            continue;
        };
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        let code = non_test_code(&dir.join(file), &text).unwrap_or_default();
        let head = format!("fn {function}<L: Look>(");
        let at = code
            .find(&head)
            .unwrap_or_else(|| panic!("{file} has no `{head}` for plan kind {}", kind.name()));
        let params = &code[at + head.len()..];
        let params = &params[..params.find(')').unwrap()];
        let first = params.split(',').next().unwrap_or_default().trim();
        assert!(
            first.ends_with(": &L") && !params.contains("self"),
            "{file}: {function} takes the view first, not the engine: ({params})"
        );
        if plain.contains(&file) {
            assert!(
                !code.contains("impl Engine"),
                "{file} holds engine code: plan kind {} is to be a function of the view",
                kind.name()
            );
        }
        seen += 1;
    }
    assert_eq!(seen, 10, "every kind but auto has its function");
}

/// The kinds a harness declares `auto` may choose (`Harness::auto_kinds`, which
/// the legality check and the config's printing read) hold every kind its auto
/// does choose, request by request, on every sample under every preset; and
/// each is a kind the harness offers.
#[test]
fn auto_chooses_only_the_kinds_its_harness_declares() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-sessions");
    let mut sessions = Vec::new();
    for e in std::fs::read_dir(&dir).unwrap() {
        let path = e.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if name.ends_with(".mcscope.json")
            || !(name.ends_with(".jsonl") || name.ends_with(".json") || name.ends_with(".db"))
        {
            continue;
        }
        sessions.push(mcscope::load::load(&path, None).unwrap());
    }
    assert!(sessions.len() >= 8, "{} samples", sessions.len());
    let mut seen = std::collections::BTreeSet::new();
    for h in <HarnessId as strum::VariantArray>::VARIANTS.iter().copied() {
        let declared = h.asks().auto_kinds();
        for k in declared {
            assert!(
                h.rules().offers(*k),
                "{h:?} declares {k:?}, not a kind it offers"
            );
        }
        let policy = mcscope::policy::Policy::preset(h);
        for s in &sessions {
            for r in &s.requests {
                if let Some(k) = h.asks().auto_kind(&policy, r, r.gap_minutes) {
                    assert!(
                        declared.contains(&k),
                        "{h:?} chose {k:?} at request {} of {}",
                        r.index,
                        s.path.display()
                    );
                    seen.insert(format!("{h:?} {k:?}"));
                }
            }
        }
    }
    // The samples reach past one kind of one harness, so that the check can fail.
    assert!(seen.len() >= 4, "{seen:?}");
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

/// Which top-level modules of `src/` each one names (`crate::x`), in the code
/// that is not a test: `files` as (path relative to `src/`, text).
fn module_imports(files: &[(PathBuf, String)]) -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (rel, text) in files {
        let Some(top) = rel.components().next().and_then(|c| c.as_os_str().to_str()) else {
            continue;
        };
        let top = top.trim_end_matches(".rs").to_string();
        if top == "main" || top == "lib" {
            continue;
        }
        let Some(code) = non_test_code(rel, text) else {
            continue;
        };
        let names = out.entry(top.clone()).or_default();
        for line in code.lines().filter(|l| !l.trim_start().starts_with("//")) {
            for (i, _) in line.match_indices("crate::") {
                let name: String = line[i + 7..]
                    .chars()
                    .take_while(|c| c.is_ascii_lowercase() || *c == '_' || c.is_ascii_digit())
                    .collect();
                if !name.is_empty() && name != top {
                    names.insert(name);
                }
            }
        }
    }
    out
}

/// The circles of a graph (its strongly connected parts of two or more).
fn circles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    // Two modules are in one circle when each reaches the other.
    let reach = |from: &str| -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from.to_string()];
        while let Some(m) = todo.pop() {
            for n in graph.get(&m).into_iter().flatten() {
                if graph.contains_key(n) && seen.insert(n.clone()) {
                    todo.push(n.clone());
                }
            }
        }
        seen
    };
    let reached: BTreeMap<&String, BTreeSet<String>> =
        graph.keys().map(|m| (m, reach(m))).collect();
    let mut out: Vec<Vec<String>> = Vec::new();
    for m in graph.keys() {
        let circle: Vec<String> = graph
            .keys()
            .filter(|n| *n == m || (reached[m].contains(*n) && reached[*n].contains(m)))
            .cloned()
            .collect();
        if circle.len() > 1 && !out.contains(&circle) {
            out.push(circle);
        }
    }
    out
}

/// The redesign's rule (docs/architecture.md): no two top-level modules of
/// `src/` import each other, directly or through others; `vocab` and `derived`
/// are leaves, and the session holds facts only (it names neither the plans
/// nor the harness rules nor the context above it).
#[test]
fn no_import_circle_among_the_top_level_modules() {
    let files: Vec<(PathBuf, String)> = source_files()
        .iter()
        .map(|p| (rel_of(p), std::fs::read_to_string(p).unwrap()))
        .collect();
    let graph = module_imports(&files);
    assert!(graph.len() > 20, "the modules were found: {graph:?}");
    let found = circles(&graph);
    assert!(
        found.is_empty(),
        "import circles among src's modules: {found:?}"
    );
    for leaf in ["vocab", "derived"] {
        assert_eq!(
            graph[leaf],
            BTreeSet::new(),
            "{leaf} imports nothing of mcscope"
        );
    }
    assert_eq!(
        graph["session"],
        BTreeSet::from(["vocab".to_string()]),
        "the session names only the shared words"
    );
}

#[test]
fn the_circle_finder_sees_a_circle_through_a_third_module_and_skips_test_code() {
    let file = |p: &str, t: &str| (PathBuf::from(p), t.to_string());
    let files = vec![
        file("a.rs", "use crate::b::X;\n// crate::z in a comment\n"),
        file("b/mod.rs", "fn f() { crate::c::g() }\n"),
        file(
            "c.rs",
            "use crate::a;\n#[cfg(test)]\nmod tests { use crate::d; }\n",
        ),
        file("d.rs", "use crate::c;\n"),
        file("b/tests.rs", "use crate::d;\n"),
    ];
    let graph = module_imports(&files);
    assert_eq!(graph["a"], BTreeSet::from(["b".to_string()]));
    assert_eq!(
        graph["c"],
        BTreeSet::from(["a".to_string()]),
        "test code is not read"
    );
    assert_eq!(
        circles(&graph),
        vec![vec!["a".to_string(), "b".to_string(), "c".to_string()]]
    );
}

/// Issue 42 item 1: the core is a crate of its own, and nothing it builds on,
/// directly or through another crate (read from `Cargo.lock`), is a terminal
/// or command-line crate: the compiler then keeps the domain off the edges.
#[test]
fn the_core_builds_on_no_terminal_or_command_line_crate() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lock: toml::Table = std::fs::read_to_string(root.join("Cargo.lock"))
        .unwrap()
        .parse()
        .unwrap();
    let packages = lock["package"].as_array().unwrap();
    let deps_of = |name: &str| -> Vec<String> {
        packages
            .iter()
            .filter(|p| p["name"].as_str() == Some(name))
            .flat_map(|p| {
                p.get("dependencies")
                    .and_then(|d| d.as_array())
                    .cloned()
                    .unwrap_or_default()
            })
            // "name" or "name version" where two versions are locked.
            .filter_map(|d| {
                d.as_str()
                    .map(|s| s.split(' ').next().unwrap_or(s).to_string())
            })
            .collect()
    };
    let mut seen = BTreeSet::new();
    let mut todo = vec!["mcscope-core".to_string()];
    while let Some(p) = todo.pop() {
        for d in deps_of(&p) {
            if seen.insert(d.clone()) {
                todo.push(d);
            }
        }
    }
    assert!(
        seen.contains("serde_json"),
        "the walk reads the lock: {seen:?}"
    );
    let edges = [
        "ratatui",
        "ratatui-core",
        "crossterm",
        "clap",
        "clap_builder",
        "clap_complete",
        "color-eyre",
        "indicatif",
        "nucleo-matcher",
        "termion",
        "termwiz",
    ];
    let found: Vec<&str> = edges
        .iter()
        .copied()
        .filter(|e| seen.contains(*e))
        .collect();
    assert!(found.is_empty(), "mcscope-core builds on {found:?}");
    // And the binary does (the walk would see them if the core took them).
    assert!(deps_of("mcscope").iter().any(|d| d == "ratatui"));
}

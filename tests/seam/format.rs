//! Issue 22 item 2: only the format seam names a `Format` variant; each format has one loader.

use super::*;

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

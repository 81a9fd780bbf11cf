//! Each harness's answers speak of its own records and rules (issue 42 item 4):
//! a Gemini CLI or OpenCode output never names Claude Code's
//! `microcompact_boundary` or Qwen, and `--help` lists every harness's
//! folders, from the registry.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

mod common;

use common::bin::ok;
use mcscope::harness::HarnessId;

/// Every text answer of a session, in one string.
fn every_text(path: &str) -> String {
    let mut all = String::new();
    for args in [
        vec!["evidence", path],
        vec!["timeline", path],
        vec!["plan", path],
        vec!["plan", path, "--at", "3"],
        vec!["evidence", path, "--policy", "recorded"],
        vec!["timeline", path, "--policy", "recorded"],
    ] {
        all.push_str(&ok(&args));
    }
    all
}

#[test]
fn a_gemini_cli_session_never_speaks_of_claude_codes_or_qwens_records() {
    let text = every_text("sample-sessions/gemini-build-masked.jsonl");
    assert!(!text.contains("microcompact_boundary"), "{text}");
    assert!(!text.to_lowercase().contains("qwen"), "{text}");
    // Its own words instead: the masking the file records.
    assert!(
        text.contains("harness evidence: masking recorded at line"),
        "{text}"
    );
    assert!(text.contains("gemini_mask record(s)"), "{text}");
}

#[test]
fn an_opencode_session_never_speaks_of_claude_codes_or_qwens_records() {
    let text = every_text("sample-sessions/opencode-build.db");
    assert!(!text.contains("microcompact_boundary"), "{text}");
    assert!(!text.to_lowercase().contains("qwen"), "{text}");
    assert!(text.contains("opencode_prune record(s)"), "{text}");
}

#[test]
fn a_harness_rewrite_is_explained_in_the_sessions_harness_words() {
    let gemini = ok(&["evidence", "sample-sessions/gemini-build-masked.jsonl"]);
    assert!(
        gemini.contains("harness_rewrite: Gemini CLI masked old tool outputs"),
        "{gemini}"
    );
    let opencode = ok(&["evidence", "sample-sessions/opencode-build.db"]);
    assert!(
        opencode.contains("harness_rewrite: OpenCode pruned old tool outputs"),
        "{opencode}"
    );
}

/// The help of PATH lists the folders of every harness of the registry, and
/// each harness's words name the variable and the home folders its row reads.
#[test]
fn the_help_names_every_harness_folders_as_its_row_reads_them() {
    let help = ok(&["--help"]);
    for h in <HarnessId as strum::VariantArray>::VARIANTS {
        let rules = h.rules();
        let words = rules.words.folders;
        assert!(help.contains(words), "{} missing from --help", rules.title);
        assert!(words.starts_with(rules.title), "{words}");
        assert!(
            words.contains(&format!("${}", rules.home.base_env)),
            "{words} names {}",
            rules.home.base_env
        );
        for base in rules.home.home_bases {
            assert!(
                words.contains(&format!("~/{base}")),
                "{words} names ~/{base}"
            );
        }
    }
}

use super::*;

#[test]
fn token_estimates_follow_each_harness() {
    // Claude rounds half up per text block; Qwen takes the ceiling.
    assert_eq!(TextTokens::RoundQuarter.of(6), 2);
    assert_eq!(TextTokens::RoundQuarter.of(5), 1);
    assert_eq!(TextTokens::CeilQuarter.of(5), 2);
    assert_eq!(CLAUDE.est_tokens(3, 1), 2003);
    assert_eq!(QWEN.est_tokens(3, 2), 3203);
}

#[test]
fn qwen_names_are_canonical_aliases_then_any_case() {
    use crate::load::qwen::tool_name;
    assert_eq!(tool_name("search_file_content"), "grep_search");
    assert_eq!(tool_name("replace"), "edit");
    assert_eq!(tool_name("task"), "agent");
    assert_eq!(tool_name("Read_File"), "read_file");
    assert_eq!(tool_name("TOOL_CALL"), "tool_call");
    // Aliases are exact: another case is no alias (and no known tool).
    assert_eq!(tool_name("Replace"), "Replace");
    // Display names are not tool names.
    assert_eq!(tool_name("ReadFile"), "ReadFile");
    assert_eq!(tool_name(""), "");
    // Claude compares names as recorded.
    assert_eq!(CLAUDE.canonical("read"), "read");
    for t in ["web_search", "skill", "search_memory"] {
        assert!(QWEN.is_compactable(t), "{t}");
    }
    assert_eq!(QWEN.tools.compactable.len(), 11);
}

#[test]
fn bases_follow_each_harness_s_variable_and_home() {
    use std::ffi::OsStr;
    use std::path::Path;
    let home = Some(Path::new("/h"));
    let list = Some(OsStr::new("/a, /b,"));
    // Claude: every entry of the list is an install; else both home bases.
    assert_eq!(
        CLAUDE.home.bases_from(list, home),
        [PathBuf::from("/a"), PathBuf::from("/b")]
    );
    assert_eq!(
        CLAUDE.home.bases_from(None, home),
        [
            PathBuf::from("/h/.claude"),
            PathBuf::from("/h/.config/claude")
        ]
    );
    assert!(CLAUDE.home.bases_from(None, None).is_empty());
    // Qwen: one base, the first entry.
    assert_eq!(QWEN.home.bases_from(list, home), [PathBuf::from("/a")]);
    assert_eq!(
        QWEN.home.bases_from(None, home),
        [PathBuf::from("/h/.qwen")]
    );
}

#[test]
fn each_row_is_its_harness() {
    for p in ALL {
        assert_eq!(p.harness.rules().name, p.name);
        assert_eq!(p.harness.name(), p.name);
        assert!(p.is_compactable(p.tools.read_tool));
        assert!(p.tools.file_path_tools.iter().all(|t| p.is_compactable(t)));
    }
}

/// SPEC §6, §11: `cache-edits` and the server's edits are Claude's (and the
/// api preset's, whose sessions are Claude's); every harness rewrites.
#[test]
fn each_row_offers_the_deliveries_its_body_carries() {
    for &h in <HarnessId as strum::VariantArray>::VARIANTS {
        let row = h.rules();
        let d = row.dialect;
        assert!(row.offers_delivery(Delivery::Rewrite), "{h:?}");
        // Only a body that can carry an edit offers it (OpenCode's body is
        // Anthropic-shaped, but OpenCode sends neither edit).
        assert!(
            !row.offers_delivery(Delivery::CacheEdits) || d.has_cache_edits(),
            "{h:?}"
        );
        assert!(
            !row.offers_delivery(Delivery::Server) || d.has_server_view(),
            "{h:?}"
        );
    }
    assert!(CLAUDE.offers_delivery(Delivery::CacheEdits));
    assert!(CLAUDE.offers_delivery(Delivery::Server));
    for row in [&QWEN, &GEMINI, &opencode::OPENCODE] {
        assert_eq!(row.offers.deliveries, [Delivery::Rewrite], "{}", row.name);
    }
}

/// SPEC §5 "Persistence", §15.9, §2: what lapses before a request, and the
/// gap at a Qwen hook, are each harness's answers; the api preset answers as
/// Claude (its sessions are Claude's).
#[test]
fn lapses_and_the_idle_gap_are_the_harness_s() {
    use crate::session::{Send, SendKind};
    let turn = Request {
        begins_turn: true,
        gap_minutes: Some(9.0),
        now_ms: Some(600_000),
        ..Request::empty(1)
    };
    let claude = Lapses {
        turn_start: true,
        new_version: true,
    };
    assert_eq!(PresetId::Claude.asks().lapses(&turn), claude);
    assert_eq!(PresetId::Api.asks().lapses(&turn), claude);
    let mid = Request {
        begins_turn: false,
        ..turn.clone()
    };
    assert!(!PresetId::Api.asks().lapses(&mid).turn_start);
    // Qwen writes the cleared history back: a clearing lasts past a turn
    // start (SPEC §5).
    for id in [PresetId::Qwen, PresetId::Gemini, PresetId::Opencode] {
        assert_eq!(id.asks().lapses(&turn), Lapses::default(), "{id:?}");
        assert_eq!(id.asks().replay_from(&[], 1), 1, "{id:?}");
    }
    // Qwen's hook reads the time since the checkpoint, set at the last
    // completion when unset; elsewhere the recorded gap.
    let hook = Request {
        send: Some(Send {
            kind: SendKind::Hook,
            after_goal: false,
            completion_ms: Some(480_000),
            process: 0,
            note: None,
        }),
        ..turn.clone()
    };
    let mut checkpoint = None;
    let qwen = PresetId::Qwen.asks();
    assert_eq!(qwen.idle_gap(&hook, &mut checkpoint), Some(2.0));
    assert_eq!(checkpoint, Some(480_000));
    // A hook whose plan saved nothing leaves it; a prompt moves it to now.
    qwen.after_send(&hook, false, &mut checkpoint);
    assert_eq!(checkpoint, Some(480_000));
    qwen.after_send(&hook, true, &mut checkpoint);
    assert_eq!(checkpoint, Some(600_000));
    let mut none = None;
    assert_eq!(
        PresetId::Claude.asks().idle_gap(&hook, &mut none),
        Some(9.0)
    );
    assert_eq!(none, None);
}

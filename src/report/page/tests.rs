use super::md::{code, esc, longest_backtick_run};
use super::*;

fn page(content: &str) -> Page {
    Page {
        session: PageSession {
            path: "~/p/s.jsonl".into(),
            harness: "claude",
            version: Some("2.1.88".into()),
            entrypoint: None,
            requests: 3,
        },
        result: PageResult {
            id: "toolu_`x`|<b>".into(),
            tool: Some("Read".into()),
            target: Some("/r/a.rs".into()),
            chars: Some(10),
            est_tokens: Some(3),
            call_in_file: true,
        },
        records: Vec::new(),
        plan: "idle (preset claude, delivery rewrite)".into(),
        could_run: None,
        runs: vec![Run {
            from: 2,
            to: 3,
            status: "kept",
            glyph: "·",
            reason: "in the last 5 | <i>".into(),
        }],
        first_cleared: None,
        content: Some(content.into()),
        levers: vec!["DISABLE_MICROCOMPACT=1 turns the budget plan off <b>".into()],
    }
}

#[test]
fn the_longest_backtick_run_is_counted() {
    assert_eq!(longest_backtick_run("a ` b `` c ```` d"), 4);
    assert_eq!(longest_backtick_run("none"), 0);
}

#[test]
fn markdown_escapes_every_markup_character() {
    assert_eq!(esc("a|b<c>`d`"), "a\\|b\\<c\\>\\`d\\`");
    assert_eq!(
        esc("[x](y) *z* _w_ &amp;"),
        "\\[x\\]\\(y\\) \\*z\\* \\_w\\_ \\&amp;"
    );
}

/// SPEC §15.25: the fence is one backtick longer than the longest run in the
/// content, three at least.
#[test]
fn s15_25_the_fence_is_one_backtick_longer_than_the_content_run() {
    let md = page_md(&page("a\n``````` b\n"));
    assert!(
        md.contains("\n````````text\na\n``````` b\n````````\n"),
        "{md}"
    );
    let md = page_md(&page("plain"));
    assert!(md.contains("\n```text\nplain\n```\n"), "{md}");
    assert!(!md.contains("left out"));
}

/// SPEC §15.25: Markdown content is cut at 4,000 Unicode scalar values (not
/// bytes: a multi-byte character counts once), the count left out said.
#[test]
fn s15_25_markdown_content_is_cut_at_4000_scalar_values() {
    let content = "é".repeat(3_999) + "🦀" + &"x".repeat(1_234);
    let md = page_md(&page(&content));
    let shown = "é".repeat(3_999) + "🦀";
    assert!(md.contains(&format!("```text\n{shown}\n```\n")));
    assert!(
        md.contains("_1,234 more characters left out: the page shows the first 4,000 of 5,234._")
    );
    // Exactly 4,000 is shown whole.
    let md = page_md(&page(&"é".repeat(4_000)));
    assert!(!md.contains("left out"));
}

/// The HTML page escapes every field; the content sits in one `<details>`.
#[test]
fn s12_html_escapes_fields_and_folds_the_content() {
    let html = page_html(&page("</details><script>x</script>"));
    assert!(html.contains("toolu_`x`|&lt;b&gt;"));
    assert!(html.contains("in the last 5 | &lt;i&gt;"));
    assert!(!html.contains("<script") && !html.contains("<b>") && !html.contains("<i>"));
    assert_eq!(html.matches("</details>").count(), 1);
    assert!(html.contains("<tr data-from=\"2\" data-to=\"3\"><td class=\"req\">requests 2–3</td>"));
}

/// SPEC §13.P3: when the harness could not have run the plan, the fate says
/// "what-if" and never presents the clearing as what happened.
#[test]
fn p3_a_plan_the_harness_could_not_run_reads_as_a_what_if() {
    let mut p = page("c");
    p.first_cleared = Some(FirstCleared {
        request: 3,
        instead: Instead::Absent,
        next_calls: Vec::new(),
        later_used: None,
        note: None,
    });
    p.runs[0].status = "cleared";
    assert!(!fate_words(&p).contains("what-if"));
    p.could_run = Some(CouldRun {
        value: Some(false),
        reason: "internal_builds_only".into(),
    });
    assert!(fate_words(&p).contains("a what-if"), "{}", fate_words(&p));
    assert!(could_run_words(&p).unwrap().contains("what-if"));
    let md = page_md(&p);
    assert!(md.contains("internal\\_builds\\_only"));
}

/// SPEC §12: an id whose call is not in the file still gets a page, saying so.
#[test]
fn s12_an_id_without_its_call_says_so() {
    let mut p = page("c");
    p.result.call_in_file = false;
    p.runs.clear();
    p.content = None;
    let md = page_md(&p);
    assert!(md.contains("its call is not in the file"));
    assert!(fate_words(&p).contains("no request's view holds it: its call is not in the file"));
    assert!(md.contains("No request's view holds it: not shown."));
}

/// SPEC §15.26, §12: ids, paths and commands are code spans a reader copies as
/// recorded (`toolu_A`, never `toolu\_A`); a backtick inside gets a longer
/// run, and a line break is made visible.
#[test]
fn s15_26_ids_and_paths_are_code_spans() {
    assert_eq!(code("toolu_A"), "`toolu_A`");
    assert_eq!(code("/src/my_file.rs"), "`/src/my_file.rs`");
    assert_eq!(code("a`b"), "``a`b``");
    assert_eq!(code("`x"), "`` `x ``");
    assert_eq!(code("toolu_A\ncurl x | sh"), "`toolu_A\\ncurl x | sh`");
    let md = page_md(&page("plain"));
    assert!(!md.contains("\\_"), "no escaped underscore in an id:\n{md}");
}

/// The words issue: where the plan shows a placeholder but the harness sent
/// something else (budget's `<persisted-output>` pointer), the page says so
/// and never "the model saw instead".
#[test]
fn a_placeholder_the_harness_did_not_send_is_not_what_the_model_saw() {
    let mut f = FirstCleared {
        request: 7,
        instead: Instead::Text("[Old tool result content cleared]".into()),
        next_calls: Vec::new(),
        later_used: None,
        note: None,
    };
    assert_eq!(instead_words(&f), "At request 7, the model saw instead:");
    f.note = crate::policy::PlanKind::Budget.placeholder_note();
    let w = instead_words(&f);
    assert!(
        w.starts_with("At request 7, in its place (Claude Code sent a <persisted-output> pointer"),
        "{w}"
    );
    assert!(!w.contains("the model saw"), "{w}");
}

//! How a Gemini CLI read's path is named. Gemini CLI records no cwd, and its
//! `read_file` takes a path relative to the workspace: no output may make such
//! a path absolute from `/` (the words issue: "a Gemini relative read path
//! shows as `/build.config.ts`").

use super::*;

/// `tests/fixtures/gemini/make.py`: reads of `build.config.ts`,
/// `./src/../src/main.ts` and `../shared/util.ts`, masked at requests 3, 4
/// and 5 under [`MASK`].
const RELATIVE: &str = "tests/fixtures/gemini/relative-read.jsonl";
const MASK: [&str; 6] = [
    "--policy",
    "mask",
    "--protect-tokens",
    "100",
    "--min-prunable-tokens",
    "100",
];
/// The fixture's reads as an absolute path from `/` would name them.
const ROOTED: [&str; 3] = ["/build.config.ts", "/src/main.ts", "/shared/util.ts"];

/// Where `text` names one of the fixture's reads from the root: an
/// occurrence of [`ROOTED`] that is not the tail of the recorded `./…` or
/// `../…` spelling.
fn rooted(text: &str) -> Option<String> {
    ROOTED.iter().find_map(|r| {
        text.match_indices(r)
            .find(|(at, _)| !text[..*at].ends_with('.'))
            .map(|(at, _)| around(text, at, r.len()))
    })
}

/// `text` around `len` bytes at `at`, on character boundaries.
fn around(text: &str, at: usize, len: usize) -> String {
    let mut from = at.saturating_sub(60);
    while !text.is_char_boundary(from) {
        from -= 1;
    }
    let mut to = (at + len + 20).min(text.len());
    while !text.is_char_boundary(to) {
        to += 1;
    }
    text[from..to].to_string()
}

/// The plan at each request lists the read it evicts as recorded, `.` and
/// `..` folded where they can be: `plan`'s text and JSON, on the fixture and
/// on the bundled sample (`plan --at 4` listed `/build.config.ts`).
#[test]
fn a_relative_read_path_is_listed_as_recorded_not_from_the_root() {
    for (k, want) in [
        (3, "build.config.ts"),
        (4, "src/main.ts"),
        (5, "../shared/util.ts"),
    ] {
        let at = k.to_string();
        let mut args = vec!["plan", RELATIVE, "--at", &at];
        args.extend(MASK);
        let text = ok(&args);
        assert!(
            text.lines()
                .any(|l| l == format!("evicted read paths: {want}")),
            "request {k}:\n{text}"
        );
        args.push("-j");
        let v = json(&args);
        assert_eq!(
            v["metadata"]["evicted_read_paths"],
            json!([want]),
            "request {k}"
        );
    }
    let text = ok(&["plan", MASKED, "--at", "4"]);
    assert!(
        text.lines()
            .any(|l| l == "evicted read paths: build.config.ts"),
        "{text}"
    );
}

/// Every output on the fixture, as a user meets them: `plan` and `wire` at
/// every request, `timeline`, `explain` of each read as text, JSON,
/// Markdown and HTML, `evidence`, `compare`'s HTML page, and the TUI at
/// 80×24 and 160×45 at every request: none names a read from the root.
#[test]
fn no_output_names_a_relative_read_from_the_root() {
    let mut outputs: Vec<(String, String)> = Vec::new();
    let mut run_all = |args: Vec<&str>| {
        let mut full = args.clone();
        if !matches!(args[0], "evidence" | "compare") {
            full.extend(MASK);
        }
        outputs.push((full.join(" "), ok(&full)));
    };
    for k in ["1", "2", "3", "4", "5"] {
        for f in ["text", "json"] {
            run_all(vec!["plan", RELATIVE, "--at", k, "--format", f]);
        }
        run_all(vec!["wire", RELATIVE, "--at", k]);
    }
    for f in ["text", "json"] {
        run_all(vec!["timeline", RELATIVE, "--format", f]);
        run_all(vec!["evidence", RELATIVE, "--format", f]);
    }
    for id in [1, 2, 3] {
        let id = format!("read_file__read_file_17960301{id:05}_0");
        for f in ["text", "json", "md", "html"] {
            run_all(vec!["explain", RELATIVE, &id, "--format", f]);
        }
    }
    run_all(vec!["compare", RELATIVE, "--format", "html"]);
    for (what, out) in &outputs {
        assert!(!out.is_empty(), "{what}: nothing printed");
        if let Some(at) = rooted(out) {
            panic!("{what} names a read from the root: …{at}…");
        }
    }
    // The TUI, under the same setting, at every request.
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(RELATIVE);
    let opts = MASK
        .chunks(2)
        .fold(mcscope::cli::Opts::default(), |o, f| o.with(f[0], f[1]));
    for k in 0..5 {
        let setup = mcscope::cli::setup(&path, &opts).unwrap();
        let mut a = mcscope::tui::app::App::session_at(setup, k);
        a.view_mut().unwrap().wait_background();
        for (w, h) in [(80, 24), (160, 45)] {
            let screen = screen::screen(&a, w, h).join("\n");
            if let Some(at) = rooted(&screen) {
                panic!("the TUI at request {} ({w}×{h}): …{at}…\n{screen}", k + 1);
            }
        }
    }
}

//! The docs live in the repository and say what the code does:
//! - README.md and docs/*.md never point outside the repository (`../shared`), and
//!   every relative link names a file that exists (and a heading it has);
//! - docs/json.md lists every field the binary prints on the bundled samples, and
//!   every field it lists for the shared objects is one the binary prints;
//! - docs/tui.md names every key of the TUI's two keymap tables;
//! - docs/compare.md gives the default grid's values as the table holds them;
//! - docs/config.md names every key the config file and the sidecar accept, and
//!   each parameter of the table with its flag and each harness's default.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// README.md and every page of docs/, by their path in the repository.
fn pages() -> Vec<String> {
    let mut pages = vec!["README.md".to_string()];
    let mut docs: Vec<String> = std::fs::read_dir(root().join("docs"))
        .expect("docs/")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .map(|n| format!("docs/{n}"))
        .collect();
    docs.sort();
    assert!(docs.len() >= 7, "docs/ holds {docs:?}");
    pages.extend(docs);
    pages
}

/// The text outside fenced blocks and inline code: where links are links.
fn prose(text: &str) -> String {
    let mut out = String::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            out.push('\n');
            continue;
        }
        if fenced {
            out.push('\n');
            continue;
        }
        // Inline code spans (`…`) dropped, the rest kept.
        let mut in_code = false;
        for c in line.chars() {
            if c == '`' {
                in_code = !in_code;
            } else if !in_code {
                out.push(c);
            }
        }
        out.push('\n');
    }
    out
}

/// The targets of `[text](target)` and `![alt](target)` links.
fn links(text: &str) -> Vec<String> {
    let text = prose(text);
    let mut out = Vec::new();
    let mut rest = text.as_str();
    while let Some(at) = rest.find("](") {
        let after = &rest[at + 2..];
        match after.find(')') {
            Some(end) => {
                out.push(after[..end].trim().to_string());
                rest = &after[end..];
            }
            None => break,
        }
    }
    out
}

/// The anchors GitHub gives a page's headings: lower case, punctuation dropped,
/// spaces as hyphens, a repeated heading numbered `-1`, `-2`…
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = BTreeSet::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        if fenced || !line.starts_with('#') {
            continue;
        }
        let heading = line.trim_start_matches('#').trim();
        let slug: String = heading
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        let n = seen.entry(slug.clone()).or_insert(0);
        out.insert(if *n == 0 {
            slug.clone()
        } else {
            format!("{slug}-{n}")
        });
        *n += 1;
    }
    out
}

#[test]
fn no_page_points_outside_the_repository_or_at_a_missing_file() {
    let mut bad = Vec::new();
    for page in pages() {
        let text = read(&page);
        if text.contains("../shared") {
            bad.push(format!(
                "{page}: names ../shared, which a clone does not have"
            ));
        }
        let dir = Path::new(&page)
            .parent()
            .unwrap_or(Path::new(""))
            .to_path_buf();
        for target in links(&text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (file, anchor) = match target.split_once('#') {
                Some((f, a)) => (f.to_string(), Some(a.to_string())),
                None => (target.clone(), None),
            };
            let rel = if file.is_empty() {
                PathBuf::from(&page)
            } else {
                dir.join(&file)
            };
            let path = root().join(&rel);
            if !path.exists() {
                bad.push(format!(
                    "{page}: link {target:?}: {} does not exist",
                    rel.display()
                ));
                continue;
            }
            if let Some(anchor) = anchor {
                let Ok(linked) = std::fs::read_to_string(&path) else {
                    bad.push(format!("{page}: link {target:?}: not a text file"));
                    continue;
                };
                if !anchors(&linked).contains(&anchor) {
                    bad.push(format!(
                        "{page}: link {target:?}: {} has no heading #{anchor}",
                        rel.display()
                    ));
                }
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn the_link_reader_finds_links_files_and_headings() {
    let text = "See [a](docs/a.md#x-y) and ![i](assets/p.png).\n`[no](code.md)`\n```\n[no](fenced.md)\n```\n";
    assert_eq!(links(text), ["docs/a.md#x-y", "assets/p.png"]);
    let a = anchors("# Tuning: `mcscope compare`\n## plan: `mcscope.plan/1`\n## Notes\n## Notes\n");
    for slug in [
        "tuning-mcscope-compare",
        "plan-mcscopeplan1",
        "notes",
        "notes-1",
    ] {
        assert!(a.contains(slug), "{slug} in {a:?}");
    }
}

// ---- docs/json.md against the binary's output ----

/// The first-column fields (`…`) of every table row, per heading of a page.
fn sections(text: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut heading = String::new();
    for line in text.lines() {
        if line.starts_with('#') {
            heading = line.trim_start_matches('#').trim().to_string();
            out.entry(heading.clone()).or_default();
            continue;
        }
        let Some(cell) = line.strip_prefix("| `") else {
            continue;
        };
        if let Some(end) = cell.find('`') {
            out.entry(heading.clone())
                .or_default()
                .insert(cell[..end].to_string());
        }
    }
    out
}

/// The fields of the section whose heading holds `needle`.
fn section<'a>(all: &'a BTreeMap<String, BTreeSet<String>>, needle: &str) -> &'a BTreeSet<String> {
    all.iter()
        .find(|(h, _)| h.contains(needle))
        .map(|(_, f)| f)
        .unwrap_or_else(|| panic!("docs/json.md has no section {needle:?}"))
}

/// Values mcscope passes through from the transcript or the user as they are:
/// their insides are not mcscope's schema.
/// Objects whose keys are data (tool names…), not fields: listed, not walked.
const OPAQUE: &[&str] = &[
    "applied_edits",
    "recorded",
    "api_edits",
    "mtimeMs",
    "tool_results",
    // compare's settings keys (SPEC §15.15): Qwen Code's or the API's names.
    "knob",
];

fn paths(v: &Value, at: &str, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                let p = if at.is_empty() {
                    k.clone()
                } else {
                    format!("{at}.{k}")
                };
                out.insert(p.clone());
                if !OPAQUE.contains(&k.as_str()) {
                    paths(x, &p, out);
                }
            }
        }
        Value::Array(items) => {
            for x in items {
                paths(x, &format!("{at}[]"), out);
            }
        }
        _ => {}
    }
}

fn mcscope_json(args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_mcscope"))
        .args(args)
        .current_dir(root())
        .env(
            "MCSCOPE_CONFIG",
            root().join("target/no-config-for-docs-tests.toml"),
        )
        .output()
        .expect("run mcscope");
    assert!(
        out.status.success(),
        "mcscope {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("mcscope {args:?} printed no JSON: {e}"))
}

/// The sessions and settings whose outputs, together, hold every field.
const SESSIONS: &[&str] = &[
    "sample-sessions/claude-demo.jsonl",
    "sample-sessions/claude-budget.jsonl",
    "sample-sessions/claude-size.jsonl",
    "sample-sessions/claude-cut.jsonl",
    "sample-sessions/api-agent.json",
    "sample-sessions/claude-idle-server.jsonl",
    "sample-sessions/qwen-memory/today.jsonl",
    "sample-sessions/qwen-memory/session.jsonl",
    "tests/fixtures/qwen/media.jsonl",
    "tests/fixtures/hostile/truncated-last-line.jsonl",
    "tests/fixtures/hostile2/wrong-types.jsonl",
];

const POLICIES: &[&[&str]] = &[
    &[],
    &["--policy", "idle"],
    &["--policy", "count"],
    &["--policy", "forced", "--protect"],
];

/// Where a schema's field may be documented: its own section, or a shared object's
/// (`prefix` → the section of the object at that place).
struct Schema {
    name: &'static str,
    section: &'static str,
    shared: &'static [(&'static str, &'static str)],
}

const SESSION: &str = "The `session` object";
const POLICY: &str = "The `policy` object";
const EVIDENCE: &str = "The `evidence` object";
const API: &str = "The `api` object";
const IDLE_SERVER: &str = "The `idle_server` object";

fn schemas() -> Vec<Schema> {
    vec![
        Schema {
            name: "plan",
            section: "mcscope.plan/1",
            shared: &[
                ("session", SESSION),
                ("policy", POLICY),
                ("evidence", EVIDENCE),
                ("api", API),
                ("idle_server", IDLE_SERVER),
            ],
        },
        Schema {
            name: "timeline",
            section: "mcscope.timeline/1",
            shared: &[
                ("session", SESSION),
                ("policy", POLICY),
                ("requests[].evidence", EVIDENCE),
                ("requests[].api", API),
                ("requests[].idle_server", IDLE_SERVER),
            ],
        },
        Schema {
            name: "evidence",
            section: "mcscope.evidence/1",
            // A row is its index, then the evidence object's keys.
            shared: &[
                ("session", SESSION),
                ("policy", POLICY),
                ("requests[]", EVIDENCE),
            ],
        },
        Schema {
            name: "explain",
            section: "mcscope.explain/1",
            shared: &[("session", SESSION)],
        },
        Schema {
            name: "compare",
            section: "mcscope.compare/1",
            shared: &[("rows[].policy", POLICY)],
        },
        Schema {
            name: "statusline",
            section: "statusline: the live line",
            shared: &[],
        },
        Schema {
            name: "wire",
            section: "wire: the request body",
            shared: &[],
        },
    ]
}

/// Every field path each schema printed over the samples.
fn printed() -> BTreeMap<&'static str, BTreeSet<String>> {
    let mut out: BTreeMap<&'static str, BTreeSet<String>> = BTreeMap::new();
    let mut add = |name: &'static str, v: Value| paths(&v, "", out.entry(name).or_default());
    for s in SESSIONS {
        for p in POLICIES {
            for cmd in ["plan", "timeline", "evidence"] {
                let mut args = vec![cmd, s, "--format", "json"];
                args.extend_from_slice(p);
                add(cmd, mcscope_json(&args));
            }
        }
    }
    // Gemini CLI and OpenCode have their own plans (the other kinds are
    // refused there).
    for s in [
        "sample-sessions/gemini-build.jsonl",
        "sample-sessions/gemini-build-masked.jsonl",
        "sample-sessions/opencode-build.db",
    ] {
        for cmd in ["plan", "timeline", "evidence"] {
            add(cmd, mcscope_json(&[cmd, s, "--format", "json"]));
        }
    }
    add(
        "plan",
        mcscope_json(&[
            "plan",
            "tests/fixtures/windows/claude-windows.jsonl",
            "--protect",
            "--path-map",
            "C:\\Users\\dev=/home/dev",
            "--format",
            "json",
        ]),
    );
    for (s, id) in [
        ("sample-sessions/claude-demo.jsonl", "toolu_A"),
        ("sample-sessions/claude-cut.jsonl", "toolu_R1"),
        ("sample-sessions/qwen-memory/today.jsonl", "call_main"),
        (
            "sample-sessions/api-agent.json",
            "toolu_01INNFp2p3FneK7PvUIa9Htl",
        ),
    ] {
        add(
            "explain",
            mcscope_json(&["explain", s, id, "--format", "json"]),
        );
    }
    for s in [
        "sample-sessions/claude-demo.jsonl",
        "sample-sessions/qwen-memory/today.jsonl",
        "tests/fixtures/hostile",
    ] {
        add(
            "compare",
            mcscope_json(&["compare", s, "--format", "json", "-q"]),
        );
    }
    add(
        "compare",
        mcscope_json(&[
            "compare",
            "sample-sessions/api-agent.json",
            "--api-trigger",
            "20000",
            "--format",
            "json",
            "-q",
        ]),
    );
    // The live line reads Claude Code's status-line JSON on stdin; a cache
    // folder of its own, under target/.
    for s in [
        "sample-sessions/claude-demo.jsonl",
        "sample-sessions/claude-budget.jsonl",
    ] {
        use std::io::Write;
        let stdin = serde_json::json!({"transcript_path": root().join(s), "model": {"id": "x"}});
        let mut child = Command::new(env!("CARGO_BIN_EXE_mcscope"))
            .args(["statusline", "--format", "json"])
            .env("XDG_CACHE_HOME", root().join("target/docs-tests-cache"))
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("run mcscope");
        let mut input = child.stdin.take().expect("stdin");
        input
            .write_all(stdin.to_string().as_bytes())
            .expect("write stdin");
        drop(input);
        let out = child.wait_with_output().expect("run mcscope");
        add(
            "statusline",
            serde_json::from_slice(&out.stdout).expect("statusline JSON"),
        );
    }
    for (s, extra) in [
        ("sample-sessions/claude-demo.jsonl", "--policy=count"),
        ("sample-sessions/qwen-memory/today.jsonl", "--policy=idle"),
        ("sample-sessions/api-agent.json", "--side=local"),
    ] {
        // The body's own fields are the API's: only the top level is mcscope's.
        let body = mcscope_json(&["wire", s, extra]);
        let top: BTreeSet<String> = body
            .as_object()
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default();
        out.entry("wire").or_default().extend(top);
    }
    out
}

#[test]
fn json_md_lists_every_field_the_binary_prints() {
    let doc = sections(&read("docs/json.md"));
    let printed = printed();
    let mut missing = Vec::new();
    // Every documented field of the shared objects, and of the schemas, that no
    // sample printed: a field the docs invent would stay here.
    let mut unseen: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    for name in [SESSION, POLICY, EVIDENCE, API] {
        unseen.insert(name, section(&doc, name).clone());
    }
    for schema in schemas() {
        let own = section(&doc, schema.section);
        unseen.insert(schema.section, own.clone());
        for path in &printed[schema.name] {
            let shared = schema.shared.iter().find_map(|(prefix, obj)| {
                path.strip_prefix(prefix)
                    .and_then(|r| r.strip_prefix('.'))
                    .map(|rest| (*obj, rest))
            });
            let documented = match shared {
                _ if own.contains(path) => {
                    if let Some(u) = unseen.get_mut(schema.section) {
                        u.remove(path);
                    }
                    true
                }
                Some((obj, rest)) if section(&doc, obj).contains(rest) => {
                    if let Some(u) = unseen.get_mut(obj) {
                        u.remove(rest);
                    }
                    true
                }
                _ => false,
            };
            if !documented {
                missing.push(format!("{}: `{path}`", schema.name));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "docs/json.md does not list these printed fields:\n{}",
        missing.join("\n")
    );
    // Fields the samples cannot show (an empty session, a folder's skipped files,
    // compaction records, budget firings without a record…): read from the
    // structs, listed here so that any other unseen field fails.
    let not_on_the_samples: &[&str] = &[
        "microcompact.writer",
        "compactions[].writer",
        "compactions[].compacted_tool_ids",
        "compactions[].pre_tokens",
        "compactions[].tokens_saved",
        "compactions[].agrees",
        "compactions[].missing",
        "compactions[].extra",
        "beside_recorded[].type",
        "beside_recorded[].simulated_cleared",
        "beside_recorded[].recorded_cleared",
        "beside_recorded[].simulated_cleared_input_tokens",
        "beside_recorded[].recorded_cleared_input_tokens",
        "beside_recorded[].agrees",
        "warnings[].line",
        "warnings[].message",
        "metadata.evicted_memory_bodies[].memoryRef",
        "metadata.evicted_memory_bodies[].mtimeMs",
        "contents",
        "messages",
        "compactions[].absent",
        // `recorded` is opaque to `paths` (the api object's list of the
        // same name): its §13.E4 keys are checked by tests/facts.rs instead.
        "idle_server.recorded.cleared_tool_uses",
        "idle_server.recorded.cleared_input_tokens",
        "idle_server.recorded.client_cut_tool_uses",
        "idle_server.recorded.client_sent_trigger_tool_uses",
        "idle_server.recorded.client_sent_keep_tool_uses",
        "idle_server.recorded.client_estimated_cleared_input_tokens",
    ];
    let invented: Vec<String> = unseen
        .iter()
        .flat_map(|(s, fields)| fields.iter().map(move |f| (s, f)))
        .filter(|(_, f)| !not_on_the_samples.contains(&f.as_str()))
        .map(|(s, f)| format!("{s}: `{f}`"))
        .collect();
    assert!(
        invented.is_empty(),
        "docs/json.md lists fields no sample printed (check the struct, then list it in not_on_the_samples):\n{}",
        invented.join("\n")
    );
}

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

/// One corpus locator (`tests/common/corpus.rs`) for every test: a test that looks
/// for the corpus by its own path ignores `MCSCOPE_CORPUS` and
/// `MCSCOPE_REQUIRE_CORPUS`, and can pass in CI having checked nothing.
#[test]
fn every_test_finds_the_corpus_through_the_one_locator() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    // Built from parts, so that this test does not find itself.
    let needle = ["shared", "corpus"].join("/");
    let mut offenders = Vec::new();
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_none_or(|x| x != "rs") {
            continue;
        }
        let text = std::fs::read_to_string(&p).unwrap();
        for (i, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if code.contains(&needle) {
                offenders.push(format!("{}:{}", p.display(), i + 1));
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "use tests/common/corpus.rs: {offenders:?}"
    );
}

/// The cell of `line` (a Markdown table row) at `n`, trimmed.
fn cell(line: &str, n: usize) -> &str {
    let c = line.split(" | ").nth(n).unwrap_or_default().trim();
    c.trim_end_matches('|').trim()
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
        let values = by_key(key).unwrap().default_grid(kind).unwrap();
        let text = words(values);
        assert!(grid.contains(&text), "{key} for {}: {text}", kind.name());
    }
    // One value is not a list in the page's words.
    let keep = by_key("keep_recent").unwrap();
    assert_eq!(keep.default_grid(PlanKind::Size), Some(&[5.0][..]));
    assert!(grid.contains("`size`: keep 5 ×"));
    let gap = by_key("gap_threshold_minutes").unwrap();
    assert_eq!(gap.default_grid(PlanKind::IdleServer), Some(&[65.0][..]));
    assert!(grid.contains("gap 65 minutes"));
}

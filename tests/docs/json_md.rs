//! docs/json.md against the binary's output: every field printed is listed, and the reverse.

use super::*;

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
                // The bill's causes are listed once, as `*`.
                let k = if at.ends_with("cache_write_causes")
                    || at == "recommended_by_harness"
                    || at.ends_with("session.ran")
                    || at.ends_with("session.ran_because")
                    || at == "cost.causes"
                {
                    "*".to_string()
                } else {
                    k.clone()
                };
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
    // SPEC §17.C.U3 / U4: `candidates[].size_unknown` and `source`.
    "tests/fixtures/claude-pdf/ex1-n30.jsonl",
    "tests/fixtures/claude-pdf/u4-earlier-337.jsonl",
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

const CLINE: &str = "The `cline` object";

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
                ("request.cline", CLINE),
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
                ("requests[].cline", CLINE),
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
            name: "bill",
            section: "mcscope.bill/1",
            shared: &[],
        },
        Schema {
            name: "bill_row",
            section: "mcscope.bill_row/1",
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
    // Gemini CLI, OpenCode and Cline have their own plans (the other kinds are
    // refused there).
    for s in [
        "sample-sessions/gemini-build.jsonl",
        "sample-sessions/gemini-build-masked.jsonl",
        "sample-sessions/opencode-build.db",
        "sample-sessions/cline-task",
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
    // The bill: its totals are a row's fields without the key, label and
    // breaks (checked as the rows' fields).
    for args in [
        &["bill", "sample-sessions", "-j", "-q"][..],
        &["bill", "sample-sessions", "-j", "-q", "--by", "session"],
        &["bill", "sample-sessions/claude-budget.jsonl", "-j", "-b"],
    ] {
        let mut v = mcscope_json(args);
        let totals = v.as_object_mut().and_then(|m| m.remove("totals"));
        let set = out.entry("bill").or_default();
        set.insert("totals".into());
        paths(&v, "", set);
        if let Some(t) = totals {
            paths(&t, "rows[]", set);
        }
    }
    let rows = Command::new(env!("CARGO_BIN_EXE_mcscope"))
        .args(["bill", "sample-sessions", "--rows", "-q"])
        .current_dir(root())
        .output()
        .expect("run mcscope");
    for line in String::from_utf8_lossy(&rows.stdout).lines() {
        let v: Value = serde_json::from_str(line).expect("a JSON line");
        paths(&v, "", out.entry("bill_row").or_default());
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
        "idle_server.recorded.client_cleared_pdf_page_texts",
        "idle_server.recorded.client_sent_exclude_tools",
        // compare's `recorded` is opaque too: its `unpriced` is checked by
        // tests/bill.rs (SPEC §18.5).
        "recorded.unpriced",
        "recorded.unpriced.responses",
        "recorded.unpriced.models",
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

//! No import circle among the top-level modules, and a core crate on no terminal or CLI crate.

use super::*;

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

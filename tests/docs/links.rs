//! README.md and docs/*.md point only inside the repository, at files and headings that exist.

use super::*;

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

use super::*;
use std::os::unix::fs::symlink;

fn rp(p: &str) -> RecordedPath {
    RecordedPath {
        path: p.into(),
        cwd: Some("/work".into()),
    }
}

/// A plan lists a path absolute where its record's cwd makes it so, and a
/// relative one as recorded where no cwd is (Gemini CLI): never from `/`.
#[test]
fn a_relative_path_without_a_cwd_is_shown_as_recorded() {
    let shown = |p: &str, cwd: Option<&str>| {
        RecordedPath {
            path: p.into(),
            cwd: cwd.map(Into::into),
        }
        .display()
    };
    assert_eq!(shown("build.config.ts", None), "build.config.ts");
    assert_eq!(shown("build.config.ts", Some("")), "build.config.ts");
    assert_eq!(shown("./src/../src/main.ts", None), "src/main.ts");
    assert_eq!(shown("../shared/util.ts", None), "../shared/util.ts");
    assert_eq!(shown("a/../../b/./c", None), "../b/c");
    assert_eq!(shown("a/..", None), ".");
    assert_eq!(shown("src/x.ts", Some("repo")), "repo/src/x.ts");
    // A cwd of `/` is a real root; an absolute path is itself.
    assert_eq!(shown("build.config.ts", Some("/")), "/build.config.ts");
    assert_eq!(shown("b.ts", Some("/work/")), "/work/b.ts");
    assert_eq!(shown("/etc/../srv/a.ts", None), "/srv/a.ts");
    // Windows: the recorded cwd or the path decides, as lexical does.
    assert_eq!(
        shown("src\\a.rs", Some(WCWD)),
        "C:\\Users\\dev\\app\\src\\a.rs"
    );
    assert_eq!(shown("D:\\x\\y.rs", None), "D:\\x\\y.rs");
}

#[test]
fn absolutize_folds_like_node_path_resolve() {
    assert_eq!(
        absolutize("a/./b/../c", Some("/w")),
        PathBuf::from("/w/a/c")
    );
    assert_eq!(absolutize("/x/../../y", None), PathBuf::from("/y"));
}

#[test]
fn path_map_matches_whole_components_longest_first() {
    let m = PathMap(vec![
        ("/home/dev".into(), "/t/a".into()),
        ("/home/dev/app".into(), "/t/b".into()),
    ]);
    assert_eq!(
        m.apply(Path::new("/home/dev/app/x")),
        PathBuf::from("/t/b/x")
    );
    assert_eq!(
        m.apply(Path::new("/home/devil/x")),
        PathBuf::from("/home/devil/x")
    );
    assert_eq!(m.apply(Path::new("/home/dev")), PathBuf::from("/t/a"));
}

#[test]
fn outcomes_follow_symlinks_and_compare_components() {
    let t = tempfile::tempdir().unwrap();
    let base = t.path().canonicalize().unwrap();
    let mem = base.join("mem");
    std::fs::create_dir_all(mem.join("sub")).unwrap();
    std::fs::create_dir_all(base.join("outside")).unwrap();
    std::fs::write(base.join("outside/secret.md"), "x").unwrap();
    std::fs::write(mem.join("a.md"), "x").unwrap();
    symlink("../outside/secret.md", mem.join("leak.md")).unwrap();
    std::fs::create_dir_all(base.join("mem2")).unwrap();
    // a link from elsewhere into the root counts as inside
    symlink(mem.join("a.md"), base.join("outside/in.md")).unwrap();
    let p = Protector::new(&[(RootKind::Project, mem.clone())], PathMap::default());
    let s = |x: &Path| x.display().to_string();

    let r = p.decide(&[rp(&s(&mem.join("a.md")))]);
    assert_eq!(
        (r.outcome, r.root),
        (Outcome::Protected, Some(RootKind::Project))
    );
    // a file not yet written inside the root is still inside
    let r = p.decide(&[rp(&s(&mem.join("sub/new.md")))]);
    assert_eq!(r.outcome, Outcome::Protected);
    let r = p.decide(&[rp(&s(&mem.join("leak.md")))]);
    assert_eq!(r.outcome, Outcome::SymlinkEscape);
    assert_eq!(r.resolved, Some(s(&base.join("outside/secret.md"))));
    let r = p.decide(&[rp(&s(&base.join("outside/in.md")))]);
    assert_eq!(r.outcome, Outcome::Protected);
    // "mem2" shares a string prefix with "mem" but not a component
    let r = p.decide(&[rp(&s(&base.join("mem2/x.md")))]);
    assert_eq!(r.outcome, Outcome::Outside);
    let r = p.decide(&[]);
    assert_eq!(r.outcome, Outcome::UnresolvedId);
    let r = p.decide(&[
        rp(&s(&mem.join("a.md"))),
        rp(&s(&base.join("outside/secret.md"))),
    ]);
    assert_eq!(r.outcome, Outcome::AmbiguousId);
    // two spellings of one path are one path
    let r = p.decide(&[rp(&s(&mem.join("a.md"))), rp(&s(&mem.join("sub/../a.md")))]);
    assert_eq!(r.outcome, Outcome::Protected);
}

#[test]
fn missing_root_is_decided_lexically_and_flagged() {
    let p = Protector::new(
        &[(RootKind::User, PathBuf::from("/nonexistent-mcscope/mem"))],
        PathMap::default(),
    );
    let r = p.decide(&[rp("/nonexistent-mcscope/mem/x.md")]);
    assert_eq!(
        (r.outcome, r.root),
        (Outcome::Unverified, Some(RootKind::User))
    );
    assert!(r.outcome.protects());
}

#[test]
fn link_loops_stop_after_forty_hops() {
    let t = tempfile::tempdir().unwrap();
    let base = t.path().canonicalize().unwrap();
    symlink(base.join("b"), base.join("a")).unwrap();
    symlink(base.join("a"), base.join("b")).unwrap();
    let r = Resolver::default().resolve(&base.join("a/x"));
    assert!(r.too_many_links);
    // a chain of 41 links is over the limit, 40 is not
    std::fs::write(base.join("end"), "x").unwrap();
    let mut prev = base.join("end");
    for i in 0..41 {
        let l = base.join(format!("l{i}"));
        symlink(&prev, &l).unwrap();
        prev = l;
    }
    assert!(
        !Resolver::default()
            .resolve(&base.join("l39"))
            .too_many_links
    );
    assert!(
        Resolver::default()
            .resolve(&base.join("l40"))
            .too_many_links
    );
}

#[test]
fn a_setups_plans_share_one_resolver_cache() {
    // Each plan builds its own protector; through the setup's resolver they ask
    // the disk about a path once: a link moved afterwards is not seen again.
    let t = tempfile::tempdir().unwrap();
    let base = t.path().canonicalize().unwrap();
    std::fs::create_dir(base.join("one")).unwrap();
    std::fs::create_dir(base.join("two")).unwrap();
    symlink(base.join("one"), base.join("link")).unwrap();
    let shared = Resolver::default();
    let first = Protector::with_resolver(&[], PathMap::default(), shared.clone());
    assert_eq!(
        first.resolver.resolve(&base.join("link/f")).path,
        base.join("one/f")
    );
    std::fs::remove_file(base.join("link")).unwrap();
    symlink(base.join("two"), base.join("link")).unwrap();
    let second = Protector::with_resolver(&[], PathMap::default(), shared.clone());
    assert_eq!(
        second.resolver.resolve(&base.join("link/f")).path,
        base.join("one/f"),
        "the second plan's protector reads the first's answer"
    );
    // A resolver of its own asks the disk.
    assert_eq!(
        Resolver::default().resolve(&base.join("link/f")).path,
        base.join("two/f")
    );
}

fn win(p: &str, cwd: &str) -> RecordedPath {
    RecordedPath {
        path: p.into(),
        cwd: Some(cwd.into()),
    }
}

const WCWD: &str = "C:\\Users\\dev\\app";

// Rule 1: the three Windows forms, and what is not one.
#[test]
fn windows_absolute_paths_have_three_forms() {
    for p in [
        "C:\\Users\\dev",
        "c:/users/dev",
        "D:\\",
        "\\\\server\\share\\memory",
        "\\\\?\\C:\\x",
    ] {
        assert!(WinPath::parse(p).is_some(), "{p}");
    }
    for p in [
        "/home/dev",
        "src\\main.rs",
        "C:",
        "C:foo",
        "..\\x",
        "1:\\x",
        "",
    ] {
        assert!(WinPath::parse(p).is_none(), "{p}");
    }
    assert_eq!(
        WinPath::parse("\\\\?\\UNC\\srv\\sh\\a").unwrap().display(),
        "\\\\srv\\sh\\a"
    );
    // A Windows path is Windows whatever the cwd; a relative one is Windows in a Windows cwd.
    assert!(matches!(
        lexical("c:/x", Some("/home")),
        Lexical::Windows(_)
    ));
    assert!(matches!(
        lexical("src/a.rs", Some(WCWD)),
        Lexical::Windows(_)
    ));
    assert!(matches!(
        lexical("src/a.rs", Some("/home")),
        Lexical::Posix(_)
    ));
}

// Rule 2: the map applies first; a Windows FROM matches either separator, any case.
#[test]
fn path_map_matches_windows_paths_without_case_or_separator() {
    let m = PathMap(vec![(
        "D:\\oh-my-posh".into(),
        "/home/me/oh-my-posh".into(),
    )]);
    let to = Lexical::Posix("/home/me/oh-my-posh/src/a.go".into());
    for p in [
        "d:/OH-MY-POSH/src/a.go",
        "D:\\oh-my-posh\\src\\a.go",
        "D:/oh-my-posh/x/../src/a.go",
    ] {
        assert_eq!(m.rewrite(&lexical(p, None)), to, "{p}");
    }
    // relative to a Windows cwd the map rewrites
    assert_eq!(m.rewrite(&lexical("src\\a.go", Some("d:\\Oh-My-Posh"))), to);
    // whole components only, and `..` leaving the FROM leaves the map
    let sibling = m.rewrite(&lexical("D:\\oh-my-posh2\\a.go", None));
    assert_eq!(sibling.display(), "D:\\oh-my-posh2\\a.go");
    let above = m.rewrite(&lexical("..\\b.go", Some("D:\\oh-my-posh")));
    assert_eq!(above.display(), "D:\\b.go");
    // a mapped Windows path is then checked on this machine, symlinks and all
    let t = tempfile::tempdir().unwrap();
    let base = t.path().canonicalize().unwrap();
    std::fs::create_dir_all(base.join("mem")).unwrap();
    let map = PathMap(vec![(
        "C:/Users/dev/.claude/memory".into(),
        base.join("mem"),
    )]);
    let p = Protector::new(&[(RootKind::User, base.join("mem"))], map);
    let r = p.decide(&[win("c:\\USERS\\dev\\.claude\\memory\\notes.md", WCWD)]);
    assert_eq!(
        (r.outcome, r.root, r.resolved),
        (
            Outcome::Protected,
            Some(RootKind::User),
            Some(base.join("mem/notes.md").display().to_string())
        )
    );
}

// Rule 3: an unmapped Windows path is normalized and compared lexically.
#[test]
fn unmapped_windows_paths_are_compared_lexically_with_windows_roots() {
    let p = Protector::new(
        &[
            (RootKind::Project, PathBuf::from("/nonexistent-mcscope/mem")),
            (
                RootKind::User,
                PathBuf::from("C:\\Users\\dev\\.claude\\memory"),
            ),
        ],
        PathMap::default(),
    );
    // inside: any case, either separator, `.`/`..` folded, relative to the cwd
    for path in [
        "c:/users/dev/.claude/memory/notes.md",
        "C:\\Users\\dev\\app\\..\\.claude\\.\\MEMORY\\notes.md",
        "..\\.claude\\memory\\notes.md",
    ] {
        let r = p.decide(&[win(path, WCWD)]);
        assert_eq!(
            (r.outcome, r.root),
            (Outcome::Unverified, Some(RootKind::User)),
            "{path}"
        );
        assert!(r.outcome.protects());
    }
    // two spellings of one file are one path, not ambiguous
    let r = p.decide(&[
        win("c:/users/dev/.claude/memory/notes.md", WCWD),
        win("C:\\Users\\Dev\\.claude\\memory\\notes.md", WCWD),
    ]);
    assert_eq!(r.outcome, Outcome::Unverified);
    // outside: a sibling sharing the root's text, `..` past the root, another drive, UNC
    for path in [
        "C:\\Users\\dev\\.claude\\memory-old\\notes.md",
        "C:\\Users\\dev\\.claude\\memory\\..\\secret.md",
        "D:\\Users\\dev\\.claude\\memory\\notes.md",
        "\\\\server\\share\\memory\\notes.md",
        "src\\main.rs",
    ] {
        let r = p.decide(&[win(path, WCWD)]);
        assert_eq!((r.outcome, r.root), (Outcome::Outside, None), "{path}");
    }
    // a Windows path is never inside a root of this machine, even one whose
    // text it would land in if it were joined to a working directory
    let here = std::env::current_dir().unwrap();
    let p = Protector::new(&[(RootKind::Project, here.clone())], PathMap::default());
    let r = p.decide(&[win("C:\\x.md", WCWD)]);
    assert_eq!(r.outcome, Outcome::Outside);
    assert_eq!(r.resolved.as_deref(), Some("C:\\x.md"));
    // `\foo` in a Windows cwd starts at the drive's root; `/foo` is this machine's
    assert_eq!(lexical("\\x.md", Some(WCWD)).display(), "C:\\x.md");
    assert_eq!(lexical("/x.md", Some(WCWD)), Lexical::Posix("/x.md".into()));
    // `..` never climbs above the drive
    assert_eq!(lexical("..\\..\\..\\..\\y", Some(WCWD)).display(), "C:\\y");
}

// Rule 4: a relative root is taken against the base only when it is not Windows.
#[test]
fn given_roots_in_windows_form_are_not_joined_to_the_base() {
    let base = Path::new("/run/here");
    assert_eq!(
        Lexical::given("C:\\Users\\me\\.claude\\projects\\x\\memory", base).display(),
        "C:\\Users\\me\\.claude\\projects\\x\\memory"
    );
    assert_eq!(Lexical::given("c:/a/./b/../m", base).display(), "C:\\a\\m");
    assert_eq!(Lexical::given("mem/../m2", base).display(), "/run/here/m2");
    assert_eq!(Lexical::given("/abs/m", base).display(), "/abs/m");
    // a Windows root is reported as not existing on this machine
    let p = Protector::new(
        &[(RootKind::Team, PathBuf::from("c:/a/m"))],
        PathMap::default(),
    );
    let roots: Vec<(RootKind, String, bool)> = p
        .roots()
        .map(|(k, d, e)| (k, d.display().to_string(), e))
        .collect();
    assert_eq!(roots, [(RootKind::Team, "C:\\a\\m".to_string(), false)]);
}

// Rule 6: the readable normalized Windows form.
#[test]
fn windows_paths_display_with_backslashes_and_an_upper_case_drive() {
    assert_eq!(
        lexical("c:/users/dev/./.claude/memory/notes.md", None).display(),
        "C:\\users\\dev\\.claude\\memory\\notes.md"
    );
    assert_eq!(lexical("d:/", None).display(), "D:\\");
    assert_eq!(
        lexical("\\\\Server\\Share/a/../b", None).display(),
        "\\\\Server\\Share\\b"
    );
    assert_eq!(
        lexical("src/./lib.rs", Some(WCWD)).display(),
        "C:\\Users\\dev\\app\\src\\lib.rs"
    );
}

// SPEC §9's later_used: one key for two spellings of one file.
#[test]
fn comparable_paths_fold_spelling_case_and_the_map() {
    let none = PathMap::default();
    let k = |p: &str, cwd: &str| comparable_path(p, Some(cwd), &none);
    assert_eq!(
        k("src\\main.rs", WCWD),
        k("c:/users/DEV/app/src/main.rs", "D:\\x")
    );
    assert_eq!(k("src\\main.rs", WCWD), "c:\\users\\dev\\app\\src\\main.rs");
    assert_ne!(k("src\\main.rs", WCWD), k("src\\lib.rs", WCWD));
    // POSIX paths keep their case, and fold `..` against the cwd
    assert_eq!(k("../b/x.rs", "/w/a"), "/w/b/x.rs");
    assert_ne!(k("/w/X.rs", "/"), k("/w/x.rs", "/"));
    // the map brings a Windows and a POSIX spelling together
    let m = PathMap(vec![("C:\\Users\\dev\\app".into(), "/home/me/app".into())]);
    assert_eq!(
        comparable_path("SRC/main.rs", Some("c:/users/dev/app"), &m),
        comparable_path("/home/me/app/SRC/main.rs", Some("/"), &m)
    );
    assert_eq!(comparable_path("a.rs", None, &m), "/a.rs");
}

#[test]
fn default_roots_of_a_windows_cwd_stay_windows() {
    let roots = default_roots(
        crate::session::HarnessId::Claude,
        Some(WCWD),
        &PathMap::default(),
    );
    let team = &roots.iter().find(|(k, _)| *k == RootKind::Team).unwrap().1;
    assert_eq!(
        team.display().to_string(),
        "C:\\Users\\dev\\app\\.claude\\team-memory"
    );
    let project = &roots
        .iter()
        .find(|(k, _)| *k == RootKind::Project)
        .unwrap()
        .1;
    assert!(
        project.ends_with("projects/C--Users-dev-app/memory"),
        "{project:?}"
    );
}

#[test]
fn sanitize_replaces_non_alphanumerics() {
    assert_eq!(sanitize("/home/dev/my.app"), "-home-dev-my-app");
}

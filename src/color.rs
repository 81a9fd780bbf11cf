//! Whether to draw colour (SPEC §7a): `--color auto|always|never`, then
//! `NO_COLOR`, then `FORCE_COLOR`, then whether the output is a terminal. One
//! pure function decides, so the TUI and anything else that colours agree.

/// `--color`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ColorChoice {
    // Colour on a terminal, unless NO_COLOR or FORCE_COLOR says otherwise (no
    // doc comment: a value with help turns all of `--help` into two-line entries).
    #[default]
    Auto,
    Always,
    Never,
}

/// The decision: the flag wins over both variables; a non-empty `NO_COLOR`
/// means never and wins over `FORCE_COLOR` (both set is a user who asked for
/// none somewhere); a non-empty `FORCE_COLOR` means always; else colour on a
/// terminal. An empty variable counts as unset, as no-color.org says.
pub fn wanted(
    flag: ColorChoice,
    no_color: Option<&std::ffi::OsStr>,
    force_color: Option<&std::ffi::OsStr>,
    terminal: bool,
) -> bool {
    let set = |v: Option<&std::ffi::OsStr>| v.is_some_and(|v| !v.is_empty());
    match flag {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto if set(no_color) => false,
        ColorChoice::Auto if set(force_color) => true,
        ColorChoice::Auto => terminal,
    }
}

/// [`wanted`] with this process's environment.
pub fn wanted_here(flag: ColorChoice, terminal: bool) -> bool {
    wanted(
        flag,
        std::env::var_os("NO_COLOR").as_deref(),
        std::env::var_os("FORCE_COLOR").as_deref(),
        terminal,
    )
}

/// A sanitized text report (`plan`, `timeline`, `evidence`, `explain`,
/// `compare`, `config`) with colour where colour is on (SPEC §7a): mcscope's
/// own marks only — cleared and other statuses, caveats, observed breaks,
/// fires, the recommendation. The text was sanitized before, so no escape of a
/// transcript is in it; the glyphs keep the meaning without colour.
pub fn paint_report(text: &str) -> String {
    const RESET: &str = "\x1b[0m";
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for line in text.split_inclusive('\n') {
        let (body, nl) = match line.strip_suffix('\n') {
            Some(b) => (b, "\n"),
            None => (line, ""),
        };
        let whole = if body.starts_with("caveat") || body.starts_with("note:") {
            Some("33")
        } else if body.starts_with("! request") || body.starts_with("observed break") {
            Some("1;31")
        } else if body.starts_with("Recommended: row") {
            Some("1;32")
        } else if body.starts_with("fired: ") && !body.starts_with("fired: no") {
            Some("1")
        } else if body.starts_with('[') && body.ends_with(']') && !body.contains(' ') {
            // `config`'s section headers.
            Some("1")
        } else {
            None
        };
        if let Some(code) = whole {
            out.push_str(&format!("\x1b[{code}m{body}{RESET}{nl}"));
            continue;
        }
        let mut b = body.to_string();
        for (mark, code) in [
            ("✗ cleared", "31"),
            ("◆ protected", "36"),
            ("◌ cut", "35"),
            ("○ already_cleared", "2"),
        ] {
            if b.contains(mark) {
                b = b.replace(mark, &format!("\x1b[{code}m{mark}{RESET}"));
            }
        }
        out.push_str(&b);
        out.push_str(nl);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::ColorChoice::{Always, Auto, Never};
    use super::*;
    use std::ffi::OsStr;

    /// The report's own marks are painted; everything else is left as it is.
    #[test]
    fn paint_report_colours_only_mcscope_s_marks() {
        let text =
            "caveat (x): y\n   1  toolu_A  Read  ✗ cleared  a\n   2  toolu_B  · kept\nplain\n";
        let p = paint_report(text);
        assert!(p.starts_with("\x1b[33mcaveat (x): y\x1b[0m\n"), "{p:?}");
        assert!(p.contains("\x1b[31m✗ cleared\x1b[0m"), "{p:?}");
        assert!(p.contains("   2  toolu_B  · kept\nplain\n"), "{p:?}");
        // Without the escapes it is the text.
        let stripped = p
            .replace("\x1b[33m", "")
            .replace("\x1b[31m", "")
            .replace("\x1b[0m", "");
        assert_eq!(stripped, text);
    }

    #[test]
    fn the_flag_wins_then_no_color_then_force_color_then_the_terminal() {
        let one = Some(OsStr::new("1"));
        let empty = Some(OsStr::new(""));
        // (flag, NO_COLOR, FORCE_COLOR, terminal) → colour
        let table = [
            (Auto, None, None, true, true),
            (Auto, None, None, false, false),
            (Auto, one, None, true, false),
            (Auto, empty, None, true, true),
            (Auto, None, one, false, true),
            (Auto, None, empty, false, false),
            (Auto, one, one, true, false),
            (Always, one, None, false, true),
            (Never, None, one, true, false),
            (Never, None, None, true, false),
            (Always, None, None, false, true),
        ];
        for (flag, no, force, tty, want) in table {
            assert_eq!(
                wanted(flag, no, force, tty),
                want,
                "{flag:?} NO_COLOR={no:?} FORCE_COLOR={force:?} tty={tty}"
            );
        }
    }
}

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

#[cfg(test)]
mod tests {
    use super::ColorChoice::{Always, Auto, Never};
    use super::*;
    use std::ffi::OsStr;

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

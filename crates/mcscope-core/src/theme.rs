//! The colours the TUI draws statuses and marks in: one per key of the
//! configuration file's `[theme]` table (SPEC §8). Pure: a table of names and
//! defaults, and the parse of a value, in colours of its own (no terminal
//! crate: the TUI's `ui::Theme` turns each into the terminal's colour and
//! applies it, or, under `NO_COLOR`, none of it — the glyphs carry the meaning).

use std::str::FromStr;

/// A colour as the theme names it: the terminal's sixteen, its own (`Reset`),
/// an RGB value or a 256-colour index (the colours a terminal crate draws).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Color {
    /// The terminal's own colour (what an unstyled cell shows).
    #[default]
    Reset,
    Black,
    Red,
    Green,
    Yellow,
    Blue,
    Magenta,
    Cyan,
    Gray,
    DarkGray,
    LightRed,
    LightGreen,
    LightYellow,
    LightBlue,
    LightMagenta,
    LightCyan,
    White,
    Rgb(u8, u8, u8),
    Indexed(u8),
}

impl FromStr for Color {
    type Err = ();

    /// The spellings the TUI's terminal crate reads (ratatui's `Color`
    /// parse, which this replaces so the core names no terminal crate): case,
    /// spaces, `-` and `_` ignored; `bright` is `light`, `grey` and `silver`
    /// are `gray`, `lightblack` is `darkgray`, `lightwhite` and `lightgray`
    /// are `white`; else a 256-colour index or `#rrggbb`.
    fn from_str(s: &str) -> Result<Color, ()> {
        let name = s
            .to_lowercase()
            .replace([' ', '-', '_'], "")
            .replace("bright", "light")
            .replace("grey", "gray")
            .replace("silver", "gray")
            .replace("lightblack", "darkgray")
            .replace("lightwhite", "white")
            .replace("lightgray", "white");
        Ok(match name.as_str() {
            "reset" => Color::Reset,
            "black" => Color::Black,
            "red" => Color::Red,
            "green" => Color::Green,
            "yellow" => Color::Yellow,
            "blue" => Color::Blue,
            "magenta" => Color::Magenta,
            "cyan" => Color::Cyan,
            "gray" => Color::Gray,
            "darkgray" => Color::DarkGray,
            "lightred" => Color::LightRed,
            "lightgreen" => Color::LightGreen,
            "lightyellow" => Color::LightYellow,
            "lightblue" => Color::LightBlue,
            "lightmagenta" => Color::LightMagenta,
            "lightcyan" => Color::LightCyan,
            "white" => Color::White,
            _ => {
                if let Ok(index) = s.parse::<u8>() {
                    Color::Indexed(index)
                } else if let Some((r, g, b)) = hex(s) {
                    Color::Rgb(r, g, b)
                } else {
                    return Err(());
                }
            }
        })
    }
}

/// `#rrggbb`.
fn hex(s: &str) -> Option<(u8, u8, u8)> {
    if !s.starts_with('#') || s.len() != 7 {
        return None;
    }
    let byte = |i: usize| u8::from_str_radix(s.get(i..i + 2)?, 16).ok();
    Some((byte(1)?, byte(3)?, byte(5)?))
}

/// One colour per status or mark. The defaults are the colours the TUI drew
/// before the theme existed; `Reset` is the terminal's own colour (what an
/// unstyled cell shows).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Palette {
    pub kept: Color,
    pub cleared: Color,
    pub protected: Color,
    pub already_cleared: Color,
    pub error: Color,
    pub not_compactable: Color,
    pub symlink_escape: Color,
    /// An unresolved or ambiguous id; `None`: the colour of the row's status.
    pub unresolved: Option<Color>,
    /// The footer's `▲` (a plan fired) and `✕` (the simulated cache broke).
    pub fired: Color,
    pub cache_break: Color,
    /// The footer's `◇` line (harness evidence, SPEC §10).
    pub evidence: Color,
    /// `!` on the cache-read sparkline: an observed cache break.
    pub observed_break: Color,
    /// The sparklines' column of the request shown.
    pub current: Color,
    /// The footer's cache verdict: prefix kept / broken.
    pub prefix_kept: Color,
    pub prefix_broken: Color,
    /// The header's values not at the preset's default (`*`, `s`, `c`).
    pub changed: Color,
    /// The diff view: the local request's removed side, the wire's added side.
    pub deleted: Color,
    pub inserted: Color,
}

impl Default for Palette {
    fn default() -> Palette {
        Palette {
            kept: Color::Green,
            cleared: Color::Red,
            protected: Color::Cyan,
            already_cleared: Color::DarkGray,
            error: Color::Yellow,
            not_compactable: Color::Gray,
            symlink_escape: Color::Magenta,
            unresolved: None,
            fired: Color::Reset,
            cache_break: Color::Reset,
            evidence: Color::Magenta,
            observed_break: Color::Red,
            current: Color::Yellow,
            prefix_kept: Color::Green,
            prefix_broken: Color::Red,
            changed: Color::Yellow,
            deleted: Color::Red,
            inserted: Color::Green,
        }
    }
}

/// The `[theme]` keys.
pub const KEYS: [&str; 18] = [
    "kept",
    "cleared",
    "protected",
    "already_cleared",
    "error",
    "not_compactable",
    "symlink_escape",
    "unresolved",
    "fired",
    "cache_break",
    "evidence",
    "observed_break",
    "current",
    "prefix_kept",
    "prefix_broken",
    "changed",
    "deleted",
    "inserted",
];

/// A theme value: a colour name (`red`, `lightcyan`, `darkgray`,
/// `reset`…), `#rrggbb`, or a 256-colour index.
pub fn parse_color(value: &str) -> Result<Color, String> {
    Color::from_str(value.trim()).map_err(|_| {
        format!("{value:?}: not a colour (a name such as red or lightcyan, #rrggbb, or 0-255)")
    })
}

impl Palette {
    fn slot(&mut self, key: &str) -> Option<&mut Color> {
        Some(match key {
            "kept" => &mut self.kept,
            "cleared" => &mut self.cleared,
            "protected" => &mut self.protected,
            "already_cleared" => &mut self.already_cleared,
            "error" => &mut self.error,
            "not_compactable" => &mut self.not_compactable,
            "symlink_escape" => &mut self.symlink_escape,
            "fired" => &mut self.fired,
            "cache_break" => &mut self.cache_break,
            "evidence" => &mut self.evidence,
            "observed_break" => &mut self.observed_break,
            "current" => &mut self.current,
            "prefix_kept" => &mut self.prefix_kept,
            "prefix_broken" => &mut self.prefix_broken,
            "changed" => &mut self.changed,
            "deleted" => &mut self.deleted,
            "inserted" => &mut self.inserted,
            _ => return None,
        })
    }

    /// Sets `key` to `value`; the error names what is wrong (the caller adds
    /// the key's line).
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        if key == "unresolved" {
            self.unresolved = Some(parse_color(value)?);
            return Ok(());
        }
        let Some(slot) = self.slot(key) else {
            return Err(format!(
                "unknown theme key {key:?} (one of {})",
                KEYS.join(", ")
            ));
        };
        *slot = parse_color(value)?;
        Ok(())
    }

    /// The palette of a `[theme]` table: the defaults with its entries set.
    pub fn from_entries<'a>(
        entries: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Palette, String> {
        let mut p = Palette::default();
        for (k, v) in entries {
            p.set(k, v)?;
        }
        Ok(p)
    }

    /// The colour `key` has (None: an unknown key, or `unresolved` unset).
    pub fn get(&self, key: &str) -> Option<Color> {
        if key == "unresolved" {
            return self.unresolved;
        }
        let mut p = *self;
        p.slot(key).map(|c| *c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_hex_and_indexes_parse_with_ratatuis_spelling() {
        assert_eq!(parse_color("red"), Ok(Color::Red));
        assert_eq!(parse_color("lightcyan"), Ok(Color::LightCyan));
        assert_eq!(parse_color("Dark Gray"), Ok(Color::DarkGray));
        assert_eq!(parse_color("#ff8000"), Ok(Color::Rgb(255, 128, 0)));
        assert_eq!(parse_color("208"), Ok(Color::Indexed(208)));
        let e = parse_color("reddish").unwrap_err();
        assert!(e.contains("\"reddish\": not a colour"), "{e}");
        assert!(parse_color("#ff80").is_err());
        assert!(parse_color("#gg0000").is_err());
    }

    #[test]
    fn the_defaults_are_the_colours_the_tui_drew_before() {
        let p = Palette::default();
        assert_eq!(p.kept, Color::Green);
        assert_eq!(p.cleared, Color::Red);
        assert_eq!(p.protected, Color::Cyan);
        assert_eq!(p.symlink_escape, Color::Magenta);
        assert_eq!(p.unresolved, None);
        assert_eq!(p.fired, Color::Reset);
        assert_eq!(p.evidence, Color::Magenta);
    }

    #[test]
    fn every_key_sets_its_own_colour_and_no_other() {
        for key in KEYS {
            let p = Palette::from_entries([(key, "#010203")]).unwrap();
            assert_eq!(p.get(key), Some(Color::Rgb(1, 2, 3)), "{key}");
            for other in KEYS.iter().filter(|k| **k != key) {
                assert_eq!(
                    p.get(other),
                    Palette::default().get(other),
                    "{key} changed {other}"
                );
            }
        }
    }

    #[test]
    fn an_unknown_key_or_bad_colour_is_an_error_naming_it() {
        let e = Palette::from_entries([("clered", "red")]).unwrap_err();
        assert!(e.contains("unknown theme key \"clered\""), "{e}");
        assert!(e.contains("cleared"), "{e}");
        let e = Palette::from_entries([("cleared", "blood")]).unwrap_err();
        assert!(e.contains("\"blood\": not a colour"), "{e}");
    }
}

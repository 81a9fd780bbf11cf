//! The configuration file (SPEC §8): defaults for the policy keys, `cache_ttl`,
//! prices, memory roots, path maps, theme colours and mouse capture. Clap-free:
//! the CLI, the TUI and tests read it alike. Precedence: flags > sidecar >
//! config file > preset defaults; a `[policy.<preset>]` table overrides
//! `[policy]` for that preset.

use crate::policy::Policy;
use crate::policy::protect::RootKind;
use serde::Deserialize;
use strum::VariantArray;

pub use crate::numbers::shown;
pub use crate::policy::params::{MAX_MINUTES, check_minutes, finite_minutes};
pub use crate::vocab::{names, names_or};

/// The rules a session is read with (`preset` in the config file and the
/// sidecar, `--preset`): the harness registry's names.
pub use crate::harness::PresetId as Preset;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

mod keys;
pub use crate::policy::params::KeyValue;
pub use keys::{FlagRefused, PolicyKeys, set_key};

/// The whole file.
#[derive(Deserialize, Debug, Default, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Config {
    pub cache_ttl: Option<String>,
    pub mouse: Option<bool>,
    #[serde(default)]
    pub policy: PolicyKeys,
    #[serde(default)]
    /// `[prices."<model prefix>"]` rows: USD per million tokens (SPEC §9).
    pub prices: BTreeMap<String, crate::prices::Price>,
    #[serde(default)]
    pub memory_roots: BTreeMap<String, String>,
    #[serde(default)]
    pub path_map: BTreeMap<String, String>,
    /// Colour names by `[theme]` key (checked by [`parse`]; spans give lines).
    #[serde(default)]
    pub theme: BTreeMap<String, toml::Spanned<String>>,
    /// Where it was read from (None: no file).
    #[serde(skip)]
    pub path: Option<PathBuf>,
}

/// Where a setting came from, for the header's marks and `config --print`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::IntoStaticStr)]
#[strum(serialize_all = "lowercase")]
pub enum Source {
    Preset,
    Config,
    Sidecar,
    Flag,
}

impl Source {
    pub fn name(self) -> &'static str {
        self.into()
    }

    /// The header's mark: `*` flag, `s` sidecar, `c` config, none for a default.
    pub fn mark(self) -> &'static str {
        match self {
            Source::Preset => "",
            Source::Config => "c",
            Source::Sidecar => "s",
            Source::Flag => "*",
        }
    }
}

/// The settings a session was opened with, beyond the policy: where each value
/// came from, the files read, and the configuration's other keys.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    /// SPEC §9: the flag, else the sidecar's, else the config file's, else auto.
    pub cache_ttl: crate::prices::CacheTtl,
    pub sources: BTreeMap<&'static str, Source>,
    pub config: Config,
    pub sidecar_path: Option<PathBuf>,
    /// A configuration file that could not be used (the TUI says so and goes on
    /// with the defaults; the CLI stops).
    pub config_notice: Option<String>,
}

impl Settings {
    /// Where `key` came from (the preset's default when nothing set it).
    pub fn source(&self, key: &str) -> Source {
        self.sources.get(key).copied().unwrap_or(Source::Preset)
    }
}

/// `mcscope config --print PATH`: a session's merged settings, one per line, each
/// with where it came from.
pub fn describe(p: &Policy, settings: &Settings) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let file = |p: &Option<PathBuf>| {
        p.as_ref()
            .map_or("none".into(), |p| p.display().to_string())
    };
    let _ = writeln!(out, "config file: {}", file(&settings.config.path));
    let _ = writeln!(out, "sidecar: {}", file(&settings.sidecar_path));
    out.push_str(&describe_policy(p, settings));
    out.push_str(&describe_shared(&settings.config));
    out
}

/// The preset and each key of the parameter table the policy's preset and
/// kind read, with where each came from.
fn describe_policy(p: &Policy, settings: &Settings) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let _ = writeln!(out, "preset: {}", p.preset_name());
    for key in crate::policy::params::keys() {
        if let Some(value) = (key.print)(p) {
            let from = settings.source(key.key).name();
            let _ = writeln!(out, "{} = {value}  ({from})", key.key);
        }
    }
    out
}

/// What every session shares, whatever its harness: the cache TTL, the mouse,
/// the prices and the theme.
fn describe_shared(c: &Config) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let from_config = |set: bool| if set { "config" } else { "default" };
    let _ = writeln!(
        out,
        "cache_ttl = {}  ({})",
        c.cache_ttl.as_deref().unwrap_or("auto"),
        from_config(c.cache_ttl.is_some())
    );
    let _ = writeln!(
        out,
        "mouse = {}  ({})",
        c.mouse.unwrap_or(true),
        from_config(c.mouse.is_some())
    );
    for (prefix, price) in &c.prices {
        let _ = writeln!(
            out,
            "prices.{prefix:?} = input {} write_5m {} write_1h {} read {}{}  (config)",
            price.input,
            price.write_5m,
            price.write_1h,
            price.read,
            price
                .output
                .map_or(String::new(), |o| format!(" output {o}"))
        );
    }
    for (k, v) in &c.theme {
        let _ = writeln!(out, "theme.{k} = {}  (config)", v.get_ref());
    }
    out
}

/// `mcscope config --print` without a session: each preset's settings from the
/// configuration file alone, then, once, what every session shares (the
/// prices and the theme are no preset's).
pub fn describe_presets(config: &Config) -> String {
    let path = config
        .path
        .as_ref()
        .map_or("none".into(), |p| p.display().to_string());
    let mut out = format!("config file: {path}\n\n");
    for &harness in <crate::session::HarnessId as VariantArray>::VARIANTS {
        let mut p = Policy::preset(harness);
        let mut sources = BTreeMap::new();
        let mut layers = vec![&config.policy];
        layers.extend(config.policy.for_preset(harness.name()));
        for keys in layers {
            // The file was checked when it was read: its values parse.
            let _ = keys.apply(&mut p, Source::Config, &mut sources);
        }
        let settings = Settings {
            sources,
            config: config.clone(),
            ..Default::default()
        };
        out.push_str(&format!("[{}]\n", harness.name()));
        out.push_str(&describe_policy(&p, &settings));
        out.push('\n');
    }
    out.push_str("[every harness]\n");
    out.push_str(&describe_shared(config));
    out
}

/// A bad configuration file: one line naming the path, the key or value and its line.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {message}")]
pub struct ConfigError {
    pub path: PathBuf,
    pub message: String,
}

/// The file mcscope reads: `$MCSCOPE_CONFIG`, else
/// `$XDG_CONFIG_HOME/mcscope/config.toml`, else `~/.config/mcscope/config.toml`.
pub fn default_path() -> Option<PathBuf> {
    let var = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
    if let Some(p) = var("MCSCOPE_CONFIG") {
        return Some(PathBuf::from(p));
    }
    let base = var("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| var("HOME").map(|h| PathBuf::from(h).join(".config")))?;
    Some(base.join("mcscope").join("config.toml"))
}

/// Reads the configuration at `path`; a missing file is an empty configuration.
/// It is named by `$MCSCOPE_CONFIG` or the standard place, so a FIFO, a device
/// or a file over 1 MB there is an error (SPEC §15.25), read no further than
/// the cap.
pub fn read(path: &Path) -> Result<Config, ConfigError> {
    use crate::load::regular::{SMALL_FILE_CAP, read_capped_text};
    let text = match read_capped_text(path, SMALL_FILE_CAP) {
        Ok(t) => t,
        Err(e) if e.not_found() => return Ok(Config::default()),
        Err(e) => {
            return Err(ConfigError {
                path: path.to_path_buf(),
                message: e.to_string(),
            });
        }
    };
    let mut config = parse(&text).map_err(|message| ConfigError {
        path: path.to_path_buf(),
        message,
    })?;
    config.path = Some(path.to_path_buf());
    Ok(config)
}

/// The configuration mcscope runs with: the default path's, if any.
pub fn load() -> Result<Config, ConfigError> {
    match default_path() {
        Some(p) => read(&p),
        None => Ok(Config::default()),
    }
}

/// Parses a configuration; the error names the key or value and its line.
pub fn parse(text: &str) -> Result<Config, String> {
    let de = toml::Deserializer::parse(text).map_err(|e| in_one_line(text, &e, ""))?;
    // The key path of a value of the wrong type (SPEC §7a): serde's own
    // message names the type only.
    let config: Config = serde_path_to_error::deserialize(de)
        .map_err(|e| in_one_line(text, e.inner(), &key_path(&e.path().to_string())))?;
    config.check()?;
    config.palette_at(text)?;
    Ok(config)
}

/// toml's message, made one line with the line number of its span, a type
/// error in words after the key it names (`key` is `.` or empty at the top).
fn in_one_line(text: &str, e: &toml::de::Error, key: &str) -> String {
    let message = e.message().trim().replace('\n', " ");
    let message = match key {
        "" | "." => message,
        key => type_error(key, &message).unwrap_or(message),
    };
    match e.span() {
        Some(span) => {
            let line = text[..span.start.min(text.len())].matches('\n').count() + 1;
            format!("line {line}: {message}")
        }
        None => message,
    }
}

/// A key path as the user wrote it: without the segments serde's helpers add
/// (`theme.cleared.$__serde_spanned_private_value` is `theme.cleared`).
pub fn key_path(path: &str) -> String {
    path.split('.')
        .filter(|p| !p.starts_with("$__"))
        .collect::<Vec<_>>()
        .join(".")
}

/// serde's `invalid type: string "soon", expected f64` at `key`, in words:
/// `policy.gap_threshold_minutes: expected a number, found "soon"` (None for
/// another message, which then stays as serde wrote it).
pub fn type_error(key: &str, serde_message: &str) -> Option<String> {
    let rest = serde_message
        .strip_prefix("invalid type: ")
        .or_else(|| serde_message.strip_prefix("invalid value: "))?;
    let (found, expected) = rest.rsplit_once(", expected ")?;
    let expected = match expected.trim() {
        "f64" | "f32" => "a number",
        "u8" | "u16" | "u32" | "u64" | "usize" => "a whole number, 0 or more",
        "i8" | "i16" | "i32" | "i64" | "isize" => "a whole number",
        "a boolean" => "true or false",
        "a sequence" => "a list",
        "a map" => "a table of names",
        other => other,
    };
    // `string "soon"` → `"soon"`, ``integer `-3` `` → `-3`, `map` → `a table`.
    let found = found.trim();
    let found = [
        "string ",
        "integer ",
        "floating point ",
        "boolean ",
        "character ",
    ]
    .iter()
    .find_map(|kind| found.strip_prefix(kind))
    .map(|v| v.trim_matches('`').to_string())
    .unwrap_or_else(|| match found {
        "map" => "a table".into(),
        "sequence" => "a list".into(),
        "null" | "unit value" => "null".into(),
        other => other.to_string(),
    });
    Some(format!("{key}: expected {expected}, found {found}"))
}

impl Config {
    /// The TUI's colours: the defaults with the `[theme]` table's entries set.
    /// A file [`parse`] accepted always gives one.
    pub fn palette(&self) -> crate::theme::Palette {
        self.palette_at("").unwrap_or_default()
    }

    /// The `[theme]` table checked: an unknown key or a bad colour names its
    /// line in `text` (the file's text).
    fn palette_at(&self, text: &str) -> Result<crate::theme::Palette, String> {
        let mut palette = crate::theme::Palette::default();
        for (key, value) in &self.theme {
            palette.set(key, value.get_ref()).map_err(|e| {
                let at = value.span().start.min(text.len());
                let line = text[..at].matches('\n').count() + 1;
                format!("line {line}: [theme] {key}: {e}")
            })?;
        }
        Ok(palette)
    }

    /// Values serde cannot check: plan kinds, deliveries, presets, TTLs, roots.
    fn check(&self) -> Result<(), String> {
        let mut tables = vec![("policy", &self.policy)];
        for (p, k) in self.policy.tables() {
            if k.has_tables() {
                return Err(format!(
                    "[policy.{p}]: a preset table holds no preset tables"
                ));
            }
            tables.push((p, k));
        }
        for (table, keys) in &tables {
            keys.check().map_err(|e| format!("[{table}] {e}"))?;
        }
        if let Some(t) = &self.cache_ttl
            && crate::prices::CacheTtl::parse(t).is_none()
        {
            return Err(format!(
                "cache_ttl = {t:?}: expected {}",
                names_or::<crate::prices::CacheTtl>()
            ));
        }
        for (kind, dir) in &self.memory_roots {
            if RootKind::parse(kind).is_none() {
                return Err(format!(
                    "[memory_roots] {kind}: unknown root ({})",
                    names::<RootKind>()
                ));
            }
            check_dir(dir).map_err(|e| format!("[memory_roots] {kind} = \"\": {e}"))?;
        }
        for (prefix, p) in &self.prices {
            for (key, x) in [
                ("input", p.input),
                ("write_5m", p.write_5m),
                ("write_1h", p.write_1h),
                ("read", p.read),
                ("output", p.output.unwrap_or(0.0)),
            ] {
                check_price(x).map_err(|e| format!("[prices.{prefix:?}] {key} = {e}"))?;
            }
        }
        Ok(())
    }
}

/// The largest price, in USD per million tokens: every token a session can
/// hold (u64) at this price, summed over any number of responses, stays a
/// finite number of dollars.
pub const MAX_PRICE: f64 = 1e6;

/// A price in USD per million tokens: finite, not negative and at most
/// [`MAX_PRICE`] (SPEC §15.25; a larger one overflows the totals).
pub fn check_price(x: f64) -> Result<f64, String> {
    if x.is_finite() && (0.0..=MAX_PRICE).contains(&x) {
        Ok(x)
    } else {
        Err(format!(
            "{}: expected a price of 0 to {MAX_PRICE:e} USD per million tokens",
            shown(x)
        ))
    }
}

/// A memory root's folder: an empty one would be read as the current folder and
/// make every read under it protected.
pub fn check_dir(dir: &str) -> Result<(), String> {
    if dir.is_empty() {
        Err("an empty folder (give the memory folder's path)".into())
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::Delivery;
    use crate::session::HarnessId;

    const EXAMPLE: &str = r#"
cache_ttl = "1h"    # top-level keys come before any [table]
mouse = false
[policy]
gap_threshold_minutes = 45
[policy.qwen]
keep_recent = 3
[prices."claude-opus-4-5"]
input = 5.0
write_5m = 6.25
write_1h = 10.0
read = 0.5
[memory_roots]
project = "~/.qwen/projects/-home-me-app/memory"
[path_map]
"D:\\work" = "/home/me/work"
[theme]
cleared = "red"
protected = "cyan"
"#;

    #[test]
    fn the_specs_example_parses_key_by_key() {
        let c = parse(EXAMPLE).unwrap();
        assert_eq!(c.cache_ttl.as_deref(), Some("1h"));
        assert_eq!(c.mouse, Some(false));
        assert_eq!(
            c.policy.get("gap_threshold_minutes"),
            Some(&KeyValue::F64(45.0))
        );
        assert_eq!(
            c.policy.for_preset("qwen").unwrap().get("keep_recent"),
            Some(&KeyValue::U32(3))
        );
        assert_eq!(c.prices["claude-opus-4-5"].write_1h, 10.0);
        assert_eq!(
            c.memory_roots["project"],
            "~/.qwen/projects/-home-me-app/memory"
        );
        assert_eq!(c.path_map["D:\\work"], "/home/me/work");
        assert_eq!(c.theme["cleared"].get_ref(), "red");
        assert_eq!(c.palette().protected, crate::theme::Color::Cyan);
    }

    #[test]
    fn a_bad_key_or_value_is_named_with_its_line() {
        let e = parse("mouse = true\n[policy]\nkeep_recnt = 3\n").unwrap_err();
        assert!(e.starts_with("line 3:") && e.contains("keep_recnt"), "{e}");
        let e = parse("[policy]\nkeep_recent = \"three\"\n").unwrap_err();
        assert!(e.starts_with("line 2:"), "{e}");
        let e = parse("[policy]\nkind = \"sometimes\"\n").unwrap_err();
        assert!(e.contains("\"sometimes\": not a plan kind"), "{e}");
        let e = parse("cache_ttl = \"2h\"\n").unwrap_err();
        assert!(e.contains("expected auto, 5m or 1h"), "{e}");
        let e = parse("[memory_roots]\nhome = \"/x\"\n").unwrap_err();
        assert!(e.contains("unknown root"), "{e}");
    }

    #[test]
    fn theme_colours_are_names_or_hex_and_a_bad_one_names_key_and_line() {
        let c =
            parse("mouse = true\n[theme]\ncleared = \"magenta\"\nkept = \"#10ff20\"\n").unwrap();
        let p = c.palette();
        assert_eq!(p.cleared, crate::theme::Color::Magenta);
        assert_eq!(p.kept, crate::theme::Color::Rgb(0x10, 0xff, 0x20));
        assert_eq!(p.protected, crate::theme::Color::Cyan, "unset: default");
        let e = parse("[theme]\nkept = \"green\"\n\ncleared = \"blood\"\n").unwrap_err();
        assert!(
            e.starts_with("line 4: [theme] cleared: \"blood\": not a colour"),
            "{e}"
        );
        let e = parse("mouse = true\n[theme]\nclered = \"red\"\n").unwrap_err();
        assert!(
            e.starts_with("line 3: [theme] clered: unknown theme key"),
            "{e}"
        );
        let e = parse("[theme]\ncleared = 3\n").unwrap_err();
        assert!(e.starts_with("line 2:"), "{e}");
    }

    #[test]
    fn config_print_shows_theme_entries() {
        let c = parse("[theme]\ncleared = \"magenta\"\n").unwrap();
        let out = describe_presets(&c);
        assert!(out.contains("theme.cleared = magenta  (config)"), "{out}");
    }

    #[test]
    fn preset_names_are_the_preset_tables_and_messages_list_the_names() {
        assert_eq!(Preset::Claude.name(), crate::harness::CLAUDE.name);
        assert_eq!(Preset::Qwen.name(), crate::harness::QWEN.name);
        assert_eq!(Preset::Api.name(), crate::harness::PresetId::SERVER.name());
        assert_eq!(HarnessId::Claude.name(), Preset::Claude.name());
        assert_eq!(HarnessId::Qwen.name(), Preset::Qwen.name());
        assert_eq!(names::<Delivery>(), "rewrite, cache-edits, server");
        assert_eq!(names_or::<crate::prices::CacheTtl>(), "auto, 5m or 1h");
        assert_eq!(names::<RootKind>(), "project, user, team");
        let e = parse("[policy]\ndelivery = \"fast\"\n").unwrap_err();
        assert!(
            e.ends_with("not a delivery (rewrite, cache-edits, server)"),
            "{e}"
        );
        let e = parse("[policy.api]\npreset = \"cursor\"\n").unwrap_err();
        assert!(e.contains("\"cursor\": not a preset"), "{e}");
    }

    #[test]
    fn layers_apply_in_order_and_remember_their_source() {
        let c = parse(EXAMPLE).unwrap();
        let mut p = Policy::preset(HarnessId::Qwen);
        let mut sources = BTreeMap::new();
        c.policy
            .apply(&mut p, Source::Config, &mut sources)
            .unwrap();
        c.policy
            .for_preset("qwen")
            .unwrap()
            .apply(&mut p, Source::Config, &mut sources)
            .unwrap();
        assert_eq!(p.gap_threshold_minutes, 45.0);
        assert_eq!(p.keep_recent, Some(3));
        let sidecar = PolicyKeys::default()
            .with("keep_recent", KeyValue::U32(2))
            .unwrap();
        sidecar
            .apply(&mut p, Source::Sidecar, &mut sources)
            .unwrap();
        assert_eq!(p.keep_recent, Some(2));
        assert_eq!(sources["keep_recent"], Source::Sidecar);
        assert_eq!(sources["gap_threshold_minutes"], Source::Config);
        assert!(!sources.contains_key("size_threshold"));
    }
}

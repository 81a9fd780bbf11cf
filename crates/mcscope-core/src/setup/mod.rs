//! The setup of one run (SPEC §7): the options every subcommand and the TUI
//! share, and the merge of preset ← config file ← sidecar ← options into a
//! [`Setup`]. It names no command-line crate: the CLI fills [`Opts`] from its
//! flags (`cli::opts` in the binary); the TUI, tests, benches and fuzz targets
//! build it directly.

pub(crate) mod baseline;
mod flags;
mod given;
mod key_error;
mod roots;
mod select;
mod sidecar;
mod usage_error;
use flags::apply_flags;
pub use given::{Given, Read};
use roots::paths_and_roots;

pub use crate::load::sidecar_path;
pub use select::{directory_error, request_index, resolve_id};
pub use sidecar::{Sidecar, read_sidecar};
pub use usage_error::UsageError;

use crate::analysis::Setup;
use crate::config::{self, Config, Source};
use crate::load;
use crate::policy::protect::{self, PathMap, RootKind};
use crate::policy::{Delivery, Illegal, PlanKind, Policy};
use crate::session::{Format, HarnessId, Session};
use crate::totals::CacheTtl;
use std::path::{Path, PathBuf};

/// `--format` of the plan-like commands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, strum::IntoStaticStr, strum::VariantArray)]
#[strum(serialize_all = "lowercase")]
pub enum OutputFormat {
    #[default]
    Text,
    Json,
    /// `explain` only: a page per answer, GitHub-flavoured Markdown (SPEC §12).
    Md,
    /// `explain` only: a page per answer, one self-contained HTML file.
    Html,
}

impl OutputFormat {
    /// The pages (`md`, `html`), which only `explain` prints.
    pub fn is_page(self) -> bool {
        matches!(self, OutputFormat::Md | OutputFormat::Html)
    }
}

/// `--delivery`: [`Delivery`] by its one name.
pub use crate::policy::Delivery as DeliveryArg;
/// `--policy`: the plan kinds by their one name ([`PlanKind`]; `api` implies
/// `--preset api`).
pub use crate::policy::PlanKind as KindArg;
/// `--input-format`: [`Format`] by its one name.
pub use crate::session::Format as InputFormatArg;

/// `--preset`: [`config::Preset`] by its one name.
pub use crate::config::Preset as PresetArg;

/// The options every subcommand and the TUI share: the parameters of the
/// table (`policy::params`) given as flags, by key, and the flags that are no
/// parameter's. The binary's `cli::opts` makes clap's arguments of both (a
/// parameter's from its row) and reads them back; the TUI, tests, benches and fuzz targets build
/// `Opts` directly (`Opts::with` gives a parameter's flag as the command line
/// would).
#[derive(Debug, Clone, Default)]
pub struct Opts {
    /// The request to look at: a number from 1, or `last`.
    pub at: Option<String>,
    /// Harness rules to apply (default: the session's harness).
    pub preset: Option<PresetArg>,
    /// The parameters given as flags (`--keep-recent 3`), by the table's key.
    pub given: Given,
    /// The flags `compare` takes alike (roots, path maps, cache TTL).
    pub shared: SharedOpts,
    /// Output format: text or json (explain also md or html).
    pub format: OutputFormat,
    /// Print JSON: the same as --format json (and wins over --format text).
    pub json: bool,
    /// Override format detection.
    pub input_format: Option<Format>,
    /// The session to read from a file that holds several (an OpenCode
    /// database): its id.
    pub session: Option<String>,
}

/// The options of [`Opts`] that `compare` takes as they are and that are no
/// parameter's (the command line's are `cli::opts`'s `SharedArgs`, flattened
/// into both, so `--cache-ttl` follows `--path-map` in the help of both).
#[derive(Debug, Clone, Default)]
pub struct SharedOpts {
    /// Memory roots, `KIND=DIR` each (`--memory-root`).
    pub memory_root: Vec<String>,
    /// Recorded path prefixes rewritten before resolution, `FROM=TO` each
    /// (`--path-map`).
    pub path_map: Vec<String>,
    /// The prompt cache's TTL for `warm` (`--cache-ttl`; none: the sidecar's,
    /// the config's, else auto).
    pub cache_ttl: Option<CacheTtl>,
}

impl Opts {
    /// These options with a parameter's flag given (`--keep-recent`, `3`; a
    /// switch's text is not read), as the command line reads it.
    ///
    /// # Panics
    /// Where the flag is no parameter's or its value does not read: the
    /// options are written in code.
    #[must_use]
    pub fn with(mut self, flag: &str, text: &str) -> Opts {
        if let Err(e) = self.given.read(flag, text) {
            panic!("{e}");
        }
        self
    }

    /// As [`Opts::with`], where `value` is some.
    #[must_use]
    pub fn with_some<T: AsFlag>(self, flag: &str, value: Option<T>) -> Opts {
        match value {
            Some(v) => self.with(flag, &v.as_flag()),
            None => self,
        }
    }

    /// The output asked for: `-j`/`--json` wins over `--format` (SPEC §15.25).
    pub fn output_format(&self) -> OutputFormat {
        if self.json {
            OutputFormat::Json
        } else {
            self.format
        }
    }
}

/// A value as the command line writes it (`idle`, `cache-edits`, `3`, `7.5`).
pub trait AsFlag {
    fn as_flag(&self) -> String;
}

impl AsFlag for PlanKind {
    fn as_flag(&self) -> String {
        self.name().to_string()
    }
}

impl AsFlag for Delivery {
    fn as_flag(&self) -> String {
        self.name().to_string()
    }
}

macro_rules! as_flag_by_display {
    ($($t:ty),*) => {$(
        impl AsFlag for $t {
            fn as_flag(&self) -> String {
                self.to_string()
            }
        }
    )*};
}
as_flag_by_display!(u32, u64, i64, f64);

/// A plan the session's harness cannot run, named with the session's path.
fn illegal(path: &Path, why: Illegal) -> UsageError {
    UsageError::Illegal {
        path: path.display().to_string(),
        why,
    }
}

/// Loads the session and merges preset ← sidecar ← flags into a [`Setup`].
pub fn setup(path: &Path, opts: &Opts) -> Result<Setup, UsageError> {
    setup_with_progress(path, opts, &std::sync::atomic::AtomicU64::new(0))
}

/// As [`setup`], reporting the bytes loaded so far in `progress`.
pub fn setup_with_progress(
    path: &Path,
    opts: &Opts,
    progress: &std::sync::atomic::AtomicU64,
) -> Result<Setup, UsageError> {
    let path = &*load::session_file(path);
    if path.is_dir() {
        return Err(directory_error(path));
    }
    let session = load::load_session(path, input_format(opts), opts.session.as_deref(), progress)?;
    setup_from(session, path, opts)
}

/// The format `--input-format` names, if any.
pub fn input_format(opts: &Opts) -> Option<Format> {
    opts.input_format
}

/// Merges preset ← sidecar ← flags for a session already loaded from `path`.
pub fn setup_from(session: Session, path: &Path, opts: &Opts) -> Result<Setup, UsageError> {
    let config = config::load()?;
    setup_with_config(session, path, opts, config)
}

/// As [`setup_from`], with the configuration file already read (the TUI goes on
/// with the defaults when it cannot use the file, and says so).
pub fn setup_with_config(
    mut session: Session,
    path: &Path,
    opts: &Opts,
    config: Config,
) -> Result<Setup, UsageError> {
    let sidecar = checked_sidecar(&mut session, path)?;
    let (side, side_dir) = match &sidecar {
        Some((s, d)) => (Some(s), d.clone()),
        None => (None, PathBuf::from(".")),
    };
    let chosen = choose_preset(&session, path, opts, side, &config)?;
    let (api, preset) = (chosen.api, chosen.preset);
    let mut p = if api {
        Policy::api_preset()
    } else {
        Policy::preset(preset)
    };
    let preset_name = if api {
        crate::harness::PresetId::SERVER.name()
    } else {
        preset.name()
    };
    let (mut sources, delivery_set) = layered(&mut p, &config, side, preset_name)?;
    apply_flags(&mut p, opts, &mut sources)?;
    settle_kind_and_delivery(&mut p, &session, path, opts, &chosen, delivery_set)?;
    let (path_map, roots) = paths_and_roots(&session, preset, opts, &config, side, &side_dir)?;
    let mut setup = Setup {
        session: std::sync::Arc::new(session),
        derived: Default::default(),
        policy: p,
        roots,
        path_map,
        settings: config::Settings {
            cache_ttl: resolve_cache_ttl(
                opts.shared.cache_ttl,
                side.and_then(|s| s.cache_ttl.as_deref()),
                config.cache_ttl.as_deref(),
            )?,
            sources,
            config,
            sidecar_path: sidecar.map(|_| sidecar_path(path)),
            config_notice: None,
        },
        resolver: Default::default(),
        checkpoints: Default::default(),
    };
    // SPEC §16.I: a plan that would have cleared where its harness always
    // writes a record, and left none, did not run: auto plans nothing for it.
    setup.policy.did_not_run = crate::analysis::ran(&setup)
        .iter()
        .filter(|r| r.ran == Some(false))
        .filter_map(|r| r.would_clear.map(|(k, n)| (r.kind, k, n)))
        .collect();
    if setup.policy.kind.is_baseline() {
        let warnings = baseline::warnings(&setup);
        if let Some(s) = std::sync::Arc::get_mut(&mut setup.session) {
            s.warnings.extend(warnings);
        }
    }
    Ok(setup)
}

/// The session's sidecar, checked; a key it ignores is noted as a diagnostic.
fn checked_sidecar(session: &mut Session, path: &Path) -> Result<sidecar::Found, UsageError> {
    let (sidecar, ignored) = sidecar::read_sidecar_noting(path)?;
    if let Some(message) = ignored {
        // Not about a line of the transcript: line 0.
        session.diagnostics.push(crate::session::Diagnostic {
            line: 0,
            byte_offset: 0,
            message,
        });
    }
    if let Some((s, _)) = &sidecar {
        check_sidecar(s).map_err(|e| UsageError::BadSidecar {
            path: sidecar_path(path).display().to_string(),
            why: e.to_string(),
        })?;
    }
    Ok(sidecar)
}

/// The preset a session is planned with, and whether it is the api preset.
struct Chosen {
    api: bool,
    preset: HarnessId,
    /// A --policy or --delivery the api preset cannot take was given.
    flag_leaves_api: bool,
}

/// Flags win over the sidecar, which wins over the config file; a recorded
/// name no preset has is refused.
fn choose_preset(
    session: &Session,
    path: &Path,
    opts: &Opts,
    side: Option<&Sidecar>,
    config: &Config,
) -> Result<Chosen, UsageError> {
    let (policy, preset, delivery) = (opts.given.kind(), opts.preset, opts.given.delivery());
    let recorded = side
        .and_then(|s| s.keys.preset())
        .map(|p| ("sidecar", p))
        .or_else(|| config.policy.preset().map(|p| ("config", p)));
    // Flags win: a --policy or --delivery the api preset cannot take leaves a
    // sidecar's or the config file's api preset for the session's own.
    let flag_leaves_api =
        policy.is_some_and(|k| !k.is_api()) || delivery.is_some_and(|d| d != Delivery::Server);
    // A recorded preset by name: (where, the name, the preset if it is one).
    let recorded = recorded.map(|(from, name)| (from, name, name.parse::<PresetArg>().ok()));
    let api = match (preset, recorded) {
        (Some(p), _) => p.is_server(),
        (None, _) if policy.is_some_and(PlanKind::is_api) => true,
        (None, Some((_, _, Some(p)))) if p.is_server() => !flag_leaves_api,
        _ => false,
    };
    let preset = match (preset, recorded) {
        (Some(p), _) => p.harness(),
        (None, _) if api => PresetArg::SERVER.harness(),
        // A recorded api preset the flags left: the session's own.
        (None, Some((_, _, Some(p)))) if p.is_server() => session.harness,
        (None, Some((_, _, Some(p)))) => p.harness(),
        (None, Some((from, other, None))) => {
            return Err(UsageError::UnknownPreset {
                from,
                name: other.to_string(),
            });
        }
        (None, None) => session.harness,
    };
    if api && !session.harness.rules().offers_delivery(Delivery::Server) {
        return Err(UsageError::ApiNotSent {
            path: path.display().to_string(),
            own: session.harness,
        });
    }
    Ok(Chosen {
        api,
        preset,
        flag_leaves_api,
    })
}

/// The policy keys' layers, lowest first: the config file's [policy], its
/// [policy.<preset>], the sidecar (flags come last, in [`apply_flags`]).
/// Returns where each key came from and whether a layer set the delivery.
fn layered(
    p: &mut Policy,
    config: &Config,
    side: Option<&Sidecar>,
    preset_name: &str,
) -> Result<(std::collections::BTreeMap<&'static str, Source>, bool), UsageError> {
    let mut sources = std::collections::BTreeMap::new();
    let mut delivery_set = false;
    let config_where = config
        .path
        .as_ref()
        .map_or("config".to_string(), |c| c.display().to_string());
    let mut layers = vec![(&config.policy, Source::Config)];
    if let Some(k) = config.policy.for_preset(preset_name) {
        layers.push((k, Source::Config));
    }
    if let Some(s) = side {
        layers.push((&s.keys, Source::Sidecar));
    }
    for (keys, source) in layers {
        delivery_set |= keys.apply(p, source, &mut sources).map_err(|e| {
            let at = match source {
                Source::Sidecar => "sidecar".to_string(),
                _ => config_where.clone(),
            };
            UsageError::bad(at, e.to_string())
        })?;
    }
    Ok((sources, delivery_set))
}

/// The parameters `--policy recorded` refuses (SPEC §15.3: the plan is read
/// from the records), by key, in the order its message names them.
const RECORDED_REFUSES: [&str; 11] = [
    "keep_recent",
    "gap_threshold_minutes",
    "size_threshold",
    "trigger_threshold",
    "delivery",
    "api_edits",
    "mask_protect_tokens",
    "mask_min_prunable_tokens",
    "mask_protect_latest_turn",
    "prune_protect_tokens",
    "prune_minimum_tokens",
];

/// The kind and the delivery the plan runs with: the baseline's and the api
/// preset's own, idle-server's server, auto's per-request check, the defaults
/// by kind, and last the one legality check ([`Policy::check`]).
fn settle_kind_and_delivery(
    p: &mut Policy,
    session: &Session,
    path: &Path,
    opts: &Opts,
    chosen: &Chosen,
    delivery_set: bool,
) -> Result<(), UsageError> {
    let (policy, delivery) = (opts.given.kind(), opts.given.delivery());
    let (api, flag_leaves_api) = (chosen.api, chosen.flag_leaves_api);
    if p.kind.is_baseline() {
        // SPEC §15.3: the baseline is read from the records; the api preset's
        // keeps delivery server (what tells it from the others' in the TUI).
        let refused: Vec<&str> = RECORDED_REFUSES
            .into_iter()
            .filter(|k| opts.given.has(k))
            .collect();
        if !refused.is_empty() {
            return Err(UsageError::BaselineParams {
                path: path.display().to_string(),
                flags: baseline::flags_of(&refused),
            });
        }
        p.delivery = if api {
            Delivery::Server
        } else {
            Delivery::Rewrite
        };
    } else if api {
        // The api preset runs its own kind, delivered by the server (SPEC §11).
        if !p.kind.is_api() && policy.is_some() {
            return Err(UsageError::ApiKindOnly {
                path: path.display().to_string(),
                kind: p.kind,
            });
        }
        p.kind = PlanKind::Api;
        if delivery_set && p.delivery != Delivery::Server || flag_leaves_api {
            return Err(UsageError::ApiDelivery {
                path: path.display().to_string(),
                delivery: delivery.unwrap_or(p.delivery),
                by_flag: delivery.is_some(),
            });
        }
        p.delivery = Delivery::Server;
    } else if p.kind.is_api() {
        // The api kind is the api preset's, asked for by `--preset api`: a
        // policy of kind api with delivery server is that preset, so only here
        // can a `--policy api` without it be told apart.
        return Err(illegal(
            path,
            Illegal::Plan(crate::policy::Refusal::of(
                p,
                crate::policy::Refused::Preset,
            )),
        ));
    }
    // SPEC §15.6: an explicit delivery under auto applies to the kinds that
    // take it; a request whose chosen kind refuses it is named.
    let asked = (delivery.is_some() || delivery_set).then(|| delivery.unwrap_or(p.delivery));
    p.check_requests(&session.requests, asked)
        .map_err(|why| UsageError::AutoDelivery {
            path: path.display().to_string(),
            why,
            by_flag: delivery.is_some(),
        })?;
    // Each kind's own delivery where none was asked; an asked one is judged,
    // with the rest, by `Policy::check` below.
    match delivery {
        _ if api || p.kind.is_baseline() => {}
        Some(d) => p.delivery = d,
        // The kind's own (SPEC §13.S: the server applies idle-server's edit;
        // cache edits, Claude's mechanism, are count's default on Claude).
        None if !delivery_set => {
            let edits = session
                .harness
                .rules()
                .offers_delivery(Delivery::CacheEdits);
            p.delivery = p.kind.default_delivery(edits);
        }
        None => {}
    }
    p.check(session.harness).map_err(|e| illegal(path, e))
}

/// The sidecar's values serde reads but cannot judge, as the config file's are
/// checked (SPEC §15.25): the gap in every layer, and no empty memory folder.
fn check_sidecar(s: &Sidecar) -> Result<(), String> {
    s.keys.check()?;
    for (p, k) in s.keys.tables() {
        k.check().map_err(|e| format!("{p}: {e}"))?;
    }
    for (kind, dir) in &s.memory_roots {
        config::check_dir(dir).map_err(|e| format!("memory_roots: {kind} = \"\": {e}"))?;
    }
    Ok(())
}

/// `--gap-minutes`: a finite number of minutes, negative disabling (clap's
/// value parser, so a bad value is clap's one-line usage error).
pub fn gap_arg(s: &str) -> Result<f64, String> {
    let x: f64 = s.trim().parse().map_err(|e| format!("{e}"))?;
    config::check_minutes(x)
}

/// `--price-*`: USD per million tokens, finite and not negative.
pub fn price_arg(s: &str) -> Result<f64, String> {
    let x: f64 = s.trim().parse().map_err(|e| format!("{e}"))?;
    config::check_price(x)
}

/// `--memory-root KIND=DIR`: the form and a non-empty DIR (an empty one would be
/// the current folder, and every read under it protected). The kind is checked
/// with the others in the setup, which names the kinds there are.
pub fn memory_root_arg(s: &str) -> Result<String, String> {
    match s.split_once('=') {
        Some((_, dir)) => config::check_dir(dir).map(|()| s.to_string()),
        None => Err(format!(
            "expected {}=DIR",
            config::names::<RootKind>().replace(", ", "|")
        )),
    }
}

/// The cache TTL for SPEC §9 `warm` of the session at `path` (a folder: the flag,
/// else auto). Set up sessions carry theirs in `Setup::settings`.
pub fn cache_ttl(path: &Path, opts: &Opts) -> Result<crate::totals::CacheTtl, UsageError> {
    let sidecar = match path.is_dir() {
        true => None,
        false => read_sidecar(path)?.and_then(|(s, _)| s.cache_ttl),
    };
    let config = config::load()?;
    resolve_cache_ttl(
        opts.shared.cache_ttl,
        sidecar.as_deref(),
        config.cache_ttl.as_deref().filter(|_| !path.is_dir()),
    )
}

/// `cache_ttl`: the flag, else the sidecar's, else the config file's, else auto.
fn resolve_cache_ttl(
    flag: Option<CacheTtl>,
    sidecar: Option<&str>,
    config: Option<&str>,
) -> Result<crate::totals::CacheTtl, UsageError> {
    let parse = |from: &str, t: &str| {
        CacheTtl::parse(t).ok_or_else(|| {
            UsageError::bad(
                format!("{from} {t:?}"),
                format!("expected {}", config::names_or::<CacheTtl>()),
            )
        })
    };
    match (flag, sidecar, config) {
        (Some(t), _, _) => Ok(t),
        (None, Some(t), _) => parse("sidecar: cache_ttl", t),
        (None, None, Some(t)) => parse("config: cache_ttl", t),
        (None, None, None) => Ok(CacheTtl::Auto),
    }
}

#[cfg(test)]
mod config_tests;
#[cfg(test)]
mod tests;

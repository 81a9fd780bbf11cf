//! The setup of one run (SPEC §7): the options every subcommand and the TUI
//! share, and the merge of preset ← config file ← sidecar ← options into a
//! [`Setup`]. It is the binary's, not the core's, while [`Opts`] derives clap's
//! flags. The CLI fills [`Opts`] from its flags; the TUI, tests, benches and
//! fuzz targets build it directly.

pub(crate) mod baseline;
mod flags;
mod key_error;
mod roots;
mod select;
mod sidecar;
mod usage_error;
use flags::{apply_flags, flags_given};
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

/// The options every subcommand and the TUI share, one field per shared flag:
/// each field's doc is its flag's `--help` (clap's derive reads it), except a
/// parameter's, whose help `cli::command` makes from its row of
/// `policy::params::PARAMS` (`setup` never parses: the TUI, tests, benches and fuzz targets build `Opts` directly).
#[derive(clap::Args, Debug, Clone, Default)]
pub struct Opts {
    /// The request to look at: a number from 1, or `last`.
    #[arg(long, value_name = "K|last")]
    pub at: Option<String>,
    // Help: its row of `policy::params::PARAMS` (`cli::command`).
    #[arg(long, value_parser = crate::named::named::<PlanKind>())]
    pub policy: Option<PlanKind>,
    /// Harness rules to apply (default: the session's harness). `api`:
    /// Anthropic's server-side context editing, for Messages API bodies and, as a
    /// what-if, Claude Code sessions (see --api-edit).
    #[arg(long, value_parser = crate::named::named::<PresetArg>())]
    pub preset: Option<PresetArg>,
    // Help: its row of `policy::params::PARAMS` (`cli::command`).
    #[arg(long = "api-edit", value_name = "JSON")]
    pub api_edit: Vec<String>,
    // Help: its row of `policy::params::OTHER_KEYS` (`cli::command`).
    #[arg(long)]
    pub api_excluded_count_toward_keep: bool,
    // Help: its row of `policy::params::OTHER_KEYS` (`cli::command`).
    #[arg(long)]
    pub api_trigger_inclusive: bool,
    // Help: its row of `policy::params::OTHER_KEYS` (`cli::command`).
    #[arg(long, value_name = "TEXT")]
    pub api_placeholder: Option<String>,
    // Help: its row of `policy::params::PARAMS` (`cli::command`).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(..=i64::from(crate::policy::params::MAX_COUNT)))]
    pub keep_recent: Option<u32>,
    // Help: its row of `policy::params::PARAMS` (`cli::command`).
    #[arg(long, value_name = "M", allow_negative_numbers = true, value_parser = gap_arg)]
    pub gap_minutes: Option<f64>,
    // Help: its row of `policy::params::PARAMS` (`cli::command`).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(..=i64::from(crate::policy::params::MAX_COUNT)))]
    pub min_trigger_tool_uses: Option<u32>,
    // Help: its row of `policy::params::PARAMS` (`cli::command`).
    #[arg(long, value_name = "N")]
    pub prune_protect: Option<u64>,
    // Help: its row of `policy::params::PARAMS` (`cli::command`).
    #[arg(long, value_name = "N")]
    pub prune_minimum: Option<u64>,
    // Help: its row of `policy::params::PARAMS` (`cli::command`).
    #[arg(long, value_name = "C", allow_negative_numbers = true)]
    pub size_threshold: Option<i64>,
    // Help: its row of `policy::params::PARAMS` (`cli::command`).
    #[arg(long, value_name = "N")]
    pub protect_tokens: Option<u64>,
    // Help: its row of `policy::params::PARAMS` (`cli::command`).
    #[arg(long, value_name = "N")]
    pub min_prunable_tokens: Option<u64>,
    // Help: its row of `policy::params::PARAMS` (`cli::command`).
    #[arg(long)]
    pub no_protect_latest_turn: bool,
    // Help: its row of `policy::params::PARAMS` (`cli::command`).
    #[arg(long)]
    pub no_low_watermark: bool,
    // Help: its row of `policy::params::PARAMS` (`cli::command`).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(..=i64::from(crate::policy::params::MAX_COUNT)))]
    pub trigger: Option<u32>,
    // Help: its row of `policy::params::PARAMS` (`cli::command`).
    #[arg(long, value_parser = crate::named::named::<Delivery>())]
    pub delivery: Option<Delivery>,
    /// The flags `compare` takes alike (budget, protection, roots, path maps,
    /// cache TTL).
    #[command(flatten)]
    pub shared: SharedOpts,
    /// Output format: text or json (explain also md or html: a page to share).
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,
    /// Print JSON: the same as --format json (and wins over --format text).
    #[arg(short = 'j', long)]
    pub json: bool,
    /// Override format detection.
    #[arg(long, value_parser = crate::named::named::<Format>())]
    pub input_format: Option<Format>,
    /// The session to read from a file that holds several (an OpenCode
    /// database): its id, e.g. `ses_dd4438cb3ffeXq3Lm9TzR2bN7c`.
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
}

/// The flags of [`Opts`] that `compare` takes as they are (its other setting
/// flags take lists): written once, flattened into both (so `--cache-ttl`
/// follows `--path-map` in the help of both).
#[derive(clap::Args, Debug, Clone, Default)]
pub struct SharedOpts {
    // Help: its row of `policy::params::PARAMS` (`cli::command`).
    #[arg(long, value_name = "N")]
    pub budget_tokens: Option<u64>,
    // Help: its row of `policy::params::PARAMS` (`cli::command`).
    #[arg(long, value_name = "N")]
    pub budget_min_saving: Option<u64>,
    // Help: its row of `policy::params::PARAMS` (`cli::command`).
    #[arg(long = "budget-warning", value_name = "N")]
    pub budget_warning: Option<u64>,
    // Help: its row of `policy::params::PARAMS` (`cli::command`).
    #[arg(long, overrides_with = "no_protect")]
    pub protect: bool,
    // Help: the `off` column of its row of `policy::params::PARAMS`.
    #[arg(long, overrides_with = "protect")]
    pub no_protect: bool,
    // Help: its row of `policy::params::PARAMS` (`cli::command`).
    #[arg(long, overrides_with = "no_clear_errors")]
    pub clear_errors: bool,
    // Help: the `off` column of its row of `policy::params::PARAMS`.
    #[arg(long, overrides_with = "clear_errors")]
    pub no_clear_errors: bool,
    /// A memory root, e.g. `project=/home/me/.qwen/projects/x/memory` (repeatable).
    #[arg(long, value_name = "KIND=DIR", value_parser = memory_root_arg)]
    pub memory_root: Vec<String>,
    /// Rewrite a recorded path prefix before resolution (repeatable).
    #[arg(long, value_name = "FROM=TO")]
    pub path_map: Vec<String>,
    /// The prompt cache's TTL for `warm` (docs/compare.md) (auto: what the transcript's last cache write used).
    #[arg(long, value_name = "auto|5m|1h", value_parser = crate::named::named::<CacheTtl>())]
    pub cache_ttl: Option<CacheTtl>,
}

impl Opts {
    /// The output asked for: `-j`/`--json` wins over `--format` (SPEC §15.25).
    pub fn output_format(&self) -> OutputFormat {
        if self.json {
            OutputFormat::Json
        } else {
            self.format
        }
    }
}

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
    if setup.policy.kind == PlanKind::Recorded {
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
    let (policy, preset, delivery) = (opts.policy, opts.preset, opts.delivery);
    let recorded = side
        .and_then(|s| s.keys.preset())
        .map(|p| ("sidecar", p))
        .or_else(|| config.policy.preset().map(|p| ("config", p)));
    // Flags win: a --policy or --delivery the api preset cannot take leaves a
    // sidecar's or the config file's api preset for the session's own.
    let flag_leaves_api = policy.is_some_and(|k| k != PlanKind::Api)
        || delivery.is_some_and(|d| d != Delivery::Server);
    // A recorded preset by name: (where, the name, the preset if it is one).
    let recorded = recorded.map(|(from, name)| (from, name, name.parse::<PresetArg>().ok()));
    let api = match (preset, recorded) {
        (Some(p), _) => p.is_server(),
        (None, _) if policy == Some(PlanKind::Api) => true,
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
    let Opts {
        policy, delivery, ..
    } = *opts;
    let (api, flag_leaves_api) = (chosen.api, chosen.flag_leaves_api);
    if p.kind == PlanKind::Recorded {
        // SPEC §15.3: the baseline is read from the records; the api preset's
        // keeps delivery server (what tells it from the others' in the TUI).
        let given = flags_given(opts);
        let on = |key: &str| given.iter().any(|&(k, set)| k == key && set);
        let refused: Vec<&str> = RECORDED_REFUSES.into_iter().filter(|k| on(k)).collect();
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
        if p.kind != PlanKind::Api && policy.is_some() {
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
    } else if p.kind == PlanKind::Api {
        // The api kind is the api preset's, asked for by `--preset api`: a
        // policy of kind api with delivery server is that preset, so only here
        // can a `--policy api` without it be told apart.
        return Err(illegal(path, Illegal::ApiWithoutPreset));
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
        _ if api || p.kind == PlanKind::Recorded => {}
        Some(d) => p.delivery = d,
        // SPEC §13.S: the server applies idle-server's edit.
        None if p.kind == PlanKind::IdleServer && !delivery_set => p.delivery = Delivery::Server,
        None if !delivery_set => {
            // cache_edits is Claude's mechanism: the default for count on Claude.
            let edits = session
                .harness
                .rules()
                .offers_delivery(Delivery::CacheEdits);
            p.delivery = if p.kind == PlanKind::Count && edits {
                Delivery::CacheEdits
            } else {
                Delivery::Rewrite
            };
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
mod tests;

#[cfg(test)]
mod config_tests;

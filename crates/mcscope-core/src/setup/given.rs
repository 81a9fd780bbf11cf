//! The table's keys given as flags (`policy::params::flags`): what the command
//! line read, by key, applied over the config file and the sidecar as one more
//! layer of keys. No parameter is named here: a row of the table is a flag, a
//! key given and a value applied with nothing written in this file.

use crate::config::{FlagRefused, KeyValue, PolicyKeys, Source};
use crate::policy::params::{self, Takes};
use crate::policy::{Delivery, PlanKind, Policy};
use std::collections::BTreeMap;

/// The keys given as flags, each with the value its flag read (the last
/// given wins, as clap's do).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Given(Vec<(&'static str, Read)>);

/// A value as its flag read it.
#[derive(Debug, Clone, PartialEq)]
pub enum Read {
    /// Read as its key's type.
    Value(KeyValue),
    /// JSON objects as given, read when the flags apply (a bad one is named
    /// with the flag).
    Json(Vec<String>),
}

impl Given {
    /// Sets `key`'s value (the row's key, as `policy::params::flags` names it).
    pub fn set(&mut self, key: &'static str, read: Read) {
        self.0.retain(|(k, _)| *k != key);
        self.0.push((key, read));
    }

    /// Whether `key` was given.
    pub fn has(&self, key: &str) -> bool {
        self.0.iter().any(|(k, _)| *k == key)
    }

    /// The keys given.
    pub fn keys(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.0.iter().map(|(k, _)| *k)
    }

    /// The text given for `key` (a named value: the kind, the delivery).
    fn text(&self, key: &str) -> Option<&str> {
        self.0.iter().find_map(|(k, r)| match r {
            Read::Value(KeyValue::Str(s)) if *k == key => Some(s.as_str()),
            _ => None,
        })
    }

    /// The plan kind `--policy` names.
    pub fn kind(&self) -> Option<PlanKind> {
        self.text("kind").and_then(PlanKind::parse)
    }

    /// The delivery `--delivery` names.
    pub fn delivery(&self) -> Option<Delivery> {
        self.text("delivery").and_then(Delivery::parse)
    }

    /// Flag `flag` (`--keep-recent`, or without the dashes) given with `text`,
    /// read as the command line reads it; an error names what does not read.
    /// (The TUI, tests and benches give flags so; the command line's clap
    /// reads them as its arguments, `cli::opts`.)
    pub fn read(&mut self, flag: &str, text: &str) -> Result<(), String> {
        let long = flag.trim_start_matches('-');
        let Some(f) = params::flag(long) else {
            return Err(format!("--{long}: not a flag of the parameter table"));
        };
        let bad = |e: &dyn std::fmt::Display| format!("--{long} {text:?}: {e}");
        let value = match f.takes {
            Takes::Count => KeyValue::U32(text.parse().map_err(|e| bad(&e))?),
            Takes::Tokens => KeyValue::U64(text.parse().map_err(|e| bad(&e))?),
            Takes::Chars => KeyValue::I64(text.parse().map_err(|e| bad(&e))?),
            Takes::Minutes => KeyValue::F64(text.trim().parse().map_err(|e| bad(&e))?),
            Takes::Named(_) | Takes::Text => KeyValue::Str(text.to_string()),
            Takes::On => KeyValue::Bool(true),
            Takes::Off => KeyValue::Bool(false),
            Takes::Json => {
                // Repeatable: each one given is added to the list.
                match self.0.iter_mut().find(|(k, _)| *k == f.key) {
                    Some((_, Read::Json(list))) => list.push(text.to_string()),
                    _ => self.set(f.key, Read::Json(vec![text.to_string()])),
                }
                return Ok(());
            }
        };
        self.set(f.key, Read::Value(value));
        Ok(())
    }

    /// Applies the flags over the layers below them, each value marked a
    /// flag's; a refused value is named with its flag.
    pub(super) fn apply(
        &self,
        p: &mut Policy,
        sources: &mut BTreeMap<&'static str, Source>,
    ) -> Result<(), super::UsageError> {
        let flag_of = |key: &str| {
            params::flags()
                .find(|f| f.key == key)
                .map_or_else(|| key.to_string(), |f| format!("--{}", f.long))
        };
        let mut values = Vec::with_capacity(self.0.len());
        for (key, read) in &self.0 {
            let value = match read {
                Read::Value(v) => v.clone(),
                Read::Json(texts) => KeyValue::List(
                    texts
                        .iter()
                        .map(|t| {
                            serde_json::from_str(t).map_err(|e| {
                                super::UsageError::bad(
                                    format!("{} {t:?}", flag_of(key)),
                                    format!("not JSON: {e}"),
                                )
                            })
                        })
                        .collect::<Result<_, _>>()?,
                ),
            };
            values.push((*key, value));
        }
        PolicyKeys::of(values)
            .apply_flags(p, sources, flag_of)
            .map_err(|FlagRefused { what, why }| super::UsageError::bad(what, why))
    }
}

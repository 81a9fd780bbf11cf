//! The policy keys of the config file's `[policy]` and of a sidecar (SPEC §7,
//! §8), read through the parameter table (`policy::params::keys`): a key is
//! accepted because its row is there, read as the type its row says, checked
//! and applied by its row, and listed by `config --print` from its row. A
//! parameter added to the table is a config and sidecar key with nothing
//! written here.

use super::{Preset, Source};
use crate::policy::Policy;
use crate::policy::params::{self, KeyValue as Value, Put};
use serde::de::{self, DeserializeSeed, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use std::collections::BTreeMap;
use std::sync::LazyLock;
use strum::VariantArray;

/// One layer of policy keys: a sidecar's, the config file's `[policy]`, or one
/// of its `[policy.<preset>]` tables.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct PolicyKeys {
    /// The keys given with a value, in the table's order, whatever order the
    /// file gave them in (so the first bad value named is the same for a
    /// config file and a sidecar); a JSON null is none:
    /// `budget_warning_tokens: null` is "by version", as if left out.
    values: Vec<(&'static str, Value)>,
    /// The preset tables, in the registry's order: their keys win for that
    /// preset.
    tables: Vec<(Preset, PolicyKeys)>,
}

impl PolicyKeys {
    /// The value given for `key`.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.values.iter().find(|(k, _)| *k == key).map(|(_, v)| v)
    }

    /// The preset named (`"preset": "qwen"`).
    pub fn preset(&self) -> Option<&str> {
        match self.get("preset") {
            Some(Value::Str(s)) => Some(s),
            _ => None,
        }
    }

    /// The layer with `key` set to `value`; None for a key no row has.
    #[cfg(test)]
    pub fn with(mut self, key: &str, value: Value) -> Option<PolicyKeys> {
        let row = params::key(key)?;
        self.values.retain(|(k, _)| *k != row.key);
        self.values.push((row.key, value));
        self.in_order();
        Some(self)
    }

    /// The table of one preset, if there is one.
    pub fn for_preset(&self, preset: &str) -> Option<&PolicyKeys> {
        let id = crate::harness::by_name(preset).ok()?;
        self.tables.iter().find(|(p, _)| *p == id).map(|(_, k)| k)
    }

    /// The preset tables, by the preset's name.
    pub fn tables(&self) -> impl Iterator<Item = (&'static str, &PolicyKeys)> {
        self.tables.iter().map(|(p, k)| (p.name(), k))
    }

    pub fn has_tables(&self) -> bool {
        !self.tables.is_empty()
    }

    /// Puts the values in the table's order and the tables in the registry's.
    fn in_order(&mut self) {
        let at = |key: &str| FIELDS.iter().position(|k| *k == key);
        self.values.sort_by_key(|(k, _)| at(k));
        self.tables.sort_by_key(|(p, _)| at(p.name()));
    }

    /// Each value checked by its row (its preset tables not included): the
    /// first that its row refuses, in words naming the key and the value.
    pub fn check(&self) -> Result<(), String> {
        // A row judges a value alike under every preset: any one's policy
        // takes the values, and is dropped.
        let harnesses = <crate::session::HarnessId as VariantArray>::VARIANTS;
        let Some(&any) = harnesses.first() else {
            return Ok(());
        };
        let mut scratch = Policy::preset(any);
        for (key, value) in &self.values {
            put(&mut scratch, key, value)?;
        }
        Ok(())
    }

    /// A layer of values given otherwise than in a file (the command line's
    /// flags), by key; put in the table's order.
    pub fn of(values: Vec<(&'static str, Value)>) -> PolicyKeys {
        let mut keys = PolicyKeys {
            values,
            tables: Vec::new(),
        };
        keys.in_order();
        keys
    }

    /// Applies a layer of flags over `p` as [`PolicyKeys::apply`] does, each
    /// value marked a flag's; a refused one is named by `flag_of` its key's
    /// flag (`--gap-minutes 1e99: expected …`).
    pub fn apply_flags(
        &self,
        p: &mut Policy,
        sources: &mut BTreeMap<&'static str, Source>,
        flag_of: impl Fn(&str) -> String,
    ) -> Result<(), FlagRefused> {
        for (key, value) in &self.values {
            let set = put_named(p, key, value).map_err(|r| {
                let flag = flag_of(key);
                match (r, value) {
                    (Refused::Value(why), Value::Str(s)) => FlagRefused {
                        what: format!("{flag} {s:?}"),
                        why,
                    },
                    (Refused::Value(why), Value::F64(x)) => FlagRefused {
                        what: format!("{flag} {}", crate::numbers::shown(*x)),
                        why,
                    },
                    (Refused::Value(why) | Refused::Whole(why), _) => {
                        FlagRefused { what: flag, why }
                    }
                }
            })?;
            if set {
                sources.insert(key, Source::Flag);
            }
        }
        Ok(())
    }

    /// Applies the layer (its preset tables not included) over `p`, recording
    /// where each value came from. Returns whether the layer set the delivery.
    pub fn apply(
        &self,
        p: &mut Policy,
        source: Source,
        sources: &mut BTreeMap<&'static str, Source>,
    ) -> Result<bool, String> {
        let mut delivery = false;
        for (key, value) in &self.values {
            if put(p, key, value)? {
                sources.insert(key, source);
                delivery |= *key == "delivery";
            }
        }
        Ok(delivery)
    }
}

/// Sets `key`'s value into `p` by its row: whether it set anything (the
/// preset does not: setup reads it first), or why the value is refused.
fn put(p: &mut Policy, key: &str, value: &Value) -> Result<bool, String> {
    put_named(p, key, value).map_err(|r| match r {
        Refused::Value(why) => match value {
            Value::Str(s) => format!("{key} = {s:?}: {why}"),
            Value::F64(x) => format!("{key} = {}: {why}", crate::config::shown(*x)),
            _ => format!("{key}: {why}"),
        },
        Refused::Whole(words) => words,
    })
}

/// Sets `key`'s value into `p` by its row, as a layer's value is set (a
/// setting of `compare`'s grid): whether it set anything, or why the value is
/// refused.
pub fn set_key(p: &mut Policy, key: &str, value: &Value) -> Result<bool, String> {
    put(p, key, value)
}

/// Why a row refuses a value.
enum Refused {
    /// The words that follow the value's name.
    Value(String),
    /// Words that name the value themselves (the edits' `api_edits[0]: …`, a
    /// key no row has).
    Whole(String),
}

/// [`put`], its refusal not yet naming where the value was given.
fn put_named(p: &mut Policy, key: &str, value: &Value) -> Result<bool, Refused> {
    let Some(row) = params::key(key) else {
        return Err(Refused::Whole(format!("{key}: not a policy key")));
    };
    match (row.put, value) {
        (Put::U32(_), Value::U32(v)) if *v > crate::policy::params::MAX_COUNT => {
            return Err(Refused::Value(format!(
                "more than {} (no session holds that many)",
                crate::policy::params::MAX_COUNT
            )));
        }
        (Put::U32(set), Value::U32(v)) => set(p, *v),
        (Put::U64(set), Value::U64(v)) => set(p, *v),
        (Put::I64(set), Value::I64(v)) => set(p, *v),
        (Put::Bool(set), Value::Bool(v)) => set(p, *v),
        (Put::F64(set), Value::F64(v)) => set(p, *v).map_err(Refused::Value)?,
        (Put::Str(set), Value::Str(v)) => set(p, v).map_err(Refused::Value)?,
        // The edits' words name the edit and its field (`api_edits[0]: …`).
        (Put::List(set), Value::List(v)) => set(p, v).map_err(Refused::Whole)?,
        (Put::Preset(is_one), Value::Str(v)) => {
            return if is_one(v) {
                Ok(false)
            } else {
                Err(Refused::Value(format!(
                    "not a preset ({})",
                    super::names::<Preset>()
                )))
            };
        }
        // A value is read as its row's type (`ValueSeed`): no other pair is made.
        _ => return Err(Refused::Whole(format!("{key}: a value of another type"))),
    }
    Ok(true)
}

/// A value given as flag `flag` refused: where it was given (`--gap-minutes
/// 1e99`, `--api-edit`) and why, as the command line names it.
#[derive(Debug, Clone, PartialEq)]
pub struct FlagRefused {
    pub what: String,
    pub why: String,
}

/// The keys serde may list in its "expected one of": every row's, then the
/// preset tables.
static FIELDS: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
    params::keys()
        .map(|k| k.key)
        .chain(Preset::VARIANTS.iter().map(|p| p.name()))
        .collect()
});

impl<'de> Deserialize<'de> for PolicyKeys {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // A struct, as serde's derive reads one: a flattened layer (the
        // sidecar's) takes only these keys, the rest left to its owner.
        d.deserialize_struct("PolicyKeys", FIELDS.as_slice(), KeysVisitor)
    }
}

/// A key of the layer: a row's, or a preset's table.
enum Field {
    Key(params::Key),
    Table(Preset),
}

struct FieldSeed;

impl<'de> DeserializeSeed<'de> for FieldSeed {
    type Value = Field;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Field, D::Error> {
        // An identifier, read inside the key, so that the formats put the
        // key's position on an unknown one (toml's line).
        d.deserialize_identifier(FieldVisitor)
    }
}

struct FieldVisitor;

impl Visitor<'_> for FieldVisitor {
    type Value = Field;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("field identifier")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Field, E> {
        if let Some(k) = params::key(v) {
            return Ok(Field::Key(k));
        }
        match Preset::VARIANTS.iter().find(|p| p.name() == v) {
            Some(&p) => Ok(Field::Table(p)),
            None => Err(E::unknown_field(v, FIELDS.as_slice())),
        }
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Field, E> {
        self.visit_str(&String::from_utf8_lossy(v))
    }
}

/// A key's value, read as its row's type: serde's own message for a wrong one.
struct ValueSeed(Put);

impl<'de> DeserializeSeed<'de> for ValueSeed {
    type Value = Option<Value>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<Value>, D::Error> {
        Ok(match self.0 {
            Put::U32(_) => Option::<u32>::deserialize(d)?.map(Value::U32),
            Put::U64(_) => Option::<u64>::deserialize(d)?.map(Value::U64),
            Put::I64(_) => Option::<i64>::deserialize(d)?.map(Value::I64),
            Put::F64(_) => Option::<f64>::deserialize(d)?.map(Value::F64),
            Put::Bool(_) => Option::<bool>::deserialize(d)?.map(Value::Bool),
            Put::Str(_) | Put::Preset(_) => Option::<String>::deserialize(d)?.map(Value::Str),
            Put::List(_) => Option::<Vec<serde_json::Value>>::deserialize(d)?.map(Value::List),
        })
    }
}

struct KeysVisitor;

impl<'de> Visitor<'de> for KeysVisitor {
    type Value = PolicyKeys;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a table of policy keys")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<PolicyKeys, A::Error> {
        let mut keys = PolicyKeys::default();
        let mut seen: Vec<&'static str> = Vec::new();
        while let Some(field) = map.next_key_seed(FieldSeed)? {
            let name = match &field {
                Field::Key(k) => k.key,
                Field::Table(p) => p.name(),
            };
            if seen.contains(&name) {
                return Err(de::Error::duplicate_field(name));
            }
            seen.push(name);
            match field {
                Field::Key(k) => {
                    if let Some(v) = map.next_value_seed(ValueSeed(k.put))? {
                        keys.values.push((k.key, v));
                    }
                }
                Field::Table(p) => {
                    if let Some(t) = map.next_value::<Option<PolicyKeys>>()? {
                        keys.tables.push((p, t));
                    }
                }
            }
        }
        keys.in_order();
        Ok(keys)
    }
}

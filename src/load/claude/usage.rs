//! A response's recorded usage and server-side edits (SPEC §10), read from the
//! borrowed `message.usage` / `context_management` values; odd shapes never cost a
//! line its usage.

use super::super::raw::{self, Raw};
use crate::session::{CacheCreation, Usage};
use serde::Deserialize;
use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::borrow::Cow;
use std::fmt;

#[derive(Deserialize, Default)]
struct RawUsage<'a> {
    #[serde(default)]
    input_tokens: Option<u64>,
    #[serde(default)]
    cache_creation_input_tokens: Option<u64>,
    #[serde(default)]
    cache_read_input_tokens: Option<u64>,
    #[serde(default)]
    output_tokens: Option<u64>,
    #[serde(borrow, default)]
    cache_creation: Raw<'a>,
    #[serde(default)]
    cache_deleted_input_tokens: Option<u64>,
    #[serde(default)]
    server_tool_use: AnyPositive,
    #[serde(default)]
    iterations: HasCompaction,
}

#[derive(Deserialize, Default)]
struct RawCacheCreation {
    #[serde(default)]
    ephemeral_5m_input_tokens: Option<u64>,
    #[serde(default)]
    ephemeral_1h_input_tokens: Option<u64>,
}

/// `usage.server_tool_use`: whether any count in it is above 0 (read without
/// building a map; a value of another shape is no count).
#[derive(Default)]
struct AnyPositive(bool);

impl<'de> Deserialize<'de> for AnyPositive {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = AnyPositive;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object of counts")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<AnyPositive, A::Error> {
                let mut any = false;
                while let Some((_, v)) = map.next_entry::<IgnoredAny, Count>()? {
                    any |= v.0;
                }
                Ok(AnyPositive(any))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<AnyPositive, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(AnyPositive(false))
            }
            fn visit_unit<E>(self) -> Result<AnyPositive, E> {
                Ok(AnyPositive(false))
            }
            // Any other shape is no count: it never costs the line its usage.
            fn visit_str<E>(self, _: &str) -> Result<AnyPositive, E> {
                Ok(AnyPositive(false))
            }
            fn visit_bool<E>(self, _: bool) -> Result<AnyPositive, E> {
                Ok(AnyPositive(false))
            }
            fn visit_i64<E>(self, _: i64) -> Result<AnyPositive, E> {
                Ok(AnyPositive(false))
            }
            fn visit_u64<E>(self, _: u64) -> Result<AnyPositive, E> {
                Ok(AnyPositive(false))
            }
            fn visit_f64<E>(self, _: f64) -> Result<AnyPositive, E> {
                Ok(AnyPositive(false))
            }
        }
        d.deserialize_any(V)
    }
}

/// One value of `server_tool_use`: true when it is a number above 0.
struct Count(bool);

impl<'de> Deserialize<'de> for Count {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = IgnoredOrNumber::deserialize(d)?;
        Ok(Count(v.0 > 0.0))
    }
}

struct IgnoredOrNumber(f64);

impl<'de> Deserialize<'de> for IgnoredOrNumber {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = IgnoredOrNumber;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any value")
            }
            fn visit_u64<E>(self, n: u64) -> Result<IgnoredOrNumber, E> {
                Ok(IgnoredOrNumber(n as f64))
            }
            fn visit_i64<E>(self, n: i64) -> Result<IgnoredOrNumber, E> {
                Ok(IgnoredOrNumber(n as f64))
            }
            fn visit_f64<E>(self, n: f64) -> Result<IgnoredOrNumber, E> {
                Ok(IgnoredOrNumber(n))
            }
            fn visit_str<E>(self, _: &str) -> Result<IgnoredOrNumber, E> {
                Ok(IgnoredOrNumber(0.0))
            }
            fn visit_bool<E>(self, _: bool) -> Result<IgnoredOrNumber, E> {
                Ok(IgnoredOrNumber(0.0))
            }
            fn visit_unit<E>(self) -> Result<IgnoredOrNumber, E> {
                Ok(IgnoredOrNumber(0.0))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<IgnoredOrNumber, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(IgnoredOrNumber(0.0))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<IgnoredOrNumber, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(IgnoredOrNumber(0.0))
            }
        }
        d.deserialize_any(V)
    }
}

/// `usage.iterations`: whether an entry has `type: "compaction"` (server-side
/// compaction ran for this response, SPEC §10).
#[derive(Default)]
struct HasCompaction(bool);

impl<'de> Deserialize<'de> for HasCompaction {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Iteration<'a> {
            #[serde(rename = "type", borrow, default)]
            kind: Option<Cow<'a, str>>,
        }
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = HasCompaction;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a list of iterations")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<HasCompaction, A::Error> {
                let mut any = false;
                while let Some(it) = seq.next_element::<&'de serde_json::value::RawValue>()? {
                    any |= raw::object::<Iteration>(Some(it))
                        .is_some_and(|i| i.kind.as_deref() == Some("compaction"));
                }
                Ok(HasCompaction(any))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<HasCompaction, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(HasCompaction(false))
            }
            fn visit_unit<E>(self) -> Result<HasCompaction, E> {
                Ok(HasCompaction(false))
            }
            // Any other shape is no count: it never costs the line its usage.
            fn visit_str<E>(self, _: &str) -> Result<HasCompaction, E> {
                Ok(HasCompaction(false))
            }
            fn visit_bool<E>(self, _: bool) -> Result<HasCompaction, E> {
                Ok(HasCompaction(false))
            }
            fn visit_i64<E>(self, _: i64) -> Result<HasCompaction, E> {
                Ok(HasCompaction(false))
            }
            fn visit_u64<E>(self, _: u64) -> Result<HasCompaction, E> {
                Ok(HasCompaction(false))
            }
            fn visit_f64<E>(self, _: f64) -> Result<HasCompaction, E> {
                Ok(HasCompaction(false))
            }
        }
        d.deserialize_any(V)
    }
}

pub(in crate::load) fn usage(v: Raw<'_>) -> Option<Usage> {
    let u: RawUsage = serde_json::from_str(v?.get()).ok()?;
    Some(Usage {
        input_tokens: u.input_tokens.unwrap_or(0),
        cache_creation_input_tokens: u.cache_creation_input_tokens.unwrap_or(0),
        cache_read_input_tokens: u.cache_read_input_tokens.unwrap_or(0),
        output_tokens: u.output_tokens.unwrap_or(0),
        cache_creation: raw::object::<RawCacheCreation>(u.cache_creation).map(|c| CacheCreation {
            ephemeral_5m_input_tokens: c.ephemeral_5m_input_tokens.unwrap_or(0),
            ephemeral_1h_input_tokens: c.ephemeral_1h_input_tokens.unwrap_or(0),
        }),
        cache_deleted_input_tokens: u.cache_deleted_input_tokens,
        aggregated: u.server_tool_use.0,
        server_compaction: u.iterations.0,
    })
}

/// `message.context_management.applied_edits`, verbatim (unknown edit types
/// included); None when the response does not record it.
pub(super) fn applied_edits(v: Raw<'_>) -> Option<Vec<serde_json::Value>> {
    #[derive(Deserialize)]
    struct Cm<'a> {
        #[serde(borrow, default)]
        applied_edits: Raw<'a>,
    }
    let cm: Cm = raw::object(v)?;
    let edits = cm.applied_edits?;
    serde_json::from_str::<Vec<serde_json::Value>>(edits.get()).ok()
}

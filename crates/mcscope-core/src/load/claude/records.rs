//! The shapes of a Claude Code line as the loader reads them: typed structs that
//! borrow what they keep, and visitors that measure tool outputs as the parser
//! meets them.

use super::*;

#[derive(Deserialize, Default)]
#[cfg_attr(test, derive(Debug))]
pub(super) struct Line<'a> {
    #[serde(rename = "type", borrow, default)]
    pub(super) kind: Option<crate::load::raw::Str<'a>>,
    #[serde(borrow, default)]
    pub(super) subtype: Raw<'a>,
    #[serde(rename = "isSidechain", borrow, default)]
    pub(super) sidechain: Raw<'a>,
    #[serde(rename = "isMeta", borrow, default)]
    pub(super) meta: Raw<'a>,
    #[serde(borrow, default)]
    pub(super) timestamp: Raw<'a>,
    #[serde(borrow, default)]
    pub(super) cwd: Raw<'a>,
    #[serde(borrow, default)]
    pub(super) message: Option<Msg<'a>>,
    #[serde(rename = "agentId", borrow, default)]
    pub(super) agent_id: Raw<'a>,
    #[serde(borrow, default)]
    pub(super) replacements: Raw<'a>,
    #[serde(rename = "microcompactMetadata", borrow, default)]
    pub(super) microcompact: Raw<'a>,
    #[serde(borrow, default)]
    pub(super) uuid: Raw<'a>,
    /// Some when the key is there (its value None when null or not a string
    /// value): SPEC §15.2 looks at the first record that has the key.
    #[serde(
        rename = "parentUuid",
        borrow,
        default,
        deserialize_with = "super::raw::present"
    )]
    pub(super) parent_uuid: Option<Raw<'a>>,
    #[serde(borrow, default)]
    pub(super) version: Raw<'a>,
    #[serde(rename = "requestId", borrow, default)]
    pub(super) request_id: Raw<'a>,
    #[serde(rename = "sessionId", borrow, default)]
    pub(super) session_id: Raw<'a>,
    #[serde(borrow, default)]
    pub(super) attachment: Raw<'a>,
    /// A `progress` record's payload (SPEC §16.B6 reads its SessionStart hooks).
    #[serde(borrow, default)]
    pub(super) data: Raw<'a>,
    /// How Claude Code was started (`cli`, `sdk-ts`, …): SPEC §13.P reads it.
    #[serde(borrow, default)]
    pub(super) entrypoint: Raw<'a>,
    /// SPEC §13.S1: a return needs a reply with one of these before it.
    #[serde(rename = "apiBlockIndex", borrow, default)]
    pub(super) api_block_index: Raw<'a>,
    #[serde(rename = "joinedApiReply", borrow, default)]
    pub(super) joined_api_reply: Raw<'a>,
    /// A compact summary's kept calls (SPEC §17.C.U4).
    #[serde(rename = "isCompactSummary", borrow, default)]
    pub(super) compact_summary: Raw<'a>,
    #[serde(rename = "earlierMessages", borrow, default)]
    pub(super) earlier_messages: Raw<'a>,
}

#[derive(Deserialize)]
#[cfg_attr(test, derive(Debug))]
pub(in crate::load) struct Msg<'a> {
    #[serde(borrow, default)]
    pub id: Raw<'a>,
    #[serde(borrow, default)]
    pub model: Raw<'a>,
    #[serde(borrow, default)]
    pub content: Option<Content<'a>>,
    #[serde(borrow, default)]
    pub usage: Raw<'a>,
    #[serde(borrow, default)]
    pub context_management: Raw<'a>,
}

/// `message.content` or `tool_result.content`: a string (measured) or blocks.
#[cfg_attr(test, derive(Debug))]
pub(in crate::load) enum Content<'a> {
    Text(Measure),
    Blocks(Vec<Block<'a>>),
    Other,
}

#[derive(Deserialize)]
#[cfg_attr(test, derive(Debug))]
pub(in crate::load) struct Block<'a> {
    #[serde(rename = "type", borrow, default)]
    pub(super) kind: Option<crate::load::raw::Str<'a>>,
    #[serde(borrow, default)]
    pub(super) id: Raw<'a>,
    #[serde(borrow, default)]
    pub(super) name: Raw<'a>,
    #[serde(borrow, default)]
    pub(super) input: Option<Input<'a>>,
    #[serde(borrow, default)]
    pub(super) tool_use_id: Raw<'a>,
    #[serde(borrow, default)]
    pub(super) content: Option<Content<'a>>,
    #[serde(borrow, default)]
    pub(super) is_error: Raw<'a>,
    #[serde(default)]
    pub(super) text: Option<Measure>,
}

/// `tool_use.input`: only what plans and people need; an input of another shape
/// (not an object) is simply no input.
#[derive(Default)]
#[cfg_attr(test, derive(Debug))]
pub(in crate::load) struct Input<'a> {
    pub(super) file_path: Raw<'a>,
    pub(super) summary: Raw<'a>,
}

#[derive(Deserialize)]
pub(super) struct Replacement<'a> {
    #[serde(rename = "toolUseId", borrow, default)]
    pub(super) tool_use_id: Raw<'a>,
    #[serde(rename = "replacement", borrow, default)]
    pub(super) text: Raw<'a>,
}

/// The size of a text, taken while parsing: UTF-16 units, and whether it is the
/// placeholder (SPEC §2).
#[derive(Debug, Clone, Copy, Default)]
pub(in crate::load) struct Measure {
    pub chars: u64,
    pub media: u32,
    pub est_tokens: u64,
    pub placeholder: bool,
    /// A string, or only `text` and `image` blocks (SPEC §13.E1 condition 3).
    pub plain: bool,
}

impl Measure {
    pub(super) fn of_text(s: &str) -> Measure {
        let chars = raw::utf16_len_str(s);
        Measure {
            chars,
            media: 0,
            est_tokens: CLAUDE.text_tokens.of(chars),
            placeholder: s == PLACEHOLDER,
            plain: true,
        }
    }
}

impl<'de> Deserialize<'de> for Measure {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Measure;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_str<E>(self, s: &str) -> Result<Measure, E> {
                Ok(Measure::of_text(s))
            }
            fn visit_unit<E>(self) -> Result<Measure, E> {
                Ok(Measure::default())
            }
        }
        d.deserialize_str(V)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Content<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Content<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string or an array of blocks")
            }
            fn visit_str<E>(self, s: &str) -> Result<Content<'de>, E> {
                Ok(Content::Text(Measure::of_text(s)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Content<'de>, A::Error> {
                let mut blocks = Vec::new();
                while let Some(b) = seq.next_element::<Block<'de>>()? {
                    blocks.push(b);
                }
                Ok(Content::Blocks(blocks))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Content<'de>, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Content::Other)
            }
            fn visit_unit<E>(self) -> Result<Content<'de>, E> {
                Ok(Content::Other)
            }
            fn visit_bool<E>(self, _: bool) -> Result<Content<'de>, E> {
                Ok(Content::Other)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Content<'de>, E> {
                Ok(Content::Other)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Content<'de>, E> {
                Ok(Content::Other)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Content<'de>, E> {
                Ok(Content::Other)
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Input<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Input<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a tool input")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Input<'de>, A::Error> {
                let mut input = Input::default();
                let mut summary_rank = usize::MAX;
                // Keys borrowed from the line (serde's `Cow` key allocated each).
                while let Some(key) = map.next_key::<crate::load::raw::Str<'de>>()? {
                    // For people: the command, else the pattern, url, query or path.
                    let rank = ["command", "pattern", "url", "query", "path"]
                        .iter()
                        .position(|k| *k == &*key);
                    match (&*key, rank) {
                        ("file_path", _) => input.file_path = map.next_value()?,
                        (_, Some(r)) if r < summary_rank => {
                            input.summary = map.next_value()?;
                            summary_rank = r;
                        }
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(input)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Input<'de>, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Input::default())
            }
            fn visit_str<E>(self, _: &str) -> Result<Input<'de>, E> {
                Ok(Input::default())
            }
            fn visit_unit<E>(self) -> Result<Input<'de>, E> {
                Ok(Input::default())
            }
            fn visit_bool<E>(self, _: bool) -> Result<Input<'de>, E> {
                Ok(Input::default())
            }
            fn visit_i64<E>(self, _: i64) -> Result<Input<'de>, E> {
                Ok(Input::default())
            }
            fn visit_u64<E>(self, _: u64) -> Result<Input<'de>, E> {
                Ok(Input::default())
            }
            fn visit_f64<E>(self, _: f64) -> Result<Input<'de>, E> {
                Ok(Input::default())
            }
        }
        d.deserialize_any(V)
    }
}

/// A hook's names in a `progress` record's `data` or an `attachment` (SPEC
/// §16.B6).
#[derive(Deserialize)]
pub(super) struct Hook<'a> {
    #[serde(rename = "hookEvent", borrow, default)]
    pub(super) event: Raw<'a>,
    #[serde(rename = "hookName", borrow, default)]
    pub(super) name: Raw<'a>,
}

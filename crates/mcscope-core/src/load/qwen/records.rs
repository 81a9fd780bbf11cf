//! The shapes of a Qwen Code line as the loader reads them: typed structs that
//! borrow what they keep.

use super::*;

#[derive(Deserialize)]
pub(super) struct Line<'a> {
    #[serde(rename = "type", borrow, default)]
    pub(super) kind: Raw<'a>,
    #[serde(borrow, default)]
    pub(super) subtype: Raw<'a>,
    #[serde(rename = "isSidechain", borrow, default)]
    pub(super) sidechain: Raw<'a>,
    #[serde(borrow, default)]
    pub(super) timestamp: Raw<'a>,
    #[serde(borrow, default)]
    pub(super) cwd: Raw<'a>,
    #[serde(borrow, default)]
    pub(super) model: Raw<'a>,
    #[serde(borrow, default)]
    pub(super) message: Raw<'a>,
    #[serde(rename = "usageMetadata", borrow, default)]
    pub(super) usage: Raw<'a>,
    #[serde(rename = "systemPayload", borrow, default)]
    pub(super) payload: Raw<'a>,
    #[serde(borrow, default)]
    pub(super) version: Raw<'a>,
    /// Records copied by `/branch`: never the start of a process segment.
    #[serde(rename = "forkedFrom", borrow, default)]
    pub(super) forked: Raw<'a>,
    #[serde(rename = "deliveredTurn", borrow, default)]
    pub(super) delivered: Raw<'a>,
    #[serde(borrow, default)]
    pub(super) uuid: Raw<'a>,
    #[serde(rename = "parentUuid", borrow, default)]
    pub(super) parent_uuid: Raw<'a>,
}

#[derive(Deserialize)]
pub(super) struct Content<'a> {
    #[serde(borrow, default)]
    pub(super) role: Raw<'a>,
    #[serde(borrow, default)]
    pub(super) parts: Raw<'a>,
}

#[derive(Deserialize)]
pub(super) struct PartFields<'a> {
    #[serde(rename = "functionCall", borrow, default)]
    pub(super) call: Raw<'a>,
    #[serde(rename = "functionResponse", borrow, default)]
    pub(super) response: Raw<'a>,
    #[serde(rename = "inlineData", borrow, default)]
    pub(super) inline_data: Raw<'a>,
    #[serde(rename = "fileData", borrow, default)]
    pub(super) file_data: Raw<'a>,
}

#[derive(Deserialize)]
pub(super) struct Call<'a> {
    #[serde(borrow, default)]
    pub(super) id: Raw<'a>,
    #[serde(borrow, default)]
    pub(super) name: Raw<'a>,
    #[serde(borrow, default)]
    pub(super) args: Raw<'a>,
}

#[derive(Deserialize)]
pub(super) struct Args<'a> {
    /// A bridged call's target tool, and its arguments (`tool_call`).
    #[serde(borrow, default)]
    pub(super) name: Raw<'a>,
    #[serde(borrow, default)]
    pub(super) arguments: Raw<'a>,
    #[serde(borrow, default)]
    pub(super) file_path: Raw<'a>,
    #[serde(borrow, default)]
    pub(super) absolute_path: Raw<'a>,
    #[serde(borrow, default)]
    pub(super) command: Raw<'a>,
    #[serde(borrow, default)]
    pub(super) pattern: Raw<'a>,
    #[serde(borrow, default)]
    pub(super) url: Raw<'a>,
    #[serde(borrow, default)]
    pub(super) query: Raw<'a>,
    #[serde(borrow, default)]
    pub(super) path: Raw<'a>,
}

#[derive(Deserialize)]
pub(super) struct Response<'a> {
    #[serde(borrow, default)]
    pub(super) id: Raw<'a>,
    #[serde(borrow, default)]
    pub(super) name: Raw<'a>,
    #[serde(borrow, default)]
    pub(super) response: Raw<'a>,
    #[serde(borrow, default)]
    pub(super) parts: Raw<'a>,
}

#[derive(Deserialize)]
pub(super) struct ResponseBody<'a> {
    #[serde(borrow, default)]
    pub(super) output: Raw<'a>,
    /// Any `error` key makes an error, `"error": null` included (microcompact.ts
    /// tests `'error' in response`).
    #[serde(default)]
    pub(super) error: raw::Present,
}

#[derive(Deserialize)]
pub(super) struct InlineData<'a> {
    #[serde(rename = "mimeType", borrow, default)]
    pub(super) mime: Raw<'a>,
}

/// The mime type of a media part (`inlineData` or `fileData`), if it is one.
pub(super) fn media_mime(f: &PartFields<'_>) -> Option<String> {
    let data = raw::object::<InlineData>(f.inline_data)
        .or_else(|| raw::object::<InlineData>(f.file_data))?;
    Some(raw::owned(data.mime).unwrap_or_else(|| "application/octet-stream".into()))
}

/// `usageMetadata`, each counter borrowed as written and read by
/// [`fields::count`] (an odd one is named in a warning, never read as 0).
#[derive(Deserialize, Default)]
pub(super) struct RawUsage<'a> {
    #[serde(rename = "promptTokenCount", borrow, default)]
    pub(super) prompt: Raw<'a>,
    #[serde(rename = "candidatesTokenCount", borrow, default)]
    pub(super) candidates: Raw<'a>,
    #[serde(rename = "cachedContentTokenCount", borrow, default)]
    pub(super) cached: Raw<'a>,
}

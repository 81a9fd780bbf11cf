//! Groups records into messages, responses and requests (SPEC §2), shared by all
//! loaders so that every format follows the same rules.

use crate::session::{
    Diagnostic, Format, Media, Message, Part, Request, Role, Session, ToolCall, ToolResult, Usage,
};
use std::path::Path;

/// What both harnesses write in place of a cleared tool result.
pub const PLACEHOLDER: &str = crate::harness::CLEARED;

#[derive(Clone)]
pub(super) struct Builder {
    pub s: Session,
    segment: usize,
    view_start: usize,
    /// Timestamp of the last assistant record in the current view (Claude) / anywhere (Qwen).
    last_assistant_in_view: Option<i64>,
    last_assistant_any: Option<i64>,
    /// Whether the last non-meta user-role record held a tool result.
    last_user_had_result: Option<bool>,
    /// The message index of the most recent real response, with its id.
    last_response: Option<(usize, Option<String>)>,
    /// The `version` of the last main-thread record that carried one.
    last_version: Option<String>,
    /// The `parentUuid` links of the main thread (SPEC §2 rewinds).
    pub(super) tree: super::branches::Tree,
    /// The message the current record joined, and its response group.
    touched: Option<(usize, Option<super::branches::Key>)>,
    /// The `entrypoint` of the last main-thread record that carried one.
    last_entrypoint: Option<String>,
    /// Each user content is a message of its own (Gemini CLI's history keeps
    /// its contents apart), never joined to the one before.
    pub(super) separate_users: bool,
    /// SPEC §16.B5's now: the timestamp of the last main-thread user,
    /// attachment, system or progress record (set by the Claude loader).
    pub(super) last_send_ms: Option<i64>,
}

pub(super) struct UserRecord<'a> {
    pub part: Part,
    pub ts: Option<&'a str>,
    pub line: usize,
    pub is_meta: bool,
    pub has_tool_result: bool,
}

pub(super) struct AssistantRecord<'a> {
    pub part: Part,
    pub ts: Option<&'a str>,
    pub line: usize,
    /// The texts are borrowed: a response streamed over several records
    /// repeats them, and the message keeps one copy.
    pub response_id: Option<&'a str>,
    pub request_id: Option<&'a str>,
    pub model: Option<&'a str>,
    pub usage: Option<Usage>,
    pub applied_edits: Option<Vec<serde_json::Value>>,
    pub context_client: Option<crate::session::ContextClient>,
    pub parent_uuid: Option<&'a str>,
}

impl Builder {
    pub(super) fn new(path: &Path, format: Format) -> Builder {
        Builder {
            s: Session::empty(path.to_path_buf(), format),
            segment: 0,
            view_start: 0,
            last_assistant_in_view: None,
            last_assistant_any: None,
            last_user_had_result: None,
            last_response: None,
            last_version: None,
            last_entrypoint: None,
            tree: super::branches::Tree {
                claude: format.harness().rules().unmarked_forks,
                ..Default::default()
            },
            touched: None,
            separate_users: false,
            last_send_ms: None,
        }
    }

    /// Notes a main-thread record's link, after the record was applied.
    pub(super) fn link(
        &mut self,
        uuid: Option<super::branches::Key>,
        parent: Option<super::branches::Key>,
    ) {
        let touched = self.touched.take();
        if let Some(uuid) = uuid {
            let (msg, group) = touched.map_or((None, None), |(m, g)| (Some(m), g));
            self.tree.nodes.push(super::branches::Node {
                uuid,
                parent,
                msg,
                group,
            });
        }
    }

    /// A main-thread record carried `version`: later requests report it.
    /// Written only when it changed: most records repeat it.
    pub(super) fn version(&mut self, version: Option<&str>) {
        set_changed(&mut self.last_version, version);
    }

    /// A main-thread record carried `entrypoint`: later requests report it.
    pub(super) fn entrypoint(&mut self, entrypoint: Option<&str>) {
        set_changed(&mut self.last_entrypoint, entrypoint);
    }

    /// The view segment records are going to now.
    pub(super) fn segment(&self) -> usize {
        self.segment
    }

    /// A compaction boundary: the view of later requests starts here.
    pub(super) fn begin_segment(&mut self) {
        self.segment += 1;
        self.view_start = self.s.messages.len();
        self.last_assistant_in_view = None;
        self.last_response = None;
    }

    /// Index the next user-role record goes to (creating the message if needed).
    pub(super) fn user(&mut self, r: UserRecord<'_>) -> usize {
        let ts_ms = r.ts.and_then(super::raw::timestamp_ms);
        let idx = match self.s.messages.last() {
            // compressedHistory entries are messages of their own, not records.
            Some(m)
                if m.role == Role::User
                    && !self.separate_users
                    && !m.synthetic
                    && m.segment == self.segment
                    && self.s.messages.len() > self.view_start =>
            {
                self.s.messages.len() - 1
            }
            _ => {
                self.s.messages.push(Message {
                    role: Role::User,
                    // Most messages are one record: room for one part, not
                    // the four a first push makes (issue 41 item 5's RSS).
                    parts: Vec::with_capacity(1),
                    segment: self.segment,
                    first_line: r.line,
                    last_ts: None,
                    last_ts_text: None,
                    response_id: None,
                    request_id: None,
                    model: None,
                    usage: None,
                    applied_edits: None,
                    first_parent_uuid: None,
                    synthetic: false,
                    context_client: None,
                });
                self.s.messages.len() - 1
            }
        };
        let m = &mut self.s.messages[idx];
        m.parts.push(r.part);
        // The last record decides: one without a usable timestamp makes it unknown.
        m.last_ts = ts_ms;
        m.last_ts_text = ts_ms.and(r.ts.map(str::to_string));
        if !r.is_meta {
            self.last_user_had_result = Some(r.has_tool_result);
        }
        let group = r
            .has_tool_result
            .then(|| self.last_response.as_ref().and_then(|x| x.1.as_deref()))
            .flatten()
            .map(super::branches::hash);
        self.touched = Some((idx, group));
        idx
    }

    /// Whether an assistant record of `response_id` joins the last response
    /// (the same `message.id`) rather than starting one.
    pub(super) fn joins_response(&self, response_id: Option<&str>) -> bool {
        matches!((&self.last_response, response_id), (Some((_, Some(last))), Some(id)) if last == id)
    }

    /// `ts`, or the last message's time in the view when it is later: the
    /// time of messages put in after records that came later than them.
    pub(super) fn ts_not_before(&self, ts: Option<&str>) -> Option<String> {
        let own = ts.and_then(|t| Some((super::raw::timestamp_ms(t)?, t.to_string())));
        let last = self
            .s
            .messages
            .last()
            .filter(|_| self.s.messages.len() > self.view_start)
            .and_then(|m| Some((m.last_ts?, m.last_ts_text.clone()?)));
        match (own, last) {
            (Some(a), Some(b)) if b.0 > a.0 => Some(b.1),
            (a, b) => a.or(b).map(|x| x.1),
        }
    }

    /// An assistant record: a new response unless it shares the last response's id.
    pub(super) fn assistant(&mut self, r: AssistantRecord<'_>) -> usize {
        let ts_ms = r.ts.and_then(super::raw::timestamp_ms);
        let merge = match (&self.last_response, r.response_id) {
            (Some((_, Some(last))), Some(id)) => last == id,
            _ => false,
        };
        let idx = if merge {
            self.last_response.as_ref().map(|x| x.0).unwrap_or_default()
        } else {
            self.new_request(Some(self.s.messages.len()));
            if let Some(at) = self.s.bill_marks.first_at.last_mut() {
                *at = r.ts.map(str::to_string);
            }
            self.s.messages.push(Message {
                role: Role::Assistant,
                parts: Vec::with_capacity(1),
                segment: self.segment,
                first_line: r.line,
                last_ts: None,
                last_ts_text: None,
                response_id: r.response_id.map(str::to_string),
                request_id: None,
                model: None,
                usage: None,
                applied_edits: None,
                first_parent_uuid: r.parent_uuid.map(str::to_string),
                synthetic: false,
                context_client: None,
            });
            let idx = self.s.messages.len() - 1;
            self.last_response = Some((idx, r.response_id.map(str::to_string)));
            idx
        };
        let m = &mut self.s.messages[idx];
        m.parts.push(r.part);
        // The gap is measured from the last assistant record: unknown if its
        // timestamp is (Claude Code's `new Date(...)` gives NaN, which never fires).
        m.last_ts = ts_ms;
        m.last_ts_text = ts_ms.and(r.ts.map(str::to_string));
        self.last_assistant_in_view = ts_ms;
        self.last_assistant_any = ts_ms;
        // Usage is taken once, from the last line of the group (SPEC §2).
        if r.usage.is_some() {
            m.usage = r.usage.map(Box::new);
        }
        // The last record's.
        set_changed(&mut m.model, r.model);
        set_changed(&mut m.request_id, r.request_id);
        if r.applied_edits.is_some() {
            m.applied_edits = r.applied_edits;
        }
        if r.context_client.is_some() {
            m.context_client = r.context_client.map(Box::new);
        }
        self.touched = Some((idx, r.response_id.map(super::branches::hash)));
        idx
    }

    /// A message rebuilt from Qwen's `compressedHistory`: in the view, not a response.
    pub(super) fn inline(
        &mut self,
        role: Role,
        part: Part,
        ts: Option<&str>,
        line: usize,
    ) -> usize {
        self.s.messages.push(Message {
            role,
            parts: vec![part],
            segment: self.segment,
            first_line: line,
            last_ts: ts.and_then(super::raw::timestamp_ms),
            last_ts_text: ts.map(str::to_string),
            response_id: None,
            request_id: None,
            model: None,
            usage: None,
            applied_edits: None,
            first_parent_uuid: None,
            synthetic: true,
            context_client: None,
        });
        self.s.messages.len() - 1
    }

    pub(super) fn call(&mut self, call: ToolCall) {
        self.s.calls.push(call);
    }

    pub(super) fn result(&mut self, result: ToolResult) {
        self.s.results.push(result);
    }

    pub(super) fn media(&mut self, msg: usize, part: usize, mime: String) {
        self.s.media.push(Media { msg, part, mime });
    }

    fn new_request(&mut self, response: Option<usize>) {
        let end = self.s.messages.len();
        let before = end
            .checked_sub(1)
            .filter(|&i| i >= self.view_start)
            .map(|i| &self.s.messages[i]);
        let now_ms = before.and_then(|m| m.last_ts);
        let at = before.and_then(|m| m.last_ts_text.clone());
        let last_assistant = match self.s.harness.rules().gap_from {
            crate::harness::GapFrom::LastReplyInView => self.last_assistant_in_view,
            crate::harness::GapFrom::LastReply => self.last_assistant_any,
        };
        let gap_minutes = match (now_ms, last_assistant) {
            (Some(now), Some(prev)) => Some((now - prev) as f64 / 60_000.0),
            _ => None,
        };
        self.s.requests.push(Request {
            index: self.s.requests.len() + 1,
            response,
            view_start: self.view_start,
            end,
            segment: self.segment,
            at,
            now_ms,
            gap_minutes,
            begins_turn: self.last_user_had_result != Some(true),
            send: None,
            version: self.last_version.clone(),
            dead: Vec::new(),
            entrypoint: self.last_entrypoint.clone(),
            plan_recorded: false,
        });
        self.tree.leaves.push(self.tree.nodes.len());
        let marks = &mut self.s.bill_marks;
        marks.sent_ms.push(self.last_send_ms);
        marks.first_at.push(None);
    }

    /// Ends the load: user content after the last response is one more request.
    pub(super) fn finish(mut self, diagnostics: Vec<Diagnostic>) -> Session {
        let trailing = self
            .s
            .messages
            .last()
            .is_some_and(|m| m.role == Role::User && self.s.messages.len() > self.view_start);
        if trailing {
            self.new_request(None);
        }
        let tree = std::mem::take(&mut self.tree);
        tree.apply(&mut self.s.requests, self.s.messages.len());
        self.s.model = self.s.responses().filter_map(|m| m.model.clone()).last();
        self.s.diagnostics = diagnostics;
        self.s
    }
}

/// `slot` takes `text` when there is one, written (allocated) only where it
/// differs: most records repeat what the last one said.
fn set_changed(slot: &mut Option<String>, text: Option<&str>) {
    if let Some(t) = text
        && slot.as_deref() != Some(t)
    {
        *slot = Some(t.to_string());
    }
}

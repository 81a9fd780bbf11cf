//! A generated session written as a Claude or Qwen transcript, with its model built alongside.

use super::*;

impl Model {
    fn new(qwen: bool) -> Model {
        Model {
            qwen,
            t: common::T0,
            seg_start: vec![0],
            ..Model::default()
        }
    }

    fn segment(&self) -> usize {
        self.seg_start.len() - 1
    }

    /// One record written `minutes` after the previous one (as the builders do).
    fn tick(&mut self, minutes: f64) -> i64 {
        self.t += (minutes * 60_000.0) as i64 + 1000;
        self.t
    }

    /// A compact_boundary record: the view of later requests starts after it.
    fn boundary(&mut self) {
        self.tick(0.0);
        self.seg_start.push(self.msgs.len());
    }

    /// A user-role record: joins the previous user message of the same segment.
    fn user(&mut self, is_prompt: bool, minutes: f64) -> usize {
        let ts = self.tick(minutes);
        let segment = self.segment();
        match self.msgs.last_mut() {
            Some(m) if m.user && m.segment == segment => {
                m.last_is_prompt = is_prompt;
                m.last_ts = ts;
            }
            _ => self.msgs.push(MMsg {
                user: true,
                segment,
                last_ts: ts,
                last_is_prompt: is_prompt,
            }),
        }
        self.msgs.len() - 1
    }

    /// The first line of a new response.
    fn assistant(&mut self) -> usize {
        let ts = self.tick(0.0);
        let segment = self.segment();
        self.msgs.push(MMsg {
            user: false,
            segment,
            last_ts: ts,
            last_is_prompt: false,
        });
        self.msgs.len() - 1
    }

    /// Another line of response `a` (same `message.id`).
    fn assistant_line(&mut self, a: usize) {
        let ts = self.tick(0.0);
        self.msgs[a].last_ts = ts;
    }

    pub(super) fn finish(&mut self) {
        let mut ends: Vec<usize> = (0..self.msgs.len())
            .filter(|&i| !self.msgs[i].user)
            .collect();
        if self.msgs.last().is_some_and(|m| m.user) {
            ends.push(self.msgs.len());
        }
        self.reqs = ends.into_iter().map(|end| self.request(end)).collect();
    }

    /// The request that sends messages before `end` (SPEC §2).
    fn request(&self, end: usize) -> MReq {
        let before = &self.msgs[end - 1];
        let view_start = self.seg_start[before.segment];
        // claude: the last response in the view; qwen: anywhere earlier.
        let from = if self.qwen { 0 } else { view_start };
        let prev = (from..end)
            .rev()
            .find(|&i| !self.msgs[i].user)
            .map(|i| self.msgs[i].last_ts);
        MReq {
            view_start,
            end,
            segment: before.segment,
            begins_turn: before.last_is_prompt,
            gap_minutes: prev.map(|p| (before.last_ts - p) as f64 / 60_000.0),
        }
    }

    pub(super) fn compactable(&self, tool: &str) -> bool {
        let list = if self.qwen {
            QWEN_COMPACTABLE
        } else {
            CLAUDE_COMPACTABLE
        };
        list.contains(&tool)
    }

    pub(super) fn read_tool(&self) -> &'static str {
        if self.qwen { "read_file" } else { "Read" }
    }

    pub(super) fn file_path_tool(&self, tool: &str) -> bool {
        let list = if self.qwen {
            QWEN_FILE_PATH
        } else {
            CLAUDE_FILE_PATH
        };
        list.contains(&tool)
    }
}

fn claude_tool(t: u8) -> &'static str {
    match t {
        0..=3 => "Read",
        4 | 5 => "Bash",
        6 => "Grep",
        7 => "Edit",
        8 => "TodoWrite",
        _ => "mcp__x",
    }
}

fn qwen_tool(t: u8) -> &'static str {
    match t {
        0..=3 | 7 => "read_file",
        4 | 5 => "run_shell_command",
        6 => "grep_search",
        _ => "todo_write",
    }
}

fn input(tool: &str, path: Option<&str>) -> Value {
    match tool {
        "Read" | "read_file" => json!({"file_path": path}),
        "Edit" => json!({"file_path": path, "old_string": "a", "new_string": "b"}),
        "Bash" | "run_shell_command" => json!({"command": "make test"}),
        "Grep" | "grep_search" => json!({"pattern": "fn main"}),
        "TodoWrite" | "todo_write" => json!({"todos": []}),
        _ => json!({"q": "x"}),
    }
}

/// Paths inside the memory root (existing, missing, through `..`), escaping it by
/// `..`, absolute elsewhere, and relative to the record's cwd (`/repo`).
fn path_for(kind: u8, n: usize, mem: &Path) -> String {
    let mem = mem.display();
    match kind % 6 {
        0 => format!("{mem}/note{n}.md"),
        1 => format!("{mem}/sub/missing{n}.md"),
        2 => format!("{mem}/sub/../note{n}.md"),
        3 => format!("{mem}/../outside{n}.md"),
        4 => format!("/repo/src/f{n}.rs"),
        _ => format!("src/f{n}.rs"),
    }
}

fn content_of(call: &GenCall) -> String {
    let unit = match call.charset % 4 {
        0 => "x",
        1 => "ab\n",
        2 => "é",
        _ => "😀",
    };
    let mut s = String::new();
    let mut units = 0;
    for ch in unit.chars().cycle() {
        let w = ch.len_utf16();
        if units + w > call.size {
            break;
        }
        s.push(ch);
        units += w;
    }
    s
}

/// Picks the id of a call: fresh, or one of an earlier response (never twice in
/// one response).
fn next_id(
    call: &GenCall,
    earlier: &[String],
    this_step: &[String],
    fresh: &mut usize,
    prefix: &str,
) -> String {
    if let Some(x) = call.reuse
        && !earlier.is_empty()
    {
        let id = &earlier[x as usize % earlier.len()];
        if !this_step.contains(id) {
            return id.clone();
        }
    }
    *fresh += 1;
    format!("{prefix}{fresh:02}")
}

pub(super) fn write_claude(sess: &GenSession, mem: &Path) -> (Vec<String>, Model) {
    let mut c = Claude::default();
    let mut m = Model::new(false);
    let mut fresh = 0;
    let mut earlier: Vec<String> = Vec::new();
    let boundary = sess.boundary_turn();
    for (ti, turn) in sess.turns.iter().enumerate() {
        if Some(ti) == boundary {
            c.boundary();
            m.boundary();
            m.user(true, 0.0);
        }
        c.prompt(&format!("prompt {ti}"), turn.gap as f64);
        m.user(true, turn.gap as f64);
        for (si, step) in turn.steps.iter().enumerate() {
            let a = m.msgs.len();
            let mut calls: Vec<(String, &'static str, Value)> = Vec::new();
            let mut this_step: Vec<String> = Vec::new();
            for call in &step.calls {
                let id = next_id(call, &earlier, &this_step, &mut fresh, "toolu_");
                this_step.push(id.clone());
                let tool = claude_tool(call.tool);
                let path = matches!(tool, "Read" | "Edit")
                    .then(|| path_for(call.path, m.calls.len(), mem));
                calls.push((id.clone(), tool, input(tool, path.as_deref())));
                m.calls.push(MCall {
                    id,
                    tool,
                    path,
                    msg: a,
                });
            }
            let msg_id = format!("msg_{ti}_{si}");
            let interleave = step.interleave && calls.len() > 1;
            if !interleave {
                let refs: Vec<(&str, &str, Value)> = calls
                    .iter()
                    .map(|(i, t, v)| (i.as_str(), *t, v.clone()))
                    .collect();
                c.calls(&msg_id, &refs);
                assert_eq!(m.assistant(), a);
                for _ in 1..calls.len() {
                    m.assistant_line(a);
                }
            }
            for (j, (call, (id, tool, inp))) in step.calls.iter().zip(&calls).enumerate() {
                if interleave {
                    c.calls(&msg_id, &[(id.as_str(), *tool, inp.clone())]);
                    if j == 0 {
                        assert_eq!(m.assistant(), a);
                    } else {
                        m.assistant_line(a);
                    }
                }
                if call.missing && j > 0 {
                    continue;
                }
                let content = if call.placeholder {
                    PLACEHOLDER.to_string()
                } else {
                    content_of(call)
                };
                c.result_full(id, json!(content), call.error, call.delay as f64);
                let u = m.user(false, call.delay as f64);
                m.results.push(MRes {
                    id: id.clone(),
                    tool,
                    chars: utf16(&content),
                    error: call.error,
                    placeholder: call.placeholder,
                    msg: u,
                });
            }
            for id in this_step {
                if !earlier.contains(&id) {
                    earlier.push(id);
                }
            }
        }
        if turn.answer || ti + 1 < sess.turns.len() {
            c.answer(&format!("answer {ti}"));
            m.assistant();
        }
    }
    if let Some(g) = sess.trailing {
        c.prompt("and now?", g as f64);
        m.user(true, g as f64);
    }
    (c.lines, m)
}

pub(super) fn write_qwen(sess: &GenSession, mem: &Path) -> (Vec<String>, Model) {
    let mut q = Qwen::default();
    let mut m = Model::new(true);
    let mut fresh = 0;
    let mut earlier: Vec<String> = Vec::new();
    for (ti, turn) in sess.turns.iter().enumerate() {
        q.prompt(&format!("prompt {ti}"), turn.gap as f64);
        m.user(true, turn.gap as f64);
        for step in &turn.steps {
            let a = m.msgs.len();
            let mut calls: Vec<(String, &'static str, Value)> = Vec::new();
            let mut this_step: Vec<String> = Vec::new();
            for call in &step.calls {
                let id = next_id(call, &earlier, &this_step, &mut fresh, "call_");
                this_step.push(id.clone());
                let tool = qwen_tool(call.tool);
                let path = (tool == "read_file").then(|| path_for(call.path, m.calls.len(), mem));
                calls.push((id.clone(), tool, input(tool, path.as_deref())));
                m.calls.push(MCall {
                    id,
                    tool,
                    path,
                    msg: a,
                });
            }
            let refs: Vec<(&str, &str, Value)> = calls
                .iter()
                .map(|(i, t, v)| (i.as_str(), *t, v.clone()))
                .collect();
            q.calls(&refs);
            assert_eq!(m.assistant(), a);
            for (j, (call, (id, tool, _))) in step.calls.iter().zip(&calls).enumerate() {
                if call.missing && j > 0 {
                    continue;
                }
                let chars = if call.error {
                    q.error(id, tool, "boom: the tool failed");
                    0
                } else if call.placeholder {
                    q.result(id, tool, PLACEHOLDER);
                    utf16(PLACEHOLDER)
                } else {
                    let content = content_of(call);
                    q.result(id, tool, &content);
                    utf16(&content)
                };
                let u = m.user(false, 0.0);
                m.results.push(MRes {
                    id: id.clone(),
                    tool,
                    chars,
                    error: call.error,
                    placeholder: call.placeholder,
                    msg: u,
                });
            }
            for id in this_step {
                if !earlier.contains(&id) {
                    earlier.push(id);
                }
            }
        }
        if turn.answer || ti + 1 < sess.turns.len() {
            q.answer(&format!("answer {ti}"));
            m.assistant();
        }
    }
    if let Some(g) = sess.trailing {
        q.prompt("and now?", g as f64);
        m.user(true, g as f64);
    }
    (q.lines, m)
}

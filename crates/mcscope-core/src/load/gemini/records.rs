//! The message records as Gemini CLI's reader holds them, and their history as
//! the contents it sends.

use super::*;

/// The model history of the message records, as `GeminiChat` holds it
/// (`convertSessionToClientHistory` for the legacy layouts, reference §1.3):
/// a `gemini` record whose content has no call or thought part takes its
/// calls from `toolCalls`, and their results follow in a user content unless
/// a user record holds them (each result once, by its id, §5.3).
///
/// Each record is taken as its value, and a record read from a line of the
/// file as is keeps only where that line is: its values move into the
/// contents, never copied (one output may be hundreds of MB).
fn history(
    file: Option<&std::fs::File>,
    records: &mut [(String, Rec, usize)],
) -> Vec<Vec<Content>> {
    let values: Vec<Value> = records.iter_mut().map(|(_, r, _)| r.take(file)).collect();
    let in_users: HashSet<String> = values
        .iter()
        .filter(|r| r.get("type").and_then(Value::as_str) == Some("user"))
        .flat_map(|r| content_parts(r.get("content")))
        .filter_map(|p| p.get("functionResponse").map(id_of))
        .collect();
    let mut all = Vec::with_capacity(records.len());
    for ((_, rec, line), mut r) in records.iter().zip(values) {
        let mut out = Vec::new();
        // Where a content made of this line alone is read back from.
        let src = |make| rec.span().map(|(offset, len)| (offset, len, make));
        let ts = r
            .get("timestamp")
            .and_then(Value::as_str)
            .map(str::to_string);
        let line = *line;
        match r.get("type").and_then(Value::as_str) {
            Some("user") => out.push(Content {
                role: Role::User,
                parts: owned_parts(r.get_mut("content").map(Value::take)),
                ts,
                line,
                src: src(user_body as MakeBody),
            }),
            Some("gemini") => {
                let (model, results) = owned_model_content(r);
                out.push(Content {
                    role: Role::Assistant,
                    parts: model,
                    ts: ts.clone(),
                    line,
                    src: src(model_body as MakeBody),
                });
                let results: Vec<Value> = results
                    .into_iter()
                    .filter(|p| {
                        p.get("functionResponse")
                            .is_none_or(|fr| !in_users.contains(&id_of(fr)))
                    })
                    .collect();
                if !results.is_empty() {
                    // Which results it holds depends on the other records:
                    // this body is kept, not read back.
                    out.push(Content {
                        role: Role::User,
                        parts: results,
                        ts,
                        line,
                        src: None,
                    });
                }
            }
            // The binary-injection turn rides on an `info` record.
            Some("info") => {
                let parts = owned_parts(r.get_mut("content").map(Value::take));
                if parts
                    .iter()
                    .any(|p| p.get("inlineData").is_some() || p.get("fileData").is_some())
                {
                    out.push(Content {
                        role: Role::User,
                        parts,
                        ts,
                        line,
                        src: src(user_body as MakeBody),
                    });
                }
            }
            _ => {}
        }
        all.push(out);
    }
    all
}

/// A message record as [`Records`] holds it: parsed until its history is
/// converted, then (when it was read from a line of the file as is) only
/// where that line is, read and parsed again should it be converted again (a
/// rewrite, a rewind, a new view). A long session's records are not all held
/// parsed at once (issue 41 item 5's peak RSS).
pub(super) enum Rec {
    /// The record, and where in the file its line's JSON is (offset, length)
    /// when it parsed from there as is.
    Parsed(Value, Option<(u64, usize)>),
    Line(u64, usize),
}

impl Rec {
    pub(super) fn new(v: Value, at: Option<(u64, usize)>) -> Rec {
        Rec::Parsed(v, at)
    }

    pub(super) fn value(&self, file: Option<&std::fs::File>) -> std::borrow::Cow<'_, Value> {
        match self {
            Rec::Parsed(v, _) => std::borrow::Cow::Borrowed(v),
            // The line parsed when it was read; the same bytes parse the same.
            Rec::Line(offset, len) => std::borrow::Cow::Owned(
                file.and_then(|f| {
                    let buf = crate::load::read_span(f, *offset, *len).ok()?;
                    serde_json::from_slice(&buf).ok()
                })
                .unwrap_or(Value::Null),
            ),
        }
    }

    /// Where the record's line is in the file (offset, length), when it
    /// parsed from there as is.
    fn span(&self) -> Option<(u64, usize)> {
        match *self {
            Rec::Parsed(_, at) => at,
            Rec::Line(offset, len) => Some((offset, len)),
        }
    }

    /// The record as a value of its own: a record parsed from its line
    /// gives its value up and keeps only where the line is; one read from
    /// its line is parsed again; one with no line (a checkpoint's) is copied.
    fn take(&mut self, file: Option<&std::fs::File>) -> Value {
        match self {
            Rec::Parsed(v, Some((offset, len))) => {
                let (offset, len) = (*offset, *len);
                let v = std::mem::take(v);
                *self = Rec::Line(offset, len);
                v
            }
            Rec::Parsed(v, None) => v.clone(),
            Rec::Line(..) => self.value(file).into_owned(),
        }
    }

    fn compact(&mut self) {
        if let Rec::Parsed(_, Some((offset, len))) = *self {
            *self = Rec::Line(offset, len);
        }
    }
}

/// The message records as the harness's reader holds them (a repeated id
/// replaces in place), and their history converted so far: converting only
/// what changed since the last request keeps a long session linear.
#[derive(Default)]
pub(super) struct Records {
    /// The file the lines are read again from (None: a whole record).
    pub(super) file: Option<std::fs::File>,
    pub(super) list: Vec<(String, Rec, usize)>,
    pub(super) index: HashMap<String, usize>,
    /// The history of `list[..starts.len()]`, and where each record's
    /// contents begin in it.
    pub(super) conv: Vec<Content>,
    pub(super) starts: Vec<usize>,
}

impl Records {
    /// Writes a message record; true when it replaced one of the same id.
    pub(super) fn set(&mut self, id: &str, v: Rec, line: usize) -> bool {
        match self.index.get(id) {
            Some(&i) => {
                self.list[i] = (id.to_string(), v, line);
                self.dirty(i);
                true
            }
            None => {
                self.index.insert(id.to_string(), self.list.len());
                self.list.push((id.to_string(), v, line));
                false
            }
        }
    }

    /// `$rewindTo`: that message and every one after it go.
    pub(super) fn truncate(&mut self, at: usize) {
        self.list.truncate(at);
        self.reindex();
        self.dirty(at);
    }

    /// A checkpoint: the list is rebuilt.
    pub(super) fn rebuild(&mut self, list: Vec<(String, Rec, usize)>) {
        self.list = list;
        self.reindex();
        self.dirty(0);
    }

    pub(super) fn reindex(&mut self) {
        self.index = self
            .list
            .iter()
            .enumerate()
            .map(|(i, (id, _, _))| (id.clone(), i))
            .collect();
    }

    /// Record `i` changed: its history and what follows are converted again.
    pub(super) fn dirty(&mut self, i: usize) {
        if i < self.starts.len() {
            self.conv.truncate(self.starts[i]);
            self.starts.truncate(i);
        }
    }

    /// Brings the builder to the history of `list[..end]`, then keeps of it
    /// only what the next request compares (the builder holds the content).
    pub(super) fn bring(&mut self, rp: &mut Replay, end: usize) {
        let mut from = self.history(end);
        if !rp.sync(&mut self.conv, from) {
            // A new view is built from the whole history: convert it again.
            self.dirty(0);
            self.history(end);
            rp.new_view(&mut self.conv);
            from = 0;
        }
        for c in &mut self.conv[from..] {
            c.parts = Vec::new();
        }
    }

    /// The history of `list[..end]` (in `conv`), and the first content of it
    /// that may differ from the history last asked for.
    pub(super) fn history(&mut self, end: usize) -> usize {
        self.dirty(end);
        let from = self.conv.len();
        let first = self.starts.len();
        for contents in history(self.file.as_ref(), &mut self.list[first..end]) {
            self.starts.push(self.conv.len());
            self.conv.extend(contents);
        }
        for (_, r, _) in self.list.iter_mut().take(end).skip(first) {
            r.compact();
        }
        from
    }
}

/// [`model_content`] of a record it owns: its values move, not copied.
pub(super) fn owned_model_content(mut r: Value) -> (Vec<Value>, Vec<Value>) {
    let mut model = owned_parts(r.get_mut("content").map(Value::take));
    let modern = model.iter().any(|p| {
        p.get("functionCall").is_some() || p.get("thought").and_then(Value::as_bool) == Some(true)
    });
    let mut results = Vec::new();
    if modern {
        return (model, results);
    }
    if let Some(Value::Array(calls)) = r.get_mut("toolCalls") {
        for tc in calls.iter_mut() {
            let mut take = |k: &str| tc.get_mut(k).map(Value::take);
            let call = object([
                ("id", take("id").unwrap_or(Value::Null)),
                ("name", take("name").unwrap_or(Value::Null)),
                ("args", take("args").unwrap_or(json!({}))),
            ]);
            model.push(object([("functionCall", call)]));
            results.extend(owned_parts(take("result")));
        }
    }
    (model, results)
}

/// A `gemini` record's model content and, for a legacy record, the results
/// its `toolCalls` carry ([`owned_model_content`] of a copy of the two keys
/// it reads).
pub(super) fn model_content(r: &Value) -> (Vec<Value>, Vec<Value>) {
    let read: serde_json::Map<String, Value> = ["content", "toolCalls"]
        .into_iter()
        .filter_map(|k| Some((k.to_string(), r.get(k)?.clone())))
        .collect();
    owned_model_content(Value::Object(read))
}

//! The pieces every text form shares: the header with its caveats, aligned
//! tables, status glyphs and the words for a request's kind.

use super::*;

/// The header of every text form; `kinds` are the plan kinds in force (the
/// caveats and the default keep_recent follow them). `keep_used`: the JSON
/// policy's `keep_recent` over the same requests (SPEC §15.6), which says the
/// keep `idle-server` used when its version gave every request the same one.
pub(super) fn header(
    setup: &Setup,
    kinds: &[PlanKind],
    keep_used: Option<u32>,
    caveats: &[Caveat],
    out: &mut String,
) {
    let s = &setup.session;
    let p = &setup.policy;
    let _ = writeln!(
        out,
        "{}  ({}, {} records, {} requests{})",
        sanitize::path(&s.path),
        s.format.name(),
        s.records,
        s.requests.len(),
        if s.diagnostics.is_empty() {
            String::new()
        } else {
            format!(", {} diagnostics", s.diagnostics.len())
        }
    );
    if s.subagent_what_if {
        let _ = writeln!(
            out,
            "note: a sub-agent transcript, planned as a what-if: the harnesses never microcompact sub-agents"
        );
    }
    if s.sidechain_records > 0 {
        let _ = writeln!(out, "note: {}", left_out(s));
    }
    if p.kind.is_api() {
        api::header(p, out);
    } else if p.kind.is_baseline() {
        let _ = writeln!(
            out,
            "policy: recorded (preset {}): what the transcript proves the harness cleared, read from its records (the baseline)",
            p.preset_name()
        );
    } else if let Some(own) = [
        Some(p.kind),
        kinds.first().copied().filter(|_| kinds.len() == 1),
        // Where auto chose none: the harness's own plan.
        p.preset.rules().offers.grid_kinds.first().copied(),
    ]
    .into_iter()
    .flatten()
    .find_map(|k| k.shown(p))
    {
        // A harness's own plan reads only its own parameters (SPEC §15.13).
        let _ = writeln!(
            out,
            "policy: {}{} (preset {})  {}  delivery {}",
            p.kind.name(),
            chosen(p, kinds),
            p.preset.name(),
            own.iter()
                .map(|o| format!("{}{}{}", o.before, o.value, o.after))
                .collect::<Vec<_>>()
                .join("  "),
            p.delivery.name(),
        );
    } else {
        settings_line(setup, kinds, keep_used, out);
    }
    // A kind in force may add a line of its own (budget's budget and gates).
    for line in kinds.iter().filter_map(|k| k.header(p)) {
        let _ = writeln!(out, "{line}");
    }
    let files: Vec<String> = [
        ("sidecar", &setup.settings.sidecar_path),
        ("config", &setup.settings.config.path),
    ]
    .iter()
    .filter_map(|(what, p)| p.as_ref().map(|p| format!("{what} {}", sanitize::path(p))))
    .collect();
    if !files.is_empty() {
        let _ = writeln!(out, "settings read from: {}", files.join(", "));
    }
    caveats_text(caveats, out);
    for d in &s.diagnostics {
        let _ = writeln!(
            out,
            "diagnostic: line {} (byte {}): {}",
            d.line,
            d.byte_offset,
            sanitize::line(&d.message)
        );
    }
    for w in &s.warnings {
        let at = w.line.map_or(String::new(), |l| format!("line {l}: "));
        let _ = writeln!(out, "warning ({}): {at}{}", w.id, sanitize::line(&w.text));
    }
}

/// Under auto, the kinds it chose (` -> idle/size`); else nothing.
fn chosen(p: &crate::policy::Policy, kinds: &[PlanKind]) -> String {
    match kinds {
        [_, ..] if p.kind.is_auto() => {
            let names: Vec<&str> = kinds.iter().map(|k| k.name()).collect();
            format!(" -> {}", names.join("/"))
        }
        _ => String::new(),
    }
}

/// The policy line of the plans that share Claude Code's settings (keep, gap,
/// size, trigger): under auto, what was given and what the chosen kinds read.
fn settings_line(setup: &Setup, kinds: &[PlanKind], keep_used: Option<u32>, out: &mut String) {
    let p = &setup.policy;
    // Under auto the header names what was given and what the chosen
    // kinds read, as the JSON policy object does (SPEC §15.6 gives the
    // others null); an explicit kind, or auto where none was chosen, shows
    // every setting.
    let shows = |key: &str| {
        !p.kind.is_auto()
            || kinds.is_empty()
            || super::kinds::explicit(setup, key)
            || kinds.iter().any(|k| k.reads(key, p.preset))
    };
    let gap = match kinds {
        // A kind with a gap of its own (idle-server's 65 minutes, SPEC §13.S1).
        [k] => fmt_num(k.gap(p)),
        _ => fmt_num(p.gap_threshold_minutes),
    };
    let gap = match shows("gap_threshold_minutes") {
        true => format!("  gap >= {gap} min"),
        false => String::new(),
    };
    let size = match shows("size_threshold") {
        true => format!(
            "  size > {}{}",
            p.size_threshold,
            if p.low_watermark {
                " (low watermark)"
            } else {
                ""
            }
        ),
        false => String::new(),
    };
    let trigger = match shows("trigger_threshold") {
        true => format!("  trigger {}", p.trigger_threshold),
        false => String::new(),
    };
    let _ = writeln!(
        out,
        "policy: {}{} (preset {})  keep_recent {}{gap}{size}{trigger}  delivery {}  protect {}",
        p.kind.name(),
        chosen(p, kinds),
        p.preset.name(),
        match keep_recent_of(p, kinds).or(keep_used) {
            Some(k) => k.to_string(),
            None => "by kind (idle 5, budget 3, idle-server 5/12 by version)".into(),
        },
        delivery_words(p, kinds),
        if p.protect { "on" } else { "off" },
    );
}

/// The delivery the kinds in force run with: the server's where it alone
/// delivers them all, the server's for those it does alongside the policy's.
fn delivery_words(p: &crate::policy::Policy, kinds: &[PlanKind]) -> String {
    let server: Vec<&str> = kinds
        .iter()
        .filter(|k| k.server_only())
        .map(|k| k.name())
        .collect();
    if server.is_empty() {
        p.delivery.name().into()
    } else if server.len() == kinds.len() {
        "server".into()
    } else {
        format!("server for {}", server.join(", "))
    }
}

/// The caveats in words, one a line.
fn caveats_text(list: &[Caveat], out: &mut String) {
    for c in list {
        let _ = writeln!(out, "caveat ({}): {}", c.id, c.text);
    }
}

/// The rows of a text table, their cells kept end to end in one text: a long
/// session's timeline is tens of thousands of rows of a dozen cells, and a
/// `String` for each cell was most of the text timeline's memory (issue 41
/// item 5).
#[derive(Debug, Clone, Default)]
pub struct Rows {
    text: String,
    /// Where each cell ends in `text`.
    cells: Vec<usize>,
    /// Where each row ends in `cells`.
    rows: Vec<usize>,
}

impl Rows {
    /// A table whose first row is `titles`.
    pub fn with_titles<S: AsRef<str>>(titles: impl IntoIterator<Item = S>) -> Rows {
        let mut rows = Rows::default();
        rows.push(titles);
        rows
    }

    /// Adds a row of `cells`.
    pub fn push<S: AsRef<str>>(&mut self, cells: impl IntoIterator<Item = S>) {
        for c in cells {
            self.text.push_str(c.as_ref());
            self.cells.push(self.text.len());
        }
        self.rows.push(self.cells.len());
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Row `i`'s cells.
    pub fn row(&self, i: usize) -> Row<'_> {
        let from = if i == 0 { 0 } else { self.rows[i - 1] };
        Row {
            rows: self,
            from,
            to: self.rows[i],
        }
    }

    /// Every row, in order.
    pub fn iter(&self) -> impl Iterator<Item = Row<'_>> {
        (0..self.len()).map(|i| self.row(i))
    }
}

/// One row of [`Rows`].
#[derive(Debug, Clone, Copy)]
pub struct Row<'a> {
    rows: &'a Rows,
    from: usize,
    to: usize,
}

impl<'a> Row<'a> {
    pub fn len(&self) -> usize {
        self.to - self.from
    }

    pub fn is_empty(&self) -> bool {
        self.to == self.from
    }

    /// Cell `i`, if the row has it.
    pub fn get(&self, i: usize) -> Option<&'a str> {
        let c = self.from + i;
        if c >= self.to {
            return None;
        }
        let start = if c == 0 { 0 } else { self.rows.cells[c - 1] };
        self.rows.text.get(start..self.rows.cells[c])
    }

    /// The row's cells, in order.
    pub fn cells(&self) -> impl Iterator<Item = &'a str> + use<'a> {
        let row = *self;
        (0..row.len()).filter_map(move |i| row.get(i))
    }
}

/// A table with aligned columns; the last column is left unpadded.
pub fn table(rows: &Rows, right: &[bool]) -> String {
    table_in(rows, right, &column_widths(rows))
}

/// [`table`], written at the end of `out` (a long table is not held twice).
pub fn table_to(out: &mut String, rows: &Rows, right: &[bool]) {
    write_table(out, rows, right, &column_widths(rows));
}

/// The width of each column of `rows` (as [`table`] pads them).
pub fn column_widths(rows: &Rows) -> Vec<usize> {
    let cols = rows.iter().map(|r| r.len()).max().unwrap_or(0);
    let mut widths = vec![0; cols];
    for r in rows.iter() {
        for (i, c) in r.cells().enumerate() {
            widths[i] = widths[i].max(sanitize::line(c).chars().count());
        }
    }
    widths
}

/// [`table`] with the columns `widths` wide (a wider cell pushes the rest of
/// its row right), so rows printed later line up under earlier ones
/// (`timeline --follow`).
pub fn table_in(rows: &Rows, right: &[bool], widths: &[usize]) -> String {
    let mut out = String::new();
    write_table(&mut out, rows, right, widths);
    out
}

fn write_table(out: &mut String, rows: &Rows, right: &[bool], widths: &[usize]) {
    for r in rows.iter() {
        let mut line = String::new();
        let last = r.len();
        for (i, c) in r.cells().enumerate() {
            // Every cell is a one-line field: an id or a path from the transcript
            // can never forge a row.
            let c = &*sanitize::line(c);
            if i > 0 {
                line.push_str("  ");
            }
            let pad = widths
                .get(i)
                .copied()
                .unwrap_or(0)
                .saturating_sub(c.chars().count());
            if i + 1 == last {
                line.push_str(c);
            } else if right.get(i).copied().unwrap_or(false) {
                line.push_str(&" ".repeat(pad));
                line.push_str(c);
            } else {
                line.push_str(c);
                line.push_str(&" ".repeat(pad));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
}

/// The glyph that marks a status, readable without colour.
pub fn glyph(st: Status) -> &'static str {
    match st {
        Status::Kept => "·",
        Status::Cleared => "✗",
        Status::Protected => "◆",
        Status::AlreadyCleared => "○",
        Status::Cut => "◌",
        Status::ErrorKept => "!",
        Status::NotCompactable => "-",
    }
}

pub(super) fn shorten(s: &str, max: usize) -> String {
    let s = &*sanitize::line(s);
    if s.chars().count() <= max {
        return s.to_string();
    }
    let tail: String = s
        .chars()
        .rev()
        .take(max - 1)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    format!("…{tail}")
}

/// What kind of request this is, in words: a Qwen send kind, else turn or loop.
pub fn turn_words(req: &crate::session::Request) -> String {
    match &req.send {
        Some(send) => format!(
            "{}: {}",
            send.kind.name(),
            crate::report::words::send_words(send.kind)
        ),
        None if req.begins_turn => "begins a turn".into(),
        None => "continues a tool loop".into(),
    }
}

/// Sub-agent records are never silently absent (SPEC §2): how many records and
/// tool calls the simulation left out, and why.
pub fn left_out(s: &Session) -> String {
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    format!(
        "{} sub-agent record{} ({} tool call{}) left out of the simulation: the harnesses never microcompact sub-agents",
        fmt_int(s.sidechain_records as u64),
        plural(s.sidechain_records),
        fmt_int(s.sidechain_calls as u64),
        plural(s.sidechain_calls)
    )
}

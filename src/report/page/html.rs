//! The page as one self-contained HTML file (SPEC §12, like §9's report): no
//! external resource, no script; every transcript string HTML-escaped; the
//! original content folded in a `<details>`.

use super::*;
use crate::sanitize::html_escape as escape;

const STYLE: &str = "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:24px;color:#1b1b1b;background:#fff;max-width:1100px}
h1{font-size:1.4em;margin:0 0 .4em;overflow-wrap:anywhere}h2{font-size:1.12em;margin:1.4em 0 .4em}
p,li{line-height:1.45}.muted{color:#666}dt{font-weight:600}dd{margin:0 0 .4em 1.2em;overflow-wrap:anywhere}
table{border-collapse:collapse;font-size:.92em}th,td{padding:3px 10px;border-bottom:1px solid #e3e3e3;text-align:left;vertical-align:top}
th{background:#f4f4f4}td.req{white-space:nowrap;font-variant-numeric:tabular-nums}
td.cleared{color:#b3261e}td.protected{color:#1e6fb3}
pre{background:#f6f6f6;border:1px solid #e3e3e3;padding:8px;white-space:pre-wrap;overflow-wrap:anywhere;max-height:40em;overflow:auto}
summary{cursor:pointer;font-weight:600}.same{font-weight:600}";

/// The page as HTML.
pub fn page_html(p: &Page) -> String {
    let mut o = String::new();
    let title = format!("mcscope explain — {}", p.result.id);
    let _ = write!(
        o,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\
         <title>{}</title><style>{STYLE}</style></head><body>\n",
        escape(&title)
    );
    let _ = writeln!(o, "<h1>{}</h1>", escape(&title));
    let _ = writeln!(
        o,
        "<dl id=\"about\"><dt>Session</dt><dd id=\"session\">{} — {}</dd>",
        escape(&p.session.path),
        escape(&session_words(&p.session))
    );
    let _ = writeln!(
        o,
        "<dt>Result</dt><dd id=\"result\">{} — {}{} — {}{}</dd></dl>",
        escape(&p.result.id),
        escape(p.result.tool.as_deref().unwrap_or("tool unknown")),
        p.result
            .target
            .as_deref()
            .map_or(String::new(), |t| format!(" {}", escape(t))),
        escape(&size_words(&p.result)),
        if p.result.call_in_file {
            ""
        } else {
            " — its call is not in the file"
        }
    );
    let _ = writeln!(o, "<h2>Verdict</h2>");
    if p.records.is_empty() {
        let _ = writeln!(
            o,
            "<p id=\"records\">No record of the transcript names it.</p>"
        );
    } else {
        let _ = writeln!(o, "<p>What the transcript proves:</p><ul id=\"records\">");
        for r in &p.records {
            let _ = writeln!(
                o,
                "<li data-line=\"{}\">line {}, {}{}: {}</li>",
                r.line,
                r.line,
                escape(r.kind),
                r.request
                    .map_or(String::new(), |k| format!(" (request {k})")),
                escape(&r.words)
            );
        }
        let _ = writeln!(o, "</ul>");
    }
    let _ = writeln!(o, "<p id=\"fate\">{}</p>", escape(&fate_words(p)));
    if let Some(w) = could_run_words(p) {
        let _ = writeln!(o, "<p id=\"could-run\">{}</p>", escape(&w));
    }
    if !p.runs.is_empty() {
        let _ = writeln!(
            o,
            "<h2>Status at every request</h2>\n<table id=\"status\"><thead><tr><th>Requests</th><th>Status</th><th>Reason</th></tr></thead><tbody>"
        );
        for r in &p.runs {
            let _ = writeln!(
                o,
                "<tr data-from=\"{}\" data-to=\"{}\"><td class=\"req\">{}</td><td class=\"{}\">{} {}</td><td>{}</td></tr>",
                r.from,
                r.to,
                escape(&r.requests()),
                r.status,
                escape(r.glyph),
                r.status,
                escape(&r.reason)
            );
        }
        let _ = writeln!(o, "</tbody></table>");
    }
    if let Some(f) = &p.first_cleared {
        let _ = writeln!(o, "<h2>Where it first left the wire</h2>");
        let _ = writeln!(o, "<p>{}</p>", escape(&instead_words(f)));
        if let Instead::Text(t) = &f.instead {
            let _ = writeln!(o, "<pre id=\"instead\">{}</pre>", escape(t));
        }
        if f.next_calls.is_empty() {
            let _ = writeln!(o, "<p>The model made no tool call after it.</p>");
        } else {
            let _ = writeln!(
                o,
                "<p>The model's next tool calls:</p><ul id=\"next-calls\">"
            );
            for c in &f.next_calls {
                let class = if c.same { " class=\"same\"" } else { "" };
                let _ = writeln!(o, "<li{class}>{}</li>", escape(&call_words(c)));
            }
            let _ = writeln!(o, "</ul>");
        }
        let _ = writeln!(o, "<p id=\"later-used\">{}</p>", escape(&later_words(f)));
    }
    if !p.levers.is_empty() {
        let _ = writeln!(o, "<h2>What you can change</h2><ul id=\"levers\">");
        for l in &p.levers {
            let _ = writeln!(o, "<li>{}</li>", escape(l));
        }
        let _ = writeln!(o, "</ul>");
    }
    let _ = writeln!(o, "<h2>Original content</h2>");
    match &p.content {
        Some(t) => {
            let _ = writeln!(
                o,
                "<details id=\"content\"><summary>show the {} characters the transcript holds</summary><pre>{}</pre></details>",
                fmt_int(t.chars().count() as u64),
                escape(t)
            );
        }
        None => {
            let _ = writeln!(o, "<p>No request's view holds it: not shown.</p>");
        }
    }
    let _ = writeln!(
        o,
        "<p class=\"muted\">Made by mcscope {} (<code>mcscope explain --format html</code>).</p>\n</body></html>",
        env!("CARGO_PKG_VERSION")
    );
    o
}

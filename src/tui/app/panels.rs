//! What the panels show and do: explain, a result's content, the clipboard,
//! the input lines' Enter, the export (asking before it replaces a file).

use super::*;

impl SessionView {
    /// The observed breaks of the session's own file the bill lists (SPEC
    /// §16.S, the `$` panel), in request order; empty while it is counted.
    pub fn bill_breaks(&self) -> Vec<&crate::bill::report::BreakRow> {
        let Some(t) = &self.totals else {
            return Vec::new();
        };
        let path = self.setup.session.path.display().to_string();
        t.bill
            .breaks
            .iter()
            .filter(|b| b.path == path && b.request.is_some())
            .collect()
    }

    pub(super) fn explain_selected(&mut self) {
        let Some(id) = self.selected_id() else {
            self.status = Some("no result selected".into());
            return;
        };
        if let Some(explain) = analysis::explain(&self.setup, &id, self.k) {
            self.overlay = Some(Overlay::Explain { explain, scroll: 0 });
        }
    }

    /// `E` outside a panel: the page of the selected result.
    pub(super) fn export_selected_page(&mut self) {
        let Some(id) = self.selected_id() else {
            self.status = Some("no result selected".into());
            return;
        };
        if let Some(explain) = analysis::explain(&self.setup, &id, self.k) {
            self.open_page_export(explain);
        }
    }

    /// The export line for the page of `explain` (SPEC §12), Markdown by default.
    pub(super) fn open_page_export(&mut self, explain: Explain) {
        let stem = self.file_stem();
        // The id from the transcript, cut to what is safe in a file name.
        let id: String = explain
            .tool_use_id
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-'))
            .take(48)
            .collect();
        self.overlay = Some(Overlay::Export(format!("{stem}-{id}-explain.md")));
        self.page_export = Some(explain);
    }

    fn file_stem(&self) -> String {
        self.setup
            .session
            .path
            .file_stem()
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_else(|| "session".into())
    }

    pub(super) fn default_export_path(&self) -> String {
        format!("{}-request{}-wire.json", self.file_stem(), self.k)
    }

    /// Enter in an input line: keep the search (n/N repeat it), run the command,
    /// or write the export.
    pub(super) fn submit(&mut self) {
        match self.overlay.take() {
            Some(Overlay::Search(q)) => {
                if q.is_empty() {
                    self.search = None;
                } else {
                    self.find(&q, 0);
                    self.search = Some(q);
                }
            }
            Some(Overlay::Command(c)) => self.run_command(&c),
            Some(Overlay::Export(path)) => self.submit_export(path),
            other => self.overlay = other,
        }
    }

    /// Puts `text` on the clipboard (the event loop sends it with OSC 52).
    pub(super) fn copy(&mut self, text: String) {
        let what = if text.contains('\n') {
            format!("{} lines", text.lines().count())
        } else {
            text.clone()
        };
        self.status = Some(format!(
            "copied {what} (OSC 52: to the terminal's clipboard)"
        ));
        self.clipboard = Some(text);
    }

    /// Opens the selected result's full content as the local request holds it:
    /// what the model lost when it was cleared.
    pub(super) fn view_content(&mut self) {
        let Some(id) = self.selected_id() else {
            self.status = Some("no result selected".into());
            return;
        };
        match analysis::result_content(&self.setup, self.k, &id, crate::wire::Side::Local) {
            Ok(text) => {
                let c = &self.plan.candidates[self.selected];
                let title = crate::sanitize::joined(
                    [
                        id.as_str(),
                        c.tool.as_deref().unwrap_or("?"),
                        c.path.as_deref().or(c.summary.as_deref()).unwrap_or(""),
                    ],
                    "  ",
                );
                self.overlay = Some(Overlay::Content {
                    title,
                    // A multi-line view: escapes and invisible characters shown.
                    lines: text
                        .lines()
                        .map(|l| crate::sanitize::text(l).into_owned())
                        .collect(),
                    scroll: 0,
                });
            }
            Err(e) => {
                self.status = Some(format!("cannot show {}: {e}", crate::sanitize::line(&id)))
            }
        }
    }

    /// Enter on the export line: a refused target says why, an existing
    /// file asks first, anything else is written.
    fn submit_export(&mut self, path: String) {
        match crate::export::check(Path::new(&path), &self.reading()) {
            Err(e) => self.status = Some(format!("export failed: {}", e.in_tui())),
            Ok(dest) if dest.exists() => {
                self.status = Some(format!("{} exists", dest.display()));
                self.overlay = Some(Overlay::ConfirmExport(path));
            }
            Ok(_) => self.write_export(Path::new(&path)),
        }
    }

    /// A key on the "replace it?" line: y writes, anything else keeps the file.
    pub(super) fn confirm_export(&mut self, path: String, replace: bool) {
        if replace {
            self.write_export(Path::new(&path));
        } else {
            self.page_export = None;
            self.status = Some(format!("export cancelled: {path} kept as it was"));
        }
    }

    fn write_export(&mut self, path: &Path) {
        if let Some(explain) = self.page_export.take() {
            self.status = Some(match self.export_page(&explain, path) {
                Ok(p) => format!(
                    "wrote the explain page of {} to {}",
                    crate::sanitize::line(&explain.tool_use_id),
                    p.display()
                ),
                Err(e) => format!("export failed: {e}"),
            });
            return;
        }
        self.status = Some(match self.export(path) {
            Ok(p) => format!(
                "wrote the wire payload of request {} to {}",
                self.k,
                p.display()
            ),
            Err(e) => format!("export failed: {e}"),
        });
    }

    /// Writes the page of `explain` through the one writer, Markdown or HTML by
    /// the file's extension, replacing an existing file without asking (Enter
    /// on the export line asks first). The session is named `~/…` as the CLI's
    /// page names it by default.
    pub fn export_page(&mut self, explain: &Explain, path: &Path) -> Result<PathBuf, String> {
        // The evidence computed in the background when it is there, else now.
        let computed;
        let evidence = match &self.evidence {
            Some(report) => &report.evidence,
            None => {
                computed = analysis::evidence(&self.setup);
                &computed
            }
        };
        let format = crate::report::page::PageFormat::of_path(path);
        let text = crate::report::page::render(&self.setup, explain, evidence, format, false);
        crate::export::write(path, &self.reading(), text.as_bytes()).map_err(|e| e.in_tui())
    }

    /// What the view reads: its session, the sidecar, the config.
    fn reading(&self) -> crate::export::Reading {
        crate::export::Reading::config().session(&self.setup.session.path)
    }

    /// Writes the wire payload through the one writer (atomic, never over what
    /// it reads nor under a harness's folders), replacing an existing file
    /// without asking: Enter on the export line asks first.
    pub fn export(&mut self, path: &Path) -> Result<PathBuf, String> {
        // A diff still computing in the background holds the wire text.
        self.wait_background();
        let reading = self.reading();
        let text = self.wire_json();
        crate::export::write_with(path, &reading, |out| {
            out.write_all(text.as_bytes())?;
            out.write_all(b"\n")
        })
        .map_err(|e| e.in_tui())
    }
}

//! Windows paths as text (SPEC §4 "Sessions recorded on Windows"): parsed,
//! normalized and compared lexically, never looked up on this machine.

/// A Windows absolute path (SPEC §4: `X:\…`, `X:/…` or `\\server\share\…`), kept
/// as text and normalized lexically with Windows rules: `\` and `/` both separate,
/// `.` and `..` are folded (never above the drive or share), and comparisons ignore
/// case. It is never looked up on this machine.
#[derive(Debug, Clone)]
pub struct WinPath {
    /// `C:` (the drive letter upper-cased) or `\\server\share`.
    root: String,
    pub(super) parts: Vec<String>,
}

impl WinPath {
    /// The normalized Windows path `s` names, when `s` is a Windows absolute path.
    /// `\\?\C:\…` and `\\?\UNC\server\share\…` (long-path forms) are accepted too.
    pub fn parse(s: &str) -> Option<WinPath> {
        let is_sep = |c: char| c == '\\' || c == '/';
        if let Some(rest) = s
            .strip_prefix("\\\\?\\")
            .or_else(|| s.strip_prefix("\\\\.\\"))
        {
            return match rest.get(..4) {
                Some(unc) if unc.eq_ignore_ascii_case("UNC\\") => {
                    WinPath::parse(&format!("\\\\{}", &rest[4..]))
                }
                _ => WinPath::parse(rest),
            };
        }
        let b = s.as_bytes();
        if b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && is_sep(b[2] as char) {
            let root = format!("{}:", (b[0] as char).to_ascii_uppercase());
            return Some(WinPath::with_parts(root, &s[3..]));
        }
        let rest = s.strip_prefix("\\\\")?;
        let mut it = rest.split(is_sep).filter(|c| !c.is_empty());
        let server = it.next()?;
        let root = match it.next() {
            Some(share) => format!("\\\\{server}\\{share}"),
            None => format!("\\\\{server}"),
        };
        let tail: Vec<&str> = it.collect();
        Some(WinPath::with_parts(root, &tail.join("\\")))
    }

    fn with_parts(root: String, rel: &str) -> WinPath {
        let mut w = WinPath {
            root,
            parts: Vec::new(),
        };
        w.push(rel);
        w
    }

    /// Appends a relative path with Windows rules (`.`/`..` folded); a path that
    /// begins with one separator starts again at the drive (or share) root.
    fn push(&mut self, rel: &str) {
        if rel.starts_with(['\\', '/']) {
            self.parts.clear();
        }
        for c in rel.split(['\\', '/']) {
            match c {
                "" | "." => {}
                ".." => {
                    self.parts.pop();
                }
                c => self.parts.push(c.to_string()),
            }
        }
    }

    /// `rel` resolved against this path, as Node's `path.win32.resolve` does.
    pub fn join(&self, rel: &str) -> WinPath {
        if let Some(abs) = WinPath::parse(rel) {
            return abs;
        }
        let mut w = self.clone();
        w.push(rel);
        w
    }

    /// Whether `base` is this path or one of its ancestors, comparing whole
    /// components without regard to case.
    pub fn starts_with(&self, base: &WinPath) -> bool {
        same_name(&self.root, &base.root)
            && self.parts.len() >= base.parts.len()
            && self
                .parts
                .iter()
                .zip(&base.parts)
                .all(|(a, b)| same_name(a, b))
    }

    /// The readable normalized form: drive letter upper-case, `\` separators,
    /// components as recorded (`c:/users/dev/./a/../b.md` → `C:\users\dev\b.md`).
    pub fn display(&self) -> String {
        let mut s = self.root.clone();
        if self.parts.is_empty() && !self.root.starts_with('\\') {
            s.push('\\');
        }
        for p in &self.parts {
            s.push('\\');
            s.push_str(p);
        }
        s
    }

    /// The form two spellings of one path share: [`display`](Self::display) lower-cased.
    pub fn key(&self) -> String {
        self.display().to_lowercase()
    }
}

impl PartialEq for WinPath {
    fn eq(&self, other: &WinPath) -> bool {
        self.key() == other.key()
    }
}

impl Eq for WinPath {}

pub(super) fn same_name(a: &str, b: &str) -> bool {
    a == b || a.to_lowercase() == b.to_lowercase()
}

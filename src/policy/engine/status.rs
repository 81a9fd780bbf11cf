//! Each candidate's fate in the wire of the request, and its reason in words.

use super::*;

impl Engine<'_> {
    pub(super) fn finish_statuses(&mut self, req: &Request, v: &Verdict) {
        let qwen = self.policy.preset == Harness::Qwen;
        for p in 0..self.view.cands.len() {
            let c = &self.view.cands[p];
            let r = &self.s.results[c.result];
            let clearing = self.cleared[c.result].as_ref();
            let status = if !c.compactable {
                Status::NotCompactable
            } else if r.already_cleared {
                Status::AlreadyCleared
            } else if c.protected() {
                Status::Protected
            } else if clearing.is_some() {
                Status::Cleared
            } else if qwen && r.is_error {
                Status::ErrorKept
            } else {
                Status::Kept
            };
            let reason = if self.wants_reasons() {
                self.reason(p, status, req, v)
            } else {
                String::new()
            };
            let cleared_at = clearing.map(|c| c.at).filter(|_| status == Status::Cleared);
            let c = &mut self.view.cands[p];
            c.status = status;
            c.reason = reason;
            c.cleared_at = cleared_at;
        }
    }

    /// The reason for a candidate's status, in words.
    pub(super) fn reason(&self, p: usize, status: Status, req: &Request, v: &Verdict) -> String {
        let c = &self.view.cands[p];
        let mut reason = match status {
            Status::NotCompactable => match &c.tool {
                Some(t) => format!("{t} results are not compactable"),
                None => "no tool call with this id in the view".into(),
            },
            Status::AlreadyCleared => "already cleared in the transcript".into(),
            Status::Protected => protection_text(c.protection.as_ref()),
            Status::Cleared => match self.cleared[c.result].as_ref() {
                Some(cl) if cl.at == req.index => cl.reason.clone(),
                Some(cl) => format!("cleared at request {}: {}", cl.at, cl.reason),
                None => String::new(),
            },
            Status::ErrorKept => "error result: qwen never clears errors".into(),
            Status::Kept => v.kept.get(&p).cloned().unwrap_or_else(|| {
                if v.fired {
                    format!("kept: {}", v.note)
                } else {
                    format!("no plan fired: {}", v.note)
                }
            }),
        };
        if let Some(pr) = &c.protection
            && !pr.outcome.protects()
        {
            reason.push_str("; ");
            reason.push_str(&protection_text(Some(pr)));
        }
        reason
    }
}

pub fn protection_text(p: Option<&Protection>) -> String {
    let Some(p) = p else {
        return "protection off".into();
    };
    let root = p.root.map(|r| r.name()).unwrap_or("?");
    let resolved = p.resolved.as_deref().unwrap_or("?");
    match p.outcome {
        Outcome::Protected => format!("protected: inside the {root} memory root ({resolved})"),
        Outcome::Unverified => {
            format!("protected, unverified: the {root} root does not exist here; decided lexically")
        }
        Outcome::SymlinkEscape => {
            format!("symlink escape: inside the {root} root by name, resolves to {resolved}")
        }
        Outcome::Outside => format!("outside every memory root ({resolved})"),
        Outcome::UnresolvedId => "unresolved id: no file path recorded for this id".into(),
        Outcome::AmbiguousId => "ambiguous id: several paths recorded for this id".into(),
    }
}

//! Where Qwen runs its plans (SPEC §2 table, §5 "evaluated at"): by the kind of
//! send, not by whether a turn begins (Qwen Code `core/client.ts`).

use crate::session::{Request, SendKind};

/// Which of Qwen's automatic plans run at a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Runs {
    pub idle: bool,
    pub size: bool,
    /// Why nothing (or only size) runs, in words.
    pub why_none: &'static str,
}

/// The plans Qwen runs at `req`. A request without a send (a Claude transcript
/// planned with the qwen preset) runs idle when a turn begins and size always.
pub(crate) fn qwen_runs(req: &Request) -> Runs {
    let Some(send) = &req.send else {
        return Runs {
            idle: req.begins_turn,
            size: true,
            why_none: "qwen looks at the gap only when a turn begins",
        };
    };
    match send.kind {
        SendKind::UserQuery | SendKind::Cron | SendKind::Hook if !send.after_goal => Runs {
            idle: true,
            size: true,
            why_none: "",
        },
        SendKind::Hook => Runs {
            idle: false,
            size: false,
            why_none: "a hook continuing a goal turn: Qwen runs no microcompaction here",
        },
        SendKind::ToolResult => Runs {
            idle: false,
            size: true,
            why_none: "tool results: Qwen runs only the size check here",
        },
        kind => Runs {
            idle: false,
            size: false,
            why_none: kind.words(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::Send;

    fn req(kind: Option<SendKind>, after_goal: bool, begins_turn: bool) -> Request {
        Request {
            begins_turn,
            send: kind.map(|kind| Send {
                kind,
                after_goal,
                completion_ms: None,
                process: 0,
                note: None,
            }),
            ..Request::empty(1)
        }
    }

    #[test]
    fn each_send_kind_runs_what_the_table_says() {
        let runs = |k, g| {
            let r = qwen_runs(&req(Some(k), g, true));
            (r.idle, r.size)
        };
        assert_eq!(runs(SendKind::UserQuery, false), (true, true));
        assert_eq!(runs(SendKind::Cron, false), (true, true));
        assert_eq!(runs(SendKind::Hook, false), (true, true));
        assert_eq!(runs(SendKind::Hook, true), (false, false));
        assert_eq!(runs(SendKind::ToolResult, false), (false, true));
        for k in [
            SendKind::Notification,
            SendKind::Goal,
            SendKind::Steer,
            SendKind::AgentMessage,
        ] {
            assert_eq!(runs(k, false), (false, false), "{k:?}");
        }
        // Without a send (a Claude transcript under the qwen preset).
        let r = qwen_runs(&req(None, false, false));
        assert_eq!((r.idle, r.size), (false, true));
    }
}

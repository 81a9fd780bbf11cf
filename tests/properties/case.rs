//! One case: a written session planned under one policy; its context and the model's answers.

use super::*;

fn opts_of(pol: &GenPolicy, qwen: bool, mem: &Path) -> Opts {
    let opts = Opts {
        preset: Some(if qwen != pol.cross_preset {
            PresetArg::Qwen
        } else {
            PresetArg::Claude
        }),
        shared: mcscope::cli::SharedOpts {
            memory_root: vec![format!("project={}", mem.display())],
            ..Default::default()
        },
        ..Default::default()
    }
    .with("--policy", pol.kind.name())
    .with("--keep-recent", &pol.keep.to_string())
    .with("--gap-minutes", &(pol.gap as f64).to_string())
    .with("--size-threshold", &pol.size.to_string())
    .with("--trigger", &pol.trigger.to_string())
    .with(
        "--delivery",
        if pol.cache_edits && !qwen {
            DeliveryArg::CacheEdits
        } else {
            DeliveryArg::Rewrite
        }
        .name(),
    )
    .with(
        if pol.protect {
            "--protect"
        } else {
            "--no-protect"
        },
        "",
    );
    if pol.low_watermark {
        opts
    } else {
        opts.with("--no-low-watermark", "")
    }
}

/// The policy the command line builds from `opts_of(pol)` (checked on the first
/// policy of every session, which goes through `cli::setup`).
fn policy_of(pol: &GenPolicy, qwen: bool) -> Policy {
    let qwen_preset = qwen != pol.cross_preset;
    let mut p = Policy::preset(if qwen_preset {
        HarnessId::Qwen
    } else {
        HarnessId::Claude
    });
    p.kind = match pol.kind {
        KindArg::Auto => PlanKind::Auto,
        KindArg::Idle => PlanKind::Idle,
        KindArg::Forced => PlanKind::Forced,
        KindArg::Size => PlanKind::Size,
        KindArg::Count => PlanKind::Count,
        KindArg::Budget => PlanKind::Budget,
        KindArg::IdleServer => PlanKind::IdleServer,
        KindArg::Api => PlanKind::Api,
        KindArg::Recorded => PlanKind::Recorded,
        KindArg::Mask => PlanKind::Mask,
        KindArg::Prune => PlanKind::Prune,
        KindArg::Cline => PlanKind::Cline,
    };
    p.keep_recent = Some(pol.keep);
    p.gap_threshold_minutes = pol.gap as f64;
    // The gap is always given as a flag here.
    p.gap_explicit = true;
    p.size_threshold = pol.size;
    // The size threshold is always given as a flag here.
    p.size_explicit = true;
    p.low_watermark = pol.low_watermark;
    p.trigger_threshold = pol.trigger;
    p.delivery = if pol.cache_edits && !qwen {
        Delivery::CacheEdits
    } else {
        Delivery::Rewrite
    };
    p.protect = pol.protect;
    p
}

/// Writes the session and plans it with each policy. Loading a session costs
/// most of a case in debug builds, so one load serves several policies: the
/// first goes through `cli::setup`, the others share its session and roots.
pub(super) fn cases(sess: GenSession, pols: Vec<GenPolicy>) -> Result<Vec<Case>, TestCaseError> {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let mem = base.join("mem");
    std::fs::create_dir_all(&mem).unwrap();
    for n in 0..40 {
        std::fs::write(mem.join(format!("note{n}.md")), "memory").unwrap();
    }
    let (lines, mut m) = if sess.qwen {
        write_qwen(&sess, &mem)
    } else {
        write_claude(&sess, &mem)
    };
    m.finish();
    let path = base.join("session.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let qwen = sess.qwen;
    let w = Rc::new(Written {
        _dir: dir,
        sess,
        mem,
        lines,
        m,
    });
    let first = common::setup(&path, opts_of(&pols[0], qwen, &w.mem));
    let mut out = Vec::new();
    for pol in pols {
        let setup = Setup {
            policy: policy_of(&pol, qwen),
            ..first.clone()
        };
        out.push(Case {
            w: w.clone(),
            qwen_preset: qwen != pol.cross_preset,
            pol,
            setup,
            timeline: OnceCell::new(),
        });
    }
    let c = &out[0];
    check!(
        c,
        0,
        first.policy == c.setup.policy,
        "cli::setup built {:?}, expected {:?}",
        first.policy,
        c.setup.policy
    );
    for c in &out {
        c.sanity()?;
    }
    Ok(out)
}

impl Case {
    pub(super) fn context(&self) -> String {
        let mut out = format!(
            "policy: {:?}\n  (generated: {:?})\nmemory root (project): {}\nsession {:?}\n",
            self.setup.policy,
            self.pol,
            self.w.mem.display(),
            self.w.sess
        );
        out.push_str("JSONL (strings over 100 chars abbreviated; parentUuid/isSidechain/userType/sessionId/version/uuid/cwd dropped):\n");
        for (i, l) in self.w.lines.iter().enumerate() {
            let mut v: Value = serde_json::from_str(l).unwrap();
            if let Some(o) = v.as_object_mut() {
                for k in [
                    "parentUuid",
                    "isSidechain",
                    "userType",
                    "sessionId",
                    "version",
                    "uuid",
                    "cwd",
                ] {
                    o.remove(k);
                }
            }
            abbreviate(&mut v);
            out.push_str(&format!("{:>3}: {v}\n", i + 1));
        }
        out
    }

    pub(super) fn n(&self) -> usize {
        self.w.m.reqs.len()
    }

    pub(super) fn req(&self, k: usize) -> &MReq {
        &self.w.m.reqs[k - 1]
    }

    pub(super) fn plan(&self, k: usize) -> Result<PlanAt, TestCaseError> {
        analysis::plan_at(&self.setup, k)
            .map_err(|e| TestCaseError::fail(format!("plan_at({k}): {e}\n{}", self.context())))
    }

    pub(super) fn wire(&self, k: usize, side: Side) -> Result<Value, TestCaseError> {
        analysis::wire_at(&self.setup, k, side).map_err(|e| {
            TestCaseError::fail(format!("wire_at({k}, {side:?}): {e}\n{}", self.context()))
        })
    }

    /// Result indices in the view of request k, in file order.
    pub(super) fn view_results(&self, k: usize) -> Vec<usize> {
        let q = self.req(k);
        (0..self.w.m.results.len())
            .filter(|&r| (q.view_start..q.end).contains(&self.w.m.results[r].msg))
            .collect()
    }

    pub(super) fn view_calls(&self, k: usize) -> Vec<usize> {
        let q = self.req(k);
        (0..self.w.m.calls.len())
            .filter(|&c| (q.view_start..q.end).contains(&self.w.m.calls[c].msg))
            .collect()
    }

    pub(super) fn compactable(&self, r: usize) -> bool {
        self.w.m.compactable(self.w.m.results[r].tool)
    }

    /// SPEC §4 on the model: a non-error read result whose id's file-path-tool calls
    /// in the view all name a path inside the memory root.
    pub(super) fn protected(&self, k: usize, r: usize) -> bool {
        let res = &self.w.m.results[r];
        if !self.pol.protect || res.tool != self.w.m.read_tool() || res.error {
            return false;
        }
        let paths: Vec<PathBuf> = self
            .view_calls(k)
            .into_iter()
            .map(|c| &self.w.m.calls[c])
            .filter(|c| c.id == res.id && self.w.m.file_path_tool(c.tool))
            .filter_map(|c| c.path.as_deref())
            .map(|p| lexical(p, "/repo"))
            .collect();
        !paths.is_empty() && paths.iter().all(|p| p.starts_with(&self.w.mem))
    }

    fn pending(&self, k: usize, r: usize) -> bool {
        let q = self.req(k);
        !q.begins_turn && self.w.m.results[r].msg + 1 == q.end
    }

    /// Whether request j starts with no clearing in force (SPEC §5 persistence).
    fn resets(&self, j: usize) -> bool {
        j == 1
            || self.req(j).segment != self.req(j - 1).segment
            || (!self.qwen_preset && self.req(j).begins_turn && self.pol.kind != KindArg::Count)
    }

    /// The results whose clearing is in force when request k's plan starts, from
    /// the timeline's `newly_cleared` and the persistence rules.
    pub(super) fn in_force_before(&self, k: usize) -> HashSet<usize> {
        let steps = self
            .timeline
            .get_or_init(|| analysis::timeline(&self.setup, 0));
        let mut set = HashSet::new();
        for j in 1..=k {
            if self.resets(j) {
                set.clear();
            }
            if j == k {
                break;
            }
            set.extend(steps[j - 1].newly_cleared.iter().copied());
        }
        set
    }

    /// Clearable (SPEC §3): unprotected, not error, not cleared, chars > 0, not pending.
    pub(super) fn clearable(&self, k: usize, before: &HashSet<usize>) -> Vec<usize> {
        self.view_results(k)
            .into_iter()
            .filter(|&r| {
                let res = &self.w.m.results[r];
                self.compactable(r)
                    && !self.protected(k, r)
                    && !res.error
                    && !before.contains(&r)
                    && !res.placeholder
                    && res.chars > 0
                    && !self.pending(k, r)
            })
            .collect()
    }

    pub(super) fn keep(&self) -> usize {
        self.pol.keep.max(1) as usize
    }

    pub(super) fn ids(&self, rs: &[usize]) -> Vec<&str> {
        rs.iter()
            .map(|&r| self.w.m.results[r].id.as_str())
            .collect()
    }

    /// The session as loaded agrees with the model (requests, results): every
    /// other check maps engine indices to the model through this.
    fn sanity(&self) -> Result<(), TestCaseError> {
        let s = &self.setup.session;
        check!(
            self,
            0,
            s.diagnostics.is_empty(),
            "diagnostics: {:?}",
            s.diagnostics
        );
        type Shape = (usize, usize, usize, bool, Option<f64>);
        let got: Vec<Shape> = s
            .requests
            .iter()
            .map(|r| (r.view_start, r.end, r.segment, r.begins_turn, r.gap_minutes))
            .collect();
        let want: Vec<Shape> = self
            .w
            .m
            .reqs
            .iter()
            .map(|r| (r.view_start, r.end, r.segment, r.begins_turn, r.gap_minutes))
            .collect();
        check!(
            self,
            0,
            got == want,
            "requests (view_start, end, segment, begins_turn, gap_minutes): expected {want:?}, got {got:?}"
        );
        let got: Vec<(&str, usize, bool, bool, u64)> = s
            .results
            .iter()
            .map(|r| (r.id.as_str(), r.msg, r.is_error, r.already_cleared, r.chars))
            .collect();
        let want: Vec<(&str, usize, bool, bool, u64)> = self
            .w
            .m
            .results
            .iter()
            .map(|r| {
                (
                    r.id.as_str(),
                    r.msg,
                    r.error,
                    r.placeholder,
                    if r.placeholder {
                        utf16(PLACEHOLDER)
                    } else {
                        r.chars
                    },
                )
            })
            .collect();
        check!(
            self,
            0,
            got == want,
            "results (id, msg, error, already_cleared, chars): expected {want:?}, got {got:?}"
        );
        Ok(())
    }
}

fn abbreviate(v: &mut Value) {
    match v {
        Value::String(s) if s.chars().count() > 100 => {
            let head: String = s.chars().take(12).collect();
            *s = format!("{head}…<{} UTF-16 units>", utf16(s));
        }
        Value::Array(a) => a.iter_mut().for_each(abbreviate),
        Value::Object(o) => o.values_mut().for_each(abbreviate),
        _ => {}
    }
}

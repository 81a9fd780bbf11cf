//! SPEC §9: the whole-session figures agree with `plan --at k` at every k, the
//! formulas give the figures worked out by hand, and `mcscope compare` answers
//! through the real binary on a file and on a folder.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

mod common;
#[path = "common/corpus.rs"]
mod corpus;

use common::Claude;
use mcscope::analysis;
use mcscope::cli::{DeliveryArg, KindArg, Opts};
use mcscope::evidence::Ttl;
use mcscope::policy::engine::Status;
use mcscope::totals::{self, CacheTtl, SessionFacts};
use serde_json::{Value, json};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "compare/binary.rs"]
mod binary;
#[path = "compare/figures.rs"]
mod figures;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn corpus(name: &str) -> Option<PathBuf> {
    corpus::file(name)
}

fn mcscope(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mcscope"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn json_of(args: &[&str]) -> Value {
    let (code, out, err) = mcscope(args);
    assert_eq!(code, 0, "mcscope {args:?}: {err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

//! The strategies that generate sessions and policies (the `Gen*` types are the parent's).

use super::*;

fn arb_call() -> impl Strategy<Value = GenCall> {
    (
        0u8..10,
        0u8..6,
        prop_oneof![1 => Just(0usize), 2 => 1usize..=40, 4 => 41usize..=3000],
        0u8..4,
        prop::bool::weighted(0.15),
        prop::bool::weighted(0.1),
        prop::option::weighted(0.15, any::<u8>()),
        prop_oneof![4 => Just(0u8), 1 => 1u8..=90],
        prop::bool::weighted(0.1),
    )
        .prop_map(
            |(tool, path, size, charset, error, placeholder, reuse, delay, missing)| GenCall {
                tool,
                path,
                size,
                charset,
                error,
                placeholder: placeholder && !error,
                reuse,
                delay,
                missing,
            },
        )
}

fn arb_step() -> impl Strategy<Value = GenStep> {
    (
        prop_oneof![3 => vec(arb_call(), 1..=1), 1 => vec(arb_call(), 2..=3)],
        any::<bool>(),
    )
        .prop_map(|(calls, interleave)| GenStep { calls, interleave })
}

fn arb_turn() -> impl Strategy<Value = GenTurn> {
    (
        0u8..=120,
        vec(arb_step(), 0..=4),
        prop::bool::weighted(0.75),
    )
        .prop_map(|(gap, mut steps, answer)| {
            // At most 6 tool calls per turn.
            while steps.iter().map(|s| s.calls.len()).sum::<usize>() > 6 {
                let last = steps.last_mut().unwrap();
                last.calls.pop();
                if last.calls.is_empty() {
                    steps.pop();
                }
            }
            GenTurn { gap, steps, answer }
        })
}

pub(super) fn arb_session(harness: Option<bool>) -> impl Strategy<Value = GenSession> {
    let qwen = match harness {
        Some(q) => Just(q).boxed(),
        None => any::<bool>().boxed(),
    };
    (
        qwen,
        vec(arb_turn(), 1..=6),
        prop::option::weighted(0.3, 0u8..=120),
        prop::option::weighted(0.5, any::<u8>()),
    )
        .prop_map(|(qwen, turns, trailing, boundary)| GenSession {
            qwen,
            turns,
            trailing,
            boundary,
        })
}

pub(super) fn arb_policy(
    cache_edits: Option<bool>,
    kinds: &'static [KindArg],
) -> impl Strategy<Value = GenPolicy> {
    let ce = match cache_edits {
        Some(c) => Just(c).boxed(),
        None => any::<bool>().boxed(),
    };
    (
        proptest::sample::select(kinds),
        0u32..=6,
        0u32..=90,
        prop_oneof![0i64..=3000, 0i64..=20000],
        any::<bool>(),
        0u32..=8,
        ce,
        any::<bool>(),
        prop::bool::weighted(0.2),
    )
        .prop_map(
            |(
                kind,
                keep,
                gap,
                size,
                low_watermark,
                trigger,
                cache_edits,
                protect,
                cross_preset,
            )| {
                GenPolicy {
                    kind,
                    keep,
                    gap,
                    size,
                    low_watermark,
                    trigger,
                    cache_edits,
                    protect,
                    cross_preset,
                }
            },
        )
}

pub(super) const ALL_KINDS: &[KindArg] = &[
    KindArg::Auto,
    KindArg::Idle,
    KindArg::Forced,
    KindArg::Size,
    KindArg::Count,
];

pub(super) const TIME_KINDS: &[KindArg] = &[KindArg::Auto, KindArg::Idle, KindArg::Forced];

//! Byte masks of a string's bytes, one bit per byte: quotes, backslashes,
//! control characters (below 0x20), UTF-8 continuation bytes and the first
//! bytes of four-byte sequences. SSE2 on x86_64 (every x86_64 processor has
//! it), through `safe_arch`'s safe wrappers; a plain loop elsewhere.

/// The masks of one block: bit `i` stands for its byte `i`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) struct Masks {
    pub quote: u64,
    pub backslash: u64,
    pub control: u64,
    /// `10xxxxxx`: no UTF-16 unit of its own.
    pub continuation: u64,
    /// `11110xxx` and up: a character that is two UTF-16 units.
    pub four: u64,
}

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
pub(super) fn masks16(block: &[u8; 16]) -> Masks {
    use safe_arch::{
        bitand_m128i, cmp_eq_mask_i8_m128i, load_unaligned_m128i, max_u8_m128i, move_mask_i8_m128i,
        set_splat_i8_m128i, zeroed_m128i,
    };
    let v = load_unaligned_m128i(block);
    let splat = |b: u8| set_splat_i8_m128i(b as i8);
    let bits = |x| u64::from(move_mask_i8_m128i(x) as u16);
    Masks {
        quote: bits(cmp_eq_mask_i8_m128i(v, splat(b'"'))),
        backslash: bits(cmp_eq_mask_i8_m128i(v, splat(b'\\'))),
        // A byte below 0x20 has none of its top three bits set.
        control: bits(cmp_eq_mask_i8_m128i(
            bitand_m128i(v, splat(0xE0)),
            zeroed_m128i(),
        )),
        continuation: bits(cmp_eq_mask_i8_m128i(
            bitand_m128i(v, splat(0xC0)),
            splat(0x80),
        )),
        four: bits(cmp_eq_mask_i8_m128i(max_u8_m128i(v, splat(0xF0)), v)),
    }
}

#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
pub(super) fn masks16(block: &[u8; 16]) -> Masks {
    portable(block)
}

/// The masks of the 64 bytes `rest` starts with, padded with spaces past its
/// end (none is a quote, an escape or a control character).
#[inline(always)]
pub(super) fn masks_at(rest: &[u8]) -> Masks {
    match rest.first_chunk::<64>() {
        Some(block) => masks(block),
        None => {
            let mut padded = [b' '; 64];
            let n = rest.len().min(64);
            padded[..n].copy_from_slice(&rest[..n]);
            masks(&padded)
        }
    }
}

/// The bytes of a block before its first quote of `quotes` (all of them
/// where it has none): a string's own bytes.
#[inline(always)]
pub(super) fn before_first(quotes: u64) -> u64 {
    if quotes == 0 {
        u64::MAX
    } else {
        (quotes & quotes.wrapping_neg()) - 1
    }
}

/// The masks of 64 bytes: four 16-byte blocks' put together.
#[inline(always)]
pub(super) fn masks(block: &[u8; 64]) -> Masks {
    let mut m = Masks::default();
    let (parts, _) = block.as_chunks::<16>();
    for (k, part) in parts.iter().enumerate() {
        let p = masks16(part);
        let at = 16 * k;
        m.quote |= p.quote << at;
        m.backslash |= p.backslash << at;
        m.control |= p.control << at;
        m.continuation |= p.continuation << at;
        m.four |= p.four << at;
    }
    m
}

/// The same masks, a byte at a time (the other architectures; the tests'
/// reference).
#[cfg_attr(all(target_arch = "x86_64", target_feature = "sse2"), allow(dead_code))]
pub(super) fn portable(block: &[u8]) -> Masks {
    let mut m = Masks::default();
    for (i, &b) in block.iter().enumerate() {
        m.quote |= u64::from(b == b'"') << i;
        m.backslash |= u64::from(b == b'\\') << i;
        m.control |= u64::from(b < 0x20) << i;
        m.continuation |= u64::from(b & 0xC0 == 0x80) << i;
        m.four |= u64::from(b >= 0xF0) << i;
    }
    m
}

/// The characters a backslash escapes in a block (simdjson's branch-free
/// method): a run of backslashes of odd length escapes the character after
/// it. `carry` says whether the block's first character is escaped by a run
/// that ended the block before, and is set for the next block.
#[inline(always)]
pub(super) fn escaped(backslash: u64, carry: &mut u64) -> u64 {
    const EVEN: u64 = 0x5555_5555_5555_5555;
    // A backslash escaped by the block before is no escape itself.
    let backslash = backslash & !*carry;
    let follows = (backslash << 1) | *carry;
    let odd_starts = backslash & !EVEN & !follows;
    let (sum, overflow) = odd_starts.overflowing_add(backslash);
    *carry = u64::from(overflow);
    (EVEN ^ (sum << 1)) & follows
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The escaped characters of `s`, walked a byte at a time.
    fn escaped_slowly(s: &[u8]) -> Vec<bool> {
        let mut out = vec![false; s.len()];
        let mut i = 0;
        while i < s.len() {
            if s[i] == b'\\' && i + 1 < s.len() {
                out[i + 1] = true;
                i += 2;
            } else {
                i += 1;
            }
        }
        out
    }

    proptest! {
        #[test]
        fn simd_masks_are_the_portable_ones(v in proptest::collection::vec(any::<u8>(), 64)) {
            let block: [u8; 64] = v.clone().try_into().unwrap();
            prop_assert_eq!(masks(&block), portable(&block));
        }

        #[test]
        fn escapes_across_blocks_are_the_walked_ones(
            v in proptest::collection::vec(prop_oneof![Just(b'\\'), Just(b'a'), Just(b'"')], 1..300)
        ) {
            let want = escaped_slowly(&v);
            let mut carry = 0;
            for (k, chunk) in v.chunks(64).enumerate() {
                let mut block = [b' '; 64];
                block[..chunk.len()].copy_from_slice(chunk);
                let e = escaped(masks(&block).backslash, &mut carry);
                for i in 0..chunk.len() {
                    prop_assert_eq!(e >> i & 1 == 1, want[64 * k + i], "byte {}", 64 * k + i);
                }
            }
        }
    }
}

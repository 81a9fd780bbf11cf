//! The text encodings a transcript may arrive in besides plain UTF-8: a UTF-8
//! byte-order mark (some editors and Windows tools write one) is skipped, and a
//! UTF-16 file is recognised so that it is refused by name instead of being
//! read as lines of NUL-riddled crash damage.

/// The UTF-8 byte-order mark.
pub(crate) const BOM: &[u8] = b"\xEF\xBB\xBF";

/// `bytes` without a leading UTF-8 byte-order mark.
pub(crate) fn strip_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(BOM).unwrap_or(bytes)
}

/// How many leading bytes the NUL-pattern test looks at (pairs of bytes).
const PATTERN_BYTES: usize = 64;

/// Whether a file's first bytes are UTF-16: a UTF-16 byte-order mark, or text
/// whose every other byte is NUL (ASCII in UTF-16LE or BE without a mark) in
/// three pairs out of four (a few CJK characters may have two non-NUL bytes).
/// A run of NULs alone (crash damage) is not that pattern: the other byte of a
/// pair must be non-NUL.
pub(crate) fn is_utf16(head: &[u8]) -> bool {
    if head.starts_with(b"\xFF\xFE") || head.starts_with(b"\xFE\xFF") {
        // UTF-32LE also starts FF FE; it is no more readable, and still no JSONL.
        return true;
    }
    let n = head.len().min(PATTERN_BYTES) & !1;
    if n < 4 {
        return false;
    }
    let pairs = head[..n].chunks_exact(2);
    let most = |count: usize| count * 4 >= (n / 2) * 3;
    most(pairs.clone().filter(|p| p[0] != 0 && p[1] == 0).count())
        || most(pairs.filter(|p| p[0] == 0 && p[1] != 0).count())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utf16le(s: &str) -> Vec<u8> {
        s.encode_utf16().flat_map(u16::to_le_bytes).collect()
    }

    #[test]
    fn utf16_is_told_from_utf8_and_from_nul_damage() {
        let text = "{\"type\":\"user\"}\n";
        assert!(is_utf16(&utf16le(text)));
        let be: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
        assert!(is_utf16(&be));
        let mut bom = b"\xFF\xFE".to_vec();
        bom.extend(utf16le("é"));
        assert!(is_utf16(&bom));
        assert!(is_utf16(&utf16le(
            "{\"text\":\"日本語\",\"type\":\"user\",\"x\":1}"
        )));
        assert!(!is_utf16(text.as_bytes()));
        assert!(!is_utf16(&[0u8; 200]));
        assert!(!is_utf16(b"{}"));
        assert_eq!(strip_bom(b"\xEF\xBB\xBF{}"), b"{}");
        assert_eq!(strip_bom(b"{}"), b"{}");
    }
}

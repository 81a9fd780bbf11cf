//! Lengths in UTF-16 code units (JavaScript's `length`, what the harnesses
//! count), of UTF-8 bytes and of JSON as serde_json writes it, counted as it
//! is written: no string is built (an output may be hundreds of MB). A leaf.

/// UTF-16 units of whole UTF-8 sequences: one for each byte that is no
/// continuation byte, one more for each four-byte sequence (a character
/// past the BMP). Cut anywhere, the parts' counts add up to the whole's.
pub fn of_bytes(buf: &[u8]) -> u64 {
    buf.iter()
        .map(|&b| u64::from(b & 0xC0 != 0x80) + u64::from(b >= 0xF0))
        .sum()
}

/// UTF-16 units of `v`'s compact JSON (what `serde_json::to_string` gives),
/// counted as it is written. Serializing a `Value` or a string cannot fail;
/// for a type that can, what was written before the error is counted.
pub fn of_json<T: serde::Serialize + ?Sized>(v: &T) -> u64 {
    struct Count(u64);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += of_bytes(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut c = Count(0);
    let _ = serde_json::to_writer(&mut c, v);
    c.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Counted as written, the length is the written text's, whatever the
    /// characters (one to four bytes) and escapes, and however the bytes are
    /// cut.
    #[test]
    fn the_count_is_the_written_text_s_length() {
        let values = [
            json!(null),
            json!("plain ascii"),
            json!("é ü 漢字 😀🎉 \u{1b} \n \t \" \\ \u{7f} \u{2028}"),
            json!({"output": "line\nline 😀", "n": [1, -2.5, 1e300, 18446744073709551615u64], "k": {"é": true}}),
            json!(["\u{10FFFF}", "\u{FFFF}", "\u{800}", "\u{80}"]),
        ];
        for v in &values {
            let text = v.to_string();
            let units = text.encode_utf16().count() as u64;
            assert_eq!(of_json(v), units, "{v}");
            for cut in 0..=text.len() {
                let (a, b) = text.as_bytes().split_at(cut);
                assert_eq!(of_bytes(a) + of_bytes(b), units, "{v} cut at {cut}");
            }
        }
        assert_eq!(
            of_json("a\n😀"),
            2 + 1 + 2 + 2,
            "quotes, a, \\n, a surrogate pair"
        );
    }
}

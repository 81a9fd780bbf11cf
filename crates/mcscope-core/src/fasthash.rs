//! Hash maps and sets keyed by what a transcript names (ids, uuids) or by
//! positions, on the hot paths of loading and planning: foldhash in place of
//! the standard SipHash (a string id hashed in a fraction of the time).
//!
//! Seeded at random per process, as the standard maps are, so a transcript
//! cannot be written to collide its ids. Nothing may depend on their
//! iteration order (it was random before, too).

use std::hash::BuildHasher;
use std::sync::OnceLock;

pub type FastMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;
pub type FastSet<K> = std::collections::HashSet<K, foldhash::fast::RandomState>;

/// One 64-bit hash of `text`, the same on every thread of this process (the
/// loader's record links are compared by it).
pub fn hash_str(text: &str) -> u64 {
    static STATE: OnceLock<foldhash::fast::FixedState> = OnceLock::new();
    STATE
        .get_or_init(|| {
            let seed = std::collections::hash_map::RandomState::new().hash_one(0x6d63_7363u32);
            foldhash::fast::FixedState::with_seed(seed)
        })
        .hash_one(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_text_one_hash_on_every_thread() {
        let here = hash_str("8f2c-uuid");
        let there = std::thread::spawn(|| hash_str("8f2c-uuid")).join().unwrap();
        assert_eq!(here, there);
        assert_ne!(hash_str("a"), hash_str("b"));
    }
}

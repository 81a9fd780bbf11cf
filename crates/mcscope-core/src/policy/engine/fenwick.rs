//! A Fenwick (binary indexed) tree of u64 over positions 0..n that grows on
//! demand: prefix sums, and the first position a prefix sum reaches, each in
//! O(log n). The size plan's index (`size_index`) keeps its counts and sums in
//! these, so a turn start finds where the oldest-first clearing stops without a
//! pass over the view.

#[derive(Debug, Clone, Default)]
pub(super) struct Fenwick {
    /// 1-based tree; `t[0]` unused. Its length is a power of two (plus one),
    /// so `find` can walk down from the top bit.
    t: Vec<u64>,
    /// The values themselves (what a rebuild on growth starts from).
    v: Vec<u64>,
}

impl Fenwick {
    /// Adds `d` at position `p` (growing the tree when `p` is past its end).
    pub(super) fn add(&mut self, p: usize, d: u64) {
        self.ensure(p + 1);
        self.v[p] += d;
        let mut i = p + 1;
        while i < self.t.len() {
            self.t[i] = self.t[i].wrapping_add(d);
            i += i & i.wrapping_neg();
        }
    }

    /// Takes `d` from position `p` (which holds at least `d`).
    pub(super) fn sub(&mut self, p: usize, d: u64) {
        self.ensure(p + 1);
        self.v[p] -= d;
        let mut i = p + 1;
        while i < self.t.len() {
            self.t[i] = self.t[i].wrapping_sub(d);
            i += i & i.wrapping_neg();
        }
    }

    /// Σ of positions `0..end`.
    pub(super) fn prefix(&self, end: usize) -> u64 {
        let mut i = end.min(self.t.len().saturating_sub(1));
        let mut s = 0u64;
        while i > 0 {
            s = s.wrapping_add(self.t[i]);
            i -= i & i.wrapping_neg();
        }
        s
    }

    /// Σ of every position.
    pub(super) fn total(&self) -> u64 {
        self.prefix(usize::MAX)
    }

    /// The smallest `end` with `prefix(end) >= need` (every value being
    /// non-negative, prefix sums only grow); None when the total falls short.
    /// `need == 0` gives 0.
    pub(super) fn first_reaching(&self, need: u64) -> Option<usize> {
        if need == 0 {
            return Some(0);
        }
        let n = self.t.len().saturating_sub(1);
        let mut pos = 0;
        let mut left = need;
        let mut step = if n == 0 { 0 } else { 1 << n.ilog2() };
        while step > 0 {
            let next = pos + step;
            if next <= n && self.t[next] < left {
                pos = next;
                left -= self.t[next];
            }
            step >>= 1;
        }
        // `pos` is the longest prefix whose sum stays under `need`.
        (pos < n).then_some(pos + 1)
    }

    /// Grows to hold positions `0..len`: a power-of-two size, rebuilt from the
    /// values in O(size), so growing costs O(1) per position over a view.
    fn ensure(&mut self, len: usize) {
        if len < self.t.len() {
            return;
        }
        let size = len.next_power_of_two().max(64);
        self.v.resize(size, 0);
        let mut t = vec![0u64; size + 1];
        for (p, &x) in self.v.iter().enumerate() {
            let i = p + 1;
            t[i] = t[i].wrapping_add(x);
            let j = i + (i & i.wrapping_neg());
            if j <= size {
                t[j] = t[j].wrapping_add(t[i]);
            }
        }
        self.t = t;
    }
}

#[cfg(test)]
mod tests {
    use super::Fenwick;

    #[test]
    fn prefix_sums_and_the_first_reaching_end_match_a_plain_scan() {
        let mut f = Fenwick::default();
        let plain: Vec<u64> = (0..300u64).map(|i| (i * 37) % 11).collect();
        for (i, &x) in plain.iter().enumerate() {
            f.add(i, x);
        }
        let mut plain = plain;
        for i in (0..300).step_by(7) {
            f.sub(i, plain[i] / 2);
            plain[i] -= plain[i] / 2;
        }
        let sum = |end: usize| plain[..end].iter().sum::<u64>();
        for end in 0..=300 {
            assert_eq!(f.prefix(end), sum(end), "prefix {end}");
        }
        let total = sum(300);
        assert_eq!(f.total(), total);
        for need in 0..=total + 2 {
            let want = (0..=300).find(|&e| sum(e) >= need);
            assert_eq!(f.first_reaching(need), want, "need {need}");
        }
        assert_eq!(Fenwick::default().first_reaching(1), None);
    }
}

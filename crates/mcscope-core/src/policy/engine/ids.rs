//! The view's tool ids by number (`Session::ids`): each call and result knows
//! its id's number, so the view keeps, per id, the calls seen with it and
//! whether a result has it in plain vectors. A string map per setting hashed
//! every id's bytes again, and a large session's ids, spread over the heap, no
//! longer fit the cache: its cost grew faster than the session.

/// Per id number: the view's calls with that id, and whether a result of the
/// view has it. Sized once per engine; a new view clears only what the last
/// one touched. Most ids have one call: it is kept in place, and only an id
/// that gains a second call gets a list of its own (a vector per id was an
/// allocation for every call of every setting).
#[derive(Debug, Clone, Default)]
pub(super) struct IdSlots {
    /// The first call with the id (`NONE`: none yet).
    first: Vec<usize>,
    /// For an id with more calls: 1 + its index in `more`; 0 otherwise.
    more_of: Vec<u32>,
    /// The calls of the ids with more than one, in order.
    more: Vec<Vec<usize>>,
    has_result: Vec<bool>,
    touched: Vec<u32>,
}

const NONE: usize = usize::MAX;

impl IdSlots {
    pub(super) fn new(ids: usize) -> IdSlots {
        IdSlots {
            first: vec![NONE; ids],
            more_of: vec![0; ids],
            more: Vec::new(),
            has_result: vec![false; ids],
            touched: Vec::new(),
        }
    }

    /// Forgets the view (a compaction boundary, a rewind).
    pub(super) fn clear(&mut self) {
        for id in self.touched.drain(..) {
            self.first[id as usize] = NONE;
            self.more_of[id as usize] = 0;
            self.has_result[id as usize] = false;
        }
        self.more.clear();
    }

    fn touch(&mut self, id: u32) {
        let i = id as usize;
        if self.first[i] == NONE && !self.has_result[i] {
            self.touched.push(id);
        }
    }

    /// Call `c` has id `id`: how many calls of the view have it now, and
    /// whether a result of the view had it already.
    pub(super) fn add_call(&mut self, id: u32, c: usize) -> (usize, bool) {
        self.touch(id);
        let i = id as usize;
        let n = if self.first[i] == NONE {
            self.first[i] = c;
            1
        } else if self.more_of[i] == 0 {
            self.more.push(vec![self.first[i], c]);
            self.more_of[i] = self.more.len() as u32;
            2
        } else {
            let calls = &mut self.more[self.more_of[i] as usize - 1];
            calls.push(c);
            calls.len()
        };
        (n, self.has_result[i])
    }

    pub(super) fn add_result(&mut self, id: u32) {
        self.touch(id);
        self.has_result[id as usize] = true;
    }

    /// The view's calls with id `id`, in order.
    pub(super) fn calls(&self, id: u32) -> &[usize] {
        let i = id as usize;
        match (self.first[i], self.more_of[i]) {
            (NONE, _) => &[],
            (_, 0) => std::slice::from_ref(&self.first[i]),
            (_, m) => &self.more[m as usize - 1],
        }
    }
}

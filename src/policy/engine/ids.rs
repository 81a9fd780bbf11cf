//! The view's tool ids by number (`Session::ids`): each call and result knows
//! its id's number, so the view keeps, per id, the calls seen with it and
//! whether a result has it in plain vectors. A string map per setting hashed
//! every id's bytes again, and a large session's ids, spread over the heap, no
//! longer fit the cache: its cost grew faster than the session.

/// Per id number: the view's calls with that id, and whether a result of the
/// view has it. Sized once per engine; a new view clears only what the last
/// one touched.
#[derive(Debug, Clone, Default)]
pub(super) struct IdSlots {
    calls: Vec<Vec<usize>>,
    has_result: Vec<bool>,
    touched: Vec<u32>,
}

impl IdSlots {
    pub(super) fn new(ids: usize) -> IdSlots {
        IdSlots {
            calls: vec![Vec::new(); ids],
            has_result: vec![false; ids],
            touched: Vec::new(),
        }
    }

    /// Forgets the view (a compaction boundary, a rewind).
    pub(super) fn clear(&mut self) {
        for id in self.touched.drain(..) {
            self.calls[id as usize].clear();
            self.has_result[id as usize] = false;
        }
    }

    fn touch(&mut self, id: u32) {
        let i = id as usize;
        if self.calls[i].is_empty() && !self.has_result[i] {
            self.touched.push(id);
        }
    }

    /// Call `c` has id `id`: how many calls of the view have it now, and
    /// whether a result of the view had it already.
    pub(super) fn add_call(&mut self, id: u32, c: usize) -> (usize, bool) {
        self.touch(id);
        let calls = &mut self.calls[id as usize];
        calls.push(c);
        (calls.len(), self.has_result[id as usize])
    }

    pub(super) fn add_result(&mut self, id: u32) {
        self.touch(id);
        self.has_result[id as usize] = true;
    }

    /// The view's calls with id `id`, in order.
    pub(super) fn calls(&self, id: u32) -> &[usize] {
        &self.calls[id as usize]
    }
}

//! Rewinds and branches (SPEC §2, §15.1): a session is a `parentUuid` tree and
//! the harness sends only the live branch. The loaders note every main-thread
//! record's link here; once the file is read, each request learns which of its
//! messages sit on a dead branch (`Request::dead`).
//!
//! Only a file that holds a rewind takes this path: a Qwen `system` record with
//! subtype `rewind` or `branch_checkpoint`, or a Claude `/rewind` fork (two
//! `user`/`assistant` records with the same `parentUuid`, each with a
//! `user`/`assistant` descendant, not sharing one `message.id`). Every other
//! file keeps the file order exactly.
//!
//! A record is dead at request *k* when it lies under a branch of a fork point
//! on *k*'s chain (the walk from the record just before response *k* up through
//! `parentUuid`) other than the branch the chain takes. Records the walk does not
//! reach for other reasons (a parallel tool result, a link to a record never
//! written, a Qwen record re-appended off the tail) are not under a fork's dead
//! branch, so they stay where the file puts them.

use crate::fasthash::FastMap as HashMap;
use crate::session::Request;
use std::ops::Range;

/// A `uuid` / `parentUuid` as a 64-bit hash: a million records' links stay
/// small, and two ids of one file colliding is not a concern at this size.
pub(super) type Key = u64;

/// The key of a `uuid` or `parentUuid` string value (None: absent, null, not a string).
pub(super) fn key(v: super::raw::Raw<'_>) -> Option<Key> {
    Some(hash(&super::raw::string(v)?))
}

/// The key of a text (a `message.id`).
pub(super) fn hash(text: &str) -> Key {
    crate::fasthash::hash_str(text)
}

/// One main-thread record with a `uuid`.
#[derive(Clone, Debug)]
pub(super) struct Node {
    pub uuid: Key,
    pub parent: Option<Key>,
    /// The message the record joined (user/assistant records only).
    pub msg: Option<usize>,
    /// The response it belongs to: an assistant line's `message.id`, or for
    /// a record of tool results the id of the response whose calls it answers.
    pub group: Option<Key>,
}

#[derive(Clone, Debug, Default)]
pub(super) struct Tree {
    pub nodes: Vec<Node>,
    /// Per request (in order): how many nodes preceded its response.
    pub leaves: Vec<usize>,
    /// A Qwen `rewind` / `branch_checkpoint` record was seen.
    pub marked: bool,
    /// Claude: forks count only when §15.1's shape holds.
    pub claude: bool,
}

impl Tree {
    /// Sets `dead` on every request of a file that holds a rewind.
    pub(super) fn apply(self, requests: &mut [Request], messages: usize) {
        let n = self.nodes.len();
        if n == 0 || (!self.marked && !self.claude) {
            return;
        }
        let mut index: HashMap<Key, usize> =
            HashMap::with_capacity_and_hasher(n, Default::default());
        for (i, node) in self.nodes.iter().enumerate() {
            index.entry(node.uuid).or_insert(i);
        }
        let parent: Vec<Option<usize>> = self
            .nodes
            .iter()
            .enumerate()
            .map(|(i, node)| {
                let p = *index.get(&node.parent?)?;
                (p != i).then_some(p)
            })
            .collect();
        let is_msg = |i: usize| self.nodes[i].msg.is_some();
        // Whether a node has a user/assistant record below it.
        let mut below = vec![false; n];
        for i in (0..n).rev() {
            if let Some(p) = parent[i].filter(|&p| p < i) {
                below[p] |= is_msg(i) || below[i];
            }
        }
        // Branch children of each node, and the fork points among them.
        let mut children: HashMap<usize, Vec<usize>> = HashMap::default();
        for i in 0..n {
            let branch = if self.claude {
                is_msg(i) && below[i]
            } else {
                is_msg(i) || below[i]
            };
            if let (Some(p), true) = (parent[i], branch) {
                children.entry(p).or_default().push(i);
            }
        }
        let group = |i: usize| self.nodes[i].group;
        let distinct = |a: usize, b: usize| group(a).is_none() || group(a) != group(b);
        children.retain(|_, kids| {
            kids.iter()
                .enumerate()
                .any(|(x, &a)| kids[x + 1..].iter().any(|&b| distinct(a, b)))
        });
        if children.is_empty() {
            return;
        }
        let mut msgs: Vec<(usize, bool)> = vec![(0, false); messages];
        let mut on_chain = vec![false; n];
        let mut chain: Vec<usize> = Vec::new();
        let mut dead_ranges: Vec<Range<usize>> = Vec::new();
        for (req, &leaves) in requests.iter_mut().zip(&self.leaves) {
            // The chain of this request: from its leaf up, meeting the last one.
            let mut path = Vec::new();
            let mut at = leaves.checked_sub(1);
            while let Some(i) = at.filter(|&i| !on_chain[i]) {
                if path.len() > n {
                    break; // a cycle: the links are not a tree
                }
                path.push(i);
                at = parent[i];
            }
            let mut changed = false;
            while chain.last().is_some_and(|&top| Some(top) != at) {
                let top = chain.pop().unwrap_or_default();
                on_chain[top] = false;
                changed |= parent[top].is_some_and(|p| children.contains_key(&p));
            }
            for &i in path.iter().rev() {
                on_chain[i] = true;
                chain.push(i);
                changed |= parent[i].is_some_and(|p| children.contains_key(&p));
            }
            if changed {
                dead_ranges = dead_messages(&parent, &children, &on_chain, &self, &mut msgs);
            }
            req.dead = dead_ranges
                .iter()
                .map(|r| r.start.max(req.view_start)..r.end.min(req.end))
                .filter(|r| r.start < r.end)
                .collect();
        }
    }
}

/// The message ranges whose every record lies under a dead branch of a fork
/// point on the chain (`on_chain`).
fn dead_messages(
    parent: &[Option<usize>],
    forks: &HashMap<usize, Vec<usize>>,
    on_chain: &[bool],
    tree: &Tree,
    msgs: &mut [(usize, bool)],
) -> Vec<Range<usize>> {
    let n = parent.len();
    let mut dead = vec![false; n];
    for i in 0..n {
        dead[i] = match parent[i] {
            Some(p) if on_chain[p] && !on_chain[i] => forks.get(&p).is_some_and(|kids| {
                let taken = kids.iter().find(|&&k| on_chain[k]);
                kids.contains(&i)
                    && taken.is_none_or(|&t| {
                        tree.nodes[i].group.is_none() || tree.nodes[i].group != tree.nodes[t].group
                    })
            }),
            Some(p) if p < i => dead[p],
            _ => false,
        };
    }
    // A message is dead when all its records are (records, dead ones).
    msgs.iter_mut().for_each(|m| *m = (0, true));
    for (i, node) in tree.nodes.iter().enumerate() {
        if let Some(m) = node.msg.and_then(|m| msgs.get_mut(m)) {
            m.0 += 1;
            m.1 &= dead[i];
        }
    }
    let mut ranges: Vec<Range<usize>> = Vec::new();
    for (m, &(records, all_dead)) in msgs.iter().enumerate() {
        if records > 0 && all_dead {
            match ranges.last_mut() {
                Some(r) if r.end == m => r.end = m + 1,
                _ => ranges.push(m..m + 1),
            }
        }
    }
    ranges
}

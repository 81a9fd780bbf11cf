//! Facts a run derives from its session once and every plan of the run shares
//! (what fills the window per message, what `api` and `idle-server` read of
//! each record): owned by the run's setup, shared by its clones, the key
//! thread and the workers alike. Each kind of fact is computed once — the
//! first to ask computes it while any other asker of the same kind waits — so
//! no two threads read the file back for the same answer.
//!
//! Keyed by the fact's type, so that this leaf names none of the layers that
//! store here (the session below them holds facts of its records only).

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// The derived facts of one session, by type.
#[derive(Default)]
pub struct Derived {
    slots: Mutex<HashMap<TypeId, Arc<dyn Any + Send + Sync>>>,
}

impl Derived {
    /// The fact of type `T`, made by `make` on the first ask.
    pub fn get_or_init<T: Any + Send + Sync>(&self, make: impl FnOnce() -> T) -> Arc<T> {
        let slot = {
            // A thread that panicked while holding the lock left the map whole
            // (it only inserts an empty slot), so its poison is ignored.
            let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
            slots
                .entry(TypeId::of::<T>())
                .or_insert_with(|| Arc::new(OnceLock::<Arc<T>>::new()))
                .clone()
        };
        match slot.downcast::<OnceLock<Arc<T>>>() {
            Ok(cell) => cell.get_or_init(|| Arc::new(make())).clone(),
            // Never: the slot of `T` is made as a `OnceLock<Arc<T>>` above.
            Err(_) => Arc::new(make()),
        }
    }
}

impl std::fmt::Debug for Derived {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.slots.lock().map_or(0, |s| s.len());
        write!(f, "Derived({n} facts)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn each_kind_of_fact_is_made_once_however_many_threads_ask() {
        let d = Arc::new(Derived::default());
        let made = Arc::new(AtomicUsize::new(0));
        let threads: Vec<_> = (0..8)
            .map(|_| {
                let (d, made) = (d.clone(), made.clone());
                std::thread::spawn(move || {
                    *d.get_or_init(|| {
                        made.fetch_add(1, Ordering::SeqCst);
                        std::thread::sleep(std::time::Duration::from_millis(20));
                        42u64
                    })
                })
            })
            .collect();
        for t in threads {
            assert_eq!(t.join().unwrap(), 42);
        }
        assert_eq!(made.load(Ordering::SeqCst), 1, "computed once");
        // Another type has a slot of its own.
        assert_eq!(*d.get_or_init(|| String::from("x")), "x");
        assert_eq!(*d.get_or_init(|| 7u64), 42, "the first value stays");
    }
}

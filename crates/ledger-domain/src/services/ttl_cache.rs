//! A small map of values that expire a fixed time after they were stored.
//!
//! Used for copies that a later step re-checks or that may lag briefly by design: the
//! accounts read to validate new entries (`account_cache`) and the keys behind bearer
//! secrets (`Ledger::authenticate`). A time to live of zero keeps nothing.

use std::borrow::Borrow;
use std::collections::HashMap;
use std::hash::Hash;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Most values held; the whole map is dropped when it would grow past this.
const CAPACITY: usize = 50_000;

pub(crate) struct TtlCache<K, V> {
    ttl: Duration,
    entries: Mutex<HashMap<K, (V, Instant)>>,
    /// Lookups answered from the map, and lookups that had to read the store (counted
    /// only while the cache is on), for `/metrics`.
    hits: AtomicU64,
    misses: AtomicU64,
}

impl<K: Eq + Hash, V: Clone> TtlCache<K, V> {
    pub(crate) fn new(ttl: Duration) -> Self {
        Self {
            ttl,
            entries: Mutex::default(),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        }
    }

    /// Lookups answered so far from the cache (hits) and not (misses).
    pub(crate) fn lookups(&self) -> (u64, u64) {
        (
            self.hits.load(Ordering::Relaxed),
            self.misses.load(Ordering::Relaxed),
        )
    }

    pub(crate) fn is_off(&self) -> bool {
        self.ttl.is_zero()
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<K, (V, Instant)>> {
        self.entries.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The value stored under `key` if it is still fresh.
    fn fresh<Q>(&self, entries: &HashMap<K, (V, Instant)>, key: &Q, now: Instant) -> Option<V>
    where
        K: Borrow<Q>,
        Q: Eq + Hash + ?Sized,
    {
        if self.is_off() {
            return None;
        }
        match entries.get(key) {
            Some((value, at)) if now.duration_since(*at) < self.ttl => {
                self.hits.fetch_add(1, Ordering::Relaxed);
                Some(value.clone())
            }
            _ => {
                self.misses.fetch_add(1, Ordering::Relaxed);
                None
            }
        }
    }

    /// The fresh values of `keys`, in order, `None` where missing or expired.
    pub(crate) fn get_many<'k>(&self, keys: impl IntoIterator<Item = &'k K>) -> Vec<Option<V>>
    where
        K: 'k,
    {
        let now = Instant::now();
        let entries = self.lock();
        keys.into_iter()
            .map(|k| self.fresh(&entries, k, now))
            .collect()
    }

    /// The fresh value of `key`.
    pub(crate) fn get<Q>(&self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
        Q: Eq + Hash + ?Sized,
    {
        self.fresh(&self.lock(), key, Instant::now())
    }

    /// Stores values just read.
    pub(crate) fn put_many(&self, values: impl IntoIterator<Item = (K, V)>) {
        if self.is_off() {
            return;
        }
        let now = Instant::now();
        let mut entries = self.lock();
        for (key, value) in values {
            if entries.len() >= CAPACITY {
                entries.clear();
            }
            entries.insert(key, (value, now));
        }
    }

    pub(crate) fn put(&self, key: K, value: V) {
        self.put_many([(key, value)]);
    }

    /// Forgets one value that changed.
    pub(crate) fn forget(&self, key: &K) {
        self.lock().remove(key);
    }

    /// Forgets everything.
    pub(crate) fn clear(&self) {
        self.lock().clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serves_fresh_values_and_forgets_on_demand() {
        let cache = TtlCache::new(Duration::from_secs(60));
        assert_eq!(cache.get(&"a"), None);
        cache.put_many([("a", 1), ("b", 2)]);
        assert_eq!(
            cache.get_many([&"a", &"c", &"b"]),
            vec![Some(1), None, Some(2)]
        );
        cache.forget(&"a");
        assert_eq!(cache.get(&"a"), None);
        assert_eq!(cache.get(&"b"), Some(2));
        cache.clear();
        assert_eq!(cache.get(&"b"), None);
    }

    #[test]
    fn values_expire_after_the_time_to_live() {
        // (Freshness within the time to live is shown above with a TTL of a minute; no
        // assertion here depends on how fast this thread runs.)
        let cache = TtlCache::new(Duration::from_millis(20));
        cache.put("a", 1);
        std::thread::sleep(Duration::from_millis(30));
        assert_eq!(cache.get(&"a"), None);
    }

    #[test]
    fn a_zero_time_to_live_keeps_nothing() {
        let cache = TtlCache::new(Duration::ZERO);
        cache.put("a", 1);
        assert!(cache.is_off());
        assert_eq!(cache.get(&"a"), None);
    }
}

//! [`SortedMap`]: a map kept as a vector of entries sorted by key, for the small maps of
//! linear forms ([`crate::arith::Lin`]) and potentials ([`crate::arith::Poly`]).
//!
//! `BTreeMap` allocates a node of eleven entries for its first entry (about 1 kB for
//! `String ↦ Rat`), so every constraint of every assertion of a certificate cost a kilobyte
//! (issue 13). Iteration is in key order; equality and ordering are those of the sorted
//! entry sequence, as for `BTreeMap`: every comparison the kernel makes is unchanged. The
//! kernel keeps its own copy (it imports nothing from the inference).

use std::borrow::Borrow;
use std::fmt;

/// A map from `K` to `V` stored as entries sorted by key, each key at most once.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SortedMap<K, V> {
    entries: Vec<(K, V)>,
}

impl<K, V> Default for SortedMap<K, V> {
    fn default() -> Self {
        SortedMap { entries: Vec::new() }
    }
}

impl<K: fmt::Debug, V: fmt::Debug> fmt::Debug for SortedMap<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.entries.iter().map(|(k, v)| (k, v))).finish()
    }
}

impl<K, V> SortedMap<K, V> {
    /// The empty map.
    pub fn new() -> Self {
        SortedMap { entries: Vec::new() }
    }
    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }
    /// Whether the map has no entry.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
    /// The entries in key order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&K, &V)> + ExactSizeIterator + Clone {
        self.entries.iter().map(|(k, v)| (k, v))
    }
    /// The entries in key order, values mutable.
    pub fn iter_mut(&mut self) -> impl DoubleEndedIterator<Item = (&K, &mut V)> {
        self.entries.iter_mut().map(|(k, v)| (&*k, v))
    }
    /// The keys in order.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &K> + ExactSizeIterator + Clone {
        self.entries.iter().map(|(k, _)| k)
    }
    /// The values in key order.
    pub fn values(&self) -> impl DoubleEndedIterator<Item = &V> + ExactSizeIterator + Clone {
        self.entries.iter().map(|(_, v)| v)
    }
    /// The values in key order, mutable.
    pub fn values_mut(&mut self) -> impl DoubleEndedIterator<Item = &mut V> {
        self.entries.iter_mut().map(|(_, v)| v)
    }
    /// The values in key order, by value.
    pub fn into_values(self) -> impl DoubleEndedIterator<Item = V> {
        self.entries.into_iter().map(|(_, v)| v)
    }
    /// The keys in order, by value.
    pub fn into_keys(self) -> impl DoubleEndedIterator<Item = K> {
        self.entries.into_iter().map(|(k, _)| k)
    }
    /// Keeps the entries `f` accepts.
    pub fn retain(&mut self, mut f: impl FnMut(&K, &mut V) -> bool) {
        self.entries.retain_mut(|(k, v)| f(k, v));
    }
    /// The entry of the smallest key.
    pub fn first_key_value(&self) -> Option<(&K, &V)> {
        self.entries.first().map(|(k, v)| (k, v))
    }
    /// The entry of the largest key.
    pub fn last_key_value(&self) -> Option<(&K, &V)> {
        self.entries.last().map(|(k, v)| (k, v))
    }
    /// Removes every entry.
    pub fn clear(&mut self) {
        self.entries.clear();
    }
}

impl<K: Ord, V> SortedMap<K, V> {
    fn find<Q: Ord + ?Sized>(&self, k: &Q) -> Result<usize, usize>
    where
        K: Borrow<Q>,
    {
        self.entries.binary_search_by(|(x, _)| x.borrow().cmp(k))
    }
    /// The value of `k`.
    pub fn get<Q: Ord + ?Sized>(&self, k: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
    {
        self.find(k).ok().and_then(|i| self.entries.get(i)).map(|e| &e.1)
    }
    /// The value of `k`, mutable.
    pub fn get_mut<Q: Ord + ?Sized>(&mut self, k: &Q) -> Option<&mut V>
    where
        K: Borrow<Q>,
    {
        match self.find(k) {
            Ok(i) => self.entries.get_mut(i).map(|e| &mut e.1),
            Err(_) => None,
        }
    }
    /// Whether `k` has an entry.
    pub fn contains_key<Q: Ord + ?Sized>(&self, k: &Q) -> bool
    where
        K: Borrow<Q>,
    {
        self.find(k).is_ok()
    }
    /// Sets the value of `k`, returning the former one.
    pub fn insert(&mut self, k: K, v: V) -> Option<V> {
        match self.find(&k) {
            Ok(i) => self.entries.get_mut(i).map(|e| std::mem::replace(&mut e.1, v)),
            Err(i) => {
                self.entries.insert(i, (k, v));
                None
            }
        }
    }
    /// Removes the entry of `k`, returning its value.
    pub fn remove<Q: Ord + ?Sized>(&mut self, k: &Q) -> Option<V>
    where
        K: Borrow<Q>,
    {
        match self.find(k) {
            Ok(i) => Some(self.entries.remove(i).1),
            Err(_) => None,
        }
    }
}

impl<K: Ord + Clone, V> SortedMap<K, V> {
    /// The map with the keys of `self` and `other`, in one pass over both (linear in their
    /// sizes): a key of `self` alone keeps its value, a key of `other` alone gets
    /// `only(w)`, a key of both gets `both(v, w)`; `None` leaves the key out.
    pub fn merged<W>(
        &self,
        other: &SortedMap<K, W>,
        mut both: impl FnMut(&V, &W) -> Option<V>,
        mut only: impl FnMut(&W) -> Option<V>,
    ) -> Self
    where
        V: Clone,
    {
        let mut out: Vec<(K, V)> = Vec::with_capacity(self.len() + other.len());
        let (mut a, mut b) = (self.entries.iter().peekable(), other.entries.iter().peekable());
        loop {
            let ord = match (a.peek(), b.peek()) {
                (Some(x), Some(y)) => x.0.cmp(&y.0),
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (None, None) => break,
            };
            match ord {
                std::cmp::Ordering::Less => out.extend(a.next().map(|(k, v)| (k.clone(), v.clone()))),
                std::cmp::Ordering::Greater => {
                    if let Some((k, w)) = b.next() {
                        out.extend(only(w).map(|v| (k.clone(), v)));
                    }
                }
                std::cmp::Ordering::Equal => {
                    if let (Some((k, v)), Some((_, w))) = (a.next(), b.next()) {
                        out.extend(both(v, w).map(|v| (k.clone(), v)));
                    }
                }
            }
        }
        SortedMap { entries: out }
    }
}

impl<K: Ord, V> SortedMap<K, V> {
    /// The map of `entries` (in any order) where the values of a key repeated are combined
    /// by `combine`, in order, and a key whose combined value `keep` rejects is left out.
    pub fn combined(mut entries: Vec<(K, V)>, mut combine: impl FnMut(&V, &V) -> V, keep: impl Fn(&V) -> bool) -> Self {
        // stable: the values of a key are combined in the order given
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        let mut out: Vec<(K, V)> = Vec::with_capacity(entries.len());
        for (k, v) in entries {
            match out.last_mut() {
                Some(last) if last.0 == k => last.1 = combine(&last.1, &v),
                _ => out.push((k, v)),
            }
        }
        out.retain(|(_, v)| keep(v));
        SortedMap { entries: out }
    }
}

impl<K: Ord, V> FromIterator<(K, V)> for SortedMap<K, V> {
    /// As `BTreeMap`: a later entry for a key replaces an earlier one.
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        let mut entries: Vec<(K, V)> = iter.into_iter().collect();
        // stable: equal keys keep their order, and the last one wins below
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        let mut out: Vec<(K, V)> = Vec::with_capacity(entries.len());
        for (k, v) in entries {
            match out.last_mut() {
                Some(last) if last.0 == k => last.1 = v,
                _ => out.push((k, v)),
            }
        }
        SortedMap { entries: out }
    }
}

impl<K: Ord, V> Extend<(K, V)> for SortedMap<K, V> {
    fn extend<I: IntoIterator<Item = (K, V)>>(&mut self, iter: I) {
        for (k, v) in iter {
            self.insert(k, v);
        }
    }
}

impl<K, V> IntoIterator for SortedMap<K, V> {
    type Item = (K, V);
    type IntoIter = std::vec::IntoIter<(K, V)>;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
    }
}

/// An entry by reference as a pair of references.
type PairRef<'a, K, V> = fn(&'a (K, V)) -> (&'a K, &'a V);

impl<'a, K, V> IntoIterator for &'a SortedMap<K, V> {
    type Item = (&'a K, &'a V);
    type IntoIter = std::iter::Map<std::slice::Iter<'a, (K, V)>, PairRef<'a, K, V>>;
    fn into_iter(self) -> Self::IntoIter {
        fn pair<K, V>(e: &(K, V)) -> (&K, &V) {
            (&e.0, &e.1)
        }
        self.entries.iter().map(pair as PairRef<'a, K, V>)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// The same operations on a `SortedMap` and a `BTreeMap` give the same entries in the
    /// same order, and the same comparisons (the `BTreeMap` is the reference).
    #[test]
    fn agrees_with_btreemap() {
        let ops: [(u8, i32); 12] =
            [(5, 1), (3, 2), (9, 3), (3, 4), (0, 5), (7, 6), (5, 7), (1, 8), (9, 9), (2, 10), (4, 11), (8, 12)];
        let (mut s, mut b) = (SortedMap::new(), BTreeMap::new());
        for (i, &(k, v)) in ops.iter().enumerate() {
            if i % 4 == 3 {
                assert_eq!(s.remove(&k), b.remove(&k));
            } else {
                assert_eq!(s.insert(k, v), b.insert(k, v));
            }
            assert_eq!(s.iter().collect::<Vec<_>>(), b.iter().collect::<Vec<_>>());
            assert_eq!(s.get(&k), b.get(&k));
        }
        s.retain(|k, _| k % 2 == 0);
        b.retain(|k, _| k % 2 == 0);
        assert_eq!(s.clone().into_iter().collect::<Vec<_>>(), b.clone().into_iter().collect::<Vec<_>>());
        let c: SortedMap<u8, i32> = ops.iter().copied().collect();
        let d: BTreeMap<u8, i32> = ops.iter().copied().collect();
        assert_eq!(c.iter().collect::<Vec<_>>(), d.iter().collect::<Vec<_>>());
        assert_eq!(format!("{c:?}"), format!("{d:?}"));
        // the order of maps is that of their entry sequences
        let e: SortedMap<u8, i32> = [(0, 5), (1, 9)].into_iter().collect();
        let f: BTreeMap<u8, i32> = [(0, 5), (1, 9)].into_iter().collect();
        assert_eq!(c.cmp(&e), d.cmp(&f));
        assert_eq!(e.cmp(&c), f.cmp(&d));
    }
}

//! [`SortedMap`]: a map kept as a vector of entries sorted by key, for the small maps of
//! linear forms ([`crate::arith::Lin`]) and potentials ([`crate::arith::Poly`]).
//!
//! `BTreeMap` allocates a node of eleven entries for its first entry (about 1 kB for
//! `String ↦ Rat`), so every constraint of every assertion of a certificate cost a kilobyte
//! (issue 13). Iteration is in key order; equality and ordering are those of the sorted
//! entry sequence, as for `BTreeMap`: every comparison the kernel makes is unchanged. The
//! kernel keeps its own copy (it imports nothing from the inference).
//!
//! The entry vector is shared (`Arc`, so that values stay `Send`) between copies and copied on the first change of a
//! shared one (copy on write): a constraint list built from a base list (a `(p NAME BASE …)`
//! entry, issue 13) shares its constraints' terms instead of copying every name and
//! coefficient. An empty map holds no vector (no allocation).

use std::borrow::Borrow;
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// A map from `K` to `V` stored as entries sorted by key, each key at most once.
#[derive(Clone)]
pub struct SortedMap<K, V> {
    /// The entries (`None`: no entry); shared between clones until one of them changes.
    entries: Option<Arc<Vec<(K, V)>>>,
}

impl<K, V> Default for SortedMap<K, V> {
    fn default() -> Self {
        SortedMap { entries: None }
    }
}

impl<K: fmt::Debug, V: fmt::Debug> fmt::Debug for SortedMap<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.slice().iter().map(|(k, v)| (k, v))).finish()
    }
}

// Equality, order and hash are those of the entry sequence (`None` and an empty vector
// are the same empty map).
impl<K: PartialEq, V: PartialEq> PartialEq for SortedMap<K, V> {
    fn eq(&self, other: &Self) -> bool {
        self.slice() == other.slice()
    }
}

impl<K: Eq, V: Eq> Eq for SortedMap<K, V> {}

impl<K: PartialOrd, V: PartialOrd> PartialOrd for SortedMap<K, V> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        self.slice().partial_cmp(other.slice())
    }
}

impl<K: Ord, V: Ord> Ord for SortedMap<K, V> {
    fn cmp(&self, other: &Self) -> Ordering {
        self.slice().cmp(other.slice())
    }
}

impl<K: Hash, V: Hash> Hash for SortedMap<K, V> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.slice().hash(state);
    }
}

impl<K, V> SortedMap<K, V> {
    /// The empty map.
    pub fn new() -> Self {
        SortedMap { entries: None }
    }
    /// The entries in key order.
    fn slice(&self) -> &[(K, V)] {
        self.entries.as_deref().map_or(&[], Vec::as_slice)
    }
    /// A map of entries already sorted by key, each key once.
    fn of(entries: Vec<(K, V)>) -> Self {
        SortedMap { entries: (!entries.is_empty()).then(|| Arc::new(entries)) }
    }
    /// Number of entries.
    pub fn len(&self) -> usize {
        self.slice().len()
    }
    /// Whether the map has no entry.
    pub fn is_empty(&self) -> bool {
        self.slice().is_empty()
    }
    /// The entries in key order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&K, &V)> + ExactSizeIterator + Clone {
        self.slice().iter().map(|(k, v)| (k, v))
    }
    /// The keys in order.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &K> + ExactSizeIterator + Clone {
        self.slice().iter().map(|(k, _)| k)
    }
    /// The values in key order.
    pub fn values(&self) -> impl DoubleEndedIterator<Item = &V> + ExactSizeIterator + Clone {
        self.slice().iter().map(|(_, v)| v)
    }
    /// The entry of the smallest key.
    pub fn first_key_value(&self) -> Option<(&K, &V)> {
        self.slice().first().map(|(k, v)| (k, v))
    }
    /// The entry of the largest key.
    pub fn last_key_value(&self) -> Option<(&K, &V)> {
        self.slice().last().map(|(k, v)| (k, v))
    }
    /// Removes every entry.
    pub fn clear(&mut self) {
        self.entries = None;
    }
    /// Frees the entry vector's spare capacity when no other map shares it (the entries
    /// are unchanged).
    pub fn shrink_to_fit(&mut self) {
        if let Some(v) = self.entries.as_mut().and_then(Arc::get_mut) {
            v.shrink_to_fit();
        }
    }
}

impl<K: Clone, V: Clone> SortedMap<K, V> {
    /// The entries, for a change: copied first when another map shares them.
    fn vec_mut(&mut self) -> &mut Vec<(K, V)> {
        Arc::make_mut(self.entries.get_or_insert_with(Arc::default))
    }
    /// The entries by value (copied when another map shares them).
    fn into_vec(self) -> Vec<(K, V)> {
        self.entries.map(|rc| Arc::try_unwrap(rc).unwrap_or_else(|rc| (*rc).clone())).unwrap_or_default()
    }
    /// The entries in key order, values mutable.
    pub fn iter_mut(&mut self) -> impl DoubleEndedIterator<Item = (&K, &mut V)> {
        self.vec_mut().iter_mut().map(|(k, v)| (&*k, v))
    }
    /// The values in key order, mutable.
    pub fn values_mut(&mut self) -> impl DoubleEndedIterator<Item = &mut V> {
        self.vec_mut().iter_mut().map(|(_, v)| v)
    }
    /// The values in key order, by value.
    pub fn into_values(self) -> impl DoubleEndedIterator<Item = V> {
        self.into_vec().into_iter().map(|(_, v)| v)
    }
    /// The keys in order, by value.
    pub fn into_keys(self) -> impl DoubleEndedIterator<Item = K> {
        self.into_vec().into_iter().map(|(k, _)| k)
    }
    /// Keeps the entries `f` accepts.
    pub fn retain(&mut self, mut f: impl FnMut(&K, &mut V) -> bool) {
        if self.entries.is_some() {
            self.vec_mut().retain_mut(|(k, v)| f(k, v));
        }
    }
}

impl<K: Ord, V> SortedMap<K, V> {
    fn find<Q: Ord + ?Sized>(&self, k: &Q) -> Result<usize, usize>
    where
        K: Borrow<Q>,
    {
        self.slice().binary_search_by(|(x, _)| x.borrow().cmp(k))
    }
    /// The value of `k`.
    pub fn get<Q: Ord + ?Sized>(&self, k: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
    {
        self.find(k).ok().and_then(|i| self.slice().get(i)).map(|e| &e.1)
    }
    /// Whether `k` has an entry.
    pub fn contains_key<Q: Ord + ?Sized>(&self, k: &Q) -> bool
    where
        K: Borrow<Q>,
    {
        self.find(k).is_ok()
    }
}

impl<K: Ord + Clone, V: Clone> SortedMap<K, V> {
    /// The value of `k`, mutable.
    pub fn get_mut<Q: Ord + ?Sized>(&mut self, k: &Q) -> Option<&mut V>
    where
        K: Borrow<Q>,
    {
        match self.find(k) {
            Ok(i) => self.vec_mut().get_mut(i).map(|e| &mut e.1),
            Err(_) => None,
        }
    }
    /// Sets the value of `k`, returning the former one.
    pub fn insert(&mut self, k: K, v: V) -> Option<V> {
        match self.find(&k) {
            Ok(i) => self.vec_mut().get_mut(i).map(|e| std::mem::replace(&mut e.1, v)),
            // the first entry of an empty map: a vector of one entry (issue 13: an empty
            // vector reserves four on its first push, and most maps of a certificate
            // node's fields hold one entry)
            Err(_) if self.entries.is_none() => {
                self.entries = Some(Arc::new(vec![(k, v)]));
                None
            }
            Err(i) => {
                self.vec_mut().insert(i, (k, v));
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
            Ok(i) => Some(self.vec_mut().remove(i).1),
            Err(_) => None,
        }
    }
    /// The map with the keys of `self` and `other`, in one pass over both (linear in their
    /// sizes): a key of `self` alone keeps its value, a key of `other` alone gets
    /// `only(w)`, a key of both gets `both(v, w)`; `None` leaves the key out.
    pub fn merged<W>(
        &self,
        other: &SortedMap<K, W>,
        mut both: impl FnMut(&V, &W) -> Option<V>,
        mut only: impl FnMut(&W) -> Option<V>,
    ) -> Self {
        let mut out: Vec<(K, V)> = Vec::with_capacity(self.len() + other.len());
        let (mut a, mut b) = (self.slice().iter().peekable(), other.slice().iter().peekable());
        loop {
            let ord = match (a.peek(), b.peek()) {
                (Some(x), Some(y)) => x.0.cmp(&y.0),
                (Some(_), None) => Ordering::Less,
                (None, Some(_)) => Ordering::Greater,
                (None, None) => break,
            };
            match ord {
                Ordering::Less => out.extend(a.next().map(|(k, v)| (k.clone(), v.clone()))),
                Ordering::Greater => {
                    if let Some((k, w)) = b.next() {
                        out.extend(only(w).map(|v| (k.clone(), v)));
                    }
                }
                Ordering::Equal => {
                    if let (Some((k, v)), Some((_, w))) = (a.next(), b.next()) {
                        out.extend(both(v, w).map(|v| (k.clone(), v)));
                    }
                }
            }
        }
        SortedMap::of(out)
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
        SortedMap::of(out)
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
        SortedMap::of(out)
    }
}

impl<K: Ord + Clone, V: Clone> Extend<(K, V)> for SortedMap<K, V> {
    fn extend<I: IntoIterator<Item = (K, V)>>(&mut self, iter: I) {
        for (k, v) in iter {
            self.insert(k, v);
        }
    }
}

impl<K: Clone, V: Clone> IntoIterator for SortedMap<K, V> {
    type Item = (K, V);
    type IntoIter = std::vec::IntoIter<(K, V)>;
    fn into_iter(self) -> Self::IntoIter {
        self.into_vec().into_iter()
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
        self.slice().iter().map(pair as PairRef<'a, K, V>)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
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
        // shrink_to_fit keeps the entries, of a shared map (a clone holds them) and not
        let shared = s.clone();
        s.shrink_to_fit();
        assert_eq!(s.iter().collect::<Vec<_>>(), b.iter().collect::<Vec<_>>());
        assert_eq!(shared, s);
        drop(shared);
        s.shrink_to_fit();
        assert_eq!(s.iter().collect::<Vec<_>>(), b.iter().collect::<Vec<_>>());
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

    /// Copies share their entries until one changes: a change to a copy leaves the
    /// original as it was, and a map emptied by removals equals a new one.
    #[test]
    fn copies_change_alone() {
        let a: SortedMap<u8, i32> = [(1, 10), (2, 20)].into_iter().collect();
        let mut b = a.clone();
        b.insert(3, 30);
        *b.get_mut(&1).unwrap() = 11;
        assert_eq!(a.iter().collect::<Vec<_>>(), [(&1, &10), (&2, &20)]);
        assert_eq!(b.iter().collect::<Vec<_>>(), [(&1, &11), (&2, &20), (&3, &30)]);
        let mut c = a.clone();
        c.remove(&1);
        c.remove(&2);
        assert_eq!(c, SortedMap::new());
        assert!(c.is_empty() && c.cmp(&SortedMap::new()) == std::cmp::Ordering::Equal);
        assert_eq!(a.len(), 2);
        assert_eq!(a.clone().into_iter().collect::<Vec<_>>(), [(1, 10), (2, 20)]);
    }
}

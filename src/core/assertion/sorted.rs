//! [`SortedMap`]: the terms of linear forms ([`super::linear::Lin`]) and potentials
//! ([`super::poly::PolyT`]) as a vector of entries sorted by key (issue 13: a `BTreeMap`
//! allocates an eleven-entry node, about 1 kB, for its first entry).
//!
//! The map is the trusted kernel's own (`warpcert_kernel::sorted`, tested there against
//! `BTreeMap`): the inference may use the kernel's data structures, the kernel never the
//! inference's, so one copy serves both (iteration in key order; equality and ordering
//! those of the sorted entry sequence, as for `BTreeMap`).

pub use warpcert_kernel::sorted::SortedMap;

/// A [`SortedMap`] shared between values (`Arc`), copied on the first write
/// ([`SharedMap::make_mut`]); reads go through `Deref`, and `&SharedMap` iterates like
/// `&SortedMap` (issue 13: potentials copied from node to node share their terms).
#[derive(Clone)]
pub struct SharedMap<K, V>(std::sync::Arc<SortedMap<K, V>>);

impl<K: PartialEq, V: PartialEq> PartialEq for SharedMap<K, V> {
    /// Equal entries; one shared map is equal to itself without reading it.
    fn eq(&self, other: &Self) -> bool {
        SharedMap::ptr_eq(self, other) || *self.0 == *other.0
    }
}

impl<K: Clone, V: Clone> SharedMap<K, V> {
    /// The map, to change it: copied first when another value shares it.
    pub fn make_mut(&mut self) -> &mut SortedMap<K, V> {
        std::sync::Arc::make_mut(&mut self.0)
    }
}

impl<K, V> SharedMap<K, V> {
    /// Whether `a` and `b` are one shared map (then equal).
    pub fn ptr_eq(a: &Self, b: &Self) -> bool {
        std::sync::Arc::ptr_eq(&a.0, &b.0)
    }

    /// The address of the shared map: two values with one address are one map (equal);
    /// an address identifies a map only while a value holding it is alive.
    pub fn addr(&self) -> usize {
        std::sync::Arc::as_ptr(&self.0) as usize
    }
}

impl<K, V> Default for SharedMap<K, V> {
    /// The empty map.
    fn default() -> Self {
        SharedMap(std::sync::Arc::new(SortedMap::default()))
    }
}

impl<K, V> std::ops::Deref for SharedMap<K, V> {
    type Target = SortedMap<K, V>;
    fn deref(&self) -> &SortedMap<K, V> {
        &self.0
    }
}

impl<'a, K, V> IntoIterator for &'a SharedMap<K, V> {
    type Item = <&'a SortedMap<K, V> as IntoIterator>::Item;
    type IntoIter = <&'a SortedMap<K, V> as IntoIterator>::IntoIter;
    fn into_iter(self) -> Self::IntoIter {
        (&*self.0).into_iter()
    }
}

impl<K: std::fmt::Debug, V: std::fmt::Debug> std::fmt::Debug for SharedMap<K, V> {
    /// As the map itself.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

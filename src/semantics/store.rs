//! Stores (RaCUDA §3: `σ` with domain `(Arrays × ℤ) ∪ (LocalVars × Threads)`) and the input
//! model for cells that were never written.
//!
//! * Only written cells are stored ([`Cells`]: a dense window indexed by element, a hash map
//!   for arrays whose writes are scattered), updated in place, so no step copies the store. A cell that was never written reads its *input value*: from an explicit
//!   [`ArrayInit`] when one is given for the array, otherwise from the run's [`Input`].
//! * Global arrays live for the whole kernel run and are shared by all blocks; shared arrays
//!   are reset to their input at the start of every block (one copy per block).
//! * Indices are any `i64` (the paper lets out-of-bounds indices read "some default value";
//!   here they read the input value like every other unwritten cell).
//! * Locals are kept per warp, one value per (local, lane), see `lockstep`.

use super::value::Value;
use super::SemError;
use crate::core::{Program, Space, Ty};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// The content of array cells that were never written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Input {
    /// `0`, `0.0`, `false`.
    #[default]
    Zero,
    /// A deterministic pseudo-random value computed from `(seed, array name, index)`:
    /// ints uniformly in `0..=255`, floats in `[0, 1)`, booleans either way. The same
    /// triple always gives the same value (across runs, platforms and versions of this crate).
    Random(u64),
}

/// Explicit initial content of one array (adversarial inputs, e.g. all elements equal).
#[derive(Clone, Debug, PartialEq)]
pub enum ArrayInit {
    /// Every cell holds this value.
    Fill(Value),
    /// Cells `0 .. len` hold these values; every other cell reads the run's [`Input`].
    Values(Vec<Value>),
}

/// All inputs of a run besides the parameters: the default [`Input`] and explicit array
/// contents by array name.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Inputs {
    /// Content of unwritten cells of arrays without an explicit [`ArrayInit`].
    pub default: Input,
    /// Explicit contents, by array name.
    pub arrays: BTreeMap<String, ArrayInit>,
}

impl Inputs {
    /// All unwritten cells read `0`/`0.0`/`false`.
    pub fn zero() -> Inputs {
        Inputs::default()
    }
    /// All unwritten cells read [`Input::Random`]`(seed)`.
    pub fn random(seed: u64) -> Inputs {
        Inputs {
            default: Input::Random(seed),
            arrays: BTreeMap::new(),
        }
    }
    /// Adds an explicit content for array `name` (builder style).
    pub fn with_array(mut self, name: &str, init: ArrayInit) -> Inputs {
        self.arrays.insert(name.to_string(), init);
        self
    }
}

/// SplitMix64 finalizer (a bijective 64-bit mixer).
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A hasher for the interpreter's name tables (locals, arrays, parameters): FNV-1a, much
/// faster than `std`'s SipHash on short names (no need for DoS resistance here).
#[derive(Clone, Copy, Debug)]
pub struct NameHasher(u64);

impl Default for NameHasher {
    fn default() -> Self {
        NameHasher(0xcbf2_9ce4_8422_2325)
    }
}

impl std::hash::Hasher for NameHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= *b as u64;
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01B3);
        }
    }
}

/// A hash map keyed by names, hashed with [`NameHasher`].
pub type NameMap<K, V> = HashMap<K, V, std::hash::BuildHasherDefault<NameHasher>>;

/// FNV-1a hash of a name (stable across platforms, unlike `std`'s hasher).
fn fnv1a(s: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01B3);
    }
    h
}

/// The pseudo-random input value of cell `index` of array `array` with element type `ty`
/// under [`Input::Random`]`(seed)`: ints in `0..=255`, floats in `[0, 1)` (multiples of
/// `2^-53`), booleans uniform.
pub fn random_value(seed: u64, array: &str, index: i64, ty: Ty) -> Value {
    random_of(random_key(seed, array), index, ty)
}

/// The part of [`random_value`] that depends on the seed and the array only.
fn random_key(seed: u64, array: &str) -> u64 {
    mix(seed ^ fnv1a(array))
}

/// [`random_value`] from the array's [`random_key`].
fn random_of(key: u64, index: i64, ty: Ty) -> Value {
    let h = mix(key ^ index as u64);
    match ty {
        Ty::Int => Value::Int((h & 0xFF) as i64),
        Ty::Bool => Value::Bool(h & 1 == 1),
        Ty::Float => Value::Float((h >> 11) as f64 / (1u64 << 53) as f64),
    }
}

/// Written cells of one array, indexed by element.
///
/// Dense while the written cells are not too sparse: one window `lo .. lo + vals.len()` of
/// optional values, grown (amortised doubling, in the direction of the new index) as
/// writes fall outside it; a hash map once a write would make the window longer than
/// [`DENSE_MIN`] and more than [`DENSE_FACTOR`] times the number of written cells (a few
/// scattered indices far apart, or huge indices). A map never turns back into a window.
#[derive(Clone, Debug)]
pub(crate) enum Cells<T> {
    /// `vals[k]` is cell `lo + k`; `count` cells are `Some`.
    Dense {
        lo: i64,
        vals: Vec<Option<T>>,
        count: usize,
    },
    /// Sparse cells.
    Sparse(HashMap<i64, T>),
}

/// Windows up to this many cells stay dense whatever their density.
pub(crate) const DENSE_MIN: usize = 4096;
/// Beyond [`DENSE_MIN`], a window stays dense while it is at most this many times longer
/// than the number of written cells.
pub(crate) const DENSE_FACTOR: usize = 8;

impl<T: Copy> Default for Cells<T> {
    fn default() -> Self {
        Cells::Dense {
            lo: 0,
            vals: Vec::new(),
            count: 0,
        }
    }
}

impl<T: Copy> Cells<T> {
    /// The cell `index`, if written.
    #[inline]
    pub(crate) fn get(&self, index: i64) -> Option<T> {
        match self {
            Cells::Dense { lo, vals, .. } => {
                let k = index.checked_sub(*lo)?;
                vals.get(usize::try_from(k).ok()?).copied().flatten()
            }
            Cells::Sparse(m) => m.get(&index).copied(),
        }
    }

    /// Writes `v` into cell `index`.
    #[inline]
    pub(crate) fn set(&mut self, index: i64, v: T) {
        if let Cells::Dense { lo, vals, count } = self {
            if let Some(slot) = index
                .checked_sub(*lo)
                .and_then(|k| usize::try_from(k).ok())
                .and_then(|k| vals.get_mut(k))
            {
                if slot.is_none() {
                    *count += 1;
                }
                *slot = Some(v);
                return;
            }
            if !self.grow_to(index) {
                self.make_sparse();
            }
        }
        match self {
            Cells::Dense { lo, vals, count } => {
                // `grow_to` made `index` part of the window.
                let k = (index - *lo) as usize;
                if vals[k].is_none() {
                    *count += 1;
                }
                vals[k] = Some(v);
            }
            Cells::Sparse(m) => {
                m.insert(index, v);
            }
        }
    }

    /// Whether `self` is a dense window holding `index`.
    fn covers(&self, index: i64) -> bool {
        match self {
            Cells::Dense { lo, vals, .. } => index
                .checked_sub(*lo)
                .and_then(|k| usize::try_from(k).ok())
                .is_some_and(|k| k < vals.len()),
            Cells::Sparse(_) => false,
        }
    }

    /// Extends a dense window so that it holds `index`; `false` (window unchanged) when the
    /// result would be too sparse.
    fn grow_to(&mut self, index: i64) -> bool {
        let Cells::Dense { lo, vals, count } = self else {
            return false;
        };
        let len = vals.len() as i128;
        let (lo_w, hi_w) = (*lo as i128, *lo as i128 + len);
        let (i, empty) = (index as i128, vals.is_empty());
        let (need_lo, need_hi) = if empty {
            (i, i + 1)
        } else {
            (lo_w.min(i), hi_w.max(i + 1))
        };
        let need = need_hi - need_lo;
        if need > DENSE_MIN as i128 && need > (DENSE_FACTOR * (*count + 1)) as i128 {
            return false;
        }
        // Amortised doubling in the direction of growth, clamped to the `i64` range.
        let target = need.max(2 * len).max(16);
        let (new_lo, new_hi) = if empty || i >= hi_w {
            (need_lo, (need_lo + target).min(i64::MAX as i128))
        } else {
            ((need_hi - target).max(i64::MIN as i128), need_hi)
        };
        let new_len = (new_hi - new_lo) as usize;
        if empty {
            vals.clear();
            vals.resize(new_len, None);
        } else {
            let front = (lo_w - new_lo) as usize;
            let mut fresh: Vec<Option<T>> = Vec::with_capacity(new_len);
            fresh.resize(front, None);
            fresh.extend_from_slice(vals);
            fresh.resize(new_len, None);
            *vals = fresh;
        }
        *lo = new_lo as i64;
        true
    }

    fn make_sparse(&mut self) {
        let m: HashMap<i64, T> = self.iter().collect();
        *self = Cells::Sparse(m);
    }

    /// The written cells (dense: ascending index; sparse: any order).
    pub(crate) fn iter(&self) -> Box<dyn Iterator<Item = (i64, T)> + '_> {
        match self {
            Cells::Dense { lo, vals, .. } => Box::new(
                vals.iter()
                    .enumerate()
                    .filter_map(move |(k, v)| v.map(|v| (*lo + k as i64, v))),
            ),
            Cells::Sparse(m) => Box::new(m.iter().map(|(i, v)| (*i, *v))),
        }
    }

    /// Writes every written cell of `other` into `self`, in ascending index order when
    /// `other` is dense (what `for (i, v) in other.iter() { self.set(i, v) }` does, without
    /// the boxed iterator).
    pub(crate) fn set_all(&mut self, other: &Cells<T>) {
        match other {
            Cells::Dense { count: 0, .. } => {}
            Cells::Dense { lo, vals, .. } => {
                let first = vals.iter().position(Option::is_some);
                let last = vals.iter().rposition(Option::is_some);
                let (Some(a), Some(b)) = (first, last) else {
                    return;
                };
                let (from, to) = (*lo + a as i64, *lo + b as i64);
                // Fast path: a dense window covering `from ..= to` (grown as `set` would
                // grow it) takes the cells slot by slot; otherwise cell by cell.
                let covered = (self.covers(from) || self.grow_to(from))
                    && (self.covers(to) || self.grow_to(to));
                if let (
                    true,
                    Cells::Dense {
                        lo: l2,
                        vals: v2,
                        count,
                    },
                ) = (covered, &mut *self)
                {
                    let off = (from - *l2) as usize;
                    let dst = &mut v2[off..off + (b - a + 1)];
                    for (d, v) in dst.iter_mut().zip(&vals[a..=b]) {
                        if v.is_some() {
                            if d.is_none() {
                                *count += 1;
                            }
                            *d = *v;
                        }
                    }
                    return;
                }
                for (k, v) in vals.iter().enumerate() {
                    if let Some(v) = v {
                        self.set(*lo + k as i64, *v);
                    }
                }
            }
            Cells::Sparse(m) => {
                for (i, v) in m {
                    self.set(*i, *v);
                }
            }
        }
    }

    /// Forgets every cell, keeping a dense window's allocation.
    pub(crate) fn clear(&mut self) {
        match self {
            Cells::Dense { lo, vals, count } => {
                *lo = 0;
                vals.clear();
                *count = 0;
            }
            Cells::Sparse(_) => *self = Cells::default(),
        }
    }
}

/// The cells of one array.
#[derive(Clone, Debug)]
pub struct ArrayCells {
    /// Array name.
    pub name: String,
    /// Global or shared.
    pub space: Space,
    /// Element type.
    pub elem: Ty,
    /// Element size in bytes (for `MemReads`/`Conflicts`).
    pub elem_bytes: u32,
    /// Written cells.
    cells: Cells<Value>,
    /// Explicit initial content, if any.
    init: Option<Arc<ArrayInit>>,
    /// Default input.
    input: Input,
    /// [`random_key`] of the array under [`Input::Random`] (0 otherwise).
    random_key: u64,
    /// An overlay's base: cells written before the overlay was made (parallel kernel runs,
    /// [`Memory::overlay`]); reads fall through to it, writes never reach it.
    base: Option<Arc<ArrayCells>>,
    /// Overlay only: indices read from the base (not written by the overlay itself), when
    /// requested by [`Memory::overlay`].
    base_reads: Option<Vec<i64>>,
}

impl ArrayCells {
    /// The value of cell `index`: the last value written, else the input value.
    #[inline]
    pub fn get(&self, index: i64) -> Value {
        // Down the chain of overlays' bases; the innermost array's input when none wrote it.
        let mut a = self;
        loop {
            if let Some(v) = a.cells.get(index) {
                return v;
            }
            match &a.base {
                Some(b) => a = b,
                None => return a.input_value(index),
            }
        }
    }

    /// The value of cell `index` as a rule reads it: as [`ArrayCells::get`], also logging a
    /// read that falls through to an overlay's base when the overlay logs them.
    #[inline]
    pub fn read(&mut self, index: i64) -> Value {
        if let Some(v) = self.cells.get(index) {
            return v;
        }
        if let Some(log) = self.base_reads.as_mut() {
            log.push(index);
        }
        match &self.base {
            Some(b) => b.get(index),
            None => self.input_value(index),
        }
    }

    /// The input value of cell `index` (never written).
    #[inline]
    fn input_value(&self, index: i64) -> Value {
        match self.init.as_deref() {
            Some(ArrayInit::Fill(v)) => return *v,
            Some(ArrayInit::Values(vs)) => {
                if let Some(v) = usize::try_from(index).ok().and_then(|i| vs.get(i)) {
                    return *v;
                }
            }
            None => {}
        }
        match self.input {
            Input::Zero => Value::default_of(self.elem),
            Input::Random(_) => random_of(self.random_key, index, self.elem),
        }
    }

    /// Writes `v` into cell `index`.
    #[inline]
    pub fn set(&mut self, index: i64, v: Value) {
        self.cells.set(index, v);
    }

    /// The written cells (including an overlay's base), sorted by index.
    pub fn written(&self) -> Vec<(i64, Value)> {
        let mut out: Vec<(i64, Value)> = self.cells.iter().collect();
        if let Some(b) = &self.base {
            out.extend(
                b.written()
                    .into_iter()
                    .filter(|(i, _)| self.cells.get(*i).is_none()),
            );
        }
        out.sort_by_key(|(i, _)| *i);
        out
    }

    /// Forgets every write (the array reads its input again): new block for shared arrays.
    pub fn reset(&mut self) {
        self.cells.clear();
        self.base = None;
        if let Some(log) = self.base_reads.as_mut() {
            log.clear();
        }
    }
}

/// The array part of the store `σ(A, n)`, one [`ArrayCells`] per array of the program, in
/// the order of `Program::arrays`.
#[derive(Clone, Debug)]
pub struct Memory {
    /// The arrays, in declaration order.
    pub arrays: Vec<ArrayCells>,
}

impl Memory {
    /// The initial memory of `prog` under `input`.
    ///
    /// Errors: [`SemError::BadInput`] when `input.arrays` names an array the program does not
    /// declare, or gives a value whose type is not the array's element type.
    pub fn new(prog: &Program, input: &Inputs) -> Result<Memory, SemError> {
        for (name, init) in &input.arrays {
            let decl = prog
                .array(name)
                .ok_or_else(|| SemError::BadInput(format!("no array `{name}` in the kernel")))?;
            let bad = match init {
                ArrayInit::Fill(v) => v.ty() != decl.elem,
                ArrayInit::Values(vs) => vs.iter().any(|v| v.ty() != decl.elem),
            };
            if bad {
                return Err(SemError::BadInput(format!(
                    "initial content of `{name}` must have element type {}",
                    decl.elem.keyword()
                )));
            }
        }
        let arrays = prog
            .arrays
            .iter()
            .map(|a| ArrayCells {
                name: a.name.clone(),
                space: a.space,
                elem: a.elem,
                elem_bytes: a.elem_bytes,
                cells: Cells::default(),
                init: input.arrays.get(&a.name).cloned().map(Arc::new),
                input: input.default,
                random_key: match input.default {
                    Input::Random(seed) => random_key(seed, &a.name),
                    Input::Zero => 0,
                },
                base: None,
                base_reads: None,
            })
            .collect();
        Ok(Memory { arrays })
    }

    /// The cells of array `name`.
    pub fn array(&self, name: &str) -> Option<&ArrayCells> {
        self.arrays.iter().find(|a| a.name == name)
    }

    /// `σ(A, index)`; `None` if there is no array `name`.
    pub fn read(&self, name: &str, index: i64) -> Option<Value> {
        self.array(name).map(|a| a.get(index))
    }

    /// Resets every shared array to its input (start of a new block).
    pub fn new_block(&mut self) {
        for a in &mut self.arrays {
            if a.space != Space::Global {
                a.reset();
            }
        }
    }

    /// The arrays, frozen to serve as the base of overlays ([`Memory::overlay`]).
    pub(crate) fn freeze(self) -> Vec<Arc<ArrayCells>> {
        self.arrays.into_iter().map(Arc::new).collect()
    }

    /// The memory of frozen arrays (copied only if an overlay still refers to one).
    pub(crate) fn thaw(base: Vec<Arc<ArrayCells>>) -> Memory {
        let arrays = base
            .into_iter()
            .map(|a| Arc::try_unwrap(a).unwrap_or_else(|a| (*a).clone()))
            .collect();
        Memory { arrays }
    }

    /// The memory one block starts from in a parallel kernel run: global arrays read
    /// through to `base` (their cells as left by the blocks before), shared arrays at their
    /// input. Global array `k` logs the indices it reads from `base` iff `log_reads[k]`.
    pub(crate) fn overlay(base: &[Arc<ArrayCells>], log_reads: &[bool]) -> Memory {
        let arrays = base
            .iter()
            .enumerate()
            .map(|(k, b)| {
                let global = b.space == Space::Global;
                ArrayCells {
                    name: b.name.clone(),
                    space: b.space,
                    elem: b.elem,
                    elem_bytes: b.elem_bytes,
                    cells: Cells::default(),
                    init: b.init.clone(),
                    input: b.input,
                    random_key: b.random_key,
                    base: global.then(|| Arc::clone(b)),
                    base_reads: (global && log_reads.get(k).copied().unwrap_or(false))
                        .then(Vec::new),
                }
            })
            .collect();
        Memory { arrays }
    }

    /// Overlay only: the indices array `k` read from its base (empty when not logged).
    pub(crate) fn base_reads(&self, k: usize) -> &[i64] {
        self.arrays
            .get(k)
            .and_then(|a| a.base_reads.as_deref())
            .unwrap_or(&[])
    }

    /// Overlay only: the cells array `k` wrote itself.
    pub(crate) fn own_writes(&self, k: usize) -> impl Iterator<Item = (i64, Value)> + '_ {
        self.arrays.get(k).into_iter().flat_map(|a| a.cells.iter())
    }

    /// Drops an overlay's references to its base (before the base is updated).
    pub(crate) fn detach(&mut self) {
        for a in &mut self.arrays {
            a.base = None;
            a.base_reads = None;
        }
    }

    /// Applies a detached overlay to `base` as if its block had run on it: every global
    /// cell it wrote is written (in index order), every shared array becomes the overlay's.
    pub(crate) fn absorb(base: &mut [Arc<ArrayCells>], overlay: Memory) {
        for (b, o) in base.iter_mut().zip(overlay.arrays) {
            let b = Arc::make_mut(b);
            match b.space {
                Space::Global => b.cells.set_all(&o.cells),
                Space::Shared | Space::Local => b.cells = o.cells,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Cells` against a `HashMap` model: writes near each other (dense window growing up
    /// and down), then far-apart and extreme indices (switch to the map); every read agrees
    /// with the model, and iteration yields exactly the model's cells.
    #[test]
    fn cells_agree_with_a_map_model() {
        let mut c: Cells<i64> = Cells::default();
        let mut model: HashMap<i64, i64> = HashMap::new();
        let mut x = 12345u64;
        let mut indices: Vec<i64> = Vec::new();
        for k in 0..5000i64 {
            x = mix(x);
            indices.push(1000 - k / 2 + (x % 64) as i64);
        }
        indices.extend([i64::MIN, i64::MAX, -7, 1 << 40, 3, 1 << 40]);
        for (n, &i) in indices.iter().enumerate() {
            c.set(i, n as i64);
            model.insert(i, n as i64);
            x = mix(x);
            let probe = indices[(x % (n as u64 + 1)) as usize];
            assert_eq!(c.get(probe), model.get(&probe).copied(), "probe {probe}");
            assert_eq!(
                c.get(probe.wrapping_add(100_000)),
                model.get(&probe.wrapping_add(100_000)).copied()
            );
        }
        assert!(
            matches!(c, Cells::Sparse(_)),
            "extreme indices make the cells sparse"
        );
        let mut got: Vec<(i64, i64)> = c.iter().collect();
        got.sort();
        let mut want: Vec<(i64, i64)> = model.into_iter().collect();
        want.sort();
        assert_eq!(got, want);
    }

    /// `set_all` (the bulk copy of a kernel run's absorb) agrees with writing the other
    /// cells one by one: windows inside, overlapping, below, far above (the base turns
    /// sparse) and a sparse source; the expected cells come from the per-cell `set`.
    #[test]
    fn set_all_agrees_with_cell_by_cell_writes() {
        let mut x = 777u64;
        let mut bulk: Cells<i64> = Cells::default();
        let mut each: Cells<i64> = Cells::default();
        for (start, len) in [
            (0i64, 300i64),
            (100, 50),
            (-500, 40),
            (250, 400),
            (1 << 30, 3),
        ] {
            let mut src: Cells<i64> = Cells::default();
            for k in 0..len {
                x = mix(x);
                if !x.is_multiple_of(3) {
                    src.set(start + k, (x % 1000) as i64);
                }
            }
            bulk.set_all(&src);
            for (i, v) in src.iter() {
                each.set(i, v);
            }
            let mut got: Vec<(i64, i64)> = bulk.iter().collect();
            let mut want: Vec<(i64, i64)> = each.iter().collect();
            got.sort();
            want.sort();
            assert_eq!(got, want, "after the window at {start}");
        }
        let sparse = Cells::Sparse(HashMap::from([(5i64, 1i64), (1 << 40, 2)]));
        bulk.set_all(&sparse);
        assert_eq!(bulk.get(5), Some(1));
        assert_eq!(bulk.get(1 << 40), Some(2));
    }

    /// Dense writes over a contiguous range stay dense.
    #[test]
    fn contiguous_writes_stay_dense() {
        let mut c: Cells<i64> = Cells::default();
        for i in (0..100_000).rev() {
            c.set(i, i);
        }
        assert!(matches!(c, Cells::Dense { .. }));
        assert_eq!(c.get(99_999), Some(99_999));
        assert_eq!(c.get(100_000), None);
        assert_eq!(c.get(-1), None);
    }
}

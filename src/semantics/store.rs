//! Stores (RaCUDA §3: `σ` with domain `(Arrays × ℤ) ∪ (LocalVars × Threads)`) and the input
//! model for cells that were never written.
//!
//! * Array cells are kept sparsely: only written cells are stored, so no step copies the
//!   store. A cell that was never written reads its *input value*: from an explicit
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
    let h = mix(mix(seed ^ fnv1a(array)) ^ index as u64);
    match ty {
        Ty::Int => Value::Int((h & 0xFF) as i64),
        Ty::Bool => Value::Bool(h & 1 == 1),
        Ty::Float => Value::Float((h >> 11) as f64 / (1u64 << 53) as f64),
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
    cells: HashMap<i64, Value>,
    /// Explicit initial content, if any.
    init: Option<ArrayInit>,
    /// Default input.
    input: Input,
}

impl ArrayCells {
    /// The value of cell `index`: the last value written, else the input value.
    pub fn get(&self, index: i64) -> Value {
        if let Some(v) = self.cells.get(&index) {
            return *v;
        }
        match &self.init {
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
            Input::Random(seed) => random_value(seed, &self.name, index, self.elem),
        }
    }

    /// Writes `v` into cell `index`.
    pub fn set(&mut self, index: i64, v: Value) {
        self.cells.insert(index, v);
    }

    /// The written cells, sorted by index.
    pub fn written(&self) -> Vec<(i64, Value)> {
        let mut out: Vec<(i64, Value)> = self.cells.iter().map(|(i, v)| (*i, *v)).collect();
        out.sort_by_key(|(i, _)| *i);
        out
    }

    /// Forgets every write (the array reads its input again): new block for shared arrays.
    pub fn reset(&mut self) {
        self.cells.clear();
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
                cells: HashMap::new(),
                init: input.arrays.get(&a.name).cloned(),
                input: input.default,
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
            if a.space == Space::Shared {
                a.reset();
            }
        }
    }
}

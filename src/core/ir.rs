//! Typed three-address miniCUDA (RaCUDA Fig. 2 plus `sync`, unary operators and the three
//! thread-index components kept apart).
//!
//! Shapes: operands are atoms (`x`, `p`, `c`, `threadIdx.d`); expressions apply at most one
//! operator to operands or read one array cell; statements are those of Fig. 2. Array
//! indices are counted in *elements*, not bytes; each array records its element size in
//! bytes so that `MemReads`/`Conflicts` can convert. Variable names, parameter names and
//! array names are disjoint (the lowering renames clashes).

use std::fmt;

/// Value types of miniCUDA (RaCUDA §3.1: `int`, `bool`, abstract base type `B`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Ty {
    /// Mathematical integers (all C integer types: `int`, `unsigned`, `char`, `long` ...).
    Int,
    /// Booleans (results of comparisons and logical operators).
    Bool,
    /// The abstract base type `B`: `float` and `double` values.
    Float,
}

impl Ty {
    /// The keyword used for this type in `spec/` and in certificates.
    pub fn keyword(self) -> &'static str {
        match self {
            Ty::Int => "int",
            Ty::Bool => "bool",
            Ty::Float => "float",
        }
    }
}

/// One of the three components of a CUDA index triple.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dim {
    /// `.x`, the fastest-varying component.
    X,
    /// `.y`
    Y,
    /// `.z`
    Z,
}

impl Dim {
    /// All three components, in linearization order (x fastest).
    pub const ALL: [Dim; 3] = [Dim::X, Dim::Y, Dim::Z];
    /// Index 0, 1, 2.
    pub fn index(self) -> usize {
        match self {
            Dim::X => 0,
            Dim::Y => 1,
            Dim::Z => 2,
        }
    }
    /// `x`, `y` or `z`.
    pub fn letter(self) -> char {
        match self {
            Dim::X => 'x',
            Dim::Y => 'y',
            Dim::Z => 'z',
        }
    }
}

/// Memory space of an array (RaCUDA's `G` and `S`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    /// Global memory: kernel pointer parameters. Accesses cost `M^gread(MemReads(R))`.
    Global,
    /// Shared memory: `__shared__` arrays. Accesses cost `M^sread(Conflicts(R))`.
    Shared,
    /// Thread-local arrays (registers/local memory, extension): one cell space per block,
    /// which the front end makes per-thread by indexing it with the thread's base
    /// (`spec/lowering.md` §5). A read costs `M^var`, a write `M^vwrite` (no sectors, no
    /// conflicts).
    Local,
}

impl Space {
    /// `global` or `shared`.
    pub fn keyword(self) -> &'static str {
        match self {
            Space::Global => "global",
            Space::Shared => "shared",
            Space::Local => "local",
        }
    }
}

/// A constant `c` of Fig. 2.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Const {
    /// Integer literal.
    Int(i64),
    /// Boolean literal.
    Bool(bool),
    /// Floating-point literal (abstract type `B`; only the semantics looks at its value).
    Float(f64),
}

/// Operands `o ::= x | p | c | tid` of Fig. 2, with `tid` split into its components.
#[derive(Clone, Debug, PartialEq)]
pub enum Operand {
    /// A thread-local variable.
    Var(String),
    /// A read-only parameter: a scalar kernel argument, `blockIdx.d`, or `gridDim.d`
    /// when the grid is left symbolic.
    Param(String),
    /// A constant.
    Const(Const),
    /// `threadIdx.d`: the component `d` of the thread index (RaCUDA's `tid`).
    Tid(Dim),
}

/// Declares an operator enum whose first variants are the binary operators miniCUDA takes
/// from C unchanged — `Add Sub Mul Div Rem Shl Shr BitAnd BitOr BitXor Lt Le Gt Ge Eq Ne`,
/// in this order — followed by the variants given. [`BinOp`] and the front end's
/// `ast::BinaryOp` are both declared with it, so the shared list is written once.
macro_rules! c_binary_ops {
    ($(#[$attr:meta])* $vis:vis enum $name:ident { $($(#[$vattr:meta])* $extra:ident,)* }) => {
        $(#[$attr])*
        $vis enum $name {
            Add, Sub, Mul, Div, Rem, Shl, Shr, BitAnd, BitOr, BitXor, Lt, Le, Gt, Ge, Eq, Ne,
            $($(#[$vattr])* $extra,)*
        }
    };
}
pub(crate) use c_binary_ops;

c_binary_ops! {
/// Binary operators (the `op` of Fig. 2). Integer `/` and `%` truncate toward zero as in C.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum BinOp {
    /// Logical and on two already-evaluated booleans (short circuit is lowered to `if`).
    And,
    /// Logical or on two already-evaluated booleans.
    Or,
    /// `min(a, b)`
    Min,
    /// `max(a, b)`
    Max,
}
}

impl BinOp {
    /// The symbol used in `spec/`, certificates and printed programs.
    pub fn symbol(self) -> &'static str {
        use BinOp::*;
        match self {
            Add => "+",
            Sub => "-",
            Mul => "*",
            Div => "/",
            Rem => "%",
            Shl => "<<",
            Shr => ">>",
            BitAnd => "&",
            BitOr => "|",
            BitXor => "^",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
            Eq => "==",
            Ne => "!=",
            And => "&&",
            Or => "||",
            Min => "min",
            Max => "max",
        }
    }
    /// Inverse of [`BinOp::symbol`].
    pub fn from_symbol(s: &str) -> Option<BinOp> {
        use BinOp::*;
        Some(match s {
            "+" => Add,
            "-" => Sub,
            "*" => Mul,
            "/" => Div,
            "%" => Rem,
            "<<" => Shl,
            ">>" => Shr,
            "&" => BitAnd,
            "|" => BitOr,
            "^" => BitXor,
            "<" => Lt,
            "<=" => Le,
            ">" => Gt,
            ">=" => Ge,
            "==" => Eq,
            "!=" => Ne,
            "&&" => And,
            "||" => Or,
            "min" => Min,
            "max" => Max,
            _ => return None,
        })
    }
    /// Whether the result is a boolean.
    pub fn is_comparison(self) -> bool {
        use BinOp::*;
        matches!(self, Lt | Le | Gt | Ge | Eq | Ne | And | Or)
    }
}

/// Unary operators (an extension of Fig. 2, charged like `op`: rule `EC:UOP`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnOp {
    /// Arithmetic negation `-o`.
    Neg,
    /// Logical negation `!o`.
    Not,
    /// Bitwise complement `~o`.
    BitNot,
    /// Conversion to the abstract float type `(float) o`.
    ToFloat,
    /// Conversion to an integer `(int) o` (truncation toward zero).
    ToInt,
    /// Conversion to a boolean (`o != 0`).
    ToBool,
    /// Population count `popc o`: the number of 1 bits of `o mod 2^64` (an `int`, `0..=64`;
    /// `__popcll`, and `__popc` on the low 32 bits).
    Popc,
    /// Find first set `ffs o`: 1 + the index of the lowest 1 bit of `o mod 2^64`, 0 when
    /// `o mod 2^64 = 0` (an `int`, `0..=64`; `__ffsll`, and `__ffs` on the low 32 bits).
    Ffs,
}

impl UnOp {
    /// The name used in `spec/` and certificates.
    pub fn name(self) -> &'static str {
        match self {
            UnOp::Neg => "neg",
            UnOp::Not => "not",
            UnOp::BitNot => "bitnot",
            UnOp::ToFloat => "tofloat",
            UnOp::ToInt => "toint",
            UnOp::ToBool => "tobool",
            UnOp::Popc => "popc",
            UnOp::Ffs => "ffs",
        }
    }
    /// Inverse of [`UnOp::name`].
    pub fn from_name(s: &str) -> Option<UnOp> {
        Some(match s {
            "neg" => UnOp::Neg,
            "not" => UnOp::Not,
            "bitnot" => UnOp::BitNot,
            "tofloat" => UnOp::ToFloat,
            "toint" => UnOp::ToInt,
            "tobool" => UnOp::ToBool,
            "popc" => UnOp::Popc,
            "ffs" => UnOp::Ffs,
            _ => return None,
        })
    }
}

/// Expressions `e ::= o | o op o | A[o]` of Fig. 2 (plus `op o`).
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// An operand.
    Opd(Operand),
    /// `o1 op o2`
    Bin(BinOp, Operand, Operand),
    /// `op o`
    Un(UnOp, Operand),
    /// `A[o]`: a read of array `A` (global or shared, from its declaration) at element index `o`.
    Read(String, Operand),
}

/// The modes of a warp shuffle (`__shfl_sync`, `__shfl_up_sync`, `__shfl_down_sync`,
/// `__shfl_xor_sync`; PTX `shfl.sync` modes `idx`, `up`, `down`, `bfly`). The source lane
/// of each mode is defined in `spec/semantics.md` §3 (rule `SC:SHFL`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShflKind {
    /// `__shfl_sync(m, v, l, w)`: lane `l mod w` of the reader's segment of `w` lanes.
    Idx,
    /// `__shfl_up_sync(m, v, d, w)`: the lane `d` below (own value below the segment).
    Up,
    /// `__shfl_down_sync(m, v, d, w)`: the lane `d` above (own value above the segment).
    Down,
    /// `__shfl_xor_sync(m, v, k, w)`: the lane `lane xor k` (own value above the segment).
    Xor,
}

impl ShflKind {
    /// The name used in `spec/` and certificates: `idx`, `up`, `down`, `xor`.
    pub fn name(self) -> &'static str {
        match self {
            ShflKind::Idx => "idx",
            ShflKind::Up => "up",
            ShflKind::Down => "down",
            ShflKind::Xor => "xor",
        }
    }
    /// Inverse of [`ShflKind::name`].
    pub fn from_name(s: &str) -> Option<ShflKind> {
        Some(match s {
            "idx" => ShflKind::Idx,
            "up" => ShflKind::Up,
            "down" => ShflKind::Down,
            "xor" => ShflKind::Xor,
            _ => return None,
        })
    }
}

/// The warp votes (`__ballot_sync`, `__any_sync`, `__all_sync`; `__activemask()` is the
/// ballot of `true`). Rule `SC:VOTE` of `spec/semantics.md` §3.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VoteKind {
    /// The bit mask of the active lanes whose predicate holds (bit = lane in the warp).
    Ballot,
    /// 1 if the predicate holds on some active lane, else 0.
    Any,
    /// 1 if the predicate holds on every active lane, else 0.
    All,
}

impl VoteKind {
    /// The name used in `spec/` and certificates: `ballot`, `any`, `all`.
    pub fn name(self) -> &'static str {
        match self {
            VoteKind::Ballot => "ballot",
            VoteKind::Any => "any",
            VoteKind::All => "all",
        }
    }
    /// Inverse of [`VoteKind::name`].
    pub fn from_name(s: &str) -> Option<VoteKind> {
        Some(match s {
            "ballot" => VoteKind::Ballot,
            "any" => VoteKind::Any,
            "all" => VoteKind::All,
            _ => return None,
        })
    }
}

/// A warp operation assigned to a local (statement [`Stmt::Warp`], an extension of Fig. 2):
/// the lanes of a warp exchange values (`spec/minicuda.md` §1).
#[derive(Clone, Debug, PartialEq)]
pub enum WarpOp {
    /// `shfl kind width (value, lane)`: `lane` is the source lane, the delta or the xor
    /// mask (an `int` operand); `width` (≥ 1, a power of two dividing the warp size in
    /// CUDA) splits the warp into segments of `width` lanes.
    Shfl {
        /// The mode.
        kind: ShflKind,
        /// Segment width in lanes.
        width: u32,
        /// The value shuffled (any type; the result has its type).
        value: Operand,
        /// Source lane, delta or xor mask (`int`).
        lane: Operand,
    },
    /// `vote kind (pred)`: `pred` is a `bool` operand; the result is an `int`, the same on
    /// every active lane.
    Vote {
        /// The vote.
        kind: VoteKind,
        /// The predicate.
        pred: Operand,
    },
}

impl WarpOp {
    /// The operands in evaluation order (value then lane; the predicate).
    pub fn operands(&self) -> Vec<&Operand> {
        match self {
            WarpOp::Shfl { value, lane, .. } => vec![value, lane],
            WarpOp::Vote { pred, .. } => vec![pred],
        }
    }
}

/// A source position (1-based line and column in the user's `.cu` file), kept on
/// statements for reports. `Loc::default()` means "synthesized by the lowering".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Loc {
    /// 1-based line, 0 if unknown.
    pub line: u32,
    /// 1-based column, 0 if unknown.
    pub col: u32,
}

impl fmt::Display for Loc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// Statements `s` of Fig. 2 plus `sync`.
#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// `skip`
    Skip,
    /// `s1; s2`
    Seq(Box<Stmt>, Box<Stmt>),
    /// `x ← e`
    Assign(String, Expr, Loc),
    /// `A[o] ← e`
    Write(String, Operand, Expr, Loc),
    /// `if e then s1 else s2`
    If(Expr, Box<Stmt>, Box<Stmt>, Loc),
    /// `while (e) s`
    While(Expr, Box<Stmt>, Loc),
    /// `sync` (`__syncthreads()`)
    Sync(Loc),
    /// `x ← shfl …` / `x ← vote …`: a warp shuffle or vote (extension; rules `SC:SHFL`,
    /// `SC:VOTE`, `Q:SHFL`, `Q:VOTE`).
    Warp(String, WarpOp, Loc),
}

impl Stmt {
    /// The statements of a right-nested sequence chain, in order: `[a, b, c]` for
    /// `Seq(a, Seq(b, c))` (a `Seq` in first position stays one item); `[self]` for a
    /// statement that is not a `Seq`. Iterative: linear in the chain's length, no recursion.
    pub fn seq_items(&self) -> Vec<&Stmt> {
        let mut out = Vec::new();
        let mut cur = self;
        while let Stmt::Seq(a, b) = cur {
            out.push(&**a);
            cur = b;
        }
        out.push(cur);
        out
    }

    /// Right-nested sequence of the statements (`skip` for an empty list); `skip`s are kept.
    pub fn seq(mut stmts: Vec<Stmt>) -> Stmt {
        // built from the back: linear time, no recursion (the nesting is the same)
        let Some(mut acc) = stmts.pop() else {
            return Stmt::Skip;
        };
        while let Some(s) = stmts.pop() {
            acc = Stmt::Seq(Box::new(s), Box::new(acc));
        }
        acc
    }

    /// The first warp operation (`x ← shfl …`, `x ← vote …`) in `s`, in program order,
    /// with its location; for semantics that cannot run it to name it in their error.
    pub fn first_warp_op(&self) -> Option<(&WarpOp, Loc)> {
        let mut stack = vec![self];
        while let Some(s) = stack.pop() {
            match s {
                Stmt::Warp(_, op, loc) => return Some((op, *loc)),
                Stmt::Seq(a, b) | Stmt::If(_, a, b, _) => stack.extend([&**b, &**a]),
                Stmt::While(_, b, _) => stack.push(b),
                Stmt::Skip | Stmt::Sync(_) | Stmt::Assign(..) | Stmt::Write(..) => {}
            }
        }
        None
    }

    /// `W(s)`: the local variables syntactically assigned by `s` (RaCUDA §4; array writes
    /// do not count), in first-occurrence order without duplicates.
    pub fn writes(&self) -> Vec<String> {
        let mut out = Vec::new();
        self.collect_writes(&mut out);
        out
    }

    fn collect_writes(&self, out: &mut Vec<String>) {
        match self {
            Stmt::Skip | Stmt::Sync(_) | Stmt::Write(..) => {}
            Stmt::Seq(..) => {
                // along the chain without recursion per item
                for x in self.seq_items() {
                    x.collect_writes(out);
                }
            }
            Stmt::If(_, a, b, _) => {
                a.collect_writes(out);
                b.collect_writes(out);
            }
            Stmt::Assign(x, _, _) | Stmt::Warp(x, _, _) => {
                if !out.contains(x) {
                    out.push(x.clone());
                }
            }
            Stmt::While(_, s, _) => s.collect_writes(out),
        }
    }
}

/// An array of the kernel: a global pointer parameter or a `__shared__` declaration.
#[derive(Clone, Debug, PartialEq)]
pub struct ArrayDecl {
    /// Name (unique among variables, parameters and arrays).
    pub name: String,
    /// Global or shared.
    pub space: Space,
    /// Element type.
    pub elem: Ty,
    /// Element size in bytes (int 4, float 4, double 8, char 1, short 2, long 8 ...).
    pub elem_bytes: u32,
    /// Number of elements for shared arrays of known size; `None` for global arrays and
    /// `extern` shared arrays. Informational only: out-of-bounds reads yield the default value.
    pub len: Option<u64>,
}

/// A scalar kernel parameter or a symbolic CUDA built-in (`blockIdx.x`, `gridDim.x` ...).
#[derive(Clone, Debug, PartialEq)]
pub struct ParamDecl {
    /// Name as written (`w`, `blockIdx.x`).
    pub name: String,
    /// Type.
    pub ty: Ty,
}

/// A lowered kernel: RaCUDA's "program" plus its signature Σ.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    /// The `__global__` function's name.
    pub name: String,
    /// Scalar parameters, then the built-in parameters the body uses (`blockIdx.x` ...).
    pub params: Vec<ParamDecl>,
    /// Arrays (global pointer parameters first, in parameter order, then shared arrays).
    pub arrays: Vec<ArrayDecl>,
    /// Local variables with their types (user locals and lowering temporaries). Every local
    /// starts at the default value of its type (0, false, 0.0) in every thread.
    pub locals: Vec<(String, Ty)>,
    /// The kernel body.
    pub body: Stmt,
}

impl Program {
    /// The declaration of array `name`.
    pub fn array(&self, name: &str) -> Option<&ArrayDecl> {
        self.arrays.iter().find(|a| a.name == name)
    }
    /// The type of local variable `name`.
    pub fn local_ty(&self, name: &str) -> Option<Ty> {
        self.locals.iter().find(|(n, _)| n == name).map(|(_, t)| *t)
    }
    /// The type of parameter `name`.
    pub fn param_ty(&self, name: &str) -> Option<Ty> {
        self.params.iter().find(|p| p.name == name).map(|p| p.ty)
    }
}

//! The abstract syntax of the C/CUDA subset the parser accepts (`spec/lowering.md` lists it).
//! Every node carries the [`Pos`] of its first token in the user's source.

use super::diag::{Diagnostic, Pos};

/// Base (non-pointer) C types.
#[derive(Clone, Debug, PartialEq)]
pub enum BaseTy {
    /// `void`
    Void,
    /// `bool`
    Bool,
    /// `char` (1 byte)
    Char,
    /// `short` (2 bytes)
    Short,
    /// `int`, `unsigned`, `uint` (4 bytes)
    Int,
    /// `long`, `long long`, `size_t` (8 bytes)
    Long,
    /// `float` (4 bytes)
    Float,
    /// `double` (8 bytes)
    Double,
    /// Any other type name (`float4`, `dim3`, a struct, a template parameter): not modelled.
    Named(String),
}

/// A C type as written: base, signedness, pointer depth, reference.
#[derive(Clone, Debug, PartialEq)]
pub struct CType {
    /// The base type.
    pub base: BaseTy,
    /// `unsigned` was written (values are still mathematical integers after lowering).
    pub unsigned: bool,
    /// Number of `*`.
    pub ptr: u32,
    /// A C++ reference `T &x` (not modelled).
    pub is_ref: bool,
}

impl CType {
    /// A plain (non-pointer) type.
    pub fn base(base: BaseTy) -> CType {
        CType {
            base,
            unsigned: false,
            ptr: 0,
            is_ref: false,
        }
    }
    /// Size in bytes of one value of the base type (`char` 1, `short` 2, `int`/`float` 4,
    /// `long`/`double` 8, `bool` 1); `None` for `void` and named types.
    pub fn base_bytes(&self) -> Option<u32> {
        Some(match self.base {
            BaseTy::Bool | BaseTy::Char => 1,
            BaseTy::Short => 2,
            BaseTy::Int | BaseTy::Float => 4,
            BaseTy::Long | BaseTy::Double => 8,
            BaseTy::Void | BaseTy::Named(_) => return None,
        })
    }
    /// Readable spelling for messages.
    pub fn describe(&self) -> String {
        let b = match &self.base {
            BaseTy::Void => "void".to_string(),
            BaseTy::Bool => "bool".to_string(),
            BaseTy::Char => "char".to_string(),
            BaseTy::Short => "short".to_string(),
            BaseTy::Int => "int".to_string(),
            BaseTy::Long => "long".to_string(),
            BaseTy::Float => "float".to_string(),
            BaseTy::Double => "double".to_string(),
            BaseTy::Named(n) => n.clone(),
        };
        let u = if self.unsigned { "unsigned " } else { "" };
        format!(
            "{u}{b}{}{}",
            "*".repeat(self.ptr as usize),
            if self.is_ref { "&" } else { "" }
        )
    }
}

/// Unary operators of C.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    /// `-e`
    Neg,
    /// `+e`
    Plus,
    /// `!e`
    Not,
    /// `~e`
    BitNot,
    /// `*e`
    Deref,
    /// `&e`
    AddrOf,
}

crate::core::ir::c_binary_ops! {
/// Binary operators of C (assignment operators are [`ExprKind::Assign`]): those miniCUDA
/// shares ([`crate::core::BinOp`]'s first sixteen, declared once by `c_binary_ops!`), then
/// the ones the lowering removes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum BinaryOp {
    /// `&&` (short circuit)
    LAnd,
    /// `||` (short circuit)
    LOr,
    /// `,`
    Comma,
}
}

/// Expressions.
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// Integer literal (also character literals).
    Int(i64),
    /// Floating literal.
    Float(f64),
    /// String literal (only meaningful as an error: `printf("…")`).
    Str(String),
    /// Identifier.
    Ident(String),
    /// `e.field`
    Member(Box<Expr>, String),
    /// `e->field`
    Arrow(Box<Expr>, String),
    /// `e[i]`
    Index(Box<Expr>, Box<Expr>),
    /// `f(args)`
    Call(Box<Expr>, Vec<Expr>),
    /// Prefix unary operator.
    Unary(UnaryOp, Box<Expr>),
    /// `++e`, `--e`, `e++`, `e--`.
    IncDec {
        /// Prefix form.
        pre: bool,
        /// `++` (else `--`).
        inc: bool,
        /// The operand.
        e: Box<Expr>,
    },
    /// Binary operator.
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    /// `a = b` (`None`) or `a op= b` (`Some(op)`).
    Assign(Option<BinaryOp>, Box<Expr>, Box<Expr>),
    /// `c ? a : b`
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `(T) e`
    Cast(CType, Box<Expr>),
    /// `sizeof(T)` / `sizeof e` (type known: size in bytes; else `None`).
    Sizeof(Option<u32>),
    /// `sizeof(T)` of a type only known at instantiation (a template parameter).
    SizeofType(CType),
    /// `f<T1, …>`: a function name with explicit template (type) arguments; only valid as
    /// the callee of a call.
    Inst(String, Vec<CType>),
    /// A math function or integer intrinsic whose value miniCUDA does not model
    /// (`sqrtf(x)`, `__popc(x)`; produced by the clang front end): the arguments are
    /// evaluated, then one operation gives a value of the result type (`spec/lowering.md`
    /// §9.4: its `steps` are counted, its value is not).
    Opaque(String, Vec<Expr>, CType),
}

/// An expression with the position of its first token (operators: of the operator).
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    /// The node.
    pub kind: ExprKind,
    /// Its position.
    pub pos: Pos,
}

/// One declarator of a declaration: `T name[d1][d2] = init`.
#[derive(Clone, Debug, PartialEq)]
pub struct Decl {
    /// Declared name.
    pub name: String,
    /// Its type (pointer depth included).
    pub ty: CType,
    /// Array dimensions (`None` for `[]`).
    pub dims: Vec<Option<Expr>>,
    /// Initializer.
    pub init: Option<Expr>,
    /// `__shared__` was written.
    pub shared: bool,
    /// `extern` was written.
    pub is_extern: bool,
    /// Position of the name.
    pub pos: Pos,
}

/// Statements.
#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    /// Declarations.
    Decl(Vec<Decl>),
    /// Expression statement.
    Expr(Expr),
    /// `if (c) s1 else s2`
    If(Expr, Box<Stmt>, Option<Box<Stmt>>),
    /// `while (c) s`
    While(Expr, Box<Stmt>),
    /// `do s while (c);`
    DoWhile(Box<Stmt>, Expr),
    /// `for (init; cond; step) s`
    For(Option<Box<Stmt>>, Option<Expr>, Option<Expr>, Box<Stmt>),
    /// `{ … }`
    Block(Vec<Stmt>),
    /// `break;`
    Break,
    /// `continue;`
    Continue,
    /// `return e?;`
    Return(Option<Expr>),
    /// `;`
    Empty,
}

/// A statement with its position.
#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    /// The node.
    pub kind: StmtKind,
    /// Its position.
    pub pos: Pos,
}

/// Which CUDA function space a function belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FnKind {
    /// `__global__` (a kernel).
    Global,
    /// `__device__` (possibly also `__host__`).
    Device,
}

/// A function parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    /// Name (empty when unnamed).
    pub name: String,
    /// Type.
    pub ty: CType,
    /// Position of the name.
    pub pos: Pos,
}

/// A template parameter: `class T` / `typename T` (a type) or `int N` (a value).
#[derive(Clone, Debug, PartialEq)]
pub struct TParam {
    /// Its name.
    pub name: String,
    /// `class`/`typename` (else a non-type parameter, which warpcert cannot instantiate).
    pub is_type: bool,
}

/// A `__global__` or `__device__` function definition.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    /// Name.
    pub name: String,
    /// Global or device.
    pub kind: FnKind,
    /// Return type; `None` when none was written (RaCUDA dialect).
    pub ret: Option<CType>,
    /// Parameters.
    pub params: Vec<Param>,
    /// The body, or the syntax error that prevented parsing it (reported when the function
    /// is lowered or called, so one unparseable function does not hide the others).
    pub body: Result<Vec<Stmt>, Diagnostic>,
    /// Declared under `template <…>`.
    pub template: bool,
    /// The template parameters (empty when not a template).
    pub tparams: Vec<TParam>,
    /// Position of the name.
    pub pos: Pos,
}

/// A translation unit: the device functions and file-scope `__shared__` declarations.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Unit {
    /// `__global__` and `__device__` functions in source order.
    pub functions: Vec<Function>,
    /// File-scope `__shared__` arrays.
    pub shared: Vec<Decl>,
    /// File-scope `__device__` variables (scalars and arrays in global memory).
    pub device_vars: Vec<Decl>,
    /// The names of the `device_vars` declared `__constant__` (read-only in device code).
    pub constant_vars: Vec<String>,
    /// File-scope variables that cannot be modelled: `(name, qualifier)` such as
    /// `("A", "__constant__")` or `("g", "__device__")`.
    pub unsupported_globals: Vec<(String, String)>,
    /// Functions declared (prototype) but not defined in the file.
    pub prototypes: Vec<String>,
}

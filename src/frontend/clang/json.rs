//! The part of clang's JSON AST (`-Xclang -ast-dump=json`, clang 14) the converter reads.
//!
//! Tolerant: every field is optional and unknown fields are ignored, so a newer clang that
//! adds fields still works. clang writes a location's `file` and `line` only when they
//! change from the previous location it printed; [`resolve_locations`] replays the document
//! order (each node's `loc`, then `range.begin`, `range.end`, then its children) and fills
//! them in. Input of hundreds of megabytes is read without a recursion limit on a thread
//! with a large stack (`core::stack::with_big_stack`, called by the front end).

use serde::Deserialize;

/// One node of the AST (declaration, statement, expression, type or attribute).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default)]
pub struct Node {
    /// clang's node address, unique in the dump (`0x…`).
    pub id: String,
    /// `FunctionDecl`, `BinaryOperator`, …
    pub kind: String,
    /// The node's location (declarations).
    pub loc: Loc,
    /// The source range (statements and declarations).
    pub range: Range,
    /// Declared name; for `MemberExpr` the member's name; for `sizeof` the trait name.
    pub name: Option<String>,
    /// The node's type.
    #[serde(rename = "type")]
    pub ty: Option<QualType>,
    /// Operator spelling of unary/binary operators.
    pub opcode: Option<String>,
    /// Literal values: a string for integer and floating literals, a number for character
    /// literals and integral template arguments, a bool for `true`/`false`.
    pub value: Option<serde_json::Value>,
    /// `MemberExpr`: `->`.
    #[serde(rename = "isArrow")]
    pub is_arrow: bool,
    /// `UnaryOperator`: postfix `++`/`--`.
    #[serde(rename = "isPostfix")]
    pub is_postfix: bool,
    /// Cast kind of casts (`LValueToRValue`, `IntegralToFloating`, `BitCast`, …).
    #[serde(rename = "castKind")]
    pub cast_kind: Option<String>,
    /// `DeclRefExpr`: the declaration referred to (id, kind, name, type).
    #[serde(rename = "referencedDecl")]
    pub referenced_decl: Option<Box<Node>>,
    /// `MemberExpr`: the id of the member's declaration.
    #[serde(rename = "referencedMemberDecl")]
    pub referenced_member_decl: Option<String>,
    /// `static`, `extern`.
    #[serde(rename = "storageClass")]
    pub storage_class: Option<String>,
    /// `struct`, `class`, `union` of a record; `typename`/`class` of a template parameter.
    #[serde(rename = "tagUsed")]
    pub tag_used: Option<String>,
    /// A record with a body.
    #[serde(rename = "completeDefinition")]
    pub complete_definition: bool,
    /// `sizeof(T)`: `T`.
    #[serde(rename = "argType")]
    pub arg_type: Option<QualType>,
    /// `VarDecl`/`ParmVarDecl`: how it is initialized (`c`, `call`, `list`).
    pub init: Option<String>,
    /// `= default` of a special member function.
    #[serde(rename = "explicitlyDefaulted")]
    pub explicitly_defaulted: Option<String>,
    /// Declarations the compiler made up.
    #[serde(rename = "isImplicit")]
    pub is_implicit: bool,
    /// `IfStmt`: an `else` branch exists.
    #[serde(rename = "hasElse")]
    pub has_else: bool,
    /// `IfStmt`: a C++17 init statement exists.
    #[serde(rename = "hasInit")]
    pub has_init: bool,
    /// `IfStmt`/`WhileStmt`: a condition variable exists.
    #[serde(rename = "hasVar")]
    pub has_var: bool,
    /// `constexpr` variables and functions.
    pub constexpr: bool,
    /// `CXXRecordDecl`: its base classes (records with bases are not laid out).
    pub bases: Vec<serde_json::Value>,
    /// `InitListExpr` of an array with fewer initializers than elements: the filler (the
    /// value of the elements not given), then — a quirk of clang 14's JSON — the explicit
    /// initializers, which are then not in `inner`.
    #[serde(rename = "array_filler")]
    pub array_filler: Vec<Node>,
    /// Children.
    pub inner: Vec<Node>,
}

/// A `{ "qualType": …, "desugaredQualType": … }` pair.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default)]
pub struct QualType {
    /// The type as written (`size_t`, `T *`, `float4`).
    #[serde(rename = "qualType")]
    pub qual: String,
    /// The canonical spelling when it differs (`unsigned long`).
    #[serde(rename = "desugaredQualType")]
    pub desugared: Option<String>,
}

impl QualType {
    /// The desugared spelling when clang gives one, else the type as written.
    pub fn canonical(&self) -> &str {
        self.desugared.as_deref().unwrap_or(&self.qual)
    }
}

/// A source location: bare, or split into spelling and expansion (macros).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default)]
pub struct Loc {
    /// File (only when it changed; filled by [`resolve_locations`]).
    pub file: Option<String>,
    /// 1-based line (only when it changed; filled by [`resolve_locations`]).
    pub line: Option<u32>,
    /// 1-based column.
    pub col: Option<u32>,
    /// Where the token was spelled (inside a macro definition).
    #[serde(rename = "spellingLoc")]
    pub spelling: Option<Box<Loc>>,
    /// Where the macro was used.
    #[serde(rename = "expansionLoc")]
    pub expansion: Option<Box<Loc>>,
}

impl Loc {
    /// The position the user sees: the expansion location for macro tokens.
    pub fn user(&self) -> (&str, u32, u32) {
        let l = self.expansion.as_deref().unwrap_or(self);
        (
            l.file.as_deref().unwrap_or(""),
            l.line.unwrap_or(0),
            l.col.unwrap_or(0),
        )
    }
}

/// `range.begin`, `range.end`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default)]
pub struct Range {
    /// First token.
    pub begin: Loc,
    /// Last token.
    pub end: Loc,
}

/// Whether the JSON `text` nests arrays and objects more than `limit` levels deep (one
/// iterative pass; strings and their escapes skipped).
pub fn depth_exceeds(text: &str, limit: usize) -> bool {
    let (mut depth, mut in_str, mut esc) = (0usize, false, false);
    for b in text.bytes() {
        if in_str {
            match (esc, b) {
                (true, _) => esc = false,
                (false, b'\\') => esc = true,
                (false, b'"') => in_str = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_str = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > limit {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

/// Parses clang's JSON dump. Errors: the text is not a JSON AST.
pub fn parse(text: &str) -> Result<Node, String> {
    let mut de = serde_json::Deserializer::from_str(text);
    de.disable_recursion_limit();
    let mut node = Node::deserialize(&mut de).map_err(|e| format!("clang's AST: {e}"))?;
    resolve_locations(&mut node);
    Ok(node)
}

#[derive(Default)]
struct Last {
    file: String,
    line: u32,
}

fn fill(l: &mut Loc, last: &mut Last) {
    let bare = l.spelling.is_none() && l.expansion.is_none();
    if let Some(s) = l.spelling.as_deref_mut() {
        fill(s, last);
    }
    if let Some(e) = l.expansion.as_deref_mut() {
        fill(e, last);
    }
    if !bare || l.col.is_none() {
        return;
    }
    match &l.file {
        Some(f) => last.file = f.clone(),
        None => l.file = Some(last.file.clone()),
    }
    match l.line {
        Some(n) => last.line = n,
        None => l.line = Some(last.line),
    }
}

/// Fills the `file` and `line` clang elided, in document order (recursive along the AST's
/// depth: the front end runs on a thread with a large stack).
pub fn resolve_locations(root: &mut Node) {
    fn go(n: &mut Node, last: &mut Last) {
        fill(&mut n.loc, last);
        fill(&mut n.range.begin, last);
        fill(&mut n.range.end, last);
        for c in n.inner.iter_mut() {
            go(c, last);
        }
    }
    go(root, &mut Last::default());
}

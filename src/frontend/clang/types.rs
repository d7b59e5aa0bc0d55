//! C++ types as clang spells them (`const float *__restrict`, `float[16][32]`, `float4 &`),
//! and the layout of records (size, alignment, field offsets) computed by the C rules:
//! each field at the next multiple of its alignment, the size rounded up to the largest
//! alignment, `__align__(n)`/`aligned(n)` raising a record's alignment (the CUDA vector
//! types of the prelude carry theirs, e.g. `float4` 16 bytes aligned 16, `float3` 12
//! aligned 4). This is what nvcc does for the plain structs kernels use.

use super::json::Node;
use crate::frontend::ast::{BaseTy, CType};
use std::collections::HashMap;

/// A type of the device code.
#[derive(Clone, Debug, PartialEq)]
pub enum Ty {
    /// A scalar (or `void`): base type and signedness.
    Scalar(BaseTy, bool),
    /// `T *`
    Ptr(Box<Ty>),
    /// `T &` / `T &&`
    Ref(Box<Ty>),
    /// `T[n]` (`None`: `T[]`)
    Array(Box<Ty>, Option<u64>),
    /// A record (struct, class, union, vector type), by name.
    Record(String),
    /// Anything else (function types, template-dependent spellings), as written.
    Other(String),
}

impl Ty {
    /// The pointee/element of a pointer, reference or array.
    pub fn inner(&self) -> Option<&Ty> {
        match self {
            Ty::Ptr(t) | Ty::Ref(t) | Ty::Array(t, _) => Some(t),
            _ => None,
        }
    }
    /// The type without a reference.
    pub fn unref(&self) -> &Ty {
        match self {
            Ty::Ref(t) => t,
            t => t,
        }
    }
    /// `Some(CType)` for a scalar, pointer to scalar (any depth): the AST's type.
    pub fn ctype(&self) -> Option<CType> {
        match self {
            Ty::Scalar(b, u) => Some(CType {
                base: b.clone(),
                unsigned: *u,
                ptr: 0,
                is_ref: false,
            }),
            Ty::Ptr(t) => {
                let mut c = t.ctype()?;
                c.ptr += 1;
                Some(c)
            }
            Ty::Ref(t) => {
                let mut c = t.ctype()?;
                c.is_ref = true;
                Some(c)
            }
            _ => None,
        }
    }
    /// Readable spelling.
    pub fn describe(&self) -> String {
        match self {
            Ty::Scalar(..) => self.ctype().map(|c| c.describe()).unwrap_or_default(),
            Ty::Ptr(t) => format!("{} *", t.describe()),
            Ty::Ref(t) => format!("{} &", t.describe()),
            Ty::Array(t, Some(n)) => format!("{}[{n}]", t.describe()),
            Ty::Array(t, None) => format!("{}[]", t.describe()),
            Ty::Record(n) | Ty::Other(n) => n.clone(),
        }
    }
}

fn strip_quals(s: &str) -> String {
    let mut out = Vec::new();
    let spaced = s.replace('*', " * ").replace('&', " & ");
    for w in spaced.split_whitespace() {
        match w {
            "const" | "volatile" | "__restrict" | "restrict" | "__restrict__" | "struct"
            | "class" | "union" | "enum" | "typename" => {}
            _ => out.push(w),
        }
    }
    out.join(" ")
        .replace(" *", "*")
        .replace(" &", "&")
        .replace("& &", "&&")
}

/// Parses clang's spelling of a (canonical) type.
pub fn parse(s: &str) -> Ty {
    let s = strip_quals(s.trim());
    let s = s.trim();
    if s.contains('(') {
        return Ty::Other(s.to_string());
    }
    // array suffixes: T[a][b] is an array of a arrays of b
    if let Some(open) = s.find('[') {
        let base = parse(&s[..open]);
        let mut dims = Vec::new();
        let mut rest = &s[open..];
        while let Some(r) = rest.strip_prefix('[') {
            let Some(close) = r.find(']') else {
                return Ty::Other(s.to_string());
            };
            let d = r[..close].trim();
            dims.push(if d.is_empty() {
                None
            } else {
                d.parse::<u64>().ok()
            });
            if !d.is_empty() && d.parse::<u64>().is_err() {
                return Ty::Other(s.to_string());
            }
            rest = r[close + 1..].trim_start();
        }
        let mut t = base;
        for d in dims.into_iter().rev() {
            t = Ty::Array(Box::new(t), d);
        }
        return t;
    }
    if let Some(b) = s.strip_suffix("&&").or_else(|| s.strip_suffix('&')) {
        return Ty::Ref(Box::new(parse(b)));
    }
    if let Some(b) = s.strip_suffix('*') {
        return Ty::Ptr(Box::new(parse(b)));
    }
    scalar(s).unwrap_or_else(|| {
        if s.is_empty() || s.contains('<') && s.contains("type-parameter") {
            Ty::Other(s.to_string())
        } else {
            Ty::Record(s.to_string())
        }
    })
}

fn scalar(s: &str) -> Option<Ty> {
    let words: Vec<&str> = s.split_whitespace().collect();
    let unsigned = words.contains(&"unsigned");
    let rest: Vec<&str> = words
        .iter()
        .copied()
        .filter(|w| *w != "unsigned" && *w != "signed")
        .collect();
    let base = match rest.as_slice() {
        [] if unsigned || words.contains(&"signed") => BaseTy::Int,
        ["void"] => BaseTy::Void,
        ["bool"] | ["_Bool"] => BaseTy::Bool,
        ["char"] => BaseTy::Char,
        ["short"] | ["short", "int"] => BaseTy::Short,
        ["int"] => BaseTy::Int,
        ["long"] | ["long", "int"] | ["long", "long"] | ["long", "long", "int"] => BaseTy::Long,
        ["__int128"] => BaseTy::Long,
        ["float"] => BaseTy::Float,
        ["double"] | ["long", "double"] => BaseTy::Double,
        _ => return None,
    };
    Some(Ty::Scalar(base, unsigned))
}

/// The type of a node (canonical spelling).
pub fn of(n: &Node) -> Ty {
    n.ty.as_ref()
        .map(|q| parse(q.canonical()))
        .unwrap_or(Ty::Other(String::new()))
}

/// One field of a record.
#[derive(Clone, Debug)]
pub struct Field {
    /// Name.
    pub name: String,
    /// Type.
    pub ty: Ty,
    /// Byte offset in the record.
    pub offset: u64,
}

/// A record's layout.
#[derive(Clone, Debug)]
pub struct Record {
    /// Fields in declaration order.
    pub fields: Vec<Field>,
    /// Size in bytes.
    pub size: u64,
    /// Alignment in bytes.
    pub align: u64,
}

/// A scalar leaf of a value: byte offset, field path (`x`, `a.b`, `v.2`) and scalar type.
#[derive(Clone, Debug, PartialEq)]
pub struct Leaf {
    /// Byte offset from the start of the value.
    pub offset: u64,
    /// Path of field names (array elements as their index).
    pub path: Vec<String>,
    /// The scalar type.
    pub ty: Ty,
}

/// A record as read: fields, alignment attribute, whether it has base classes.
type RawRecord = (Vec<(String, Ty)>, u64, bool);

/// The records of a translation unit, by name (the names clang prints in types).
#[derive(Default, Debug)]
pub struct Records {
    raw: HashMap<String, RawRecord>,
    typedefs: HashMap<String, String>,
    /// Records with a constructor the user wrote (not one clang made up).
    user_ctor: std::collections::HashSet<String>,
}

fn first_value(n: &Node) -> Option<u64> {
    if let Some(v) = &n.value {
        if let Some(x) = v.as_u64() {
            return Some(x);
        }
        if let Some(x) = v.as_str().and_then(|s| s.parse().ok()) {
            return Some(x);
        }
    }
    n.inner.iter().find_map(first_value)
}

impl Records {
    /// Collects every complete record definition under `root` (namespaces, template
    /// specializations included), keyed by name and by `ns::name`.
    pub fn collect(root: &Node) -> Records {
        let mut r = Records::default();
        r.walk(root, "");
        r
    }

    fn walk(&mut self, n: &Node, ns: &str) {
        // `typedef struct { … } Name;`: the unnamed record is named by the typedef after it
        let mut anon: Option<RawRecord> = None;
        for c in &n.inner {
            if c.kind == "TypedefDecl" {
                if let (Some(entry), Some(name)) = (anon.take(), &c.name) {
                    self.raw.entry(name.clone()).or_insert(entry);
                    continue;
                }
            }
            anon = None;
            match c.kind.as_str() {
                "NamespaceDecl" => {
                    let name = c.name.clone().unwrap_or_default();
                    let q = if ns.is_empty() {
                        name
                    } else {
                        format!("{ns}::{name}")
                    };
                    self.walk(c, &q);
                }
                "CXXRecordDecl" | "RecordDecl" | "ClassTemplateSpecializationDecl"
                    if c.complete_definition =>
                {
                    let mut fields = Vec::new();
                    let mut align = 1;
                    let has_vbase = !c.bases.is_empty();
                    // a default constructor with a body the user wrote (every parameter,
                    // if any, has a default argument)
                    let ctor = c.inner.iter().any(|f| {
                        f.kind == "CXXConstructorDecl"
                            && !f.is_implicit
                            && f.explicitly_defaulted.is_none()
                            && f.inner
                                .iter()
                                .filter(|x| x.kind == "ParmVarDecl")
                                .all(|x| !x.inner.is_empty())
                    });
                    for f in &c.inner {
                        match f.kind.as_str() {
                            "FieldDecl" => fields.push((f.name.clone().unwrap_or_default(), of(f))),
                            "AlignedAttr" => align = align.max(first_value(f).unwrap_or(1)),
                            "CXXRecordDecl" | "RecordDecl" => self.walk(
                                &Node {
                                    inner: vec![f.clone()],
                                    ..Node::default()
                                },
                                ns,
                            ),
                            _ => {}
                        }
                    }
                    let mut name = c.name.clone().unwrap_or_default();
                    if c.kind == "ClassTemplateSpecializationDecl" {
                        let args: Vec<String> = c
                            .inner
                            .iter()
                            .filter(|a| a.kind == "TemplateArgument")
                            .map(|a| match (&a.ty, &a.value) {
                                (Some(t), _) => t.canonical().to_string(),
                                (None, Some(v)) => v.to_string(),
                                _ => "?".into(),
                            })
                            .collect();
                        name = format!("{name}<{}>", args.join(", "));
                    }
                    let entry = (fields, align, has_vbase);
                    if name.is_empty() {
                        anon = Some(entry);
                        continue;
                    }
                    if ctor {
                        self.user_ctor.insert(name.clone());
                        self.user_ctor.insert(format!("{ns}::{name}"));
                    }
                    if !ns.is_empty() {
                        self.raw.insert(format!("{ns}::{name}"), entry.clone());
                    }
                    self.raw.entry(name).or_insert(entry);
                }
                "LinkageSpecDecl" => self.walk(c, ns),
                "TypedefDecl" | "TypeAliasDecl" => {
                    if let (Some(n), Some(t)) = (&c.name, &c.ty) {
                        let target = t.canonical().to_string();
                        if !ns.is_empty() {
                            self.typedefs.insert(format!("{ns}::{n}"), target.clone());
                        }
                        self.typedefs.entry(n.clone()).or_insert(target);
                    }
                }
                _ => {}
            }
        }
    }

    /// Whether default construction of a `t` runs no code: a scalar, or a laid-out record
    /// without a constructor written by the user whose record fields are the same (an array
    /// of such records declared without initializer gets clang's implicit construction).
    pub fn trivially_constructed(&self, t: &Ty) -> bool {
        self.trivial_depth(t, 0)
    }

    fn trivial_depth(&self, t: &Ty, depth: u32) -> bool {
        if depth > 64 {
            return false;
        }
        match self.resolve(t) {
            Ty::Scalar(..) => true,
            Ty::Array(inner, _) => self.trivial_depth(&inner, depth + 1),
            Ty::Record(r) => {
                !self.user_ctor.contains(&r)
                    && self.raw.get(&r).is_some_and(|(fields, _, bases)| {
                        !*bases && fields.iter().all(|(_, f)| self.trivial_depth(f, depth + 1))
                    })
            }
            _ => false,
        }
    }

    /// `t` with typedef names replaced by their definitions (`uint *` → `unsigned int *`).
    pub fn resolve(&self, t: &Ty) -> Ty {
        self.resolve_depth(t, 0)
    }

    fn resolve_depth(&self, t: &Ty, depth: u32) -> Ty {
        if depth > 32 {
            return t.clone();
        }
        match t {
            Ty::Record(n) if !self.raw.contains_key(n) => match self.typedefs.get(n) {
                Some(target) => self.resolve_depth(&parse(target), depth + 1),
                None => t.clone(),
            },
            Ty::Ptr(x) => Ty::Ptr(Box::new(self.resolve_depth(x, depth + 1))),
            Ty::Ref(x) => Ty::Ref(Box::new(self.resolve_depth(x, depth + 1))),
            Ty::Array(x, n) => Ty::Array(Box::new(self.resolve_depth(x, depth + 1)), *n),
            _ => t.clone(),
        }
    }

    /// The (typedef-resolved) type of a node.
    pub fn of(&self, n: &Node) -> Ty {
        self.resolve(&of(n))
    }

    /// Whether `name` is a known complete record.
    pub fn has(&self, name: &str) -> bool {
        self.raw.contains_key(name)
    }

    /// Size and alignment of `t` in bytes (pointers 8); `None` for `void`, unknown records
    /// and arrays of unknown length.
    pub fn size_align(&self, t: &Ty) -> Option<(u64, u64)> {
        match t {
            Ty::Scalar(b, _) => {
                let s = match b {
                    BaseTy::Bool | BaseTy::Char => 1,
                    BaseTy::Short => 2,
                    BaseTy::Int | BaseTy::Float => 4,
                    BaseTy::Long | BaseTy::Double => 8,
                    _ => return None,
                };
                Some((s, s))
            }
            Ty::Ptr(_) => Some((8, 8)),
            Ty::Array(e, Some(n)) => {
                let (s, a) = self.size_align(e)?;
                Some((s.checked_mul(*n)?, a))
            }
            Ty::Record(n) => {
                let r = self.layout(n)?;
                Some((r.size, r.align))
            }
            _ => None,
        }
    }

    /// The layout of record `name`; `None` when unknown, with a base class or a field of
    /// unknown size.
    pub fn layout(&self, name: &str) -> Option<Record> {
        let (fields, align0, vbase) = self.raw.get(name)?;
        if *vbase {
            return None;
        }
        let mut off = 0u64;
        let mut align = *align0;
        let mut out = Vec::new();
        for (n, t) in fields {
            let t = &self.resolve(t);
            let (s, a) = self.size_align(t)?;
            off = off.div_ceil(a) * a;
            out.push(Field {
                name: n.clone(),
                ty: t.clone(),
                offset: off,
            });
            off += s;
            align = align.max(a);
        }
        let size = off.div_ceil(align) * align;
        Some(Record {
            fields: out,
            size,
            align,
        })
    }

    /// The scalar leaves of a value of type `t` (a scalar is its own leaf); `None` when a
    /// part has no layout or is a pointer.
    pub fn leaves(&self, t: &Ty) -> Option<Vec<Leaf>> {
        let mut out = Vec::new();
        self.leaves_into(t, 0, &mut Vec::new(), &mut out)?;
        Some(out)
    }

    fn leaves_into(
        &self,
        t: &Ty,
        base: u64,
        path: &mut Vec<String>,
        out: &mut Vec<Leaf>,
    ) -> Option<()> {
        match t {
            Ty::Scalar(b, _) if *b != BaseTy::Void => out.push(Leaf {
                offset: base,
                path: path.clone(),
                ty: t.clone(),
            }),
            Ty::Record(n) => {
                for f in self.layout(n)?.fields {
                    path.push(f.name.clone());
                    self.leaves_into(&f.ty, base + f.offset, path, out)?;
                    path.pop();
                }
            }
            Ty::Array(e, Some(n)) => {
                let (s, _) = self.size_align(e)?;
                for k in 0..*n {
                    path.push(k.to_string());
                    self.leaves_into(e, base + k * s, path, out)?;
                    path.pop();
                }
            }
            _ => return None,
        }
        Some(())
    }
}

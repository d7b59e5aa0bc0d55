//! Block-size independence (Singhania 2019, Ch. 5: Defs. 5.1–5.2, Fig. 5.4, Thm. 5.6) over
//! the lowered program.
//!
//! The front end replaces `blockDim.d` by the launch's constant, so the kernel is lowered
//! twice, with two blocks whose components differ ([`mark_block_dims`]): an integer constant
//! that is `B_d` in the first program and `B'_d` in the second is `blockDim.d`; any other
//! constant that differs is a block-size-dependent value; a difference in shape means the
//! lowering itself depends on the block size (not provable). The analysis then runs once
//! per dimension `d` on the abstract domain of Fig. 5.4 — `c_ind`, `k·c_tid`, `k·c_bid`,
//! `k·c_bdim`, `k·c_bid·c_bdim`, `c_bsize` (multiplier `k` the constant 1, a constant, a
//! parameter or a local variable) — with the path predicate `π̂`; every shared or global
//! write needs an independent index, value and path. Locals are not in SSA form: assigning
//! `x` turns every value with multiplier `x` into `c_bsize`, so that SUM2's `k0 ≡ k1` is
//! the same value. Only synchronization-free programs are decided (Thm. 5.5).
//!
//! **`gridDim`.** Def. 5.1 fixes the grid size `N⃗` in *threads*; a CUDA launch fixes it in
//! blocks, so a block-size change keeps the total `N_d = gridDim.d · blockDim.d` (the
//! dissertation's CUDA note: `B′_d` divides `N_b·B_d`) and CUDA's `gridDim.d = N_d / B_d`
//! is block-size dependent. The chapter's `gdim ↦ c_ind` is the thread count `N_d`; CUDA's
//! `gridDim.d` gets its own value `k·c_gdim` here, with the product rule
//! `k·c_bdim · c_gdim = c_gdim · k·c_bdim = k·N_d ↦ c_ind` (PROD1–3's multiplier
//! discipline: one operand has multiplier 1). So `blockDim.x * gridDim.x`, the stride of a
//! grid-stride loop, is independent, while `gridDim.x` alone is not. Both lowerings are
//! taken with a symbolic grid ([`decide_lowered`] expects `gridDim.d` as a parameter).

use crate::core::{BinOp, Const, Dim, Expr, Loc, Operand, Program, Stmt, UnOp};
use serde::Serialize;
use std::collections::BTreeMap;

/// The name given to a `blockDim` constant found by [`mark_block_dims`].
pub fn bdim_name(d: usize) -> String {
    format!("blockDim.{}", ['x', 'y', 'z'][d.min(2)])
}

/// The name given to a constant that depends on the block size in another way.
pub const BSIZE_CONST: &str = "blockDim-dependent-constant";

/// The verdict of the analysis.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "verdict", rename_all = "kebab-case")]
pub enum Bsi {
    /// Block-size independent (Thm. 5.6): every write is independent in every dimension.
    Independent,
    /// A write may depend on the block size.
    Dependent {
        /// Dimension analysed (`x`, `y`, `z`).
        dim: char,
        /// Line of the write.
        line: u32,
        /// Column of the write.
        column: u32,
        /// Which part depends and why, with the location of the dependent expression.
        reason: String,
    },
    /// Not decided: the program synchronizes (the analysis needs sync-freedom, Thm. 5.5)
    /// or the lowering differs in shape between block sizes.
    NotProvable {
        /// Why.
        reason: String,
    },
}

/// The second block used to find `blockDim` constants: a component of 1 stays 1 (the
/// launch does not use that dimension; the lowering may specialize it); every other
/// component `B'_d` differs from every `B_e` and from the other components; at most 1024
/// threads.
pub fn second_block(b: [u32; 3]) -> [u32; 3] {
    let cands = [[5, 7, 3], [11, 13, 2], [17, 19, 2], [9, 10, 6], [23, 29, 1]];
    let pick = |c: [u32; 3]| [0, 1, 2].map(|d| if b[d] == 1 { 1 } else { c[d] });
    cands
        .into_iter()
        .map(pick)
        .find(|c| (0..3).all(|d| c[d] == 1 || !b.contains(&c[d])))
        .unwrap_or_else(|| pick([23, 29, 2]))
}

fn mark_opd(a: &Operand, b: &Operand, ba: [u32; 3], bb: [u32; 3]) -> Result<Operand, ()> {
    match (a, b) {
        (x, y) if x == y => Ok(x.clone()),
        (Operand::Const(Const::Int(u)), Operand::Const(Const::Int(v))) => {
            let d = (0..3).find(|&d| i64::from(ba[d]) == *u && i64::from(bb[d]) == *v);
            Ok(Operand::Param(match d {
                Some(d) => bdim_name(d),
                None => BSIZE_CONST.to_string(),
            }))
        }
        _ => Err(()),
    }
}

fn mark_expr(a: &Expr, b: &Expr, ba: [u32; 3], bb: [u32; 3]) -> Result<Expr, ()> {
    Ok(match (a, b) {
        (Expr::Opd(x), Expr::Opd(y)) => Expr::Opd(mark_opd(x, y, ba, bb)?),
        (Expr::Bin(o, x, y), Expr::Bin(p, u, v)) if o == p => {
            Expr::Bin(*o, mark_opd(x, u, ba, bb)?, mark_opd(y, v, ba, bb)?)
        }
        (Expr::Un(o, x), Expr::Un(p, u)) if o == p => Expr::Un(*o, mark_opd(x, u, ba, bb)?),
        (Expr::Read(x, o), Expr::Read(y, p)) if x == y => {
            Expr::Read(x.clone(), mark_opd(o, p, ba, bb)?)
        }
        _ => return Err(()),
    })
}

/// `a` (lowered under block `ba`) with its `blockDim` constants made parameters, by
/// comparison with `b`, the same kernel lowered under `bb`. Errors: the location where the
/// two lowerings differ in shape.
pub fn mark_block_dims(
    a: &Program,
    b: &Program,
    ba: [u32; 3],
    bb: [u32; 3],
) -> Result<Program, Loc> {
    fn go(s: &Stmt, t: &Stmt, ba: [u32; 3], bb: [u32; 3]) -> Result<Stmt, Loc> {
        let loc = stmt_loc(s);
        let e = |r: Result<Expr, ()>| r.map_err(|_| loc);
        Ok(match (s, t) {
            (Stmt::Skip, Stmt::Skip) => Stmt::Skip,
            (Stmt::Sync(l), Stmt::Sync(_)) => Stmt::Sync(*l),
            (Stmt::Seq(x, y), Stmt::Seq(u, v)) => {
                Stmt::Seq(Box::new(go(x, u, ba, bb)?), Box::new(go(y, v, ba, bb)?))
            }
            (Stmt::Assign(x, ex, l), Stmt::Assign(y, ey, _)) if x == y => {
                Stmt::Assign(x.clone(), e(mark_expr(ex, ey, ba, bb))?, *l)
            }
            (Stmt::Write(x, o, ex, l), Stmt::Write(y, p, ey, _)) if x == y => Stmt::Write(
                x.clone(),
                mark_opd(o, p, ba, bb).map_err(|_| loc)?,
                e(mark_expr(ex, ey, ba, bb))?,
                *l,
            ),
            (Stmt::If(c, x, y, l), Stmt::If(d, u, v, _)) => Stmt::If(
                e(mark_expr(c, d, ba, bb))?,
                Box::new(go(x, u, ba, bb)?),
                Box::new(go(y, v, ba, bb)?),
                *l,
            ),
            (Stmt::While(c, x, l), Stmt::While(d, u, _)) => {
                Stmt::While(e(mark_expr(c, d, ba, bb))?, Box::new(go(x, u, ba, bb)?), *l)
            }
            _ => return Err(loc),
        })
    }
    if a.locals != b.locals || a.params != b.params {
        return Err(Loc::default());
    }
    let mut p = a.clone();
    p.body = crate::core::stack::with_big_stack(|| go(&a.body, &b.body, ba, bb))?;
    Ok(p)
}

fn stmt_loc(s: &Stmt) -> Loc {
    match s {
        Stmt::Assign(_, _, l)
        | Stmt::Warp(_, _, l)
        | Stmt::Write(_, _, _, l)
        | Stmt::If(_, _, _, l)
        | Stmt::While(_, _, l)
        | Stmt::Sync(l) => *l,
        Stmt::Skip | Stmt::Seq(..) => Loc::default(),
    }
}

/// Multiplier `k`: `None` is the constant 1.
type K = Option<String>;

/// The abstract values of Fig. 5.4 (booleans use `Ind`/`Bsize` as `b_ind`/`b_bsize`).
#[derive(Clone, Debug, PartialEq, Eq)]
enum Av {
    Ind,
    Tid(K),
    Bid(K),
    Bdim(K),
    BidBdim(K),
    /// `k·gridDim.d` (CUDA's block count, `N_d / bdim_d`: see the module doc).
    Gdim(K),
    Bsize,
}

impl Av {
    fn show(&self) -> String {
        let k = |k: &K, s: &str| match k {
            None => s.to_string(),
            Some(k) => format!("{k}·{s}"),
        };
        match self {
            Av::Ind => "c_ind".into(),
            Av::Tid(x) => k(x, "c_tid"),
            Av::Bid(x) => k(x, "c_bid"),
            Av::Bdim(x) => k(x, "c_bdim"),
            Av::BidBdim(x) => k(x, "c_bid·c_bdim"),
            Av::Gdim(x) => k(x, "c_gdim"),
            Av::Bsize => "c_bsize".into(),
        }
    }
    fn mult(&self) -> Option<&String> {
        match self {
            Av::Tid(k) | Av::Bid(k) | Av::Bdim(k) | Av::BidBdim(k) | Av::Gdim(k) => k.as_ref(),
            _ => None,
        }
    }
}

struct St<'p> {
    dim: usize,
    prog: &'p Program,
    vals: BTreeMap<String, Av>,
    /// Where each local last became `c_bsize`, with the statement.
    why: BTreeMap<String, String>,
}

fn opd_key(o: &Operand) -> Option<String> {
    match o {
        Operand::Var(x) | Operand::Param(x) => Some(x.clone()),
        Operand::Const(Const::Int(c)) => Some(c.to_string()),
        _ => None,
    }
}

impl St<'_> {
    fn opd(&self, o: &Operand) -> Av {
        let d = ['x', 'y', 'z'][self.dim];
        match o {
            Operand::Const(_) => Av::Ind,
            Operand::Tid(t) => {
                if *t == Dim::ALL[self.dim] {
                    Av::Tid(None)
                } else {
                    Av::Ind
                }
            }
            Operand::Param(p) if p == BSIZE_CONST => Av::Bsize,
            Operand::Param(p) if p == &format!("blockIdx.{d}") => Av::Bid(None),
            Operand::Param(p) if p == &format!("blockDim.{d}") => Av::Bdim(None),
            Operand::Param(p) if p == &format!("gridDim.{d}") => Av::Gdim(None),
            Operand::Param(_) => Av::Ind,
            Operand::Var(x) => self.vals.get(x).cloned().unwrap_or(Av::Ind),
        }
    }

    fn bin(&self, op: BinOp, a: &Operand, b: &Operand) -> Av {
        use Av::*;
        let (x, y) = (self.opd(a), self.opd(b));
        match op {
            BinOp::Add => match (&x, &y) {
                (Ind, Ind) => Ind,
                (Ind, v @ (Tid(_) | BidBdim(_))) | (v @ (Tid(_) | BidBdim(_)), Ind) => v.clone(), // SUM1
                (Tid(k0), BidBdim(k1)) | (BidBdim(k1), Tid(k0)) if k0 == k1 => Ind, // SUM2
                _ => Bsize,
            },
            // `v − c` is `v + (−c)` with `−c` independent (SUM1)
            BinOp::Sub => match (&x, &y) {
                (Ind, Ind) => Ind,
                (v @ (Tid(_) | BidBdim(_)), Ind) => v.clone(),
                _ => Bsize,
            },
            BinOp::Mul => {
                let prod1 = |l0: &Operand, v: &Av| match (opd_key(l0), v) {
                    (Some(k), Tid(None) | Bid(None) | Bdim(None) | BidBdim(None) | Gdim(None)) => {
                        Some(match v {
                            Tid(_) => Tid(Some(k)),
                            Bid(_) => Bid(Some(k)),
                            Bdim(_) => Bdim(Some(k)),
                            Gdim(_) => Gdim(Some(k)),
                            _ => BidBdim(Some(k)),
                        })
                    }
                    _ => None,
                };
                match (&x, &y) {
                    (Ind, Ind) => Ind,
                    (Ind, v) => prod1(a, v).unwrap_or(Bsize), // PROD1
                    (v, Ind) => prod1(b, v).unwrap_or(Bsize),
                    (Bid(None), Bdim(k)) | (Bdim(k), Bid(None)) => BidBdim(k.clone()), // PROD2
                    (Bid(k), Bdim(None)) | (Bdim(None), Bid(k)) => BidBdim(k.clone()), // PROD3
                    // k·bdim·gdim = k·N_d, the grid's thread count (module doc)
                    (Bdim(_), Gdim(None))
                    | (Gdim(None), Bdim(_))
                    | (Bdim(None), Gdim(_))
                    | (Gdim(_), Bdim(None)) => Ind,
                    _ => Bsize,
                }
            }
            // ARITH, REL, BOOL
            _ => {
                if x == Ind && y == Ind {
                    Ind
                } else {
                    Bsize
                }
            }
        }
    }

    fn expr(&self, e: &Expr) -> Av {
        match e {
            Expr::Opd(o) => self.opd(o),
            Expr::Bin(op, a, b) => self.bin(*op, a, b),
            // a conversion to int is the identity on the integers the domain describes
            Expr::Un(UnOp::ToInt, o) => self.opd(o),
            Expr::Un(_, o) => match self.opd(o) {
                Av::Ind => Av::Ind,
                _ => Av::Bsize,
            },
            Expr::Read(_, o) => match self.opd(o) {
                Av::Ind => Av::Ind, // READ
                _ => Av::Bsize,
            },
        }
    }

    fn assign(&mut self, x: &str, v: Av, why: String) {
        // x changes: values with multiplier x no longer denote the same k
        for (y, val) in self.vals.iter_mut() {
            if y != x && val.mult().is_some_and(|k| k == x) {
                *val = Av::Bsize;
                self.why
                    .insert(y.clone(), format!("{why} (its multiplier `{x}` changed)"));
            }
        }
        if v == Av::Bsize {
            self.why.insert(x.to_string(), why);
        }
        self.vals.insert(x.to_string(), v);
    }

    fn explain(&self, o: &Operand, what: &str) -> String {
        let v = self.opd(o);
        let from = match o {
            Operand::Var(x) => self
                .why
                .get(x)
                .map(|w| format!(" since {w}"))
                .unwrap_or_default(),
            Operand::Param(p) if p == BSIZE_CONST => " (a constant computed from blockDim)".into(),
            _ => String::new(),
        };
        format!("{what} `{o}` is {}{from}", v.show())
    }
}

fn operands(e: &Expr) -> Vec<&Operand> {
    match e {
        Expr::Opd(o) | Expr::Un(_, o) | Expr::Read(_, o) => vec![o],
        Expr::Bin(_, a, b) => vec![a, b],
    }
}

fn merge(a: &BTreeMap<String, Av>, b: &BTreeMap<String, Av>) -> BTreeMap<String, Av> {
    let mut out = a.clone();
    for (k, v) in b {
        let e = out.entry(k.clone()).or_insert(Av::Ind);
        if e != v {
            *e = Av::Bsize; // MERGE: only equal values survive
        }
    }
    for (k, v) in out.iter_mut() {
        if !b.contains_key(k) && *v != Av::Ind {
            *v = Av::Bsize;
        }
    }
    out
}

/// A failing write: (line, column, reason).
type Fail = (u32, u32, String);

fn run(st: &mut St<'_>, s: &Stmt, pi: bool) -> Result<(), Fail> {
    match s {
        Stmt::Skip | Stmt::Sync(_) => Ok(()),
        Stmt::Seq(a, b) => {
            run(st, a, pi)?;
            run(st, b, pi)
        }
        Stmt::Assign(x, e, l) => {
            let v = if pi { st.expr(e) } else { Av::Bsize };
            // blame the origin: a c_bsize operand passes its own reason on
            let inherited = operands(e)
                .into_iter()
                .find(|o| st.opd(o) == Av::Bsize)
                .and_then(|o| match o {
                    Operand::Var(y) => st.why.get(y).cloned(),
                    _ => None,
                });
            let why = if let (true, Some(w)) = (pi && v == Av::Bsize, inherited) {
                w
            } else if pi {
                let vals: Vec<String> = operands(e)
                    .iter()
                    .map(|o| format!("{o} = {}", st.opd(o).show()))
                    .collect();
                format!(
                    "line {}:{} (`{x} ← {e}` with {}: no rule of Fig. 5.4 applies)",
                    l.line,
                    l.col,
                    vals.join(", ")
                )
            } else {
                format!(
                    "line {}:{} (assigned under a block-size-dependent condition)",
                    l.line, l.col
                )
            };
            st.assign(x, v, why);
            Ok(())
        }
        Stmt::Warp(x, op, l) => {
            // which lanes share a warp depends on the block's shape: a shuffle or vote
            // result is not one of Fig. 5.4's values, so it counts as block-size dependent
            let why = format!(
                "line {}:{} (`{x} ← {op}`: a warp operation reads the lanes of its warp, which \
                 the block size groups)",
                l.line, l.col
            );
            st.assign(x, Av::Bsize, why);
            Ok(())
        }
        Stmt::Write(a, o, e, l) => {
            let fail = |r: String| Err((l.line, l.col, format!("write `{a}[{o}] ← {e}`: {r}")));
            if !pi {
                return fail("the path condition depends on the block size".into());
            }
            if st.opd(o) != Av::Ind {
                return fail(st.explain(o, "index"));
            }
            let v = st.expr(e);
            if v != Av::Ind {
                return match e {
                    Expr::Opd(x) => fail(st.explain(x, "value")),
                    _ => fail(format!("value `{e}` is {}", v.show())),
                };
            }
            Ok(())
        }
        Stmt::If(e, t, f, _) => {
            let c = pi && st.expr(e) == Av::Ind;
            let before = st.vals.clone();
            run(st, t, c)?;
            let after_t = std::mem::replace(&mut st.vals, before);
            run(st, f, c)?;
            st.vals = merge(&after_t, &st.vals);
            Ok(())
        }
        Stmt::While(e, b, _) => {
            for _ in 0..64 {
                let head = st.vals.clone();
                let c = pi && st.expr(e) == Av::Ind;
                run(st, b, c)?;
                let next = merge(&head, &st.vals);
                if next == head {
                    st.vals = next;
                    return Ok(());
                }
                st.vals = next;
            }
            // the lattice has height 2 per variable, so this is not reached; be safe
            Err((0, 0, "loop analysis did not stabilize".into()))
        }
    }
}

fn first_sync(s: &Stmt) -> Option<Loc> {
    match s {
        Stmt::Sync(l) => Some(*l),
        Stmt::Seq(a, b) | Stmt::If(_, a, b, _) => first_sync(a).or_else(|| first_sync(b)),
        Stmt::While(_, b, _) => first_sync(b),
        _ => None,
    }
}

/// Decides block-size independence of `marked` (a program whose `blockDim` constants are
/// parameters, from [`mark_block_dims`]).
pub fn decide(marked: &Program) -> Bsi {
    crate::core::stack::with_big_stack(|| {
        if let Some(l) = first_sync(&marked.body) {
            return Bsi::NotProvable {
                reason: format!(
                    "not synchronization-free: __syncthreads() at line {}:{} (Thm. 5.5 needs a sync-free kernel)",
                    l.line, l.col
                ),
            };
        }
        for dim in 0..3 {
            let mut st = St {
                dim,
                prog: marked,
                vals: BTreeMap::new(),
                why: BTreeMap::new(),
            };
            let _ = st.prog;
            if let Err((line, column, reason)) = run(&mut st, &marked.body, true) {
                return Bsi::Dependent {
                    dim: ['x', 'y', 'z'][dim],
                    line,
                    column,
                    reason,
                };
            }
        }
        Bsi::Independent
    })
}

/// [`mark_block_dims`] then [`decide`]; a lowering that differs in shape is not provable.
pub fn decide_lowered(a: &Program, b: &Program, ba: [u32; 3], bb: [u32; 3]) -> Bsi {
    match mark_block_dims(a, b, ba, bb) {
        Ok(p) => decide(&p),
        Err(l) => Bsi::NotProvable {
            reason: format!(
                "the lowered program's shape depends on the block size (first difference at line {}:{})",
                l.line, l.col
            ),
        },
    }
}

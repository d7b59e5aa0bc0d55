//! The sites an audit reports on: every array access and every branch of a lowered kernel,
//! in preorder, with its source location; and the *probe programs* that isolate one access
//! for a per-access certificate (`spec/audit.md` §2).
//!
//! A probe program is the kernel with every array of the probed access's memory space moved
//! to the other space (so that, under `sectors` for a global access or `conflicts` for a
//! shared one, no original access costs anything) and one fresh read `v ← PROBE[o]` inserted
//! just before the probed statement, `PROBE` a fresh array of the probed space and element
//! size, `v` a fresh local never read. Moving an array between spaces changes no value: the
//! per-warp claim of a certificate holds for all array contents, and a warp's run reads and
//! writes the moved arrays exactly as before. The probe sees the statement's state and
//! active lanes, so its `MemReads`/`Conflicts` per execution equal the probed access's, and
//! the probe certificate's bound bounds the access's total over one warp's run. With the
//! index replaced by the constant `0` every execution costs exactly one sector, so the
//! bound of that probe bounds how often the access runs.

use crate::core::{ArrayDecl, Expr, Loc, Operand, Program, Space, Stmt};

/// What a site is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SiteKind {
    /// `x ← A[o]` (also an `if`/`while` condition or the value of a write reading `A[o]`).
    Read,
    /// `A[o] ← e`.
    Write,
    /// `if e …`.
    Branch,
    /// `while e …`.
    Loop,
}

/// One access or branch of the lowered program.
#[derive(Clone, Debug, PartialEq)]
pub struct Site {
    /// Position in the preorder of sites (accesses and branches counted together).
    pub id: usize,
    /// Read, write, branch or loop.
    pub kind: SiteKind,
    /// The array accessed (accesses only).
    pub array: Option<String>,
    /// Its memory space (accesses only).
    pub space: Option<Space>,
    /// The element index operand (accesses only).
    pub index: Option<Operand>,
    /// Element size in bytes (accesses only).
    pub elem_bytes: u32,
    /// Source location of the statement (`Loc::default()`: synthesized by the lowering).
    pub loc: Loc,
    /// The lowered statement or condition, in the human form of `core::print`.
    pub lowered: String,
    /// Whether the access sits in a `while` condition (not probed: the condition is
    /// evaluated once more than the body).
    pub in_loop_condition: bool,
    /// Source locations of the enclosing loops, outermost first.
    pub loops: Vec<Loc>,
}

fn access(id: usize, kind: SiteKind, prog: &Program, a: &str, o: &Operand, loc: Loc) -> Site {
    let decl = prog.array(a);
    Site {
        id,
        kind,
        array: Some(a.to_string()),
        space: decl.map(|d| d.space),
        index: Some(o.clone()),
        elem_bytes: decl.map_or(4, |d| d.elem_bytes),
        loc,
        lowered: match kind {
            SiteKind::Write => format!("{a}[{o}] ← …"),
            _ => format!("{a}[{o}]"),
        },
        in_loop_condition: false,
        loops: Vec::new(),
    }
}

/// The sites of `prog` in preorder: for each statement, a write's own access, then the
/// read of its expression; a branch or loop, then the read of its condition, then the
/// sites of its sub-statements.
pub fn sites(prog: &Program) -> Vec<Site> {
    let mut out = Vec::new();
    let mut loops = Vec::new();
    collect(prog, &prog.body, &mut loops, &mut out);
    out
}

fn read_of(e: &Expr) -> Option<(&String, &Operand)> {
    match e {
        Expr::Read(a, o) => Some((a, o)),
        _ => None,
    }
}

fn push(out: &mut Vec<Site>, mut s: Site, loops: &[Loc]) {
    s.id = out.len();
    s.loops = loops.to_vec();
    out.push(s);
}

fn collect(prog: &Program, s: &Stmt, loops: &mut Vec<Loc>, out: &mut Vec<Site>) {
    match s {
        // a warp operation moves values between lanes: no memory access, no branch
        Stmt::Skip | Stmt::Sync(_) | Stmt::Warp(..) => {}
        Stmt::Seq(a, b) => {
            collect(prog, a, loops, out);
            collect(prog, b, loops, out);
        }
        Stmt::Assign(_, e, loc) => {
            if let Some((a, o)) = read_of(e) {
                push(out, access(0, SiteKind::Read, prog, a, o, *loc), loops);
            }
        }
        Stmt::Write(a, o, e, loc) => {
            push(out, access(0, SiteKind::Write, prog, a, o, *loc), loops);
            if let Some((b, o2)) = read_of(e) {
                push(out, access(0, SiteKind::Read, prog, b, o2, *loc), loops);
            }
        }
        Stmt::If(e, t, f, loc) => {
            push(out, branch(SiteKind::Branch, e, *loc), loops);
            if let Some((a, o)) = read_of(e) {
                push(out, access(0, SiteKind::Read, prog, a, o, *loc), loops);
            }
            collect(prog, t, loops, out);
            collect(prog, f, loops, out);
        }
        Stmt::While(e, b, loc) => {
            push(out, branch(SiteKind::Loop, e, *loc), loops);
            if let Some((a, o)) = read_of(e) {
                let mut s = access(0, SiteKind::Read, prog, a, o, *loc);
                s.in_loop_condition = true;
                push(out, s, loops);
            }
            loops.push(*loc);
            collect(prog, b, loops, out);
            loops.pop();
        }
    }
}

fn branch(kind: SiteKind, e: &Expr, loc: Loc) -> Site {
    Site {
        id: 0,
        kind,
        array: None,
        space: None,
        index: None,
        elem_bytes: 0,
        loc,
        lowered: format!("{e}"),
        in_loop_condition: false,
        loops: Vec::new(),
    }
}

/// How the probe indexes its array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Probe {
    /// The probed access's own index: the probe costs what the access costs.
    SameIndex,
    /// Index `0`: every execution costs one sector (global) — the probe counts executions.
    Constant,
}

/// The name of the probe array (and, with `_v`, of its local) — not a C identifier's
/// usual spelling, and made unique against the program's names.
fn fresh(prog: &Program, base: &str) -> String {
    let taken = |n: &str| {
        prog.array(n).is_some() || prog.local_ty(n).is_some() || prog.param_ty(n).is_some()
    };
    let mut name = base.to_string();
    let mut k = 0;
    while taken(&name) {
        k += 1;
        name = format!("{base}{k}");
    }
    name
}

/// The probe program of access site `site` (see the module documentation); `None` when the
/// site is not an access, is in a `while` condition, or its array is undeclared.
pub fn probe_program(prog: &Program, site: &Site, how: Probe) -> Option<Program> {
    let (Some(space), Some(index)) = (site.space, site.index.as_ref()) else {
        return None;
    };
    if site.in_loop_condition || !matches!(site.kind, SiteKind::Read | SiteKind::Write) {
        return None;
    }
    let decl = prog.array(site.array.as_deref()?)?;
    let other = match space {
        Space::Global => Space::Shared,
        Space::Shared => Space::Global,
        // thread-local arrays cost no sectors or conflicts (spec/metrics.md): no probe
        Space::Local => return None,
    };
    let arr = fresh(prog, "warpcert_probe");
    let var = fresh(prog, "warpcert_probe_v");
    let mut p = prog.clone();
    for a in &mut p.arrays {
        if a.space == space {
            a.space = other;
        }
    }
    p.arrays.push(ArrayDecl {
        name: arr.clone(),
        space,
        elem: decl.elem,
        elem_bytes: decl.elem_bytes,
        len: None,
    });
    p.locals.push((var.clone(), decl.elem));
    let o = match how {
        Probe::SameIndex => index.clone(),
        Probe::Constant => Operand::Const(crate::core::Const::Int(0)),
    };
    let probe = Stmt::Assign(var, Expr::Read(arr, o), site.loc);
    let mut counter = 0;
    let mut done = false;
    p.body = insert(&prog.body, site.id, &probe, &mut counter, &mut done);
    done.then_some(p)
}

/// The execution-counting probe of branch or loop site `site`: every global array moved to
/// shared space, and `v ← PROBE[0]` (`PROBE` a fresh global `int` array) before the `if`, or
/// at the start of the loop's body (counting the iterations that run the body). Its
/// `sectors` certificate bounds how often the branch is taken or the body runs.
pub fn probe_branch(prog: &Program, site: &Site) -> Option<Program> {
    if !matches!(site.kind, SiteKind::Branch | SiteKind::Loop) {
        return None;
    }
    let arr = fresh(prog, "warpcert_probe");
    let var = fresh(prog, "warpcert_probe_v");
    let mut p = prog.clone();
    for a in &mut p.arrays {
        a.space = Space::Shared;
    }
    p.arrays.push(ArrayDecl {
        name: arr.clone(),
        space: Space::Global,
        elem: crate::core::Ty::Int,
        elem_bytes: 4,
        len: None,
    });
    p.locals.push((var.clone(), crate::core::Ty::Int));
    let probe = Stmt::Assign(
        var,
        Expr::Read(arr, Operand::Const(crate::core::Const::Int(0))),
        site.loc,
    );
    let mut counter = 0;
    let mut done = false;
    p.body = insert(&prog.body, site.id, &probe, &mut counter, &mut done);
    done.then_some(p)
}

/// Rebuilds `s` with `probe` before the statement holding site `target` (sites numbered as
/// in [`sites`]).
fn insert(s: &Stmt, target: usize, probe: &Stmt, n: &mut usize, done: &mut bool) -> Stmt {
    let here = |k: usize, n: &mut usize| {
        let hit = (*n..*n + k).contains(&target);
        *n += k;
        hit
    };
    let before = |s: Stmt, hit: bool, done: &mut bool| {
        if hit {
            *done = true;
            Stmt::Seq(Box::new(probe.clone()), Box::new(s))
        } else {
            s
        }
    };
    match s {
        Stmt::Skip | Stmt::Sync(_) | Stmt::Warp(..) => s.clone(),
        Stmt::Seq(a, b) => {
            let a = insert(a, target, probe, n, done);
            let b = insert(b, target, probe, n, done);
            Stmt::Seq(Box::new(a), Box::new(b))
        }
        Stmt::Assign(_, e, _) => {
            let hit = here(usize::from(read_of(e).is_some()), n);
            before(s.clone(), hit, done)
        }
        Stmt::Write(_, _, e, _) => {
            let hit = here(1 + usize::from(read_of(e).is_some()), n);
            before(s.clone(), hit, done)
        }
        Stmt::If(e, t, f, loc) => {
            let hit = here(1 + usize::from(read_of(e).is_some()), n);
            let t = insert(t, target, probe, n, done);
            let f = insert(f, target, probe, n, done);
            before(
                Stmt::If(e.clone(), Box::new(t), Box::new(f), *loc),
                hit,
                done,
            )
        }
        Stmt::While(e, b, loc) => {
            // only the loop site itself is probed (at the start of the body: once per
            // iteration that runs it); a read in the condition is not
            let hit = target == *n;
            *n += 1 + usize::from(read_of(e).is_some());
            let b = insert(b, target, probe, n, done);
            let b = if hit {
                *done = true;
                Stmt::Seq(Box::new(probe.clone()), Box::new(b))
            } else {
                b
            };
            Stmt::While(e.clone(), Box::new(b), *loc)
        }
    }
}

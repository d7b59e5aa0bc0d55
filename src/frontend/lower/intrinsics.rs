//! Atomics (as a read and a write of the cell), math intrinsics, and opaque calls
//! (`spec/lowering.md` §9.4: math functions the clang front end passes through).

use crate::core::{BinOp, Const, Dim, Expr, Operand, Stmt, Ty, UnOp};
use crate::frontend::ast::{self, CType};
use crate::frontend::diag::Pos;
use crate::frontend::lower::{int, loc, var, Lw, R};

/// Appended to an atomic's warning when its value is used (`spec/lowering.md` §6).
const USED_VALUE: &str = "; its value is the cell's content before the warp's atomic, for every lane (lock-step order: all reads, then the writes), which is CUDA's old value when the lanes hit distinct cells; the bounds hold for every order, the analysis treats the value as unknown";

impl Lw<'_> {
    /// `spec/lowering.md` §9.4: `⟦a1⟧ₒ; …; t1 ← o1 + o2; …` (arguments converted to the
    /// result's kind), then `t ← tofloat t1` / `toint t1` / `tobool t1`: one operation per
    /// extra argument plus one conversion, whose value stands in for the function's.
    pub(super) fn opaque(
        &mut self,
        args: &[ast::Expr],
        rt: &CType,
        p: Pos,
        out: &mut Vec<Stmt>,
    ) -> R<(Expr, Ty)> {
        let to = self.scalar_ty(rt, p)?;
        let kind = if to == Ty::Float { Ty::Float } else { Ty::Int };
        let mut acc: Option<Operand> = None;
        for a in args {
            let (o, t) = self.opd(a, out)?;
            let o = self.convert(o, t, kind, p, out);
            acc = Some(match acc {
                None => o,
                Some(prev) => self.bind(Expr::Bin(BinOp::Add, prev, o), kind, p, out),
            });
        }
        let o = acc.unwrap_or(Operand::Const(Const::Int(0)));
        let op = match to {
            Ty::Float => UnOp::ToFloat,
            Ty::Int => UnOp::ToInt,
            Ty::Bool => UnOp::ToBool,
        };
        Ok((Expr::Un(op, o), to))
    }

    /// `atomicInc`, `atomicDec`, `atomicCAS` as statements on integer cells
    /// (`spec/lowering.md` §6, atomics): the conditional update is computed without a branch
    /// (`c` a comparison, `ci ← toint c`, the new value blended by `ci`), so it costs no
    /// divergence, like the hardware instruction.
    pub(super) fn atomic_conditional(
        &mut self,
        name: &str,
        args: &[ast::Expr],
        p: Pos,
        want: bool,
        out: &mut Vec<Stmt>,
    ) -> R<Option<(Operand, Ty)>> {
        let base = name.split('_').next().unwrap_or(name);
        let n = if base == "atomicCAS" { 3 } else { 2 };
        if args.len() != n {
            return self.err(
                p,
                format!("`{name}` expects {n} arguments, found {}", args.len()),
            );
        }
        let (arr, off, elem) = self.ptr_expr(&args[0], out)?;
        if elem != Ty::Int {
            return self.err(p, format!("`{name}` on a non-integer array `{arr}`"));
        }
        let mut ops = Vec::new();
        for a in &args[1..] {
            ops.push(self.int_opd(a, out)?);
        }
        let tn = self.temp(Ty::Int);
        let t = var(&tn);
        out.push(Stmt::Assign(
            tn,
            Expr::Read(arr.clone(), off.clone()),
            loc(p),
        ));
        let l = loc(p);
        let b = |this: &mut Self, e: Expr, ty: Ty, out: &mut Vec<Stmt>| -> Operand {
            let x = this.temp(ty);
            out.push(Stmt::Assign(x.clone(), e, l));
            var(&x)
        };
        let value = match base {
            "atomicInc" => {
                // ((old >= v) ? 0 : old + 1)  =  (old + 1) * toint(old < v)
                let c = b(
                    self,
                    Expr::Bin(BinOp::Lt, t.clone(), ops[0].clone()),
                    Ty::Bool,
                    out,
                );
                let ci = b(self, Expr::Un(UnOp::ToInt, c), Ty::Int, out);
                let u = b(self, Expr::Bin(BinOp::Add, t.clone(), int(1)), Ty::Int, out);
                Expr::Bin(BinOp::Mul, u, ci)
            }
            "atomicDec" => {
                // ((old == 0 || old > v) ? v : old - 1)  =  d + (v - d) * toint(c), d = old - 1
                let c1 = b(self, Expr::Bin(BinOp::Eq, t.clone(), int(0)), Ty::Bool, out);
                let c2 = b(
                    self,
                    Expr::Bin(BinOp::Gt, t.clone(), ops[0].clone()),
                    Ty::Bool,
                    out,
                );
                let c = b(self, Expr::Bin(BinOp::Or, c1, c2), Ty::Bool, out);
                let ci = b(self, Expr::Un(UnOp::ToInt, c), Ty::Int, out);
                let d = b(self, Expr::Bin(BinOp::Sub, t.clone(), int(1)), Ty::Int, out);
                let e = b(
                    self,
                    Expr::Bin(BinOp::Sub, ops[0].clone(), d.clone()),
                    Ty::Int,
                    out,
                );
                let f = b(self, Expr::Bin(BinOp::Mul, e, ci), Ty::Int, out);
                Expr::Bin(BinOp::Add, d, f)
            }
            _ => {
                // ((old == cmp) ? v : old)  =  old + (v - old) * toint(old == cmp)
                let c = b(
                    self,
                    Expr::Bin(BinOp::Eq, t.clone(), ops[0].clone()),
                    Ty::Bool,
                    out,
                );
                let ci = b(self, Expr::Un(UnOp::ToInt, c), Ty::Int, out);
                let e = b(
                    self,
                    Expr::Bin(BinOp::Sub, ops[1].clone(), t.clone()),
                    Ty::Int,
                    out,
                );
                let f = b(self, Expr::Bin(BinOp::Mul, e, ci), Ty::Int, out);
                Expr::Bin(BinOp::Add, t.clone(), f)
            }
        };
        self.writable(&arr, p)?;
        out.push(Stmt::Write(arr.clone(), off, value, loc(p)));
        if self.warned_atomics.insert(p) {
            self.warnings.push(self.sm.warning(
                p,
                format!(
                    "`{name}` on `{arr}` is lowered to a read, a branch-free update and a write of the cell (spec/lowering.md §6): lanes hitting the same address count once and the value stored when several lanes of a warp update the same cell is not modelled, as for `atomicAdd`{}",
                    if want { USED_VALUE } else { "" }
                ),
            ));
        }
        if !want {
            return Ok(None);
        }
        let old = self.lane_dependent(t, Ty::Int, p, out);
        Ok(Some((old, Ty::Int)))
    }

    /// `atomicOp(ptr, v)` as a statement (`spec/lowering.md` §6, atomics):
    /// `⟦ptr⟧; ⟦v⟧ₒ; t ← A[o]; A[o] ← t op ov` (`atomicExch`: `A[o] ← ov`).
    pub(super) fn atomic(
        &mut self,
        name: &str,
        op: Option<BinOp>,
        args: &[ast::Expr],
        p: Pos,
        want: bool,
        out: &mut Vec<Stmt>,
    ) -> R<Option<(Operand, Ty)>> {
        if args.len() != 2 {
            return self.err(
                p,
                format!("`{name}` expects 2 arguments, found {}", args.len()),
            );
        }
        let (arr, off, elem) = self.ptr_expr(&args[0], out)?;
        let (ov, tv) = self.opd(&args[1], out)?;
        let t1 = self.temp(elem);
        out.push(Stmt::Assign(
            t1.clone(),
            Expr::Read(arr.clone(), off.clone()),
            loc(p),
        ));
        let value = match op {
            Some(b) => {
                let (x, t) = self.binary_opds(b, var(&t1), elem, ov, tv, p, out)?;
                self.convert_expr(x, t, elem, p, out)
            }
            None => self.convert_expr(Expr::Opd(ov), tv, elem, p, out),
        };
        self.writable(&arr, p)?;
        out.push(Stmt::Write(arr.clone(), off, value, loc(p)));
        if self.warned_atomics.insert(p) {
            self.warnings.push(self.sm.warning(
                p,
                format!(
                    "`{name}` on `{arr}` is lowered to a read and a write of the cell (spec/lowering.md §6): its cost is that of one read and one write of the warp's addresses (lanes hitting the same address count once, as for a broadcast; hardware serialization of such lanes is not charged); the value stored when several lanes of a warp update the same cell is not modelled (lock-step keeps one lane's write), so simulated contents of `{arr}` are not faithful after it{}",
                    if want { USED_VALUE } else { "" }
                ),
            ));
        }
        if !want {
            return Ok(None);
        }
        let old = self.lane_dependent(var(&t1), elem, p, out);
        Ok(Some((old, elem)))
    }

    /// The value `t` of an atomic's read as its returned value (`spec/lowering.md` §6):
    /// `t + z` with `z` a lane-dependent zero, `s ← tid.x + tid.y + tid.z` (the dimensions of
    /// the block of size > 1), `f ← tofloat s; i ← toint f; z ← i - s` (for float cells
    /// `tofloat z`), so that the logic treats the value as non-uniform and unconstrained
    /// (`toint` of a lane-dependent operand): the bounds then hold for every order in which
    /// the hardware serves the lanes, not only for the lock-step one the semantics runs.
    fn lane_dependent(&mut self, t: Operand, elem: Ty, p: Pos, out: &mut Vec<Stmt>) -> Operand {
        let dims: Vec<usize> = (0..3).filter(|&d| self.launch.block[d] > 1).collect();
        let Some((&d0, rest)) = dims.split_first() else {
            return t; // one thread per block: no other lane
        };
        let mut s = Operand::Tid(Dim::ALL[d0]);
        for &d in rest {
            s = self.bind(
                Expr::Bin(BinOp::Add, s, Operand::Tid(Dim::ALL[d])),
                Ty::Int,
                p,
                out,
            );
        }
        let f = self.bind(Expr::Un(UnOp::ToFloat, s.clone()), Ty::Float, p, out);
        let i = self.bind(Expr::Un(UnOp::ToInt, f), Ty::Int, p, out);
        let mut z = self.bind(Expr::Bin(BinOp::Sub, i, s), Ty::Int, p, out);
        if elem == Ty::Float {
            z = self.bind(Expr::Un(UnOp::ToFloat, z), Ty::Float, p, out);
        }
        self.bind(Expr::Bin(BinOp::Add, t, z), elem, p, out)
    }

    /// CUDA math and conversion intrinsics with a core equivalent (`spec/lowering.md` §2),
    /// or an error naming those without one; `None` for other names.
    pub(super) fn intrinsic(
        &mut self,
        name: &str,
        args: &[ast::Expr],
        p: Pos,
        out: &mut Vec<Stmt>,
    ) -> Option<R<(Operand, Ty)>> {
        if !is_intrinsic(name) {
            return None;
        }
        Some(self.intrinsic_call(name, args, p, out))
    }

    pub(super) fn intrinsic_call(
        &mut self,
        name: &str,
        args: &[ast::Expr],
        p: Pos,
        out: &mut Vec<Stmt>,
    ) -> R<(Operand, Ty)> {
        let arity = |n: usize| -> R<()> {
            if args.len() == n {
                Ok(())
            } else {
                Err(self.sm.error(
                    p,
                    format!("`{name}` expects {n} argument(s), found {}", args.len()),
                ))
            }
        };
        // IEEE rounding-mode variants: the abstract base type has one of each operation
        let rounded = |stem: &str| -> bool {
            ["_rn", "_rz", "_ru", "_rd"]
                .iter()
                .any(|r| name == format!("__f{stem}{r}") || name == format!("__d{stem}{r}"))
        };
        let bop = if rounded("add") {
            Some(BinOp::Add)
        } else if rounded("sub") {
            Some(BinOp::Sub)
        } else if rounded("mul") {
            Some(BinOp::Mul)
        } else if rounded("div") || name == "__fdividef" || name == "fdividef" {
            Some(BinOp::Div)
        } else {
            None
        };
        if let Some(b) = bop {
            arity(2)?;
            let (oa, ta) = self.opd(&args[0], out)?;
            let (ob, tb) = self.opd(&args[1], out)?;
            let oa = self.convert(oa, ta, Ty::Float, p, out);
            let ob = self.convert(ob, tb, Ty::Float, p, out);
            return Ok((
                self.bind(Expr::Bin(b, oa, ob), Ty::Float, p, out),
                Ty::Float,
            ));
        }
        match name {
            "abs" | "labs" | "llabs" | "fabs" | "fabsf" => {
                // ⟦a⟧ₒ; t ← neg oa; t' ← oa max t
                arity(1)?;
                let (o, t) = self.opd(&args[0], out)?;
                let (o, t) = match t {
                    Ty::Bool => (self.convert(o, t, Ty::Int, p, out), Ty::Int),
                    _ if name.starts_with('f') => (self.convert(o, t, Ty::Float, p, out), Ty::Float),
                    _ => (o, t),
                };
                let n = match &o {
                    Operand::Const(Const::Int(v)) if *v != i64::MIN => int(-v),
                    Operand::Const(Const::Float(x)) => Operand::Const(Const::Float(-x)),
                    _ => self.bind(Expr::Un(UnOp::Neg, o.clone()), t, p, out),
                };
                let (x, t) = self.binary_opds(BinOp::Max, o, t, n, t, p, out)?;
                Ok((self.bind(x, t, p, out), t))
            }
            "fma" | "fmaf" | "__fmaf_rn" | "__fmaf_rz" | "__fmaf_ru" | "__fmaf_rd" | "__fma_rn"
            | "__fma_rz" | "__fma_ru" | "__fma_rd" => {
                // ⟦a⟧ₒ; ⟦b⟧ₒ; t ← oa * ob; ⟦c⟧ₒ; t' ← t + oc   (on floats)
                arity(3)?;
                let (oa, ta) = self.opd(&args[0], out)?;
                let oa = self.convert(oa, ta, Ty::Float, p, out);
                let (ob, tb) = self.opd(&args[1], out)?;
                let ob = self.convert(ob, tb, Ty::Float, p, out);
                let m = self.bind(Expr::Bin(BinOp::Mul, oa, ob), Ty::Float, p, out);
                let (oc, tc) = self.opd(&args[2], out)?;
                let oc = self.convert(oc, tc, Ty::Float, p, out);
                Ok((self.bind(Expr::Bin(BinOp::Add, m, oc), Ty::Float, p, out), Ty::Float))
            }
            "__float2int_rz" | "__double2int_rz" | "__float2uint_rz" | "__double2uint_rz"
            | "__float2ll_rz" | "__double2ll_rz" => {
                arity(1)?;
                let (o, t) = self.opd(&args[0], out)?;
                Ok((self.convert(o, t, Ty::Int, p, out), Ty::Int))
            }
            "__int2float_rn" | "__uint2float_rn" | "__int2double_rn" | "__uint2double_rn"
            | "__ll2float_rn" | "__ll2double_rn" => {
                arity(1)?;
                let (o, t) = self.opd(&args[0], out)?;
                Ok((self.convert(o, t, Ty::Float, p, out), Ty::Float))
            }
            "sqrt" | "sqrtf" | "rsqrt" | "rsqrtf" | "cbrt" | "cbrtf" | "exp" | "expf" | "exp2"
            | "exp2f" | "exp10" | "exp10f" | "__expf" | "log" | "logf" | "log2" | "log2f"
            | "log10" | "log10f" | "__logf" | "__log2f" | "sin" | "sinf" | "cos" | "cosf"
            | "tan" | "tanf" | "__sinf" | "__cosf" | "__tanf" | "sincosf" | "tanh" | "tanhf"
            | "atan" | "atanf" | "atan2" | "atan2f" | "pow" | "powf" | "__powf" | "floor"
            | "floorf" | "ceil" | "ceilf" | "round" | "roundf" | "rint" | "rintf" | "trunc"
            | "truncf" | "fmod" | "fmodf" | "hypot" | "hypotf" | "__saturatef" | "erf" | "erff"
            | "__frcp_rn" | "__fsqrt_rn" | "__float2int_rn" | "__float2int_ru"
            | "__float2int_rd" | "__double2int_rn" => Err(self.sm.error(
                p,
                format!("math function `{name}` has no miniCUDA operator (the abstract base type has only `+ - * / min max`, comparisons and conversions that truncate)"),
            )),
            "__popc" | "__popcll" | "__ffs" | "__ffsll" => {
                // ⟦a⟧ₒ; (t ← oa & 0xffffffff for the 32-bit forms;) t' ← popc t / ffs t
                arity(1)?;
                let o = self.int_opd(&args[0], out)?;
                let o = if name.ends_with("ll") {
                    o
                } else {
                    self.bind(Expr::Bin(BinOp::BitAnd, o, int(0xffff_ffff)), Ty::Int, p, out)
                };
                let op = if name.starts_with("__popc") { UnOp::Popc } else { UnOp::Ffs };
                Ok((self.bind(Expr::Un(op, o), Ty::Int, p, out), Ty::Int))
            }
            "__clz" | "__clzll" | "__brev"
            | "__brevll" | "__byte_perm" | "__funnelshift_l" | "__funnelshift_r"
            | "__funnelshift_lc" | "__funnelshift_rc" | "__umulhi" | "__mulhi" | "__umul64hi"
            | "__mul64hi" | "__sad" | "__usad" | "__hadd" | "__rhadd" | "__uhadd" | "__urhadd" => {
                Err(self.sm.error(
                    p,
                    format!("bit/integer intrinsic `{name}` has no miniCUDA operator"),
                ))
            }
            _ => Err(self.sm.error(
                p,
                format!("conversion/arithmetic intrinsic `{name}` has no miniCUDA operator (only the truncating `_rz` float→int and the `_rn` int→float conversions are modelled)"),
            )),
        }
    }
}

/// The read-modify-write operator of a modelled atomic (`None` for `atomicExch`), also
/// for the `_block`/`_system` scoped variants; `None` for other names.
pub(super) fn atomic_op(name: &str) -> Option<Option<BinOp>> {
    let base = name
        .strip_suffix("_block")
        .or_else(|| name.strip_suffix("_system"))
        .unwrap_or(name);
    Some(match base {
        "atomicAdd" => Some(BinOp::Add),
        "atomicSub" => Some(BinOp::Sub),
        "atomicMin" => Some(BinOp::Min),
        "atomicMax" => Some(BinOp::Max),
        "atomicAnd" => Some(BinOp::BitAnd),
        "atomicOr" => Some(BinOp::BitOr),
        "atomicXor" => Some(BinOp::BitXor),
        "atomicExch" => None,
        _ => return None,
    })
}

/// Whether `name` is one of the math/conversion/bit intrinsics handled by `Lw::intrinsic`.
pub(super) fn is_intrinsic(name: &str) -> bool {
    let rounded = |stem: &str| {
        ["_rn", "_rz", "_ru", "_rd"]
            .iter()
            .any(|r| name == format!("__f{stem}{r}") || name == format!("__d{stem}{r}"))
    };
    ["add", "sub", "mul", "div"].iter().any(|s| rounded(s))
        || matches!(
            name,
            "__fdividef"
                | "fdividef"
                | "abs"
                | "labs"
                | "llabs"
                | "fabs"
                | "fabsf"
                | "fma"
                | "fmaf"
        )
        || ((name.starts_with("__fma") && name.len() <= 10)
            || name.starts_with("__float2")
            || name.starts_with("__double2")
            || name.starts_with("__int2")
            || name.starts_with("__uint2")
            || name.starts_with("__ll2"))
        || matches!(
            name,
            "sqrt"
                | "sqrtf"
                | "rsqrt"
                | "rsqrtf"
                | "cbrt"
                | "cbrtf"
                | "exp"
                | "expf"
                | "exp2"
                | "exp2f"
                | "exp10"
                | "exp10f"
                | "__expf"
                | "log"
                | "logf"
                | "log2"
                | "log2f"
                | "log10"
                | "log10f"
                | "__logf"
                | "__log2f"
                | "sin"
                | "sinf"
                | "cos"
                | "cosf"
                | "tan"
                | "tanf"
                | "__sinf"
                | "__cosf"
                | "__tanf"
                | "sincosf"
                | "tanh"
                | "tanhf"
                | "atan"
                | "atanf"
                | "atan2"
                | "atan2f"
                | "pow"
                | "powf"
                | "__powf"
                | "floor"
                | "floorf"
                | "ceil"
                | "ceilf"
                | "round"
                | "roundf"
                | "rint"
                | "rintf"
                | "trunc"
                | "truncf"
                | "fmod"
                | "fmodf"
                | "hypot"
                | "hypotf"
                | "__saturatef"
                | "erf"
                | "erff"
                | "__frcp_rn"
                | "__fsqrt_rn"
        )
        || matches!(
            name,
            "__popc"
                | "__popcll"
                | "__clz"
                | "__clzll"
                | "__ffs"
                | "__ffsll"
                | "__brev"
                | "__brevll"
                | "__byte_perm"
                | "__funnelshift_l"
                | "__funnelshift_r"
                | "__funnelshift_lc"
                | "__funnelshift_rc"
                | "__umulhi"
                | "__mulhi"
                | "__umul64hi"
                | "__mul64hi"
                | "__sad"
                | "__usad"
                | "__hadd"
                | "__rhadd"
                | "__uhadd"
                | "__urhadd"
        )
}

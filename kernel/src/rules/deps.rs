//! Dependence of values on the lane, spec/logic.md §2: `dep_D` of operands and expressions,
//! scaled and range entries, `fix_P`-evaluated constant folding.

use super::*;
use crate::arith::Mul;

impl Ctx<'_> {
    /// `dep_D(o)`; `None` is `⊤` (also for a local with a remainder entry).
    pub fn dep_opd(d: &DepMap, o: &Opd) -> Option<Dep> {
        match o {
            Opd::Int(n) => Some(Dep::exact(n.clone())),
            Opd::Param(_) | Opd::Bool(_) | Opd::Float(_) => Some(Dep::unknown_uniform()),
            Opd::Tid(i) => {
                let mut k: [BigInt; 3] = Default::default();
                if let Some(k) = k.get_mut(*i) {
                    *k = BigInt::one();
                }
                Some(Dep::norm(k, BigInt::zero(), BigInt::zero()))
            }
            Opd::Var(x) => d.get(x).filter(|e| e.linear()).cloned(),
        }
    }

    /// `dep_D(e)` (spec/logic.md §2); `None` is `⊤`. Operands of `*` (when neither side is
    /// an exact constant) and of opaque operators are first made warp-uniform by
    /// [`Ctx::collapse`] when their thread dependence is only on warp-uniform dimensions.
    pub fn dep_expr(&self, d: &DepMap, e: &Expr) -> Option<Dep> {
        let col = |x: &Option<Dep>| x.as_ref().map(|x| self.collapse(x));
        let opaque =
            |ds: &[Option<Dep>]| ds.iter().all(|x| x.as_ref().is_some_and(Dep::uniform)).then(Dep::unknown_uniform);
        match e {
            Expr::Opd(o) => Self::dep_opd(d, o),
            Expr::Read(_, o) => opaque(&[col(&Self::dep_opd(d, o))]),
            Expr::Un(op, o) => {
                let x = Self::dep_opd(d, o);
                match (op.as_str(), &x) {
                    ("neg", Some(x)) => Some(x.scale(&-BigInt::one())),
                    _ => opaque(&[col(&x)]),
                }
            }
            Expr::Bin(op, a, b) => {
                let (x, y) = (Self::dep_opd(d, a), Self::dep_opd(d, b));
                match (op.as_str(), &x, &y) {
                    ("+", Some(x), Some(y)) => Some(x.add(y, 1)),
                    ("-", Some(x), Some(y)) => Some(x.add(y, -1)),
                    ("*", Some(x), Some(y)) => match (x.as_exact(), y.as_exact()) {
                        (Some(c), _) => Some(y.scale(c)),
                        (_, Some(c)) => Some(x.scale(c)),
                        _ => {
                            let (x, y) = (self.collapse(x), self.collapse(y));
                            (x.uniform() && y.uniform()).then(|| x.mul_uniform(&y))
                        }
                    },
                    ("<<", Some(x), Some(y)) => match y.as_exact().and_then(ToPrimitive::to_u32) {
                        Some(c) if c < 62 => Some(x.scale(&(BigInt::one() << c))),
                        _ => opaque(&[col(&Some(x.clone())), col(&Some(y.clone()))]),
                    },
                    (">>", Some(x), Some(y)) => match y.as_exact().and_then(ToPrimitive::to_u32) {
                        Some(c) if c < 62 && !self.collapse(x).uniform() && self.shift_uniform(x, c) => {
                            Some(Dep::unknown_uniform())
                        }
                        _ => opaque(&[col(&Some(x.clone())), col(&Some(y.clone()))]),
                    },
                    _ => opaque(&[col(&x), col(&y)]),
                }
            }
        }
    }

    /// The `>>` rule of `dep_D` (spec/logic.md §2): for every warp and every `ρ ∈ [0, 2^c)`
    /// with `ρ ≡ r (mod gcd(g, 2^c))`, `⌊(k·tid(l) + ρ) / 2^c⌋` is the same on all lanes `l`.
    /// `false` when the enumeration would exceed [`access::WORK_LIMIT`].
    pub fn shift_uniform(&self, x: &Dep, c: u32) -> bool {
        let p = BigInt::one() << c;
        let step = if x.g.is_zero() { p.clone() } else { x.g.gcd(&p) };
        let rho0 = x.r.mod_floor(&step);
        let count = (&p / &step).to_u64().unwrap_or(u64::MAX);
        let total = access::block_threads(self.block).unwrap_or(u64::MAX);
        if count.saturating_mul(total) > access::WORK_LIMIT {
            return false;
        }
        let warp = u64::from(self.hw[0].max(1));
        let mut start = 0;
        while start < total {
            let end = (start + warp).min(total);
            let offs: Vec<BigInt> = (start..end)
                .map(|t| {
                    let ti = access::thread_index(self.block, t);
                    x.k.iter().zip(ti).map(|(k, i)| k * BigInt::from(i)).sum()
                })
                .collect();
            let mut rho = rho0.clone();
            while rho < p {
                let mut qs = offs.iter().map(|o| (o + &rho).div_floor(&p));
                let q0 = qs.next();
                if qs.any(|q| Some(q) != q0) {
                    return false;
                }
                rho += &step;
            }
            start = end;
        }
        true
    }

    /// Collapse of a dependence on warp-uniform dimensions only (spec/logic.md §2):
    /// `(k, r, g)` with `k_d = 0` for every dimension `d` that is not warp-uniform becomes
    /// `(0, r, gcd(g, k_d …))`, the gcd over the dimensions of extent `B_d ≠ 1` only
    /// (`threadIdx.d = 0` on every thread when `B_d = 1`); any other entry is returned
    /// unchanged.
    pub fn collapse(&self, x: &Dep) -> Dep {
        if x.uniform() || x.k.iter().zip(self.udims).any(|(k, u)| !k.is_zero() && !u) {
            return x.clone();
        }
        let g = x.k.iter().zip(self.block).filter(|(_, b)| *b != 1).fold(x.g.clone(), |g, (k, _)| g.gcd(k));
        Dep::norm(Default::default(), x.r.clone(), g)
    }

    /// `lin_P(e)` (spec/logic.md §2 "Fixed operands"): `lin(e′)` where `e′` is `e` with every
    /// `(var y)` operand fixed by `p` ([`fixed`]) replaced by its value, and a binary integer
    /// operator on two constants evaluated ([`eval_int`]; undefined when the evaluation is).
    pub fn lin_fixed(&self, p: &[Cstr], e: &Expr) -> Option<Lin> {
        let fix = |o: &Opd| match o {
            Opd::Var(y) if self.prog.local(y) == Some(Ty::Int) => fixed(p, y).map_or_else(|| o.clone(), Opd::Int),
            _ => o.clone(),
        };
        match e {
            Expr::Opd(o) => self.lin_opd(&fix(o)),
            Expr::Bin(op, a, b) => match (fix(a), fix(b)) {
                (Opd::Int(x), Opd::Int(y)) if !["+", "-", "*"].contains(&op.as_str()) => {
                    eval_int(op, &x, &y).map(|v| Lin::constant(Rat::from_integer(v)))
                }
                (a, b) => self.lin_expr(&Expr::Bin(op.clone(), a, b)),
            },
            Expr::Un(op, a) => self.lin_expr(&Expr::Un(op.clone(), fix(a))),
            Expr::Read(..) => None,
        }
    }

    /// `ent_P,D(e)`, the entry a Q:VWRITE node may claim for `x ← e` (spec/logic.md §2
    /// "Assigned entry"): `(0, c, 0)` when `lin_P(e)` is the constant `c`; a copy of a
    /// remainder entry; the remainder entry of `a % m`; `dep_D(e)`; else the scaled entry
    /// `scaled_D(e)` when it has a `?` dimension; else the range entry of `width_D(e)`.
    pub fn dep_assigned(&self, pre: &Assn, e: &Expr) -> Option<Dep> {
        if let Some(c) = self.lin_fixed(&pre.p, e).as_ref().and_then(Lin::as_const) {
            if c.is_integer() {
                return Some(Dep::exact(c.to_integer()));
            }
        }
        let linear = self.dep_expr(&pre.d, e);
        let rem = match e {
            Expr::Opd(Opd::Var(y)) => pre.d.get(y).filter(|d| d.kind == EntryKind::Rem).cloned(),
            Expr::Bin(op, a, b) if op == "%" && linear.is_none() => {
                let m = Self::dep_opd(&pre.d, b).and_then(|d| d.as_exact().cloned()).filter(Signed::is_positive);
                match (m, Self::dep_opd(&pre.d, a)) {
                    (Some(m), Some(da)) if da.g.is_multiple_of(&m) => Some(Dep::remainder(da.k, &da.r, m)),
                    _ => None,
                }
            }
            _ => None,
        };
        rem.or(linear)
            .or_else(|| self.scaled_expr(&pre.d, e).filter(|d| !d.linear()))
            .or_else(|| Self::width_expr(&pre.d, e).map(Dep::range))
    }

    /// `scaled_D(o)` (spec/logic.md §2 "Scaled entries"): a local's scaled entry, else
    /// `dep_D(o)` (a linear entry: no `?` dimension).
    pub fn scaled_opd(d: &DepMap, o: &Opd) -> Option<Dep> {
        match o {
            Opd::Var(x) => {
                d.get(x).filter(|e| matches!(e.kind, EntryKind::Scaled(_))).cloned().or_else(|| Self::dep_opd(d, o))
            }
            _ => Self::dep_opd(d, o),
        }
    }

    /// `scaled_D(e)`: sums and differences (`?` on the union of the operands' `?`
    /// dimensions), `neg`, products with an exact side (scaled) or with a side uniform after
    /// collapse (every thread dimension of the other side becomes `?`).
    pub fn scaled_expr(&self, d: &DepMap, e: &Expr) -> Option<Dep> {
        let or = |a: [bool; 3], b: [bool; 3]| {
            let mut r = a;
            for (x, y) in r.iter_mut().zip(b) {
                *x |= y;
            }
            r
        };
        let times = |x: &Dep, c: &BigInt| {
            let mut d = Dep::with_unknown(x.k.clone().map(|k| k * c), x.unknown_dims(), &x.r * c, &x.g * c);
            d.mul = x.mul.as_ref().map(|m| Mul { param: m.param.clone(), a: &m.a * c, b: &m.b * c });
            d
        };
        // x·y with y exact, or y one value in the warp (c₂ ≡ r₂ mod g₂): c₁·c₂ as for uniforms.
        let prod = |x: &Dep, y: &Dep| match y.as_exact() {
            Some(c) if c.is_zero() => Some(Dep::exact(BigInt::zero())),
            Some(c) => Some(times(x, c)),
            None if y.linear() && self.collapse(y).uniform() => {
                let c = Dep::norm(Default::default(), x.r.clone(), x.g.clone()).mul_uniform(&self.collapse(y));
                let u = or(x.unknown_dims(), x.k.each_ref().map(|k| !k.is_zero()));
                Some(Dep::with_unknown(Default::default(), u, c.r, c.g))
            }
            None => None,
        };
        match e {
            Expr::Opd(o) => Self::scaled_opd(d, o),
            Expr::Un(op, o) if op == "neg" => Some(times(&Self::scaled_opd(d, o)?, &-BigInt::one())),
            Expr::Bin(op, a, b) => {
                let (x, y) = (Self::scaled_opd(d, a)?, Self::scaled_opd(d, b)?);
                let s = match op.as_str() {
                    "+" => BigInt::one(),
                    "-" => -BigInt::one(),
                    "*" => {
                        let mut r = prod(&x, &y).or_else(|| prod(&y, &x))?;
                        r.mul = row_mul(&r, (a, &x), (b, &y)).or_else(|| row_mul(&r, (b, &y), (a, &x)));
                        return Some(r);
                    }
                    _ => return None,
                };
                let mut k = x.k.clone();
                for (kd, yd) in k.iter_mut().zip(&y.k) {
                    *kd += &s * yd;
                }
                let u = or(x.unknown_dims(), y.unknown_dims());
                let mut r = Dep::with_unknown(k, u, &x.r + &s * &y.r, x.g.gcd(&y.g));
                r.mul = sum_mul(&r, &x, &y, &s);
                Some(r)
            }
            _ => None,
        }
    }

    /// `width_D(o)` (spec/logic.md §2 "Widths"): 0 for a uniform value, `w` for a local with
    /// a range entry.
    pub fn width_opd(d: &DepMap, o: &Opd) -> Option<BigInt> {
        match (Self::dep_opd(d, o), o) {
            (Some(x), _) if x.uniform() => Some(BigInt::zero()),
            (_, Opd::Var(x)) => d.get(x).filter(|e| e.kind != EntryKind::Rem).and_then(Dep::window),
            _ => None,
        }
    }

    /// `width_D(e)`: a range local; `a & n` for an exact `n ≥ 0` (`0 ≤ v & n ≤ n`); `a % m` for
    /// an exact `m ≥ 1` (`2m − 2`: `−m < a % m < m`); sums and differences of operands with
    /// widths; `neg`.
    pub fn width_expr(d: &DepMap, e: &Expr) -> Option<BigInt> {
        let exact_nonneg =
            |o: &Opd| Self::dep_opd(d, o).and_then(|x| x.as_exact().cloned()).filter(|n| !n.is_negative());
        match e {
            Expr::Opd(o @ Opd::Var(_)) => Self::width_opd(d, o).filter(|_| Self::dep_opd(d, o).is_none()),
            Expr::Bin(op, a, b) if op == "&" => exact_nonneg(b).or_else(|| exact_nonneg(a)),
            // C's truncating `a % m`, `m ≥ 1`: `−m < a % m < m`
            Expr::Bin(op, _, b) if op == "%" => exact_nonneg(b).filter(|m| !m.is_zero()).map(|m| 2 * m - 2),
            Expr::Bin(op, a, b) if op == "+" || op == "-" => Some(Self::width_opd(d, a)? + Self::width_opd(d, b)?),
            Expr::Un(op, a) if op == "neg" => Self::width_opd(d, a),
            _ => None,
        }
    }
}

/// The one `?` dimension of a scaled entry, `None` for any other entry.
fn one_unknown(r: &Dep) -> Option<usize> {
    let u = r.unknown_dims();
    (u.iter().filter(|b| **b).count() == 1).then(|| u.iter().position(|b| *b)).flatten()
}

/// The row multiplier of the scaled product `r = a·b` (spec/logic.md §1 "Row multipliers"):
/// `a` the parameter `P`, `b` linear (no `?`) with `k_d ≠ 0` on the one `?` dimension `d` of
/// `r` only: `(k_d·tid_d + c)·P = (k_d·P)·tid_d + c·P`, so `u_d = k_d·P + 0`.
fn row_mul(r: &Dep, (a, _): (&Opd, &Dep), (_, y): (&Opd, &Dep)) -> Option<Mul> {
    let d = one_unknown(r)?;
    let Opd::Param(p) = a else { return None };
    let only_d = y.k.iter().enumerate().all(|(i, k)| (i == d) != k.is_zero());
    (y.linear() && only_d).then(|| Mul {
        param: p.clone(),
        a: y.k.get(d).cloned().unwrap_or_default(),
        b: BigInt::zero(),
    })
}

/// The row multiplier of the scaled sum `r = x + s·y` (spec/logic.md §1 "Row multipliers"):
/// on the one `?` dimension `d` of `r`, each side contributes its multiplier when `?` there
/// (required), else its coefficient `k_d`; two multipliers must name the same parameter.
fn sum_mul(r: &Dep, x: &Dep, y: &Dep, s: &BigInt) -> Option<Mul> {
    let d = one_unknown(r)?;
    let part = |e: &Dep| -> Option<(Option<String>, BigInt, BigInt)> {
        if e.unknown_dims().get(d).copied().unwrap_or(false) {
            let m = e.mul.as_ref()?;
            Some((Some(m.param.clone()), m.a.clone(), m.b.clone()))
        } else {
            Some((None, BigInt::zero(), e.k.get(d).cloned().unwrap_or_default()))
        }
    };
    let ((px, ax, bx), (py, ay, by)) = (part(x)?, part(y)?);
    let param = match (px, py) {
        (Some(p), Some(q)) if p == q => p,
        (Some(p), None) | (None, Some(p)) => p,
        _ => return None,
    };
    Some(Mul { param, a: ax + s * ay, b: bx + s * by })
}

/// `a op b` on 64-bit integers exactly as the lock-step semantics computes it
/// (spec/semantics.md, `EC:OP`): `/` and `%` truncate, `>>` is arithmetic, `<<` must not
/// lose bits. `None` for comparisons and logical operators, a value outside `i64`, division
/// by zero or a shift amount outside `0..64` (the semantics errs there).
pub fn eval_int(op: &str, a: &BigInt, b: &BigInt) -> Option<BigInt> {
    let (x, y) = (a.to_i64()?, b.to_i64()?);
    let v = match op {
        "+" => x.checked_add(y)?,
        "-" => x.checked_sub(y)?,
        "*" => x.checked_mul(y)?,
        "/" => x.checked_div(y)?,
        "%" => x.checked_rem(y)?,
        "<<" if (0..64).contains(&y) => i64::try_from(i128::from(x) << y).ok()?,
        ">>" if (0..64).contains(&y) => x >> y,
        "&" => x & y,
        "|" => x | y,
        "^" => x ^ y,
        "min" => x.min(y),
        "max" => x.max(y),
        _ => return None,
    };
    Some(BigInt::from(v))
}

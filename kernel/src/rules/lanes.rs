//! Linear forms and conditions of spec/logic.md §2: `lin`, `cond`, `lane_D`, uniformity of a
//! condition.

use super::*;

impl Ctx<'_> {
    /// `lin(o)` (spec/logic.md §2).
    pub fn lin_opd(&self, o: &Opd) -> Option<Lin> {
        match o {
            Opd::Var(x) if self.prog.local(x) == Some(Ty::Int) => Some(Lin::var(x)),
            Opd::Param(x) if self.prog.param(x) == Some(Ty::Int) => Some(Lin::var(x)),
            Opd::Int(n) => Some(Lin::constant(Rat::from_integer(n.clone()))),
            Opd::Tid(d) => TIDS.get(*d).map(|t| Lin::var(t)),
            _ => None,
        }
    }

    /// `lin(e)` (spec/logic.md §2).
    pub fn lin_expr(&self, e: &Expr) -> Option<Lin> {
        let int = |o: &Opd| match o {
            Opd::Int(n) => Some(Rat::from_integer(n.clone())),
            _ => None,
        };
        match e {
            Expr::Opd(o) => self.lin_opd(o),
            Expr::Bin(op, a, b) => {
                let (la, lb) = (self.lin_opd(a)?, self.lin_opd(b)?);
                match op.as_str() {
                    "+" => Some(la.add_scaled(&lb, &Rat::one())),
                    "-" => Some(la.add_scaled(&lb, &-Rat::one())),
                    "*" => match (int(a), int(b)) {
                        (Some(c), _) => Some(lb.scale(&c)),
                        (_, Some(c)) => Some(la.scale(&c)),
                        _ => None,
                    },
                    // `a << c` = `2^c·a` for `0 ≤ c < 64` (EC:OP: exact, an overflow errs)
                    "<<" => match b {
                        Opd::Int(c) => {
                            let c = c.to_u32().filter(|c| *c < 64)?;
                            Some(la.scale(&Rat::from_integer(BigInt::from(2).pow(c))))
                        }
                        _ => None,
                    },
                    _ => None,
                }
            }
            Expr::Un(op, a) if op == "neg" => Some(self.lin_opd(a)?.scale(&-Rat::one())),
            _ => None,
        }
    }

    /// `(op, a − b)` when `e` is a comparison of linear operands.
    fn comparison(&self, e: &Expr) -> Option<(String, Lin)> {
        match e {
            Expr::Bin(op, a, b) if ["<", "<=", ">", ">=", "==", "!="].contains(&op.as_str()) => {
                let d = self.lin_opd(a)?.add_scaled(&self.lin_opd(b)?, &-Rat::one());
                Some((op.clone(), d))
            }
            _ => None,
        }
    }

    /// `cond(e)` (`neg = false`) or `cond(¬e)` (`neg = true`), spec/logic.md §2's table.
    pub fn cond(&self, e: &Expr, neg: bool) -> Vec<Cstr> {
        let Some((op, d)) = self.comparison(e) else {
            return Vec::new();
        };
        let one = Rat::one();
        let le = |l: Lin| vec![Cstr::le(l)];
        let ab1 = d.add_scaled(&Lin::constant(one.clone()), &one); // a − b + 1
        let ba = d.scale(&-one.clone()); // b − a
        let ba1 = ba.add_scaled(&Lin::constant(one.clone()), &one); // b − a + 1
        match (op.as_str(), neg) {
            ("<", false) | (">=", true) => le(ab1),
            ("<", true) | (">=", false) => le(ba),
            ("<=", false) | (">", true) => le(d),
            ("<=", true) | (">", false) => le(ba1),
            ("==", false) | ("!=", true) => vec![Cstr::equal(d)],
            _ => Vec::new(),
        }
    }

    /// `lane_D(e)` (`neg = false`) or `lane_D(¬e)` (`neg = true`), spec/logic.md §2 "Lane
    /// facts": for `x == c` / `x != c` with `D(x) = (rem x k r m)` and `dep_D(c)` an exact
    /// integer, the lane constraint `(k·tid + r) mod m ∈ {c mod m}` for an equality, and
    /// `∈ {1 … m−1}` for a disequality with `c = 0` and `m ≤` [`LANE_MODULUS_LIMIT`].
    pub fn lane(&self, d: &DepMap, e: &Expr, neg: bool) -> Vec<Cstr> {
        let Expr::Bin(op, a, b) = e else { return Vec::new() };
        let equal = match (op.as_str(), neg) {
            ("==", false) | ("!=", true) => true,
            ("!=", false) | ("==", true) => false,
            _ => return Vec::new(),
        };
        let rem_of = |o: &Opd| match o {
            Opd::Var(x) => d.get(x).filter(|e| e.kind == EntryKind::Rem),
            _ => None,
        };
        let exact = |o: &Opd| Self::dep_opd(d, o).and_then(|e| e.as_exact().cloned());
        let (ent, c) = match (rem_of(a), rem_of(b)) {
            (Some(ent), _) if exact(b).is_some() => (ent, exact(b)),
            (_, Some(ent)) => (ent, exact(a)),
            _ => return Vec::new(),
        };
        let Some(c) = c else { return Vec::new() };
        let m = ent.g.clone();
        let rs: Vec<BigInt> = if equal {
            vec![c.mod_floor(&m)]
        } else if c.is_zero() && m <= BigInt::from(LANE_MODULUS_LIMIT) {
            num_iter_range(&m)
        } else {
            return Vec::new();
        };
        let mut lin = Lin::constant(Rat::from_integer(ent.r.clone()));
        for (t, k) in TIDS.iter().zip(&ent.k) {
            lin.add_term(t, &Rat::from_integer(k.clone()));
        }
        vec![Cstr { eq: false, lin, lane: Some(Box::new(crate::arith::Lane { m, rs })) }]
    }

    /// `P ∧ e` (`neg = false`) or `P ∧ ¬e` (`neg = true`) in the context of the pre's map
    /// `d`: `P`, then `cond`, then `lane_D` (spec/logic.md §2).
    pub fn and_cond(&self, p: &[Cstr], d: &DepMap, e: &Expr, neg: bool) -> Vec<Cstr> {
        p.iter().cloned().chain(self.cond(e, neg)).chain(self.lane(d, e, neg)).collect()
    }

    /// `P ⇒ e` / `P ⇒ ¬e` targets for Q:IF2 / Q:IF3: `cond` of a linear comparison whose
    /// operator is allowed (`<,<=,>,>=,==` for `e`; `<,<=,>,>=,!=` for `¬e`).
    pub fn decided_cond(&self, e: &Expr, neg: bool) -> Result<Vec<Cstr>, Rejection> {
        let excluded = if neg { "==" } else { "!=" };
        match (self.comparison(e), e) {
            (Some((op, _)), _) if op != excluded => Ok(self.cond(e, neg)),
            (_, Expr::Bin(op, ..)) => Err(self.rej(Reason::NoCondition(op.clone()))),
            _ => Err(self.rej(Reason::NoCondition(e.to_string()))),
        }
    }

    /// `P ⇒ e unif` (spec/logic.md §2): every operand constant, parameter or in `X(D)`.
    pub fn uniform(&self, d: &DepMap, e: &Expr) -> Result<(), Rejection> {
        let opds: Vec<&Opd> = match e {
            Expr::Opd(o) | Expr::Un(_, o) | Expr::Read(_, o) => vec![o],
            Expr::Bin(_, a, b) => vec![a, b],
        };
        for o in opds {
            let ok = match o {
                Opd::Var(x) => d.get(x).is_some_and(Dep::uniform),
                Opd::Tid(_) => false,
                _ => true,
            };
            if !ok {
                return Err(self.rej(Reason::NotUniform(o.to_string())));
            }
        }
        Ok(())
    }
}

/// Largest modulus for which `lane_D(x != 0)` lists the residues `1 … m−1`
/// (spec/logic.md §2; a larger one gives no lane fact).
pub const LANE_MODULUS_LIMIT: u32 = 4096;

/// The residues `1 … m−1`.
fn num_iter_range(m: &BigInt) -> Vec<BigInt> {
    let mut out = Vec::new();
    let mut r = BigInt::one();
    while r < *m {
        out.push(r.clone());
        r += 1;
    }
    out
}

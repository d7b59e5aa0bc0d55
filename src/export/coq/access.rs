//! Access-count claims of array nodes: the `tab` entries (`Check.ntab`) and the index
//! dependences they are keyed by.

use super::*;

impl Exporter<'_> {
    /// The access claim of an expression node under `pre` (`Check.accw`): the claimed
    /// `n` of a read (recorded in the `N*` table), else 0.
    pub(super) fn expr_acc(&mut self, e: &Node, ex: &Expr, pre: &Assn) -> String {
        let n = e.n.clone().unwrap_or_default();
        match ex {
            Expr::Read(a, _) if self.is_local(a) => z(&n),
            Expr::Read(a, o) => self.acc(&n, a, o, pre),
            _ => z(&n),
        }
    }

    /// Whether `a` is a thread-local array (EQ:LARRAY, Q:LWRITE: no access claim).
    pub(super) fn is_local(&self, a: &str) -> bool {
        self.cert.program.array(a).map(|x| x.space) == Some(Space::Local)
    }

    /// `Logic.idep_opd`: the dependence `(k, r, g)` of an integer operand under `d`.
    pub(super) fn idep_opd(&self, d: &DepMap, o: &Opd) -> Option<([BigInt; 3], BigInt, BigInt)> {
        let p = &self.cert.program;
        match o {
            Opd::Int(n) => Some((Default::default(), n.clone(), BigInt::zero())),
            Opd::Param(x) if p.param(x) == Some(Ty::Int) => {
                Some((Default::default(), BigInt::zero(), BigInt::one()))
            }
            Opd::Tid(i) => {
                let mut k: [BigInt; 3] = Default::default();
                k[(*i).min(2)] = BigInt::one();
                Some((k, BigInt::zero(), BigInt::zero()))
            }
            Opd::Var(x) if p.local(x) == Some(Ty::Int) => d
                .get(x)
                .filter(|e| e.linear())
                .map(|e| (e.k.clone(), e.r.clone(), e.g.clone())),
            _ => None,
        }
    }

    /// The claim `n` of an access to `arr` at index `o`; records it in the `N*` table under
    /// its key `(shared?, tc, dep, range, es, scaled)` (`Logic.akey`).
    pub(super) fn acc(&mut self, n: &BigInt, arr: &str, o: &Opd, pre: &Assn) -> String {
        if self.lower.is_some() {
            // a lower claim `N ≤ N_W` is checked per access by LowerCheck.nw_ok, no table
            return z(n);
        }
        if let Some(a) = self.cert.program.arrays.iter().find(|a| a.name == arr) {
            let tc: Vec<String> = pre
                .p
                .iter()
                .filter(|c| c.lin.terms.keys().all(|v| v.starts_with("threadIdx.")))
                .filter_map(|c| self.cstr(c).ok())
                .collect();
            // `Logic.wrap_dep`: a wrapped entry counted as its linear entry (Conflicts)
            let wrap = |x: &String| {
                let kind = if a.space == Space::Shared {
                    Kind::Conflicts
                } else {
                    Kind::MemReads
                };
                let w = pre
                    .d
                    .get(x)
                    .and_then(|e| wrap_conflicts(e, a.bytes, kind, self.cert.hardware))?;
                Some((w.k, w.r, w.g))
            };
            let dep = self.idep_opd(&pre.d, o).or_else(|| match o {
                Opd::Var(x) => wrap(x),
                _ => None,
            });
            // `Logic.scl_of`: the scaled entry `(u, k)` of a local without a linear entry.
            let scl = match (o, &dep) {
                (Opd::Var(x), None) => pre.d.get(x).and_then(|e| match e.kind {
                    EntryKind::Scaled(u) => Some(format!(
                        "Some ({}, ({}, {}, {}))",
                        ubits(u),
                        z(&e.k[0]),
                        z(&e.k[1]),
                        z(&e.k[2])
                    )),
                    _ => None,
                }),
                _ => None,
            };
            let rng = match (o, &dep, &scl) {
                (Opd::Var(x), None, None) => pre.d.get(x).and_then(Dep::window),
                _ => None,
            };
            let dep = match dep {
                Some((k, r, g)) => format!(
                    "Some (({}, {}, {}), {}, {})",
                    z(&k[0]),
                    z(&k[1]),
                    z(&k[2]),
                    z(&r),
                    z(&g)
                ),
                None => "None".to_string(),
            };
            let rng = rng.map_or_else(|| "None".to_string(), |w| format!("Some {}", z(&w)));
            let scl = scl.unwrap_or_else(|| "None".to_string());
            let key = format!(
                "({}, [{}], {dep}, {rng}, {}%Z, {scl})",
                a.space == Space::Shared,
                tc.join("; "),
                a.bytes
            );
            let e = self.tab.entry(key).or_insert_with(|| n.clone());
            if n < e {
                *e = n.clone();
            }
        }
        z(n)
    }
}

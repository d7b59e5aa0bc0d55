//! Access counts of array nodes (spec/logic.md §2 "Access bounds", §4b): the upper check
//! `N ≥ N*` (memoized) and the lower check `N ≤ N_W`.

use super::*;

impl Ctx<'_> {
    /// Checks a claimed access count `(n N)` for index `o` of array `arr` (which must be in
    /// `space`) against `N*` under the pre `(P, D)` = `env`; returns `N` as a rational.
    pub fn access(&self, n: &Node, env: &Assn, arr: &str, o: &Opd, space: Space) -> Result<Rat, Rejection> {
        let (a, claimed, kind) = self.access_site(n, arr, space)?;
        // A scaled entry is counted per group of lanes, a range (or wrapped) entry bounds
        // the access by the window's sectors / bank occupancy (spec/logic.md §2).
        let (dep, range) = self.index_entry(&env.d, o, a.bytes, kind);
        // N* reads of a linear entry's residue r only (r·es) mod gcd(g·es, M), and no r of
        // another kind (access::n_star): the key holds that class instead of r
        let class = dep.as_ref().map(|d| {
            let m = BigInt::from(if kind == Kind::MemReads {
                u64::from(self.hw[3])
            } else {
                u64::from(self.hw[1]) * u64::from(self.hw[2])
            });
            let step = (&d.g * BigInt::from(a.bytes)).gcd(&m);
            let r = if !d.linear() {
                BigInt::zero()
            } else if step.is_zero() {
                d.r.clone()
            } else {
                (&d.r * BigInt::from(a.bytes)).mod_floor(&step)
            };
            (d.k.clone(), d.kind, d.g.clone(), r)
        });
        let rest: NStarRest = (class, range.clone(), a.bytes, kind);
        // the same P (by address, held in the memo) gives the same N*
        let pk = Rc::as_ptr(&env.p) as usize;
        let by_p =
            self.nstar_by_p.borrow().get(&pk).and_then(|(_, m)| m.iter().find(|(r, _)| *r == rest).map(|(_, n)| *n));
        // N* reads only the constraints over threadIdx.* alone (access::n_star), so equal
        // (those constraints, dependence, element size, kind) give equal N*: memoized.
        let key = || -> NStarKey {
            let tid_only: Vec<Cstr> =
                env.p.iter().filter(|c| c.lin.terms.keys().all(|v| TIDS.contains(&v.as_str()))).cloned().collect();
            (tid_only, rest.0.clone(), rest.1.clone(), rest.2, rest.3)
        };
        let cached = by_p.or_else(|| self.nstar.borrow().get(&key()).copied());
        let star = match cached {
            Some(n) => n,
            None => {
                let mut n = access::n_star(self.block, self.hw, &env.p, dep.as_ref(), a.bytes, kind).map_err(|_| {
                    self.rej(Reason::ResourceLimit { what: "access enumeration work", limit: access::WORK_LIMIT })
                })?;
                if let Some(r) = range.as_ref().and_then(|w| access::range_bound(self.hw, w, a.bytes, kind)) {
                    n = n.min(r);
                }
                self.nstar.borrow_mut().insert(key(), n);
                n
            }
        };
        if by_p.is_none() {
            let mut memo = self.nstar_by_p.borrow_mut();
            memo.entry(pk).or_insert_with(|| (Rc::clone(&env.p), Vec::with_capacity(1))).1.push((rest, star));
        }
        let required = star.max(1);
        if claimed < BigInt::from(required) {
            return Err(self.rej(Reason::AccessBound { claimed: claimed.to_string(), required }));
        }
        Ok(Rat::from_integer(claimed))
    }
}

impl Ctx<'_> {
    /// The array `arr` (which must be in `space`), the node's claimed `(n N)` and the
    /// hardware function of the access ([`Ctx::access`], [`Ctx::access_lower`]).
    pub(super) fn access_site(
        &self,
        n: &Node,
        arr: &str,
        space: Space,
    ) -> Result<(&syntax::Array, BigInt, Kind), Rejection> {
        let a = self
            .prog
            .array(arr)
            .ok_or_else(|| self.rej(Reason::Undeclared { kind: "array", name: arr.to_string() }))?;
        if a.space != space {
            return Err(self.rej(Reason::WrongSubject {
                expected: match space {
                    Space::Global => "a global array",
                    Space::Shared => "a shared array",
                    Space::Local => "a thread-local array",
                },
                found: format!("array `{arr}`"),
            }));
        }
        let claimed = n.n.clone().ok_or_else(|| self.rej(Reason::MissingField("n")))?;
        Ok((a, claimed, if space == Space::Global { Kind::MemReads } else { Kind::Conflicts }))
    }

    /// The claimed access count of an array node, checked for the certificate's role:
    /// [`Ctx::access`] (`N ≥ N*`, upper) or [`Ctx::access_lower`] (`N ≤ N_W`, lower; the
    /// registry admits EQ:GARRAY/EQ:SARRAY/Q:GWRITE/Q:SWRITE only in upper certificates and
    /// their L: counterparts only in lower ones).
    pub fn count(&self, n: &Node, env: &Assn, arr: &str, o: &Opd, space: Space) -> Result<Rat, Rejection> {
        if self.lower.is_some() {
            self.access_lower(n, env, arr, o, space)
        } else {
            self.access(n, env, arr, o, space)
        }
    }

    /// Checks a lower rule's claimed access count `(n N)` for index `o` of array `arr` (in
    /// `space`): `0 ≤ N ≤ N_W(o)`, the named warp's count under the pre `env`
    /// (spec/logic.md §4b, [`access::n_warp`]); returns `N`.
    pub fn access_lower(&self, n: &Node, env: &Assn, arr: &str, o: &Opd, space: Space) -> Result<Rat, Rejection> {
        let (a, claimed, kind) = self.access_site(n, arr, space)?;
        // the lanes of the judgment's set T (all of warp W, or a branch's subset: L:IFSPLIT)
        let dep = Self::dep_opd(&env.d, o);
        let allowed =
            access::n_lanes(self.block, self.hw, &self.threads(), dep.as_ref(), a.bytes, kind).map_err(|_| {
                self.rej(Reason::ResourceLimit { what: "access enumeration work", limit: access::WORK_LIMIT })
            })?;
        if claimed.is_negative() || claimed > BigInt::from(allowed) {
            return Err(self.rej(Reason::AccessAbove { claimed: claimed.to_string(), allowed }));
        }
        Ok(Rat::from_integer(claimed))
    }
}

//! The root of a check (spec/logic.md §5): launch facts, warp-uniform dimensions, and the
//! whole-certificate check.

use super::*;

/// The warp-uniform thread dimensions of a launch: `d` is warp-uniform when, in every warp
/// of the block (linear thread ids `W·w … W·w+W−1` below the block size, x fastest),
/// all lanes have the same `threadIdx.d` (spec/logic.md §2).
pub fn warp_uniform_dims(block: [u32; 3], warp: u32) -> [bool; 3] {
    let Some(total) = access::block_threads(block).filter(|&t| t <= access::WORK_LIMIT) else {
        return [false; 3];
    };
    let warp = u64::from(warp.max(1));
    let mut out = [true; 3];
    let mut start = 0;
    while start < total {
        let end = (start + warp).min(total);
        let first = access::thread_index(block, start);
        for t in start..end {
            let ti = access::thread_index(block, t);
            for ((o, a), b) in out.iter_mut().zip(ti).zip(first) {
                *o &= a == b;
            }
        }
        start = end;
    }
    out
}

/// The launch facts of spec/logic.md §5, in order: thread-index bounds, `blockIdx.d ≥ 0`,
/// `gridDim.d ≥ 1`, `blockIdx.d ≤ gridDim.d − 1`.
pub fn launch_facts(p: &Program, block: [u32; 3]) -> Vec<Cstr> {
    let mut v = Vec::new();
    for (d, b) in ["x", "y", "z"].iter().zip(block) {
        let t = Lin::var(&format!("threadIdx.{d}"));
        v.push(Cstr::le(t.scale(&-Rat::one())));
        v.push(Cstr::le(t.add_scaled(&Lin::constant(rat(i64::from(b) - 1)), &-Rat::one())));
    }
    let has = |n: &str| p.params.iter().any(|x| x.1 == n);
    for (_, name) in &p.params {
        if ["blockIdx.x", "blockIdx.y", "blockIdx.z"].contains(&name.as_str()) {
            v.push(Cstr::le(Lin::var(name).scale(&-Rat::one())));
        }
    }
    for (_, name) in &p.params {
        if ["gridDim.x", "gridDim.y", "gridDim.z"].contains(&name.as_str()) {
            v.push(Cstr::le(Lin::var(name).scale(&-Rat::one()).add_scaled(&Lin::constant(Rat::one()), &Rat::one())));
        }
    }
    for d in ["x", "y", "z"] {
        let (b, g) = (format!("blockIdx.{d}"), format!("gridDim.{d}"));
        if has(&b) && has(&g) {
            let l = Lin::var(&b)
                .add_scaled(&Lin::var(&g), &-Rat::one())
                .add_scaled(&Lin::constant(Rat::one()), &Rat::one());
            v.push(Cstr::le(l));
        }
    }
    v
}

/// Parses and checks a whole certificate (the body of [`crate::check`]).
pub fn check_certificate(text: &str) -> Result<Verdict, Rejection> {
    let top = sexp::parse_top(text, &syntax::DEFERRED_SECTIONS)?;
    let cert = syntax::certificate(&top)?;
    // the parsed certificate owns its data: the s-expression tree is not needed any more
    drop(top);
    let m =
        metric::standard(&cert.metric).ok_or_else(|| Rejection::parse(Reason::UnknownMetric(cert.metric.clone())))?;
    typing::check_program(&cert.program)?;
    let assumptions = if cert.version >= 2 {
        assume::check(&cert.program, &cert.assumptions).map_err(Rejection::parse)?;
        cert.assumptions.clone()
    } else {
        assume::implicit(&cert.program)
    };
    let cx = Ctx {
        prog: &cert.program,
        m,
        hw: cert.hardware,
        block: cert.block,
        udims: warp_uniform_dims(cert.block, cert.hardware[0]),
        stack: RefCell::new(Vec::new()),
        spare_names: RefCell::new(Vec::new()),
        filters: RefCell::new(Vec::new()),
        divergent_exit: Cell::new(false),
        capped: Cell::new(false),
        prev: RefCell::new(None),
        count: Cell::new(0),
        nstar: RefCell::new(BTreeMap::new()),
        nstar_by_p: RefCell::new(HashMap::default()),
        wf_ok: RefCell::new(HashSet::default()),
        wf_parts_ok: RefCell::new((HashMap::default(), HashMap::default())),
        implicit_nodes: RefCell::new(HashMap::default()),
        cost_optional: cert.version >= 5,
        lower: cert.lower,
        hyps: cert.hypotheses.as_ref().map(|h| h.facts.clone()).unwrap_or_default(),
        lane_set: RefCell::new(None),
    };
    if let Some(w) = cert.lower {
        let threads = access::block_threads(cert.block).unwrap_or(u64::MAX);
        if u64::from(w).saturating_mul(u64::from(cert.hardware[0])) >= threads {
            return Err(Rejection {
                rule: "root".to_string(),
                node_path: String::new(),
                reason: Reason::NoSuchWarp { warp: w, threads },
            });
        }
    }
    let root = &cert.root;
    let dummy = Assn { p: Default::default(), d: Default::default(), q: Poly::zero() };
    cx.check_node(root, Subject::Stmt(&cert.program.body), &dummy, 0)?;
    // Root conditions (spec/logic.md §5), reported at node 0.
    cx.stack.borrow_mut().push((root.rule.to_string(), 0));
    let pre = root.pre.as_deref().ok_or_else(|| cx.rej(Reason::MissingField("pre")))?;
    let launch = launch_facts(&cert.program, cert.block);
    match &cert.hypotheses {
        // L:HYP (§4b): a lower certificate's root may add parameter hypotheses
        Some(h) => {
            cx.same_p(&lower::l_hyp(&cx, &launch, h)?, &pre.p, "the launch facts and hypotheses", "the root pre")?
        }
        None => cx.same_p(&launch, &pre.p, "the launch facts", "the root pre")?,
    }
    // collected (sorted once), not inserted one by one: a sorted vector's insertion in the
    // middle moves its tail, quadratic in the 30 000 locals of a long program
    let init: DepMap = cert
        .program
        .locals
        .iter()
        .map(|(t, x)| (x.clone(), if *t == Ty::Int { Dep::exact(BigInt::zero()) } else { Dep::unknown_uniform() }))
        .collect();
    cx.covers(&init, &pre.d)?;
    if let Some(v) = pre.q.vars().into_iter().find(|v| cert.program.param(v) != Some(Ty::Int)) {
        return Err(cx.rej(Reason::IllFormed { which: "pre", problem: WfProblem::BadPotentialVar(v.clone()) }));
    }
    if cert.bound != pre.q {
        return Err(cx.rej(Reason::BoundMismatch { bound: cert.bound.to_string(), root: pre.q.to_string() }));
    }
    // A lower bound is `Q − Q'` at the root: its post potential must be 0 (§4b).
    let post_q = &cx.post(root)?.q;
    if cert.lower.is_some() && *post_q != Poly::zero() {
        return Err(cx.rej(Reason::LowerPostNotZero(post_q.to_string())));
    }
    Ok(Verdict {
        version: cert.version,
        kernel: cert.program.name.clone(),
        metric: cert.metric.clone(),
        hardware: cert.hardware,
        block: cert.block,
        bound: cert.bound.to_string(),
        bound_poly: cert.bound.clone(),
        assumptions,
        provenance: cert.provenance.clone(),
        nodes_checked: cx.count.get(),
        role: cert.lower.map_or(crate::Role::Upper, crate::Role::Lower),
        hypotheses: cert.hypotheses.iter().flat_map(|h| h.facts.iter().map(ToString::to_string)).collect(),
    })
}

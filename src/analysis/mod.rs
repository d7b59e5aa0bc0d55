//! Inference of certified per-warp cost bounds (RaCUDA §7; note §8): abstract
//! interpretation computing `(P, D)` at every program point, the quantitative logic of
//! `spec/logic.md` with potentials over `max0` atoms, an LP for the template coefficients
//! (`good_lp` + `microlp`), exact re-verification, and the certificate.
//!
//! Entry point: [`analyze`].

pub mod access;
pub mod compare;
pub mod derive;
pub mod entail;
pub mod form;
pub mod linear;
pub mod lower;
pub mod lp;
pub mod lp_exact;
pub mod tpoly;

use crate::certificate::Node;
use crate::core::assertion::Poly;
use crate::core::{Hardware, Launch, Loc, Metric, Program};
use std::collections::BTreeMap;
use std::fmt;

/// Stack size of the analysis thread (bytes).
pub const STACK_BYTES: usize = 512 << 20;

/// Options of the inference.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnalysisOptions {
    /// Degree of the complete potential templates (every product of at most `degree`
    /// candidate atoms of a loop). Default 2. Loop nests deeper than it get in addition their
    /// chain monomials up to their depth (`derive/nest.rs`): the degree is chosen per nest
    /// and this is no cap on it.
    pub degree: u32,
    /// Floor atoms `⌊L/c⌋⁺` for loops with a constant step `c > 1` (spec/logic.md §1,
    /// "Floor atoms"; issue 14), kept only where the bound is at least as tight as the
    /// polynomial one at every sampled point. Default `true`; `false` is the polynomial
    /// `max(0, …)` form (`--form polynomial`, RaCUDA's).
    pub floor: bool,
    /// Q:IFALIGN for divergent `if`s whose test splits a warp only off a residue class
    /// (spec/logic.md §4, issue 15; Coq: `Soundness.sound_Q_IFALIGN`): the charge
    /// `M^div·[m ∤ s − X]` instead of `M^div`, the class `(s, m)` written in the node and
    /// checked by the kernel. Default `true`; the lower-bound rule L:IFALIGN (spec/logic.md
    /// §4b) charges the same atom from below, so `exact` cells stay `exact`.
    /// The same option gates the row charges of Q:GWRITEROWS / Q:VWRITEROWS (spec/logic.md
    /// §4 "Rows": `N₀ + Σ C·[M ∤ X]` for an index with a row multiplier `X`), which also
    /// charge residue atoms. `analyze --no-align` turns both off (Q:IF4, Q:GWRITE and
    /// EQ:GARRAY everywhere).
    pub align: bool,
}

impl Default for AnalysisOptions {
    fn default() -> Self {
        AnalysisOptions {
            degree: 2,
            floor: true,
            align: true,
        }
    }
}

/// Why no bound could be derived: a source location when one is known (`Loc` of the
/// statement or loop) and a reason (non-uniform counter, unsupported update, LP infeasible ...).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnalysisError {
    /// Location of the offending statement, if known.
    pub loc: Option<Loc>,
    /// Human-readable reason.
    pub reason: String,
}

impl fmt::Display for AnalysisError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.loc {
            Some(l) => write!(f, "at {l}: {}", self.reason),
            None => f.write_str(&self.reason),
        }
    }
}

impl std::error::Error for AnalysisError {}

/// The result of a successful analysis.
#[derive(Clone, Debug)]
pub struct Analysis {
    /// The per-warp bound (a polynomial in the `int` parameters), equal to the root potential.
    pub bound: Poly,
    /// The derivation (root: the kernel body).
    pub derivation: Node,
    /// The certificate text (`spec/certificate.md`, version 1).
    pub certificate: String,
    /// How often each rule of `spec/logic.md` is used in the derivation.
    pub rules_used: BTreeMap<&'static str, usize>,
    /// A second bound B with its own derivation and certificate (Q:WHILEGUARDCAP /
    /// Q:WHILEEXITCAP, spec/logic.md §4a, issue 15): the loops left by divergent jumps
    /// capped by the warp's lane count. Present when B is below this bound at some sampled
    /// point; the answer is `min(bound, B)`, each certificate checked on its own. B's own
    /// `capped` may hold a third bound C (Q:WHILEEXITCAP2: the loop test paid per round), and
    /// so on: the answer is the minimum of the chain ([`Analysis::chain`]).
    pub capped: Option<Box<Analysis>>,
}

impl Analysis {
    /// This analysis and the further bounds of its [`Analysis::capped`] chain, in order
    /// (A, B, C): the answer is their minimum, each certificate checked on its own.
    pub fn chain(&self) -> Vec<&Analysis> {
        let mut out = vec![self];
        while let Some(c) = out.last().and_then(|a| a.capped.as_deref()) {
            out.push(c);
        }
        out
    }
}

/// The fixed inputs of the runs of one inference ([`analyze_toward`]): the program, metric,
/// hardware, launch, options and the claimed bound `target` (issue 19; `None`: the tightest
/// bound). Every run ([`run_once`]'s fallbacks and the extra runs [`capped_run`],
/// [`symdiv_run`], [`counted_run`], [`windowed_run`]) differs from the first only in the
/// variant of [`derive::Ctx`] it builds from [`Job::ctx`].
#[derive(Clone, Copy)]
struct Job<'a> {
    prog: &'a Program,
    metric: &'a Metric,
    hw: &'a Hardware,
    launch: &'a Launch,
    opts: &'a AnalysisOptions,
    target: Option<&'a Poly>,
}

/// What the bound of an extra run ([`Job::extra`]) must beat to be kept.
#[derive(Clone, Copy)]
enum Beat<'b> {
    /// Below the minimum of these bounds at some sampled point
    /// (`form::min_at_most_everywhere`): a further bound of the chain of
    /// [`Analysis::capped`] (B and C of [`capped_run`], [`symdiv_run`]); the answer is the
    /// minimum of the chain.
    Chain(&'b [&'b Poly]),
    /// At most this bound at every sampled point and below it at one
    /// (`form::at_most_everywhere` both ways): the run replaces the first
    /// ([`counted_run`], [`windowed_run`]).
    Replace(&'b Poly),
}

impl<'a> Job<'a> {
    /// A fresh context for one run of this job ([`derive::Ctx::new`]).
    fn ctx(&self) -> derive::Ctx<'a> {
        derive::Ctx::new(self.prog, self.metric, self.hw, self.launch, self.opts)
    }

    /// One run of the inference toward the target ([`derive::run_toward`]) in the context
    /// `variant` makes of a fresh one ([`Self::ctx`]).
    fn run(
        &self,
        variant: impl FnOnce(derive::Ctx<'a>) -> derive::Ctx<'a>,
    ) -> Result<(Node, Poly), AnalysisError> {
        derive::run_toward(&mut variant(self.ctx()), self.target)
    }

    /// An extra run ([`Self::run`] in the context `variant` makes): its derivation and bound
    /// when the bound beats `beat`; `None` when it does not, or when the run fails.
    fn extra(
        &self,
        variant: impl FnOnce(derive::Ctx<'a>) -> derive::Ctx<'a>,
        beat: Beat<'_>,
    ) -> Option<(Node, Poly)> {
        let (derivation, bound) = self.run(variant).ok()?;
        let kept = match beat {
            Beat::Chain(before) => !form::min_at_most_everywhere(before, &bound),
            Beat::Replace(first) => {
                form::at_most_everywhere(&bound, first) && !form::at_most_everywhere(first, &bound)
            }
        };
        kept.then_some((derivation, bound))
    }

    /// The [`Analysis`] of a derivation of this job and its bound: the certificate
    /// (`spec/certificate.md`) and the rule counts; no further bound (`capped: None`).
    fn analysis(&self, (derivation, bound): (Node, Poly)) -> Box<Analysis> {
        let certificate =
            crate::certificate::write(self.prog, self.metric, self.hw, self.launch, &derivation);
        let mut rules_used = BTreeMap::new();
        derivation.count_rules(&mut rules_used);
        Box::new(Analysis {
            bound,
            derivation,
            certificate,
            rules_used,
            capped: None,
        })
    }

    /// An extra bound for the chain of `head` ([`Analysis::chain`]; the answer is its
    /// minimum): the run of [`Self::extra`] in the context `variant` makes, appended to the
    /// end of the chain when it is below the minimum of the chain's bounds at some sampled
    /// point ([`Beat::Chain`]) and `keep` accepts its analysis; the chain unchanged
    /// otherwise, or when the run fails.
    fn chain_run(
        &self,
        head: &mut Analysis,
        variant: impl FnOnce(derive::Ctx<'a>) -> derive::Ctx<'a>,
        keep: impl FnOnce(&Analysis) -> bool,
    ) {
        let before: Vec<&Poly> = head.chain().into_iter().map(|a| &a.bound).collect();
        let Some(found) = self.extra(variant, Beat::Chain(&before)) else {
            return;
        };
        let found = self.analysis(found);
        if keep(&found) {
            append_to_chain(head, found);
        }
    }
}

/// The capped bounds of [`Analysis::capped`] appended to the chain of `head` (the first
/// run's analysis, alone so far): B, a run of [`derive::Ctx::capped`], and C, a run of
/// [`derive::Ctx::capped_per_round`] (Q:WHILEEXITCAP2), when the metric charges `M^div` and
/// the derivation has a loop left by divergent jumps (Q:WHILEGUARD, Q:WHILEGUARD0,
/// Q:WHILEEXIT2); each kept when it is below the minimum of the bounds before it at some
/// sampled point ([`Job::chain_run`]), C after B (or alone). Nothing otherwise, or when the
/// capped runs fail (a body whose other nodes may split, spec/logic.md §4a).
fn capped_run(job: Job<'_>, head: &mut Analysis) {
    use num_traits::Zero;
    let divergent = ["Q:WHILEGUARD", "Q:WHILEGUARD0", "Q:WHILEEXIT2"];
    if job.metric.div.is_zero() || !divergent.iter().any(|r| head.rules_used.contains_key(r)) {
        return;
    }
    job.chain_run(head, derive::Ctx::capped, |_| true);
    // C only where a loop is Q:WHILEEXITCAP2 (else it is B again)
    job.chain_run(head, derive::Ctx::capped_per_round, |c| {
        c.rules_used.contains_key("Q:WHILEEXITCAP2")
    });
}

/// The run with symbolic floor atoms (spec/logic.md §1 "Symbolic divisors", issue 14;
/// [`derive::Ctx::symbolic_divisors`]): a grid-stride loop `pos += 192·gridDim.x` ranked by
/// `⌊(R − s + δ)/δ⌋⁺` with the step `δ` itself as the divisor, exact at every grid where the
/// first run's `⌊R/s⌋⁺` is exact at `gridDim = 1` only; without guarded charges (their
/// atoms divide by constants). Appended to the end of the chain of `head` (the answer is
/// the minimum of the chain) when it is below the minimum of the bounds before it at some
/// sampled point ([`Job::chain_run`]); the chain unchanged otherwise.
fn symdiv_run(job: Job<'_>, head: &mut Analysis) {
    if !job.opts.floor {
        return;
    }
    // without guarded charges: their atoms `⌊(−L_u − t_j)/S⌋⁺` (Q:GWRITEGUARD) divide by the
    // step's lower bound `S`, exact at `gridDim = 1` only, where the first bound is already
    // exact; the flat per-round charge divided by the step is the tighter one at larger grids
    job.chain_run(head, |c| c.symbolic_divisors().without_guards(), |_| true);
}

/// `s` after the last bound of the chain starting at `head` ([`Analysis::chain`]).
fn append_to_chain(head: &mut Analysis, s: Box<Analysis>) {
    match head.capped.as_mut() {
        Some(next) => append_to_chain(next, s),
        None => head.capped = Some(s),
    }
}

/// One run of the inference ([`derive::run_toward`]); a triangular nest once more with the
/// shift of its outer ranking atom deferred to the inner loop's entry (derive/nest.rs), then
/// with its triangular loops of constant trip count unrolled (derive/nest.rs; only when one
/// may be), then with its over-shifted ranking atoms (derive/nest.rs), which are looser where
/// the ordinary ones work, and if that fails once more with its relaxed inner ranking atoms
/// (derive/nest.rs);
/// a failed run that proposed guarded charges (Q:GWRITEGUARD, Q:VWRITEGUARD) once more
/// without them; a failed run with Q:IFALIGN once more with Q:IF4 everywhere (a residue atom
/// charged inside a loop is no candidate of the loop's invariant template, so its LP can be
/// infeasible where the constant `M^div` is not). Also returns what the first attempt's
/// loops met ([`Met`]).
fn run_once(job: Job<'_>) -> (Result<(Node, Poly), AnalysisError>, Met) {
    let mut ctx = job.ctx();
    let r = derive::run_toward(&mut ctx, job.target);
    let mut met = Met {
        floors: ctx.has_floors(),
        symbolic_steps: ctx.has_symbolic_steps(),
    };
    let r = match r {
        Err(e) if ctx.has_triangular() => job
            .run(derive::Ctx::deferred)
            .or_else(|_| {
                if !ctx.has_constant_triangular() {
                    return Err(());
                }
                let mut unrolled = job.ctx().unrolling();
                let r = derive::run_toward(&mut unrolled, job.target);
                match r {
                    Ok(v) if unrolled.unrolled_triangular() => Ok(v),
                    _ => Err(()),
                }
            })
            .or_else(|_| job.run(derive::Ctx::overshifted))
            .or_else(|_| job.run(derive::Ctx::relaxed).map_err(|_| e)),
        r => r,
    };
    // a guarded charge the loops' templates cannot pay (derive/guarded.rs): once more without
    // guarded charges, before giving up residue atoms too
    let r = match r {
        Err(e) if ctx.used_guards() => job.run(derive::Ctx::without_guards).map_err(|_| e),
        r => r,
    };
    let r = match r {
        Err(e) if job.opts.align => {
            let plain = AnalysisOptions {
                align: false,
                ..job.opts.clone()
            };
            let (r, plain_met) = run_once(Job {
                opts: &plain,
                ..job
            });
            met.symbolic_steps |= plain_met.symbolic_steps;
            r.map_err(|_| e)
        }
        r => r,
    };
    let r = r.map(|found| windowed_run(job, &ctx, found));
    let r = r.map(|found| counted_run(job, &ctx, found));
    (r, met)
}

/// What the loops of a [`run_once`] met, read from its first context: the triggers of the
/// runs after it in [`analyze_toward`].
#[derive(Clone, Copy)]
struct Met {
    /// Some loop had candidate floor atoms (`derive::Ctx::has_floors`): the polynomial form
    /// is run too.
    floors: bool,
    /// Some loop's symbolic step is a launch form (`derive::Ctx::has_symbolic_steps`; also
    /// in the run without Q:IFALIGN): the trigger of [`symdiv_run`].
    symbolic_steps: bool,
}

/// A run with the innermost loops of launch-constant trip count unrolled (Q:UNROLL;
/// `derive::Ctx::unrolling_counted`), tried when some global access is charged per sector
/// (`M^gread` or `M^gwrite` with `μ > 0`) and the first run met such a loop: each copy
/// knows its counter, so an access indexed by `counter·W + …` may be aligned in some
/// copies (matrixMulBad: `B[b + wB·k + tx]` is 4 sectors for `k ≡ 0 (mod 8)`, 5 for the
/// other `k`, 508 sectors a tile where every round charged 5 gives 512). Kept only when its
/// bound is at most `first`'s at every sampled point and below it at one
/// ([`Beat::Replace`]); otherwise, or when the run fails, `first`.
fn counted_run(job: Job<'_>, first_ctx: &derive::Ctx<'_>, first: (Node, Poly)) -> (Node, Poly) {
    use num_traits::Zero;
    let unsectored = job.metric.gread.mul.is_zero() && job.metric.gwrite.mul.is_zero();
    if unsectored || !first_ctx.has_counted_loops() {
        return first;
    }
    job.extra(derive::Ctx::unrolling_counted, Beat::Replace(&first.1))
        .unwrap_or(first)
}

/// A run with the triangular loops of constant trip count unrolled and the Q:WHILELAST
/// loops charged by Q:WHILELASTWINDOW (spec/logic.md §4; `derive::Ctx::windowed`), tried
/// when the metric charges `M^div`, `first` (the run of [`run_once`]) has a
/// Q:WHILELASTALIGN node and some triangular loop's trip count may be a launch constant:
/// each unrolled copy of an inner loop then pays its split only when its own entry offset
/// can reach a split window (tests/precision/nest_entry_stride.cu). Kept only when its
/// bound is at most `first`'s at every sampled point and below it at one
/// ([`Beat::Replace`]); otherwise, or when the run fails, `first`.
fn windowed_run(job: Job<'_>, first_ctx: &derive::Ctx<'_>, first: (Node, Poly)) -> (Node, Poly) {
    use num_traits::Zero;
    if job.metric.div.is_zero() || !job.opts.align || !first_ctx.has_constant_triangular() {
        return first;
    }
    let mut rules = BTreeMap::new();
    first.0.count_rules(&mut rules);
    if !rules.contains_key("Q:WHILELASTALIGN") {
        return first;
    }
    job.extra(|c| c.unrolling().windowed(), Beat::Replace(&first.1))
        .unwrap_or(first)
}

/// What a derivation that is not an upper certificate adds to [`analyze`]'s first run: the
/// sources of lower-bound certificates' assertions (`analysis::lower`, spec/logic.md §4b).
/// The default adds nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct DerivationOptions<'a> {
    /// Parameter hypotheses (linear facts over `int` parameters) appended to the root's
    /// launch facts (L:HYP; `derive::Ctx::under`).
    pub hyps: &'a [crate::core::assertion::Cstr],
    /// Keep scaled entries with a row multiplier where they group no lanes
    /// (`derive::Ctx::with_strides`): for L:GARRAYSTRIDE / L:GWRITESTRIDE ("Strided
    /// accesses").
    pub strides: bool,
    /// Warp-exact products for the warp `.0` under the congruence hypotheses `.1` (`(p, r,
    /// m)`: `p ≡ r (mod m)`; `derive::Ctx::at_warp`, "Warp-exact products"). The root pre
    /// is unchanged; the maps hold entries only a lower derivation may claim.
    pub at_warp: Option<(u32, &'a derive::Congruences)>,
    /// Unroll the innermost loops of launch-constant trip count (Q:UNROLL,
    /// `derive::Ctx::unrolling_counted`, as [`analyze`]'s counted run): each copy knows its
    /// counter, so with [`Self::at_warp`] an access indexed by `counter·p + …` has, under
    /// `p ≡ r (mod m)`, the exact residue of that copy (matrixMulBad: `B[b + wB·k + tx]`
    /// costs 4 sectors in the copies `k ≡ 0 (mod 8)` and 5 in the others under
    /// `wB ≡ 1 (mod 8)`).
    pub counted: bool,
    /// Wrapped entries for `x ← a % m` (`derive::Ctx::with_wraps`): for L:IFWRAP. The
    /// bound is the upper derivation's where the entries change no rule's choice; callers
    /// compare it with the accepted one.
    pub wraps: bool,
}

/// The derivation of `prog` as [`analyze`]'s first run, with what `with` adds
/// ([`DerivationOptions`]): not an upper certificate, the source of a lower-bound
/// certificate's assertions (`analysis::lower`, spec/logic.md §4b). Errors as [`analyze`].
pub fn derivation(
    prog: &Program,
    metric: &Metric,
    hw: &Hardware,
    launch: &Launch,
    opts: &AnalysisOptions,
    with: &DerivationOptions<'_>,
) -> Result<Node, AnalysisError> {
    on_analysis_thread(|| {
        let mut ctx = derive::Ctx::new(prog, metric, hw, launch, opts).under(with.hyps);
        if let Some((warp, cong)) = with.at_warp {
            ctx = ctx.at_warp(warp, cong);
        }
        if with.strides {
            ctx = ctx.with_strides();
        }
        if with.wraps {
            ctx = ctx.with_wraps();
        }
        if with.counted {
            ctx = ctx.unrolling_counted();
        }
        derive::run(&mut ctx).map(|(n, _)| n)
    })
}

/// Runs `f` on a thread with a large stack ([`STACK_BYTES`]: the passes recurse along the
/// program's nesting), as the kernel does. Errors: the thread cannot start (a resource
/// failure) or panics (an internal error), or `f`'s own.
fn on_analysis_thread<T: Send>(
    f: impl FnOnce() -> Result<T, AnalysisError> + Send,
) -> Result<T, AnalysisError> {
    std::thread::scope(|sc| {
        std::thread::Builder::new()
            .name("warpcert-analysis".into())
            .stack_size(STACK_BYTES)
            .spawn_scoped(sc, f)
            .map_err(|e| AnalysisError {
                loc: None,
                reason: format!("resource failure: cannot start the analysis thread: {e}"),
            })?
            .join()
            .map_err(|_| AnalysisError {
                loc: None,
                reason: "internal error: the analysis thread failed".into(),
            })?
    })
}

/// Infers a per-warp bound on the cost of `prog` under `metric` for blocks of
/// `launch.block` threads on hardware `hw`, with a derivation and its certificate
/// (RaCUDA Theorem 1 makes the bound sound for every warp, parameter values and array
/// contents, provided the kernel terminates). Errors are values: unsupported loops, LP
/// infeasibility, or a solution that fails exact re-verification.
pub fn analyze(
    prog: &Program,
    metric: &Metric,
    hw: &Hardware,
    launch: &Launch,
    opts: &AnalysisOptions,
) -> Result<Analysis, AnalysisError> {
    analyze_toward(prog, metric, hw, launch, opts, None)
}

/// As [`analyze`]; with a `target` (a claimed bound, issue 19) the LP looks for a bound
/// below the target ([`derive::run_toward`]) instead of the tightest bound alone.
pub fn analyze_toward(
    prog: &Program,
    metric: &Metric,
    hw: &Hardware,
    launch: &Launch,
    opts: &AnalysisOptions,
    target: Option<&Poly>,
) -> Result<Analysis, AnalysisError> {
    if hw.warp_size == 0 || hw.banks == 0 || hw.bank_bytes == 0 || hw.sector_bytes == 0 {
        return Err(AnalysisError {
            loc: None,
            reason: "hardware parameters must be positive".into(),
        });
    }
    if launch.block.contains(&0) {
        return Err(AnalysisError {
            loc: None,
            reason: "block dimensions must be positive".into(),
        });
    }
    let job = Job {
        prog,
        metric,
        hw,
        launch,
        opts,
        target,
    };
    // The passes recurse along the program's nesting (sequences are right-nested), so they
    // run on a thread with a large stack, like the kernel.
    on_analysis_thread(|| {
        let (first, met) = run_once(job);
        // a loop with a constant step had floor atoms: the polynomial form too, and
        // the floor form only where it is at least as tight at every sampled point
        let (derivation, bound) = if met.floors {
            let poly_opts = AnalysisOptions {
                floor: false,
                ..opts.clone()
            };
            let poly = Job {
                opts: &poly_opts,
                ..job
            };
            match (first, run_once(poly).0) {
                (Ok((d, b)), Ok(p))
                    if form::has_floor(&b) && form::at_most_everywhere(&b, &p.1) =>
                {
                    (d, b)
                }
                (_, Ok(p)) => p,
                (r, Err(_)) => r?,
            }
        } else {
            first?
        };
        // Q:CASE on the sign of a parameter (spec/logic.md §4a; derive/case.rs)
        let found = match target {
            None => derive::split_cases(prog, metric, hw, launch, opts, derivation, bound),
            Some(_) => (derivation, bound),
        };
        let mut a = job.analysis(found);
        // without the writer's spare capacity: the text is kept while the kernel checks it
        // (issue 13)
        a.certificate.shrink_to_fit();
        capped_run(job, &mut a);
        if met.symbolic_steps {
            symdiv_run(job, &mut a);
        }
        Ok(*a)
    })
}

//! A SIMT machine with a reconvergence stack (Habermaier 2011, the branching algorithm of
//! NVIDIA GPUs) executing the miniCUDA core on one warp.
//!
//! The machine state is a stack of entries `(mask, continuation)`. The top entry runs: one
//! *machine step* executes one atomic statement (`x ← e`, `A[o] ← e`, `skip`, `sync`) or
//! one branch/loop test on the entry's active mask, by applying the lock-step rule of
//! Fig. 5 to that mask (each rule exists once, in `lockstep`). Rules (names used in traces):
//!
//! * `SIMT:EXEC` — an atomic statement on the mask.
//! * `SIMT:UNIFORM` — a branch or loop test on which all active lanes agree.
//! * `SIMT:DIVERGE` — a divergent `if`: the current entry keeps the continuation after the
//!   `if` (the reconvergence point); entries for the else part (mask `𝒯_F`) and then the then
//!   part (mask `𝒯_T`) are pushed, so `then` runs first, as in SC:IFD. Charges `M^div`.
//! * `SIMT:LOOPSPLIT` — a loop test true on some lanes: an entry with mask `𝒯_T` runs the body
//!   and the rest of the loop; the other lanes wait for it in the current entry (as in
//!   SC:WHILESOME). Charges `M^div`.
//! * `SIMT:POP` — an entry whose continuation is empty is popped (reconvergence); no cost.
//!
//! A lane that waits for others can starve: Habermaier's liveness counterexample (a spin
//! lock between lanes of one warp) does not terminate here; the step limit reports it.

use super::derivation::{render_threads, CostModel, Usage};
use super::lockstep::Warp;
use super::run::{check_hw, lanes, resolve_params, Params};
use super::store::{Inputs, Memory};
use super::value::Value;
use super::SemError;
use crate::core::{Hardware, Launch, Program, Stmt};

/// `SIMT:EXEC`
pub const SIMT_EXEC: &str = "SIMT:EXEC";
/// `SIMT:UNIFORM`
pub const SIMT_UNIFORM: &str = "SIMT:UNIFORM";
/// `SIMT:DIVERGE`
pub const SIMT_DIVERGE: &str = "SIMT:DIVERGE";
/// `SIMT:LOOPSPLIT`
pub const SIMT_LOOPSPLIT: &str = "SIMT:LOOPSPLIT";
/// `SIMT:POP`
pub const SIMT_POP: &str = "SIMT:POP";
/// The SIMT machine's rules, in the order of `spec/semantics.md`.
pub const SIMT_RULES: &[&str] = &[
    SIMT_EXEC,
    SIMT_UNIFORM,
    SIMT_DIVERGE,
    SIMT_LOOPSPLIT,
    SIMT_POP,
];

/// How a SIMT run ended.
#[derive(Clone, Debug, PartialEq)]
pub enum SimtOutcome {
    /// The stack emptied: every lane finished.
    Terminated,
    /// The step limit was reached (the warp may not terminate: e.g. a starving lane).
    StepLimit(u64),
    /// A run-time error.
    Error(SemError),
}

/// The result of running one warp on the SIMT machine.
#[derive(Clone, Debug)]
pub struct SimtRun {
    /// How it ended.
    pub outcome: SimtOutcome,
    /// Machine steps taken.
    pub steps: u64,
    /// Usage (the lock-step charges of every step; `usage.div` = divergent branches).
    pub usage: Usage,
    /// Largest stack depth reached.
    pub max_depth: usize,
    /// Final arrays.
    pub memory: Memory,
    /// Final locals: per local (program order) its value in each lane.
    pub locals: Vec<(String, Vec<Value>)>,
    /// Trace lines when requested: `step  rule  T={…}  depth=d`.
    pub trace: Vec<String>,
}

#[derive(Clone, Copy, Debug)]
enum Frame<'p> {
    Stmt(&'p Stmt),
    Loop(&'p Stmt),
}

struct Entry<'p> {
    mask: Vec<usize>,
    todo: Vec<Frame<'p>>,
}

/// Runs warp `warp` of block `block` on the SIMT machine for at most `max_steps` steps,
/// on a fresh memory built from `input`.
///
/// Errors (`Err`): launch, parameter and input errors as in [`super::run_warp`]; run-time
/// errors are reported in [`SimtOutcome::Error`].
#[allow(clippy::too_many_arguments)]
pub fn run_simt(
    prog: &Program,
    hw: &Hardware,
    launch: &Launch,
    block: [u32; 3],
    warp: u64,
    params: &Params,
    input: &Inputs,
    max_steps: u64,
    trace: bool,
) -> Result<SimtRun, SemError> {
    check_hw(hw, launch)?;
    if warp >= launch.warps_per_block(hw) {
        return Err(SemError::BadLaunch(format!("warp {warp} does not exist")));
    }
    let pv = resolve_params(prog, hw, launch, block, params)?;
    let mut mem = Memory::new(prog, input)?;
    let ls = lanes(hw, launch, warp);
    let model = CostModel::new(&[]);
    let mut w = Warp::new(prog, hw, &model, &pv, &ls, u64::MAX, false);
    let mut stack = vec![Entry {
        mask: (0..ls.len()).collect(),
        todo: vec![Frame::Stmt(&prog.body)],
    }];
    let mut steps = 0u64;
    let mut max_depth = 1;
    let mut lines = Vec::new();
    let outcome = loop {
        if stack.is_empty() {
            break SimtOutcome::Terminated;
        }
        if steps >= max_steps {
            break SimtOutcome::StepLimit(max_steps);
        }
        match step(&mut w, &mut stack, &mut mem) {
            Ok(Some((rule, mask))) => {
                steps += 1;
                max_depth = max_depth.max(stack.len());
                if trace {
                    let ids: Vec<u32> = mask.iter().map(|&l| w.lane_ids()[l]).collect();
                    lines.push(format!(
                        "{steps:>6}  {rule}  T={}  depth={}  rules={}",
                        render_threads(&ids),
                        stack.len(),
                        w.steps_used()
                    ));
                }
            }
            Ok(None) => {}
            Err(e) => break SimtOutcome::Error(e),
        }
    };
    let locals = prog
        .locals
        .iter()
        .map(|(x, _)| {
            let vs = (0..w.lanes()).filter_map(|l| w.local(x, l)).collect();
            (x.clone(), vs)
        })
        .collect();
    Ok(SimtRun {
        outcome,
        steps,
        usage: w.usage,
        max_depth,
        memory: mem,
        locals,
        trace: lines,
    })
}

/// One machine step; `None` for structural moves (sequences) that take no step.
fn step<'p>(
    w: &mut Warp<'p>,
    stack: &mut Vec<Entry<'p>>,
    mem: &mut Memory,
) -> Result<Option<(&'static str, Vec<usize>)>, SemError> {
    let Some(top) = stack.last_mut() else {
        return Ok(None);
    };
    let Some(f) = top.todo.pop() else {
        let e = stack.pop();
        return Ok(Some((SIMT_POP, e.map(|e| e.mask).unwrap_or_default())));
    };
    let mask = top.mask.clone();
    match f {
        Frame::Stmt(s) => match s {
            Stmt::Seq(a, b) => {
                top.todo.push(Frame::Stmt(b));
                top.todo.push(Frame::Stmt(a));
                Ok(None)
            }
            Stmt::While(..) => {
                top.todo.push(Frame::Loop(s));
                Ok(None)
            }
            Stmt::If(e, s1, s2, loc) => {
                let mut c = Vec::new();
                w.branch(e, &mask, mem, *loc, &mut c)?;
                let (tt, tf): (Vec<usize>, Vec<usize>) = {
                    let mut tt = Vec::new();
                    let mut tf = Vec::new();
                    for (&l, b) in mask.iter().zip(c) {
                        if b {
                            tt.push(l)
                        } else {
                            tf.push(l)
                        }
                    }
                    (tt, tf)
                };
                if tf.is_empty() {
                    top.todo.push(Frame::Stmt(s1));
                    Ok(Some((SIMT_UNIFORM, mask)))
                } else if tt.is_empty() {
                    top.todo.push(Frame::Stmt(s2));
                    Ok(Some((SIMT_UNIFORM, mask)))
                } else {
                    w.charge_div(&tt, &tf);
                    stack.push(Entry {
                        mask: tf,
                        todo: vec![Frame::Stmt(s2)],
                    });
                    stack.push(Entry {
                        mask: tt,
                        todo: vec![Frame::Stmt(s1)],
                    });
                    Ok(Some((SIMT_DIVERGE, mask)))
                }
            }
            _ => {
                // skip, x ← e, A[o] ← e, sync, x ← shfl/vote: the lock-step rule on the mask
                // (a shuffle reads the lanes of the mask: SC:SHFL on the active set).
                w.exec_on(s, &mask, mem)?;
                Ok(Some((SIMT_EXEC, mask)))
            }
        },
        Frame::Loop(s) => {
            let Stmt::While(e, body, loc) = s else {
                return Ok(None);
            };
            let mut c = Vec::new();
            w.branch(e, &mask, mem, *loc, &mut c)?;
            let mut tt = Vec::new();
            let mut tf = Vec::new();
            for (&l, b) in mask.iter().zip(c) {
                if b {
                    tt.push(l)
                } else {
                    tf.push(l)
                }
            }
            if tt.is_empty() {
                Ok(Some((SIMT_UNIFORM, mask)))
            } else if tf.is_empty() {
                top.todo.push(Frame::Loop(s));
                top.todo.push(Frame::Stmt(body));
                Ok(Some((SIMT_UNIFORM, mask)))
            } else {
                w.charge_div(&tt, &tf);
                stack.push(Entry {
                    mask: tt,
                    todo: vec![Frame::Loop(s), Frame::Stmt(body)],
                });
                Ok(Some((SIMT_LOOPSPLIT, mask)))
            }
        }
    }
}

//! Whole-grid lock-step runs spread over cores ([`super::run_kernel_with`]).
//!
//! The kernel run of [`super::run`] executes blocks in linear order on one memory. Blocks
//! communicate only through global arrays, so a block whose reads of global arrays see no
//! write of an earlier block computes exactly what it would compute on the memory the
//! blocks before it left. The grid is therefore cut into chunks of blocks; the blocks of a
//! chunk run in parallel (rayon), each on an *overlay* of the memory left by the previous
//! chunks ([`Memory::overlay`]: its own writes, reads falling through to the shared base),
//! and their writes are applied to the base in block order. A global array that the
//! program both reads and writes logs the indices each block reads from the base; if a
//! block read a cell that an earlier block of its chunk wrote, the chunk's parallel results
//! are discarded and it — and every later chunk — is run sequentially on the base. Results
//! (memory, costs, the first error in block order) are those of the sequential run, for any
//! number of threads.

use super::derivation::{CostModel, Usage};
use super::lockstep::Warp;
use super::run::{resolve_params, Params};
use super::store::{Cells, Memory};
use super::SemError;
use crate::core::metric::Q;
use crate::core::{Expr, Hardware, Launch, Program, Space, Stmt};
use rayon::prelude::*;

/// What a whole-grid run needs besides the memory.
pub(crate) struct Grid<'a> {
    pub prog: &'a Program,
    pub hw: &'a Hardware,
    pub launch: &'a Launch,
    pub params: &'a Params,
    pub model: &'a CostModel,
    /// The lanes of each warp of a block.
    pub lanes: &'a [Vec<(u32, [i64; 3])>],
    /// Fuel per warp.
    pub fuel: u64,
}

/// The result of one block: its usage (summed over its warps), its number of warps, and per
/// metric the largest warp cost with the first warp reaching it.
pub(crate) struct BlockOut {
    pub block: [u32; 3],
    pub usage: Usage,
    pub warps: u64,
    pub best: Vec<(Q, u64)>,
}

impl Grid<'_> {
    /// Runs every warp of `block` one after another on `mem` (whose shared arrays are at
    /// their input). Errors are wrapped in [`SemError::InWarp`].
    fn run_block<'g>(
        &'g self,
        warp: &mut Warp<'g>,
        block: [u32; 3],
        mem: &mut Memory,
    ) -> Result<BlockOut, SemError> {
        warp.set_params(&resolve_params(
            self.prog,
            self.hw,
            self.launch,
            block,
            self.params,
        )?);
        let mut out = BlockOut {
            block,
            usage: Usage::default(),
            warps: 0,
            best: Vec::new(),
        };
        let mut last: Option<Usage> = None;
        for (w, lanes) in self.lanes.iter().enumerate() {
            let w = w as u64;
            warp.reset(lanes);
            warp.run(&self.prog.body, mem)
                .map_err(|e| SemError::InWarp {
                    block,
                    warp: w,
                    error: Box::new(e),
                })?;
            out.warps += 1;
            out.usage = out.usage.plus(&warp.usage);
            // Warps of a block often charge the same usage: a warp with the usage of the
            // previous one has its costs, which `best` already covers.
            if last == Some(warp.usage) {
                continue;
            }
            last = Some(warp.usage);
            let costs = self.model.costs(&warp.usage);
            if out.best.is_empty() {
                out.best = costs.iter().map(|c| (c.clone(), w)).collect();
            } else {
                for (b, c) in out.best.iter_mut().zip(&costs) {
                    if *c > b.0 {
                        *b = (c.clone(), w);
                    }
                }
            }
        }
        Ok(out)
    }

    /// A warp of the program without lanes (set per block and warp by `run_block`).
    fn warp(&self) -> Warp<'_> {
        let params = Default::default();
        Warp::new(
            self.prog,
            self.hw,
            self.model,
            &params,
            &[],
            self.fuel,
            false,
        )
    }

    /// Runs every block of the grid (linear order, x fastest) starting from `mem`, calling
    /// `on_block` with each block's result in block order; returns the final memory (shared
    /// arrays as the last block left them). Errors: the first error in block order.
    pub(crate) fn run(
        &self,
        grid: [u32; 3],
        mem: Memory,
        mut on_block: impl FnMut(BlockOut),
    ) -> Result<Memory, SemError> {
        let total = grid.iter().map(|&g| g as u128).product::<u128>();
        let block_of = |i: u128| {
            let (gx, gy) = (grid[0] as u128, grid[1] as u128);
            [
                (i % gx) as u32,
                ((i / gx) % gy) as u32,
                (i / (gx * gy)) as u32,
            ]
        };
        let logged = read_and_written(self.prog);
        let chunk = (64 * rayon::current_num_threads()).max(1) as u128;
        let mut base = mem.freeze();
        let mut parallel = true;
        let mut next = 0u128;
        while next < total {
            let n = chunk.min(total - next);
            let ids: Vec<[u32; 3]> = (next..next + n).map(block_of).collect();
            next += n;
            if parallel {
                let mut outs: Vec<(Memory, Result<BlockOut, SemError>)> = ids
                    .par_iter()
                    .map_init(
                        || self.warp(),
                        |warp, &b| {
                            let mut m = Memory::overlay(&base, &logged);
                            let r = self.run_block(warp, b, &mut m);
                            (m, r)
                        },
                    )
                    .collect();
                let upto = outs
                    .iter()
                    .position(|(_, r)| r.is_err())
                    .map_or(outs.len(), |e| e + 1);
                if conflict_free(&outs[..upto], &logged) {
                    // Every overlay lets go of the base before it is updated (no copy).
                    for (m, _) in outs.iter_mut() {
                        m.detach();
                    }
                    for (m, r) in outs.into_iter().take(upto) {
                        on_block(r?);
                        Memory::absorb(&mut base, m);
                    }
                    continue;
                }
                parallel = false;
            }
            let mut seq = Memory::thaw(base);
            let mut warp = self.warp();
            for b in ids {
                seq.new_block();
                on_block(self.run_block(&mut warp, b, &mut seq)?);
            }
            base = seq.freeze();
        }
        Ok(Memory::thaw(base))
    }
}

/// Whether no block of `outs` (in block order) read from the base a cell of a logged array
/// that an earlier block of `outs` wrote.
fn conflict_free(outs: &[(Memory, Result<BlockOut, SemError>)], logged: &[bool]) -> bool {
    for (k, _) in logged.iter().enumerate().filter(|(_, l)| **l) {
        let mut written: Cells<()> = Cells::default();
        for (m, _) in outs {
            if m.base_reads(k).iter().any(|&i| written.get(i).is_some()) {
                return false;
            }
            for (i, _) in m.own_writes(k) {
                written.set(i, ());
            }
        }
    }
    true
}

/// Per array of `prog`: whether it is global and the body both reads and writes it (only
/// such arrays can carry a value from one block to another).
fn read_and_written(prog: &Program) -> Vec<bool> {
    let (mut read, mut written) = (Vec::new(), Vec::new());
    let mut stack = vec![&prog.body];
    let reads = |e: &Expr, read: &mut Vec<String>| {
        if let Expr::Read(a, _) = e {
            read.push(a.clone());
        }
    };
    while let Some(s) = stack.pop() {
        match s {
            Stmt::Skip | Stmt::Sync(_) | Stmt::Warp(..) => {}
            Stmt::Seq(a, b) => stack.extend([&**a, &**b]),
            Stmt::Assign(_, e, _) => reads(e, &mut read),
            Stmt::Write(a, _, e, _) => {
                written.push(a.clone());
                reads(e, &mut read);
            }
            Stmt::If(e, a, b, _) => {
                reads(e, &mut read);
                stack.extend([&**a, &**b]);
            }
            Stmt::While(e, b, _) => {
                reads(e, &mut read);
                stack.push(b);
            }
        }
    }
    prog.arrays
        .iter()
        .map(|a| a.space == Space::Global && read.contains(&a.name) && written.contains(&a.name))
        .collect()
}

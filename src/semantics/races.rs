//! Data-race detection shared by the block-wide lock-step semantics and the interleaving
//! semantics (Collingbourne et al. 2013, Def. 3.1 for interleavings and Def. 4.1 for
//! lock-step): two accesses to the same array cell by distinct threads, at least one a
//! write, not separated by a barrier that both threads' block passed.
//!
//! Accesses are logged per cell with the thread (block-linear id), its block, the block's
//! barrier interval ("epoch") and the source location of the statement. Two accesses are
//! concurrent when they come from different blocks (blocks never synchronize with each
//! other; global memory only) or from the same block in the same epoch. Shared arrays are
//! per block, so their cells are keyed by block as well. By default every write-write
//! conflict is a race (Def. 3.1); optionally ([`RaceLog::benign_equal_writes`]) two writes of
//! the same value (same bits) are benign and not reported, like GPUVerify's
//! `--equality-abstraction` and the lock-step semantics' own write check.

use super::value::Value;
use super::SemError;
use crate::core::{Loc, Space};
use std::collections::HashMap;

/// One logged access.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AccessSite {
    /// Block-linear thread id.
    pub thread: u32,
    /// Linear block index.
    pub block: u64,
    /// Barrier interval of the block at the time of the access.
    pub epoch: u64,
    /// Statement location.
    pub loc: Loc,
    /// Whether the access is a write.
    pub write: bool,
    /// The value written (writes only).
    pub value: Option<Value>,
}

#[derive(Debug, Default)]
struct CellLog {
    last_write: Option<AccessSite>,
    reads: Vec<AccessSite>,
}

/// The access log of one run: call [`RaceLog::set_block`] before running a block,
/// [`RaceLog::barrier`] when the block passes a barrier, and [`RaceLog::access`] for every
/// array access of a thread.
#[derive(Debug, Default)]
pub struct RaceLog {
    /// Do not report write-write conflicts of equal values.
    pub benign_equal_writes: bool,
    cells: HashMap<(usize, u64, i64), CellLog>,
    block: u64,
    epoch: u64,
}

impl RaceLog {
    /// An empty log (block 0, epoch 0); every write-write conflict is a race.
    pub fn new() -> RaceLog {
        RaceLog::default()
    }

    /// An empty log where write-write conflicts of equal values are benign iff `benign`.
    pub fn with_benign_equal_writes(benign: bool) -> RaceLog {
        RaceLog {
            benign_equal_writes: benign,
            ..RaceLog::default()
        }
    }

    /// The accesses that follow are made by threads of block `block` (linear index), in a
    /// fresh barrier interval.
    pub fn set_block(&mut self, block: u64) {
        self.block = block;
        self.epoch = 0;
    }

    /// The current block passed a barrier: its later accesses are ordered after its earlier
    /// ones.
    pub fn barrier(&mut self) {
        self.epoch += 1;
    }

    fn concurrent(&self, p: &AccessSite, thread: u32) -> bool {
        (p.block != self.block || p.epoch == self.epoch)
            && (p.block, p.thread) != (self.block, thread)
    }

    /// Logs an access by `thread` of the current block to cell `index` of the array in slot
    /// `slot` (named `array`, in `space`), at `loc`; `value` is the value written (`None` for
    /// a read).
    ///
    /// Errors: [`SemError::DataRace`] when the access conflicts with a logged concurrent
    /// access of another thread (write-write, or read-write in either order).
    #[allow(clippy::too_many_arguments)]
    pub fn access(
        &mut self,
        slot: usize,
        space: Space,
        index: i64,
        thread: u32,
        value: Option<Value>,
        loc: Loc,
        array: &str,
    ) -> Result<(), SemError> {
        let write = value.is_some();
        let key_block = match space {
            Space::Shared | Space::Local => self.block,
            Space::Global => u64::MAX,
        };
        let me = AccessSite {
            thread,
            block: self.block,
            epoch: self.epoch,
            loc,
            write,
            value,
        };
        let cell = self
            .cells
            .remove(&(slot, key_block, index))
            .unwrap_or_default();
        let mut cell = cell;
        let race = |first: AccessSite| SemError::DataRace {
            array: array.to_string(),
            index,
            first: Box::new(first),
            second: Box::new(me),
        };
        if let Some(w) = cell.last_write {
            let benign = match (w.value, value) {
                (Some(a), Some(b)) => self.benign_equal_writes && a.same_bits(b),
                _ => false,
            };
            if self.concurrent(&w, thread) && !benign {
                return Err(race(w));
            }
        }
        if write {
            if let Some(r) = cell.reads.iter().find(|r| self.concurrent(r, thread)) {
                return Err(race(*r));
            }
            cell.last_write = Some(me);
        } else {
            let (b, e) = (self.block, self.epoch);
            cell.reads.retain(|r| r.block != b || r.epoch == e);
            if !cell
                .reads
                .iter()
                .any(|r| r.block == b && r.thread == thread)
            {
                cell.reads.push(me);
            }
        }
        self.cells.insert((slot, key_block, index), cell);
        Ok(())
    }
}

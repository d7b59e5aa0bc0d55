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
use std::hash::{BuildHasherDefault, Hasher};

/// A hasher for the log's `(slot, block, index)` keys: one multiply-rotate per word (the
/// keys are small integers chosen by the program, not by an adversary; `std`'s SipHash cost
/// more than the rest of a logged access). Only lookups use it: nothing iterates the map, so
/// reports do not depend on the hash.
#[derive(Clone, Copy, Debug, Default)]
struct CellHasher(u64);

impl Hasher for CellHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.write_u64(*b as u64);
        }
    }
    #[inline]
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    #[inline]
    fn write_usize(&mut self, x: usize) {
        self.write_u64(x as u64);
    }
}

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
    cells: HashMap<(usize, u64, i64), CellLog, BuildHasherDefault<CellHasher>>,
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
        let key = (slot, key_block, index);
        let (block, epoch, benign_equal) = (self.block, self.epoch, self.benign_equal_writes);
        let concurrent = |p: &AccessSite| {
            (p.block != block || p.epoch == epoch) && (p.block, p.thread) != (block, thread)
        };
        let cell = self.cells.entry(key).or_default();
        let race = |first: AccessSite| SemError::DataRace {
            array: array.to_string(),
            index,
            first: Box::new(first),
            second: Box::new(me),
        };
        if let Some(w) = cell.last_write {
            let benign = match (w.value, value) {
                (Some(a), Some(b)) => benign_equal && a.same_bits(b),
                _ => false,
            };
            if concurrent(&w) && !benign {
                // (the cell is dropped: a run stops at its first race)
                self.cells.remove(&key);
                return Err(race(w));
            }
        }
        if write {
            if let Some(r) = cell.reads.iter().find(|r| concurrent(r)).copied() {
                self.cells.remove(&key);
                return Err(race(r));
            }
            cell.last_write = Some(me);
        } else {
            let (b, e) = (block, epoch);
            cell.reads.retain(|r| r.block != b || r.epoch == e);
            if !cell
                .reads
                .iter()
                .any(|r| r.block == b && r.thread == thread)
            {
                cell.reads.push(me);
            }
        }
        Ok(())
    }
}

//! The constructs the clang front end reads but warpcert's core cannot express yet, in one
//! place, so that each is replaced by its lowering when the core grows (`__match_*` warp
//! collectives, function-scope `__constant__` variables, thread-local array initializers other
//! than one-dimensional lists,
//! tiles other than warp tiles of `N | 32` lanes, coalesced groups outside the uses
//! `clang/coalesced.rs` lowers). Each becomes a located error naming the construct — never a silent
//! wrong answer. Warp shuffles, votes, `__syncwarp`, `tiled_partition<N>` tiles and coalesced
//! groups held in locals are lowered (`clang/warp.rs`, `clang/coalesced.rs`, `lower/warp.rs`).

/// A construct that is read but not modelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Missing {
    /// `__match_any_sync`, `__match_all_sync`, `__lanemask_lt`.
    WarpVote,
    /// A `__constant__` variable declared inside a function (file-scope ones are read-only
    /// global arrays, spec/lowering.md §5).
    ConstantMemory,
    /// A thread-local array with an initializer other than a list for a one-dimensional
    /// array of scalars (`float r[2][2] = {…};` in a function).
    LocalArray,
    /// `tiled_partition`, `thread_block_tile` operations other than those lowered.
    WarpTile,
    /// `coalesced_threads()`, `labeled_partition`, `binary_partition` (`coalesced_group`)
    /// other than as a local's initializer, a partition's parent or a member call's object,
    /// and the members `clang/coalesced.rs` does not lower.
    CoalescedGroup,
    /// Members of `grid_group` other than those `clang/grid.rs` lowers (`is_valid`), and
    /// `multi_grid_group`.
    GridGroup,
    /// `cg::reduce`, `cg::inclusive_scan`, `cg::exclusive_scan` (warp collectives).
    GroupCollective,
    /// Texture and surface objects and fetches.
    Texture,
    /// `__threadfence*`: fences (no cost model).
    Fence,
    /// `__syncthreads_count/and/or`.
    BarrierReduction,
}

impl Missing {
    /// The error text for construct `what` (a name as written).
    pub fn message(self, what: &str) -> String {
        let (kind, why) = match self {
            Missing::WarpVote => ("warp collective", "only shuffles and the votes ballot/any/all are core constructs"),
            Missing::ConstantMemory => ("function-scope `__constant__` variable", "only file-scope `__constant__` variables are modelled (as read-only global arrays)"),
            Missing::LocalArray => ("initialized thread-local array", "only one-dimensional thread-local arrays of scalars take an initializer list"),
            Missing::WarpTile => ("cooperative-groups tile", "only `thread_block_tile<N>` from `tiled_partition<N>(block)` with N | 32 and its sync/thread_rank/size/shfl*/any/all/ballot (votes for N = 32) are modelled"),
            Missing::CoalescedGroup => ("cooperative-groups coalesced group", "a coalesced group is modelled as its lane mask when it is a local's initializer, a partition's parent, a member call's object or cg::reduce's group, with the members sync/thread_rank/size/num_threads/shfl(v, 0)/any/all (spec/lowering.md §9.5)"),
            Missing::GridGroup => ("grid-wide cooperative group", "only `this_grid()` with thread_rank/size/num_threads/block_rank/num_blocks/sync is modelled (spec/lowering.md §9.6)"),
            Missing::GroupCollective => ("cooperative-groups collective", "group reductions and scans need warp-collective core constructs"),
            Missing::Texture => ("texture/surface access", "textures are not modelled"),
            Missing::Fence => ("memory fence", "fences have no cost model in warpcert"),
            Missing::BarrierReduction => ("barrier with reduction", "a block-wide vote needs a core construct warpcert does not have yet"),
        };
        format!("{kind} `{what}` is not supported yet ({why})")
    }

    /// The construct a prelude function `name` stands for, if it is one of the above.
    pub fn of_call(name: &str) -> Option<Missing> {
        Some(match name {
            "__match_any_sync" | "__match_all_sync" | "__lanemask_lt" => Missing::WarpVote,
            "tiled_partition" => Missing::WarpTile,
            "coalesced_threads" | "labeled_partition" | "binary_partition" => {
                Missing::CoalescedGroup
            }
            "reduce" | "inclusive_scan" | "exclusive_scan" => Missing::GroupCollective,
            n if n.starts_with("tex") || n.starts_with("surf") => Missing::Texture,
            n if n.starts_with("__threadfence") => Missing::Fence,
            "__syncthreads_count" | "__syncthreads_and" | "__syncthreads_or" => {
                Missing::BarrierReduction
            }
            _ => return None,
        })
    }

    /// The construct a cooperative-group record `rec` that is neither the block nor a warp
    /// tile stands for.
    pub fn of_group(rec: &str) -> Missing {
        if rec.contains("grid") {
            Missing::GridGroup
        } else if rec.ends_with("coalesced_group") {
            Missing::CoalescedGroup
        } else {
            Missing::WarpTile
        }
    }

    /// The short name used to group errors in `warpcert coverage`.
    pub fn group(self) -> &'static str {
        match self {
            Missing::WarpVote => "warp __match_*",
            Missing::ConstantMemory => "__constant__",
            Missing::LocalArray => "thread-local array",
            Missing::WarpTile => "cg tile",
            Missing::CoalescedGroup => "cg coalesced group",
            Missing::GridGroup => "cg grid group",
            Missing::GroupCollective => "cg collective",
            Missing::Texture => "texture",
            Missing::Fence => "fence",
            Missing::BarrierReduction => "__syncthreads_count/and/or",
        }
    }
}

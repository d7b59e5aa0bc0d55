(** * miniCUDA syntax, values and launch context (RaCUDA §2–3, Fig. 2; spec/minicuda.md)

    Names of locals, parameters and arrays are natural numbers; the exporter
    (src/export/coq/) prints the name of each index in a comment.  Float
    values are carried as their IEEE-754 binary64 bit pattern ([VFloat z]); the
    float operations are a parameter of the semantics (see Semantics.v). *)
From Coq Require Import ZArith QArith List Bool Arith.
From WarpCert Require Import Metric.
Import ListNotations.

Inductive ty := TInt | TBool | TFloat.

Inductive val := VInt (z : Z) | VBool (b : bool) | VFloat (bits : Z).

Definition has_type (v : val) (t : ty) : bool :=
  match v, t with
  | VInt _, TInt | VBool _, TBool | VFloat _, TFloat => true
  | _, _ => false
  end.

Definition default_val (t : ty) : val :=
  match t with TInt => VInt 0 | TBool => VBool false | TFloat => VFloat 0 end.

(** The integer view of a value (used by linear constraints; locals of type
    [int] always hold [VInt]). *)
Definition int_of (v : val) : Z := match v with VInt z => z | _ => 0%Z end.

Inductive binop := OAdd | OSub | OMul | ODiv | OMod | OShl | OShr | OAnd | OOr | OXor
  | OLt | OLe | OGt | OGe | OEq | ONe | OLand | OLor | OMin | OMax.
Inductive unop := UNeg | UNot | UBitnot | UToFloat | UToInt | UToBool | UPopc | UFfs.

(** Operands [o ::= x | p | c | threadIdx.d] ([d] = 0, 1, 2 for x, y, z). *)
Inductive opd := OVar (x : nat) | OParam (p : nat) | OConst (v : val) | OTid (d : nat).

Inductive expr := EOpd (o : opd) | EBin (op : binop) (a b : opd) | EUn (op : unop) (a : opd)
  | ERead (arr : nat) (i : opd).

(** Warp operations (spec/minicuda.md §1, extension): shuffle modes and votes. *)
Inductive shflk := KIdx | KUp | KDown | KXor.
Inductive votek := KBallot | KAny | KAll.
(** [WShfl k w v l]: shuffle of [v] with lane argument [l] in segments of [w] lanes;
    [WVote k p]: vote on the [bool] operand [p]. *)
Inductive warpop := WShfl (k : shflk) (w : nat) (v l : opd) | WVote (k : votek) (p : opd).

Inductive stmt := SSkip | SSync | SSeq (s1 s2 : stmt) | SAssign (x : nat) (e : expr)
  | SWrite (arr : nat) (i : opd) (e : expr) | SIf (e : expr) (s1 s2 : stmt)
  | SWhile (e : expr) (s : stmt) | SWarp (x : nat) (op : warpop).

(** [Local]: thread-local arrays (registers/local memory), whose indices the front end
    makes per-thread; an access costs like a local variable (spec/metrics.md). *)
Inductive space := Global | Shared | Local.

(** The locals a statement assigns, [W(s)]. *)
Fixpoint writes (s : stmt) : list nat :=
  match s with
  | SSkip | SSync | SWrite _ _ _ => []
  | SAssign x _ | SWarp x _ => [x]
  | SSeq s1 s2 | SIf _ s1 s2 => writes s1 ++ writes s2
  | SWhile _ s => writes s
  end.

(** The certificate's context: metric, hardware, launch and signature.
    [c_lty]/[c_pty] give the types of locals/parameters, [c_arr] the space
    and element size (bytes) of arrays; [c_blockidx] lists the parameters
    that are [blockIdx.d], [c_griddim] those that are [gridDim.d] and [c_bgrid] the
    pairs [(blockIdx.d, gridDim.d)] of the dimensions that have both (spec/logic.md §5,
    launch facts); [c_wu] lists the thread dimensions claimed
    warp-uniform (all lanes of every warp share [threadIdx.d]; spec/logic.md §2),
    a claim [Check.check_root] verifies by enumeration. *)
Record ctx := {
  c_metric : metric;
  c_warp : nat; c_banks : Z; c_bank_bytes : Z; c_sector_bytes : Z;
  c_bx : nat; c_by : nat; c_bz : nat;
  c_lty : nat -> option ty;
  c_pty : nat -> option ty;
  c_arr : nat -> option (space * Z);
  c_blockidx : list nat;
  c_griddim : list nat;
  c_bgrid : list (nat * nat);
  c_wu : list nat
}.

(** Threads are block-linear ids [t = x + y·Bx + z·Bx·By]. *)
Definition tid (G : ctx) (d : nat) (t : nat) : Z :=
  Z.of_nat (match d with
            | O => t mod c_bx G
            | S O => (t / c_bx G) mod c_by G
            | _ => t / (c_bx G * c_by G)
            end).

(** The lanes of warp [w]: ids [W·w … W·w + W − 1] below the block size. *)
Definition lanes (G : ctx) (w : nat) : list nat :=
  filter (fun t => t <? c_bx G * c_by G * c_bz G) (seq (c_warp G * w) (c_warp G)).

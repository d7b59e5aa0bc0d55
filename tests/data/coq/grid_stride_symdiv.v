(* Hand-written instance (symdivcoq20): a grid-stride loop with a symbolic launch divisor,
   [t = 32 * gridDim.x; i = 32 * blockIdx.x; while (i < n) { A[i] = 0; i = i + t; }]
   under [sectors] (launch 32 1 1; every lane writes the uniform cell A[i]: one sector per
   round).  Bound [⌊(n − 32·blockIdx.x + 32·gridDim.x − 1)/(32·gridDim.x)⌋⁺], by hand: the
   rounds of block [b] are the [k ≥ 0] with [32b + 32g·k < n], [⌈(n − 32b)/(32g)⌉] of them
   when [n > 32b], else none.  The loop body's Q:WEAK pays a round with
   [ishift ⌊(n − i + 32g − 1)/32g⌋⁺ 1] (target [32g − L = i − n + 1 ≤ 0], the loop
   condition) and moves to the stepped atom with [imono] (target [32g − t ≤ 0] from
   [t = 32g]). *)
From Coq Require Import ZArith QArith List.
From WarpCert Require Import Metric Syntax Semantics Lin Logic Soundness Check Exec Float64.
Import ListNotations.
Open Scope Q_scope.
Open Scope nat_scope.

(* locals: 0 = i, 1 = t *)
(* parameters: 0 = n, 1 = gridDim.x, 2 = blockIdx.x *)
(* arrays: 0 = A *)
Definition G : ctx := {|
  c_metric := sectors; c_warp := 32; c_banks := 32%Z;
  c_bank_bytes := 4%Z; c_sector_bytes := 32%Z;
  c_bx := 32; c_by := 1; c_bz := 1;
  c_lty := fun x => nth x [Some TInt; Some TInt] None;
  c_pty := fun p => nth p [Some TInt; Some TInt; Some TInt] None;
  c_arr := fun a => nth a [Some (Global, 4%Z)] None;
  c_blockidx := [2];
  c_griddim := [1]; c_bgrid := [(2, 1)];
  c_wu := [1; 2] |}.

Definition body : stmt :=
  SSeq
    (SAssign 1 (EBin OMul (OConst (VInt 32%Z)) (OParam 1)))
    (SSeq
      (SAssign 0 (EBin OMul (OConst (VInt 32%Z)) (OParam 2)))
      (SWhile (EBin OLt (OVar 0) (OParam 0))
        (SSeq
          (SWrite 0 (OVar 0) (EOpd (OConst (VInt 0%Z))))
          (SAssign 0 (EBin OAdd (OVar 0) (OVar 1)))))).

Definition c0 : assn := mkAssn [CLe (mkLin 0%Z [((-1)%Z, VT 0)]); CLe (mkLin (-31)%Z [(1%Z, VT 0)]); CLe (mkLin 0%Z [((-1)%Z, VT 1)]); CLe (mkLin 0%Z [(1%Z, VT 1)]); CLe (mkLin 0%Z [((-1)%Z, VT 2)]); CLe (mkLin 0%Z [(1%Z, VT 2)]); CLe (mkLin 0%Z [((-1)%Z, VP 2)]); CLe (mkLin 1%Z [((-1)%Z, VP 1)]); CLe (mkLin 1%Z [(1%Z, VP 2); ((-1)%Z, VP 1)])] [DLin 0 (0%Z, 0%Z, 0%Z) 0%Z 0%Z; DLin 1 (0%Z, 0%Z, 0%Z) 0%Z 0%Z] (mkPot (0 # 1) [((1 # 1), [mkAtmK (mkLin (-1)%Z [(1%Z, VP 0); ((-32)%Z, VP 2); (32%Z, VP 1)]) 1 (KFloorS (mkLin 0%Z [(32%Z, VP 1)]))])]).
Definition c1 : assn := mkAssn [CLe (mkLin 0%Z [((-1)%Z, VT 0)]); CLe (mkLin (-31)%Z [(1%Z, VT 0)]); CLe (mkLin 0%Z [((-1)%Z, VT 1)]); CLe (mkLin 0%Z [(1%Z, VT 1)]); CLe (mkLin 0%Z [((-1)%Z, VT 2)]); CLe (mkLin 0%Z [(1%Z, VT 2)]); CLe (mkLin 0%Z [((-1)%Z, VP 2)]); CLe (mkLin 1%Z [((-1)%Z, VP 1)]); CLe (mkLin 1%Z [(1%Z, VP 2); ((-1)%Z, VP 1)]); CEq (mkLin 0%Z [(1%Z, VL 1); ((-32)%Z, VP 1)])] [DLin 0 (0%Z, 0%Z, 0%Z) 0%Z 0%Z; DLin 1 (0%Z, 0%Z, 0%Z) 0%Z 1%Z] (mkPot (0 # 1) [((1 # 1), [mkAtmK (mkLin (-1)%Z [(1%Z, VP 0); ((-32)%Z, VP 2); (32%Z, VP 1)]) 1 (KFloorS (mkLin 0%Z [(32%Z, VP 1)]))])]).
Definition c2 : assn := mkAssn [CLe (mkLin 0%Z [((-1)%Z, VT 0)]); CLe (mkLin (-31)%Z [(1%Z, VT 0)]); CLe (mkLin 0%Z [((-1)%Z, VT 1)]); CLe (mkLin 0%Z [(1%Z, VT 1)]); CLe (mkLin 0%Z [((-1)%Z, VT 2)]); CLe (mkLin 0%Z [(1%Z, VT 2)]); CLe (mkLin 0%Z [((-1)%Z, VP 2)]); CLe (mkLin 1%Z [((-1)%Z, VP 1)]); CLe (mkLin 1%Z [(1%Z, VP 2); ((-1)%Z, VP 1)]); CEq (mkLin 0%Z [(1%Z, VL 1); ((-32)%Z, VP 1)])] [DLin 0 (0%Z, 0%Z, 0%Z) 0%Z 1%Z; DLin 1 (0%Z, 0%Z, 0%Z) 0%Z 1%Z] (mkPot (0 # 1) [((1 # 1), [mkAtmK (mkLin (-1)%Z [(1%Z, VP 0); ((-1)%Z, VL 0); (32%Z, VP 1)]) 1 (KFloorS (mkLin 0%Z [(32%Z, VP 1)]))])]).
Definition c3 : assn := mkAssn [CLe (mkLin 0%Z [((-1)%Z, VT 0)]); CLe (mkLin (-31)%Z [(1%Z, VT 0)]); CLe (mkLin 0%Z [((-1)%Z, VT 1)]); CLe (mkLin 0%Z [(1%Z, VT 1)]); CLe (mkLin 0%Z [((-1)%Z, VT 2)]); CLe (mkLin 0%Z [(1%Z, VT 2)]); CLe (mkLin 0%Z [((-1)%Z, VP 2)]); CLe (mkLin 1%Z [((-1)%Z, VP 1)]); CLe (mkLin 1%Z [(1%Z, VP 2); ((-1)%Z, VP 1)]); CEq (mkLin 0%Z [(1%Z, VL 1); ((-32)%Z, VP 1)]); CLe (mkLin 1%Z [(1%Z, VL 0); ((-1)%Z, VP 0)])] [DLin 0 (0%Z, 0%Z, 0%Z) 0%Z 1%Z; DLin 1 (0%Z, 0%Z, 0%Z) 0%Z 1%Z] (mkPot (0 # 1) [((1 # 1), [mkAtmK (mkLin (-1)%Z [(1%Z, VP 0); ((-1)%Z, VL 0); (32%Z, VP 1)]) 1 (KFloorS (mkLin 0%Z [(32%Z, VP 1)]))])]).
Definition c4 : assn := mkAssn [CLe (mkLin 0%Z [((-1)%Z, VT 0)]); CLe (mkLin (-31)%Z [(1%Z, VT 0)]); CLe (mkLin 0%Z [((-1)%Z, VT 1)]); CLe (mkLin 0%Z [(1%Z, VT 1)]); CLe (mkLin 0%Z [((-1)%Z, VT 2)]); CLe (mkLin 0%Z [(1%Z, VT 2)]); CLe (mkLin 0%Z [((-1)%Z, VP 2)]); CLe (mkLin 1%Z [((-1)%Z, VP 1)]); CLe (mkLin 1%Z [(1%Z, VP 2); ((-1)%Z, VP 1)]); CEq (mkLin 0%Z [(1%Z, VL 1); ((-32)%Z, VP 1)]); CLe (mkLin 1%Z [(1%Z, VL 0); ((-1)%Z, VP 0)])] [DLin 0 (0%Z, 0%Z, 0%Z) 0%Z 1%Z; DLin 1 (0%Z, 0%Z, 0%Z) 0%Z 1%Z] (mkPot (1 # 1) [((1 # 1), [mkAtmK (mkLin (-1)%Z [(1%Z, VP 0); ((-1)%Z, VL 0); ((-1)%Z, VL 1); (32%Z, VP 1)]) 1 (KFloorS (mkLin 0%Z [(32%Z, VP 1)]))])]).
Definition c5 : assn := mkAssn [CLe (mkLin 0%Z [((-1)%Z, VT 0)]); CLe (mkLin (-31)%Z [(1%Z, VT 0)]); CLe (mkLin 0%Z [((-1)%Z, VT 1)]); CLe (mkLin 0%Z [(1%Z, VT 1)]); CLe (mkLin 0%Z [((-1)%Z, VT 2)]); CLe (mkLin 0%Z [(1%Z, VT 2)]); CLe (mkLin 0%Z [((-1)%Z, VP 2)]); CLe (mkLin 1%Z [((-1)%Z, VP 1)]); CLe (mkLin 1%Z [(1%Z, VP 2); ((-1)%Z, VP 1)]); CEq (mkLin 0%Z [(1%Z, VL 1); ((-32)%Z, VP 1)]); CLe (mkLin 1%Z [(1%Z, VL 0); ((-1)%Z, VP 0)])] [DLin 0 (0%Z, 0%Z, 0%Z) 0%Z 1%Z; DLin 1 (0%Z, 0%Z, 0%Z) 0%Z 1%Z] (mkPot (0 # 1) [((1 # 1), [mkAtmK (mkLin (-1)%Z [(1%Z, VP 0); ((-1)%Z, VL 0); ((-1)%Z, VL 1); (32%Z, VP 1)]) 1 (KFloorS (mkLin 0%Z [(32%Z, VP 1)]))])]).
Definition c6 : assn := mkAssn [CLe (mkLin 0%Z [((-1)%Z, VT 0)]); CLe (mkLin (-31)%Z [(1%Z, VT 0)]); CLe (mkLin 0%Z [((-1)%Z, VT 1)]); CLe (mkLin 0%Z [(1%Z, VT 1)]); CLe (mkLin 0%Z [((-1)%Z, VT 2)]); CLe (mkLin 0%Z [(1%Z, VT 2)]); CLe (mkLin 0%Z [((-1)%Z, VP 2)]); CLe (mkLin 1%Z [((-1)%Z, VP 1)]); CLe (mkLin 1%Z [(1%Z, VP 2); ((-1)%Z, VP 1)]); CEq (mkLin 0%Z [(1%Z, VL 1); ((-32)%Z, VP 1)]); CLe (mkLin 0%Z [((-1)%Z, VL 0); (1%Z, VP 0)])] [DLin 0 (0%Z, 0%Z, 0%Z) 0%Z 1%Z; DLin 1 (0%Z, 0%Z, 0%Z) 0%Z 1%Z] (mkPot (0 # 1) [((1 # 1), [mkAtmK (mkLin (-1)%Z [(1%Z, VP 0); ((-1)%Z, VL 0); (32%Z, VP 1)]) 1 (KFloorS (mkLin 0%Z [(32%Z, VP 1)]))])]).

Definition tree : dtree :=
  DSeq c0 c6
    (DVwrite1 c0 c1 0%Z [(1%Z, [(0, 1%Z)]); (1%Z, [(1, 1%Z)]); (1%Z, [(2, 1%Z)]); (1%Z, [(3, 1%Z)]); (1%Z, [(4, 1%Z)]); (1%Z, [(5, 1%Z)]); (1%Z, [(6, 1%Z)]); (1%Z, [(7, 1%Z)]); (1%Z, [(8, 1%Z)]); (1%Z, [])])
    (DSeq c1 c6
      (DVwrite1 c1 c2 0%Z [(1%Z, [(0, 1%Z)]); (1%Z, [(1, 1%Z)]); (1%Z, [(2, 1%Z)]); (1%Z, [(3, 1%Z)]); (1%Z, [(4, 1%Z)]); (1%Z, [(5, 1%Z)]); (1%Z, [(6, 1%Z)]); (1%Z, [(7, 1%Z)]); (1%Z, [(8, 1%Z)]); (1%Z, [(9, 1%Z)])])
      (DWhile1 c2 c6 0%Z
        (DWeak c3 c2 (0 # 1) [(1%Z, [(0, 1%Z)]); (1%Z, [(1, 1%Z)]); (1%Z, [(2, 1%Z)]); (1%Z, [(3, 1%Z)]); (1%Z, [(4, 1%Z)]); (1%Z, [(5, 1%Z)]); (1%Z, [(6, 1%Z)]); (1%Z, [(7, 1%Z)]); (1%Z, [(8, 1%Z)]); (1%Z, [(9, 1%Z)]); (1%Z, [(10, 1%Z)])]
          [RSShift (mkLin (-1)%Z [(1%Z, VP 0); ((-1)%Z, VL 0); (32%Z, VP 1)]) (mkLin 0%Z [(32%Z, VP 1)]) 1%Z ([], (1%Z, [(10, 1%Z)]));
           RSMono (mkLin (-1)%Z [(1%Z, VP 0); ((-1)%Z, VL 0)]) (mkLin (-1)%Z [(1%Z, VP 0); ((-1)%Z, VL 0); ((-1)%Z, VL 1); (32%Z, VP 1)]) (mkLin 0%Z [(32%Z, VP 1)]) ([], (1%Z, [(9, (-1)%Z)]))]
          [(1%Z, [(0, 1%Z)]); (1%Z, [(1, 1%Z)]); (1%Z, [(2, 1%Z)]); (1%Z, [(3, 1%Z)]); (1%Z, [(4, 1%Z)]); (1%Z, [(5, 1%Z)]); (1%Z, [(6, 1%Z)]); (1%Z, [(7, 1%Z)]); (1%Z, [(8, 1%Z)]); (1%Z, [(9, 1%Z)])] []
          (DSeq c4 c2
            (DWrite c4 c5 1%Z 0%Z)
            (DVwrite1 c5 c2 0%Z [(1%Z, [(0, 1%Z)]); (1%Z, [(1, 1%Z)]); (1%Z, [(2, 1%Z)]); (1%Z, [(3, 1%Z)]); (1%Z, [(4, 1%Z)]); (1%Z, [(5, 1%Z)]); (1%Z, [(6, 1%Z)]); (1%Z, [(7, 1%Z)]); (1%Z, [(8, 1%Z)]); (1%Z, [(9, 1%Z)])]))))).

Definition bound : pot := (mkPot (0 # 1) [((1 # 1), [mkAtmK (mkLin (-1)%Z [(1%Z, VP 0); ((-32)%Z, VP 2); (32%Z, VP 1)]) 1 (KFloorS (mkLin 0%Z [(32%Z, VP 1)]))])]).

(* Access-bound claims N*(key) <= n, key = (shared?, thread constraints, dep, range, bytes). *)
Definition tab : ntab := [
  ((false, [CLe (mkLin 0%Z [((-1)%Z, VT 0)]); CLe (mkLin (-31)%Z [(1%Z, VT 0)]); CLe (mkLin 0%Z [((-1)%Z, VT 1)]); CLe (mkLin 0%Z [(1%Z, VT 1)]); CLe (mkLin 0%Z [((-1)%Z, VT 2)]); CLe (mkLin 0%Z [(1%Z, VT 2)])], Some ((0%Z, 0%Z, 0%Z), 0%Z, 1%Z), None, 4%Z, None), 1%Z)].

Lemma root_ok : check_root G tab body tree bound = true.
Proof. vm_compute. reflexivity. Qed.

Theorem warp_bound : forall (F : fmodel) (ps : nat -> val) (arrays : nat -> Z -> val)
  (w : nat) (s' : store) (C : Q)
  (params_typed : pok G ps) (launch_facts : launch_ok G ps)
  (warp_nonempty : lanes G w <> [])
  (terminates_no_runtime_error : seval G F ps (init_store G arrays) body (lanes G w) s' C),
  (C <= pval (rho_params ps) bound)%Q.
Proof. exact (bound_sound G tab body tree bound root_ok). Qed.

(* Tightness, by the Coq interpreter [Exec.run] (sound for [seval]: [Exec.run_sound]) of
   warp 0 at three parameter points: the cost equals the bound, which the hand count gives
   as 4 rounds (n = 100, gridDim.x = 1, blockIdx.x = 0: i = 0, 32, 64, 96), 2 rounds
   (n = 100, gridDim.x = 2, blockIdx.x = 1: i = 32, 96) and no round (n = 10,
   gridDim.x = 2, blockIdx.x = 1: i = 32 ≥ n). *)
Definition pts (n g b : Z) : nat -> val := fun p => nth p [VInt n; VInt g; VInt b] (VInt 0%Z).
Definition tight (n g b : Z) (c : Q) : bool :=
  match Exec.run G f64 (pts n g b) (fun _ _ => VInt 0%Z) body 0 1000 with
  | Some C => Qeq_bool C c && Qeq_bool (pval (rho_params (pts n g b)) bound) c
  | None => false
  end.
Lemma tight_4 : tight 100 1 0 4 = true.
Proof. vm_compute. reflexivity. Qed.
Lemma tight_2 : tight 100 2 1 2 = true.
Proof. vm_compute. reflexivity. Qed.
Lemma tight_0 : tight 10 2 1 0 = true.
Proof. vm_compute. reflexivity. Qed.

Print Assumptions warp_bound.

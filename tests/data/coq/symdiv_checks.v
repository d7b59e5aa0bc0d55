(* Hand-written checks (symdivcoq20) of the checker functions of symbolic floor atoms
   ([Logic.sdiv_wf], [Logic.sdiv_pos], [Logic.rw_ok] on [RSShift]/[RSZero]/[RSMono],
   [Check.rws_gd], [Lin.acanon] of [KFloorS]) at the loop-body node of grid_stride_symdiv.v:
   [P] = the launch facts (indices 0–8; 7 is [1 − gridDim.x ≤ 0]), [t = 32·gridDim.x] (9),
   the loop condition [i − n + 1 ≤ 0] (10).  Each lemma is decided by [vm_compute]. *)
From Coq Require Import ZArith QArith List.
From WarpCert Require Import Metric Syntax Semantics Lin Logic Soundness Check.
Import ListNotations.
Open Scope Q_scope.
Open Scope nat_scope.

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

Definition PB : list cstr := [CLe (mkLin 0%Z [((-1)%Z, VT 0)]); CLe (mkLin (-31)%Z [(1%Z, VT 0)]); CLe (mkLin 0%Z [((-1)%Z, VT 1)]); CLe (mkLin 0%Z [(1%Z, VT 1)]); CLe (mkLin 0%Z [((-1)%Z, VT 2)]); CLe (mkLin 0%Z [(1%Z, VT 2)]); CLe (mkLin 0%Z [((-1)%Z, VP 2)]); CLe (mkLin 1%Z [((-1)%Z, VP 1)]); CLe (mkLin 1%Z [(1%Z, VP 2); ((-1)%Z, VP 1)]); CEq (mkLin 0%Z [(1%Z, VL 1); ((-32)%Z, VP 1)]); CLe (mkLin 1%Z [(1%Z, VL 0); ((-1)%Z, VP 0)])].
(* [PB] without the launch fact [1 − gridDim.x ≤ 0] (replaced by a trivial [0 ≤ 0]). *)
Definition PB_nogrid : list cstr := [CLe (mkLin 0%Z [((-1)%Z, VT 0)]); CLe (mkLin (-31)%Z [(1%Z, VT 0)]); CLe (mkLin 0%Z [((-1)%Z, VT 1)]); CLe (mkLin 0%Z [(1%Z, VT 1)]); CLe (mkLin 0%Z [((-1)%Z, VT 2)]); CLe (mkLin 0%Z [(1%Z, VT 2)]); CLe (mkLin 0%Z [((-1)%Z, VP 2)]); CLe (mkLin 0%Z []); CLe (mkLin 1%Z [(1%Z, VP 2); ((-1)%Z, VP 1)]); CEq (mkLin 0%Z [(1%Z, VL 1); ((-32)%Z, VP 1)]); CLe (mkLin 1%Z [(1%Z, VL 0); ((-1)%Z, VP 0)])].
Definition Dg : lin := mkLin 0%Z [(32%Z, VP 1)].
(* L = n − i + 32g − 1, L1 = n − i − 1, L2 = n − i − t + 32g − 1 *)
Definition L : lin := mkLin (-1)%Z [(1%Z, VP 0); ((-1)%Z, VL 0); (32%Z, VP 1)].
Definition L1 : lin := mkLin (-1)%Z [(1%Z, VP 0); ((-1)%Z, VL 0)].
Definition L2 : lin := mkLin (-1)%Z [(1%Z, VP 0); ((-1)%Z, VL 0); ((-1)%Z, VL 1); (32%Z, VP 1)].

(* ishift with K = 1: target 32g − L = i − n + 1 ≤ 0, the loop condition. *)
Lemma shift_ok : rw_ok PB (RSShift L Dg 1%Z ([], (1%Z, [(10, 1%Z)]))) = true.
Proof. vm_compute. reflexivity. Qed.
(* K off by one: 64g − L = 32g + i − n + 1 ≤ 0 does not follow. *)
Lemma shift_k2_refused : rw_ok PB (RSShift L Dg 2%Z ([], (1%Z, [(10, 1%Z)]))) = false.
Proof. vm_compute. reflexivity. Qed.
(* K = 0 with its own witness ([−L ≤ 0]: the loop condition plus 32 times [1 − g ≤ 0]) is a
   valid rewrite (it pays nothing: grid_stride_symdiv's mutant [k0] is refused by [pot_ge]). *)
Lemma shift_k0_ok : rw_ok PB (RSShift L Dg 0%Z ([], (1%Z, [(10, 1%Z); (7, 32%Z)]))) = true.
Proof. vm_compute. reflexivity. Qed.
(* a negative K. *)
Lemma shift_kneg_refused : rw_ok PB (RSShift L Dg (-1)%Z ([], (1%Z, [(10, 1%Z)]))) = false.
Proof. vm_compute. reflexivity. Qed.
(* ishift needs D ≥ 1: refused when P lacks the launch fact of gridDim.x. *)
Lemma shift_nofact_refused : rw_ok PB_nogrid (RSShift L Dg 1%Z ([], (1%Z, [(10, 1%Z)]))) = false.
Proof. vm_compute. reflexivity. Qed.
(* imono: L2 − L1 = 32g − t ≤ 0 from t = 32g (an equality, multiplier −1). *)
Lemma mono_ok : rw_ok PB (RSMono L1 L2 Dg ([], (1%Z, [(9, (-1)%Z)]))) = true.
Proof. vm_compute. reflexivity. Qed.
(* izero: L − D + 1 = n − i ≤ 0 does not follow from i < n. *)
Lemma zero_refused : rw_ok PB (RSZero L Dg ([], (1%Z, [(10, 1%Z)]))) = false.
Proof. vm_compute. reflexivity. Qed.
(* izero of ⌊(i − n + 1)/32g⌋⁺: L − D + 1 = i − n + 2 − 32g ≤ 0 from i < n and g ≥ 1. *)
Lemma zero_ok : rw_ok PB (RSZero (mkLin 1%Z [(1%Z, VL 0); ((-1)%Z, VP 0)]) Dg
                                  ([], (1%Z, [(10, 1%Z); (7, 32%Z)]))) = true.
Proof. vm_compute. reflexivity. Qed.
(* Well-formed divisors: parameters with positive coefficients, at least one, constant ≥ 0. *)
Lemma wf_ok : sdiv_wf (mkLin 3%Z [(32%Z, VP 1)]) = true.
Proof. vm_compute. reflexivity. Qed.
Lemma wf_local_refused : sdiv_wf (mkLin 0%Z [(32%Z, VL 1)]) = false.
Proof. vm_compute. reflexivity. Qed.
Lemma wf_negcoef_refused : sdiv_wf (mkLin 0%Z [((-32)%Z, VP 1)]) = false.
Proof. vm_compute. reflexivity. Qed.
Lemma wf_negconst_refused : sdiv_wf (mkLin (-1)%Z [(32%Z, VP 1)]) = false.
Proof. vm_compute. reflexivity. Qed.
Lemma wf_constant_refused : sdiv_wf (mkLin 32%Z []) = false.
Proof. vm_compute. reflexivity. Qed.
(* Q:WEAK's divisor check: gridDim.x (parameter 1) passes, blockIdx.x (2) and n (0) do not. *)
Lemma gd_ok : rws_gd G [RSMono L1 L2 Dg ([], (1%Z, [(9, (-1)%Z)]))] = true.
Proof. vm_compute. reflexivity. Qed.
Lemma gd_blockidx_refused :
  rws_gd G [RSMono L1 L2 (mkLin 0%Z [(32%Z, VP 2)]) ([], (1%Z, [(9, (-1)%Z)]))] = false.
Proof. vm_compute. reflexivity. Qed.
Lemma gd_param_refused : rws_gd G [RSZero L (mkLin 0%Z [(1%Z, VP 0)]) ([], (1%Z, []))] = false.
Proof. vm_compute. reflexivity. Qed.
(* Canonical atoms: ⌊2L/2D⌋⁺ is ⌊L/D⌋⁺; a constant divisor 32 gives the floor atom ⌊L/32⌋⁺. *)
Lemma canon_gcd : acanon (mkAtmK (lscale 2 L) 1 (KFloorS (lscale 2 Dg))) = acanon (mkAtmK L 1 (KFloorS Dg)).
Proof. vm_compute. reflexivity. Qed.
Lemma canon_const : acanon (mkAtmK L 1 (KFloorS (mkLin 32%Z []))) = fcanon L 32.
Proof. vm_compute. reflexivity. Qed.

Print Assumptions shift_ok.

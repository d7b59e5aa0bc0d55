(** * Floor atoms and Chvátal–Gomory cuts (issue 14)

    spec/logic.md §1 "Floor atoms", spec/certificate.md "Integer rewrites".  A floor atom
    is [max(0, ⌊L/d⌋)] for an integer-valued linear form [L] and an integer [d > 0]
    ([Z.div] rounds towards −∞, as [⌊·⌋]).  This file proves the arithmetic facts the
    kernel's integer rewrites rely on:

    - the two defining facts of [q = ⌊L/d⌋] ([floor_def_lower], [floor_def_upper]);
    - the Chvátal–Gomory cut ([cg_cut]): a combination [S = t + b/m] of valid facts
      ([m > 0] the common denominator of the multipliers, [t] the integral variable part,
      [b] the scaled constant) with [S ≤ 0] gives [t + ⌈b/m⌉ ≤ 0];
    - the rewrites [ishift], [izero], [imono] on [max(0, arg)] ([ishift_sound],
      [izero_sound], [imono_sound]) and the floor form of the shift ([floor_shift]);
    - canonical forms ([fatom_canonical]), monotonicity ([fatom_mono], which the
      bounding substitution of Q:VWRITE1 needs) and the loop step of a counter with
      constant step [c] ([step_round]).

    Logic.v's potentials have floor atoms ([Lin.atm]) and its Q:WEAK the integer rewrites
    ([RIShift], [RIZero], [RIMono]); IntRw.v proves them sound with these lemmas. *)
From Coq Require Import ZArith Lia.
Local Open Scope Z_scope.

(** The value of the floor atom [⌊L/d⌋⁺]. *)
Definition fatom (L d : Z) : Z := Z.max 0 (L / d).

Lemma fatom_nonneg : forall L d, 0 <= fatom L d.
Proof. intros; unfold fatom; lia. Qed.

(** [max(0, ⌊L/d⌋) = ⌊max(0, L)/d⌋]: the printed and the certificate's readings agree. *)
Lemma fatom_max0 : forall L d, 0 < d -> fatom L d = Z.max 0 L / d.
Proof.
  intros L d Hd; unfold fatom.
  destruct (Z.le_gt_cases 0 L) as [H|H].
  - rewrite (Z.max_r 0 L H). apply Z.max_r. apply Z.div_pos; lia.
  - rewrite (Z.max_l 0 L) by lia. rewrite Z.div_0_l by lia.
    apply Z.max_l. apply Z.div_le_upper_bound; lia.
Qed.

(** ** Defining facts of [q = ⌊L/d⌋]: [d·q − L ≤ 0] and [L − d·q − (d − 1) ≤ 0]. *)
Lemma floor_def_lower : forall L d, 0 < d -> d * (L / d) - L <= 0.
Proof. intros L d Hd. pose proof (Z.mul_div_le L d Hd). lia. Qed.

Lemma floor_def_upper : forall L d, 0 < d -> L - d * (L / d) - (d - 1) <= 0.
Proof.
  intros L d Hd.
  pose proof (Z.div_mod L d ltac:(lia)) as E.
  pose proof (Z.mod_pos_bound L d Hd). lia.
Qed.

(** Conversely the two facts determine [q]: an integer [q] with [d·q ≤ L ≤ d·q + d − 1]
    is [⌊L/d⌋]. *)
Lemma floor_def_unique : forall L d q,
  0 < d -> d * q - L <= 0 -> L - d * q - (d - 1) <= 0 -> q = L / d.
Proof.
  intros L d q Hd H1 H2. apply Z.div_unique with (r := L - d * q); lia.
Qed.

(** ** The Chvátal–Gomory cut.  [S = Σ λᵢ·Lᵢ ≤ 0] with integer coefficients on the
    variables is [t + b/m ≤ 0], [t] the integer value of the variable part and [b/m] the
    constant ([m > 0]); then [t + ⌈b/m⌉ ≤ 0], where [⌈b/m⌉ = (b + m − 1) / m]. *)
Lemma ceil_div : forall b m, 0 < m -> m * ((b + m - 1) / m) >= b /\ m * ((b + m - 1) / m) - m < b.
Proof.
  intros b m Hm.
  pose proof (Z.div_mod (b + m - 1) m ltac:(lia)) as E.
  pose proof (Z.mod_pos_bound (b + m - 1) m Hm). lia.
Qed.

Theorem cg_cut : forall m t b, 0 < m -> m * t + b <= 0 -> t + (b + m - 1) / m <= 0.
Proof.
  intros m t b Hm H.
  pose proof (ceil_div b m Hm) as [_ H2].
  set (c := (b + m - 1) / m) in *.
  (* m·(t + c) < m + m·t + b ≤ m, hence t + c < 1 *)
  assert (m * (t + c) < m) by lia.
  destruct (Z.le_gt_cases (t + c) 0) as [Hle|Hgt]; [exact Hle|].
  assert (m * (t + c) >= m * 1) by (apply Z.le_ge, Z.mul_le_mono_nonneg_l; lia). lia.
Qed.

(** The cut is the best integer consequence: it does not round past [⌈b/m⌉]. *)
Lemma cg_cut_tight : forall m b, 0 < m -> m * (- ((b + m - 1) / m)) + b <= 0.
Proof. intros m b Hm. pose proof (ceil_div b m Hm) as [H1 _]. lia. Qed.

(** ** The integer rewrites on an atom [max(0, arg)]. *)
Lemma ishift_sound : forall q D, 0 <= D -> D <= q -> Z.max 0 q = Z.max 0 (q - D) + D.
Proof. intros; lia. Qed.

Lemma izero_sound : forall q, q <= 0 -> Z.max 0 q = 0.
Proof. intros; lia. Qed.

Lemma imono_sound : forall q1 q2, q2 <= q1 -> Z.max 0 q2 <= Z.max 0 q1.
Proof. intros; lia. Qed.

(** [⌊L/d⌋ − D = ⌊(L − d·D)/d⌋] for an integer [D]: the shifted floor atom. *)
Lemma floor_shift : forall L d D, 0 < d -> (L - d * D) / d = L / d - D.
Proof.
  intros L d D Hd.
  replace (L - d * D) with (- D * d + L) by lia.
  rewrite Z.div_add_l by lia. lia.
Qed.

Theorem fatom_shift : forall L d D,
  0 < d -> 0 <= D -> D <= L / d -> fatom L d = fatom (L - d * D) d + D.
Proof.
  intros L d D Hd HD Hq. unfold fatom. rewrite floor_shift by exact Hd.
  apply ishift_sound; assumption.
Qed.

(** ** Canonical forms and monotonicity. *)
Lemma fatom_canonical : forall k L d, 0 < k -> 0 < d -> fatom (k * L) (k * d) = fatom L d.
Proof.
  intros k L d Hk Hd. unfold fatom. rewrite Z.div_mul_cancel_l by lia. reflexivity.
Qed.

Lemma fatom_mono : forall L1 L2 d, 0 < d -> L1 <= L2 -> fatom L1 d <= fatom L2 d.
Proof.
  intros L1 L2 d Hd H. unfold fatom.
  pose proof (Z.div_le_mono L1 L2 d Hd H). lia.
Qed.

(** ** The loop step.  [for (i = a; i < n; i += c)] with [c > 0]: under [i < n] the atom
    [⌊(n − i + c − 1)/c⌋⁺] is one more than after [i ← i + c] — what the kernel derives
    with one cut (spec/logic.md §1) — so it pays one round. *)
Theorem step_round : forall n i c, 0 < c -> i < n ->
  fatom (n - i + c - 1) c = fatom (n - (i + c) + c - 1) c + 1.
Proof.
  intros n i c Hc Hlt.
  (* q ≥ 1: the cut of spec/logic.md §1 from i − n + 1 ≤ 0 and n − i − c·q ≤ 0 *)
  pose proof (floor_def_upper (n - i + c - 1) c Hc) as Hu.
  set (q := (n - i + c - 1) / c) in *.
  assert (Hq : 1 <= q).
  { pose proof (cg_cut c (- q) 1 Hc ltac:(lia)) as Hcut.
    replace ((1 + c - 1) / c) with 1 in Hcut by (rewrite Z.add_comm, Z.add_simpl_r, Z.div_same; lia).
    lia. }
  replace (n - (i + c) + c - 1) with ((n - i + c - 1) - c * 1) by lia.
  apply fatom_shift; [exact Hc | lia | fold q; lia].
Qed.

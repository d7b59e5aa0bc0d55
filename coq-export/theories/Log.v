(** * Log atoms (issue 15)

    spec/logic.md §1 "Log atoms", §4 "Halving", spec/certificate.md "Log rewrites".  A log
    atom [⌊log2 L⌋⁺] has the value [⌊log2 max(1, ⌊L⌋)⌋], which is Coq's [Z.log2 ⌊L⌋]
    ([Z.log2] is 0 on arguments [≤ 1]).  A rational form [L] is read as [L'/s] with an
    integer form [L'] and a positive scale [s] (as the export writes rational floor forms),
    so the value is [Z.log2 (L' / s)] ([Z.div] rounds towards −∞, as [⌊·⌋]).  This file
    proves the arithmetic facts the kernel relies on:

    - the atom is non-negative ([latom_nonneg]), monotone in its form ([latom_mono]) and at
      most [max(0, L − 1)] on integers ([latom_le_lin]);
    - the rewrite [lhalve]: [L ≥ 2] gives [⌊log2 L⌋ = 1 + ⌊log2 (L/2)⌋] ([lhalve_sound],
      on integers [log2_halve]);
    - the bounding substitution of Q:VWRITE1 in log atoms: the new value [v = ⌊A/d⌋] of
      [x ← a >> c] ([d = 2^c], [shr_div]) or [x ← a / c] under [A ≥ 1] has [d·v ≤ A], so
      the atom of [k·x + R] ([k > 0]) after the assignment is at most the atom of
      [k·A/d + R] before it ([log_bsubst_le]);
    - the loop step of [for (s = n; s > 0; s >>= 1)]: [⌊log2 2s⌋ = 1 + ⌊log2 2⌊s/2⌋⌋]
      under [s ≥ 1] ([halving_round]), so [⌊log2 2n⌋⁺] counts the rounds exactly
      ([halving_rounds]).

    Not yet done (issue 15): Lin.v's atoms, Logic.v's Q:WEAK and Q:VWRITE1, Soundness.v and
    the export (src/export/coq.rs) have no log atoms; these lemmas are what their soundness
    proofs need. *)
From Coq Require Import ZArith Lia.
Local Open Scope Z_scope.

(** The value of the log atom of the form [L/s] ([L] the integer numerator, [s > 0]). *)
Definition latom (L s : Z) : Z := Z.log2 (L / s).

Lemma latom_nonneg : forall L s, 0 <= latom L s.
Proof. intros; apply Z.log2_nonneg. Qed.

(** [⌊log2 max(1, z)⌋] is [Z.log2 z]: both are 0 for [z ≤ 1]. *)
Lemma log2_max1 : forall z, Z.log2 (Z.max 1 z) = Z.log2 z.
Proof.
  intros z. destruct (Z.le_gt_cases z 1) as [H|H].
  - rewrite Z.max_l by lia. rewrite Z.log2_1.
    destruct (Z.le_gt_cases z 0) as [H0|H0].
    + rewrite Z.log2_nonpos by lia. reflexivity.
    + replace z with 1 by lia. rewrite Z.log2_1. reflexivity.
  - rewrite Z.max_r by lia. reflexivity.
Qed.

Lemma latom_mono : forall L1 L2 s, 0 < s -> L1 <= L2 -> latom L1 s <= latom L2 s.
Proof.
  intros L1 L2 s Hs H. unfold latom. apply Z.log2_le_mono. apply Z.div_le_mono; lia.
Qed.

(** On an integer form: [⌊log2 L⌋⁺ ≤ max(0, L − 1)] (a log atom is below the [max0] atom
    of the linear bound it replaces). *)
Lemma latom_le_lin : forall L, Z.log2 L <= Z.max 0 (L - 1).
Proof.
  intros L. destruct (Z.le_gt_cases L 0) as [H|H].
  - rewrite Z.log2_nonpos by lia. lia.
  - pose proof (Z.log2_lt_lin L H). lia.
Qed.

(** ** The rewrite [lhalve]. *)
Lemma log2_halve : forall z, 2 <= z -> Z.log2 z = 1 + Z.log2 (z / 2).
Proof.
  intros z Hz.
  pose proof (Z.div_mod z 2 ltac:(lia)) as E.
  pose proof (Z.mod_pos_bound z 2 ltac:(lia)) as B.
  assert (Hq : 0 < z / 2) by (apply Z.div_str_pos; lia).
  destruct (Z.eq_dec (z mod 2) 0) as [R|R].
  - rewrite R, Z.add_0_r in E. rewrite E at 1. rewrite Z.log2_double by exact Hq. lia.
  - assert (R1 : z mod 2 = 1) by lia. rewrite R1 in E. rewrite E at 1.
    rewrite Z.log2_succ_double by exact Hq. lia.
Qed.

(** [(lhalve L …)] on the form [L/s]: [L/s ≥ 2] gives
    [latom L s = 1 + latom L (2s)] ([⌊L/(2s)⌋ = ⌊⌊L/s⌋/2⌋]). *)
Theorem lhalve_sound : forall L s, 0 < s -> 2 * s <= L -> latom L s = 1 + latom L (2 * s).
Proof.
  intros L s Hs H. unfold latom.
  assert (H2 : 2 <= L / s).
  { apply Z.div_le_lower_bound; lia. }
  rewrite (log2_halve (L / s) H2).
  rewrite Z.div_div by lia. rewrite (Z.mul_comm s 2). reflexivity.
Qed.

(** ** The bounding substitution of Q:VWRITE1 in log atoms. *)

(** An arithmetic shift right by [c] is the floor division by [2^c]. *)
Lemma shr_div : forall a c, 0 <= c -> Z.shiftr a c = a / 2 ^ c.
Proof. intros a c Hc. apply Z.shiftr_div_pow2; exact Hc. Qed.

(** The new value [v = ⌊A/d⌋] has [d·v ≤ A] (and [0 ≤ v] when [A ≥ 1]). *)
Lemma halved_le : forall A d, 0 < d -> d * (A / d) <= A.
Proof. intros A d Hd. apply Z.mul_div_le; exact Hd. Qed.

(** The atom of [(k·x + R)/s] at [x = v] with [d·v ≤ A], [k > 0], is at most the atom of
    [(k·A/d + R)/s = (k·A + d·R)/(s·d)]: the kernel's [L[x ← A/d]] (with the form's
    common denominator [s·d]). *)
Theorem log_bsubst_le : forall k v A d R s,
  0 < k -> 0 < d -> 0 < s -> d * v <= A ->
  latom (k * v + R) s <= latom (k * A + d * R) (s * d).
Proof.
  intros k v A d R s Hk Hd Hs Hv. unfold latom.
  apply Z.log2_le_mono.
  rewrite <- (Z.div_mul_cancel_l (k * v + R) s d) by lia.
  rewrite (Z.mul_comm s d).
  apply Z.div_le_mono; [lia|]. nia.
Qed.

(** A negative coefficient: [x ← 0] bounds the atom, as [v ≥ 0]. *)
Theorem log_bsubst_neg : forall k v R s,
  k < 0 -> 0 < s -> 0 <= v -> latom (k * v + R) s <= latom R s.
Proof. intros k v R s Hk Hs Hv. apply latom_mono; nia. Qed.

(** ** The halving loop [for (s = n; s > 0; s >>= 1)]. *)

(** One round: under [s ≥ 1], [⌊log2 2s⌋ = 1 + ⌊log2 2⌊s/2⌋⌋]. *)
Theorem halving_round : forall s, 1 <= s -> Z.log2 (2 * s) = 1 + Z.log2 (2 * (s / 2)).
Proof.
  intros s Hs. rewrite Z.log2_double by lia.
  destruct (Z.eq_dec s 1) as [->|N].
  - reflexivity.
  - rewrite Z.log2_double by (apply Z.div_str_pos; lia).
    rewrite (log2_halve s) by lia. lia.
Qed.

(** The number of rounds of the halving loop from [s]. *)
Fixpoint rounds (fuel : nat) (s : Z) : Z :=
  match fuel with
  | O => 0
  | S f => if 0 <? s then 1 + rounds f (s / 2) else 0
  end.

(** With enough fuel (more than [s]) the loop runs [⌊log2 2s⌋⁺] rounds: [0] for [s ≤ 0],
    [⌊log2 s⌋ + 1] for [s ≥ 1]. *)
Theorem halving_rounds : forall fuel s, s < Z.of_nat fuel -> rounds fuel s = Z.log2 (2 * s).
Proof.
  induction fuel as [|f IH]; intros s Hs; cbn [rounds].
  - rewrite Z.log2_nonpos by lia. reflexivity.
  - destruct (Z.ltb_spec 0 s) as [H|H].
    + rewrite Nat2Z.inj_succ in Hs.
      assert (Hlt : s / 2 < s) by (apply Z.div_lt; lia).
      rewrite IH by lia.
      rewrite (halving_round s) by lia. lia.
    + rewrite Z.log2_nonpos by lia. reflexivity.
Qed.

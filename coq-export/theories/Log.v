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
      ([halving_rounds]);
    - quotient log atoms [⌊log2 (L/M)⌋⁺] ([qlatom], below): non-negative, monotone in [L],
      antitone in [M], the log atom of [L/d] for a constant [M = d] ([qlatom_const]); the
      rewrite [ldouble] ([ldouble_sound]) and the doubling loop's rounds
      ([doubling_rounds]: [⌊log2 (2(n − 1)/i)⌋⁺] rounds of [for (; i < n; i *= 2)]).

    Lin.v's atoms have the kinds [KLog] and [KLogQ M] (values [Z.log2 ⌊L/s⌋], resp.
    [qlatom ⌊L/s⌋ M]), Logic.v's Q:WEAK the rewrites [RLHalve], [RLDouble] (sound in
    Soundness.v [atom_lhalve], [atom_ldouble] by [lhalve_sound], [ldouble_sound]) and its
    Q:VWRITE1 the bounding substitution [x ← A/d] in log atoms (Shift.v [abound],
    [atom_bound_le], the arithmetic of [log_bsubst_le]); src/export/coq/ exports them. *)
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

(** * Quotient log atoms (issue 15, doubling loops)

    spec/logic.md §1 "Quotient log atoms", spec/certificate.md "Log rewrites" ([ldouble]).
    The atom [⌊log2 (L/M)⌋⁺] has the value [Z.log2 (⌊L⌋ / max(1, ⌊M⌋))]; here [l] is the
    integer [⌊L⌋] and [m] the integer [⌊M⌋] (the kernel's [ldouble] needs [M] with integer
    coefficients, so [⌊2M⌋ = 2m]). *)
Definition qlatom (l m : Z) : Z := Z.log2 (l / Z.max 1 m).

Lemma qlatom_nonneg : forall l m, 0 <= qlatom l m.
Proof. intros; apply Z.log2_nonneg. Qed.

(** A constant divisor [d ≥ 1] gives the log atom of [L/d] (the kernel's canonical form;
    [⌊⌊L⌋/d⌋ = ⌊L/d⌋]), in particular [d = 1] gives [⌊log2 L⌋⁺]. *)
Lemma qlatom_const : forall l d, 1 <= d -> qlatom l d = Z.log2 (l / d).
Proof. intros l d Hd. unfold qlatom. rewrite Z.max_r by lia. reflexivity. Qed.

Lemma qlatom_small : forall l d, d <= 1 -> qlatom l d = Z.log2 l.
Proof. intros l d Hd. unfold qlatom. rewrite Z.max_l by lia. rewrite Z.div_1_r. reflexivity. Qed.

Lemma qlatom_mono_l : forall l1 l2 m, l1 <= l2 -> qlatom l1 m <= qlatom l2 m.
Proof.
  intros l1 l2 m H. unfold qlatom. apply Z.log2_le_mono. apply Z.div_le_mono; lia.
Qed.

Lemma qlatom_anti_m : forall l m1 m2, m1 <= m2 -> qlatom l m2 <= qlatom l m1.
Proof.
  intros l m1 m2 H. unfold qlatom.
  destruct (Z.le_gt_cases l 0) as [Hl|Hl].
  - assert (A : l / Z.max 1 m2 <= 0) by (apply Z.div_le_upper_bound; lia).
    rewrite (Z.log2_nonpos (l / Z.max 1 m2)) by exact A. apply Z.log2_nonneg.
  - apply Z.log2_le_mono. apply Z.div_le_compat_l; lia.
Qed.

(** ** The rewrite [ldouble]: [m ≥ 1], [2m ≤ l] give
    [⌊log2 (l/m)⌋⁺ = 1 + ⌊log2 (l/2m)⌋⁺]. *)
Theorem ldouble_sound : forall l m, 1 <= m -> 2 * m <= l -> qlatom l m = 1 + qlatom l (2 * m).
Proof.
  intros l m Hm H. unfold qlatom.
  rewrite (Z.max_r 1 m) by lia. rewrite (Z.max_r 1 (2 * m)) by lia.
  assert (H2 : 2 <= l / m) by (apply Z.div_le_lower_bound; lia).
  rewrite (log2_halve (l / m) H2).
  rewrite Z.div_div by lia. rewrite (Z.mul_comm m 2). reflexivity.
Qed.

(** ** The doubling loop [for (i = …; i < n; i *= 2)]. *)

(** The number of rounds of the doubling loop from the counter value [i]. *)
Fixpoint drounds (fuel : nat) (n i : Z) : Z :=
  match fuel with
  | O => 0
  | S f => if i <? n then 1 + drounds f n (2 * i) else 0
  end.

(** Once [i ≥ n] the atom [⌊log2 (2(n − 1)/i)⌋⁺] is 0. *)
Lemma doubling_exit : forall n i, 1 <= i -> n <= i -> qlatom (2 * (n - 1)) i = 0.
Proof.
  intros n i Hi H. unfold qlatom. rewrite Z.max_r by lia.
  assert (B : 2 * (n - 1) / i < 2) by (apply Z.div_lt_upper_bound; lia).
  destruct (Z.le_gt_cases (2 * (n - 1) / i) 0) as [C|C].
  - apply Z.log2_nonpos; exact C.
  - replace (2 * (n - 1) / i) with 1 by lia. apply Z.log2_1.
Qed.

(** With enough fuel ([n ≤ i·2^fuel]) the loop runs [⌊log2 (2(n − 1)/i)⌋⁺] rounds from
    [i ≥ 1]: [⌈log2 n⌉ = ⌊log2 (2n − 2)⌋⁺] from [i = 1]. *)
Theorem doubling_rounds : forall fuel n i,
  1 <= i -> n <= i * 2 ^ Z.of_nat fuel -> drounds fuel n i = qlatom (2 * (n - 1)) i.
Proof.
  induction fuel as [|f IH]; intros n i Hi Hf; cbn [drounds].
  - cbn in Hf. rewrite doubling_exit by lia. reflexivity.
  - destruct (Z.ltb_spec i n) as [H|H].
    + rewrite Nat2Z.inj_succ, Z.pow_succ_r in Hf by lia.
      rewrite IH by lia.
      rewrite (ldouble_sound (2 * (n - 1)) i) by lia. reflexivity.
    + rewrite doubling_exit by lia. reflexivity.
Qed.

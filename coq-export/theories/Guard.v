(** * Guarded accesses: the charge and its potential (spec/logic.md §4 "Guarded accesses",
    Q:GWRITEGUARD / Q:VWRITEGUARD, issue 15)

    A global access whose active lanes all pass a guard [K·tid + c ≤ 0] is charged
    [R = N₀ + Σ_j C_j·[t_j ≤ −c]] ([gcharge] at [−c]). The potential writes each indicator
    as a difference of two floor atoms of the uniform part [L_u] (value [c]):
    [A⁺_j = ⌊(S − L_u − t_j)/S⌋⁺] ([gplus]) and [A⁻_j = ⌊(−L_u − t_j)/S⌋⁺] ([gminus]), by
    the identity [[F ≥ 1] = ⌊(F + S − 1)/S⌋⁺ − ⌊(F − 1)/S⌋⁺] for [S ≥ 1]
    ([floor_indicator]); [gpot_val] is the resulting equation on every state. The charge is
    non-decreasing in its argument when every [C_j ≥ 0] ([gcharge_mono]). The check of the
    charge against the kernel's [access::guard_table] and the soundness of the access bound
    are in Logic.v ([guard_ok_w], [guard_acc_w]) and Soundness.v ([guard_acc_sound]). *)
From Coq Require Import ZArith QArith List Bool Lia Lqa.
From WarpCert Require Import Lin.
Import ListNotations.

(** The charge [N₀ + Σ_j C_j·[t_j ≤ T]] of the terms [(C_j, t_j)] at [T]. *)
Definition gcharge (n0 : Z) (terms : list (Z * Z)) (T : Z) : Z :=
  (n0 + fold_right Z.add 0 (map (fun ct => if (snd ct <=? T)%Z then fst ct else 0%Z) terms))%Z.

Lemma gcharge_mono : forall n0 terms T1 T2,
  forallb (fun ct => 0 <=? fst ct)%Z terms = true -> (T1 <= T2)%Z ->
  (gcharge n0 terms T1 <= gcharge n0 terms T2)%Z.
Proof.
  intros n0 terms T1 T2 H HT. unfold gcharge. apply Z.add_le_mono_l.
  induction terms as [|[c t] terms IH]; cbn [map fold_right fst snd]; [lia|].
  cbn [forallb fst] in H. apply andb_true_iff in H as [Hc H]. apply Z.leb_le in Hc.
  specialize (IH H).
  destruct (Z.leb_spec t T1), (Z.leb_spec t T2); lia.
Qed.

(** The floor identity (spec/logic.md §4 "Guarded accesses"): for integers [F] and
    [S ≥ 1], [[F ≥ 1] = ⌊(F + S − 1)/S⌋⁺ − ⌊(F − 1)/S⌋⁺]. *)
Lemma floor_indicator : forall F S, (1 <= S)%Z ->
  (Z.max 0 ((F + S - 1) / S) - Z.max 0 ((F - 1) / S) = if (1 <=? F)%Z then 1 else 0)%Z.
Proof.
  intros F S HS.
  replace (F + S - 1)%Z with ((F - 1) + 1 * S)%Z by ring.
  rewrite Z.div_add by lia.
  destruct (Z.leb_spec 1 F) as [H|H].
  - assert (0 <= (F - 1) / S)%Z by (apply Z.div_pos; lia). lia.
  - assert ((F - 1) / S < 0)%Z by (apply Z.div_lt_upper_bound; lia). lia.
Qed.

(** The atom [⌊(c − L_u)/S⌋⁺]. *)
Definition gatom (Lu : lin) (S : positive) (c : Z) : atm :=
  mkAtm (ladd (lscale (-1) Lu) (mkLin c [])) S.
(** [N₀ + Σ_j C_j·A⁺_j] and [Σ_j C_j·A⁻_j]. *)
Definition gplus (Lu : lin) (S : positive) (n0 : Z) (terms : list (Z * Z)) : pot :=
  mkPot (inject_Z n0) (map (fun ct => (inject_Z (fst ct), [gatom Lu S (Zpos S - snd ct)])) terms).
Definition gminus (Lu : lin) (S : positive) (terms : list (Z * Z)) : pot :=
  mkPot 0 (map (fun ct => (inject_Z (fst ct), [gatom Lu S (- snd ct)])) terms).
(** [mg·Q1]. *)
Definition pscale (mg : Q) (Q1 : pot) : pot :=
  mkPot (mg * pcst Q1) (map (fun cm => (mg * fst cm, snd cm)) (pterms Q1)).

Lemma pscale_val : forall rho mg Q1, pval rho (pscale mg Q1) == mg * pval rho Q1.
Proof.
  intros rho mg [c l]. unfold pval, pscale; cbn [pcst pterms].
  induction l as [|[d m] l IH]; cbn [map psum fold_right fst snd]; [ring|].
  unfold psum in IH. lra.
Qed.

Lemma gatom_val : forall rho Lu S c,
  atom rho (gatom Lu S c) = inject_Z (Z.max 0 ((c - leval rho Lu) / Zpos S)).
Proof.
  intros rho Lu S c. unfold atom, gatom; cbn [akd alin adiv akval].
  rewrite ladd_eval, lscale_eval. unfold leval at 2. cbn [lcst lterms tsum fold_right].
  do 3 f_equal. ring.
Qed.

(** One term: [A⁺ = A⁻ + [t ≤ −L_u]]. *)
Lemma gterm_val : forall rho Lu S t,
  atom rho (gatom Lu S (Zpos S - t)) ==
  atom rho (gatom Lu S (- t)) + inject_Z (if (t <=? - leval rho Lu)%Z then 1 else 0)%Z.
Proof.
  intros rho Lu S t. rewrite !gatom_val, <- inject_Z_plus. apply inject_Z_injective.
  pose proof (floor_indicator (1 - t - leval rho Lu) (Zpos S) ltac:(lia)) as E.
  replace (1 - t - leval rho Lu + Zpos S - 1)%Z with (Zpos S - t - leval rho Lu)%Z in E by ring.
  replace (1 - t - leval rho Lu - 1)%Z with (- t - leval rho Lu)%Z in E by ring.
  destruct (Z.leb_spec 1 (1 - t - leval rho Lu)), (Z.leb_spec t (- leval rho Lu)); lia.
Qed.

(** The potential equation: [N₀ + Σ_j C_j·A⁺_j = Σ_j C_j·A⁻_j + R] with
    [R = gcharge N₀ terms (−L_u)] on every state. *)
Lemma gpot_val : forall rho Lu S n0 terms,
  pval rho (gplus Lu S n0 terms) ==
  pval rho (gminus Lu S terms) + inject_Z (gcharge n0 terms (- leval rho Lu)).
Proof.
  intros rho Lu S n0 terms. unfold pval, gplus, gminus, gcharge; cbn [pcst pterms].
  rewrite inject_Z_plus.
  assert (H : psum rho (map (fun ct => (inject_Z (fst ct), [gatom Lu S (Zpos S - snd ct)])) terms) ==
              psum rho (map (fun ct => (inject_Z (fst ct), [gatom Lu S (- snd ct)])) terms) +
              inject_Z (fold_right Z.add 0%Z (map (fun ct => if (snd ct <=? - leval rho Lu)%Z
                                                           then fst ct else 0%Z) terms))).
  { induction terms as [|[c t] terms IH]; cbn [map psum fold_right fst snd mval]; [reflexivity|].
    unfold psum in IH. rewrite IH, inject_Z_plus, gterm_val.
    destruct (Z.leb_spec t (- leval rho Lu)); cbn [inject_Z]; unfold inject_Z; lra. }
  rewrite H. lra.
Qed.

(** A largest element of a non-empty list under [f]. *)
Lemma list_argmax : forall A (f : A -> Z) (l : list A), l <> [] ->
  exists a, In a l /\ forall b, In b l -> (f b <= f a)%Z.
Proof.
  intros A f l. induction l as [|x l IH]; intros H; [contradiction|].
  destruct l as [|y l'].
  - exists x. split; [left; auto|]. intros b [<-|[]]; lia.
  - destruct (IH ltac:(discriminate)) as [a [Ha Hb]].
    destruct (Z.le_gt_cases (f x) (f a)).
    + exists a. split; [right; auto|]. intros b [<-|Hb']; auto.
    + exists x. split; [left; auto|]. intros b [<-|Hb']; [lia|]. specialize (Hb b Hb'). lia.
Qed.

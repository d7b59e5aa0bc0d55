(** * The bounding substitutions of Q:VWRITE1 for halving assignments and products

    spec/logic.md §4, Q:VWRITE1 "Halving": for [x ← a >> c] ([1 ≤ c < 64]) or
    [x ← a / c] ([c ≥ 2]) under [a = A ≥ 1], the new value [v] lies in [[0, A − 1]].
    A linear form [L = k·x + L₀] then has [L(v) ≤ L⌈x ← e⌉], where [L⌈x ← e⌉] is
    [L[x ← A − 1]] for [k > 0] and [L[x ← 0]] otherwise; potentials without negative
    coefficients are monotone in their atoms (floor atoms too: [Floor.fatom_mono]), so [Q'(σ') ≤ Q'⌈x ← e⌉(σ)]. This file holds
    the definitions and the arithmetic; the rule itself is [Q_VWRITE1H] of Logic.v, its
    soundness [sound_Q_VWRITE1H] of Soundness.v.

    spec/logic.md §4, Q:VWRITE1 "Products": for [x ← a * b] under [a = A ≥ α] and
    [b = B ≥ β], the new value [v = A·B] is at least [F = β·A + α·B − α·β]
    ([(A − α)(B − β) ≥ 0]); a form [L] whose coefficient of [x] is not positive has
    [L(v) ≤ L[x ← F]] ([lsubst_lower_le]); the rule is [Q_VWRITE1P] of Logic.v, its
    soundness [sound_Q_VWRITE1P] of Soundness.v. *)

From Coq Require Import ZArith QArith List Bool Arith Lia Lqa.
From WarpCert Require Import Lin.
Import ListNotations.

(** The coefficient of [x] in a (not necessarily normalized) form. *)
Definition lcoef (x : var) (L : lin) : Z :=
  fold_right (fun av acc => if Nat.eqb (var_key (snd av)) (var_key x) then (fst av + acc)%Z
                            else acc) 0%Z (lterms L).

Lemma leval_upd_affine : forall rho x z L,
  leval (upd rho x z) L = (leval (upd rho x 0) L + lcoef x L * z)%Z.
Proof.
  intros rho x z [c l]; unfold leval, lcoef; simpl.
  induction l as [|[a v] l IH]; simpl; [lia|].
  unfold upd at 1 3. destruct (Nat.eqb (var_key v) (var_key x)); lia.
Qed.

(** [L⌈x ← e⌉] with [A = lin(a)]. *)
Definition bsubst (x : var) (A : lin) (L : lin) : lin :=
  if (0 <? lcoef x L)%Z then lsubst x (ladd A (mkLin (-1) [])) L else lsubst x (mkLin 0 []) L.

Lemma bsubst_le : forall rho x A L v, (0 <= v)%Z -> (v <= leval rho A - 1)%Z ->
  (leval (upd rho x v) L <= leval rho (bsubst x A L))%Z.
Proof.
  intros rho x A L v H0 H1. unfold bsubst.
  assert (Hc : forall k, leval rho (mkLin k []) = k) by (intros; unfold leval; simpl; lia).
  destruct (Z.ltb_spec 0 (lcoef x L)) as [Hk|Hk]; rewrite lsubst_eval.
  - rewrite (leval_upd_affine rho x v L),
      (leval_upd_affine rho x (leval rho (ladd A (mkLin (-1) []))) L), ladd_eval, Hc.
    assert (lcoef x L * v <= lcoef x L * (leval rho A + -1))%Z
      by (apply Z.mul_le_mono_nonneg_l; lia).
    lia.
  - rewrite (leval_upd_affine rho x v L), (leval_upd_affine rho x (leval rho (mkLin 0 [])) L), Hc.
    assert (lcoef x L * v <= 0)%Z by (apply Z.mul_nonpos_nonneg; lia). lia.
Qed.

(** Constraints of [P'] under the bounding substitution: those not mentioning [x] are
    kept, inequalities mentioning it are substituted, others have no substitute. *)
Definition bcsubst (x : var) (A : lin) (c : cstr) : option cstr :=
  if mentions x (cform c) then
    match c with CLe L => Some (CLe (bsubst x A L)) | _ => None end
  else Some c.

Lemma bcsubst_holds : forall rho x A c c' v, (0 <= v)%Z -> (v <= leval rho A - 1)%Z ->
  bcsubst x A c = Some c' -> holds rho c' -> holds (upd rho x v) c.
Proof.
  intros rho x A c c' v H0 H1 Hb Hh. unfold bcsubst in Hb.
  destruct (mentions x (cform c)) eqn:Em.
  - destruct c as [L|L|L m rs]; try discriminate. injection Hb as <-. simpl in *.
    pose proof (bsubst_le rho x A L v H0 H1). lia.
  - injection Hb as <-. destruct c as [L|L|L m rs]; simpl in *; rewrite leval_upd_notin; auto.
Qed.

(** A quotient log atom whose divisor form [M] does not mention [x] (log atoms are
    antitone in [M]: no bounding substitution applies there; the kernel's
    [divisor_mentions], [atoms_nonrising]). *)
Definition kfree (x : var) (a : atm) : bool :=
  match akd a with KLogQ M | KRes M _ | KWin M _ _ | KFloorS M => negb (mentions x M) | _ => true end.
Definition pdivfree (x : var) (Q1 : pot) : bool :=
  forallb (fun cm => forallb (kfree x) (snd cm)) (pterms Q1).

Lemma akval_upd_free : forall rho x z a q, kfree x a = true ->
  akval (upd rho x z) (akd a) q = akval rho (akd a) q.
Proof.
  intros rho x z [L d [| |M|M m|M m w|M]] q H; unfold kfree in H; cbn [akd akval] in *; auto.
  all: rewrite leval_upd_notin; auto; destruct (mentions x M); auto; discriminate.
Qed.

(** [L[x ← A/d]] of a log atom, multiplied by [d] (the atom's divisor multiplied by [d]):
    [d·L[x ← 0] + k·A], [k] the coefficient of [x] (spec/logic.md §4 "Halving"; the kernel's
    [log_bound_subst]). *)
Definition lbsub (x : var) (A : lin) (d : Z) (L : lin) : lin :=
  ladd (lscale d (lsubst x (mkLin 0 []) L)) (lscale (lcoef x L) A).

Definition is_log (a : atm) : bool := match akd a with KFl | KFloorS _ => false | _ => true end.

(** The bounding substitution of one atom: a log atom whose form rises with [x] gets
    [x ← A/d] (under [d·v ≤ A] for the new value [v]; [Log.log_bsubst_le]), every other
    atom [L⌈x ← e⌉] ([bsubst], its kind kept). *)
Definition abound (x : var) (A : lin) (d : Z) (a : atm) : atm :=
  if is_log a && (0 <? lcoef x (alin a))%Z
  then mkAtmK (lbsub x A d (alin a)) (adiv a * Z.to_pos d) (akd a)
  else mkAtmK (bsubst x A (alin a)) (adiv a) (akd a).

(** [Q'⌈x ← e⌉]: the bounding substitution in every atom. *)
Definition pbsubst (x : var) (A : lin) (d : Z) (Q1 : pot) : pot :=
  mkPot (pcst Q1) (map (fun cm => (fst cm, map (abound x A d) (snd cm))) (pterms Q1)).

Lemma atom_bound_le : forall rho x A d v a, (0 <= v)%Z -> (v <= leval rho A - 1)%Z ->
  (0 < d)%Z -> (d * v <= leval rho A)%Z -> kfree x a = true ->
  atom (upd rho x v) a <= atom rho (abound x A d a).
Proof.
  intros rho x A d v a H0 H1 Hd Hdv Hf. unfold abound.
  unfold atom; rewrite <- Zle_Qle. rewrite akval_upd_free by exact Hf.
  destruct (is_log a && (0 <? lcoef x (alin a)))%Z eqn:E; cbn [alin adiv akd].
  - apply andb_true_iff in E as [_ Hk]. apply Z.ltb_lt in Hk.
    apply akval_mono. rewrite Pos2Z.inj_mul, Z2Pos.id by lia.
    unfold lbsub. rewrite ladd_eval, !lscale_eval, lsubst_eval.
    rewrite (leval_upd_affine rho x v (alin a)).
    assert (E0 : leval rho (mkLin 0 []) = 0%Z) by (unfold leval; simpl; lia). rewrite E0.
    set (R := leval (upd rho x 0) (alin a)). set (k := lcoef x (alin a)).
    set (s := Zpos (adiv a)).
    assert (Hs : (0 < s)%Z) by (unfold s; lia).
    rewrite <- (Z.div_mul_cancel_l (R + k * v) s d) by lia.
    rewrite (Z.mul_comm s d). apply Z.div_le_mono; [lia|]. nia.
  - apply akval_mono. apply Z.div_le_mono; [lia|]. apply bsubst_le; auto.
Qed.

Lemma mval_bsubst_le : forall rho x A d v m, (0 <= v)%Z -> (v <= leval rho A - 1)%Z ->
  (0 < d)%Z -> (d * v <= leval rho A)%Z -> forallb (kfree x) m = true ->
  mval (upd rho x v) m <= mval rho (map (abound x A d) m).
Proof.
  intros rho x A d v m H0 H1 Hd Hdv. induction m as [|L m IH]; simpl; intros Hm; [lra|].
  apply andb_true_iff in Hm as [HL Hm].
  apply Qmult_le_compat_nonneg; split; auto using atom_nonneg, mval_nonneg.
  apply atom_bound_le; auto.
Qed.

Lemma pbsubst_le : forall rho x A d v Q1, (0 <= v)%Z -> (v <= leval rho A - 1)%Z ->
  (0 < d)%Z -> (d * v <= leval rho A)%Z -> pdivfree x Q1 = true ->
  forallb (fun cm => Qle_bool 0 (fst cm)) (pterms Q1) = true ->
  pval (upd rho x v) Q1 <= pval rho (pbsubst x A d Q1).
Proof.
  intros rho x A d v [c l] H0 H1 Hd Hdv Hf Hn. unfold pval, pbsubst, pdivfree in *; simpl in *.
  cut (psum (upd rho x v) l <= psum rho (map (fun cm => (fst cm, map (abound x A d) (snd cm))) l));
    [lra|].
  induction l as [|[e m] l IH]; simpl in *; [lra|].
  apply andb_true_iff in Hn as [He Hl]. apply Qle_bool_iff in He.
  apply andb_true_iff in Hf as [Hfm Hfl].
  specialize (IH Hfl Hl). pose proof (mval_bsubst_le rho x A d v m H0 H1 Hd Hdv Hfm).
  assert (e * mval (upd rho x v) m <= e * mval rho (map (abound x A d) m)).
  { apply Qmult_le_compat_nonneg; split; try lra. apply mval_nonneg. }
  lra.
Qed.

(** The value of a halving assignment: [0 ≤ a >> c ≤ a − 1] and [0 ≤ a / c ≤ a − 1] (C's
    truncating division) for [a ≥ 1]. *)
Lemma shiftr_halves : forall a c, (1 <= a)%Z -> (1 <= c)%Z ->
  (0 <= Z.shiftr a c /\ Z.shiftr a c <= a - 1)%Z.
Proof.
  intros a c Ha Hc. rewrite Z.shiftr_div_pow2 by lia.
  assert (1 < 2 ^ c)%Z by (apply Z.pow_gt_1; lia).
  split; [apply Z.div_pos; lia|]. pose proof (Z.div_lt a (2 ^ c)). lia.
Qed.

Lemma quot_halves : forall a c, (1 <= a)%Z -> (2 <= c)%Z ->
  (0 <= Z.quot a c /\ Z.quot a c <= a - 1)%Z.
Proof.
  intros a c Ha Hc. split; [apply Z.quot_pos; lia|]. pose proof (Z.quot_lt a c). lia.
Qed.

(** ** Products: the lower bounding substitution *)

(** [L[x ← F]] bounds [L] above at any [v ≥ F] when [x]'s coefficient is not positive. *)
Lemma lsubst_lower_le : forall rho x F L v, (leval rho F <= v)%Z -> (lcoef x L <= 0)%Z ->
  (leval (upd rho x v) L <= leval rho (lsubst x F L))%Z.
Proof.
  intros rho x F L v Hv Hk. rewrite lsubst_eval.
  rewrite (leval_upd_affine rho x v L), (leval_upd_affine rho x (leval rho F) L).
  assert (lcoef x L * v <= lcoef x L * leval rho F)%Z by (apply Z.mul_le_mono_nonpos_l; lia).
  lia.
Qed.

(** Constraints of [P'] under the lower bounding substitution: those not mentioning [x]
    are kept, inequalities whose coefficient of [x] is negative are substituted, others
    have no substitute. *)
Definition lcsubst (x : var) (F : lin) (c : cstr) : option cstr :=
  if mentions x (cform c) then
    match c with CLe L => if (lcoef x L <=? 0)%Z then Some (CLe (lsubst x F L)) else None | _ => None end
  else Some c.

Lemma lcsubst_holds : forall rho x F c c' v, (leval rho F <= v)%Z ->
  lcsubst x F c = Some c' -> holds rho c' -> holds (upd rho x v) c.
Proof.
  intros rho x F c c' v Hv Hb Hh. unfold lcsubst in Hb.
  destruct (mentions x (cform c)) eqn:Em.
  - destruct c as [L|L|L m rs]; try discriminate.
    destruct (Z.leb_spec (lcoef x L) 0) as [Hk|Hk]; [|discriminate].
    injection Hb as <-. simpl in *. pose proof (lsubst_lower_le rho x F L v Hv Hk). lia.
  - injection Hb as <-. destruct c as [L|L|L m rs]; simpl in *; rewrite leval_upd_notin; auto.
Qed.

(** Whether no atom of a potential rises with [x]. *)
Definition pfalls (x : var) (Q1 : pot) : bool :=
  forallb (fun cm => forallb (fun a => (lcoef x (alin a) <=? 0)%Z && kfree x a) (snd cm)) (pterms Q1).

(** [Q'[x ← F]]: the substitution in every atom. *)
Definition plsubst (x : var) (F : lin) (Q1 : pot) : pot :=
  mkPot (pcst Q1) (map (fun cm => (fst cm, map (amap (lsubst x F)) (snd cm))) (pterms Q1)).

Lemma mval_lsubst_le : forall rho x F v m, (leval rho F <= v)%Z ->
  forallb (fun a => (lcoef x (alin a) <=? 0)%Z && kfree x a) m = true ->
  mval (upd rho x v) m <= mval rho (map (amap (lsubst x F)) m).
Proof.
  intros rho x F v m Hv. induction m as [|L m IH]; simpl; intros Hm; [lra|].
  apply andb_true_iff in Hm as [HL Hm]. apply andb_true_iff in HL as [HL Hk]. apply Z.leb_le in HL.
  apply Qmult_le_compat_nonneg; split; auto using atom_nonneg, mval_nonneg.
  unfold atom, amap; cbn [alin adiv akd]. rewrite <- Zle_Qle.
  rewrite akval_kmap_subst. rewrite (akval_upd_free rho x (leval rho F) L) by exact Hk.
  rewrite (akval_upd_free rho x v L) by exact Hk.
  apply akval_mono.
  pose proof (lsubst_lower_le rho x F (alin L) v Hv HL).
  apply Z.div_le_mono; lia.
Qed.

Lemma plsubst_le : forall rho x F v Q1, (leval rho F <= v)%Z -> pfalls x Q1 = true ->
  forallb (fun cm => Qle_bool 0 (fst cm)) (pterms Q1) = true ->
  pval (upd rho x v) Q1 <= pval rho (plsubst x F Q1).
Proof.
  intros rho x F v [c l] Hv Hf Hn. unfold pval, plsubst, pfalls in *; simpl in *.
  cut (psum (upd rho x v) l <= psum rho (map (fun cm => (fst cm, map (amap (lsubst x F)) (snd cm))) l));
    [lra|].
  induction l as [|[d m] l IH]; simpl in *; [lra|].
  apply andb_true_iff in Hn as [Hd Hl]. apply Qle_bool_iff in Hd.
  apply andb_true_iff in Hf as [Hfm Hfl].
  specialize (IH Hfl Hl). pose proof (mval_lsubst_le rho x F v m Hv Hfm).
  assert (d * mval (upd rho x v) m <= d * mval rho (map (amap (lsubst x F)) m)).
  { apply Qmult_le_compat_nonneg; split; try lra. apply mval_nonneg. }
  lra.
Qed.

(** The product's lower bound: [(a − α)(b − β) ≥ 0] for [a ≥ α], [b ≥ β]. *)
Lemma mul_floor : forall a b al be, (al <= a)%Z -> (be <= b)%Z ->
  (be * a + al * b - al * be <= a * b)%Z.
Proof. intros a b al be Ha Hb. nia. Qed.

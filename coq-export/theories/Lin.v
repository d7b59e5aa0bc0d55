(** * Linear forms, constraints, Farkas witnesses and linear potentials
    (spec/certificate.md "Linear forms, constraints, assertions"; spec/logic.md §1)

    Linear forms have integer coefficients: the exporter scales every
    constraint [L ≤ 0] / [L = 0] of a certificate by a positive integer (which
    does not change its meaning) and every Farkas witness accordingly.
    Potentials are linear: [c + Σ cᵢ·max(0, Lᵢ)] with rational [c], [cᵢ]
    (every committed certificate has such potentials; the exporter rejects
    products of atoms with a clear error). *)
From Coq Require Import ZArith QArith Qreduction List Bool Arith Lia Lqa.
Import ListNotations.
Local Open Scope Z_scope.

(** Variables of linear forms: [int] locals, [int] parameters, [threadIdx.d]. *)
Inductive var := VL (x : nat) | VP (p : nat) | VT (d : nat).

Definition var_key (v : var) : nat :=
  match v with VL x => 3 * x | VP p => 3 * p + 1 | VT d => 3 * d + 2 end.

Lemma var_key_inj : forall v w, var_key v = var_key w -> v = w.
Proof. intros [x|x|x] [y|y|y]; simpl; intros H; f_equal; lia. Qed.

Record lin := mkLin { lcst : Z; lterms : list (Z * var) }.

Definition tsum (rho : var -> Z) (l : list (Z * var)) : Z :=
  fold_right (fun av acc => (fst av * rho (snd av) + acc)%Z) 0%Z l.

Definition leval (rho : var -> Z) (L : lin) : Z := (lcst L + tsum rho (lterms L))%Z.

Lemma tsum_app : forall rho l1 l2, tsum rho (l1 ++ l2) = (tsum rho l1 + tsum rho l2)%Z.
Proof. intros rho l1 l2; induction l1 as [|[a v] l1 IH]; simpl; lia. Qed.

(** ** Normalization: terms sorted by [var_key], equal variables merged, zeros dropped. *)
Fixpoint tinsert (a : Z) (v : var) (l : list (Z * var)) : list (Z * var) :=
  match l with
  | [] => if (a =? 0)%Z then [] else [(a, v)]
  | (b, w) :: l' =>
      match Nat.compare (var_key v) (var_key w) with
      | Eq => if (a + b =? 0)%Z then l' else (a + b, w) :: l'
      | Lt => if (a =? 0)%Z then l else (a, v) :: l
      | Gt => (b, w) :: tinsert a v l'
      end
  end.

Lemma tinsert_sum : forall rho a v l, tsum rho (tinsert a v l) = (a * rho v + tsum rho l)%Z.
Proof.
  intros rho a v l; induction l as [|[b w] l IH]; simpl.
  - destruct (Z.eqb_spec a 0); simpl; subst; lia.
  - destruct (Nat.compare_spec (var_key v) (var_key w)) as [E|E|E].
    + apply var_key_inj in E; subst w.
      destruct (Z.eqb_spec (a + b) 0); simpl; nia.
    + destruct (Z.eqb_spec a 0); simpl; subst; lia.
    + simpl; rewrite IH; lia.
Qed.

Definition tnorm (l : list (Z * var)) : list (Z * var) :=
  fold_right (fun av acc => tinsert (fst av) (snd av) acc) [] l.

Lemma tnorm_sum : forall rho l, tsum rho (tnorm l) = tsum rho l.
Proof.
  intros rho l; induction l as [|[a v] l IH]; simpl; auto.
  rewrite tinsert_sum; simpl in *; lia.
Qed.

Definition lnorm (L : lin) : lin := mkLin (lcst L) (tnorm (lterms L)).

Lemma lnorm_eval : forall rho L, leval rho (lnorm L) = leval rho L.
Proof. intros; unfold leval, lnorm; simpl; rewrite tnorm_sum; lia. Qed.

(** ** Arithmetic on forms *)
Definition lscale (k : Z) (L : lin) : lin :=
  mkLin (k * lcst L) (map (fun av => (k * fst av, snd av))%Z (lterms L)).
Definition ladd (L1 L2 : lin) : lin := mkLin (lcst L1 + lcst L2) (lterms L1 ++ lterms L2).

Lemma lscale_eval : forall rho k L, leval rho (lscale k L) = (k * leval rho L)%Z.
Proof.
  intros rho k [c l]; unfold leval, lscale; simpl.
  induction l as [|[a v] l IH]; simpl in *; nia.
Qed.

Lemma ladd_eval : forall rho L1 L2, leval rho (ladd L1 L2) = (leval rho L1 + leval rho L2)%Z.
Proof. intros; unfold leval, ladd; simpl; rewrite tsum_app; lia. Qed.

(** Substitution [L[x ← E]]: every term of [x] replaced by its coefficient times [E]. *)
Definition lsubst (x : var) (E : lin) (L : lin) : lin :=
  fold_right (fun av acc =>
      if Nat.eqb (var_key (snd av)) (var_key x) then ladd (lscale (fst av) E) acc
      else ladd (mkLin 0 [av]) acc)
    (mkLin (lcst L) []) (lterms L).

Definition upd (rho : var -> Z) (x : var) (z : Z) : var -> Z :=
  fun v => if Nat.eqb (var_key v) (var_key x) then z else rho v.

Lemma lsubst_eval : forall rho x E L,
  leval rho (lsubst x E L) = leval (upd rho x (leval rho E)) L.
Proof.
  intros rho x E [c l]; unfold lsubst; simpl.
  induction l as [|[a v] l IH]; simpl.
  - unfold leval; simpl; lia.
  - destruct (Nat.eqb (var_key v) (var_key x)) eqn:Hk.
    + rewrite ladd_eval, lscale_eval, IH. unfold leval; simpl.
      unfold upd at 2; rewrite Hk. lia.
    + rewrite ladd_eval, IH. unfold leval; simpl.
      unfold upd at 2; rewrite Hk. lia.
Qed.

Definition mentions (x : var) (L : lin) : bool :=
  existsb (fun av => Nat.eqb (var_key (snd av)) (var_key x)) (lterms L).

Lemma tsum_upd_notin : forall rho x z l,
  existsb (fun av => Nat.eqb (var_key (snd av)) (var_key x)) l = false ->
  tsum (upd rho x z) l = tsum rho l.
Proof.
  intros rho x z l; induction l as [|[a v] l IH]; simpl; intros H; auto.
  apply orb_false_iff in H as [H1 H2]. unfold upd at 1; simpl in H1; rewrite H1.
  rewrite IH; auto.
Qed.

Lemma leval_upd_notin : forall rho x z L, mentions x L = false ->
  leval (upd rho x z) L = leval rho L.
Proof.
  intros rho x z [c l]; unfold mentions, leval; simpl; intros H.
  rewrite tsum_upd_notin; auto.
Qed.

(** ** Constraints and Farkas witnesses *)
Inductive cstr := CLe (L : lin) | CEq (L : lin).

Definition holds (rho : var -> Z) (c : cstr) : Prop :=
  match c with CLe L => (leval rho L <= 0)%Z | CEq L => leval rho L = 0%Z end.

Definition cform (c : cstr) : lin := match c with CLe L | CEq L => L end.
Definition is_eq (c : cstr) : bool := match c with CEq _ => true | CLe _ => false end.

(** A witness [(m, [(i, λ)…])] for a target [L] from sources [P]: [m > 0], every
    [λ] for an [≤] source is [≥ 0], and [m·L − Σ λ·Lᵢ] normalizes to a constant
    [μ] with [μ ≤ 0] ([≤] target) or to [0] using only equalities ([=] target). *)
Definition fwit := (Z * list (nat * Z))%type.

Fixpoint fcomb (P : list cstr) (ws : list (nat * Z)) : option lin :=
  match ws with
  | [] => Some (mkLin 0 [])
  | (i, lam) :: ws' =>
      match nth_error P i, fcomb P ws' with
      | Some c, Some acc =>
          if is_eq c || (0 <=? lam)%Z then Some (ladd (lscale lam (cform c)) acc) else None
      | _, _ => None
      end
  end.

Definition all_eq (P : list cstr) (ws : list (nat * Z)) : bool :=
  forallb (fun iw => match nth_error P (fst iw) with Some c => is_eq c | None => false end) ws.

Definition farkas_ok (P : list cstr) (c : cstr) (w : fwit) : bool :=
  let '(m, ws) := w in
  (0 <? m)%Z &&
  match fcomb P ws with
  | None => false
  | Some Sm =>
      let X := lnorm (ladd (lscale m (cform c)) (lscale (-1) Sm)) in
      match lterms X with
      | [] => match c with
              | CLe _ => (lcst X <=? 0)%Z
              | CEq _ => (lcst X =? 0)%Z && all_eq P ws
              end
      | _ => false
      end
  end.

Definition sat (rho : var -> Z) (P : list cstr) : Prop := forall c, In c P -> holds rho c.

Lemma fcomb_le : forall rho P ws Sm, sat rho P -> fcomb P ws = Some Sm -> (leval rho Sm <= 0)%Z.
Proof.
  intros rho P ws; induction ws as [|[i lam] ws IH]; simpl; intros Sm HP H.
  - inversion H; subst; reflexivity.
  - destruct (nth_error P i) as [c|] eqn:Hc; [|discriminate].
    destruct (fcomb P ws) as [acc|]; [|discriminate].
    destruct (is_eq c || (0 <=? lam)%Z) eqn:Hs; [|discriminate].
    inversion H; subst. rewrite ladd_eval, lscale_eval.
    specialize (IH acc HP eq_refl).
    assert (Hh : holds rho c) by (apply HP; eapply nth_error_In; eauto).
    destruct c as [L|L]; simpl in *.
    + apply Z.leb_le in Hs. nia.
    + rewrite Hh; lia.
Qed.

Lemma fcomb_eq : forall rho P ws Sm, sat rho P -> all_eq P ws = true ->
  fcomb P ws = Some Sm -> leval rho Sm = 0%Z.
Proof.
  intros rho P ws; induction ws as [|[i lam] ws IH]; simpl; intros Sm HP Ha H.
  - inversion H; subst; reflexivity.
  - apply andb_true_iff in Ha as [Ha1 Ha2]. simpl in Ha1.
    destruct (nth_error P i) as [c|] eqn:Hc; [|discriminate].
    destruct (fcomb P ws) as [acc|]; [|discriminate].
    destruct (is_eq c || (0 <=? lam)%Z); [|discriminate].
    inversion H; subst. rewrite ladd_eval, lscale_eval.
    rewrite (IH acc HP Ha2 eq_refl).
    assert (Hh : holds rho c) by (apply HP; eapply nth_error_In; eauto).
    destruct c as [L|L]; simpl in *; [discriminate|]. rewrite Hh; lia.
Qed.

Theorem farkas_sound : forall rho P c w, sat rho P -> farkas_ok P c w = true -> holds rho c.
Proof.
  intros rho P c [m ws] HP H. unfold farkas_ok in H.
  apply andb_true_iff in H as [Hm H]. apply Z.ltb_lt in Hm.
  destruct (fcomb P ws) as [Sm|] eqn:HS; [|discriminate].
  set (X := lnorm (ladd (lscale m (cform c)) (lscale (-1) Sm))) in H.
  assert (HX : leval rho X = (m * leval rho (cform c) - leval rho Sm)%Z).
  { unfold X. rewrite lnorm_eval, ladd_eval, !lscale_eval. lia. }
  destruct (lterms X) eqn:Ht; [|discriminate].
  assert (HX0 : leval rho X = lcst X) by (unfold leval; rewrite Ht; simpl; lia).
  destruct c as [L|L]; simpl in *.
  - apply Z.leb_le in H. pose proof (fcomb_le rho P ws Sm HP HS). nia.
  - apply andb_true_iff in H as [H1 H2]. apply Z.eqb_eq in H1.
    pose proof (fcomb_eq rho P ws Sm HP H2 HS). nia.
Qed.

(** One witness per target constraint. *)
Fixpoint entails (P : list cstr) (Ps : list cstr) (ws : list fwit) : bool :=
  match Ps, ws with
  | [], [] => true
  | c :: Ps', w :: ws' => farkas_ok P c w && entails P Ps' ws'
  | _, _ => false
  end.

Lemma entails_sound : forall rho P Ps ws, sat rho P -> entails P Ps ws = true -> sat rho Ps.
Proof.
  intros rho P Ps; induction Ps as [|c Ps IH]; intros [|w ws] HP H; simpl in *;
    try discriminate; intros c' Hin; [contradiction|].
  apply andb_true_iff in H as [H1 H2]. destruct Hin as [<-|Hin].
  - eapply farkas_sound; eauto.
  - eapply IH; eauto.
Qed.

Local Open Scope Q_scope.

(** ** Linear potentials [c + Σ cᵢ·max(0, Lᵢ)] *)
Record pot := mkPot { pcst : Q; pterms : list (Q * lin) }.

Definition atom (rho : var -> Z) (L : lin) : Q := inject_Z (Z.max 0 (leval rho L)).

Definition psum (rho : var -> Z) (l : list (Q * lin)) : Q :=
  fold_right (fun cl acc => fst cl * atom rho (snd cl) + acc) 0 l.

Definition pval (rho : var -> Z) (Q0 : pot) : Q := pcst Q0 + psum rho (pterms Q0).

Lemma atom_nonneg : forall rho L, 0 <= atom rho L.
Proof. intros; unfold atom, Qle; simpl; lia. Qed.

Lemma lin_eq_dec : forall a b : lin, {a = b} + {a <> b}.
Proof.
  assert (Hv : forall a b : var, {a = b} + {a <> b}) by (decide equality; apply Nat.eq_dec).
  assert (Hp : forall a b : Z * var, {a = b} + {a <> b}).
  { intros [x v] [y w]; destruct (Z.eq_dec x y), (Hv v w); subst; auto;
      right; intros H; inversion H; auto. }
  intros [c l] [d m]. destruct (Z.eq_dec c d), (list_eq_dec Hp l m); subst; auto;
    right; intros H; inversion H; auto.
Defined.

(** Merge a term into a list with distinct (normalized) atoms. *)
Fixpoint pinsert (c : Q) (L : lin) (l : list (Q * lin)) : list (Q * lin) :=
  match l with
  | [] => [(c, L)]
  | (d, L') :: l' => if lin_eq_dec L L' then (c + d, L') :: l' else (d, L') :: pinsert c L l'
  end.

Lemma pinsert_sum : forall rho c L l, psum rho (pinsert c L l) == c * atom rho L + psum rho l.
Proof.
  intros rho c L l; induction l as [|[d L'] l IH]; simpl.
  - lra.
  - destruct (lin_eq_dec L L'); simpl; [subst; lra|]. rewrite IH; lra.
Qed.

Definition pmerge (l : list (Q * lin)) : list (Q * lin) :=
  fold_right (fun cl acc => pinsert (fst cl) (lnorm (snd cl)) acc) [] l.

Lemma atom_lnorm : forall rho L, atom rho (lnorm L) = atom rho L.
Proof. intros; unfold atom; rewrite lnorm_eval; reflexivity. Qed.

Lemma pmerge_sum : forall rho l, psum rho (pmerge l) == psum rho l.
Proof.
  intros rho l; induction l as [|[c L] l IH]; simpl; [lra|].
  rewrite pinsert_sum, atom_lnorm, IH; lra.
Qed.

Definition pneg (l : list (Q * lin)) : list (Q * lin) := map (fun cl => (- fst cl, snd cl)) l.

Lemma pneg_sum : forall rho l, psum rho (pneg l) == - psum rho l.
Proof. intros rho l; induction l as [|[c L] l IH]; simpl; [lra|]. rewrite IH; lra. Qed.

Lemma psum_app : forall rho l1 l2, psum rho (l1 ++ l2) == psum rho l1 + psum rho l2.
Proof. intros rho l1 l2; induction l1 as [|[c L] l1 IH]; simpl; [lra|]. rewrite IH; lra. Qed.

Lemma psum_nonneg : forall rho l, forallb (fun cl => Qle_bool 0 (fst cl)) l = true ->
  0 <= psum rho l.
Proof.
  intros rho l; induction l as [|[c L] l IH]; simpl; intros H; [lra|].
  apply andb_true_iff in H as [H1 H2]. apply Qle_bool_iff in H1.
  pose proof (atom_nonneg rho L). specialize (IH H2).
  assert (0 <= c * atom rho L) by (apply Qmult_le_0_compat; auto). lra.
Qed.

(** [pot_ge Q1 Q2]: every coefficient of [Q1 − Q2] (atoms merged after
    normalization) is [≥ 0]; since atoms are [≥ 0], [Q1 ≥ Q2] everywhere. *)
Definition pot_ge (Q1 Q2 : pot) : bool :=
  Qle_bool (pcst Q2) (pcst Q1) &&
  forallb (fun cl => Qle_bool 0 (fst cl)) (pmerge (pterms Q1 ++ pneg (pterms Q2))).

Lemma pot_ge_sound : forall rho Q1 Q2, pot_ge Q1 Q2 = true -> pval rho Q2 <= pval rho Q1.
Proof.
  intros rho Q1 Q2 H. unfold pot_ge in H. apply andb_true_iff in H as [H1 H2].
  apply Qle_bool_iff in H1. pose proof (psum_nonneg rho _ H2) as H3.
  rewrite pmerge_sum, psum_app, pneg_sum in H3. unfold pval. lra.
Qed.

Definition padd (Q1 : pot) (k : Q) : pot := mkPot (pcst Q1 + k) (pterms Q1).
Lemma padd_val : forall rho Q1 k, pval rho (padd Q1 k) == pval rho Q1 + k.
Proof. intros; unfold pval, padd; simpl; lra. Qed.

Definition pnonneg (Q1 : pot) : bool :=
  Qle_bool 0 (pcst Q1) && forallb (fun cl => Qle_bool 0 (fst cl)) (pterms Q1).
Lemma pnonneg_sound : forall rho Q1, pnonneg Q1 = true -> 0 <= pval rho Q1.
Proof.
  intros rho Q1 H; apply andb_true_iff in H as [H1 H2]; apply Qle_bool_iff in H1.
  pose proof (psum_nonneg rho _ H2); unfold pval; lra.
Qed.

(** Substitution in potentials and the variables a potential mentions. *)
Definition psubst (x : var) (E : lin) (Q1 : pot) : pot :=
  mkPot (pcst Q1) (map (fun cl => (fst cl, lsubst x E (snd cl))) (pterms Q1)).

Lemma psubst_val : forall rho x E Q1,
  pval rho (psubst x E Q1) == pval (upd rho x (leval rho E)) Q1.
Proof.
  intros rho x E [c l]; unfold pval, psubst; simpl.
  induction l as [|[d L] l IH]; simpl; [lra|]. unfold atom at 1; rewrite lsubst_eval.
  simpl in IH; unfold atom in *; lra.
Qed.

Definition pmentions (x : var) (Q1 : pot) : bool := existsb (fun cl => mentions x (snd cl)) (pterms Q1).

Lemma pval_upd_notin : forall rho x z Q1, pmentions x Q1 = false ->
  pval (upd rho x z) Q1 == pval rho Q1.
Proof.
  intros rho x z [c l]; unfold pmentions, pval; simpl; intros H.
  induction l as [|[d L] l IH]; simpl in *; [lra|].
  apply orb_false_iff in H as [H1 H2]. unfold atom at 1; rewrite leval_upd_notin by auto.
  specialize (IH H2). unfold atom in *; lra.
Qed.

(** * Linear forms, constraints, Farkas witnesses and polynomial potentials
    (spec/certificate.md "Linear forms, constraints, assertions"; spec/logic.md §1)

    Linear forms have integer coefficients: the exporter scales every linear
    constraint [L ≤ 0] / [L = 0] of a certificate by a positive integer (which
    does not change its meaning) and every Farkas witness accordingly.  Lane
    constraints [(mod L m S)] ([L mod m ∈ S], spec/logic.md §1) have integral forms
    already.  Potentials are polynomials [c + Σ cᵢ·Π max(0, Lᵢⱼ)] with rational
    coefficients. *)
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

Lemma lin_eq_dec : forall a b : lin, {a = b} + {a <> b}.
Proof.
  assert (Hv : forall a b : var, {a = b} + {a <> b}) by (decide equality; apply Nat.eq_dec).
  assert (Hp : forall a b : Z * var, {a = b} + {a <> b}).
  { intros [x v] [y w]; destruct (Z.eq_dec x y), (Hv v w); subst; auto;
      right; intros H; inversion H; auto. }
  intros [c l] [d m]. destruct (Z.eq_dec c d), (list_eq_dec Hp l m); subst; auto;
    right; intros H; inversion H; auto.
Defined.

(** ** Constraints and Farkas witnesses

    [CMod L m S] is the lane constraint [L mod m ∈ S] (Euclidean [mod]); its form
    mentions only [threadIdx.*] in certificates (spec/logic.md §1). *)
Inductive cstr := CLe (L : lin) | CEq (L : lin) | CMod (L : lin) (m : Z) (rs : list Z).

Definition holds (rho : var -> Z) (c : cstr) : Prop :=
  match c with
  | CLe L => (leval rho L <= 0)%Z
  | CEq L => leval rho L = 0%Z
  | CMod L m rs => In (leval rho L mod m)%Z rs
  end.

Definition cform (c : cstr) : lin := match c with CLe L | CEq L | CMod L _ _ => L end.
Definition is_eq (c : cstr) : bool := match c with CEq _ => true | _ => false end.
(** Linear constraints ([≤] and [=]); lane constraints are not. *)
Definition is_lin (c : cstr) : bool := match c with CMod _ _ _ => false | _ => true end.

(** A witness [(m, [(i, λ)…])] for a linear target [L] from sources [P]: [m > 0], every
    source used is linear, every [λ] for an [≤] source is [≥ 0], and [m·L − Σ λ·Lᵢ]
    normalizes to a constant [μ] with [μ ≤ 0] ([≤] target) or to [0] using only
    equalities ([=] target).  A witness for a lane target [(mod L m S)] is [(_, [(i, _)])]
    with [P]'s constraint [i] a lane constraint [(mod L' m S')], [L'] equal to [L] after
    normalization and [S' ⊆ S] (spec/certificate.md). *)
Definition fwit := (Z * list (nat * Z))%type.

Fixpoint fcomb (P : list cstr) (ws : list (nat * Z)) : option lin :=
  match ws with
  | [] => Some (mkLin 0 [])
  | (i, lam) :: ws' =>
      match nth_error P i, fcomb P ws' with
      | Some c, Some acc =>
          if is_lin c && (is_eq c || (0 <=? lam)%Z) then Some (ladd (lscale lam (cform c)) acc)
          else None
      | _, _ => None
      end
  end.

Definition all_eq (P : list cstr) (ws : list (nat * Z)) : bool :=
  forallb (fun iw => match nth_error P (fst iw) with Some c => is_eq c | None => false end) ws.

Definition lin_eqb (a b : lin) : bool := if lin_eq_dec a b then true else false.
Definition zsubset (S1 S2 : list Z) : bool := forallb (fun r => existsb (Z.eqb r) S2) S1.

Definition lane_ok (P : list cstr) (L : lin) (m : Z) (rs : list Z) (ws : list (nat * Z)) : bool :=
  match ws with
  | [(i, _)] =>
      match nth_error P i with
      | Some (CMod L' m' rs') => lin_eqb (lnorm L') (lnorm L) && (m' =? m)%Z && zsubset rs' rs
      | _ => false
      end
  | _ => false
  end.

Definition farkas_ok (P : list cstr) (c : cstr) (w : fwit) : bool :=
  let '(m, ws) := w in
  match c with
  | CMod L mo rs => lane_ok P L mo rs ws
  | _ =>
  (0 <? m)%Z &&
  match fcomb P ws with
  | None => false
  | Some Sm =>
      let X := lnorm (ladd (lscale m (cform c)) (lscale (-1) Sm)) in
      match lterms X with
      | [] => match c with
              | CLe _ => (lcst X <=? 0)%Z
              | CEq _ => (lcst X =? 0)%Z && all_eq P ws
              | CMod _ _ _ => false
              end
      | _ => false
      end
  end
  end.

Definition sat (rho : var -> Z) (P : list cstr) : Prop := forall c, In c P -> holds rho c.

Lemma fcomb_le : forall rho P ws Sm, sat rho P -> fcomb P ws = Some Sm -> (leval rho Sm <= 0)%Z.
Proof.
  intros rho P ws; induction ws as [|[i lam] ws IH]; simpl; intros Sm HP H.
  - inversion H; subst; reflexivity.
  - destruct (nth_error P i) as [c|] eqn:Hc; [|discriminate].
    destruct (fcomb P ws) as [acc|]; [|discriminate].
    destruct (is_lin c && (is_eq c || (0 <=? lam)%Z)) eqn:Hs; [|discriminate].
    inversion H; subst. rewrite ladd_eval, lscale_eval.
    specialize (IH acc HP eq_refl).
    assert (Hh : holds rho c) by (apply HP; eapply nth_error_In; eauto).
    destruct c as [L|L|L mo rs]; simpl in *; try discriminate.
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
    destruct (is_lin c && (is_eq c || (0 <=? lam)%Z)); [|discriminate].
    inversion H; subst. rewrite ladd_eval, lscale_eval.
    rewrite (IH acc HP Ha2 eq_refl).
    assert (Hh : holds rho c) by (apply HP; eapply nth_error_In; eauto).
    destruct c as [L|L|L mo rs]; simpl in *; try discriminate. rewrite Hh; lia.
Qed.

Lemma lane_ok_sound : forall rho P L mo rs ws, sat rho P -> lane_ok P L mo rs ws = true ->
  holds rho (CMod L mo rs).
Proof.
  intros rho P L mo rs ws HP H. unfold lane_ok in H.
  destruct ws as [|[i lam] [|? ?]]; try discriminate.
  destruct (nth_error P i) as [[L'|L'|L' m' rs']|] eqn:Hi; try discriminate.
  apply andb_true_iff in H as [H H3]. apply andb_true_iff in H as [H1 H2].
  unfold lin_eqb in H1. destruct (lin_eq_dec (lnorm L') (lnorm L)) as [E|]; [|discriminate].
  apply Z.eqb_eq in H2. subst m'.
  assert (Hh : holds rho (CMod L' mo rs')) by (apply HP; eapply nth_error_In; eauto).
  simpl in *. rewrite <- (lnorm_eval rho L), <- E, lnorm_eval.
  unfold zsubset in H3. rewrite forallb_forall in H3. specialize (H3 _ Hh).
  apply existsb_exists in H3 as [r [Hr Er]]. apply Z.eqb_eq in Er. rewrite Er; auto.
Qed.

Theorem farkas_sound : forall rho P c w, sat rho P -> farkas_ok P c w = true -> holds rho c.
Proof.
  intros rho P c [m ws] HP H.
  destruct c as [L|L|L mo rs]; [| |eapply lane_ok_sound; eauto].
  all: unfold farkas_ok in H; apply andb_true_iff in H as [Hm H]; apply Z.ltb_lt in Hm;
    destruct (fcomb P ws) as [Sm|] eqn:HS; try discriminate; cbn [cform] in H;
    set (X := lnorm (ladd (lscale m L) (lscale (-1) Sm))) in H;
    assert (HX : leval rho X = (m * leval rho L - leval rho Sm)%Z) by
      (unfold X; rewrite lnorm_eval, ladd_eval, !lscale_eval; lia);
    destruct (lterms X) eqn:Ht; try discriminate;
    assert (HX0 : leval rho X = lcst X) by (unfold leval; rewrite Ht; simpl; lia); simpl.
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

(** ** Polynomial potentials [c + Σ cᵢ·Π_j A_ij] (spec/logic.md §1)

    A monomial is a coefficient and a list of atoms; the constant term is kept apart.
    An atom [mkAtm L d] ([d] a positive integer) stands for [max(0, ⌊L/d⌋)]: the floor
    atom [⌊L/d⌋⁺] of spec/logic.md §1 "Floor atoms" ([Z.div] rounds towards −∞, as the
    kernel's [div_floor]; a rational form [L] is exported as [s·L] with divisor [s·d],
    [⌊sL/(sd)⌋ = ⌊L/d⌋]), and for [d = 1] ([am L]) the atom [max(0, L)].  Atoms are
    compared after canonicalization (spec/certificate.md, the kernel's
    [Atom::canonical]): a constant form is evaluated; a [max0] form is divided by the gcd
    of its coefficients (constant included), the factor moving into the coefficient; a
    floor atom is divided through by the gcd of its coefficients and divisor
    ([⌊gL/gd⌋ = ⌊L/d⌋]) and becomes a [max0] atom when the divisor drops to 1; monomials
    are compared as multisets of atoms. *)
(** Log atoms (spec/logic.md §1 "Log atoms", "Quotient log atoms", issue 15; Log.v): an
    atom has a kind ([akind]): [KFl] the floor atom above; [KLog] the log atom
    [⌊log2 L⌋⁺ = ⌊log2 max(1, ⌊L⌋)⌋] of the rational form [L] exported as [mkAtmK (s·L) s
    KLog], value [Z.log2 ⌊sL/s⌋] ([Z.log2] is 0 on arguments [≤ 1]); [KLogQ M] the quotient
    log atom [⌊log2 (L/M)⌋⁺ = ⌊log2 max(1, ⌊⌊L⌋/max(1, M)⌋)⌋] with an integral divisor form
    [M], value [Z.log2 (⌊sL/s⌋ / max(1, M))].  The value of every kind is a function of
    [⌊L/d⌋] ([akval]). *)
(** Residue atoms (spec/logic.md §1 "Residue atoms", issue 15, Q:IFALIGN): the kind
    [KRes M m] carries its own integral form [M] and modulus [m]; its value is [0] when [m]
    divides [M], else [1], whatever [q] (the atom's own [alin] is the zero form). *)
(** Window atoms (spec/logic.md §1 "Window atoms", issue 15, Q:WHILELASTWINDOW): the kind
    [KWin M m w] carries its own integral form [M], modulus [m] and width [w]; its value
    [[M mod m < w]] is [1] when the least non-negative residue of [M] modulo [m] is below
    [w], else [0], whatever [q] (the atom's own [alin] is the zero form). *)
(** Floor atoms with a symbolic launch divisor (spec/logic.md §1, [(floors LIN DLIN)]): the
    kind [KFloorS D] carries the divisor form [D] (well-formed: [gridDim] parameters with
    positive integer coefficients and a constant [≥ 0], so [D ≥ 1] under the launch facts);
    its value is [max(0, ⌊q/D⌋)] when [D ≥ 1] and [0] otherwise ([q = ⌊L/d⌋], exported with
    [d = 1]), so [⌊gL/gD⌋ = ⌊L/D⌋] holds for every state. *)
Inductive akind := KFl | KLog | KLogQ (M : lin) | KRes (M : lin) (m : positive)
  | KWin (M : lin) (m : positive) (w : Z) | KFloorS (D : lin).
Record atm := mkAtmK { alin : lin; adiv : positive; akd : akind }.
Notation mkAtm L d := (mkAtmK L d KFl).
Definition am (L : lin) : atm := mkAtm L 1.
Definition kmap (f : lin -> lin) (k : akind) : akind :=
  match k with KLogQ M => KLogQ (f M) | KRes M m => KRes (f M) m
            | KWin M m w => KWin (f M) m w | KFloorS D => KFloorS (f D) | _ => k end.
Definition amap (f : lin -> lin) (A : atm) : atm := mkAtmK (f (alin A)) (adiv A) (kmap f (akd A)).
Definition anorm (A : atm) : atm := amap lnorm A.
(** The forms of an atom ([L], and [M] of a quotient log atom) and their terms. *)
Definition aforms (A : atm) : list lin :=
  alin A :: match akd A with KLogQ M => [M] | KRes M _ => [M] | KWin M _ _ => [M]
                             | KFloorS D => [D] | _ => [] end.
Definition avars (A : atm) : list (Z * var) := flat_map lterms (aforms A).

Lemma akind_eq_dec : forall a b : akind, {a = b} + {a <> b}.
Proof.
  intros [| |M|M m|M m w|M] [| |M'|M' m'|M' m' w'|M']; try (left; reflexivity); try (right; discriminate).
  - destruct (lin_eq_dec M M'); [left; subst; reflexivity|right; intros H; inversion H; auto].
  - destruct (lin_eq_dec M M'), (Pos.eq_dec m m'); subst; auto; right; intros H; inversion H; auto.
  - destruct (lin_eq_dec M M'), (Pos.eq_dec m m'), (Z.eq_dec w w'); subst; auto;
      right; intros H; inversion H; auto.
  - destruct (lin_eq_dec M M'); [left; subst; reflexivity|right; intros H; inversion H; auto].
Defined.

Lemma atm_eq_dec : forall a b : atm, {a = b} + {a <> b}.
Proof.
  intros [L d k] [L' d' k']. destruct (lin_eq_dec L L'), (Pos.eq_dec d d'), (akind_eq_dec k k');
    subst; auto; right; intros H; inversion H; auto.
Defined.

Record pot := mkPot { pcst : Q; pterms : list (Q * list atm) }.

(** The value of an atom's kind at [q = ⌊L/d⌋]. *)
Definition akval (rho : var -> Z) (k : akind) (q : Z) : Z :=
  match k with
  | KFl => Z.max 0 q
  | KLog => Z.log2 q
  | KLogQ M => Z.log2 (q / Z.max 1 (leval rho M))
  | KRes M m => if Z.eqb (Z.modulo (leval rho M) (Zpos m)) 0 then 0 else 1
  | KWin M m w => if Z.ltb (Z.modulo (leval rho M) (Zpos m)) w then 1 else 0
  | KFloorS D => if Z.leb 1 (leval rho D) then Z.max 0 (q / leval rho D) else 0
  end.
Definition atom (rho : var -> Z) (A : atm) : Q :=
  inject_Z (akval rho (akd A) (leval rho (alin A) / Zpos (adiv A))).

Lemma akval_nonneg : forall rho k q, (0 <= akval rho k q)%Z.
Proof.
  intros rho [| |M|M m|M m w|D] q; simpl; [lia|apply Z.log2_nonneg|apply Z.log2_nonneg| | |].
  - destruct (Z.eqb _ 0); lia.
  - destruct (Z.ltb _ w); lia.
  - destruct (Z.leb _ _); lia.
Qed.

(** Every kind is monotone in [q]. *)
Lemma akval_mono : forall rho k q1 q2, (q1 <= q2)%Z -> (akval rho k q1 <= akval rho k q2)%Z.
Proof.
  intros rho [| |M|M m|M m w|D] q1 q2 H; simpl; [lia|apply Z.log2_le_mono; exact H| |lia|lia|].
  - apply Z.log2_le_mono, Z.div_le_mono; lia.
  - destruct (Z.leb_spec 1 (leval rho D)); [|lia].
    pose proof (Z.div_le_mono q1 q2 (leval rho D) ltac:(lia) H). lia.
Qed.
Definition mval (rho : var -> Z) (m : list atm) : Q :=
  fold_right (fun L acc => atom rho L * acc) 1 m.
Definition psum (rho : var -> Z) (l : list (Q * list atm)) : Q :=
  fold_right (fun cm acc => fst cm * mval rho (snd cm) + acc) 0 l.
Definition pval (rho : var -> Z) (Q0 : pot) : Q := pcst Q0 + psum rho (pterms Q0).

Lemma atom_nonneg : forall rho L, 0 <= atom rho L.
Proof.
  intros rho L; unfold atom, Qle; simpl.
  pose proof (akval_nonneg rho (akd L) (leval rho (alin L) / Zpos (adiv L))); lia.
Qed.

Lemma mval_nonneg : forall rho m, 0 <= mval rho m.
Proof.
  intros rho m; induction m as [|L m IH]; simpl; [discriminate|].
  apply Qmult_le_0_compat; auto using atom_nonneg.
Qed.

Lemma mval_app : forall rho m1 m2, mval rho (m1 ++ m2) == mval rho m1 * mval rho m2.
Proof.
  intros rho m1 m2; induction m1 as [|L m1 IH]; simpl; [ring|]. rewrite IH; ring.
Qed.

Lemma psum_app : forall rho l1 l2, psum rho (l1 ++ l2) == psum rho l1 + psum rho l2.
Proof. intros rho l1 l2; induction l1 as [|[c m] l1 IH]; simpl; [lra|]. rewrite IH; lra. Qed.


(** *** Canonical atoms *)
Definition lgcd (L : lin) : Z :=
  fold_right (fun av acc => Z.gcd (fst av) acc) (Z.abs (lcst L)) (lterms L).
Definition ldiv (g : Z) (L : lin) : lin :=
  mkLin (lcst L / g)%Z (map (fun av => (fst av / g, snd av)%Z) (lterms L)).

Lemma lgcd_divides : forall L, (Z.divide (lgcd L) (lcst L) /\
  forall a v, In (a, v) (lterms L) -> Z.divide (lgcd L) a)%Z.
Proof.
  intros [c l]; unfold lgcd; simpl. induction l as [|[a v] l IH]; simpl.
  - split; [apply Z.divide_abs_l, Z.divide_refl | intros; contradiction].
  - destruct IH as [IH1 IH2]. split.
    + eapply Z.divide_trans; [apply Z.gcd_divide_r|exact IH1].
    + intros a' v' [E|Hin].
      * inversion E; subst. apply Z.gcd_divide_l.
      * eapply Z.divide_trans; [apply Z.gcd_divide_r|]. eapply IH2; eauto.
Qed.

Lemma div_exact : forall g a : Z, (g <> 0)%Z -> Z.divide g a -> a = (g * (a / g))%Z.
Proof. intros g a Hg [q ->]. rewrite Z.div_mul by auto. ring. Qed.

Lemma ldiv_eval_g : forall rho L g, (g <> 0)%Z -> Z.divide g (lgcd L) ->
  leval rho L = (g * leval rho (ldiv g L))%Z.
Proof.
  intros rho L g Hg Hd. destruct (lgcd_divides L) as [H1 H2].
  assert (Hc : Z.divide g (lcst L)) by exact (Z.divide_trans _ _ _ Hd H1).
  assert (Ha : forall a v, In (a, v) (lterms L) -> Z.divide g a)
    by (intros a v Hav; exact (Z.divide_trans _ _ _ Hd (H2 a v Hav))).
  clear H1 H2 Hd.
  destruct L as [c l]; unfold leval, ldiv in *; simpl in *.
  assert (Ht : tsum rho l = (g * tsum rho (map (fun av => (fst av / g, snd av)%Z) l))%Z).
  { induction l as [|[a v] l IH]; simpl; [lia|].
    rewrite IH by (intros; eapply Ha; right; eauto).
    rewrite (div_exact g a) at 1 by (auto; eapply Ha; left; eauto). ring. }
  rewrite Ht, (div_exact g c) at 1 by auto. ring.
Qed.

Lemma ldiv_eval : forall rho L, (lgcd L <> 0)%Z ->
  leval rho L = (lgcd L * leval rho (ldiv (lgcd L) L))%Z.
Proof. intros rho L Hg. apply ldiv_eval_g; auto using Z.divide_refl. Qed.

Lemma lgcd_nonneg : forall L, (0 <= lgcd L)%Z.
Proof. intros [c l]; unfold lgcd; simpl; destruct l as [|[a v] l]; simpl; [lia|apply Z.gcd_nonneg]. Qed.

Lemma akval_kmap_lnorm : forall rho k q, akval rho (kmap lnorm k) q = akval rho k q.
Proof. intros rho [| |M|M m|M m w|D] q; simpl; auto; rewrite lnorm_eval; reflexivity. Qed.

Lemma atom_lnorm : forall rho A, atom rho (anorm A) = atom rho A.
Proof.
  intros; unfold atom, anorm, amap; simpl; rewrite lnorm_eval, akval_kmap_lnorm; reflexivity.
Qed.

(** The value of [max(0, L)]. *)
Definition latom (rho : var -> Z) (L : lin) : Q := inject_Z (Z.max 0 (leval rho L)).

Lemma atom_am : forall rho L, atom rho (am L) = latom rho L.
Proof. intros; unfold atom, latom, am; simpl; rewrite Z.div_1_r; reflexivity. Qed.

Lemma lgcd_zero : forall rho L, lgcd L = 0%Z -> leval rho L = 0%Z.
Proof.
  intros rho L E. destruct (lgcd_divides L) as [H1 H2]. rewrite E in H1, H2.
  apply Z.divide_0_l in H1. destruct L as [c l]; unfold leval; simpl in *. subst c.
  clear E. induction l as [|[a v] l IH]; simpl; auto.
  rewrite (Z.divide_0_l a (H2 a v (or_introl eq_refl))).
  assert (H3 : (0 + tsum rho l)%Z = 0%Z) by (apply IH; intros; eapply H2; right; eauto). lia.
Qed.

(** [lcanon L = (f, m)]: [max(0, L) = f·Π m], [m] empty (constant form) or one atom. *)
Definition lcanon (L : lin) : Q * list atm :=
  let L1 := lnorm L in
  match lterms L1 with
  | [] => (inject_Z (Z.max 0 (lcst L1)), [])
  | _ => let g := lgcd L1 in if (g =? 0)%Z then (0, []) else (inject_Z g, [am (ldiv g L1)])
  end.

(** [fcanon L d = (f, m)]: the floor atom [⌊L/d⌋⁺ = f·Π m] (spec/certificate.md, the
    kernel's [Atom::canonical]): with [d = 1] the [max0] atom by [lcanon]; a constant form is
    its value; else [L] and [d] are divided by [g = gcd(L, d)] ([Floor.fatom_canonical]),
    and with [d/g = 1] the atom is the [max0] atom [max(0, L/d)]. *)
Definition fcanon (L0 : lin) (dp : positive) : Q * list atm :=
  let d := Zpos dp in
  if (d =? 1)%Z then lcanon L0 else
  let L1 := lnorm L0 in
  match lterms L1 with
  | [] => (inject_Z (Z.max 0 (lcst L1 / d)), [])
  | _ => let g := Z.gcd (lgcd L1) d in
         let d2 := (d / g)%Z in
         if (d2 =? 1)%Z then lcanon (ldiv d L1) else (1, [mkAtm (ldiv g L1) (Z.to_pos d2)])
  end.

(** [lgnorm L d]: [L] (normalized) and [d] divided by [g = gcd(L, d)]; [⌊L/d⌋] is kept. *)
Definition lgnorm (L0 : lin) (dp : positive) : lin * positive :=
  let L1 := lnorm L0 in
  let g := Z.gcd (lgcd L1) (Zpos dp) in (ldiv g L1, Z.to_pos (Zpos dp / g)).

(** [klog L d]: the log atom [⌊log2 ⌊L/d⌋⌋⁺] (the kernel keeps the rational form [L/d]; its
    integral representation with [gcd(L, d) = 1] is unique); a constant one is its value. *)
Definition klog (L0 : lin) (dp : positive) : Q * list atm :=
  let L1 := lnorm L0 in
  match lterms L1 with
  | [] => (inject_Z (Z.log2 (lcst L1 / Zpos dp)), [])
  | _ => (1, [mkAtmK (fst (lgnorm L1 dp)) (snd (lgnorm L1 dp)) KLog])
  end.

(** [scanon L d D]: the symbolic floor atom [⌊⌊L/d⌋/D⌋⁺ = ⌊L/(d·D)⌋⁺] (the kernel's
    canonical [(floors LIN DLIN)]): with [D' = d·D] constant [c] the floor atom [⌊L/c⌋⁺]
    ([fcanon]; [0] when [c < 1]); else [L] and [D'] (normalized) divided by the gcd [g] of
    all their coefficients and constants, with [d = 1]. *)
Definition scanon (L0 : lin) (dp : positive) (D0 : lin) : Q * list atm :=
  let D1 := lnorm (lscale (Zpos dp) D0) in
  match lterms D1 with
  | [] => if (1 <=? lcst D1)%Z then fcanon L0 (Z.to_pos (lcst D1)) else (0, [])
  | _ => let L1 := lnorm L0 in
         let g := Z.gcd (lgcd L1) (lgcd D1) in
         if (g =? 0)%Z then (0, []) else (1, [mkAtmK (ldiv g L1) 1 (KFloorS (ldiv g D1))])
  end.

(** [acanon A = (f, m)]: [A = f·Π m]: a floor atom by [fcanon]; a log atom by [klog]; a
    quotient log atom with a constant divisor form [M] is the log atom of
    [L / (d·max(1, M))] (the kernel's [Atom::canonical]), else its [L], [d] as [lgnorm]
    and [M] normalized. *)
Definition acanon (A : atm) : Q * list atm :=
  match akd A with
  | KFl => fcanon (alin A) (adiv A)
  | KLog => klog (alin A) (adiv A)
  | KLogQ M =>
      let M1 := lnorm M in
      match lterms M1 with
      | [] => klog (alin A) (adiv A * Z.to_pos (Z.max 1 (lcst M1)))
      | _ => let L1 := lnorm (alin A) in
             (1, [mkAtmK (fst (lgnorm L1 (adiv A))) (snd (lgnorm L1 (adiv A))) (KLogQ M1)])
      end
  (* a residue atom (the kernel's [res_canonical]): a constant form is its value, [m = 1]
     is 0, else the atom with its form normalized *)
  | KRes M m =>
      let M1 := lnorm M in
      match lterms M1 with
      | [] => (inject_Z (if Z.eqb (Z.modulo (lcst M1) (Zpos m)) 0 then 0 else 1), [])
      | _ => if Pos.eqb m 1 then (0, []) else (1, [mkAtmK (mkLin 0 []) 1 (KRes M1 m)])
      end
  (* a window atom (the kernel's [win_canonical]): [w ≤ 0] is 0, [w ≥ m] is 1, a constant
     form is its value, else the atom with its form normalized *)
  | KWin M m w =>
      if (w <=? 0)%Z then (0, []) else if (Zpos m <=? w)%Z then (1, []) else
      let M1 := lnorm M in
      match lterms M1 with
      | [] => (inject_Z (if Z.ltb (Z.modulo (lcst M1) (Zpos m)) w then 1 else 0), [])
      | _ => (1, [mkAtmK (mkLin 0 []) 1 (KWin M1 m w)])
      end
  | KFloorS D => scanon (alin A) (adiv A) D
  end.

Lemma lcanon_val : forall rho L, latom rho L == fst (lcanon L) * mval rho (snd (lcanon L)).
Proof.
  intros rho L. unfold latom. rewrite <- (lnorm_eval rho L). unfold lcanon.
  set (L1 := lnorm L). clearbody L1.
  destruct (lterms L1) eqn:Ht; simpl.
  - unfold leval; rewrite Ht; simpl. rewrite Z.add_0_r. ring.
  - destruct (Z.eqb_spec (lgcd L1) 0) as [E|E]; simpl.
    + rewrite (lgcd_zero rho L1 E). reflexivity.
    + unfold atom, am; simpl; rewrite Z.div_1_r.
      rewrite (ldiv_eval rho L1 E). pose proof (lgcd_nonneg L1).
      rewrite Qmult_1_r, <- inject_Z_mult.
      set (x := leval rho (ldiv (lgcd L1) L1)).
      assert (Hx : Z.max 0 (lgcd L1 * x) = (lgcd L1 * Z.max 0 x)%Z).
      { destruct (Z.le_ge_cases 0 x); [rewrite !Z.max_r | rewrite !Z.max_l]; nia. }
      rewrite Hx. reflexivity.
Qed.

(** [g = gcd(L, d)] divides [L] and [d], with [d = g·(d/g)], [d/g > 0]. *)
Lemma gcd_div_facts : forall L1 d,
  (0 < Z.gcd (lgcd L1) (Zpos d))%Z /\ Z.divide (Z.gcd (lgcd L1) (Zpos d)) (lgcd L1) /\
  Zpos d = (Z.gcd (lgcd L1) (Zpos d) * (Zpos d / Z.gcd (lgcd L1) (Zpos d)))%Z /\
  (0 < Zpos d / Z.gcd (lgcd L1) (Zpos d))%Z.
Proof.
  intros L1 d. set (g := Z.gcd (lgcd L1) (Zpos d)).
  assert (Hg : (0 < g)%Z).
  { pose proof (Z.gcd_nonneg (lgcd L1) (Zpos d)).
    destruct (Z.eq_dec g 0) as [E|E]; [|unfold g in *; lia].
    apply Z.gcd_eq_0_r in E. discriminate. }
  assert (Hgd : Z.divide g (Zpos d)) by apply Z.gcd_divide_r.
  pose proof (div_exact g (Zpos d) ltac:(lia) Hgd) as Ed.
  split; [exact Hg|]. split; [apply Z.gcd_divide_l|]. split; [exact Ed|].
  destruct (Z.le_gt_cases (Zpos d / g) 0); [|lia]. nia.
Qed.

Lemma fcanon_val : forall rho L d,
  atom rho (mkAtm L d) == fst (fcanon L d) * mval rho (snd (fcanon L d)).
Proof.
  intros rho L d. unfold fcanon.
  destruct (Z.eqb_spec (Zpos d) 1) as [E1|E1].
  { injection E1 as ->. rewrite <- lcanon_val. unfold atom, latom; simpl. rewrite Z.div_1_r. reflexivity. }
  unfold atom at 1; cbn [alin adiv akd akval]. rewrite <- (lnorm_eval rho L).
  set (L1 := lnorm L). clearbody L1.
  destruct (lterms L1) eqn:Ht.
  - simpl. unfold leval; rewrite Ht; simpl. rewrite Z.add_0_r. ring.
  - set (g := Z.gcd (lgcd L1) (Zpos d)).
    destruct (gcd_div_facts L1 d) as [Hg [HgL [Ed Hd2]]]; fold g in Hg, HgL, Ed, Hd2.
    destruct (Z.eqb_spec (Zpos d / g) 1) as [E2|E2].
    + rewrite <- lcanon_val. unfold latom.
      assert (Egd : g = Zpos d) by (rewrite E2 in Ed; lia).
      rewrite (ldiv_eval_g rho L1 (Zpos d)) by first [lia | rewrite <- Egd; exact HgL].
      rewrite Z.mul_comm, Z.div_mul by lia. reflexivity.
    + simpl. unfold atom; cbn [alin adiv akd akval]. rewrite Z2Pos.id by lia.
      rewrite (ldiv_eval_g rho L1 g) by first [lia | exact HgL].
      rewrite Ed at 1. rewrite Z.div_mul_cancel_l by lia. ring.
Qed.

Lemma lgnorm_val : forall rho L d,
  (leval rho (fst (lgnorm L d)) / Zpos (snd (lgnorm L d)) = leval rho L / Zpos d)%Z.
Proof.
  intros rho L d. unfold lgnorm; cbn [fst snd]. rewrite <- (lnorm_eval rho L).
  set (L1 := lnorm L). clearbody L1.
  set (g := Z.gcd (lgcd L1) (Zpos d)).
  destruct (gcd_div_facts L1 d) as [Hg [HgL [Ed Hd2]]]; fold g in Hg, HgL, Ed, Hd2.
  rewrite Z2Pos.id by lia.
  rewrite (ldiv_eval_g rho L1 g) by first [lia | exact HgL].
  rewrite Ed at 2. rewrite Z.div_mul_cancel_l by lia. reflexivity.
Qed.

Lemma klog_val : forall rho L d,
  atom rho (mkAtmK L d KLog) == fst (klog L d) * mval rho (snd (klog L d)).
Proof.
  intros rho L d. unfold klog. unfold atom at 1; cbn [alin adiv akd akval].
  rewrite <- (lnorm_eval rho L). set (L1 := lnorm L). clearbody L1.
  destruct (lterms L1) eqn:Ht; cbn [fst snd mval fold_right].
  - unfold leval; rewrite Ht; simpl. rewrite Z.add_0_r. ring.
  - unfold atom; cbn [alin adiv akd akval]. rewrite lgnorm_val. ring.
Qed.

Lemma scanon_val : forall rho L d D,
  atom rho (mkAtmK L d (KFloorS D)) == fst (scanon L d D) * mval rho (snd (scanon L d D)).
Proof.
  intros rho L d D. unfold scanon. unfold atom at 1; cbn [alin adiv akd akval].
  assert (ED : leval rho (lnorm (lscale (Zpos d) D)) = (Zpos d * leval rho D)%Z)
    by (rewrite lnorm_eval, lscale_eval; reflexivity).
  set (D1 := lnorm (lscale (Zpos d) D)) in *. clearbody D1.
  destruct (lterms D1) eqn:Ht.
  - assert (EC : leval rho D1 = lcst D1) by (unfold leval; rewrite Ht; simpl; lia).
    destruct (Z.leb_spec 1 (lcst D1)) as [H1|H1].
    + rewrite <- fcanon_val. unfold atom; cbn [alin adiv akd akval].
      rewrite Z2Pos.id by lia.
      destruct (Z.leb_spec 1 (leval rho D)) as [H2|H2]; [|nia].
      rewrite <- EC, ED, Z.div_div by lia. reflexivity.
    + cbn [fst snd mval fold_right].
      destruct (Z.leb_spec 1 (leval rho D)) as [H2|H2]; [nia|]. reflexivity.
  - rewrite <- (lnorm_eval rho L). set (L1 := lnorm L). clearbody L1.
    set (g := Z.gcd (lgcd L1) (lgcd D1)).
    assert (Hg0 : (0 <= g)%Z) by apply Z.gcd_nonneg.
    destruct (Z.eqb_spec g 0) as [E0|E0].
    + apply Z.gcd_eq_0_r in E0. rewrite (lgcd_zero rho D1 E0) in ED.
      cbn [fst snd mval fold_right].
      destruct (Z.leb_spec 1 (leval rho D)) as [H2|H2]; [nia|]. reflexivity.
    + cbn [fst snd mval fold_right]. unfold atom; cbn [alin adiv akd akval].
      rewrite Z.div_1_r.
      assert (EL : leval rho L1 = (g * leval rho (ldiv g L1))%Z)
        by (apply ldiv_eval_g; [exact E0|apply Z.gcd_divide_l]).
      assert (EL2 : leval rho D1 = (g * leval rho (ldiv g D1))%Z)
        by (apply ldiv_eval_g; [exact E0|apply Z.gcd_divide_r]).
      rewrite ED in EL2.
      set (L2 := leval rho (ldiv g L1)) in *. set (D2 := leval rho (ldiv g D1)) in *.
      destruct (Z.leb_spec 1 (leval rho D)) as [H2|H2];
        destruct (Z.leb_spec 1 D2) as [H3|H3]; try nia.
      * rewrite Z.div_div by lia. rewrite EL2, EL, Z.div_mul_cancel_l by lia. ring.
      * ring.
Qed.

Lemma acanon_val : forall rho A, atom rho A == fst (acanon A) * mval rho (snd (acanon A)).
Proof.
  intros rho [L d [| |M|M m|M m w|D]]; unfold acanon; cbn [akd alin adiv].
  6: apply scanon_val.
  - apply fcanon_val.
  - apply klog_val.
  - destruct (lterms (lnorm M)) eqn:Hm.
    + rewrite <- klog_val. unfold atom; cbn [alin adiv akd akval].
      assert (EM : leval rho M = lcst (lnorm M))
        by (rewrite <- (lnorm_eval rho M); unfold leval; rewrite Hm; simpl; lia).
      rewrite EM, Pos2Z.inj_mul, Z2Pos.id by lia. rewrite Z.div_div by lia. reflexivity.
    + cbn [fst snd mval fold_right]. unfold atom; cbn [alin adiv akd akval].
      rewrite lgnorm_val, !lnorm_eval. ring.
  - destruct (lterms (lnorm M)) eqn:Hm.
    + assert (EM : leval rho M = lcst (lnorm M))
        by (rewrite <- (lnorm_eval rho M); unfold leval; rewrite Hm; simpl; lia).
      cbn [fst snd mval fold_right]. unfold atom; cbn [alin adiv akd akval].
      rewrite EM. ring.
    + destruct (Pos.eqb_spec m 1) as [E|E].
      * subst m. cbn [fst snd mval fold_right]. unfold atom; cbn [alin adiv akd akval].
        rewrite Z.mod_1_r. simpl. ring.
      * cbn [fst snd mval fold_right]. unfold atom; cbn [alin adiv akd akval].
        rewrite !lnorm_eval. ring.
  - unfold atom; cbn [alin adiv akd akval].
    pose proof (Z.mod_pos_bound (leval rho M) (Zpos m) ltac:(lia)) as Hb.
    destruct (Z.leb_spec w 0) as [Hw|Hw].
    { cbn [fst snd mval fold_right]. destruct (Z.ltb_spec (leval rho M mod Zpos m) w); [lia|].
      reflexivity. }
    destruct (Z.leb_spec (Zpos m) w) as [Hm|Hm].
    { cbn [fst snd mval fold_right]. destruct (Z.ltb_spec (leval rho M mod Zpos m) w); [|lia].
      reflexivity. }
    destruct (lterms (lnorm M)) eqn:HM.
    + assert (EM : leval rho M = lcst (lnorm M))
        by (rewrite <- (lnorm_eval rho M); unfold leval; rewrite HM; simpl; lia).
      cbn [fst snd mval fold_right]. rewrite EM. ring.
    + cbn [fst snd mval fold_right]. unfold atom; cbn [alin adiv akd akval].
      rewrite !lnorm_eval. ring.
Qed.

Lemma lcanon_one : forall L f A', lcanon L = (f, [A']) -> 0 < f.
Proof.
  intros L f A' H; unfold lcanon in H. destruct (lterms (lnorm L)); [inversion H|].
  destruct (Z.eqb_spec (lgcd (lnorm L)) 0) as [E|E]; inversion H; subst.
  pose proof (lgcd_nonneg (lnorm L)). unfold Qlt; simpl; lia.
Qed.

Lemma acanon_one : forall A f A', acanon A = (f, [A']) -> 0 < f.
Proof.
  intros [L d [| |M|M m|M m w|D]] f A' H; unfold acanon in H; cbn [alin adiv akd] in H.
  6: { unfold scanon in H. destruct (lterms (lnorm (lscale (Zpos d) D))).
       - destruct (1 <=? _)%Z; [|inversion H]. unfold fcanon in H.
         destruct (Z.eqb _ 1); [eapply lcanon_one; eauto|].
         destruct (lterms (lnorm L)); [inversion H|].
         destruct (Z.eqb _ 1); [eapply lcanon_one; eauto|]. inversion H; subst. reflexivity.
       - destruct (Z.eqb _ 0); inversion H; subst; reflexivity. }
  5: { destruct (w <=? 0)%Z; [inversion H|]. destruct (Zpos m <=? w)%Z; [inversion H|].
       destruct (lterms (lnorm M)); inversion H; subst; reflexivity. }
  4: { destruct (lterms (lnorm M)); [inversion H|].
       destruct (Pos.eqb m 1); inversion H; subst; reflexivity. }
  2: { unfold klog in H. destruct (lterms (lnorm L)); inversion H; subst; reflexivity. }
  2: { destruct (lterms (lnorm M)); [|inversion H; subst; reflexivity].
       unfold klog in H. destruct (lterms (lnorm L)); inversion H; subst; reflexivity. }
  unfold fcanon in H.
  destruct (Z.eqb (Zpos d) 1); [eapply lcanon_one; eauto|].
  destruct (lterms (lnorm L)); [inversion H|].
  destruct (Z.eqb _ 1); [eapply lcanon_one; eauto|]. inversion H; subst. reflexivity.
Qed.

(** *** Monomials: canonical form, multiset equality, merging *)
Definition mcanon (cm : Q * list atm) : Q * list atm :=
  fold_right (fun L acc => let fa := acanon L in (fst fa * fst acc, snd fa ++ snd acc))
    (fst cm, []) (snd cm).

Lemma mcanon_val : forall rho cm,
  fst (mcanon cm) * mval rho (snd (mcanon cm)) == fst cm * mval rho (snd cm).
Proof.
  intros rho [c m]; induction m as [|L m IH]; [simpl; ring|].
  change (mcanon (c, L :: m)) with
    (let fa := acanon L in (fst fa * fst (mcanon (c, m)), snd fa ++ snd (mcanon (c, m)))).
  cbv zeta. cbn [fst snd] in *. rewrite mval_app. cbn [mval fold_right]. fold (mval rho m).
  rewrite (acanon_val rho L). fold (mval rho m) in IH.
  set (a := mcanon (c, m)) in *. set (b := acanon L).
  transitivity (fst b * mval rho (snd b) * (fst a * mval rho (snd a))); [ring|].
  rewrite IH. ring.
Qed.

Fixpoint mremove (L : atm) (m : list atm) : option (list atm) :=
  match m with
  | [] => None
  | L' :: m' => if atm_eq_dec L L' then Some m' else option_map (cons L') (mremove L m')
  end.

Fixpoint meq (m1 m2 : list atm) : bool :=
  match m1 with
  | [] => match m2 with [] => true | _ => false end
  | L :: m1' => match mremove L m2 with Some m2' => meq m1' m2' | None => false end
  end.

Lemma mremove_val : forall rho L m m', mremove L m = Some m' ->
  mval rho m == atom rho L * mval rho m'.
Proof.
  intros rho L m; induction m as [|L' m IH]; intros m' H; simpl in H; [discriminate|].
  destruct (atm_eq_dec L L') as [<-|]; [inversion H; subst; simpl; ring|].
  destruct (mremove L m) as [m''|] eqn:E; simpl in H; [|discriminate]. inversion H; subst.
  simpl. rewrite (IH m'' eq_refl). ring.
Qed.

Lemma meq_val : forall rho m1 m2, meq m1 m2 = true -> mval rho m1 == mval rho m2.
Proof.
  intros rho m1; induction m1 as [|L m1 IH]; intros m2 H; simpl in H.
  - destruct m2; [reflexivity|discriminate].
  - destruct (mremove L m2) as [m2'|] eqn:E; [|discriminate].
    rewrite (mremove_val rho L m2 m2' E). simpl. rewrite (IH m2' H). reflexivity.
Qed.

Fixpoint minsert (c : Q) (m : list atm) (l : list (Q * list atm)) : list (Q * list atm) :=
  match l with
  | [] => [(c, m)]
  | (d, m') :: l' => if meq m m' then (c + d, m') :: l' else (d, m') :: minsert c m l'
  end.

Lemma minsert_sum : forall rho c m l, psum rho (minsert c m l) == c * mval rho m + psum rho l.
Proof.
  intros rho c m l; induction l as [|[d m'] l IH]; simpl; [ring|].
  destruct (meq m m') eqn:E; simpl.
  - rewrite (meq_val rho m m' E). ring.
  - rewrite IH. ring.
Qed.

(** Canonical monomials with equal atom multisets merged. *)
Definition pmerge (l : list (Q * list atm)) : list (Q * list atm) :=
  fold_right (fun cm acc => let c := mcanon cm in minsert (fst c) (snd c) acc) [] l.

Lemma pmerge_sum : forall rho l, psum rho (pmerge l) == psum rho l.
Proof.
  intros rho l; induction l as [|cm l IH]; simpl; [reflexivity|].
  rewrite minsert_sum, mcanon_val, IH. reflexivity.
Qed.

Definition pneg (l : list (Q * list atm)) : list (Q * list atm) :=
  map (fun cm => (- fst cm, snd cm)) l.

Lemma pneg_sum : forall rho l, psum rho (pneg l) == - psum rho l.
Proof. intros rho l; induction l as [|[c m] l IH]; simpl; [lra|]. rewrite IH; ring. Qed.

Lemma psum_nonneg : forall rho l, forallb (fun cm => Qle_bool 0 (fst cm)) l = true ->
  0 <= psum rho l.
Proof.
  intros rho l; induction l as [|[c m] l IH]; simpl; intros H; [lra|].
  apply andb_true_iff in H as [H1 H2]. apply Qle_bool_iff in H1.
  pose proof (mval_nonneg rho m). specialize (IH H2).
  assert (0 <= c * mval rho m) by (apply Qmult_le_0_compat; auto). lra.
Qed.

(** [pot_ge Q1 Q2]: every coefficient of [Q1 − Q2] (canonical monomials merged, the
    constant term included) is [≥ 0]; since monomials are [≥ 0], [Q1 ≥ Q2] everywhere. *)
Definition pot_ge (Q1 Q2 : pot) : bool :=
  forallb (fun cm => Qle_bool 0 (fst cm))
    (pmerge ((pcst Q1 - pcst Q2, []) :: pterms Q1 ++ pneg (pterms Q2))).

Lemma pot_ge_sound : forall rho Q1 Q2, pot_ge Q1 Q2 = true -> pval rho Q2 <= pval rho Q1.
Proof.
  intros rho Q1 Q2 H. unfold pot_ge in H. pose proof (psum_nonneg rho _ H) as H3.
  rewrite pmerge_sum in H3. simpl in H3. rewrite psum_app, pneg_sum in H3.
  unfold pval. lra.
Qed.

Definition padd (Q1 : pot) (k : Q) : pot := mkPot (pcst Q1 + k) (pterms Q1).
Lemma padd_val : forall rho Q1 k, pval rho (padd Q1 k) == pval rho Q1 + k.
Proof. intros; unfold pval, padd; simpl; lra. Qed.

Definition pnonneg (Q1 : pot) : bool :=
  Qle_bool 0 (pcst Q1) && forallb (fun cm => Qle_bool 0 (fst cm)) (pterms Q1).
Lemma pnonneg_sound : forall rho Q1, pnonneg Q1 = true -> 0 <= pval rho Q1.
Proof.
  intros rho Q1 H; apply andb_true_iff in H as [H1 H2]; apply Qle_bool_iff in H1.
  pose proof (psum_nonneg rho _ H2); unfold pval; lra.
Qed.

(** Substitution in potentials and the variables a potential mentions. *)
Definition psubst (x : var) (E : lin) (Q1 : pot) : pot :=
  mkPot (pcst Q1) (map (fun cm => (fst cm, map (amap (lsubst x E)) (snd cm))) (pterms Q1)).

Lemma akval_kmap_subst : forall rho x E k q,
  akval rho (kmap (lsubst x E) k) q = akval (upd rho x (leval rho E)) k q.
Proof. intros rho x E [| |M|M m|M m w|D] q; simpl; auto; rewrite lsubst_eval; reflexivity. Qed.

Lemma psubst_val : forall rho x E Q1,
  pval rho (psubst x E Q1) == pval (upd rho x (leval rho E)) Q1.
Proof.
  intros rho x E [c l]; unfold pval, psubst; cbn [pcst pterms].
  assert (Hm : forall m, mval rho (map (amap (lsubst x E)) m) = mval (upd rho x (leval rho E)) m).
  { induction m as [|L m IH]; [reflexivity|]. cbn [map mval fold_right].
    fold (mval rho (map (amap (lsubst x E)) m)). fold (mval (upd rho x (leval rho E)) m).
    rewrite IH. unfold atom at 1, amap; cbn [alin adiv akd]. rewrite lsubst_eval, akval_kmap_subst.
    reflexivity. }
  induction l as [|[d m] l IH]; [cbn; lra|]. cbn [map psum fold_right fst snd] in *.
  fold (psum rho (map (fun cm => (fst cm, map (amap (lsubst x E)) (snd cm))) l)) in *.
  fold (psum (upd rho x (leval rho E)) l) in *. rewrite Hm. lra.
Qed.

Definition amentions (x : var) (A : atm) : bool := existsb (mentions x) (aforms A).
Definition pmentions (x : var) (Q1 : pot) : bool :=
  existsb (fun cm => existsb (amentions x) (snd cm)) (pterms Q1).

Lemma atom_upd_notin : forall rho x z A, amentions x A = false ->
  atom (upd rho x z) A = atom rho A.
Proof.
  intros rho x z [L d [| |M|M m|M m w|M]]; unfold amentions, aforms, atom; cbn [alin adiv akd akval existsb];
    intros H; repeat rewrite orb_false_r in H; try (apply orb_false_iff in H as [H H']);
    try rewrite (leval_upd_notin rho x z L) by auto; try rewrite (leval_upd_notin rho x z M) by auto; reflexivity.
Qed.

Lemma pval_upd_notin : forall rho x z Q1, pmentions x Q1 = false ->
  pval (upd rho x z) Q1 == pval rho Q1.
Proof.
  intros rho x z [c l]; unfold pmentions, pval; simpl; intros H.
  assert (Hm : forall m, existsb (amentions x) m = false -> mval (upd rho x z) m = mval rho m).
  { induction m as [|L m IH]; simpl; intros Hm; auto. apply orb_false_iff in Hm as [H1 H2].
    rewrite atom_upd_notin, IH by auto. reflexivity. }
  induction l as [|[d m] l IH]; simpl in *; [lra|].
  apply orb_false_iff in H as [H1 H2]. rewrite Hm by auto. specialize (IH H2). lra.
Qed.

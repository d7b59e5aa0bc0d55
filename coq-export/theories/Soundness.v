(** * Soundness of the logic (RaCUDA Lemma 2, Theorem 1) for the
    representations of Logic.v, against the cost semantics of Semantics.v. *)
From Coq Require Import ZArith QArith List Bool Arith Lia Lqa.
From WarpCert Require Import Metric Syntax Semantics Lin Shift Guard Logic IntRw.
From WarpCert Require Log.
From Coq Require Znumtheory.
Import ListNotations.

Section Sound.
Variable G : ctx.
Let M := c_metric G.

(** The claimed warp-uniform dimensions are warp-uniform (Check.check_root verifies it). *)
Definition wu_sound : Prop := forall d, In d (c_wu G) ->
  forall w t t', In t (lanes G w) -> In t' (lanes G w) -> tid G d t = tid G d t'.
Hypothesis HWU : wu_sound.

(** The integer environment of thread [t]. *)
Definition rho (ps : nat -> val) (s : store) (t : nat) : var -> Z :=
  fun v => match v with VL x => int_of (sl s x t) | VP p => int_of (ps p) | VT d => tid G d t end.

(** The meaning of a row multiplier [(? p a b)] for the lane coefficient [k']: its
    coefficient on [u] is [a·p + b], [p] an [int] parameter (spec/logic.md §1 "Row
    multipliers"). *)
Definition msem (ps : nat -> val) (u : ubits) (k' : trip) (m : option rmul) : Prop :=
  match m with
  | None => True
  | Some (p, a, b) => c_pty G p = Some TInt /\ ucoef u k' = (a * int_of (ps p) + b)%Z
  end.

(** The meaning of a dependence entry on the active threads [T] (spec/logic.md §1). A
    linear entry of a [bool]/[float] local (only [(dep x 0 0 0 0 1)] is well-formed)
    means that its value is the same on all active threads. *)
Definition esat (ps : nat -> val) (s : store) (T : list nat) (d : dent) : Prop :=
  match d with
  | DLin x k r g =>
      match c_lty G x with
      | Some TInt => exists c : Z, Z.divide g (c - r)%Z /\
                     forall t, In t T -> int_of (sl s x t) = (kval G k t + c)%Z
      | _ => forall t t', In t T -> In t' T -> sl s x t = sl s x t'
      end
  | DRem x k r m => c_lty G x = Some TInt /\ forall t, In t T ->
      Z.divide m (int_of (sl s x t) - (kval G k t + r))%Z /\ (- m < int_of (sl s x t) < m)%Z
  | DRng x w => c_lty G x = Some TInt /\
      exists c : Z, forall t, In t T -> (c <= int_of (sl s x t) <= c + w)%Z
  | DScl x u k r g m => c_lty G x = Some TInt /\
      exists k' c, kmask u k' = kmask u k /\ Z.divide g (c - r)%Z /\ msem ps u k' m /\
                   forall t, In t T -> int_of (sl s x t) = (kval G k' t + c)%Z
  | DWrap x k m => c_lty G x = Some TInt /\
      exists c : Z, forall t, In t T -> int_of (sl s x t) = Z.rem (kval G k t + c) m
  end.
Definition dsat (ps : nat -> val) (s : store) (T : list nat) (D : list dent) : Prop := forall d, In d D -> esat ps s T d.

(** [σ, 𝒯 ⊨ {P; D; _}]: [P] holds in every active thread; [D] holds on [𝒯]. *)
Definition sat_assn (ps : nat -> val) (A : assn) (s : store) (T : list nat) : Prop :=
  (forall t, In t T -> sat (rho ps s t) (aP A)) /\ dsat ps s T (aD A).

(** Well-typed stores and parameter values (RaCUDA's [Σ ⊢_𝒯 σ]). *)
Definition wt (s : store) : Prop :=
  forall x ty, c_lty G x = Some ty -> forall t, has_type (sl s x t) ty = true.
Definition pok (ps : nat -> val) : Prop :=
  forall p ty, c_pty G p = Some ty -> has_type (ps p) ty = true.

(** Semantic validity of a triple on every non-empty set of threads of one warp: the
    potential is evaluated per thread (for well-formed assertions it has one value on
    all active threads). *)
Definition valid (A : assn) (st : stmt) (A' : assn) : Prop :=
  forall F ps s T s' C w, pok ps -> NoDup T -> T <> [] -> incl T (lanes G w) -> wt s ->
  sat_assn ps A s T -> seval G F ps s st T s' C ->
  sat_assn ps A' s' T /\
  forall t, In t T -> C + pval (rho ps s' t) (aQ A') <= pval (rho ps s t) (aQ A).

(** ** Extensionality of evaluation in the environment *)
Lemma tsum_ext : forall r1 r2 l, (forall a v, In (a, v) l -> r1 v = r2 v) -> tsum r1 l = tsum r2 l.
Proof.
  intros r1 r2 l H; induction l as [|[a v] l IH]; simpl; auto.
  rewrite (H a v) by (left; auto). rewrite IH; auto. intros; eapply H; right; eauto.
Qed.

Lemma leval_ext : forall r1 r2 L, (forall a v, In (a, v) (lterms L) -> r1 v = r2 v) ->
  leval r1 L = leval r2 L.
Proof. intros; unfold leval; rewrite (tsum_ext r1 r2); auto. Qed.

Lemma sat_ext : forall r1 r2 P, (forall v, r1 v = r2 v) -> sat r1 P -> sat r2 P.
Proof.
  intros r1 r2 P H HP c Hc. specialize (HP c Hc).
  destruct c as [L|L|L m rs]; simpl in *; rewrite <- (leval_ext r1 r2); auto.
Qed.

Lemma atom_ext : forall r1 r2 A,
  (forall a v, In (a, v) (avars A) -> r1 v = r2 v) -> atom r1 A = atom r2 A.
Proof.
  intros r1 r2 [L d k] H. unfold atom; cbn [alin adiv akd].
  assert (HL : leval r1 L = leval r2 L).
  { apply leval_ext; intros a v Hv; apply (H a v); unfold avars, aforms; cbn [flat_map alin].
    apply in_or_app; left; exact Hv. }
  rewrite HL. destruct k as [| |Mf|Mf m|Mf m w|Mf]; cbn [akval]; auto.
  all: assert (HM : leval r1 Mf = leval r2 Mf) by
    (apply leval_ext; intros a v Hv; apply (H a v); unfold avars, aforms; cbn [flat_map alin akd];
     apply in_or_app; right; rewrite app_nil_r; exact Hv).
  all: rewrite HM; reflexivity.
Qed.

Lemma mval_ext : forall r1 r2 m,
  (forall L a v, In L m -> In (a, v) (avars L) -> r1 v = r2 v) -> mval r1 m = mval r2 m.
Proof.
  intros r1 r2 m H; induction m as [|L m IH]; simpl; auto.
  rewrite (atom_ext r1 r2 L) by (intros; eapply H; [left|]; eauto).
  rewrite IH; auto. intros; eapply H; [right|]; eauto.
Qed.

Lemma psum_ext : forall r1 r2 l,
  (forall c m L a v, In (c, m) l -> In L m -> In (a, v) (avars L) -> r1 v = r2 v) ->
  psum r1 l = psum r2 l.
Proof.
  intros r1 r2 l H; induction l as [|[c m] l IH]; simpl; auto.
  rewrite (mval_ext r1 r2 m) by (intros; eapply H; [left|..]; eauto).
  rewrite IH; auto. intros; eapply H; [right|..]; eauto.
Qed.

Lemma pval_ext : forall r1 r2 Q1, (forall v, r1 v = r2 v) -> pval r1 Q1 = pval r2 Q1.
Proof. intros; unfold pval; rewrite (psum_ext r1 r2); auto. Qed.

Lemma memn_In : forall x X, memn x X = true <-> In x X.
Proof.
  intros x X; unfold memn; rewrite existsb_exists; split.
  - intros [y [Hy E]]; apply Nat.eqb_eq in E; subst; auto.
  - intros H; exists x; split; auto; apply Nat.eqb_refl.
Qed.

Lemma memb_In : forall t T, memb t T = true <-> In t T.
Proof. intros; unfold memb; apply memn_In. Qed.

(** The variables of a potential accepted by [pvars_ok X] (the root's bound: [X = []]). *)
Lemma pvars_ok_var : forall X Q1 c m L a v, pvars_ok X Q1 = true -> In (c, m) (pterms Q1) ->
  In L m -> In (a, v) (avars L) ->
  match v with VP _ => True | VL x => memn x X = true | VT _ => False end.
Proof.
  intros X Q1 c m L a v Hok Hcm HL Hav. unfold pvars_ok in Hok. rewrite forallb_forall in Hok.
  specialize (Hok _ Hcm). rewrite forallb_forall in Hok. specialize (Hok _ HL).
  unfold lvars_ok in Hok. rewrite forallb_forall in Hok. specialize (Hok _ Hav).
  destruct v; simpl in *; auto; discriminate.
Qed.


(** ** Frame properties of the semantics *)
Lemma set_local_other : forall s x T R y t, (y <> x \/ ~ In t T) ->
  sl (set_local s x T R) y t = sl s y t.
Proof.
  intros s x T R y t H; simpl. destruct (Nat.eqb_spec y x); simpl; auto.
  destruct (memb t T) eqn:E; auto. apply memb_In in E. destruct H; contradiction.
Qed.

Lemma filter_notin : forall f (T : list nat) t, ~ In t T -> ~ In t (filter f T).
Proof. intros f T t H Hin; apply filter_In in Hin; tauto. Qed.

Ltac use_frame_ih :=
  repeat (match goal with
          | IH : forall x t, ?C -> sl ?a x t = sl ?b x t |- context[sl ?a _ _] =>
              rewrite IH by (auto using filter_notin; rewrite ?in_app_iff; tauto); clear IH
          end); auto.

Lemma frame_threads : forall F ps s st T s' C, seval G F ps s st T s' C ->
  forall x t, ~ In t T -> sl s' x t = sl s x t.
Proof.
  intros F ps s st T s' C H; induction H; intros y u Hu; try reflexivity; use_frame_ih.
  all: apply set_local_other; auto.
Qed.

Lemma frame_writes : forall F ps s st T s' C, seval G F ps s st T s' C ->
  forall x t, ~ In x (writes st) -> sl s' x t = sl s x t.
Proof.
  intros F ps s st T s' C H; induction H; intros y u Hu; simpl in Hu;
    rewrite ?in_app_iff in Hu; try reflexivity; use_frame_ih.
  all: apply set_local_other; left; intros ->; auto.
Qed.

Lemma run_wt : forall F ps s st T s' C, seval G F ps s st T s' C -> wt s -> wt s'.
Proof.
  intros F ps s st T s' C H; induction H; intros Hw; auto;
    intros y ty' Hy u; simpl; (destruct (Nat.eqb_spec y x); simpl; [subst|apply Hw; auto]);
    (destruct (memb u T) eqn:E; [|apply Hw; auto]); apply memb_In in E.
  - match goal with Hx : c_lty G ?z = Some ?a, Hz : c_lty G ?z = Some ?b |- _ =>
      assert (a = b) by congruence; try subst end. auto.
  - (* SC:SHFL: a lane gets the value of an active lane or its own *)
    match goal with Hx : c_lty G ?z = Some ?a, Hz : c_lty G ?z = Some ?b |- _ =>
      assert (a = b) by congruence; try subst end. unfold shfl_fam.
    destruct (shfl_src _ _ _ _ _) as [j|]; [destruct (memb j T) eqn:E2|]; auto.
    apply memb_In in E2. auto.
  - (* SC:VOTE: an int *)
    match goal with Hx : c_lty G ?z = Some ?a, Hz : c_lty G ?z = Some ?b |- _ =>
      assert (a = b) by congruence; try subst end. unfold vote_val. destruct k; reflexivity.
Qed.

Lemma rho_set_local : forall ps s x T R t v, In t T ->
  rho ps (set_local s x T R) t v = upd (rho ps s t) (VL x) (int_of (R t)) v.
Proof.
  intros ps s x T R t v Ht. apply memb_In in Ht. unfold upd, rho. destruct v as [y|p|d]; simpl.
  - destruct (Nat.eqb_spec y x) as [->|Hne]; simpl.
    + rewrite Ht, Nat.eqb_refl; reflexivity.
    + destruct (Nat.eqb_spec (y + (y + (y + 0))) (x + (x + (x + 0)))); [lia|]. reflexivity.
  - destruct (Nat.eqb_spec (p + (p + (p + 0)) + 1) (x + (x + (x + 0)))); [lia|]; auto.
  - destruct (Nat.eqb_spec (d + (d + (d + 0)) + 2) (x + (x + (x + 0)))); [lia|]; auto.
Qed.


(** ** Dependence entries *)
Lemma kval_tid : forall d t, kval G (tid_k d) t = tid G d t.
Proof. intros [|[|[|d]]] t; unfold kval, tid_k, tid; cbv beta iota zeta; lia. Qed.
Lemma kval_tadd : forall a b t, kval G (tadd a b) t = (kval G a t + kval G b t)%Z.
Proof. intros [[a1 a2] a3] [[b1 b2] b3] t; unfold kval, tadd; lia. Qed.
Lemma kval_tscale : forall c a t, kval G (tscale c a) t = (c * kval G a t)%Z.
Proof. intros c [[a1 a2] a3] t; unfold kval, tscale; lia. Qed.
Lemma kzero_eq : forall k, kzero k = true -> k = (0, 0, 0)%Z.
Proof. intros k H; unfold kzero, trip_eqb in H; destruct (trip_eq_dec k (0, 0, 0)%Z); congruence. Qed.
Lemma kval_zero : forall t, kval G (0, 0, 0)%Z t = 0%Z.
Proof. intros t; unfold kval; lia. Qed.

Lemma kval_wu : forall k w t t', kwu G k = true -> In t (lanes G w) -> In t' (lanes G w) ->
  kval G k t = kval G k t'.
Proof.
  intros [[kx ky] kz] w t t' H Ht Ht'. unfold kwu in H. repeat rewrite andb_true_iff in H.
  destruct H as [[H1 H2] H3]. unfold kval.
  assert (E : forall d kd, ((kd =? 0)%Z || memn d (c_wu G)) = true -> (kd * tid G d t = kd * tid G d t')%Z).
  { intros d kd Hd. apply orb_true_iff in Hd as [Hd|Hd].
    - apply Z.eqb_eq in Hd; subst; lia.
    - rewrite (HWU d (proj1 (memn_In d _) Hd) w t t' Ht Ht'); auto. }
  rewrite (E 0%nat kx), (E 1%nat ky), (E 2%nat kz); auto.
Qed.

Lemma dget_In : forall D x d, dget D x = Some d -> In d D /\ dvar d = x.
Proof.
  intros D x d; induction D as [|d' D IH]; simpl; intros H; [discriminate|].
  destruct (Nat.eqb_spec (dvar d') x); [inversion H; subst; auto|].
  destruct (IH H); auto.
Qed.

Lemma esat_sub {ps : nat -> val} : forall s T T' d, incl T' T -> esat ps s T d -> esat ps s T' d.
Proof.
  intros s T T' [x k r g|x k r m|x w|x u k r g mm|x k m] Hi H; simpl in *.
  - destruct (c_lty G x) as [[]|]; try (intros; apply H; auto).
    destruct H as [c [Hc H]]; exists c; split; auto.
  - destruct H as [Ht H]; split; auto.
  - destruct H as [Ht [c H]]; split; auto; exists c; auto.
  - destruct H as [Ht [k' [c [Hk [Hc [Hm H]]]]]]; split; auto; exists k', c; repeat split; auto.
  - destruct H as [Ht [c H]]; split; auto; exists c; auto.
Qed.

Lemma esat_frame {ps : nat -> val} : forall s s' T d, (forall t, In t T -> sl s' (dvar d) t = sl s (dvar d) t) ->
  esat ps s T d -> esat ps s' T d.
Proof.
  intros s s' T [x k r g|x k r m|x w|x u k r g mm|x k m] Hf H; simpl in *.
  - destruct (c_lty G x) as [[]|]; try (intros t t' Ht Ht'; rewrite !Hf by auto; apply H; auto).
    destruct H as [c [Hc H]]; exists c; split; auto. intros t Ht; rewrite Hf; auto.
  - destruct H as [Ht H]; split; auto. intros t Ht'; rewrite Hf; auto.
  - destruct H as [Ht [c H]]; split; auto; exists c; intros t Ht'; rewrite Hf; auto.
  - destruct H as [Ht [k' [c [Hk [Hc [Hm H]]]]]]; split; auto; exists k', c;
      repeat split; auto; intros t Ht'; rewrite Hf; auto.
  - destruct H as [Ht [c H]]; split; auto; exists c; intros t Ht'; rewrite Hf; auto.
Qed.

Lemma dsat_sub {ps : nat -> val} : forall s T T' D, incl T' T -> dsat ps s T D -> dsat ps s T' D.
Proof. intros s T T' D Hi H d Hd; eapply esat_sub; eauto. Qed.

Lemma ubits_eqb_eq : forall a b, ubits_eqb a b = true -> a = b.
Proof.
  intros [[a1 a2] a3] [[b1 b2] b3] H. simpl in H. repeat rewrite andb_true_iff in H.
  destruct H as [[H1 H2] H3]. apply eqb_prop in H1, H2, H3. subst; auto.
Qed.

(** The congruence [c ≡ r1 (mod g1)] implies [c ≡ r2 (mod g2)]. *)
Lemma cimplies_sound : forall r1 g1 r2 g2 c, cimplies r1 g1 r2 g2 = true ->
  Z.divide g1 (c - r1) -> Z.divide g2 (c - r2).
Proof.
  intros r1 g1 r2 g2 c H Hc. unfold cimplies in H.
  destruct (Z.eqb_spec g2 0) as [->|Hg].
  - apply andb_true_iff in H as [H1 H2]. apply Z.eqb_eq in H1, H2. subst. auto.
  - apply andb_true_iff in H as [H1 H2]. apply Z.eqb_eq in H1, H2.
    apply Z.mod_divide in H1; auto. apply Z.mod_divide in H2; auto.
    replace (c - r2)%Z with ((c - r1) + (r1 - r2))%Z by lia.
    apply Z.divide_add_r; [exact (Z.divide_trans _ _ _ H1 Hc) | exact H2].
Qed.

Lemma eimplies_sound {ps : nat -> val} : forall s T d1 d2, eimplies d1 d2 = true -> esat ps s T d1 -> esat ps s T d2.
Proof.
  intros s T [x1 k1 r1 g1|x1 k1 r1 m1|x1 w1|x1 u1 k1 r1 g1 mm1|x1 k1 m1]
    [x2 k2 r2 g2|x2 k2 r2 m2|x2 w2|x2 u2 k2 r2 g2 mm2|x2 k2 m2] H E;
    simpl in H; try discriminate; repeat rewrite andb_true_iff in H.
  - destruct H as [[Hx Hk] H]. apply Nat.eqb_eq in Hx; subst x2.
    unfold trip_eqb in Hk; destruct (trip_eq_dec k1 k2); [subst k2|discriminate].
    simpl in *. destruct (c_lty G x1) as [[]|]; auto.
    destruct E as [c [Hc E]]. exists c; split; eauto using cimplies_sound.
  - destruct H as [[[Hx Hk] Hr] Hm]. apply Nat.eqb_eq in Hx; apply Z.eqb_eq in Hr, Hm; subst.
    unfold trip_eqb in Hk; destruct (trip_eq_dec k1 k2); [subst k2|discriminate]. auto.
  - destruct H as [Hx Hw]. apply Nat.eqb_eq in Hx; apply Z.leb_le in Hw; subst.
    destruct E as [Ht [c E]]; split; auto; exists c; intros t Ht'; specialize (E t Ht'); lia.
  - destruct H as [[[[Hx Hu] Hk] H] HM]. apply Nat.eqb_eq in Hx; subst x2. apply ubits_eqb_eq in Hu; subst u2.
    unfold trip_eqb in Hk; destruct (trip_eq_dec k1 k2); [subst k2|discriminate].
    destruct E as [Ht [k' [c [Hk' [Hc [Hm E]]]]]]. split; auto. exists k', c.
    repeat split; eauto using cimplies_sound.
    unfold mimplies in HM. destruct mm2 as [m2|]; [|exact I].
    destruct (rmul_eq_dec mm1 (Some m2)) as [<-|]; [exact Hm|discriminate].
  - destruct H as [[Hx Hk] Hm]. apply Nat.eqb_eq in Hx; apply Z.eqb_eq in Hm; subst.
    unfold trip_eqb in Hk; destruct (trip_eq_dec k1 k2); [subst k2|discriminate]. auto.
Qed.

Lemma dcovers_sound {ps : nat -> val} : forall s T D1 D2, dcovers D1 D2 = true -> dsat ps s T D1 -> dsat ps s T D2.
Proof.
  intros s T D1 D2 H E d Hd. unfold dcovers in H. rewrite forallb_forall in H.
  specialize (H d Hd). apply existsb_exists in H as [d1 [Hd1 H]].
  eapply eimplies_sound; eauto.
Qed.

(** The locals of [dunif D] have the same value on all active threads of one warp. *)
Lemma dunif_sound {ps : nat -> val} : forall s T D w, wt s -> incl T (lanes G w) -> dsat ps s T D ->
  forall x, memn x (dunif G D) = true -> forall t t', In t T -> In t' T -> sl s x t = sl s x t'.
Proof.
  intros s T D w Hw Hi HD x Hx t t' Ht Ht'. apply memn_In in Hx. unfold dunif in Hx.
  apply in_flat_map in Hx as [d [Hd Hx]].
  destruct d as [y k r g| | | |]; try contradiction.
  destruct (kwu G k) eqn:Hk; [|contradiction]. destruct Hx as [<-|[]].
  specialize (HD _ Hd). simpl in HD. destruct (c_lty G y) as [[]|] eqn:Ey; auto.
  destruct HD as [c [_ HD]].
  pose proof (Hw y TInt Ey t) as H1. pose proof (Hw y TInt Ey t') as H2.
  pose proof (HD t Ht) as E1. pose proof (HD t' Ht') as E2.
  rewrite (kval_wu k w t t') in E1 by auto.
  destruct (sl s y t), (sl s y t'); try discriminate. simpl in *. congruence.
Qed.

(** ** Potentials uniform under [D] *)
Lemma lin_k_terms : forall ps s T D l k, dsat ps s T D ->
  fold_right (fun av acc =>
    match acc with
    | None => None
    | Some ka =>
        match snd av with
        | VP _ => Some ka
        | VT d => Some (tadd ka (tscale (fst av) (tid_k d)))
        | VL x => match c_lty G x, dget D x with
                  | Some TInt, Some (DLin _ k _ _) => Some (tadd ka (tscale (fst av) k))
                  | _, _ => None
                  end
        end
    end) (Some (0, 0, 0)%Z) l = Some k ->
  exists B, forall t, In t T -> tsum (rho ps s t) l = (B + kval G k t)%Z.
Proof.
  intros ps s T D l; induction l as [|[a v] l IH]; intros k HD H; simpl in H.
  - inversion H; subst. exists 0%Z. intros t _. unfold kval. simpl. lia.
  - destruct (fold_right _ _ l) as [ka|] eqn:El; [|discriminate].
    destruct (IH ka HD eq_refl) as [B HB].
    destruct v as [x|p|d]; simpl in H.
    + destruct (c_lty G x) as [[]|] eqn:Ex; try discriminate.
      destruct (dget D x) as [[y k' r g| | | |]|] eqn:Ed; try discriminate.
      inversion H; subst. destruct (dget_In _ _ _ Ed) as [Hin Hy]; simpl in Hy; subst y.
      specialize (HD _ Hin). simpl in HD. rewrite Ex in HD. destruct HD as [c [_ HD]].
      exists (a * c + B)%Z. intros t Ht. simpl. rewrite HD, HB by auto.
      rewrite kval_tadd, kval_tscale. lia.
    + inversion H; subst. exists (a * int_of (ps p) + B)%Z. intros t Ht. simpl.
      rewrite HB by auto. lia.
    + inversion H; subst. exists B. intros t Ht. simpl. rewrite HB by auto.
      rewrite kval_tadd, kval_tscale, kval_tid. lia.
Qed.

Lemma luni_sound : forall ps s T D L, dsat ps s T D -> luni G D L = true ->
  forall t t', In t T -> In t' T -> leval (rho ps s t) L = leval (rho ps s t') L.
Proof.
  intros ps s T D L HD H t t' Ht Ht'. unfold luni, lin_k in H.
  destruct (fold_right _ _ (lterms L)) as [k|] eqn:E; [|discriminate].
  apply kzero_eq in H; subst k.
  destruct (lin_k_terms ps s T D (lterms L) _ HD E) as [B HB].
  unfold leval. rewrite !HB by auto. rewrite !kval_zero. lia.
Qed.

(** A potential uniform under [D] has one value on all active threads. *)
Lemma puni_sound : forall ps s T D Q1, dsat ps s T D -> puni G D Q1 = true ->
  forall t t', In t T -> In t' T -> pval (rho ps s t) Q1 = pval (rho ps s t') Q1.
Proof.
  intros ps s T D [c l] HD H t t' Ht Ht'.
  assert (Hm : forall m, forallb (fun A => forallb (luni G D) (aforms A)) m = true ->
    mval (rho ps s t) m = mval (rho ps s t') m).
  { induction m as [|L m IHm]; intros Hm; [reflexivity|].
    apply andb_true_iff in Hm as [H1 H2].
    change (mval (rho ps s t) (L :: m)) with (atom (rho ps s t) L * mval (rho ps s t) m).
    change (mval (rho ps s t') (L :: m)) with (atom (rho ps s t') L * mval (rho ps s t') m).
    rewrite IHm by auto. f_equal.
    destruct L as [L d [| |Mf|Mf mr|Mf mr wr|Mf]]; unfold aforms in H1; cbn [forallb alin akd] in H1;
      rewrite ?andb_true_r in H1; try (apply andb_true_iff in H1 as [H1 H1']);
      unfold atom; cbn [alin adiv akd akval];
      try rewrite (luni_sound ps s T D L HD H1 t t' Ht Ht'); auto.
    all: rewrite (luni_sound ps s T D Mf HD H1' t t' Ht Ht'); reflexivity. }
  unfold pval; simpl; f_equal.
  unfold puni in H; simpl in H. rewrite forallb_forall in H.
  induction l as [|[d m] l IH]; simpl; auto.
  rewrite IH by (intros x Hx; apply H; right; auto).
  rewrite (Hm m (H (d, m) (or_introl eq_refl))). reflexivity.
Qed.

(** ** Access counts *)
Lemma filter_length_le : forall A f (l : list A), (length (filter f l) <= length l)%nat.
Proof. intros A f l; induction l as [|a l IH]; simpl; auto. destruct (f a); simpl; lia. Qed.

Lemma lanes_length : forall w, (length (lanes G w) <= c_warp G)%nat.
Proof.
  intros w; unfold lanes. pose proof (filter_length_le _ (fun t => t <? c_bx G * c_by G * c_bz G)
    (seq (c_warp G * w) (c_warp G))). rewrite seq_length in H. exact H.
Qed.

Lemma active_le_warp : forall T w, NoDup T -> incl T (lanes G w) -> (length T <= c_warp G)%nat.
Proof.
  intros T w Hn Hi. pose proof (NoDup_incl_length Hn Hi). pose proof (lanes_length w). lia.
Qed.

Lemma nodup_length_le : forall (l : list Z), (length (nodup Z.eq_dec l) <= length l)%nat.
Proof.
  intros l. induction l as [|a l IH]; simpl; auto. destruct (in_dec Z.eq_dec a l); simpl; lia.
Qed.

Lemma memreads_le : forall es T R w, NoDup T -> incl T (lanes G w) ->
  (memreads G es T R <= Z.of_nat (c_warp G))%Z.
Proof.
  intros es T R w Hn Hi. unfold memreads. pose proof (active_le_warp T w Hn Hi).
  pose proof (nodup_length_le (map (fun t => (int_of (R t) * es) / c_sector_bytes G)%Z T)).
  rewrite map_length in H0. lia.
Qed.

Lemma fold_max_le : forall (l : list Z) b, (0 <= b)%Z -> (forall x, In x l -> x <= b)%Z ->
  (fold_right Z.max 0 l <= b)%Z.
Proof.
  intros l b Hb H; induction l as [|a l IH]; simpl; auto.
  apply Z.max_lub; [apply H; left; auto | apply IH; intros; apply H; right; auto].
Qed.


Lemma conflicts_le : forall es T R w, NoDup T -> incl T (lanes G w) ->
  (conflicts_of G es T R <= Z.of_nat (c_warp G))%Z.
Proof.
  intros es T R w Hn Hi. unfold conflicts_of. pose proof (active_le_warp T w Hn Hi).
  apply fold_max_le; [lia|]. intros x Hx. apply in_map_iff in Hx as [j [<- _]].
  pose proof (filter_length_le _ (fun i => (bank G es i =? j)%Z)
               (nodup Z.eq_dec (map (fun t => int_of (R t)) T))).
  pose proof (nodup_length_le (map (fun t => int_of (R t)) T)). rewrite map_length in H1. lia.
Qed.

(** ** Dependence-based access bounds (MemReads) *)
Lemma nonempty_elem : forall (l : list nat), l <> [] -> exists x, In x l.
Proof. intros [|a l] H; [contradiction|exists a; left; auto]. Qed.

Lemma fold_max_in : forall (l : list Z) x, In x l -> (x <= fold_right Z.max 0 l)%Z.
Proof.
  induction l as [|a l IH]; simpl; intros x H; [contradiction|].
  destruct H as [<-|H]; [lia|]. specialize (IH x H). lia.
Qed.


Lemma NoDup_map_shift : forall (q : Z) (l : list Z), NoDup l -> NoDup (map (fun v => (v - q)%Z) l).
Proof.
  intros q l H; induction H as [|a l Ha H IH]; simpl; constructor; auto.
  intros Hin; apply in_map_iff in Hin as [b [E Hb]]. assert (b = a) by lia. subst; auto.
Qed.

Lemma nodup_shift_le : forall (f : nat -> Z) (q : Z) (T L : list nat), incl T L ->
  (length (nodup Z.eq_dec (map (fun t => (f t + q)%Z) T)) <= length (nodup Z.eq_dec (map f L)))%nat.
Proof.
  intros f q T L Hi.
  set (A := nodup Z.eq_dec (map (fun t => (f t + q)%Z) T)).
  assert (HA : NoDup (map (fun v => (v - q)%Z) A)).
  { apply NoDup_map_shift, NoDup_nodup. }
  rewrite <- (map_length (fun v => (v - q)%Z) A).
  apply NoDup_incl_length; auto.
  intros y Hy. apply in_map_iff in Hy as [v [<- Hv]]. apply nodup_In in Hv.
  apply in_map_iff in Hv as [t [<- Ht]].
  apply nodup_In. apply in_map_iff. exists t. split; [lia | auto].
Qed.

Lemma lanes_nwarps : forall w t, (0 < c_warp G)%nat -> In t (lanes G w) -> (w < nwarps G)%nat.
Proof.
  intros w t HW Hl. unfold lanes in Hl. apply filter_In in Hl as [Hl Hb'].
  apply in_seq in Hl. apply Nat.ltb_lt in Hb'. unfold nwarps.
  apply Nat.div_le_lower_bound; lia.
Qed.

Lemma wlanes_incl : forall ps s P T w, incl T (lanes G w) ->
  (forall t, In t T -> sat (rho ps s t) P) -> incl T (wlanes G (filter tid_only P) w).
Proof.
  intros ps s P T w Hi HP t Ht. apply filter_In. split; [apply Hi; auto|]. apply forallb_forall.
  intros c' Hc'. apply filter_In in Hc' as [Hc' Htc]. specialize (HP t Ht c' Hc').
  assert (E : leval (rho ps s t) (cform c') = leval (rho_tid G t) (cform c')).
  { apply leval_ext. intros a v Hav. unfold tid_only in Htc. rewrite forallb_forall in Htc.
    specialize (Htc _ Hav). destruct v; simpl in *; try discriminate; auto. }
  destruct c' as [L|L|L m rs]; simpl in *; rewrite <- E; [apply Z.leb_le | apply Z.eqb_eq|]; auto.
  apply existsb_exists. exists (leval (rho ps s t) L mod m)%Z. split; auto. apply Z.eqb_refl.
Qed.

Lemma zrange_from_In : forall k a u, In u (zrange_from k a) <-> (a <= u < a + Z.of_nat k)%Z.
Proof.
  induction k as [|k IH]; intros a u; simpl; [lia|]. rewrite IH. lia.
Qed.

Lemma in_zrange : forall n u, (0 <= u < n)%Z -> In u (zrange n).
Proof. intros n u H. unfold zrange. apply zrange_from_In. lia. Qed.

Lemma in_zrange_inv : forall n u, In u (zrange n) -> (0 <= u < n)%Z.
Proof. intros n u H. unfold zrange in H. apply zrange_from_In in H. lia. Qed.

Lemma beta_in : forall MB g r c es, (0 < MB)%Z -> Z.divide g (c - r) ->
  In ((c * es) mod MB)%Z (betas MB g r es).
Proof.
  intros MB g r c es HM Hcr.
  set (b0 := ((c * es) mod MB)%Z). set (q0 := ((c * es) / MB)%Z).
  assert (Hcq : (c * es = MB * q0 + b0)%Z) by (apply Z.div_mod; lia).
  assert (Hb0 : (0 <= b0 < MB)%Z) by (apply Z.mod_pos_bound; lia).
  assert (Hgg : (0 < Z.gcd (g * es) MB)%Z).
  { pose proof (Z.gcd_nonneg (g * es) MB).
    destruct (Z.eq_dec (Z.gcd (g * es) MB) 0) as [E|E]; [|lia].
    apply Z.gcd_eq_0 in E. lia. }
  apply filter_In; split.
  - apply in_zrange. lia.
  - apply Z.eqb_eq. apply Z.mod_divide; [lia|].
    replace (b0 - r * es)%Z with ((c - r) * es - MB * q0)%Z by lia.
    apply Z.divide_sub_r.
    + eapply Z.divide_trans; [apply Z.gcd_divide_l|]. apply Z.mul_divide_mono_r; auto.
    + apply Z.divide_mul_l, Z.gcd_divide_r.
Qed.

(** The binary thread ids of the lanes are the thread ids. *)
Lemma ztid_tid : forall d t, ztid G d (Z.of_nat t) = tid G d t.
Proof.
  intros [|[|d]] t; unfold ztid, tid; cbv zeta;
    rewrite ?Nat2Z.inj_mod, ?Nat2Z.inj_div, ?Nat2Z.inj_mul; reflexivity.
Qed.

Lemma rho_tt_lane : forall t v, rho_tt (lane_t G t) v = rho_tid G t v.
Proof.
  intros t [x|p|[|[|d]]]; unfold rho_tt, lane_t, rho_tid; cbv zeta; auto;
    rewrite ztid_tid; reflexivity.
Qed.

Lemma holds_b_ext : forall r1 r2 c, (forall v, r1 v = r2 v) -> holds_b r1 c = holds_b r2 c.
Proof. intros r1 r2 [L|L|L m rs] H; simpl; rewrite (leval_ext r1 r2); auto. Qed.

Lemma forallb_ext_f : forall A (f g : A -> bool) l, (forall a, f a = g a) -> forallb f l = forallb g l.
Proof. intros A f g l H; induction l as [|a l IH]; simpl; auto. rewrite H, IH; auto. Qed.

Lemma wfilter_lanes : forall tc k w,
  map (kvalz k) (wfilter tc (map (lane_t G) (lanes G w))) = map (kval G k) (wlanes G tc w).
Proof.
  intros tc [[kx ky] kz] w. unfold wfilter, wlanes. induction (lanes G w) as [|t L IH]; auto.
  simpl. rewrite (forallb_ext_f _ _ (holds_b (rho_tid G t)))
    by (intros c; apply holds_b_ext; apply rho_tt_lane).
  destruct (forallb (holds_b (rho_tid G t)) tc); simpl; rewrite IH; auto.
  f_equal. rewrite <- !(ztid_tid _ t). reflexivity.
Qed.

Lemma in_wtids : forall w, (w < nwarps G)%nat -> In (map (lane_t G) (lanes G w)) (wtids G).
Proof. intros w Hw. unfold wtids. apply in_map_iff. exists w; split; auto. apply in_seq; lia. Qed.

(** The active threads [T ⊆ L] of an access at index [k·tid + c], [c ≡ r (mod g)]: their
    addresses are [k·tid·es] plus one base [β ≡ r·es (mod gcd(g·es, M))] (MemReads). *)
(** A group of lanes at indices [k·tid + c] meets exactly the sectors of the offsets
    [k·tid·es] at base [(c·es) mod M], shifted by a whole number of sectors. *)
Lemma mem_at : forall es (T L : list nat) (R : fam) k c,
  (0 < c_sector_bytes G)%Z -> incl T L ->
  (forall t, In t T -> int_of (R t) = (kval G k t + c)%Z) ->
  (memreads G es T R <= sec_count G (map (kval G k) L) es ((c * es) mod c_sector_bytes G))%Z.
Proof.
  intros es T L R k c HSB HTL Hidx. set (SB := c_sector_bytes G) in *.
  set (b0 := ((c * es) mod SB)%Z). set (q0 := ((c * es) / SB)%Z).
  assert (Hcq : (c * es = SB * q0 + b0)%Z) by (apply Z.div_mod; lia).
  unfold memreads. fold SB.
  assert (Hmap : map (fun t => (int_of (R t) * es) / SB)%Z T =
                 map (fun t => (kval G k t * es + b0) / SB + q0)%Z T).
  { apply map_ext_in. intros t Ht. rewrite Hidx by auto.
    replace ((kval G k t + c) * es)%Z with ((kval G k t * es + b0) + q0 * SB)%Z
      by (rewrite Z.mul_add_distr_r, Hcq; ring).
    rewrite Z.div_add by lia. reflexivity. }
  rewrite Hmap.
  unfold sec_count. fold SB. rewrite map_map. apply Nat2Z.inj_le.
  apply (nodup_shift_le (fun t => ((kval G k t * es + b0) / SB)%Z) q0). exact HTL.
Qed.

Lemma mem_group : forall es (T L : list nat) (R : fam) k c g r,
  (0 < c_sector_bytes G)%Z -> incl T L ->
  (forall t, In t T -> int_of (R t) = (kval G k t + c)%Z) -> Z.divide g (c - r) ->
  (memreads G es T R <=
   fold_right Z.max 0%Z (map (sec_count G (map (kval G k) L) es) (betas (c_sector_bytes G) g r es)))%Z.
Proof.
  intros es T L R k c g r HSB HTL Hidx Hcr.
  eapply Z.le_trans; [apply (mem_at es T L R k c HSB HTL Hidx)|].
  apply fold_max_in, in_map_iff. exists ((c * es) mod c_sector_bytes G)%Z.
  split; [reflexivity | apply beta_in; auto].
Qed.

Lemma fold_max_incl : forall (A B : list Z), incl A B ->
  (fold_right Z.max 0 A <= fold_right Z.max 0 B)%Z.
Proof.
  intros A B H. apply fold_max_le; [clear H; induction B; simpl; lia|].
  intros x Hx. apply fold_max_in, H, Hx.
Qed.

Lemma dep_core : forall ps s P k g r es n T w i c,
  (0 < c_sector_bytes G)%Z -> (0 < c_warp G)%nat ->
  (nstar_mem G (wtids G) (filter tid_only P) k g r es <= n)%Z ->
  (forall t, In t T -> int_of (oval G ps s i t) = (kval G k t + c)%Z) ->
  Z.divide g (c - r) ->
  (forall t, In t T -> sat (rho ps s t) P) -> T <> [] -> incl T (lanes G w) ->
  (memreads G es T (oval G ps s i) <= n)%Z.
Proof.
  intros ps s P k g r es n T w i c HSB HW Hb Hidx Hcr HP Hne Hi.
  destruct (nonempty_elem _ Hne) as [t0 Ht0].
  assert (Hwn : (w < nwarps G)%nat) by (eapply lanes_nwarps; eauto).
  eapply Z.le_trans; [apply (mem_group es T (wlanes G (filter tid_only P) w) _ k c g r HSB
    (wlanes_incl ps s P T w Hi HP) Hidx Hcr)|].
  eapply Z.le_trans; [|exact Hb]. unfold nstar_mem. apply fold_max_incl. intros x Hx.
  apply in_flat_map. exists (map (lane_t G) (lanes G w)). split; [apply in_wtids; lia|].
  rewrite wfilter_lanes. exact Hx.
Qed.

(** ** Dependence-based access bounds (Conflicts) *)
Lemma fold_max_dom : forall (A B : list Z), (forall a, In a A -> exists b, In b B /\ (a <= b)%Z) ->
  (fold_right Z.max 0 A <= fold_right Z.max 0 B)%Z.
Proof.
  intros A B H. assert (H0 : (0 <= fold_right Z.max 0 B)%Z).
  { clear H. induction B; simpl; lia. }
  apply fold_max_le; auto. intros a Ha. destruct (H a Ha) as [b [Hb Hab]].
  pose proof (fold_max_in B b Hb). lia.
Qed.



Lemma conf_count_eq : forall offs es b, conf_count G offs es b =
  fold_right Z.max 0%Z
    (map (fun j => Z.of_nat (length (filter (fun K => (cbank G es b K =? j)%Z) offs)))
         (map (cbank G es b) offs)).
Proof.
  intros offs es b. unfold conf_count. cbv zeta. f_equal. apply map_ext. intros j. f_equal.
  induction offs as [|K offs IH]; simpl; auto.
  rewrite Z.eqb_sym. destruct (cbank G es b K =? j)%Z; simpl; rewrite IH; auto.
Qed.

(** The same for Conflicts: per bank, the distinct offsets [k·tid]. *)
Lemma conf_group : forall es (T L : list nat) (R : fam) k c g r,
  (0 < c_bank_bytes G)%Z -> (0 < c_banks G)%Z -> incl T L ->
  (forall t, In t T -> int_of (R t) = (kval G k t + c)%Z) -> Z.divide g (c - r) ->
  (conflicts_of G es T R <= fold_right Z.max 0%Z
     (map (conf_count G (nodup Z.eq_dec (map (kval G k) L)) es) (betas (c_bank_bytes G * c_banks G) g r es)))%Z.
Proof.
  intros es T L R k c g r HBB HNB HTL Hidx Hcr.
  set (BB := c_bank_bytes G) in *. set (NB := c_banks G) in *.
  set (b0 := ((c * es) mod (BB * NB))%Z). set (q0 := ((c * es) / (BB * NB))%Z).
  assert (Hcq : (c * es = (BB * NB) * q0 + b0)%Z) by (apply Z.div_mod; lia).
  assert (Hbeta : In b0 (betas (BB * NB) g r es)) by (apply beta_in; [lia | exact Hcr]).
  assert (Hbank : forall K, bank G es (K + c) = cbank G es b0 K).
  { intros K. unfold bank, cbank. fold BB NB.
    replace ((K + c) * es)%Z with ((K * es + b0) + (q0 * NB) * BB)%Z
      by (rewrite Z.mul_add_distr_r, Hcq; ring).
    rewrite Z.div_add by lia. rewrite Z.mod_add by lia. reflexivity. }
  eapply Z.le_trans; [|apply fold_max_in, in_map_iff; exists b0; split; [reflexivity | exact Hbeta]].
  rewrite conf_count_eq. unfold conflicts_of.
  set (offs := nodup Z.eq_dec (map (kval G k) L)).
  apply fold_max_dom. intros a Ha.
  apply in_map_iff in Ha as [j [<- Hj]]. apply in_map_iff in Hj as [i [<- Hi']].
  apply nodup_In, in_map_iff in Hi' as [t [Eti Ht]].
  rewrite Hidx in Eti by auto. subst i.
  exists (Z.of_nat (length (filter (fun K => (cbank G es b0 K =? bank G es (kval G k t + c))%Z) offs))).
  split.
  - apply in_map_iff. exists (bank G es (kval G k t + c)). split; [reflexivity|].
    rewrite Hbank. apply in_map_iff. exists (kval G k t). split; [reflexivity|].
    apply nodup_In, in_map_iff. exists t; split; auto.
  - apply Nat2Z.inj_le.
    set (jj := bank G es (kval G k t + c)).
    set (A := filter (fun i => (bank G es i =? jj)%Z) (nodup Z.eq_dec (map (fun t => int_of (R t)) T))).
    assert (HA : NoDup (map (fun v => (v - c)%Z) A)).
    { apply NoDup_map_shift. apply NoDup_filter, NoDup_nodup. }
    rewrite <- (map_length (fun v => (v - c)%Z) A).
    apply NoDup_incl_length; auto.
    intros y Hy. apply in_map_iff in Hy as [v [<- Hv]]. apply filter_In in Hv as [Hv Hbj].
    apply nodup_In, in_map_iff in Hv as [t' [Ev Ht']]. rewrite Hidx in Ev by auto. subst v.
    apply filter_In. split.
    + apply nodup_In, in_map_iff. exists t'. split; [lia | apply HTL; auto].
    + replace (kval G k t' + c - c)%Z with (kval G k t') by lia. rewrite <- Hbank. exact Hbj.
Qed.

(** [conf_core] for any family of indices [R]. *)
Lemma conf_core_fam : forall ps s P k g r es n T w (R : fam) c,
  (0 < c_bank_bytes G)%Z -> (0 < c_banks G)%Z -> (0 < c_warp G)%nat ->
  (nstar_conf G (wtids G) (filter tid_only P) k g r es <= n)%Z ->
  (forall t, In t T -> int_of (R t) = (kval G k t + c)%Z) ->
  Z.divide g (c - r) ->
  (forall t, In t T -> sat (rho ps s t) P) -> T <> [] -> incl T (lanes G w) ->
  (conflicts_of G es T R <= n)%Z.
Proof.
  intros ps s P k g r es n T w R c HBB HNB HW Hb Hidx Hcr HP Hne Hi.
  destruct (nonempty_elem _ Hne) as [t0 Ht0].
  assert (Hwn : (w < nwarps G)%nat) by (eapply lanes_nwarps; eauto).
  eapply Z.le_trans; [apply (conf_group es T (wlanes G (filter tid_only P) w) _ k c g r HBB HNB
    (wlanes_incl ps s P T w Hi HP) Hidx Hcr)|].
  eapply Z.le_trans; [|exact Hb]. unfold nstar_conf. apply fold_max_incl. intros x Hx.
  apply in_flat_map. exists (map (lane_t G) (lanes G w)). split; [apply in_wtids; lia|].
  rewrite wfilter_lanes. exact Hx.
Qed.

Lemma conf_core : forall ps s P k g r es n T w o c,
  (0 < c_bank_bytes G)%Z -> (0 < c_banks G)%Z -> (0 < c_warp G)%nat ->
  (nstar_conf G (wtids G) (filter tid_only P) k g r es <= n)%Z ->
  (forall t, In t T -> int_of (oval G ps s o t) = (kval G k t + c)%Z) ->
  Z.divide g (c - r) ->
  (forall t, In t T -> sat (rho ps s t) P) -> T <> [] -> incl T (lanes G w) ->
  (conflicts_of G es T (oval G ps s o) <= n)%Z.
Proof. intros ps s P k g r es n T w o c. exact (conf_core_fam ps s P k g r es n T w (oval G ps s o) c). Qed.


(** ** Access bounds from the dependence map *)
Lemma idep_opd_sound : forall ps s T D o k r g, pok ps -> wt s -> dsat ps s T D ->
  idep_opd G D o = Some (k, r, g) ->
  exists c, Z.divide g (c - r)%Z /\ forall t, In t T -> oval G ps s o t = VInt (kval G k t + c).
Proof.
  intros ps s T D o k r g Hp Hw HD H. destruct o as [x|p|v|d]; simpl in H.
  - destruct (c_lty G x) as [[]|] eqn:Ex; try discriminate.
    destruct (dget D x) as [[y k' r' g'| | | |]|] eqn:Ed; try discriminate. inversion H; subst.
    destruct (dget_In _ _ _ Ed) as [Hin Hy]; simpl in Hy; subst y.
    specialize (HD _ Hin); simpl in HD; rewrite Ex in HD. destruct HD as [c [Hc HD]].
    exists c; split; auto. intros t Ht. simpl. specialize (Hw x TInt Ex t). rewrite <- HD by auto.
    destruct (sl s x t); try discriminate; reflexivity.
  - destruct (c_pty G p) as [[]|] eqn:Ep; try discriminate. inversion H; subst.
    specialize (Hp p TInt Ep). destruct (ps p) as [z| |] eqn:Epp; try discriminate.
    exists z; split; [apply Z.divide_1_l|]. intros t _; simpl. rewrite Epp. unfold kval. f_equal; lia.
  - destruct v as [c| |]; try discriminate. injection H as <- <- <-. exists c.
    split; [replace (c - c)%Z with 0%Z by lia; apply Z.divide_0_r|].
    intros t _; simpl; unfold kval; f_equal; lia.
  - injection H as <- <- <-. exists 0%Z; split; [apply Z.divide_0_r|].
    intros t _; simpl. rewrite kval_tid. f_equal; lia.
Qed.

Lemma memreads_len : forall es T R, (memreads G es T R <= Z.of_nat (length T))%Z.
Proof.
  intros es T R. unfold memreads.
  pose proof (nodup_length_le (map (fun t => (int_of (R t) * es) / c_sector_bytes G)%Z T)).
  rewrite map_length in H. lia.
Qed.

Lemma fold_max_nonneg : forall (l : list Z), (0 <= fold_right Z.max 0 l)%Z.
Proof. induction l; simpl; lia. Qed.

Lemma conflicts_len : forall es T R, (conflicts_of G es T R <= Z.of_nat (length T))%Z.
Proof.
  intros es T R. unfold conflicts_of.
  apply fold_max_le; [lia|]. intros x Hx. apply in_map_iff in Hx as [j [<- _]].
  pose proof (filter_length_le _ (fun i => (bank G es i =? j)%Z)
               (nodup Z.eq_dec (map (fun t => int_of (R t)) T))).
  pose proof (nodup_length_le (map (fun t => int_of (R t)) T)). rewrite map_length in H0. lia.
Qed.

Lemma wlanes_len : forall tc w,
  length (wfilter tc (map (lane_t G) (lanes G w))) = length (wlanes G tc w).
Proof.
  intros tc w. pose proof (wfilter_lanes tc (0, 0, 0)%Z w) as E.
  apply (f_equal (@length Z)) in E. rewrite !map_length in E. auto.
Qed.

(** The number of active threads is at most the largest number of kept lanes. *)
Lemma best_ge : forall ps s P T w, (0 < c_warp G)%nat -> NoDup T -> incl T (lanes G w) ->
  T <> [] -> (forall t, In t T -> sat (rho ps s t) P) ->
  (Z.of_nat (length T) <= fold_right Z.max 0%Z
     (map (fun L => Z.of_nat (length (wfilter (filter tid_only P) L))) (wtids G)))%Z.
Proof.
  intros ps s P T w HW Hn Hi Hne HP. destruct (nonempty_elem _ Hne) as [t0 Ht0].
  assert (Hwn : (w < nwarps G)%nat) by (eapply lanes_nwarps; eauto).
  eapply Z.le_trans; [|apply fold_max_in, in_map_iff; exists (map (lane_t G) (lanes G w));
    split; [reflexivity | apply in_wtids; auto]].
  rewrite wlanes_len. apply Nat2Z.inj_le. apply NoDup_incl_length; auto.
  eapply wlanes_incl; eauto.
Qed.

Lemma nodup_incl_shift : forall (A B : list Z) q, (forall a, In a A -> In (a - q)%Z B) ->
  (length (nodup Z.eq_dec A) <= length (nodup Z.eq_dec B))%nat.
Proof.
  intros A B q H. rewrite <- (map_length (fun v => (v - q)%Z) (nodup Z.eq_dec A)).
  apply NoDup_incl_length; [apply NoDup_map_shift, NoDup_nodup|].
  intros y Hy. apply in_map_iff in Hy as [a [<- Ha]]. apply nodup_In in Ha. apply nodup_In. auto.
Qed.

(** The range bound [R] (MemReads): indices in one window of width [w]. *)
Lemma range_mem : forall es T (R : fam) c' w, (0 < c_sector_bytes G)%Z ->
  (forall t, In t T -> (c' <= int_of (R t) <= c' + w)%Z) ->
  (memreads G es T R <= rbound G false w es)%Z.
Proof.
  intros es T R c' w HSB Hr. set (SB := c_sector_bytes G) in *.
  set (c0 := (c' mod SB)%Z). set (q := (c' / SB)%Z).
  assert (Hc : c' = (SB * q + c0)%Z) by (apply Z.div_mod; lia).
  assert (Hc0 : (0 <= c0 < SB)%Z) by (apply Z.mod_pos_bound; lia).
  unfold rbound. eapply Z.le_trans; [|apply fold_max_in, in_map_iff; exists c0; split;
    [reflexivity | apply in_zrange; fold SB; lia]].
  unfold memreads, rmem_c. fold SB. apply Nat2Z.inj_le.
  apply (nodup_incl_shift _ _ (q * es)%Z). intros a Ha. apply in_map_iff in Ha as [t [<- Ht]].
  apply in_map_iff. exists (int_of (R t) - c')%Z. split.
  - replace ((c0 + (int_of (R t) - c')) * es)%Z with (int_of (R t) * es + (- (q * es)) * SB)%Z
      by (rewrite Hc; ring).
    rewrite Z.div_add by lia. ring.
  - apply in_zrange. specialize (Hr t Ht). lia.
Qed.

Lemma filter_map_len : forall (f : Z -> bool) (g : Z -> Z) l,
  length (filter f (map g l)) = length (filter (fun x => f (g x)) l).
Proof. intros f g l; induction l as [|a l IH]; simpl; auto. destruct (f (g a)); simpl; auto. Qed.

(** The range bound [R] (Conflicts). *)
Lemma range_conf : forall es T (R : fam) c' w, (0 < c_bank_bytes G)%Z -> (0 < c_banks G)%Z ->
  (forall t, In t T -> (c' <= int_of (R t) <= c' + w)%Z) ->
  (conflicts_of G es T R <= rbound G true w es)%Z.
Proof.
  intros es T R c' w HBB HNB Hr. set (BB := c_bank_bytes G) in *. set (NB := c_banks G) in *.
  set (c0 := (c' mod (BB * NB))%Z). set (q := (c' / (BB * NB))%Z).
  assert (Hc : c' = (BB * NB * q + c0)%Z) by (apply Z.div_mod; lia).
  assert (Hc0 : (0 <= c0 < BB * NB)%Z) by (apply Z.mod_pos_bound; lia).
  assert (Hbank : forall u, bank G es (c0 + u) = bank G es (c' + u)).
  { intros u. unfold bank. fold BB NB.
    replace ((c' + u) * es)%Z with ((c0 + u) * es + ((q * es) * NB) * BB)%Z by (rewrite Hc; ring).
    rewrite Z.div_add by lia. rewrite Z.mod_add by lia. reflexivity. }
  unfold rbound. eapply Z.le_trans; [|apply fold_max_in, in_map_iff; exists c0; split;
    [reflexivity | apply in_zrange; fold BB NB; lia]].
  unfold conflicts_of, rconf_c. apply fold_max_le; [apply fold_max_nonneg|].
  intros x Hx. apply in_map_iff in Hx as [j [<- Hj]]. apply in_map_iff in Hj as [i [<- Hi]].
  eapply Z.le_trans; [|apply fold_max_in, in_map_iff; exists (bank G es i); split;
    [reflexivity | apply in_zrange; unfold bank; fold BB NB; apply Z.mod_pos_bound; lia]].
  apply Nat2Z.inj_le. rewrite filter_map_len.
  rewrite <- (map_length (fun v => (v - c')%Z)
    (filter (fun i0 => (bank G es i0 =? bank G es i)%Z) (nodup Z.eq_dec (map (fun t => int_of (R t)) T)))).
  apply NoDup_incl_length; [apply NoDup_map_shift, NoDup_filter, NoDup_nodup|].
  intros y Hy. apply in_map_iff in Hy as [v [<- Hv]]. apply filter_In in Hv as [Hv Hb].
  apply nodup_In, in_map_iff in Hv as [t [Ev Ht]]. apply filter_In. split.
  - apply in_zrange. specialize (Hr t Ht). lia.
  - rewrite Z.eqb_sym, Hbank. replace (c' + (v - c'))%Z with v by lia. auto.
Qed.

(** C's truncating [a rem m] lies in the window [[1 − m, m − 1]] (spec/logic.md §2
    "Wrapped entries"). *)
Lemma wrap_window : forall a m, (1 <= m)%Z -> (1 - m <= Z.rem a m <= (1 - m) + (2 * m - 2))%Z.
Proof.
  intros a m Hm. pose proof (Z.rem_bound_abs a m ltac:(lia)) as Hb.
  rewrite (Z.abs_eq m) in Hb by lia. apply Z.abs_lt in Hb. lia.
Qed.

Lemma rem_window : forall m z, (1 <= m)%Z -> (- m < z < m)%Z -> (1 - m <= z <= (1 - m) + (2 * m - 2))%Z.
Proof. intros; lia. Qed.

Lemma rng_of_sound {psD : nat -> val} : forall s T D i wd, dsat psD s T D -> rng_of D i = Some wd ->
  exists c', forall t ps, In t T -> (c' <= int_of (oval G ps s i t) <= c' + wd)%Z.
Proof.
  intros s T D i wd HD H. destruct i as [x| | |]; cbn [rng_of] in H; try discriminate.
  destruct (dget D x) as [[|y k r m|y w'| |y k m]|] eqn:Ed; try discriminate.
  - destruct (Z.leb_spec 1 m) as [Hm|]; [|discriminate]. inversion H; subst.
    destruct (dget_In _ _ _ Ed) as [Hin Hy]; simpl in Hy; subst y.
    specialize (HD _ Hin). cbn [esat] in HD. destruct HD as [_ HD]. exists (1 - m)%Z.
    intros t ps Ht. change (oval G ps s (OVar x) t) with (sl s x t). destruct (HD t Ht) as [_ Hb].
    exact (rem_window m _ Hm Hb).
  - inversion H; subst.
    destruct (dget_In _ _ _ Ed) as [Hin Hy]; simpl in Hy; subst y.
    specialize (HD _ Hin). simpl in HD. destruct HD as [_ [c HD]]. exists c. intros t ps Ht. apply HD; auto.
  - destruct (Z.leb_spec 1 m) as [Hm|]; [|discriminate]. inversion H; subst.
    destruct (dget_In _ _ _ Ed) as [Hin Hy]; simpl in Hy; subst y.
    specialize (HD _ Hin). cbn [esat] in HD. destruct HD as [_ [c HD]]. exists (1 - m)%Z.
    intros t ps Ht. change (oval G ps s (OVar x) t) with (sl s x t). rewrite (HD t Ht). apply wrap_window; auto.
Qed.

(** ** Wrapped entries (spec/logic.md §2 "Wrapped entries")

    [a rem m = a − m·quot(a, m)]: when [m·es] is a multiple of [bank_bytes·banks] the bank
    of [a rem m] is [a]'s, and lanes with equal [a] have equal [a rem m], so the fullest
    bank holds no more distinct indices than for [a]. *)
Lemma bank_wrap : forall es a m, (0 < c_bank_bytes G)%Z -> (0 < c_banks G)%Z -> (1 <= m)%Z ->
  ((m * es) mod (c_bank_bytes G * c_banks G) = 0)%Z -> bank G es (Z.rem a m) = bank G es a.
Proof.
  intros es a m HBB HNB Hm1 Hm. unfold bank.
  set (BB := c_bank_bytes G) in *. set (NB := c_banks G) in *.
  apply Z.mod_divide in Hm; [|lia]. destruct Hm as [q Hq].
  rewrite Z.rem_eq by lia. set (Qt := Z.quot a m).
  assert (E : ((a - m * Qt) * es = a * es + (- Qt * q * NB) * BB)%Z).
  { replace ((a - m * Qt) * es)%Z with (a * es - Qt * (m * es))%Z by ring. rewrite Hq. ring. }
  rewrite E, Z.div_add by lia. rewrite Z.mod_add by lia. reflexivity.
Qed.

Lemma conf_wrap_le : forall es T (A : nat -> Z) (R : fam) m,
  (0 < c_bank_bytes G)%Z -> (0 < c_banks G)%Z -> (1 <= m)%Z ->
  ((m * es) mod (c_bank_bytes G * c_banks G) = 0)%Z ->
  (forall t, In t T -> int_of (R t) = Z.rem (A t) m) ->
  (conflicts_of G es T R <= conflicts_of G es T (fun t => VInt (A t)))%Z.
Proof.
  intros es T A R m HBB HNB Hm1 Hm HR.
  unfold conflicts_of at 1. apply fold_max_le; [apply fold_max_nonneg|].
  intros x Hx. apply in_map_iff in Hx as [j [<- Hj]]. apply in_map_iff in Hj as [i [<- Hi]].
  apply nodup_In, in_map_iff in Hi as [t [Eti Ht]].
  assert (Hbi : bank G es i = bank G es (A t)).
  { rewrite <- Eti, HR by auto. apply bank_wrap; auto. }
  unfold conflicts_of. cbn [int_of].
  eapply Z.le_trans; [|apply fold_max_in, in_map_iff; exists (bank G es (A t)); split;
    [reflexivity | apply in_map_iff; exists (A t); split;
      [reflexivity | apply nodup_In, in_map_iff; exists t; split; [reflexivity | exact Ht]]]].
  apply Nat2Z.inj_le. rewrite Hbi.
  set (Y := filter (fun i0 => (bank G es i0 =? bank G es (A t))%Z) (nodup Z.eq_dec (map (fun t0 => A t0) T))).
  rewrite <- (map_length (fun a => Z.rem a m) Y).
  apply NoDup_incl_length; [apply NoDup_filter, NoDup_nodup|].
  intros y Hy. apply filter_In in Hy as [Hy Hb]. apply nodup_In, in_map_iff in Hy as [t' [Ey Ht']].
  apply in_map_iff. exists (A t'). split; [rewrite <- Ey, HR by auto; reflexivity|].
  apply filter_In. split.
  - apply nodup_In, in_map_iff. exists t'. split; auto.
  - rewrite <- (bank_wrap es (A t') m) by auto. rewrite <- HR, Ey by auto. exact Hb.
Qed.

Lemma wrap_dep_sound {psD : nat -> val} : forall s T D i es k r g, dsat psD s T D -> wrap_dep G true es D i = Some (k, r, g) ->
  exists m c, (1 <= m)%Z /\ ((m * es) mod (c_bank_bytes G * c_banks G) = 0)%Z /\ r = 0%Z /\ g = 1%Z /\
    forall t ps, In t T -> int_of (oval G ps s i t) = Z.rem (kval G k t + c) m.
Proof.
  intros s T D i es k r g HD H. destruct i as [x| | |]; simpl in H; try discriminate.
  destruct (dget D x) as [[| | | |y k' m]|] eqn:Ed; try discriminate.
  destruct ((1 <=? m) && ((m * es) mod (c_bank_bytes G * c_banks G) =? 0))%Z eqn:Hm; [|discriminate].
  apply andb_true_iff in Hm as [Hm1 Hm2]. apply Z.leb_le in Hm1. apply Z.eqb_eq in Hm2.
  injection H as <- <- <-.
  destruct (dget_In _ _ _ Ed) as [Hin Hy]; simpl in Hy; subst y.
  specialize (HD _ Hin). simpl in HD. destruct HD as [_ [c HD]].
  exists m, c. repeat split; auto. intros t ps Ht. simpl. apply HD; auto.
Qed.

Lemma wrap_dep_mem : forall es D i, wrap_dep G false es D i = None.
Proof.
  intros es D [x| | |]; simpl; auto. destruct (dget D x) as [[| | | | ]|]; auto.
Qed.

(** ** Scaled entries: the grouped access bound (spec/logic.md §2 "Access bounds")

    Within a group of lanes with equal [threadIdx.d], [d ∈ u], an index [k'·tid + c]
    whose [k'] equals [k] outside [u] is [k·tid] plus one integer; a warp's sectors (a
    bank's distinct indices) are the union of its groups'. *)
Lemma kvalz_lanes : forall k l, map (kvalz k) (map (lane_t G) l) = map (kval G k) l.
Proof.
  intros [[kx ky] kz] l. induction l as [|t l IH]; [reflexivity|]. cbn [map]. rewrite IH. f_equal.
  change (lane_t G t) with (ztid G 0 (Z.of_nat t), ztid G 1 (Z.of_nat t), ztid G 2 (Z.of_nat t)).
  rewrite !ztid_tid. reflexivity.
Qed.

Lemma kval_group : forall u k k' t, kmask u k' = kmask u k ->
  kval G k' t = (kval G k t + kvalz (tadd k' (tscale (-1) k)) (ukey u (lane_t G t)))%Z.
Proof.
  intros [[u1 u2] u3] [[k1 k2] k3] [[k1' k2'] k3'] t H.
  unfold lane_t. rewrite !ztid_tid. unfold kval, kvalz, tadd, tscale, ukey.
  destruct u1, u2, u3; simpl in H; inversion H; subst; ring.
Qed.

Lemma sum_le : forall A (f g : A -> Z) K, (forall k, In k K -> f k <= g k)%Z ->
  (fold_right Z.add 0%Z (map f K) <= fold_right Z.add 0%Z (map g K))%Z.
Proof.
  intros A f g K H; induction K as [|k K IH]; simpl; [lia|].
  pose proof (H k (or_introl eq_refl)). pose proof (IH (fun k' Hk => H k' (or_intror Hk))). lia.
Qed.

Lemma sum_nonneg : forall A (f : A -> Z) K, (forall k, In k K -> 0 <= f k)%Z ->
  (0 <= fold_right Z.add 0%Z (map f K))%Z.
Proof.
  intros A f K H; induction K as [|k K IH]; simpl; [lia|].
  pose proof (H k (or_introl eq_refl)). pose proof (IH (fun k' Hk => H k' (or_intror Hk))). lia.
Qed.

(** A duplicate-free list covered by the lists [g k], [k ∈ K], is no longer than their sum. *)
Lemma nodup_cover_le : forall A (Y : list Z) (g : A -> list Z) (K : list A), NoDup Y ->
  (forall y, In y Y -> exists k, In k K /\ In y (g k)) ->
  (Z.of_nat (length Y) <= fold_right Z.add 0%Z (map (fun k => Z.of_nat (length (g k))) K))%Z.
Proof.
  intros A Y g K Hn Hc.
  assert (H : (length Y <= length (concat (map g K)))%nat).
  { apply NoDup_incl_length; auto. intros y Hy. destruct (Hc y Hy) as [k [Hk Hyk]].
    apply in_concat. exists (g k); split; auto. apply in_map; auto. }
  enough (E : Z.of_nat (length (concat (map g K))) =
              fold_right Z.add 0%Z (map (fun k => Z.of_nat (length (g k))) K)) by lia.
  clear. induction K as [|k K IH]; simpl; auto. rewrite app_length. lia.
Qed.

Section Groups.
Variable u : ubits.
Variables (es : Z) (R : fam) (T : list nat) (K : list trip).
Let pk (key : trip) (t : nat) : bool := trip_eqb (ukey u (lane_t G t)) key.
Hypothesis HK : forall t, In t T -> In (ukey u (lane_t G t)) K.

Lemma pk_in : forall t, In t T -> exists key, In key K /\ In t (filter (pk key) T).
Proof.
  intros t Ht. exists (ukey u (lane_t G t)). split; auto. apply filter_In. split; auto.
  unfold pk, trip_eqb. destruct (trip_eq_dec _ _); auto.
Qed.

Lemma memreads_groups :
  (memreads G es T R <= fold_right Z.add 0%Z (map (fun key => memreads G es (filter (pk key) T) R) K))%Z.
Proof.
  unfold memreads. apply nodup_cover_le; [apply NoDup_nodup|].
  intros y Hy. apply nodup_In, in_map_iff in Hy as [t [<- Ht]].
  destruct (pk_in t Ht) as [key [Hk Ht']]. exists key. split; auto.
  apply nodup_In, in_map_iff. exists t; auto.
Qed.

Lemma conf_bank_le : forall T' j,
  (Z.of_nat (length (filter (fun i => bank G es i =? j)%Z (nodup Z.eq_dec (map (fun t => int_of (R t)) T'))))
   <= conflicts_of G es T' R)%Z.
Proof.
  intros T' j. unfold conflicts_of.
  destruct (filter _ _) as [|i l] eqn:Ef; [simpl; apply fold_max_nonneg|].
  assert (Hi : In i (filter (fun i => bank G es i =? j)%Z (nodup Z.eq_dec (map (fun t => int_of (R t)) T'))))
    by (rewrite Ef; left; auto).
  apply filter_In in Hi as [Hi Hb]. apply Z.eqb_eq in Hb.
  rewrite <- Ef. apply fold_max_in, in_map_iff. exists j. split; auto.
  apply in_map_iff. exists i. split; auto.
Qed.

Lemma conflicts_groups :
  (conflicts_of G es T R <= fold_right Z.add 0%Z (map (fun key => conflicts_of G es (filter (pk key) T) R) K))%Z.
Proof.
  unfold conflicts_of at 1. apply fold_max_le.
  { apply sum_nonneg. intros; apply fold_max_nonneg. }
  intros x Hx. apply in_map_iff in Hx as [j [<- _]].
  eapply Z.le_trans; [|apply sum_le; intros key _; apply (conf_bank_le (filter (pk key) T) j)].
  apply nodup_cover_le; [apply NoDup_filter, NoDup_nodup|].
  intros y Hy. apply filter_In in Hy as [Hy Hb]. apply nodup_In, in_map_iff in Hy as [t [<- Ht]].
  destruct (pk_in t Ht) as [key [Hk Ht']]. exists key. split; auto.
  apply filter_In. split; auto. apply nodup_In, in_map_iff. exists t; auto.
Qed.
End Groups.

Lemma filter_map_lane : forall (p : trip -> bool) l,
  filter p (map (lane_t G) l) = map (lane_t G) (filter (fun t => p (lane_t G t)) l).
Proof. intros p l; induction l as [|t l IH]; simpl; auto. destruct (p (lane_t G t)); simpl; rewrite IH; auto. Qed.

Lemma wfilter_map_lane : forall tc w,
  wfilter tc (map (lane_t G) (lanes G w)) = map (lane_t G) (wlanes G tc w).
Proof.
  intros tc w. unfold wfilter, wlanes. rewrite filter_map_lane. f_equal. apply filter_ext.
  intros t. apply forallb_ext_f. intros c. apply holds_b_ext. apply rho_tt_lane.
Qed.

(** The grouped count bounds the access count of the active threads of a warp whose
    index has a scaled entry [(u, k)] (meaning: [k'·tid + c], [k'] = [k] outside [u]). *)
Lemma scl_core : forall (sh : bool) ps s P u k k' c es T w (R : fam),
  (if sh then (0 < c_bank_bytes G)%Z /\ (0 < c_banks G)%Z else (0 < c_sector_bytes G)%Z) ->
  (0 < c_warp G)%nat -> kmask u k' = kmask u k ->
  (forall t, In t T -> int_of (R t) = (kval G k' t + c)%Z) ->
  (forall t, In t T -> sat (rho ps s t) P) -> T <> [] -> incl T (lanes G w) ->
  ((if sh then conflicts_of G es T R else memreads G es T R) <=
   fold_right Z.max 0%Z (map (fun L => sgroups G sh u k es (wfilter (filter tid_only P) L)) (wtids G)))%Z.
Proof.
  intros sh ps s P u k k' c es T w R Hhw HW Hk Hidx HP Hne Hi.
  destruct (nonempty_elem _ Hne) as [t0 Ht0].
  assert (Hwn : (w < nwarps G)%nat) by (eapply lanes_nwarps; eauto).
  set (tc := filter tid_only P). set (WL := wlanes G tc w).
  assert (HTL : incl T WL) by (apply (wlanes_incl ps s P T w Hi HP)).
  eapply Z.le_trans; [|apply fold_max_in, in_map_iff; exists (map (lane_t G) (lanes G w)); split;
    [reflexivity | apply in_wtids; auto]].
  unfold sgroups. rewrite wfilter_map_lane. fold tc WL.
  set (K := nodup trip_eq_dec (map (ukey u) (map (lane_t G) WL))).
  assert (HK : forall t, In t T -> In (ukey u (lane_t G t)) K).
  { intros t Ht. apply nodup_In. apply in_map, in_map. apply HTL; auto. }
  set (pk := fun (key : trip) (t : nat) => trip_eqb (ukey u (lane_t G t)) key).
  assert (Hc : forall key t, In t (filter (pk key) T) ->
            int_of (R t) = (kval G k t + (c + kvalz (tadd k' (tscale (-1) k)) key))%Z).
  { intros key t Ht. apply filter_In in Ht as [Ht Hp]. unfold pk, trip_eqb in Hp.
    destruct (trip_eq_dec _ _) as [E|]; [|discriminate].
    rewrite Hidx, (kval_group u k k' t Hk), E by auto. ring. }
  assert (Hsub : forall key, incl (filter (pk key) T) (filter (fun t => pk key t) WL)).
  { intros key t Ht. apply filter_In in Ht as [Ht Hp]. apply filter_In; split; auto. }
  assert (Hgrp : forall key, filter (fun tt => trip_eqb (ukey u tt) key) (map (lane_t G) WL) =
                             map (lane_t G) (filter (pk key) WL)).
  { intros key. rewrite filter_map_lane. reflexivity. }
  destruct sh.
  - destruct Hhw as [HBB HNB]. eapply Z.le_trans; [apply (conflicts_groups u es R T K HK)|]. apply sum_le.
    intros key _. unfold sgroup_count. rewrite Hgrp, kvalz_lanes.
    eapply conf_group; eauto. apply Z.divide_1_l.
  - eapply Z.le_trans; [apply (memreads_groups u es R T K HK)|]. apply sum_le.
    intros key _. unfold sgroup_count. rewrite Hgrp, kvalz_lanes.
    eapply mem_group; eauto. apply Z.divide_1_l.
Qed.

Lemma scl_of_sound {psD : nat -> val} : forall s T D i u k, dsat psD s T D -> scl_of D i = Some (u, k) ->
  exists k' c, kmask u k' = kmask u k /\
    forall t ps, In t T -> int_of (oval G ps s i t) = (kval G k' t + c)%Z.
Proof.
  intros s T D i u k HD H. destruct i as [x| | |]; simpl in H; try discriminate.
  destruct (dget D x) as [[| | |y u' k0 r g mm|]|] eqn:Ed; try discriminate. inversion H; subst.
  destruct (dget_In _ _ _ Ed) as [Hin Hy]; simpl in Hy; subst y.
  specialize (HD _ Hin). simpl in HD. destruct HD as [_ [k' [c [Hk [_ [_ HD]]]]]].
  exists k', c. split; auto. intros t ps Ht. apply HD; auto.
Qed.

Lemma dacc_mem_sound : forall ps s P D i es n T w, dacc G false P D i es n = true ->
  pok ps -> wt s -> (forall t, In t T -> sat (rho ps s t) P) -> dsat ps s T D ->
  NoDup T -> T <> [] -> incl T (lanes G w) ->
  (memreads G es T (oval G ps s i) <= n)%Z.
Proof.
  intros ps s P D i es n T w H Hp Hw HP HD Hn Hne Hi.
  unfold dacc, dacc_with, exact_bnd, nstar, akey in H. repeat rewrite andb_true_iff in H.
  destruct H as [[HSB HW] Hb]. apply Z.ltb_lt in HSB. apply Nat.ltb_lt in HW. apply Z.leb_le in Hb.
  destruct (idep_opd G D i) as [[[k r] g]|] eqn:Ei; cbn [nstar_w] in Hb.
  - destruct (idep_opd_sound ps s T D i k r g Hp Hw HD Ei) as [c [Hc Hv]].
    apply (dep_core ps s P k g r es n T w i c); auto. intros t Ht; rewrite Hv; auto.
  - rewrite wrap_dep_mem in Hb.
    destruct (scl_of D i) as [[u k]|] eqn:Es; cbn [nstar_w] in Hb.
    { destruct (scl_of_sound s T D i u k HD Es) as [k' [c [Hk Hv]]].
      pose proof (scl_core false ps s P u k k' c es T w (oval G ps s i) HSB HW Hk
        (fun t Ht => Hv t ps Ht) HP Hne Hi) as Hs. simpl in Hs. lia. }
    pose proof (best_ge ps s P T w HW Hn Hi Hne HP) as Hbest.
    pose proof (memreads_len es T (oval G ps s i)) as Hlen.
    destruct (rng_of D i) as [wd|] eqn:Er; [|lia].
    match type of Hb with context[if ?c then _ else _] => destruct c end; [|lia].
    destruct (rng_of_sound s T D i wd HD Er) as [c' Hc'].
    pose proof (range_mem es T (oval G ps s i) c' wd HSB (fun t Ht => Hc' t ps Ht)). lia.
Qed.

Lemma dacc_conf_sound : forall ps s P D i es n T w, dacc G true P D i es n = true ->
  pok ps -> wt s -> (forall t, In t T -> sat (rho ps s t) P) -> dsat ps s T D ->
  NoDup T -> T <> [] -> incl T (lanes G w) ->
  (conflicts_of G es T (oval G ps s i) <= n)%Z.
Proof.
  intros ps s P D i es n T w H Hp Hw HP HD Hn Hne Hi.
  unfold dacc, dacc_with, exact_bnd, nstar, akey in H. repeat rewrite andb_true_iff in H.
  destruct H as [[[HBB HNB] HW] Hb]. apply Z.ltb_lt in HBB, HNB. apply Nat.ltb_lt in HW.
  apply Z.leb_le in Hb.
  destruct (idep_opd G D i) as [[[k r] g]|] eqn:Ei; cbn [nstar_w] in Hb.
  - destruct (idep_opd_sound ps s T D i k r g Hp Hw HD Ei) as [c [Hc Hv]].
    apply (conf_core ps s P k g r es n T w i c); auto. intros t Ht; rewrite Hv; auto.
  - destruct (wrap_dep G true es D i) as [[[k r] g]|] eqn:Ew; cbn [nstar_w] in Hb.
    { destruct (wrap_dep_sound s T D i es k r g HD Ew) as [m [c [Hm1 [Hm [-> [-> Hv]]]]]].
      eapply Z.le_trans; [apply (conf_wrap_le es T (fun t => (kval G k t + c)%Z) _ m); auto;
        intros t Ht; apply Hv; auto|].
      apply (conf_core_fam ps s P k 1 0 es n T w (fun t => VInt (kval G k t + c)) c); auto.
      apply Z.divide_1_l. }
    destruct (scl_of D i) as [[u k]|] eqn:Es; cbn [nstar_w] in Hb.
    { destruct (scl_of_sound s T D i u k HD Es) as [k' [c [Hk Hv]]].
      pose proof (scl_core true ps s P u k k' c es T w (oval G ps s i) (conj HBB HNB) HW Hk
        (fun t Ht => Hv t ps Ht) HP Hne Hi) as Hs. simpl in Hs. lia. }
    pose proof (best_ge ps s P T w HW Hn Hi Hne HP) as Hbest.
    pose proof (conflicts_len es T (oval G ps s i)) as Hlen.
    destruct (rng_of D i) as [wd|] eqn:Er; [|lia].
    match type of Hb with context[if ?c then _ else _] => destruct c end; [|lia].
    destruct (rng_of_sound s T D i wd HD Er) as [c' Hc'].
    pose proof (range_conf es T (oval G ps s i) c' wd HBB HNB (fun t Ht => Hc' t ps Ht)). lia.
Qed.

(** ** Lemma 2: expression costs are bounded by the judgment's cost *)
Lemma qopd_sound : forall s o T C C', oeval G s o T C -> qopd G o C' -> C == C'.
Proof. intros s o T C C' H1 H2; inversion H1; inversion H2; subst; try discriminate; lra. Qed.

Lemma qexpr_sound : forall F ps s e T R C P D n C' w, pok ps -> wt s ->
  (forall t, In t T -> sat (rho ps s t) P) -> dsat ps s T D ->
  NoDup T -> T <> [] -> incl T (lanes G w) ->
  eeval G F ps s e T R C -> qexpr G P D e n C' -> C <= C'.
Proof.
  intros F ps s e T R C P D n C' w Hp Hw HP HD Hn Hne Hi H1 H2. pose proof (m_mono M) as Hm.
  inversion H2; subst; inversion H1; subst;
    repeat match goal with
           | Ha : oeval _ _ ?o _ ?c, Hb : qopd _ ?o ?c' |- _ =>
               pose proof (qopd_sound _ _ _ _ _ Ha Hb); clear Ha Hb
           end.
  all: repeat match goal with
         | H1 : c_arr G ?A = Some _, H2 : c_arr G ?A = Some _ |- _ =>
             rewrite H1 in H2; inversion H2; subst; clear H2
         end.
  all: try lra.
  - match goal with |- context[m_gread _ (memreads G ?es ?T ?R)] =>
      assert (m_gread M (memreads G es T R) <= m_gread M n)
        by (apply Hm; eapply dacc_mem_sound; eauto) end.
    fold M; lra.
  - match goal with |- context[m_sread _ (conflicts_of G ?es ?T ?R)] =>
      assert (m_sread M (conflicts_of G es T R) <= m_sread M n)
        by (apply Hm; eapply dacc_conf_sound; eauto) end.
    fold M; lra.
Qed.
(** ** Linear expressions, conditions and uniformity *)
Lemma lin_opd_correct : forall ps s o L t, pok ps -> wt s -> lin_opd G o = Some L ->
  oval G ps s o t = VInt (leval (rho ps s t) L).
Proof.
  intros ps s o L t Hp Hw H. unfold leval, rho.
  destruct o as [x|p|v|d]; simpl in H.
  - destruct (c_lty G x) as [[]|] eqn:E; try discriminate. inversion H; subst.
    specialize (Hw x TInt E t). simpl oval.
    cbn [tsum fold_right fst snd lcst lterms].
    destruct (sl s x t); try discriminate; cbn [int_of]; f_equal; lia.
  - destruct (c_pty G p) as [[]|] eqn:E; try discriminate. inversion H; subst.
    specialize (Hp p TInt E). simpl oval.
    cbn [tsum fold_right fst snd lcst lterms].
    destruct (ps p); try discriminate; cbn [int_of]; f_equal; lia.
  - destruct v; try discriminate. inversion H; subst; cbn [tsum fold_right lcst lterms oval];
      f_equal; lia.
  - destruct (d <? 3); try discriminate. inversion H; subst;
      cbn [tsum fold_right fst snd lcst lterms oval]; f_equal; lia.
Qed.

Ltac lin_opds :=
  repeat match goal with
  | H : lin_opd G ?o = Some ?L |- _ =>
      let E := fresh "E" in
      assert (E : forall t, oval G _ _ o t = VInt (leval (rho _ _ t) L))
        by (intros; eapply lin_opd_correct; eauto); clear H
  end.

Lemma lin_bin_correct : forall F ps s op a b L t v, pok ps -> wt s ->
  lin_expr G (EBin op a b) = Some L ->
  bop_eval F op (oval G ps s a t) (oval G ps s b t) = Some v -> v = VInt (leval (rho ps s t) L).
Proof.
  intros F ps s op a b L t v Hp Hw HL H1. simpl in HL.
  destruct op; try discriminate;
  repeat match goal with
         | H : match ?x with _ => _ end = Some _ |- _ => destruct x eqn:?; try discriminate
         | H : option_map _ ?x = Some _ |- _ => destruct x eqn:?; simpl in H; try discriminate
         end;
  inversion HL; subst; clear HL;
  repeat match goal with
         | H : lin_opd G ?o = Some ?L |- _ =>
             rewrite (lin_opd_correct ps s o L t Hp Hw H) in H1; clear H
         end;
  simpl in *;
  (* [a << c]: the range test of [bop_eval] is the one [lin_expr] made *)
  try match goal with
      | Hb : ((0 <=? ?c) && (?c <? 64))%Z = true, H1 : context [if _ then _ else _] |- _ =>
          rewrite Hb in H1; apply andb_true_iff in Hb as [Hb1 _]; apply Z.leb_le in Hb1
      end;
  inversion H1; subst; f_equal;
  rewrite ?ladd_eval, ?lscale_eval; try (unfold leval; simpl; lia);
  try (rewrite Z.shiftl_mul_pow2 by lia; ring); auto.
Qed.

Lemma lin_un_correct : forall F ps s op a L t v, pok ps -> wt s ->
  lin_expr G (EUn op a) = Some L ->
  uop_eval F op (oval G ps s a t) = Some v -> v = VInt (leval (rho ps s t) L).
Proof.
  intros F ps s op a L t v Hp Hw HL H0. simpl in HL. destruct op; try discriminate.
  destruct (lin_opd G a) eqn:E; try discriminate. simpl in HL. inversion HL; subst.
  rewrite (lin_opd_correct ps s a l t Hp Hw E) in H0. simpl in H0. inversion H0; subst.
  rewrite lscale_eval; f_equal; lia.
Qed.

Lemma lin_expr_correct : forall F ps s e T R C L, pok ps -> wt s ->
  eeval G F ps s e T R C -> lin_expr G e = Some L ->
  forall t, In t T -> R t = VInt (leval (rho ps s t) L).
Proof.
  intros F ps s e T R C L Hp Hw He HL t Ht.
  inversion He; subst; simpl in HL; try discriminate.
  - eapply lin_opd_correct; eauto.
  - eapply lin_bin_correct; eauto.
  - eapply lin_un_correct; eauto.
Qed.

Lemma leval_const : forall r k, leval r (mkLin k []) = k.
Proof. intros; unfold leval; simpl; lia. Qed.

(** *** Fixed operands *)
Lemma omax_le : forall a b l v, omax a b = Some l ->
  (forall x, a = Some x -> (x <= v)%Z) -> (forall x, b = Some x -> (x <= v)%Z) -> (l <= v)%Z.
Proof.
  intros [x|] [y|] l v H Ha Hb; simpl in H; inversion H; subst;
    [apply Z.max_lub|..]; auto.
Qed.
Lemma omin_ge : forall a b h v, omin a b = Some h ->
  (forall x, a = Some x -> (v <= x)%Z) -> (forall x, b = Some x -> (v <= x)%Z) -> (v <= h)%Z.
Proof.
  intros [x|] [y|] h v H Ha Hb; simpl in H; inversion H; subst;
    [apply Z.min_glb|..]; auto.
Qed.

Lemma le_bounds_sound : forall a c v, (c + a * v <= 0)%Z ->
  (forall l, fst (le_bounds a c) = Some l -> (l <= v)%Z) /\
  (forall h, snd (le_bounds a c) = Some h -> (v <= h)%Z).
Proof.
  intros a c v H. unfold le_bounds; simpl. split; intros x Hx.
  - destruct (Z.ltb_spec a 0); inversion Hx; subst.
    assert (- v <= (- c) / (- a))%Z by (apply Z.div_le_lower_bound; lia). lia.
  - destruct (Z.ltb_spec 0 a); inversion Hx; subst.
    apply Z.div_le_lower_bound; lia.
Qed.

Lemma cbounds_sound : forall r y k, holds r k ->
  (forall l, fst (cbounds y k) = Some l -> (l <= r (VL y))%Z) /\
  (forall h, snd (cbounds y k) = Some h -> (r (VL y) <= h)%Z).
Proof.
  intros r y k Hk. unfold cbounds.
  destruct (is_lin k) eqn:Hl; [|simpl; split; intros; discriminate]. simpl negb; cbv iota.
  assert (HL : leval r (lnorm (cform k)) = leval r (cform k)) by apply lnorm_eval.
  set (L := lnorm (cform k)) in *. clearbody L.
  destruct (lterms L) as [|[a [y'|p|d]] [|av l]] eqn:Ht; simpl;
    try (split; intros; discriminate).
  destruct (Nat.eqb_spec y' y) as [<-|]; [|split; intros; discriminate].
  assert (HV : leval r L = (lcst L + a * r (VL y'))%Z) by (unfold leval; rewrite Ht; simpl; lia).
  destruct k as [K|K|K mo rs]; simpl in Hk, HL; [| |discriminate].
  - apply le_bounds_sound. lia.
  - destruct (le_bounds_sound a (lcst L) (r (VL y')) ltac:(lia)) as [H1 H2].
    destruct (le_bounds_sound (- a) (- lcst L) (r (VL y')) ltac:(lia)) as [H3 H4].
    split; intros x Hx; simpl in Hx; [eapply omax_le|eapply omin_ge]; eauto.
Qed.

Lemma ybounds_sound : forall r y P, sat r P ->
  (forall l, fst (ybounds y P) = Some l -> (l <= r (VL y))%Z) /\
  (forall h, snd (ybounds y P) = Some h -> (r (VL y) <= h)%Z).
Proof.
  intros r y P; induction P as [|k P IH]; intros HP; simpl; [split; intros; discriminate|].
  destruct (cbounds_sound r y k (HP k (or_introl eq_refl))) as [H1 H2].
  destruct (IH (fun c Hc => HP c (or_intror Hc))) as [H3 H4].
  split; intros x Hx; [eapply omax_le|eapply omin_ge]; eauto.
Qed.

Lemma fixv_sound : forall r P y c, sat r P -> fixv P y = Some c -> r (VL y) = c.
Proof.
  intros r P y c HP H. unfold fixv in H. destruct (ybounds_sound r y P HP) as [H1 H2].
  destruct (ybounds y P) as [[l|] [h|]]; try discriminate.
  destruct (Z.eqb_spec l h); inversion H; subst.
  specialize (H1 c eq_refl). specialize (H2 c eq_refl). simpl in *. lia.
Qed.

Lemma fixo_val : forall ps s P o t, wt s -> sat (rho ps s t) P ->
  oval G ps s (fixo G P o) t = oval G ps s o t.
Proof.
  intros ps s P o t Hw HP. destruct o as [y| | |]; simpl; auto.
  destruct (c_lty G y) as [[]|] eqn:Ey; auto.
  destruct (fixv P y) as [c|] eqn:Ef; auto.
  pose proof (fixv_sound _ P y c HP Ef) as E. simpl in E.
  specialize (Hw y TInt Ey t). destruct (sl s y t); try discriminate. simpl in *. subst; auto.
Qed.

Lemma lin_fix_correct : forall F ps s e T R C P L, pok ps -> wt s ->
  eeval G F ps s e T R C -> lin_fix G P e = Some L ->
  forall t, In t T -> sat (rho ps s t) P -> R t = VInt (leval (rho ps s t) L).
Proof.
  intros F ps s e T R C P L Hp Hw He HL t Ht HP.
  inversion He; subst; simpl in HL; try discriminate.
  - rewrite <- (fixo_val ps s P o t Hw HP). eapply lin_opd_correct; eauto.
  - match goal with Hb : forall t, In t T -> bop_eval _ _ _ _ = Some _ |- _ =>
      specialize (Hb t Ht); rename Hb into Hb' end.
    rewrite <- (fixo_val ps s P a t Hw HP), <- (fixo_val ps s P b t Hw HP) in Hb'.
    set (a' := fixo G P a) in *. set (b' := fixo G P b) in *. clearbody a' b'.
    destruct a' as [| |[x| |]|], b' as [| |[y| |]|];
      try (refine (lin_bin_correct _ _ _ _ _ _ _ _ _ Hp Hw _ Hb'); exact HL).
    destruct op; try (refine (lin_bin_correct _ _ _ _ _ _ _ _ _ Hp Hw _ Hb'); exact HL);
      cbn [oval] in Hb'; rewrite bop_eval_int in Hb'; cbn iota beta in HL; unfold int_eval in HL;
      destruct (bop_eval f0 _ (VInt x) (VInt y)) as [[z| |]|]; simpl in HL; try discriminate;
      inversion HL; inversion Hb'; subst; unfold leval; simpl; f_equal; lia.
  - match goal with Hb : forall t, In t T -> uop_eval _ _ _ = Some _ |- _ =>
      specialize (Hb t Ht); rename Hb into Hb' end.
    rewrite <- (fixo_val ps s P a t Hw HP) in Hb'. eapply lin_un_correct; eauto.
Qed.

Lemma cond_correct : forall F ps s e T R C t, pok ps -> wt s ->
  eeval G F ps s e T R C -> In t T ->
  (is_true_v (R t) = true -> sat (rho ps s t) (fst (cond G e))) /\
  (is_false_v (R t) = true -> sat (rho ps s t) (snd (cond G e))).
Proof.
  intros F ps s e T R C t Hp Hw He Ht.
  destruct e as [o|op a b|op a|A i]; simpl;
    try (split; intros _ c Hc; contradiction).
  destruct (lin_opd G a) as [La|] eqn:Ea; [|split; intros _ c Hc; contradiction].
  destruct (lin_opd G b) as [Lb|] eqn:Eb; [|split; intros _ c Hc; contradiction].
  inversion He; subst.
  match goal with Hb : forall t, In t T -> bop_eval _ _ _ _ = Some _ |- _ =>
    specialize (Hb t Ht); rename Hb into H6 end.
  rewrite (lin_opd_correct ps s a La t Hp Hw Ea), (lin_opd_correct ps s b Lb t Hp Hw Eb) in H6.
  unfold lsub, lplus.
  destruct op; simpl in H6; inversion H6; subst; simpl;
    split; intros HR c Hc; simpl in Hc; try contradiction;
    destruct Hc as [<-|[]]; simpl; rewrite ?ladd_eval, ?lscale_eval, ?leval_const;
    try (match goal with H : context[if ?c then _ else _] |- _ => destruct c eqn:? end);
    try discriminate;
    try match goal with
        | H : (_ <? _)%Z = _ |- _ => first [apply Z.ltb_lt in H | apply Z.ltb_ge in H]
        | H : (_ <=? _)%Z = _ |- _ => first [apply Z.leb_le in H | apply Z.leb_gt in H]
        | H : (_ =? _)%Z = _ |- _ => first [apply Z.eqb_eq in H | apply Z.eqb_neq in H]
        end; try lia.
Qed.

Lemma opd_unif_correct : forall ps s X o t t', opd_unif G X o = true ->
  (forall x, memn x X = true -> sl s x t = sl s x t') ->
  (forall d, memn d (c_wu G) = true -> tid G d t = tid G d t') ->
  oval G ps s o t = oval G ps s o t'.
Proof. intros ps s X [x|p|v|d] t t' H Hu Hd; simpl in *; auto. rewrite Hd; auto. Qed.

Lemma unif_correct : forall F ps s e T R C X w, unif G X e = true ->
  eeval G F ps s e T R C -> incl T (lanes G w) ->
  (forall x, memn x X = true -> forall t t', In t T -> In t' T -> sl s x t = sl s x t') ->
  forall t t', In t T -> In t' T -> R t = R t'.
Proof.
  intros F ps s e T R C X w Hu He Hi HX t t' Ht Ht'.
  assert (Hd : forall d, memn d (c_wu G) = true -> tid G d t = tid G d t').
  { intros d Hd. apply memn_In in Hd. eapply HWU; eauto. }
  inversion He; subst; simpl in Hu.
  - eapply opd_unif_correct; eauto.
  - apply andb_true_iff in Hu as [Ha Hb].
    pose proof (H1 t Ht) as E1; pose proof (H1 t' Ht') as E2.
    rewrite (opd_unif_correct ps s X a t t') in E1 by eauto.
    rewrite (opd_unif_correct ps s X b t t') in E1 by eauto. congruence.
  - pose proof (H0 t Ht) as E1; pose proof (H0 t' Ht') as E2.
    rewrite (opd_unif_correct ps s X a t t') in E1 by eauto. congruence.
  - rewrite (opd_unif_correct ps s X i t t') by eauto; auto.
  - rewrite (opd_unif_correct ps s X i t t') by eauto; auto.
  - rewrite (opd_unif_correct ps s X i t t') by eauto; auto.
Qed.

(** [lin_P(e)] constant: the same value in every thread satisfying [P]. *)
Lemma lin_const_correct : forall F ps s e T R C P, pok ps -> wt s ->
  eeval G F ps s e T R C -> lin_const G P e = true ->
  (forall t, In t T -> sat (rho ps s t) P) ->
  forall t t', In t T -> In t' T -> R t = R t'.
Proof.
  intros F ps s e T R C P Hp Hw He H HP t t' Ht Ht'. unfold lin_const in H.
  destruct (lin_fix G P e) as [L|] eqn:EL; [|discriminate].
  rewrite (lin_fix_correct F ps s e T R C P L Hp Hw He EL t Ht (HP t Ht)).
  rewrite (lin_fix_correct F ps s e T R C P L Hp Hw He EL t' Ht' (HP t' Ht')).
  rewrite <- (lnorm_eval (rho ps s t) L), <- (lnorm_eval (rho ps s t') L).
  unfold leval. destruct (lterms (lnorm L)); [reflexivity|discriminate].
Qed.

(** A decided condition: [cond(e)] (or [cond(¬e)]) non-empty and satisfied fixes the
    value of [e] (Q:IF2, Q:IF3). *)
Lemma cond_decides : forall F ps s e T R C t, pok ps -> wt s ->
  eeval G F ps s e T R C -> In t T ->
  (nonempty (fst (cond G e)) = true -> sat (rho ps s t) (fst (cond G e)) -> R t = VBool true) /\
  (nonempty (snd (cond G e)) = true -> sat (rho ps s t) (snd (cond G e)) -> R t = VBool false).
Proof.
  intros F ps s e T R C t Hp Hw He Ht.
  destruct e as [o|op a b|op a|A i]; simpl; try (split; intros; discriminate).
  destruct (lin_opd G a) as [La|] eqn:Ea; [|split; intros; discriminate].
  destruct (lin_opd G b) as [Lb|] eqn:Eb; [|split; intros; discriminate].
  inversion He; subst.
  match goal with Hb : forall t, In t T -> bop_eval _ _ _ _ = Some _ |- _ =>
    specialize (Hb t Ht); rename Hb into H6 end.
  rewrite (lin_opd_correct ps s a La t Hp Hw Ea), (lin_opd_correct ps s b Lb t Hp Hw Eb) in H6.
  unfold lsub, lplus in *.
  destruct op; simpl in H6; inversion H6; subst; simpl;
    split; intros Hn HS; try discriminate;
    specialize (HS _ (or_introl eq_refl)); simpl in HS;
    rewrite ?ladd_eval, ?lscale_eval, ?leval_const in HS; f_equal;
    first [apply Z.ltb_lt | apply Z.ltb_ge | apply Z.leb_le | apply Z.leb_gt
          | apply Z.eqb_eq | apply negb_false_iff, Z.eqb_eq | idtac]; lia.
Qed.


(** ** Dependence of integer expressions ([dep_D], spec/logic.md §2) *)
Definition fdep (T : list nat) (f : nat -> Z) (k : trip) (r g : Z) : Prop :=
  exists c, Z.divide g (c - r)%Z /\ forall t, In t T -> f t = (kval G k t + c)%Z.

Lemma fdep_norm : forall T f k r g k' r' g', fdep T f k r g -> dnorm k r g = (k', r', g') ->
  fdep T f k' r' g'.
Proof.
  intros T f k r g k' r' g' [c [Hc H]] E. unfold dnorm in E. injection E as <- <- <-.
  exists c. split; auto. apply Z.divide_abs_l in Hc.
  destruct (Z.eqb_spec (Z.abs g) 0) as [E|E]; auto.
  replace (c - r mod Z.abs g)%Z with ((c - r) + Z.abs g * (r / Z.abs g))%Z
    by (rewrite (Z.mod_eq r (Z.abs g)) by auto; ring).
  apply Z.divide_add_r; auto. apply Z.divide_factor_l.
Qed.

Lemma fdep_add : forall T f1 f2 k1 r1 g1 k2 r2 g2 sg, fdep T f1 k1 r1 g1 -> fdep T f2 k2 r2 g2 ->
  fdep T (fun t => f1 t + sg * f2 t)%Z (tadd k1 (tscale sg k2)) (r1 + sg * r2) (Z.gcd g1 g2).
Proof.
  intros T f1 f2 k1 r1 g1 k2 r2 g2 sg [c1 [Hc1 H1]] [c2 [Hc2 H2]]. exists (c1 + sg * c2)%Z. split.
  - replace (c1 + sg * c2 - (r1 + sg * r2))%Z with ((c1 - r1) + sg * (c2 - r2))%Z by ring.
    apply Z.divide_add_r.
    + eapply Z.divide_trans; [apply Z.gcd_divide_l | exact Hc1].
    + apply Z.divide_mul_r. eapply Z.divide_trans; [apply Z.gcd_divide_r | exact Hc2].
  - intros t Ht. rewrite H1, H2 by auto. rewrite kval_tadd, kval_tscale. ring.
Qed.

Lemma fdep_scale : forall T f k r g c, fdep T f k r g ->
  fdep T (fun t => c * f t)%Z (tscale c k) (c * r) (g * c).
Proof.
  intros T f k r g c [c0 [Hc H]]. exists (c * c0)%Z. split.
  - replace (c * c0 - c * r)%Z with ((c0 - r) * c)%Z by ring. apply Z.mul_divide_mono_r; auto.
  - intros t Ht. rewrite H by auto. rewrite kval_tscale. ring.
Qed.

Lemma fdep_mul : forall T f1 f2 r1 g1 r2 g2, fdep T f1 (0, 0, 0)%Z r1 g1 -> fdep T f2 (0, 0, 0)%Z r2 g2 ->
  fdep T (fun t => f1 t * f2 t)%Z (0, 0, 0)%Z (r1 * r2)
    (Z.gcd (Z.gcd (g1 * g2) (r1 * g2)) (r2 * g1)).
Proof.
  intros T f1 f2 r1 g1 r2 g2 [c1 [[a Ha] H1]] [c2 [[b Hb] H2]]. exists (c1 * c2)%Z. split.
  - replace (c1 * c2 - r1 * r2)%Z with ((a * b) * (g1 * g2) + a * (r2 * g1) + b * (r1 * g2))%Z
      by (replace c1 with (a * g1 + r1)%Z by lia; replace c2 with (b * g2 + r2)%Z by lia; ring).
    set (gg := Z.gcd (Z.gcd (g1 * g2) (r1 * g2)) (r2 * g1)).
    assert (D1 : Z.divide gg (g1 * g2)) by
      (eapply Z.divide_trans; [apply Z.gcd_divide_l|]; apply Z.gcd_divide_l).
    assert (D2 : Z.divide gg (r1 * g2)) by
      (eapply Z.divide_trans; [apply Z.gcd_divide_l|]; apply Z.gcd_divide_r).
    assert (D3 : Z.divide gg (r2 * g1)) by apply Z.gcd_divide_r.
    repeat apply Z.divide_add_r; apply Z.divide_mul_r; auto.
  - intros t Ht. rewrite H1, H2 by auto. rewrite kval_zero. ring.
Qed.

Lemma fdep_unif : forall T f, (forall t t', In t T -> In t' T -> f t = f t') ->
  fdep T f (0, 0, 0)%Z 0 1.
Proof.
  intros T f H. destruct T as [|t0 T'].
  - exists 0%Z. split; [apply Z.divide_1_l | intros t []].
  - exists (f t0). split; [apply Z.divide_1_l|]. intros t Ht. rewrite kval_zero.
    rewrite (H t t0) by (auto; left; auto). lia.
Qed.

Lemma fdep_ext : forall T f1 f2 k r g, (forall t, In t T -> f1 t = f2 t) -> fdep T f1 k r g ->
  fdep T f2 k r g.
Proof. intros T f1 f2 k r g E [c [Hc H]]. exists c; split; auto. intros t Ht; rewrite <- E; auto. Qed.

(** On a dimension of extent 1 every thread's index is 0 (the collapse's [kext]). *)
Lemma tid_unit0 : forall t, c_bx G = 1%nat -> tid G 0 t = 0%Z.
Proof. intros t H. unfold tid. rewrite H, Nat.mod_1_r. reflexivity. Qed.
Lemma tid_unit1 : forall t, c_by G = 1%nat -> tid G 1 t = 0%Z.
Proof. intros t H. unfold tid. rewrite H, Nat.mod_1_r. reflexivity. Qed.
Lemma tid_unit2 : forall w t, In t (lanes G w) -> c_bz G = 1%nat -> tid G 2 t = 0%Z.
Proof.
  intros w t Ht H. unfold lanes in Ht. apply filter_In in Ht as [_ Ht].
  apply Nat.ltb_lt in Ht. rewrite H, Nat.mul_1_r in Ht. unfold tid.
  rewrite Nat.div_small by exact Ht. reflexivity.
Qed.

Lemma fdep_collapse : forall T f k r g w k' r' g', incl T (lanes G w) -> fdep T f k r g ->
  collapse G (k, r, g) = (k', r', g') -> fdep T f k' r' g'.
Proof.
  intros T f k r g w k' r' g' Hi H E. unfold collapse in E.
  destruct (kzero k || negb (kwu G k)) eqn:Ek; [injection E as <- <- <-; auto|].
  apply orb_false_iff in Ek as [_ Ek]. apply negb_false_iff in Ek.
  destruct k as [[kx ky] kz]. eapply fdep_norm; [|exact E].
  destruct H as [c [Hc H]]. destruct T as [|t0 T'].
  - exists r. split; [rewrite Z.sub_diag; apply Z.divide_0_r | intros t []].
  - exists (kval G (kx, ky, kz) t0 + c)%Z. split.
    + replace (kval G (kx, ky, kz) t0 + c - r)%Z with
        (kx * tid G 0 t0 + ky * tid G 1 t0 + kz * tid G 2 t0 + (c - r))%Z by (unfold kval; ring).
      set (gg := Z.gcd (Z.gcd (Z.gcd g (kext (c_bx G) kx)) (kext (c_by G) ky)) (kext (c_bz G) kz)).
      assert (Hcr : Z.divide gg (c - r)) by
        (do 3 (eapply Z.divide_trans; [apply Z.gcd_divide_l|]); exact Hc).
      assert (Dx : Z.divide gg (kext (c_bx G) kx)) by
        (do 2 (eapply Z.divide_trans; [apply Z.gcd_divide_l|]); apply Z.gcd_divide_r).
      assert (Dy : Z.divide gg (kext (c_by G) ky)) by
        (eapply Z.divide_trans; [apply Z.gcd_divide_l|]; apply Z.gcd_divide_r).
      assert (Dz : Z.divide gg (kext (c_bz G) kz)) by apply Z.gcd_divide_r.
      assert (Ht0 : In t0 (lanes G w)) by (apply Hi; left; auto).
      apply Z.divide_add_r; [|exact Hcr].
      apply Z.divide_add_r; [apply Z.divide_add_r|].
      * unfold kext in Dx. destruct (Nat.eqb_spec (c_bx G) 1) as [E1|_];
          [rewrite (tid_unit0 t0 E1), Z.mul_0_r; apply Z.divide_0_r | apply Z.divide_mul_l; exact Dx].
      * unfold kext in Dy. destruct (Nat.eqb_spec (c_by G) 1) as [E1|_];
          [rewrite (tid_unit1 t0 E1), Z.mul_0_r; apply Z.divide_0_r | apply Z.divide_mul_l; exact Dy].
      * unfold kext in Dz. destruct (Nat.eqb_spec (c_bz G) 1) as [E1|_];
          [rewrite (tid_unit2 w t0 Ht0 E1), Z.mul_0_r; apply Z.divide_0_r | apply Z.divide_mul_l; exact Dz].
    + intros t Ht. rewrite H by auto. rewrite kval_zero.
      rewrite (kval_wu _ w t t0) by (auto; apply Hi; auto; left; auto). lia.
Qed.

(** The [>>] rule: shifting a value whose warp offsets the enumeration checked gives one
    value on all active threads. *)
Lemma shift_uniform : forall T f k r g c w, incl T (lanes G w) -> fdep T f k r g ->
  shift_ok_w G (wtids G) (k, r, g) c = true ->
  forall t t', In t T -> In t' T -> (f t / 2 ^ c = f t' / 2 ^ c)%Z.
Proof.
  intros T f k r g c w Hi [c0 [Hc H]] Hs t t' Ht Ht'. unfold shift_ok_w in Hs.
  set (p := (2 ^ c)%Z) in *. set (step := if (g =? 0)%Z then p else Z.gcd g p) in *.
  set (cnt := (p / step)%Z) in *.
  repeat rewrite andb_true_iff in Hs. destruct Hs as [[[[Hc1 Hc2] Hst] Hlim] Hw].
  apply Z.leb_le in Hc1. apply Z.ltb_lt in Hc2, Hst.
  assert (Hp : (0 < p)%Z) by (apply Z.pow_pos_nonneg; lia).
  assert (Hsp : Z.divide step p) by (unfold step; destruct (g =? 0)%Z; [apply Z.divide_refl | apply Z.gcd_divide_r]).
  assert (Hsr : Z.divide step (c0 - r)).
  { unfold step. destruct (Z.eqb_spec g 0) as [->|Hg].
    - apply Z.divide_0_l in Hc. rewrite Hc. apply Z.divide_0_r.
    - eapply Z.divide_trans; [apply Z.gcd_divide_l | exact Hc]. }
  set (rh := (c0 mod p)%Z). set (q := (c0 / p)%Z).
  assert (Hcq : c0 = (p * q + rh)%Z) by (apply Z.div_mod; lia).
  assert (Hrh : (0 <= rh < p)%Z) by (apply Z.mod_pos_bound; lia).
  assert (Hrs : (rh mod step = r mod step)%Z).
  { destruct Hsp as [m Hm]. destruct Hsr as [m' Hm'].
    replace rh with (r + (m' - m * q) * step)%Z by lia. apply Z.mod_add; lia. }
  set (i := (rh / step)%Z).
  assert (Hri : rh = (r mod step + i * step)%Z) by (rewrite <- Hrs; unfold i; rewrite (Z.div_mod rh step) at 1 by lia; ring).
  assert (Hi0 : In i (zrange cnt)).
  { apply in_zrange. destruct Hsp as [m Hm]. unfold cnt. rewrite Hm, Z.div_mul by lia.
    split; [apply Z.div_pos; lia|]. apply Z.div_lt_upper_bound; lia. }
  (* every lane of the warp has the same quotient *)
  assert (HW : (0 < c_warp G)%nat).
  { destruct (c_warp G) eqn:E; [|lia]. exfalso. apply Hi in Ht. unfold lanes in Ht.
    rewrite E in Ht. simpl in Ht. contradiction. }
  assert (Hwn : (w < nwarps G)%nat) by (eapply lanes_nwarps; eauto).
  rewrite forallb_forall in Hw. specialize (Hw _ (in_wtids w Hwn)). rewrite kvalz_lanes in Hw.
  assert (Hq : forall u, In u (lanes G w) ->
            ((kval G k u + rh) / p = (kval G k (hd 0%nat (lanes G w)) + rh) / p)%Z).
  { destruct (lanes G w) as [|t1 rest] eqn:El; [intros u []|].
    simpl in Hw. rewrite forallb_forall in Hw. specialize (Hw i Hi0). cbv zeta in Hw.
    rewrite forallb_forall in Hw. intros u [<-|Hu]; [reflexivity|]. simpl.
    specialize (Hw (kval G k u) (in_map _ _ _ Hu)). apply Z.eqb_eq in Hw. rewrite Hri. exact Hw. }
  assert (Hf : forall u, In u T -> (f u / p = (kval G k u + rh) / p + q)%Z).
  { intros u Hu. rewrite H by auto. rewrite Hcq.
    replace (kval G k u + (p * q + rh))%Z with ((kval G k u + rh) + q * p)%Z by ring.
    apply Z.div_add; lia. }
  rewrite (Hf t), (Hf t'), (Hq t), (Hq t') by auto. reflexivity.
Qed.

Lemma some_eq : forall A (a b : A), Some a = Some b -> a = b.
Proof. congruence. Qed.

Lemma opd_fdep : forall ps s T D o k r g, pok ps -> wt s -> dsat ps s T D ->
  idep_opd G D o = Some (k, r, g) ->
  fdep T (fun t => int_of (oval G ps s o t)) k r g /\
  (forall t, In t T -> oval G ps s o t = VInt (int_of (oval G ps s o t))).
Proof.
  intros ps s T D o k r g Hp Hw HD H.
  destruct (idep_opd_sound ps s T D o k r g Hp Hw HD H) as [c [Hc Hv]]. split.
  - exists c; split; auto. intros t Ht; rewrite Hv; auto.
  - intros t Ht; rewrite Hv; auto.
Qed.

Lemma dexact_eq : forall x c, dexact x = Some c -> x = ((0, 0, 0)%Z, c, 0%Z).
Proof.
  intros [[k r] g] c H. unfold dexact in H. destruct (kzero k && (g =? 0)%Z) eqn:E; [|discriminate].
  apply andb_true_iff in E as [E1 E2]. apply kzero_eq in E1. apply Z.eqb_eq in E2.
  inversion H; subst; auto.
Qed.

Lemma fdep_exact : forall T f c, fdep T f (0, 0, 0)%Z c 0 -> forall t, In t T -> f t = c.
Proof.
  intros T f c [c0 [Hc H]] t Ht. apply Z.divide_0_l in Hc. rewrite H by auto. rewrite kval_zero. lia.
Qed.

Lemma opd_uniform : forall ps s T D o w, wt s -> dsat ps s T D -> incl T (lanes G w) ->
  opd_unif G (dunif G D) o = true ->
  forall t t', In t T -> In t' T -> oval G ps s o t = oval G ps s o t'.
Proof.
  intros ps s T D o w Hw HD Hi Ho t t' Ht Ht'. apply (opd_unif_correct ps s (dunif G D) o t t'); auto.
  - intros x Hx; eapply dunif_sound; eauto.
  - intros d Hd; apply memn_In in Hd; eapply HWU; eauto.
Qed.

Lemma duni_eq : forall x k r g, x = (k, r, g) -> duni x = true -> k = (0, 0, 0)%Z.
Proof. intros x k r g -> H. apply kzero_eq. exact H. Qed.

Lemma idep_expr_sound : forall F ps s e T R C D w k r g, pok ps -> wt s -> dsat ps s T D ->
  incl T (lanes G w) -> eeval G F ps s e T R C ->
  idep_expr_w G (wtids G) D e = Some (k, r, g) ->
  fdep T (fun t => int_of (R t)) k r g.
Proof.
  intros F ps s e T R C D w k r g Hp Hw HD Hi He H.
  inversion He; subst.
  - (* an operand *)
    cbn [idep_expr_w] in H. exact (proj1 (opd_fdep ps s T D o k r g Hp Hw HD H)).
  - (* a binary operator *)
    match goal with Hb : forall t, In t T -> bop_eval _ _ _ _ = Some _ |- _ => rename Hb into HB end.
    assert (Hop : dopaque G (dunif G D) [a; b] = Some (k, r, g) -> fdep T (fun t => int_of (R t)) k r g).
    { intros Hd. unfold dopaque in Hd. destruct (forallb _ _) eqn:Ef; [|discriminate].
      injection Hd as <- <- <-. apply fdep_unif. intros t t' Ht Ht'. simpl in Ef.
      rewrite !andb_true_iff in Ef. destruct Ef as [Ea' [Eb' _]].
      pose proof (HB t Ht) as E1. pose proof (HB t' Ht') as E2.
      rewrite (opd_uniform ps s T D a w Hw HD Hi Ea' t t'), (opd_uniform ps s T D b w Hw HD Hi Eb' t t')
        in E1 by auto. congruence. }
    cbn [idep_expr_w] in H.
    destruct (idep_opd G D a) as [[[ka ra] ga]|] eqn:Ea;
      destruct (idep_opd G D b) as [[[kb rb] gb]|] eqn:Eb;
      destruct op; try (apply Hop; exact H).
    all: destruct (opd_fdep ps s T D a ka ra ga Hp Hw HD Ea) as [Fa Va];
      destruct (opd_fdep ps s T D b kb rb gb Hp Hw HD Eb) as [Fb Vb].
    + (* + *)
      apply some_eq in H. eapply fdep_norm; [|exact H].
      eapply fdep_ext; [|apply (fdep_add _ _ _ _ _ _ _ _ _ 1 Fa Fb)].
      intros t Ht. specialize (HB t Ht). rewrite (Va t Ht), (Vb t Ht) in HB. simpl in HB.
      injection HB as <-. cbn [int_of].
        first [lia | ring | (cbn beta in *; rewrite Ea'; ring) | (cbn beta in *; rewrite Eb'; ring)].
    + (* − *)
      apply some_eq in H. eapply fdep_norm; [|exact H].
      eapply fdep_ext; [|apply (fdep_add _ _ _ _ _ _ _ _ _ (-1) Fa Fb)].
      intros t Ht. specialize (HB t Ht). rewrite (Va t Ht), (Vb t Ht) in HB. simpl in HB.
      injection HB as <-. cbn [int_of].
        first [lia | ring | (cbn beta in *; rewrite Ea'; ring) | (cbn beta in *; rewrite Eb'; ring)].
    + (* * *)
      destruct (dexact (ka, ra, ga)) as [c|] eqn:Dx; [|destruct (dexact (kb, rb, gb)) as [c|] eqn:Dy].
      * apply some_eq in H. apply dexact_eq in Dx. injection Dx as -> -> ->.
        eapply fdep_norm; [|exact H]. eapply fdep_ext; [|apply (fdep_scale _ _ _ _ _ c Fb)].
        intros t Ht. pose proof (fdep_exact _ _ _ Fa t Ht) as Ea'. specialize (HB t Ht).
        rewrite (Va t Ht), (Vb t Ht) in HB. simpl in HB. injection HB as <-. cbn [int_of].
        first [lia | ring | (cbn beta in *; rewrite Ea'; ring) | (cbn beta in *; rewrite Eb'; ring)].
      * apply some_eq in H. apply dexact_eq in Dy. injection Dy as -> -> ->.
        eapply fdep_norm; [|exact H]. eapply fdep_ext; [|apply (fdep_scale _ _ _ _ _ c Fa)].
        intros t Ht. pose proof (fdep_exact _ _ _ Fb t Ht) as Eb'. specialize (HB t Ht).
        rewrite (Va t Ht), (Vb t Ht) in HB. simpl in HB. injection HB as <-. cbn [int_of].
        first [lia | ring | (cbn beta in *; rewrite Ea'; ring) | (cbn beta in *; rewrite Eb'; ring)].
      * destruct (collapse G (ka, ra, ga)) as [[ka' ra'] ga'] eqn:Cx.
        destruct (collapse G (kb, rb, gb)) as [[kb' rb'] gb'] eqn:Cy.
        destruct (duni (ka', ra', ga') && duni (kb', rb', gb')) eqn:Du; [|discriminate].
        apply andb_true_iff in Du as [Du1 Du2].
        pose proof (duni_eq _ _ _ _ eq_refl Du1) as ->. pose proof (duni_eq _ _ _ _ eq_refl Du2) as ->.
        pose proof (fdep_collapse _ _ _ _ _ w _ _ _ Hi Fa Cx) as Fa'.
        pose proof (fdep_collapse _ _ _ _ _ w _ _ _ Hi Fb Cy) as Fb'.
        apply some_eq in H. eapply fdep_norm; [|exact H].
        eapply fdep_ext; [|apply (fdep_mul _ _ _ _ _ _ _ Fa' Fb')].
        intros t Ht. specialize (HB t Ht).
        rewrite (Va t Ht), (Vb t Ht) in HB. simpl in HB. injection HB as <-. cbn [int_of].
        first [lia | ring | (cbn beta in *; rewrite Ea'; ring) | (cbn beta in *; rewrite Eb'; ring)].
    + (* << *)
      destruct (dexact (kb, rb, gb)) as [c|] eqn:Dy; [|apply Hop; exact H].
      destruct ((0 <=? c) && (c <? 62))%Z eqn:Hc; [|apply Hop; exact H].
      apply andb_true_iff in Hc as [Hc1 Hc2]. apply Z.leb_le in Hc1.
      apply dexact_eq in Dy. injection Dy as -> -> ->.
      apply some_eq in H. eapply fdep_norm; [|exact H].
      eapply fdep_ext; [|apply (fdep_scale _ _ _ _ _ (2 ^ c) Fa)].
      intros t Ht. pose proof (fdep_exact _ _ _ Fb t Ht) as Eb'. specialize (HB t Ht).
      rewrite (Va t Ht), (Vb t Ht), Eb' in HB. simpl in HB.
      destruct ((0 <=? c) && (c <? 64))%Z; [|discriminate]. injection HB as <-. simpl.
      rewrite Z.shiftl_mul_pow2 by auto. ring.
    + (* >> *)
      destruct (dexact (kb, rb, gb)) as [c|] eqn:Dy; [|apply Hop; exact H].
      destruct (negb (duni (collapse G (ka, ra, ga))) && shift_ok_w G (wtids G) (ka, ra, ga) c) eqn:Hs;
        [|apply Hop; exact H].
      apply andb_true_iff in Hs as [_ Hs]. injection H as <- <- <-.
      apply dexact_eq in Dy. injection Dy as -> -> ->.
      apply fdep_unif. intros t t' Ht Ht'.
      assert (Hsh : forall u, In u T -> int_of (R u) = (int_of (oval G ps s a u) / 2 ^ c)%Z).
      { intros u Hu. pose proof (fdep_exact _ _ _ Fb u Hu) as Eb'. pose proof (HB u Hu) as Hu'.
        rewrite (Va u Hu), (Vb u Hu), Eb' in Hu'. simpl in Hu'.
        destruct ((0 <=? c) && (c <? 64))%Z eqn:Hc; [|discriminate].
        apply andb_true_iff in Hc as [Hc _]. apply Z.leb_le in Hc.
        injection Hu' as <-. simpl. apply Z.shiftr_div_pow2; auto. }
      rewrite (Hsh t), (Hsh t') by auto.
      exact (shift_uniform T (fun u => int_of (oval G ps s a u)) ka ra ga c w Hi Fa Hs t t' Ht Ht').
  - (* a unary operator *)
    match goal with Hu : forall t, In t T -> uop_eval _ _ _ = Some _ |- _ => rename Hu into HU end.
    assert (Hop : dopaque G (dunif G D) [a] = Some (k, r, g) -> fdep T (fun t => int_of (R t)) k r g).
    { intros Hd. unfold dopaque in Hd. destruct (forallb _ _) eqn:Ef; [|discriminate].
      injection Hd as <- <- <-. apply fdep_unif. intros t t' Ht Ht'. simpl in Ef.
      rewrite !andb_true_iff in Ef. destruct Ef as [Ea' _].
      pose proof (HU t Ht) as E1. pose proof (HU t' Ht') as E2.
      rewrite (opd_uniform ps s T D a w Hw HD Hi Ea' t t') in E1 by auto. congruence. }
    destruct op; cbn [idep_expr_w] in H; try (apply Hop; exact H).
    destruct (idep_opd G D a) as [[[ka ra] ga]|] eqn:Ea; [|discriminate].
    destruct (opd_fdep ps s T D a ka ra ga Hp Hw HD Ea) as [Fa Va].
    apply some_eq in H. eapply fdep_norm; [|exact H].
    eapply fdep_ext; [|apply (fdep_scale _ _ _ _ _ (-1) Fa)].
    intros t Ht. specialize (HU t Ht). rewrite (Va t Ht) in HU. simpl in HU.
    injection HU as <-. cbn [int_of]. lia.
  - (* a global read *)
    cbn [idep_expr_w] in H. unfold dopaque in H. destruct (forallb _ _) eqn:Ef; [|discriminate].
    injection H as <- <- <-. apply fdep_unif. intros t t' Ht Ht'. simpl in Ef.
    rewrite !andb_true_iff in Ef. destruct Ef as [Ei _].
    rewrite (opd_uniform ps s T D i w Hw HD Hi Ei t t') by auto. reflexivity.
  - (* a shared read *)
    cbn [idep_expr_w] in H. unfold dopaque in H. destruct (forallb _ _) eqn:Ef; [|discriminate].
    injection H as <- <- <-. apply fdep_unif. intros t t' Ht Ht'. simpl in Ef.
    rewrite !andb_true_iff in Ef. destruct Ef as [Ei _].
    rewrite (opd_uniform ps s T D i w Hw HD Hi Ei t t') by auto. reflexivity.
  - (* a thread-local read: one cell space, the same cell for a uniform index *)
    cbn [idep_expr_w] in H. unfold dopaque in H. destruct (forallb _ _) eqn:Ef; [|discriminate].
    injection H as <- <- <-. apply fdep_unif. intros t t' Ht Ht'. simpl in Ef.
    rewrite !andb_true_iff in Ef. destruct Ef as [Ei _].
    rewrite (opd_uniform ps s T D i w Hw HD Hi Ei t t') by auto. reflexivity.
Qed.

(** ** Widths *)
Lemma land_le : forall a n, (0 <= n)%Z -> (0 <= Z.land a n <= n)%Z.
Proof.
  intros a n Hn. split; [apply Z.land_nonneg; auto|].
  pose proof (Z.lor_ldiff_and n a) as E.
  assert (H0 : Z.land (Z.ldiff n a) (Z.land n a) = 0%Z).
  { apply Z.bits_inj'; intros i Hi. rewrite Z.land_spec, Z.ldiff_spec, Z.land_spec, Z.bits_0.
    destruct (Z.testbit n i), (Z.testbit a i); reflexivity. }
  rewrite <- Z.lxor_lor, <- Z.add_nocarry_lxor in E by auto.
  assert (0 <= Z.ldiff n a)%Z by (rewrite Z.ldiff_land; apply Z.land_nonneg; auto).
  rewrite Z.land_comm. lia.
Qed.

Lemma width_opd_sound : forall ps s T D o wd, pok ps -> wt s -> dsat ps s T D ->
  width_opd G D o = Some wd ->
  exists c, forall t, In t T -> exists v, oval G ps s o t = VInt v /\ (c <= v <= c + wd)%Z.
Proof.
  intros ps s T D o wd Hp Hw HD H. unfold width_opd in H.
  destruct (idep_opd G D o) as [[[k r] g]|] eqn:Ei.
  - destruct (kzero k) eqn:Hk; [|discriminate]. injection H as <-. apply kzero_eq in Hk; subst k.
    destruct (idep_opd_sound ps s T D o _ r g Hp Hw HD Ei) as [c [_ Hv]].
    exists c. intros t Ht. exists c. rewrite Hv by auto. rewrite kval_zero. split; [f_equal|]; lia.
  - destruct o as [x| | |]; try discriminate.
    destruct (c_lty G x) as [[]|] eqn:Ex; try discriminate.
    destruct (dget D x) as [[| |y w'| |y k' m']|] eqn:Ed; try discriminate.
    + injection H as <-.
      destruct (dget_In _ _ _ Ed) as [Hin Hy]; simpl in Hy; subst y.
      specialize (HD _ Hin). simpl in HD. destruct HD as [_ [c HD]].
      exists c. intros t Ht. specialize (Hw x TInt Ex t). simpl.
      destruct (sl s x t) as [z| |] eqn:Es; try discriminate. exists z. split; auto.
      specialize (HD t Ht). rewrite Es in HD. exact HD.
    + destruct (Z.leb_spec 1 m') as [Hm|]; [|discriminate]. injection H as <-.
      destruct (dget_In _ _ _ Ed) as [Hin Hy]; simpl in Hy; subst y.
      specialize (HD _ Hin). simpl in HD. destruct HD as [_ [c HD]].
      exists (1 - m')%Z. intros t Ht. specialize (Hw x TInt Ex t). simpl.
      destruct (sl s x t) as [z| |] eqn:Es; try discriminate. exists z. split; auto.
      specialize (HD t Ht). rewrite Es in HD. simpl in HD. rewrite HD. apply wrap_window; auto.
Qed.

Lemma exact_nonneg_sound : forall ps s T D o n, pok ps -> wt s -> dsat ps s T D ->
  exact_nonneg G D o = Some n -> (0 <= n)%Z /\ forall t, In t T -> oval G ps s o t = VInt n.
Proof.
  intros ps s T D o n Hp Hw HD H. unfold exact_nonneg in H.
  destruct (idep_opd G D o) as [x|] eqn:Ei; [|discriminate]. simpl in H.
  destruct (dexact x) as [c|] eqn:Ex; [|discriminate].
  destruct (Z.leb_spec 0 c); [|discriminate]. injection H as <-. split; auto.
  apply dexact_eq in Ex; subst x.
  destruct (idep_opd_sound ps s T D o _ _ _ Hp Hw HD Ei) as [c0 [Hc Hv]].
  apply Z.divide_0_l in Hc. intros t Ht. rewrite Hv by auto. rewrite kval_zero. f_equal; lia.
Qed.

Lemma width_expr_sound : forall F ps s e T R C D wd, pok ps -> wt s -> dsat ps s T D ->
  eeval G F ps s e T R C -> width_expr G D e = Some wd ->
  exists c, forall t, In t T -> (c <= int_of (R t) <= c + wd)%Z.
Proof.
  intros F ps s e T R C D wd Hp Hw HD He H. inversion He; subst; cbn [width_expr] in H.
  - destruct o as [x| | |]; try discriminate.
    destruct (idep_opd G D (OVar x)); [discriminate|].
    destruct (width_opd_sound ps s T D (OVar x) wd Hp Hw HD H) as [c Hc].
    exists c. intros t Ht. destruct (Hc t Ht) as [v [-> Hv]]. exact Hv.
  - match goal with Hb : forall t, In t T -> bop_eval _ _ _ _ = Some _ |- _ => rename Hb into HB end.
    destruct op; try discriminate.
    + destruct (width_opd G D a) as [w1|] eqn:W1; [|discriminate].
      destruct (width_opd G D b) as [w2|] eqn:W2; [|discriminate]. injection H as <-.
      destruct (width_opd_sound ps s T D a w1 Hp Hw HD W1) as [c1 Hw1].
      destruct (width_opd_sound ps s T D b w2 Hp Hw HD W2) as [c2 Hw2].
      exists (c1 + c2)%Z. intros t Ht. destruct (Hw1 t Ht) as [v1 [E1 B1]]. destruct (Hw2 t Ht) as [v2 [E2 B2]].
      specialize (HB t Ht). rewrite E1, E2 in HB. simpl in HB. injection HB as <-. simpl. lia.
    + destruct (width_opd G D a) as [w1|] eqn:W1; [|discriminate].
      destruct (width_opd G D b) as [w2|] eqn:W2; [|discriminate]. injection H as <-.
      destruct (width_opd_sound ps s T D a w1 Hp Hw HD W1) as [c1 Hw1].
      destruct (width_opd_sound ps s T D b w2 Hp Hw HD W2) as [c2 Hw2].
      exists (c1 - c2 - w2)%Z. intros t Ht. destruct (Hw1 t Ht) as [v1 [E1 B1]].
      destruct (Hw2 t Ht) as [v2 [E2 B2]].
      specialize (HB t Ht). rewrite E1, E2 in HB. simpl in HB. injection HB as <-. simpl. lia.
    + (* a % m, m ≥ 1: C's truncating remainder lies in (−m, m) *)
      destruct (exact_nonneg G D b) as [m|] eqn:Nb; [|discriminate].
      destruct (Z.leb_spec 1 m) as [Hm|]; [|discriminate]. injection H as <-.
      destruct (exact_nonneg_sound ps s T D b m Hp Hw HD Nb) as [_ Vb].
      exists (1 - m)%Z. intros t Ht. specialize (HB t Ht).
      rewrite (Vb t Ht) in HB. destruct (oval G ps s a t) as [z| |]; simpl in HB; try discriminate.
      destruct (m =? 0)%Z eqn:Em; [discriminate|]. injection HB as <-. cbn [int_of].
      pose proof (Z.rem_bound_abs z m ltac:(lia)) as Hb. rewrite (Z.abs_eq m) in Hb by lia.
      apply Z.abs_lt in Hb. change (1 - m <= Z.rem z m <= 1 - m + (2 * m - 2))%Z. lia.
    + exists 0%Z. intros t Ht. specialize (HB t Ht).
      destruct (exact_nonneg G D b) as [n|] eqn:Nb.
      * injection H as <-. destruct (exact_nonneg_sound ps s T D b n Hp Hw HD Nb) as [Hn Vb].
        rewrite (Vb t Ht) in HB. destruct (oval G ps s a t) as [z| |]; simpl in HB; try discriminate.
        injection HB as <-. simpl. pose proof (land_le z n Hn). lia.
      * destruct (exact_nonneg_sound ps s T D a wd Hp Hw HD H) as [Hn Va].
        rewrite (Va t Ht) in HB. destruct (oval G ps s b t) as [z| |]; simpl in HB; try discriminate.
        injection HB as <-. simpl. rewrite Z.land_comm. pose proof (land_le z wd Hn). lia.
  - match goal with Hu : forall t, In t T -> uop_eval _ _ _ = Some _ |- _ => rename Hu into HU end.
    destruct op; try discriminate.
    destruct (width_opd_sound ps s T D a wd Hp Hw HD H) as [c Hc].
    exists (- c - wd)%Z. intros t Ht. destruct (Hc t Ht) as [v [E B]].
    specialize (HU t Ht). rewrite E in HU. simpl in HU. injection HU as <-. simpl. lia.
  - discriminate.
  - discriminate.
  - discriminate.
Qed.

(** ** Scaled entries of expressions ([scaled_D], spec/logic.md §2 "Scaled entries")

    [fscl T f (u, (k, r, g))]: [f = k'·tid + c] on [T] for some [k'] equal to [k]
    outside [u] and [c ≡ r (mod g)] (the meaning of [DScl]). *)
Definition fscl (T : list nat) (f : nat -> Z) (x : sdtrip) : Prop :=
  let '(u, (k, r, g)) := x in exists k', kmask u k' = kmask u k /\ fdep T f k' r g.

Ltac kmask_tac :=
  repeat match goal with
         | u : ubits |- _ => destruct u as [[? ?] ?]
         | k : trip |- _ => destruct k as [[? ?] ?]
         end;
  unfold kmask, tadd, tscale, uor, knz in *;
  repeat match goal with b : bool |- _ => destruct b end;
  repeat match goal with |- context[Z.eqb ?a 0] => destruct (Z.eqb_spec a 0) end;
  simpl in *;
  repeat match goal with H : (_, _, _) = (_, _, _) |- _ => inversion H; clear H end;
  subst; repeat f_equal; lia.

Lemma kmask_idem : forall u k, kmask u (kmask u k) = kmask u k.
Proof. intros; kmask_tac. Qed.
Lemma kmask_nou : forall k, kmask nou k = k.
Proof. intros; kmask_tac. Qed.
Lemma kmask_add : forall ua ub a a' b b' sg, kmask ua a' = kmask ua a -> kmask ub b' = kmask ub b ->
  kmask (uor ua ub) (tadd a' (tscale sg b')) = kmask (uor ua ub) (tadd a (tscale sg b)).
Proof. intros; kmask_tac. Qed.
Lemma kmask_scale : forall u a a' c, kmask u a' = kmask u a -> kmask u (tscale c a') = kmask u (tscale c a).
Proof. intros; kmask_tac. Qed.
Lemma kmask_mul : forall u a a' c, kmask u a' = kmask u a ->
  kmask (uor u (knz a)) (tscale c a') = kmask (uor u (knz a)) (0, 0, 0)%Z.
Proof. intros; kmask_tac. Qed.

Lemma fscl_norm : forall T f u k k' r g, kmask u k' = kmask u k -> fdep T f k' r g ->
  fscl T f (sdnorm u (dnorm k r g)).
Proof.
  intros T f u k k' r g Hk H. unfold dnorm, sdnorm, fscl. exists k'. split.
  - rewrite kmask_idem. exact Hk.
  - eapply fdep_norm; [exact H|]. reflexivity.
Qed.

Lemma fscl_ext : forall T f1 f2 x, (forall t, In t T -> f1 t = f2 t) -> fscl T f1 x -> fscl T f2 x.
Proof.
  intros T f1 f2 [u [[k r] g]] E [k' [Hk H]]. exists k'. split; auto. eapply fdep_ext; eauto.
Qed.

Lemma sopd_sound : forall ps s T D o x, pok ps -> wt s -> dsat ps s T D -> sopd G D o = Some x ->
  fscl T (fun t => int_of (oval G ps s o t)) x /\
  (forall t, In t T -> oval G ps s o t = VInt (int_of (oval G ps s o t))).
Proof.
  intros ps s T D o x Hp Hw HD H.
  assert (Hlin : option_map (pair nou) (idep_opd G D o) = Some x ->
    fscl T (fun t => int_of (oval G ps s o t)) x /\
    (forall t, In t T -> oval G ps s o t = VInt (int_of (oval G ps s o t)))).
  { intros E. destruct (idep_opd G D o) as [[[k r] g]|] eqn:Ei; [|discriminate].
    injection E as <-. destruct (opd_fdep ps s T D o k r g Hp Hw HD Ei) as [F V].
    split; auto. exists k. split; auto. }
  destruct o as [y| | |]; try (apply Hlin; exact H). unfold sopd in H.
  destruct (dget D y) as [[| | |y' u k r g mm|]|] eqn:Ed; try (apply Hlin; exact H).
  injection H as <-. destruct (dget_In _ _ _ Ed) as [Hin Hy]; simpl in Hy; subst y'.
  specialize (HD _ Hin). simpl in HD. destruct HD as [Ey [k' [c [Hk [Hc [_ HD]]]]]].
  split.
  - exists k'. split; auto. exists c. split; auto.
  - intros t Ht. specialize (Hw y TInt Ey t). simpl. destruct (sl s y t); try discriminate; reflexivity.
Qed.

Lemma sprod_sound : forall T f1 f2 x y z w, incl T (lanes G w) -> fscl T f1 x -> fscl T f2 y ->
  sprod G x y = Some z -> fscl T (fun t => f1 t * f2 t)%Z z.
Proof.
  intros T f1 f2 [ux [[kx rx] gx]] [uy [[ky ry] gy]] z w Hi [kx' [Hkx Fx]] [ky' [Hky Fy]] H.
  unfold sprod in H. destruct (uany uy) eqn:Eu; [discriminate|].
  assert (Huy : uy = nou) by (destruct uy as [[[] []] []]; simpl in Eu; try discriminate; reflexivity).
  subst uy. rewrite !kmask_nou in Hky. subst ky'.
  destruct (dexact (ky, ry, gy)) as [c|] eqn:Dy.
  - apply dexact_eq in Dy. injection Dy as -> -> ->.
    pose proof (fdep_exact _ _ _ Fy) as Ey.
    destruct (Z.eqb_spec c 0) as [->|Hc].
    + injection H as <-. exists (0, 0, 0)%Z. split; [reflexivity|]. exists 0%Z.
      split; [apply Z.divide_0_r|]. intros t Ht. rewrite Ey by auto. rewrite kval_zero. ring.
    + injection H as <-. unfold dscale. eapply fscl_norm; [apply (kmask_scale _ _ _ c Hkx)|].
      eapply fdep_ext; [|apply (fdep_scale _ _ _ _ _ c Fx)].
      intros t Ht. cbv beta. rewrite Ey by auto. ring.
  - destruct (collapse G (ky, ry, gy)) as [[ky2 ry2] gy2] eqn:Cy.
    destruct (duni (ky2, ry2, gy2)) eqn:Du; [|discriminate].
    pose proof (duni_eq _ _ _ _ eq_refl Du) as ->.
    pose proof (fdep_collapse _ _ _ _ _ w _ _ _ Hi Fy Cy) as [c2 [Hc2 E2]].
    destruct Fx as [c1 [Hc1 E1]].
    injection H as <-. unfold dmul_uni.
    eapply fscl_norm; [apply (kmask_mul _ _ _ c2 Hkx)|].
    assert (Fc : fdep [0%nat] (fun _ => c1 * c2)%Z (0, 0, 0)%Z (rx * ry2)
                   (Z.gcd (Z.gcd (gx * gy2) (rx * gy2)) (ry2 * gx))).
    { apply (fdep_mul [0%nat] (fun _ => c1) (fun _ => c2));
        [exists c1 | exists c2]; split; auto; intros; rewrite kval_zero; ring. }
    destruct Fc as [c [Hc Ec]]. specialize (Ec 0%nat (or_introl eq_refl)). rewrite kval_zero in Ec.
    exists c. split; auto. intros t Ht. rewrite E1, E2 by auto. rewrite kval_zero, kval_tscale.
    cbv beta in Ec. replace c with (c1 * c2)%Z by lia. ring.
Qed.

Lemma sexpr_sound : forall F ps s e T R C D w x, pok ps -> wt s -> dsat ps s T D ->
  incl T (lanes G w) -> eeval G F ps s e T R C -> sexpr G D e = Some x ->
  fscl T (fun t => int_of (R t)) x.
Proof.
  intros F ps s e T R C D w x Hp Hw HD Hi He H.
  inversion He; subst; cbn [sexpr] in H.
  - exact (proj1 (sopd_sound ps s T D o x Hp Hw HD H)).
  - match goal with Hb : forall t, In t T -> bop_eval _ _ _ _ = Some _ |- _ => rename Hb into HB end.
    destruct (sopd G D a) as [[ua da]|] eqn:Ea; [|discriminate].
    destruct (sopd G D b) as [[ub db]|] eqn:Eb; [|discriminate].
    destruct (sopd_sound ps s T D a _ Hp Hw HD Ea) as [Fa Va].
    destruct (sopd_sound ps s T D b _ Hp Hw HD Eb) as [Fb Vb].
    assert (Hv : forall t, In t T -> forall z, bop_eval F op (VInt (int_of (oval G ps s a t)))
               (VInt (int_of (oval G ps s b t))) = Some z -> R t = z).
    { intros t Ht z Ez. rewrite <- (Va t Ht), <- (Vb t Ht) in Ez. rewrite HB in Ez by auto. congruence. }
    destruct da as [[ka ra] ga], db as [[kb rb] gb].
    destruct Fa as [ka' [Hka Fa]], Fb as [kb' [Hkb Fb]].
    destruct op; try discriminate.
    + injection H as <-. unfold dadd. eapply fscl_norm; [apply (kmask_add _ _ _ _ _ _ 1 Hka Hkb)|].
      eapply fdep_ext; [|apply (fdep_add _ _ _ _ _ _ _ _ _ 1 Fa Fb)].
      intros t Ht. rewrite (Hv t Ht _ eq_refl). cbn [int_of]. ring.
    + injection H as <-. unfold dadd. eapply fscl_norm; [apply (kmask_add _ _ _ _ _ _ (-1) Hka Hkb)|].
      eapply fdep_ext; [|apply (fdep_add _ _ _ _ _ _ _ _ _ (-1) Fa Fb)].
      intros t Ht. rewrite (Hv t Ht _ eq_refl). cbn [int_of]. ring.
    + assert (Fa2 : fscl T (fun t => int_of (oval G ps s a t)) (ua, (ka, ra, ga))) by (exists ka'; auto).
      assert (Fb2 : fscl T (fun t => int_of (oval G ps s b t)) (ub, (kb, rb, gb))) by (exists kb'; auto).
      assert (Hm : forall t, In t T -> int_of (R t) = (int_of (oval G ps s a t) * int_of (oval G ps s b t))%Z).
      { intros t Ht. rewrite (Hv t Ht _ eq_refl). reflexivity. }
      match type of H with context[match ?t with Some _ => _ | None => _ end] => destruct t as [z|] eqn:P1 end.
      * injection H as <-. eapply fscl_ext; [|exact (sprod_sound _ _ _ _ _ _ w Hi Fa2 Fb2 P1)].
        intros t Ht. rewrite Hm; auto.
      * eapply fscl_ext; [|exact (sprod_sound _ _ _ _ _ _ w Hi Fb2 Fa2 H)].
        intros t Ht. rewrite Hm by auto. ring.
  - match goal with Hu : forall t, In t T -> uop_eval _ _ _ = Some _ |- _ => rename Hu into HU end.
    destruct op; try discriminate.
    destruct (sopd G D a) as [[ua [[ka ra] ga]]|] eqn:Ea; [|discriminate].
    destruct (sopd_sound ps s T D a _ Hp Hw HD Ea) as [[ka' [Hka Fa]] Va].
    injection H as <-. unfold dscale. cbn [fst snd].
    eapply fscl_norm; [apply (kmask_scale _ _ _ (-1) Hka)|].
    eapply fdep_ext; [|apply (fdep_scale _ _ _ _ _ (-1) Fa)].
    intros t Ht. specialize (HU t Ht). rewrite (Va t Ht) in HU. simpl in HU. injection HU as <-.
    cbn [int_of]. ring.
  - discriminate.
  - discriminate.
  - discriminate.
Qed.

(** ** The entry of an assigned local (Q:VWRITE1/2) *)
Lemma sl_set_local_x : forall s x T R t, In t T -> sl (set_local s x T R) x t = R t.
Proof. intros s x T R t Ht. simpl. rewrite Nat.eqb_refl. apply memb_In in Ht. rewrite Ht. auto. Qed.

(** ** Row multipliers (spec/logic.md §1 "Row multipliers"): the candidates of
    [Logic.row_cands] *)
Lemma ucoef_tadd : forall u a b sg, ucoef u (tadd a (tscale sg b)) = (ucoef u a + sg * ucoef u b)%Z.
Proof. intros [[u1 u2] u3] [[a1 a2] a3] [[b1 b2] b3] sg; destruct u1, u2, u3; simpl; ring. Qed.
Lemma ucoef_tscale : forall u c k, ucoef u (tscale c k) = (c * ucoef u k)%Z.
Proof. intros [[u1 u2] u3] c [[a1 a2] a3]; destruct u1, u2, u3; simpl; ring. Qed.
Lemma kmask_knz : forall c k, kmask (knz k) (tscale c k) = kmask (knz k) (0, 0, 0)%Z.
Proof.
  intros c [[k1 k2] k3]. unfold knz, kmask, tscale.
  destruct (Z.eqb_spec k1 0) as [->|], (Z.eqb_spec k2 0) as [->|], (Z.eqb_spec k3 0) as [->|];
    simpl; repeat f_equal; lia.
Qed.
Lemma kmask_add1 : forall u a a' b b' sg, kmask u a' = kmask u a -> kmask u b' = kmask u b ->
  kmask u (tadd a' (tscale sg b')) = kmask u (tadd a (tscale sg b)).
Proof.
  intros [[u1 u2] u3] [[a1 a2] a3] [[x1 x2] x3] [[b1 b2] b3] [[y1 y2] y3] sg Ha Hb.
  destruct u1, u2, u3; simpl in *; inversion Ha; inversion Hb; subst; reflexivity.
Qed.

Lemma mpart_sound : forall ps s T D u o k r g po a b, pok ps -> wt s -> dsat ps s T D ->
  mpart G D u o = Some ((k, r, g), po, a, b) ->
  (forall t, In t T -> oval G ps s o t = VInt (int_of (oval G ps s o t))) /\
  exists k', kmask u k' = kmask u k /\ fdep T (fun t => int_of (oval G ps s o t)) k' r g /\
    match po with
    | None => a = 0%Z /\ ucoef u k' = b
    | Some p => c_pty G p = Some TInt /\ ucoef u k' = (a * int_of (ps p) + b)%Z
    end.
Proof.
  intros ps s T D u o k r g po a b Hp Hw HD H. unfold mpart in H.
  destruct (idep_opd G D o) as [[[k0 r0] g0]|] eqn:Ei.
  - injection H as E1 E2 E3 E4 E5 E6; subst.
    destruct (opd_fdep ps s T D o k r g Hp Hw HD Ei) as [F V].
    split; [exact V|]. exists k. repeat split; auto.
  - destruct o as [y| | |]; try discriminate.
    destruct (dget D y) as [[| | |y' u' k0 r0 g0 [[[p0 a0] b0]|]|]|] eqn:Ed; try discriminate.
    destruct (ubits_eqb u' u) eqn:Eu; [|discriminate]. apply ubits_eqb_eq in Eu; subst u'.
    injection H as E1 E2 E3 E4 E5 E6; subst.
    destruct (dget_In _ _ _ Ed) as [Hin Hy]; simpl in Hy; subst y'.
    specialize (HD _ Hin). simpl in HD. destruct HD as [Ey [k' [c [Hk [Hc [Hm HV]]]]]].
    split.
    + intros t Ht. specialize (Hw y TInt Ey t). simpl. destruct (sl s y t); try discriminate; reflexivity.
    + exists k'. split; [exact Hk|]. split; [|exact Hm].
      exists c. split; [exact Hc|]. intros t Ht. simpl. apply HV; auto.
Qed.

Lemma sum_cand_sound : forall ps s T D x a b sg u d R, pok ps -> wt s -> dsat ps s T D ->
  (forall t, In t T -> int_of (R t) = (int_of (oval G ps s a t) + sg * int_of (oval G ps s b t))%Z) ->
  c_lty G x = Some TInt -> In d (sum_cand G D x a b sg u) -> esat ps (set_local s x T R) T d.
Proof.
  intros ps s T D x a b sg u d R Hp Hw HD HR Hx Hd. unfold sum_cand in Hd.
  destruct (mpart G D u a) as [[[[[[ka ra] ga] pa] aa] ba]|] eqn:Ea; [|contradiction].
  destruct (mpart G D u b) as [[[[[[kb rb] gb] pb] ab] bb]|] eqn:Eb; [|contradiction].
  destruct (mparam pa pb) as [p|] eqn:Ep; [|contradiction].
  cbn [dadd sdnorm dnorm] in Hd. destruct Hd as [<-|[]].
  destruct (mpart_sound ps s T D u a _ _ _ _ _ _ Hp Hw HD Ea) as [Va [ka' [Hka [Fa Ma]]]].
  destruct (mpart_sound ps s T D u b _ _ _ _ _ _ Hp Hw HD Eb) as [Vb [kb' [Hkb [Fb Mb]]]].
  pose proof (fdep_add _ _ _ _ _ _ _ _ _ sg Fa Fb) as Fs.
  eapply fdep_norm in Fs; [|reflexivity].
  destruct Fs as [c [Hc Fs]].
  cbn [esat]. split; [exact Hx|]. exists (tadd ka' (tscale sg kb')), c.
  split; [rewrite kmask_idem; apply kmask_add1; auto|].
  split; [exact Hc|]. split.
  - cbn [msem]. rewrite ucoef_tadd.
    destruct pa as [pa|], pb as [pb|]; cbn [mparam] in Ep; try discriminate.
    + destruct (Nat.eqb_spec pa pb); [|discriminate]. injection Ep as <-. subst pb.
      destruct Ma as [Hpa Ma], Mb as [_ Mb]. split; auto. rewrite Ma, Mb. ring.
    + injection Ep as <-. destruct Ma as [Hpa Ma], Mb as [Ha0 Mb]. split; auto. rewrite Ma, Mb, Ha0. ring.
    + injection Ep as <-. destruct Ma as [Ha0 Ma], Mb as [Hpb Mb]. split; auto. rewrite Ma, Mb, Ha0. ring.
  - intros t Ht. rewrite sl_set_local_x by auto. rewrite HR by auto. apply Fs; auto.
Qed.

Lemma prod_cand_sound : forall ps s T D x p b d R, pok ps -> wt s -> dsat ps s T D ->
  (forall t, In t T -> forall P B, ps p = VInt P -> oval G ps s b t = VInt B -> int_of (R t) = (P * B)%Z) ->
  c_lty G x = Some TInt -> In d (prod_cand G D x p b) -> esat ps (set_local s x T R) T d.
Proof.
  intros ps s T D x p b d R Hp Hw HD HR Hx Hd. unfold prod_cand in Hd.
  destruct (c_pty G p) as [[]|] eqn:Ep; try contradiction.
  destruct (idep_opd G D b) as [[[k r] g]|] eqn:Eb; [|contradiction].
  destruct (onebit (knz k)) eqn:Eo; [|contradiction].
  cbn [sdnorm dmul_uni dnorm] in Hd. destruct Hd as [<-|[]].
  destruct (opd_fdep ps s T D b k r g Hp Hw HD Eb) as [[c [Hc HV]] Vb].
  cbv beta in HV.
  assert (Hpp : ps p = VInt (int_of (ps p))).
  { specialize (Hp p TInt Ep). destruct (ps p); try discriminate; reflexivity. }
  set (P := int_of (ps p)) in *.
  assert (Fc : fdep [0%nat] (fun _ => c * P)%Z (0, 0, 0)%Z (r * 0) (Z.gcd (Z.gcd (g * 1) (r * 1)) (0 * g))).
  { apply (fdep_mul [0%nat] (fun _ => c) (fun _ => P)).
    - exists c. split; [exact Hc|]. intros; rewrite kval_zero; ring.
    - exists P. split; [apply Z.divide_1_l|]. intros; rewrite kval_zero; ring. }
  eapply fdep_norm in Fc; [|reflexivity].
  destruct Fc as [c0 [Hc0 E0]]. specialize (E0 0%nat (or_introl eq_refl)).
  rewrite kval_zero in E0. cbv beta in E0.
  cbn [esat]. split; [exact Hx|]. exists (tscale P k), c0.
  split; [rewrite kmask_idem; apply kmask_knz|].
  split; [exact Hc0|]. split.
  - cbn [msem]. split; [exact Ep|]. rewrite ucoef_tscale. unfold P. ring.
  - intros t Ht. rewrite sl_set_local_x by auto. rewrite (HR t Ht _ _ Hpp (Vb t Ht)), (HV t Ht), kval_tscale.
    replace c0 with (c * P)%Z by (rewrite E0; ring). ring.
Qed.

Lemma row_cands_sound : forall F ps s e T R C D x d, pok ps -> wt s -> dsat ps s T D ->
  eeval G F ps s e T R C -> c_lty G x = Some TInt ->
  In d (row_cands G D x e) -> esat ps (set_local s x T R) T d.
Proof.
  intros F ps s e T R C D x d Hp Hw HD He Hx Hd.
  inversion He; subst.
  - (* copy *)
    cbn [row_cands] in Hd. destruct o as [y| | |]; try contradiction.
    destruct (dget D y) as [[| | |y' u k r g [m|]|]|] eqn:Ed; try contradiction.
    destruct Hd as [<-|[]].
    destruct (dget_In _ _ _ Ed) as [Hin Hy]; simpl in Hy; subst y'.
    specialize (HD _ Hin). cbn [esat] in HD |- *. destruct HD as [_ [k' [c HD]]]. split; auto.
    exists k', c. destruct HD as [Hk [Hc [Hm HV]]]. repeat split; auto.
    intros t Ht. rewrite sl_set_local_x by auto. apply HV; auto.
  - (* binary *)
    match goal with Hb : forall t, In t T -> bop_eval _ _ _ _ = Some _ |- _ => rename Hb into HB end.
    assert (Hv : forall o, (forall t, In t T -> oval G ps s o t = VInt (int_of (oval G ps s o t))) ->
                 forall t, In t T -> oval G ps s o t = VInt (int_of (oval G ps s o t))) by auto.
    assert (HS : forall sg, (op = OAdd /\ sg = 1%Z \/ op = OSub /\ sg = (-1)%Z) ->
              forall u, In d (sum_cand G D x a b sg u) -> esat ps (set_local s x T R) T d).
    { intros sg Hop u Hu. unfold sum_cand in Hu.
      destruct (mpart G D u a) as [[[[[[ka ra] ga] pa] aa] ba]|] eqn:Ea; [|contradiction].
      destruct (mpart G D u b) as [[[[[[kb rb] gb] pb] ab] bb]|] eqn:Eb; [|contradiction].
      destruct (mpart_sound ps s T D u a _ _ _ _ _ _ Hp Hw HD Ea) as [Va _].
      destruct (mpart_sound ps s T D u b _ _ _ _ _ _ Hp Hw HD Eb) as [Vb _].
      apply (sum_cand_sound ps s T D x a b sg u d R Hp Hw HD); auto;
        [|unfold sum_cand; rewrite Ea, Eb; exact Hu].
      intros t Ht. specialize (HB t Ht). rewrite (Va t Ht), (Vb t Ht) in HB.
      destruct Hop as [[-> ->]|[-> ->]]; simpl in HB; injection HB as <-; cbn [int_of]; ring. }
    destruct op; try contradiction; cbn [row_cands] in Hd.
    + apply in_flat_map in Hd as [u [_ Hu]]. exact (HS 1%Z (or_introl (conj eq_refl eq_refl)) u Hu).
    + apply in_flat_map in Hd as [u [_ Hu]]. exact (HS (-1)%Z (or_intror (conj eq_refl eq_refl)) u Hu).
    + destruct a as [ya|pa|ca|da], b as [yb|pb|cb|db]; cbn [row_cands] in Hd; try contradiction;
        (eapply prod_cand_sound; [exact Hp|exact Hw|exact HD| |exact Hx|exact Hd]);
        intros t Ht P B E1 E2; specialize (HB t Ht); cbn [oval] in HB, E1, E2 |- *;
        rewrite ?E1, ?E2 in HB; simpl in HB; injection HB as <-; cbn [int_of]; ring.
  - destruct op; cbn [row_cands] in Hd; contradiction.
  - cbn [row_cands] in Hd; contradiction.
  - cbn [row_cands] in Hd; contradiction.
  - cbn [row_cands] in Hd; contradiction.
Qed.

Lemma ent_cand_sound : forall F ps s e T R C D P x w d, pok ps -> wt s -> dsat ps s T D ->
  incl T (lanes G w) -> (forall t, In t T -> sat (rho ps s t) P) ->
  eeval G F ps s e T R C -> c_lty G x = Some TInt ->
  In d (ent_cands_w G (wtids G) P D x e) -> esat ps (set_local s x T R) T d.
Proof.
  intros F ps s e T R C D P x w d Hp Hw HD Hi HP He Hx Hd. unfold ent_cands_w in Hd.
  repeat rewrite in_app_iff in Hd.
  destruct Hd as [Hd|[Hd|[Hd|[Hd|[Hd|[Hd|[Hd|Hd]]]]]]].
  - destruct (lin_const G P e) eqn:Hc; [|contradiction].
    destruct (lin_fix G P e) as [L|] eqn:EL; [|contradiction]. destruct Hd as [<-|[]].
    cbn [esat]. rewrite Hx. exists (lcst (lnorm L)). split; [rewrite Z.sub_diag; apply Z.divide_0_r|].
    intros t Ht. rewrite sl_set_local_x by auto. rewrite kval_zero.
    rewrite (lin_fix_correct F ps s e T R C P L Hp Hw He EL t Ht (HP t Ht)). simpl.
    unfold lin_const in Hc. rewrite EL in Hc. rewrite <- lnorm_eval.
    unfold leval. destruct (lterms (lnorm L)); [simpl; lia | discriminate].
  - destruct e as [[y| | |]| | |]; try contradiction.
    destruct (dget D y) as [[|y' k r m| | |]|] eqn:Ed; try contradiction. destruct Hd as [<-|[]].
    destruct (dget_In _ _ _ Ed) as [Hin Hy]; simpl in Hy; subst y'.
    specialize (HD _ Hin). cbn [esat] in HD |- *. destruct HD as [_ HD]. split; auto.
    inversion He; subst. intros t Ht. rewrite sl_set_local_x by auto. apply HD; auto.
  - destruct e as [|op a b| |]; try contradiction. destruct op; try contradiction.
    destruct (idep_opd G D b) as [xb|] eqn:Eb; [|contradiction]. simpl in Hd.
    destruct (dexact xb) as [m|] eqn:Em; [|contradiction].
    destruct (idep_opd G D a) as [[[k r] g]|] eqn:Ea; [|contradiction].
    destruct ((1 <=? m) && (g mod m =? 0))%Z eqn:Hm; [|contradiction]. destruct Hd as [<-|[]].
    apply andb_true_iff in Hm as [Hm1 Hm2]. apply Z.leb_le in Hm1. apply Z.eqb_eq in Hm2.
    apply Z.mod_divide in Hm2; [|lia].
    apply dexact_eq in Em; subst xb.
    destruct (idep_opd_sound ps s T D a k r g Hp Hw HD Ea) as [ca [Hca Va]].
    destruct (idep_opd_sound ps s T D b _ _ _ Hp Hw HD Eb) as [cb [Hcb Vb]].
    apply Z.divide_0_l in Hcb.
    cbn [esat]. split; auto. inversion He; subst.
    match goal with Hb : forall t, In t T -> bop_eval _ _ _ _ = Some _ |- _ => rename Hb into HB end.
    intros t Ht. rewrite sl_set_local_x by auto. specialize (HB t Ht).
    rewrite (Va t Ht), (Vb t Ht), kval_zero in HB. simpl in HB.
    replace cb with m in HB by lia.
    destruct (m =? 0)%Z; [discriminate|]. injection HB as <-. cbn [int_of].
    set (a0 := (kval G k t + ca)%Z).
    pose proof (Z.rem_bound_abs a0 m ltac:(lia)) as Hb. rewrite (Z.abs_eq m) in Hb by lia.
    split; [|apply Z.abs_lt in Hb; lia].
    assert (Hr : Z.rem a0 m = (a0 - m * Z.quot a0 m)%Z) by (rewrite Z.rem_eq; [reflexivity|lia]).
    replace (Z.rem a0 m - (kval G k t + r mod m))%Z with
      ((ca - r) + m * (r / m) - m * Z.quot a0 m)%Z
      by (rewrite Hr; unfold a0; rewrite (Z.mod_eq r m) by lia; ring).
    apply Z.divide_sub_r; [apply Z.divide_add_r|]; try apply Z.divide_factor_l.
    eapply Z.divide_trans; eauto.
  - destruct (idep_expr_w G (wtids G) D e) as [[[k r] g]|] eqn:Ei; [|contradiction].
    destruct Hd as [<-|[]]. cbn [esat]. rewrite Hx.
    destruct (idep_expr_sound F ps s e T R C D w k r g Hp Hw HD Hi He Ei) as [c [Hc HR]].
    exists c. split; auto. intros t Ht. rewrite sl_set_local_x by auto. apply HR; auto.
  - destruct (width_expr G D e) as [wd|] eqn:Ew; [|contradiction]. destruct Hd as [<-|[]].
    cbn [esat]. split; auto.
    destruct (width_expr_sound F ps s e T R C D wd Hp Hw HD He Ew) as [c Hc].
    exists c. intros t Ht. rewrite sl_set_local_x by auto. apply Hc; auto.
  - unfold wrap_cands in Hd. destruct e as [[y| | |]|op a b| |]; try contradiction.
    + destruct (dget D y) as [[| | | |y' k m]|] eqn:Ed; try contradiction. destruct Hd as [<-|[]].
      destruct (dget_In _ _ _ Ed) as [Hin Hy]; simpl in Hy; subst y'.
      specialize (HD _ Hin). cbn [esat] in HD |- *. destruct HD as [_ [c HD]]. split; auto.
      exists c. inversion He; subst. intros t Ht. rewrite sl_set_local_x by auto. apply HD; auto.
    + destruct op; try contradiction.
      destruct (idep_opd G D b) as [xb|] eqn:Eb; [|contradiction]. simpl in Hd.
      destruct (dexact xb) as [m|] eqn:Em; [|contradiction].
      destruct (idep_opd G D a) as [[[k r] g]|] eqn:Ea; [|contradiction].
      destruct (1 <=? m)%Z eqn:Hm; [|contradiction]. destruct Hd as [<-|[]].
      apply Z.leb_le in Hm. apply dexact_eq in Em; subst xb.
      destruct (idep_opd_sound ps s T D a k r g Hp Hw HD Ea) as [ca [Hca Va]].
      destruct (idep_opd_sound ps s T D b _ _ _ Hp Hw HD Eb) as [cb [Hcb Vb]].
      apply Z.divide_0_l in Hcb.
      cbn [esat]. split; auto. exists ca. inversion He; subst.
      match goal with Hb : forall t, In t T -> bop_eval _ _ _ _ = Some _ |- _ => rename Hb into HB end.
      intros t Ht. rewrite sl_set_local_x by auto. specialize (HB t Ht).
      rewrite (Va t Ht), (Vb t Ht), kval_zero in HB. simpl in HB.
      replace cb with m in HB by lia.
      destruct (m =? 0)%Z; [discriminate|]. injection HB as <-. reflexivity.
  - eapply row_cands_sound; eauto.
  - destruct (sexpr G D e) as [[u [[k r] g]]|] eqn:Es; [|contradiction].
    destruct (uany u); [|contradiction]. destruct Hd as [<-|[]].
    cbn [esat]. split; auto.
    destruct (sexpr_sound F ps s e T R C D w _ Hp Hw HD Hi He Es) as [k' [Hk [c [Hc HR]]]].
    exists k', c. repeat split; auto. intros t Ht. rewrite sl_set_local_x by auto. apply HR; auto.
Qed.

Lemma vw_dent_sound : forall F ps s e T R C D P x ty w D', pok ps -> wt s -> dsat ps s T D ->
  incl T (lanes G w) -> (forall t, In t T -> sat (rho ps s t) P) ->
  eeval G F ps s e T R C -> c_lty G x = Some ty -> (forall t, In t T -> has_type (R t) ty = true) ->
  vw_dent G P D x e D' = true -> dsat ps (set_local s x T R) T D'.
Proof.
  intros F ps s e T R C D P x ty w D' Hp Hw HD Hi HP He Hx Ht H d Hd.
  unfold vw_dent, vw_dent_w in H. rewrite forallb_forall in H. specialize (H d Hd).
  destruct (Nat.eqb_spec (dvar d) x) as [Ex|Ex].
  - unfold ent_ok_w in H. apply andb_true_iff in H as [_ H]. rewrite Hx in H.
    destruct ty.
    + apply existsb_exists in H as [c [Hc Hi']].
      eapply eimplies_sound; [exact Hi'|]. eapply ent_cand_sound; eauto.
    + destruct d as [y k r g| | | |]; try discriminate. simpl in Ex; subst y. cbn [esat]. rewrite Hx.
      intros t t' Hin Hin'. rewrite !sl_set_local_x by auto.
      apply orb_true_iff in H as [H|H].
      * eapply unif_correct; eauto. intros y Hy t1 t2 H1 H2; eapply dunif_sound; eauto.
      * eapply lin_const_correct; eauto.
    + destruct d as [y k r g| | | |]; try discriminate. simpl in Ex; subst y. cbn [esat]. rewrite Hx.
      intros t t' Hin Hin'. rewrite !sl_set_local_x by auto.
      apply orb_true_iff in H as [H|H].
      * eapply unif_correct; eauto. intros y Hy t1 t2 H1 H2; eapply dunif_sound; eauto.
      * eapply lin_const_correct; eauto.
  - apply existsb_exists in H as [d' [Hd' E]]. unfold dent_eqb in E.
    destruct (dent_eq_dec d d'); [subst d'|discriminate].
    apply (esat_frame s); [|apply HD; auto]. intros t Ht'. apply set_local_other; auto.
Qed.

(** ** Lane facts (spec/logic.md §2) *)
Lemma lane_form_eval : forall ps s t k r,
  leval (rho ps s t) (lane_form k r) = (kval G k t + r)%Z.
Proof. intros ps s t [[kx ky] kz] r. unfold lane_form, leval, kval. simpl. lia. Qed.

Lemma lane_fact : forall ps s t k r m c xv,
  Z.divide m (xv - (kval G k t + r)) -> (- m < xv < m)%Z ->
  (xv = c -> holds (rho ps s t) (CMod (lane_form k r) m [(c mod m)%Z])) /\
  (xv <> c -> c = 0%Z ->
     holds (rho ps s t) (CMod (lane_form k r) m (zrange_from (Z.to_nat (m - 1)) 1%Z))).
Proof.
  intros ps s t k r m c xv Hd Hb. simpl. rewrite lane_form_eval.
  assert (Hm : (0 < m)%Z) by lia.
  assert (E : ((kval G k t + r) mod m = xv mod m)%Z).
  { destruct Hd as [q Hq]. replace (kval G k t + r)%Z with (xv + (- q) * m)%Z by lia.
    apply Z.mod_add; lia. }
  split.
  - intros <-. rewrite E. left; auto.
  - intros Hne ->. rewrite E. apply zrange_from_In.
    assert (H1 : (xv mod m <> 0)%Z).
    { intros H0. apply Z.mod_divide in H0; [|lia]. destruct H0 as [q Hq].
      assert (q = 0%Z) by nia. subst; lia. }
    pose proof (Z.mod_pos_bound xv m Hm). lia.
Qed.

Lemma rem_exact : forall ps s T D a b k r m c t, pok ps -> wt s -> dsat ps s T D -> In t T ->
  rem_of D a = Some (k, r, m) -> exact_of G D b = Some c ->
  exists xv, oval G ps s a t = VInt xv /\ oval G ps s b t = VInt c /\
    Z.divide m (xv - (kval G k t + r)) /\ (- m < xv < m)%Z.
Proof.
  intros ps s T D a b k r m c t Hp Hw HD Ht Ha Hb.
  unfold exact_of in Hb. destruct (idep_opd G D b) as [xb|] eqn:Eb; [|discriminate].
  apply dexact_eq in Hb; subst xb.
  destruct (idep_opd_sound ps s T D b _ _ _ Hp Hw HD Eb) as [cb [Hcb Vb]].
  apply Z.divide_0_l in Hcb.
  destruct a as [x| | |]; try discriminate.
  simpl in Ha. destruct (dget D x) as [[|y k' r' m'| | |]|] eqn:Ed; try discriminate.
  injection Ha as -> -> ->. destruct (dget_In _ _ _ Ed) as [Hin Hy]; simpl in Hy; subst y.
  pose proof (HD _ Hin) as Hx. simpl in Hx. destruct Hx as [Hx Hr].
  specialize (Hw x TInt Hx t). simpl. destruct (sl s x t) as [xv| |] eqn:Es; try discriminate.
  exists xv. split; auto. split.
  - rewrite Vb by auto. rewrite kval_zero. f_equal. lia.
  - specialize (Hr t Ht). rewrite Es in Hr. exact Hr.
Qed.

Lemma lane_correct : forall F ps s e T R C D t, pok ps -> wt s -> dsat ps s T D ->
  eeval G F ps s e T R C -> In t T ->
  (is_true_v (R t) = true -> sat (rho ps s t) (lane G D e false)) /\
  (is_false_v (R t) = true -> sat (rho ps s t) (lane G D e true)).
Proof.
  intros F ps s e T R C D t Hp Hw HD He Ht.
  destruct e as [o|op a b|op a|A i]; cbn [lane]; try (split; intros _ c []).
  inversion He; subst.
  match goal with Hb : forall t, In t T -> bop_eval _ _ _ _ = Some _ |- _ =>
    specialize (Hb t Ht); rename Hb into HB end.
  assert (Hpick : forall k r m c,
     match rem_of D a, exact_of G D b with
     | Some re, Some c => Some (re, c)
     | _, _ => match rem_of D b, exact_of G D a with
               | Some re, Some c => Some (re, c)
               | _, _ => None
               end
     end = Some ((k, r, m), c) ->
     exists xv, Z.divide m (xv - (kval G k t + r)) /\ (- m < xv < m)%Z /\
       (op = OEq -> R t = VBool (xv =? c)%Z) /\ (op = ONe -> R t = VBool (negb (xv =? c)%Z))).
  { intros k r m c Hq.
    destruct (rem_of D a) as [rea|] eqn:Ea; destruct (exact_of G D b) as [cb|] eqn:Eb;
      [injection Hq as -> ->;
       destruct (rem_exact ps s T D a b k r m c t Hp Hw HD Ht Ea Eb) as [xv [Va [Vb [H1 H2]]]];
       exists xv; split; [|split]; auto; rewrite Va, Vb in HB;
       split; intros ->; simpl in HB; injection HB as <-; reflexivity| | |].
    all: destruct (rem_of D b) as [reb|] eqn:Eb2; destruct (exact_of G D a) as [ca|] eqn:Ea2;
      try discriminate; injection Hq as -> ->;
      destruct (rem_exact ps s T D b a k r m c t Hp Hw HD Ht Eb2 Ea2) as [xv [Vb [Va [H1 H2]]]];
      exists xv; split; [|split]; auto; rewrite Va, Vb in HB;
      split; intros ->; simpl in HB; injection HB as <-; rewrite Z.eqb_sym; reflexivity. }
  cbv zeta.
  destruct op; try (split; intros _ c []).
  all: destruct (match rem_of D a, exact_of G D b with
                 | Some re, Some c => Some (re, c)
                 | _, _ => match rem_of D b, exact_of G D a with
                           | Some re, Some c => Some (re, c)
                           | _, _ => None
                           end
                 end) as [[[[k r] m] c]|] eqn:Ep; try (split; intros _ c' []).
  all: destruct (Hpick k r m c eq_refl) as [xv [Hd1 [Hd2 [Hd3 Hd4]]]];
    destruct (lane_fact ps s t k r m c xv Hd1 Hd2) as [L1 L2].
  - (* == *)
    rewrite (Hd3 eq_refl). split.
    + intros HT c' [<-|[]]. apply L1. simpl in HT. destruct (Z.eqb_spec xv c); congruence.
    + intros HF. destruct ((c =? 0) && (m <=? 4096))%Z eqn:Hc; [|intros c' []].
      apply andb_true_iff in Hc as [Hc _]. apply Z.eqb_eq in Hc.
      intros c' [<-|[]]. apply L2; auto. simpl in HF. destruct (Z.eqb_spec xv c); congruence.
  - (* != *)
    rewrite (Hd4 eq_refl). split.
    + intros HT. destruct ((c =? 0) && (m <=? 4096))%Z eqn:Hc; [|intros c' []].
      apply andb_true_iff in Hc as [Hc _]. apply Z.eqb_eq in Hc.
      intros c' [<-|[]]. apply L2; auto. simpl in HT. destruct (Z.eqb_spec xv c); simpl in HT; congruence.
    + intros HF c' [<-|[]]. apply L1. simpl in HF. destruct (Z.eqb_spec xv c); simpl in HF; congruence.
Qed.

(** [P ∧ e] and [P ∧ ¬e] hold in the threads that take the branch. *)
Lemma andc_correct : forall F ps s e T R C D P t, pok ps -> wt s -> dsat ps s T D ->
  eeval G F ps s e T R C -> In t T -> sat (rho ps s t) P ->
  (is_true_v (R t) = true -> sat (rho ps s t) (andc G P D e false)) /\
  (is_false_v (R t) = true -> sat (rho ps s t) (andc G P D e true)).
Proof.
  intros F ps s e T R C D P t Hp Hw HD He Ht HP.
  destruct (cond_correct F ps s e T R C t Hp Hw He Ht) as [C1 C2].
  destruct (lane_correct F ps s e T R C D t Hp Hw HD He Ht) as [L1 L2].
  unfold andc. split; intros H c Hc; apply in_app_iff in Hc as [Hc|Hc]; auto;
    apply in_app_iff in Hc as [Hc|Hc]; [apply C1 | apply L1 | apply C2 | apply L2]; auto.
Qed.
(** ** Soundness of each rule (RaCUDA Theorem 1, case by case) *)
(** ** Row charges (spec/logic.md §4 "Rows": Q:GWRITEROWS / Q:VWRITEROWS, issue 15)

    [rows_mem]: a warp whose active lanes access [km·tid + U·y + c] ([c ≡ r (mod g)])
    reads at most [f(U mod P_M)] sectors (its rows' sectors, each row's base fixed modulo
    [M] by [U mod P_M]); [rows_sound]: under [rows_ok_w], [MemReads ≤ N₀ + Σ_j
    C_j·[M_j ∤ U]] for every integer [U], and the charge is at least 1; [rows_acc_sound]:
    [U] is the value of the index entry's row multiplier [X]. *)
Lemma pm_pos : forall es, (0 < c_sector_bytes G)%Z -> (0 < pm G es)%Z.
Proof.
  intros es HSB. unfold pm. set (SB := c_sector_bytes G) in *.
  assert (Hg : (0 < Z.gcd es SB)%Z).
  { pose proof (Z.gcd_nonneg es SB).
    destruct (Z.eq_dec (Z.gcd es SB) 0) as [E|E]; [|lia]. apply Z.gcd_eq_0 in E. lia. }
  destruct (Z.gcd_divide_r es SB) as [b Hb].
  rewrite Hb at 1. rewrite Z.div_mul by lia. nia.
Qed.

(** Modulo [M], a row's base [(U·y + c)·es] depends on [U mod P_M] only. *)
Lemma pm_shift : forall es U y c, (0 < c_sector_bytes G)%Z ->
  (((U * y + c) * es) mod c_sector_bytes G =
   ((c * es) mod c_sector_bytes G + es * (U mod pm G es) * y) mod c_sector_bytes G)%Z.
Proof.
  intros es U y c HSB. pose proof (pm_pos es HSB) as HP. unfold pm in *.
  set (SB := c_sector_bytes G) in *. set (gd := Z.gcd es SB) in *.
  assert (Hg : (0 < gd)%Z).
  { unfold gd. pose proof (Z.gcd_nonneg es SB).
    destruct (Z.eq_dec (Z.gcd es SB) 0) as [E|E]; [|lia]. apply Z.gcd_eq_0 in E. lia. }
  destruct (Z.gcd_divide_l es SB) as [a Ha]. fold gd in Ha.
  destruct (Z.gcd_divide_r es SB) as [b Hb]. fold gd in Hb.
  assert (HPb : (SB / gd = b)%Z) by (rewrite Hb; apply Z.div_mul; lia).
  rewrite HPb in *.
  pose proof (Z.div_mod U b ltac:(lia)) as HU.
  assert (E : ((U * y + c) * es = (c * es + es * (U mod b) * y) + (a * (U / b) * y) * SB)%Z).
  { rewrite Hb, Ha. rewrite HU at 1. ring. }
  rewrite E, Z.mod_add by lia. rewrite Zplus_mod_idemp_l. reflexivity.
Qed.

Lemma filter_incl_f : forall A (p : A -> bool) (l1 l2 : list A), incl l1 l2 -> incl (filter p l1) (filter p l2).
Proof.
  intros A p l1 l2 H x Hx. apply filter_In in Hx as [Hx Hp]. apply filter_In; auto.
Qed.

Lemma ysel_key : forall u t key, trip_eqb (ukey u (lane_t G t)) key = true ->
  ysel u (lane_t G t) = kvalz (1, 1, 1)%Z key.
Proof.
  intros u t key H. unfold trip_eqb in H. destruct (trip_eq_dec _ _) as [E|]; [|discriminate].
  unfold ysel. rewrite E. reflexivity.
Qed.

(** The key lemma (spec/logic.md §4 "Rows", soundness): the active lanes [T] of warp [w]
    (satisfying [P]) access the elements [km·tid + U·y + c], [c ≡ r (mod g)]. The warp's
    sectors are at most the sum of its rows' (lanes with one key [ukey u]), and row [y]'s
    base is [(c·es mod M + es·(U mod P_M)·y) mod M] up to whole sectors: the row table's
    entry at [U mod P_M] bounds them. *)
Lemma rows_mem : forall ps s P u km U c g r es T w (R : fam),
  (0 < c_sector_bytes G)%Z -> (0 < c_warp G)%nat ->
  (forall t, In t T -> int_of (R t) = (kval G km t + U * ysel u (lane_t G t) + c)%Z) ->
  Z.divide g (c - r) ->
  (forall t, In t T -> sat (rho ps s t) P) -> T <> [] -> incl T (lanes G w) ->
  (memreads G es T R <= row_f G (wtids G) (filter tid_only P) u km g r es (U mod pm G es))%Z.
Proof.
  intros ps s P u km U c g r es T w R HSB HW Hidx Hcr HP Hne Hi.
  destruct (nonempty_elem _ Hne) as [t0 Ht0].
  assert (Hwn : (w < nwarps G)%nat) by (eapply lanes_nwarps; eauto).
  set (tc := filter tid_only P). set (WL := wlanes G tc w).
  assert (HTL : incl T WL) by (apply (wlanes_incl ps s P T w Hi HP)).
  set (SB := c_sector_bytes G) in *.
  set (b0 := ((c * es) mod SB)%Z).
  assert (Hbeta : In b0 (betas SB g r es)) by (apply beta_in; auto).
  eapply Z.le_trans; [|apply fold_max_in, in_flat_map; exists (map (lane_t G) (lanes G w));
    split; [apply in_wtids; auto | apply in_map_iff; exists b0; split; [reflexivity | exact Hbeta]]].
  unfold row_sum. rewrite wfilter_map_lane. fold tc WL.
  set (K := nodup trip_eq_dec (map (ukey u) (map (lane_t G) WL))).
  assert (HK : forall t, In t T -> In (ukey u (lane_t G t)) K).
  { intros t Ht. apply nodup_In. apply in_map, in_map. apply HTL; auto. }
  eapply Z.le_trans; [apply (memreads_groups u es R T K HK)|]. apply sum_le.
  intros key _. rewrite filter_map_lane, kvalz_lanes.
  set (y := kvalz (1, 1, 1)%Z key).
  unfold SB in *.
  replace ((b0 + es * (U mod pm G es) * y) mod c_sector_bytes G)%Z
    with (((U * y + c) * es) mod c_sector_bytes G)%Z by (unfold b0; apply pm_shift; auto).
  apply (mem_at es _ _ R km (U * y + c)); auto.
  - apply filter_incl_f; auto.
  - intros t Ht. apply filter_In in Ht as [Ht Hp]. rewrite Hidx by auto.
    rewrite (ysel_key u t key Hp). fold y. ring.
Qed.

(** The side condition makes the charge at any [U] cover [f(U mod P_M)] and 1. *)
Lemma rows_charge_sound : forall wt tc u km g r es n0 rows U,
  rows_ok_w G wt tc u km g r es n0 rows = true ->
  (Z.max 1 (row_f G wt tc u km g r es (U mod pm G es)) <= rcharge n0 rows U)%Z.
Proof.
  intros wt tc u km g r es n0 rows U H. unfold rows_ok_w in H.
  repeat rewrite andb_true_iff in H.
  destruct H as [[[[[[[HSB Hn0] Hrows] HL] _] HLP] HLM] Hall].
  apply Z.ltb_lt in HSB. apply Z.ltb_lt in HL. apply Z.eqb_eq in HLP.
  set (L := rows_lcm G es rows) in *. pose proof (pm_pos es HSB) as HP.
  set (v := (U mod L)%Z).
  assert (Hv : In v (zrange L)) by (apply in_zrange, Z.mod_pos_bound; lia).
  rewrite forallb_forall in Hall. specialize (Hall v Hv). apply Z.leb_le in Hall.
  assert (Ev : (v mod pm G es = U mod pm G es)%Z).
  { unfold v. symmetry. apply Znumtheory.Zmod_div_mod; auto. apply Z.mod_divide; lia. }
  rewrite Ev in Hall. eapply Z.le_trans; [exact Hall|].
  unfold rcharge. apply Z.eq_le_incl. f_equal. f_equal. apply map_ext_in.
  intros [cj mj] Hcm. rewrite forallb_forall in Hrows, HLM.
  specialize (Hrows _ Hcm). specialize (HLM _ Hcm). simpl in *.
  rewrite andb_true_iff in Hrows. destruct Hrows as [_ Hm]. apply Z.leb_le in Hm.
  apply Z.eqb_eq in HLM.
  assert (E : (v mod mj = U mod mj)%Z).
  { unfold v. symmetry. apply Znumtheory.Zmod_div_mod; try lia. apply Z.mod_divide; lia. }
  rewrite E. reflexivity.
Qed.

(** Soundness of the row charge for MemReads: a warp whose active lanes access
    [km·tid + U·y + c] ([c ≡ r (mod g)]) reads at most [N₀ + Σ_j C_j·[M_j ∤ U]] sectors,
    and the charge is at least 1. *)
Lemma rows_sound : forall ps s P u km U c g r es n0 rows T w (R : fam),
  rows_ok_w G (wtids G) (filter tid_only P) u km g r es n0 rows = true -> (0 < c_warp G)%nat ->
  (forall t, In t T -> int_of (R t) = (kval G km t + U * ysel u (lane_t G t) + c)%Z) ->
  Z.divide g (c - r) ->
  (forall t, In t T -> sat (rho ps s t) P) -> T <> [] -> incl T (lanes G w) ->
  (memreads G es T R <= rcharge n0 rows U)%Z /\ (1 <= rcharge n0 rows U)%Z.
Proof.
  intros ps s P u km U c g r es n0 rows T w R Hok HW Hidx Hcr HP Hne Hi.
  pose proof (rows_charge_sound _ _ _ _ _ _ _ _ _ U Hok) as Hc.
  assert (HSB : (0 < c_sector_bytes G)%Z).
  { unfold rows_ok_w in Hok. repeat rewrite andb_true_iff in Hok. apply Z.ltb_lt. tauto. }
  pose proof (rows_mem ps s P u km U c g r es T w R HSB HW Hidx Hcr HP Hne Hi). lia.
Qed.
Lemma rpot_val : forall rho X n0 rows, forallb (fun cm => 1 <=? snd cm)%Z rows = true ->
  (pval rho (rpot X n0 rows) == inject_Z (rcharge n0 rows (leval rho X)))%Q.
Proof.
  intros rho X n0 rows H. unfold pval, rpot, rcharge; cbn [pcst pterms].
  rewrite inject_Z_plus. apply Qplus_comp; [reflexivity|].
  induction rows as [|[c m] rows IH]; cbn [map psum fold_right fst snd]; [reflexivity|].
  cbn [forallb] in H. rewrite andb_true_iff in H. destruct H as [Hm H]. cbn [snd] in Hm.
  apply Z.leb_le in Hm.
  rewrite inject_Z_plus. apply Qplus_comp; [|apply IH; auto].
  unfold mval, atom, rterm; cbn [fold_right akd alin adiv akval fst snd].
  rewrite Z2Pos.id by lia.
  destruct (leval rho X mod m =? 0)%Z; unfold Qeq, Qmult, inject_Z; simpl; lia.
Qed.
Lemma row_index : forall u k' t, onebit u = true ->
  kval G k' t = (kval G (kmask u k') t + kvalz k' (ukey u (1, 1, 1)%Z) * ysel u (lane_t G t))%Z.
Proof.
  intros [[u1 u2] u3] [[k1 k2] k3] t H. unfold ysel, lane_t. rewrite !ztid_tid.
  destruct u1, u2, u3; try discriminate; unfold kval, kmask, kvalz, ukey; ring.
Qed.

Lemma rows_entry_sound : forall ps s P u k k' c g r es n0 rows T w (R : fam),
  onebit u = true ->
  rows_ok_w G (wtids G) (filter tid_only P) u (kmask u k) g r es n0 rows = true ->
  (0 < c_warp G)%nat -> kmask u k' = kmask u k -> Z.divide g (c - r) ->
  (forall t, In t T -> int_of (R t) = (kval G k' t + c)%Z) ->
  (forall t, In t T -> sat (rho ps s t) P) -> T <> [] -> incl T (lanes G w) ->
  (memreads G es T R <= rcharge n0 rows (kvalz k' (ukey u (1, 1, 1)%Z)))%Z /\
  (1 <= rcharge n0 rows (kvalz k' (ukey u (1, 1, 1)%Z)))%Z.
Proof.
  intros ps s P u k k' c g r es n0 rows T w R Hu Hok HW Hk Hcr Hidx HP Hne Hi.
  apply (rows_sound ps s P u (kmask u k) _ c g r es n0 rows T w R Hok HW); auto.
  intros t Ht. rewrite Hidx, (row_index u k' t Hu), Hk by auto. ring.
Qed.
Lemma ucoef_kvalz : forall u k, ucoef u k = kvalz k (ukey u (1, 1, 1)%Z).
Proof. intros [[u1 u2] u3] [[k1 k2] k3]; destruct u1, u2, u3; simpl; ring. Qed.

Lemma psum_scale : forall rho mg l,
  psum rho (map (fun cm => (mg * fst cm, snd cm)) l) == mg * psum rho l.
Proof. intros rho mg l; induction l as [|[c m] l IH]; simpl; [ring|]. rewrite IH. ring. Qed.

Lemma pcharge_val : forall rho Q1 mg X n0 rows, forallb (fun cm => 1 <=? snd cm)%Z rows = true ->
  pval rho (pcharge Q1 mg X n0 rows) == pval rho Q1 + mg * inject_Z (rcharge n0 rows (leval rho X)).
Proof.
  intros rho Q1 mg X n0 rows H. rewrite <- (rpot_val rho X n0 rows H).
  unfold pval, pcharge; cbn [pcst pterms]. rewrite psum_app, psum_scale. ring.
Qed.

Lemma rows_ok_m1 : forall wt tc u km g r es n0 rows, rows_ok_w G wt tc u km g r es n0 rows = true ->
  forallb (fun cm => 1 <=? snd cm)%Z rows = true.
Proof.
  intros wt tc u km g r es n0 rows H. unfold rows_ok_w in H. repeat rewrite andb_true_iff in H.
  destruct H as [[[[[[[_ _] Hr] _] _] _] _] _]. rewrite forallb_forall in *.
  intros cm Hcm. specialize (Hr cm Hcm). apply andb_true_iff in Hr. tauto.
Qed.

(** Under [D] and [P] on the active lanes of a warp, an index accepted by [rows_acc] reads
    at most the charge at its row multiplier's value [X] (the same on every thread). *)
Lemma rows_acc_sound : forall ps s P D i es n0 rows X T w,
  rows_acc_w G (wtids G) P D i es n0 rows = Some X -> dsat ps s T D ->
  (forall t, In t T -> sat (rho ps s t) P) -> T <> [] -> incl T (lanes G w) ->
  forall t, (memreads G es T (oval G ps s i) <= rcharge n0 rows (leval (rho ps s t) X))%Z /\
            (1 <= rcharge n0 rows (leval (rho ps s t) X))%Z /\
            forallb (fun cm => 1 <=? snd cm)%Z rows = true.
Proof.
  intros ps s P D i es n0 rows X T w H HD HP Hne Hi t. unfold rows_acc_w in H.
  destruct (rows_entry D i) as [[[[[u k] r] g] [[p a] b]]|] eqn:Es; [|discriminate].
  destruct (onebit u && (0 <? c_warp G)%nat &&
            rows_ok_w G (wtids G) (filter tid_only P) u (kmask u k) g r es n0 rows) eqn:Eok;
    [|discriminate].
  injection H as <-.
  repeat rewrite andb_true_iff in Eok. destruct Eok as [[Hu HW] Hok]. apply Nat.ltb_lt in HW.
  destruct i as [x| | |]; simpl in Es; try discriminate.
  destruct (dget D x) as [[| | |y u' k0 r0 g0 [m|]|]|] eqn:Ed; try discriminate.
  injection Es as E1 E2 E3 E4 E5; subst.
  destruct (dget_In _ _ _ Ed) as [Hin Hy]; simpl in Hy; subst y.
  specialize (HD _ Hin). simpl in HD. destruct HD as [_ [k' [c [Hk [Hcr [[Hpt Hm] HD]]]]]].
  assert (HU : leval (rho ps s t) (mkLin b [(a, VP p)]) = kvalz k' (ukey u (1, 1, 1)%Z)).
  { rewrite <- ucoef_kvalz, Hm. unfold leval. simpl. ring. }
  rewrite HU.
  destruct (rows_entry_sound ps s P u k k' c g r es n0 rows T w (oval G ps s (OVar x)) Hu Hok HW Hk Hcr)
    as [H1 H2]; auto.
  split; [exact H1|]. split; [exact H2|]. eapply rows_ok_m1; eauto.
Qed.

Ltac start_valid :=
  intros F ps s T s' Crun w Hp Hn Hne Hi Hw [HP HD] Hrun.

Lemma sound_Q_SKIP : forall A, valid A SSkip A.
Proof.
  intros A. start_valid. inversion Hrun; subst. split; [split; auto|]. intros; lra.
Qed.

Lemma sound_Q_SYNC : forall P D Qn Q', pot_ge Qn (padd Q' (m_sync M)) = true ->
  valid (mkAssn P D Qn) SSync (mkAssn P D Q').
Proof.
  intros P D Qn Q' Hq. start_valid. inversion Hrun; subst. split; [split; auto|].
  intros t Ht. pose proof (pot_ge_sound (rho ps s' t) _ _ Hq). rewrite padd_val in H.
  simpl. fold M. lra.
Qed.

Lemma sound_Q_SEQ : forall A A1 A' s1 s2, valid A s1 A1 -> valid A1 s2 A' ->
  valid A (SSeq s1 s2) A'.
Proof.
  intros A A1 A' s1 s2 V1 V2. start_valid. inversion Hrun; subst.
  match goal with R1 : seval _ _ _ s s1 T ?st1 ?c1, R2 : seval _ _ _ ?st1 s2 T s' ?c2 |- _ =>
    destruct (V1 F ps s T st1 c1 w Hp Hn Hne Hi Hw (conj HP HD) R1) as [HA1 HQ1];
    destruct (V2 F ps st1 T s' c2 w Hp Hn Hne Hi (run_wt _ _ _ _ _ _ _ R1 Hw) HA1 R2) as [HA2 HQ2]
  end.
  split; auto. intros t Ht. specialize (HQ1 t Ht). specialize (HQ2 t Ht). lra.
Qed.

Lemma map_opt_in : forall A B (f : A -> option B) l l' a, map_opt f l = Some l' -> In a l ->
  exists b, f a = Some b /\ In b l'.
Proof.
  intros A B f l; induction l as [|x l IH]; intros l' a H Ha; simpl in *; [contradiction|].
  destruct (f x) eqn:E1; [|discriminate]. destruct (map_opt f l) eqn:E2; [|discriminate].
  inversion H; subst. destruct Ha as [<-|Ha].
  - exists b; split; simpl; auto.
  - destruct (IH l0 a eq_refl Ha) as [b' [Hb1 Hb2]]. exists b'; split; simpl; auto.
Qed.

Lemma holds_ext : forall r1 r2 c, (forall v, r1 v = r2 v) -> holds r1 c -> holds r2 c.
Proof. intros r1 r2 [L|L|L m rs] H; simpl; rewrite (leval_ext r1 r2); auto. Qed.

(** The post-condition of an assignment (Q:VWRITE1/2): [P ⇒ P'[x ← e]]. *)
Lemma vwrite_post : forall F ps s x e T R Ce P P' ws t, pok ps -> wt s ->
  eeval G F ps s e T R Ce -> In t T -> sat (rho ps s t) P ->
  entails_subst G P x e P' ws = true ->
  sat (rho ps (set_local s x T R) t) P'.
Proof.
  intros F ps s x e T R Ce P P' ws t Hp Hw He Ht HP H. unfold entails_subst in H.
  destruct (map_opt (csubst G P x e) P') as [Ps|] eqn:Em; [|discriminate].
  pose proof (entails_sound _ _ _ _ HP H) as HPs.
  intros c Hc. destruct (map_opt_in _ _ _ _ _ _ Em Hc) as [c' [Hc' Hin]].
  specialize (HPs c' Hin). apply (holds_ext (upd (rho ps s t) (VL x) (int_of (R t))));
    [intros; rewrite rho_set_local; auto|].
  unfold csubst in Hc'. destruct (mentions (VL x) (cform c)) eqn:Em2.
  - destruct (lin_fix G P e) as [E|] eqn:EL; [|discriminate].
    rewrite (lin_fix_correct F ps s e T R Ce P E Hp Hw He EL t Ht HP). simpl int_of.
    injection Hc' as <-. destruct c as [L|L|L m rs]; simpl in *; rewrite <- lsubst_eval; auto.
  - injection Hc' as <-. destruct c as [L|L|L m rs]; simpl in *; rewrite leval_upd_notin; auto.
Qed.

Lemma sound_Q_VWRITE2 : forall P D Qn P' D' Q' x e n Cj ws,
  qexpr G P D e n Cj -> vw_dent G P D x e D' = true -> entails_subst G P x e P' ws = true ->
  pmentions (VL x) Q' = false -> pot_ge Qn (padd Q' (m_vwrite M + Cj)) = true ->
  valid (mkAssn P D Qn) (SAssign x e) (mkAssn P' D' Q').
Proof.
  intros P D Qn P' D' Q' x e n Cj ws Hq Hx Hs Hm Hge. start_valid.
  inversion Hrun; subst. simpl in HP, HD. split; [split|].
  - intros t Ht; eapply vwrite_post; eauto.
  - eapply vw_dent_sound; eauto.
  - intros t Ht. simpl. pose proof (qexpr_sound _ _ _ _ _ _ _ _ _ _ _ _ Hp Hw HP HD Hn Hne Hi H1 Hq).
    pose proof (pot_ge_sound (rho ps s t) _ _ Hge). rewrite padd_val in H0.
    rewrite (pval_ext _ (upd (rho ps s t) (VL x) (int_of (R t)))) by
      (intros; apply rho_set_local; auto).
    rewrite pval_upd_notin by auto. fold M. lra.
Qed.

Lemma sound_Q_VWRITE1 : forall P D Qn P' D' Q' x e n Cj ws,
  qexpr G P D e n Cj -> vw_dent G P D x e D' = true -> entails_subst G P x e P' ws = true ->
  lin_fix G P e <> None \/ pmentions (VL x) Q' = false ->
  pot_ge Qn (padd (psubst_e G P x e Q') (m_vwrite M + Cj)) = true ->
  valid (mkAssn P D Qn) (SAssign x e) (mkAssn P' D' Q').
Proof.
  intros P D Qn P' D' Q' x e n Cj ws Hq Hx Hs Hm Hge. start_valid.
  inversion Hrun; subst. simpl in HP, HD. split; [split|].
  - intros t Ht; eapply vwrite_post; eauto.
  - eapply vw_dent_sound; eauto.
  - intros t Ht. simpl. pose proof (qexpr_sound _ _ _ _ _ _ _ _ _ _ _ _ Hp Hw HP HD Hn Hne Hi H1 Hq).
    pose proof (pot_ge_sound (rho ps s t) _ _ Hge). rewrite padd_val in H0.
    rewrite (pval_ext _ (upd (rho ps s t) (VL x) (int_of (R t)))) by
      (intros; apply rho_set_local; auto).
    unfold psubst_e in H0. destruct (lin_fix G P e) as [E|] eqn:EL.
    + rewrite psubst_val in H0.
      rewrite (lin_fix_correct F ps s e T R _ P E Hp Hw H1 EL t Ht (HP t Ht)). simpl int_of.
      fold M; lra.
    + destruct Hm as [Hm|Hm]; [congruence|]. rewrite pval_upd_notin by auto. fold M; lra.
Qed.

(** ** Halving assignments (Q:VWRITE1's bounding substitution, Shift.v) *)

(** Under [A ≥ 1] a halving expression's value [v] lies in [[0, A − 1]] and has
    [d·v ≤ A] for [d = hdiv e] ([v = ⌊A/d⌋]; the log atoms' [x ← A/d], Shift.v). *)
Lemma halving_value : forall F ps s e T R Ce A t, pok ps -> wt s ->
  eeval G F ps s e T R Ce -> halving G e = Some A -> In t T ->
  (1 <= leval (rho ps s t) A)%Z ->
  (0 <= int_of (R t) /\ int_of (R t) <= leval (rho ps s t) A - 1)%Z /\
  (0 < hdiv e /\ hdiv e * int_of (R t) <= leval (rho ps s t) A)%Z.
Proof.
  intros F ps s e T R Ce A t Hp Hw He Hh Ht Ha.
  destruct e as [o|op a b|op a|arr i]; simpl in Hh; try discriminate.
  destruct b as [x|p|[c| |]|d]; try (destruct op; discriminate).
  inversion He; subst.
  match goal with Hb : forall t, In t T -> bop_eval _ _ _ _ = Some _ |- _ =>
    specialize (Hb t Ht); rename Hb into Hb' end.
  destruct op; try discriminate; cbn [hdiv].
  - destruct (2 <=? c)%Z eqn:Ec; [|discriminate]. apply Z.leb_le in Ec.
    rewrite (lin_opd_correct ps s a A t Hp Hw Hh) in Hb'. simpl oval in Hb'.
    unfold bop_eval in Hb'.
    destruct (c =? 0)%Z eqn:E; [apply Z.eqb_eq in E; lia|].
    injection Hb' as <-. simpl int_of. split; [apply quot_halves; lia|].
    rewrite Z.quot_div_nonneg by lia. split; [lia|]. apply Z.mul_div_le; lia.
  - destruct (((1 <=? c) && (c <? 64))%Z) eqn:Ec; [|discriminate].
    apply andb_true_iff in Ec as [E1 E2]; apply Z.leb_le in E1; apply Z.ltb_lt in E2.
    rewrite (lin_opd_correct ps s a A t Hp Hw Hh) in Hb'. simpl oval in Hb'.
    unfold bop_eval in Hb'.
    destruct ((0 <=? c) && (c <? 64))%Z eqn:E; [|discriminate].
    injection Hb' as <-. simpl int_of. split; [apply shiftr_halves; lia|].
    rewrite Z.shiftr_div_pow2 by lia.
    assert (0 < 2 ^ c)%Z by (apply Z.pow_pos_nonneg; lia).
    split; [lia|]. apply Z.mul_div_le; lia.
Qed.

Lemma sound_Q_VWRITE1H : forall P D Qn P' D' Q' x e A n Cj ws,
  qexpr G P D e n Cj -> halving G e = Some A -> vw_dent G P D x e D' = true ->
  entails_bsubst P x A P' ws = true -> ptnonneg Q' = true -> pdivfree (VL x) Q' = true ->
  pot_ge Qn (padd (pbsubst (VL x) A (hdiv e) Q') (m_vwrite M + Cj)) = true ->
  valid (mkAssn P D Qn) (SAssign x e) (mkAssn P' D' Q').
Proof.
  intros P D Qn P' D' Q' x e A n Cj ws Hq Hh Hx Hs Hnn Hdf Hge. start_valid.
  inversion Hrun; subst. simpl in HP, HD.
  unfold entails_bsubst in Hs.
  destruct (map_opt (bcsubst (VL x) A) P') as [Ps|] eqn:Em; [|discriminate].
  assert (Hv : forall t, In t T ->
    (0 <= int_of (R t) <= leval (rho ps s t) A - 1)%Z /\
    (0 < hdiv e /\ hdiv e * int_of (R t) <= leval (rho ps s t) A)%Z).
  { intros t Ht. pose proof (entails_sound _ _ _ _ (HP t Ht) Hs) as HPs.
    assert (H1A : holds (rho ps s t) (CLe (lsub (mkLin 1 []) A)))
      by (apply HPs, in_or_app; right; left; reflexivity).
    cbn [holds] in H1A. unfold lsub in H1A. rewrite ladd_eval, lscale_eval in H1A.
    assert (E1 : leval (rho ps s t) (mkLin 1 []) = 1%Z) by (unfold leval; simpl; lia).
    rewrite E1 in H1A.
    exact (halving_value _ _ _ _ _ _ _ _ t Hp Hw H1 Hh Ht ltac:(lia)). }
  split; [split|].
  - intros t Ht c Hc. destruct (Hv t Ht) as [[Hv0 Hv1] _].
    destruct (map_opt_in _ _ _ _ _ _ Em Hc) as [c' [Hc' Hin]].
    pose proof (entails_sound _ _ _ _ (HP t Ht) Hs) as HPs.
    apply (holds_ext (upd (rho ps s t) (VL x) (int_of (R t))));
      [intros; rewrite rho_set_local; auto|].
    eapply bcsubst_holds; eauto. apply HPs, in_or_app; left; auto.
  - eapply vw_dent_sound; eauto.
  - intros t Ht. simpl. destruct (Hv t Ht) as [[Hv0 Hv1] [Hd Hdv]].
    pose proof (qexpr_sound _ _ _ _ _ _ _ _ _ _ _ _ Hp Hw HP HD Hn Hne Hi H1 Hq).
    pose proof (pot_ge_sound (rho ps s t) _ _ Hge). rewrite padd_val in H0.
    rewrite (pval_ext _ (upd (rho ps s t) (VL x) (int_of (R t)))) by
      (intros; apply rho_set_local; auto).
    pose proof (pbsubst_le (rho ps s t) (VL x) A (hdiv e) (int_of (R t)) Q' Hv0 Hv1 Hd Hdv Hdf Hnn).
    fold M; lra.
Qed.

(** ** Products (Q:VWRITE1's lower bounding substitution, Shift.v) *)

(** A product's value is the product of its factors' linear forms. *)
Lemma product_value : forall F ps s e T R Ce A B t, pok ps -> wt s ->
  eeval G F ps s e T R Ce -> product G e = Some (A, B) -> In t T ->
  int_of (R t) = (leval (rho ps s t) A * leval (rho ps s t) B)%Z.
Proof.
  intros F ps s e T R Ce A B t Hp Hw He Hh Ht.
  destruct e as [o|op a b|op a|arr i]; simpl in Hh; try discriminate.
  destruct op; try discriminate.
  destruct (lin_opd G a) as [La|] eqn:Ea; [|discriminate].
  destruct (lin_opd G b) as [Lb|] eqn:Eb; [|discriminate].
  injection Hh as <- <-.
  inversion He; subst.
  match goal with Hb : forall t, In t T -> bop_eval _ _ _ _ = Some _ |- _ =>
    specialize (Hb t Ht); rename Hb into Hb' end.
  rewrite (lin_opd_correct ps s a La t Hp Hw Ea), (lin_opd_correct ps s b Lb t Hp Hw Eb) in Hb'.
  unfold bop_eval in Hb'. injection Hb' as <-. reflexivity.
Qed.

Lemma sound_Q_VWRITE1P : forall P D Qn P' D' Q' x e A B al be n Cj ws,
  qexpr G P D e n Cj -> product G e = Some (A, B) -> vw_dent G P D x e D' = true ->
  entails_lsubst P x (prod_floor A B al be) [at_least A al; at_least B be] P' ws = true ->
  ptnonneg Q' = true -> pfalls (VL x) Q' = true ->
  pot_ge Qn (padd (plsubst (VL x) (prod_floor A B al be) Q') (m_vwrite M + Cj)) = true ->
  valid (mkAssn P D Qn) (SAssign x e) (mkAssn P' D' Q').
Proof.
  intros P D Qn P' D' Q' x e A B al be n Cj ws Hq Hh Hx Hs Hnn Hf Hge. start_valid.
  inversion Hrun; subst. simpl in HP, HD.
  unfold entails_lsubst in Hs.
  destruct (map_opt (lcsubst (VL x) (prod_floor A B al be)) P') as [Ps|] eqn:Em; [|discriminate].
  assert (Hv : forall t, In t T ->
    (leval (rho ps s t) (prod_floor A B al be) <= int_of (R t))%Z).
  { intros t Ht. pose proof (entails_sound _ _ _ _ (HP t Ht) Hs) as HPs.
    assert (HA : holds (rho ps s t) (at_least A al))
      by (apply HPs, in_or_app; right; left; reflexivity).
    assert (HB : holds (rho ps s t) (at_least B be))
      by (apply HPs, in_or_app; right; right; left; reflexivity).
    unfold at_least in HA, HB. cbn [holds] in HA, HB. unfold lsub in HA, HB.
    rewrite ladd_eval, lscale_eval in HA. rewrite ladd_eval, lscale_eval in HB.
    assert (E : forall k, leval (rho ps s t) (mkLin k []) = k) by (intros; unfold leval; simpl; lia).
    rewrite E in HA, HB.
    rewrite (product_value _ _ _ _ _ _ _ _ _ t Hp Hw H1 Hh Ht).
    unfold prod_floor. rewrite !ladd_eval, !lscale_eval, E.
    pose proof (mul_floor (leval (rho ps s t) A) (leval (rho ps s t) B) al be
      ltac:(lia) ltac:(lia)). lia. }
  split; [split|].
  - intros t Ht c Hc.
    destruct (map_opt_in _ _ _ _ _ _ Em Hc) as [c' [Hc' Hin]].
    pose proof (entails_sound _ _ _ _ (HP t Ht) Hs) as HPs.
    apply (holds_ext (upd (rho ps s t) (VL x) (int_of (R t))));
      [intros; rewrite rho_set_local; auto|].
    eapply lcsubst_holds; eauto. apply HPs, in_or_app; left; auto.
  - eapply vw_dent_sound; eauto.
  - intros t Ht. simpl.
    pose proof (qexpr_sound _ _ _ _ _ _ _ _ _ _ _ _ Hp Hw HP HD Hn Hne Hi H1 Hq).
    pose proof (pot_ge_sound (rho ps s t) _ _ Hge). rewrite padd_val in H0.
    rewrite (pval_ext _ (upd (rho ps s t) (VL x) (int_of (R t)))) by
      (intros; apply rho_set_local; auto).
    pose proof (plsubst_le (rho ps s t) (VL x) _ (int_of (R t)) Q' (Hv t Ht) Hf Hnn).
    fold M; lra.
Qed.

(** ** Warp operations (Q:SHFL, Q:VOTE) *)

(** What the logic uses of a warp operation's result family [R] on [T]: a shuffle's lanes
    each hold the operand's value at some active lane; a vote is one [int] on all lanes. *)
Definition warp_res (ps : nat -> val) (s : store) (op : warpop) (T : list nat) (R : fam) : Prop :=
  match op with
  | WShfl _ _ v _ => forall t, In t T -> exists t', In t' T /\ R t = oval G ps s v t'
  | WVote _ _ => exists z, forall t, In t T -> R t = VInt z
  end.

Lemma shfl_res : forall ps s k w v l T,
  warp_res ps s (WShfl k w v l) T
    (shfl_fam (Z.of_nat (c_warp G)) k w (oval G ps s v) (oval G ps s l) T).
Proof.
  intros ps s k w v l T t Ht. unfold shfl_fam.
  destruct (shfl_src _ _ _ _ _) as [j|]; [destruct (memb j T) eqn:E|]; eauto.
  apply memb_In in E. eauto.
Qed.

Lemma vote_res : forall ps s k p T,
  warp_res ps s (WVote k p) T (fun _ => vote_val (Z.of_nat (c_warp G)) k (oval G ps s p) T).
Proof. intros ps s k p T. unfold vote_val. destruct k; eexists; intros; reflexivity. Qed.

Lemma warp_post_sound : forall ps s x T R P P' t, In t T -> sat (rho ps s t) P ->
  warp_post_p P P' x = true -> sat (rho ps (set_local s x T R) t) P'.
Proof.
  intros ps s x T R P P' t Ht HP H c Hc. unfold warp_post_p in H. rewrite forallb_forall in H.
  specialize (H c Hc). apply andb_true_iff in H as [H1 H2]. apply negb_true_iff in H2.
  apply existsb_exists in H1 as [c' [Hc' E]]. unfold cstr_eqb in E.
  destruct (cstr_eq_dec c c'); [subst c'|discriminate].
  specialize (HP c Hc').
  apply (holds_ext (upd (rho ps s t) (VL x) (int_of (R t))));
    [intros; rewrite rho_set_local; auto|].
  destruct c as [L|L|L m rs]; simpl in *; rewrite leval_upd_notin; auto.
Qed.

Lemma warp_dent_sound : forall ps s T D x op R w D', pok ps -> wt s -> dsat ps s T D ->
  incl T (lanes G w) -> warp_res ps s op T R -> warp_dent G D x op D' = true ->
  dsat ps (set_local s x T R) T D'.
Proof.
  intros ps s T D x op R w D' Hp Hw HD Hi HR H d Hd.
  unfold warp_dent in H. rewrite forallb_forall in H. specialize (H d Hd).
  destruct (Nat.eqb_spec (dvar d) x) as [Ex|Ex].
  - unfold warp_ent_ok in H. apply andb_true_iff in H as [_ H].
    destruct (c_lty G x) as [[| |]|] eqn:Hx.
    + apply existsb_exists in H as [c [Hc Himp]].
      eapply eimplies_sound; [exact Himp|].
      destruct op as [k w' v l|k p]; simpl in Hc.
      * destruct (idep_opd G D v) as [[[k' r] g]|] eqn:Ei; [|contradiction].
        destruct (kzero k') eqn:Hk; [|contradiction]. destruct Hc as [<-|[]].
        unfold kzero, trip_eqb in Hk. destruct (trip_eq_dec k' (0, 0, 0)%Z); [subst k'|discriminate].
        destruct (idep_opd_sound ps s T D v _ r g Hp Hw HD Ei) as [c [Hcg Hv]].
        cbn [esat]. rewrite Hx. exists c. split; auto.
        intros t Ht. rewrite sl_set_local_x by auto. rewrite kval_zero.
        destruct (HR t Ht) as [t' [Ht' ->]]. rewrite (Hv t' Ht'), kval_zero. reflexivity.
      * destruct Hc as [<-|[]]. destruct HR as [z Hz].
        cbn [esat]. rewrite Hx. exists z. split; [apply Z.divide_1_l|].
        intros t Ht. rewrite sl_set_local_x by auto. rewrite Hz by auto. rewrite kval_zero. reflexivity.
    + destruct d as [y k r g| | | |]; try discriminate. destruct op as [k' w' v l|]; try discriminate.
      simpl in Ex; subst y. cbn [esat]. rewrite Hx.
      intros t t' Ht Ht'. rewrite !sl_set_local_x by auto.
      destruct (HR t Ht) as [t1 [Ht1 ->]]. destruct (HR t' Ht') as [t2 [Ht2 ->]].
      eapply opd_uniform; eauto.
    + destruct d as [y k r g| | | |]; try discriminate. destruct op as [k' w' v l|]; try discriminate.
      simpl in Ex; subst y. cbn [esat]. rewrite Hx.
      intros t t' Ht Ht'. rewrite !sl_set_local_x by auto.
      destruct (HR t Ht) as [t1 [Ht1 ->]]. destruct (HR t' Ht') as [t2 [Ht2 ->]].
      eapply opd_uniform; eauto.
    + destruct d as [y k r g| | | |]; try discriminate. destruct op as [k' w' v l|]; try discriminate.
      simpl in Ex; subst y. cbn [esat]. rewrite Hx.
      intros t t' Ht Ht'. rewrite !sl_set_local_x by auto.
      destruct (HR t Ht) as [t1 [Ht1 ->]]. destruct (HR t' Ht') as [t2 [Ht2 ->]].
      eapply opd_uniform; eauto.
  - apply existsb_exists in H as [d' [Hd' E]]. unfold dent_eqb in E.
    destruct (dent_eq_dec d d'); [subst d'|discriminate].
    apply (esat_frame s); [|apply HD; auto]. intros t Ht'. apply set_local_other; auto.
Qed.

Lemma sound_Q_SHFL : forall P D Qn P' D' Q' x k w v l Cv Cl,
  qopd G v Cv -> qopd G l Cl -> warp_post_p P P' x = true ->
  warp_dent G D x (WShfl k w v l) D' = true -> pmentions (VL x) Q' = false ->
  pot_ge Qn (padd Q' (Cv + Cl + m_op M + m_vwrite M)) = true ->
  valid (mkAssn P D Qn) (SWarp x (WShfl k w v l)) (mkAssn P' D' Q').
Proof.
  intros P D Qn P' D' Q' x k wd v l Cv Cl Hv Hl Hpp Hd Hm Hge. start_valid.
  inversion Hrun; subst. simpl in HP, HD. split; [split|].
  - intros t Ht; eapply warp_post_sound; eauto.
  - eapply warp_dent_sound; eauto. apply shfl_res.
  - intros t Ht. simpl.
    match goal with H1 : oeval _ _ v _ ?c1, H2 : oeval _ _ l _ ?c2 |- _ =>
      pose proof (qopd_sound _ _ _ _ _ H1 Hv); pose proof (qopd_sound _ _ _ _ _ H2 Hl) end.
    pose proof (pot_ge_sound (rho ps s t) _ _ Hge) as Hg. rewrite padd_val in Hg.
    rewrite (pval_ext _ (upd (rho ps s t) (VL x) _)) by (intros; apply rho_set_local; auto).
    rewrite pval_upd_notin by auto. fold M. lra.
Qed.

Lemma sound_Q_VWRITEROWS : forall P D Qn P' D' Q' x A i es n0 rows X C,
  c_arr G A = Some (Global, es) -> qopd G i C -> rows_acc G P D i es n0 rows = Some X ->
  vw_dent G P D x (ERead A i) D' = true -> warp_post_p P P' x = true ->
  pmentions (VL x) Q' = false ->
  pot_ge Qn (padd (pcharge Q' (m_gread M 1) X n0 rows) (m_vwrite M + C)) = true ->
  valid (mkAssn P D Qn) (SAssign x (ERead A i)) (mkAssn P' D' Q').
Proof.
  intros P D Qn P' D' Q' x A i es n0 rows X C Ha Hi1 Hacc Hx Hs Hm Hge. start_valid.
  inversion Hrun; subst. simpl in HP, HD. split; [split|].
  - intros t Ht; eapply warp_post_sound; eauto.
  - eapply vw_dent_sound; eauto.
  - intros t Ht. simpl.
    rewrite (pval_ext _ (upd (rho ps s t) (VL x) (int_of (R t)))) by
      (intros; apply rho_set_local; auto).
    rewrite pval_upd_notin by auto.
    destruct (rows_acc_sound ps s P D i es n0 rows X T w Hacc HD HP Hne Hi t) as [Hle [_ Hr]].
    pose proof (pot_ge_sound (rho ps s t) _ _ Hge) as Hg. rewrite padd_val, pcharge_val in Hg by exact Hr.
    assert (Hc : m_gread M (memreads G es T (oval G ps s i)) <=
                 m_gread M 1 * inject_Z (rcharge n0 rows (leval (rho ps s t) X))).
    { rewrite (proj1 (m_glin M (memreads G es T (oval G ps s i)))), !(Qmult_comm (m_gread M 1)).
    apply Qmult_le_compat_r; [rewrite <- Zle_Qle; exact Hle|].
      destruct (m_acc1 M) as [Hg1 _]. exact Hg1. }
    set (K := m_gread M 1 * inject_Z (rcharge n0 rows (leval (rho ps s t) X))) in *.
    match goal with Hee : eeval _ _ _ _ (ERead _ _) _ _ _ |- _ => inversion Hee; subst end;
      try congruence.
    match goal with Ho : oeval _ _ i _ _ |- _ => pose proof (qopd_sound _ _ _ _ _ Ho Hi1) end.
    try match goal with H : c_arr G A = Some (Global, ?e) |- _ =>
      lazymatch e with es => fail | _ => assert (e = es) by congruence; subst e end end.
    fold M. lra.
Qed.

Lemma sound_Q_VOTE : forall P D Qn P' D' Q' x k p Cp,
  qopd G p Cp -> warp_post_p P P' x = true ->
  warp_dent G D x (WVote k p) D' = true -> pmentions (VL x) Q' = false ->
  pot_ge Qn (padd Q' (Cp + m_op M + m_vwrite M)) = true ->
  valid (mkAssn P D Qn) (SWarp x (WVote k p)) (mkAssn P' D' Q').
Proof.
  intros P D Qn P' D' Q' x k p Cp Hpc Hpp Hd Hm Hge. start_valid.
  inversion Hrun; subst. simpl in HP, HD. split; [split|].
  - intros t Ht; eapply warp_post_sound; eauto.
  - eapply warp_dent_sound; eauto. apply vote_res.
  - intros t Ht. simpl.
    match goal with H1 : oeval _ _ p _ ?c1 |- _ => pose proof (qopd_sound _ _ _ _ _ H1 Hpc) end.
    pose proof (pot_ge_sound (rho ps s t) _ _ Hge) as Hg. rewrite padd_val in Hg.
    rewrite (pval_ext _ (upd (rho ps s t) (VL x) _)) by (intros; apply rho_set_local; auto).
    rewrite pval_upd_notin by auto. fold M. lra.
Qed.

Lemma sound_Q_GWRITEROWS : forall P D Qn Q' A i e es n0 rows X ne C1 C2,
  c_arr G A = Some (Global, es) -> qopd G i C1 -> qexpr G P D e ne C2 ->
  rows_acc G P D i es n0 rows = Some X ->
  pot_ge Qn (padd (pcharge Q' (m_gwrite M 1) X n0 rows) (C1 + C2)) = true ->
  valid (mkAssn P D Qn) (SWrite A i e) (mkAssn P D Q').
Proof.
  intros P D Qn Q' A i e es n0 rows X ne C1 C2 Ha Hi1 He1 Hacc Hge. start_valid.
  pose proof (rows_acc_sound ps s P D i es n0 rows X T w Hacc HD HP Hne Hi) as HRA.
  inversion Hrun; subst; rewrite Ha in *; try discriminate.
  match goal with H : Some _ = Some _ |- _ => inversion H; subst end.
  split; [split; auto|]. intros t Ht. simpl.
  match goal with Ho : oeval _ _ i _ _ |- _ => pose proof (qopd_sound _ _ _ _ _ Ho Hi1) end.
  match goal with Hee : eeval _ _ _ _ e _ _ _ |- _ =>
    pose proof (qexpr_sound _ _ _ _ _ _ _ _ _ _ _ _ Hp Hw HP HD Hn Hne Hi Hee He1) end.
  destruct (HRA t) as [Hle [_ Hr]].
  pose proof (pot_ge_sound (rho ps s t) _ _ Hge) as Hg. rewrite padd_val, pcharge_val in Hg by exact Hr.
  match goal with |- context[m_gwrite _ (memreads G ?e0 ?T0 ?R0)] =>
    assert (Hc : m_gwrite M (memreads G e0 T0 R0) <=
                 m_gwrite M 1 * inject_Z (rcharge n0 rows (leval (rho ps s t) X)));
    [rewrite (proj2 (m_glin M (memreads G e0 T0 R0))), !(Qmult_comm (m_gwrite M 1));
     apply Qmult_le_compat_r;
     [rewrite <- Zle_Qle; exact Hle | destruct (m_acc1 M) as [_ [_ [Hg1 _]]]; exact Hg1] |] end.
  set (K := m_gwrite M 1 * inject_Z (rcharge n0 rows (leval (rho ps s t) X))) in *.
  change (rho ps (set_array s A T (oval G ps s i) R) t) with (rho ps s t). fold M. lra.
Qed.

Lemma sound_Q_GWRITE : forall P D Qn Q' A i e es n ne C1 C2,
  c_arr G A = Some (Global, es) -> qopd G i C1 -> qexpr G P D e ne C2 ->
  dacc G false P D i es n = true -> pot_ge Qn (padd Q' (m_gwrite M n + C1 + C2)) = true ->
  valid (mkAssn P D Qn) (SWrite A i e) (mkAssn P D Q').
Proof.
  intros P D Qn Q' A i e es n ne C1 C2 Ha Hi1 He1 Hacc Hge. start_valid.
  inversion Hrun; subst; rewrite Ha in *; try discriminate.
  match goal with H : Some _ = Some _ |- _ => inversion H; subst end.
  split; [split; auto|]. intros t Ht. simpl.
  match goal with Ho : oeval _ _ i _ _ |- _ => pose proof (qopd_sound _ _ _ _ _ Ho Hi1) end.
  match goal with Hee : eeval _ _ _ _ e _ _ _ |- _ =>
    pose proof (qexpr_sound _ _ _ _ _ _ _ _ _ _ _ _ Hp Hw HP HD Hn Hne Hi Hee He1) end.
  pose proof (pot_ge_sound (rho ps s t) _ _ Hge) as Hg. rewrite padd_val in Hg.
  match goal with |- context[m_gwrite _ (memreads G ?es ?T ?R)] =>
    assert (m_gwrite M (memreads G es T R) <= m_gwrite M n)
      by (apply (m_mono M); eapply dacc_mem_sound; eauto) end.
  change (rho ps (set_array s A T (oval G ps s i) R) t) with (rho ps s t). fold M. lra.
Qed.

Lemma sound_Q_LWRITE : forall P D Qn Q' A i e es ne C1 C2,
  c_arr G A = Some (Local, es) -> qopd G i C1 -> qexpr G P D e ne C2 ->
  pot_ge Qn (padd Q' (m_vwrite M + C1 + C2)) = true ->
  valid (mkAssn P D Qn) (SWrite A i e) (mkAssn P D Q').
Proof.
  intros P D Qn Q' A i e es ne C1 C2 Ha Hi1 He1 Hge. start_valid.
  inversion Hrun; subst; rewrite Ha in *; try discriminate.
  match goal with H : Some _ = Some _ |- _ => inversion H; subst end.
  split; [split; auto|]. intros t Ht. simpl.
  match goal with Ho : oeval _ _ i _ _ |- _ => pose proof (qopd_sound _ _ _ _ _ Ho Hi1) end.
  match goal with Hee : eeval _ _ _ _ e _ _ _ |- _ =>
    pose proof (qexpr_sound _ _ _ _ _ _ _ _ _ _ _ _ Hp Hw HP HD Hn Hne Hi Hee He1) end.
  pose proof (pot_ge_sound (rho ps s t) _ _ Hge) as Hg. rewrite padd_val in Hg.
  change (rho ps (set_array s A T (oval G ps s i) R) t) with (rho ps s t). fold M. lra.
Qed.

Lemma sound_Q_SWRITE : forall P D Qn Q' A i e es n ne C1 C2,
  c_arr G A = Some (Shared, es) -> qopd G i C1 -> qexpr G P D e ne C2 ->
  dacc G true P D i es n = true -> pot_ge Qn (padd Q' (m_swrite M n + C1 + C2)) = true ->
  valid (mkAssn P D Qn) (SWrite A i e) (mkAssn P D Q').
Proof.
  intros P D Qn Q' A i e es n ne C1 C2 Ha Hi1 He1 Hacc Hge. start_valid.
  inversion Hrun; subst; rewrite Ha in *; try discriminate.
  match goal with H : Some _ = Some _ |- _ => inversion H; subst end.
  split; [split; auto|]. intros t Ht. simpl.
  match goal with Ho : oeval _ _ i _ _ |- _ => pose proof (qopd_sound _ _ _ _ _ Ho Hi1) end.
  match goal with Hee : eeval _ _ _ _ e _ _ _ |- _ =>
    pose proof (qexpr_sound _ _ _ _ _ _ _ _ _ _ _ _ Hp Hw HP HD Hn Hne Hi Hee He1) end.
  pose proof (pot_ge_sound (rho ps s t) _ _ Hge) as Hg. rewrite padd_val in Hg.
  match goal with |- context[m_swrite _ (conflicts_of G ?es ?T ?R)] =>
    assert (m_swrite M (conflicts_of G es T R) <= m_swrite M n)
      by (apply (m_mono M); eapply dacc_conf_sound; eauto) end.
  change (rho ps (set_array s A T (oval G ps s i) R) t) with (rho ps s t). fold M. lra.
Qed.

(** ** Constraint lists, frames and maps across statements *)
Lemma sat_app : forall r P1 P2, sat r P1 -> sat r P2 -> sat r (P1 ++ P2).
Proof. intros r P1 P2 H1 H2 c Hc; apply in_app_iff in Hc as [Hc|Hc]; auto. Qed.
Lemma sat_app_l : forall r P1 P2, sat r (P1 ++ P2) -> sat r P1.
Proof. intros r P1 P2 H c Hc; apply H, in_app_iff; auto. Qed.

Lemma rho_frame : forall ps s s' t, (forall x, sl s' x t = sl s x t) ->
  forall v, rho ps s' t v = rho ps s t v.
Proof. intros ps s s' t H [x|p|d]; simpl; auto; rewrite H; auto. Qed.

Lemma subset_mem : forall Y X x, subset Y X = true -> memn x Y = true -> memn x X = true.
Proof.
  intros Y X x H Hx; unfold subset in H; rewrite forallb_forall in H; apply H, memn_In; auto.
Qed.
Lemma disjoint_notin : forall Y W x, disjoint Y W = true -> memn x Y = true -> ~ In x W.
Proof.
  intros Y W x H Hx Hin; unfold disjoint in H; rewrite forallb_forall in H.
  apply memn_In in Hx. specialize (H x Hx). apply memn_In in Hin. rewrite Hin in H; discriminate.
Qed.


Lemma incl_filter : forall f (T : list nat), incl (filter f T) T.
Proof. intros f T t Ht; apply filter_In in Ht; tauto. Qed.
Lemma lin_eqb_eval : forall r L1 L2, lin_eqb (lnorm L1) (lnorm L2) = true -> leval r L1 = leval r L2.
Proof.
  intros r L1 L2 H. unfold lin_eqb in H. destruct (lin_eq_dec (lnorm L1) (lnorm L2)) as [E|];
    [|discriminate]. rewrite <- (lnorm_eval r L1), E, lnorm_eval. auto.
Qed.

Lemma cstrs_equiv_cons : forall r c1 c2 P1 P2, cstrs_equiv (c1 :: P1) (c2 :: P2) = true ->
  (holds r c1 <-> holds r c2) /\ cstrs_equiv P1 P2 = true.
Proof.
  intros r [L1|L1|L1 m1 rs1] [L2|L2|L2 m2 rs2] P1 P2 H; cbn [cstrs_equiv] in H; try discriminate;
    repeat rewrite andb_true_iff in H.
  - destruct H as [H1 H2]. simpl. rewrite (lin_eqb_eval r _ _ H1). tauto.
  - destruct H as [H1 H2]. simpl. rewrite (lin_eqb_eval r _ _ H1). tauto.
  - destruct H as [[[H1 H2] H3] H4]. apply Z.eqb_eq in H2. unfold zlist_eqb in H3.
    destruct (list_eq_dec Z.eq_dec rs1 rs2); [|discriminate]. subst. simpl.
    rewrite (lin_eqb_eval r _ _ H1). tauto.
Qed.

Lemma cstrs_equiv_sat : forall r P1 P2, cstrs_equiv P1 P2 = true -> sat r P2 -> sat r P1.
Proof.
  intros r P1; induction P1 as [|c1 P1 IH]; intros [|c2 P2] H HP c Hc; try contradiction;
    try (destruct c1; discriminate).
  destruct (cstrs_equiv_cons r c1 c2 P1 P2 H) as [E H']. destruct Hc as [<-|Hc].
  - apply E, HP; left; auto.
  - apply (IH P2 H'); auto. intros c' Hc'; apply HP; right; auto.
Qed.

Lemma cstrs_equiv_sat' : forall r P1 P2, cstrs_equiv P1 P2 = true -> sat r P1 -> sat r P2.
Proof.
  intros r P1; induction P1 as [|c1 P1 IH]; intros [|c2 P2] H HP c Hc; try contradiction;
    try discriminate; try (destruct c1; discriminate).
  destruct (cstrs_equiv_cons r c1 c2 P1 P2 H) as [E H']. destruct Hc as [<-|Hc].
  - apply E, HP; left; auto.
  - apply (IH P2 H'); auto. intros c' Hc'; apply HP; right; auto.
Qed.

Lemma dvars_notin : forall D W d, disjoint (dvars D) W = true -> In d D -> ~ In (dvar d) W.
Proof.
  intros D W d H Hd Hin. unfold disjoint in H. rewrite forallb_forall in H.
  specialize (H (dvar d) (in_map _ _ _ Hd)). apply memn_In in Hin. rewrite Hin in H; discriminate.
Qed.

(** A map implied by [D] whose locals a run leaves unchanged holds after it, on all threads. *)
Lemma dsat_frame {ps : nat -> val} : forall s st T D D' W, dsat ps s T D -> dcovers D D' = true ->
  disjoint (dvars D') W = true -> (forall x t, ~ In x W -> sl st x t = sl s x t) -> dsat ps st T D'.
Proof.
  intros s st T D D' W HD Hc Hdj Hst d Hd. apply (esat_frame s).
  - intros t _. apply Hst. eapply dvars_notin; eauto.
  - eapply dcovers_sound; eauto.
Qed.

Lemma entails_lin : forall r P1 P2 ws, entails P1 (filter is_lin P2) ws = true -> sat r P1 ->
  forall c, In c P2 -> is_lin c = true -> holds r c.
Proof.
  intros r P1 P2 ws H HP c Hc Hl. apply (entails_sound _ _ _ _ HP H). apply filter_In; auto.
Qed.

(** ** Q:IF4 and Q:IFALIGN *)
(** The divergent [if] with a divergence charge [K] (spec/logic.md §4): Q:IF4's premises,
    the pre potential at least [Q + M^if + C + K] on every state, [K ≥ 0] (cases SC:IFT
    and SC:IFF, one branch runs), and [K ≥ M^div] on the active threads of a warp that
    the test splits (case SC:IFD). Q:IF4 is [K = M^div]; Q:IFALIGN is
    [K = M^div·[m ∤ s − X]] ([sound_Q_IFALIGN]). *)
Lemma sound_if_charged : forall (K : (var -> Z) -> Q)
  P D Qn Q e n C s1 s2 PT P1 D1 Q1 PF DF P2 D2 Q2 P' D' wec wet wjt wje,
  qexpr G P D e n C -> cstrs_equiv PT (andc G P D e false) = true ->
  valid (mkAssn PT D Q) s1 (mkAssn P1 D1 Q1) ->
  valid (mkAssn PF DF Q1) s2 (mkAssn P2 D2 Q2) ->
  entails (andc G P D e true) PF wec = true -> entails P1 (filter is_lin PF) wet = true ->
  entails P1 P' wjt = true -> entails P2 P' wje = true ->
  dcovers D DF = true -> disjoint (dvars DF) (writes s1) = true ->
  dcovers D D' = true -> disjoint (dvars D') (writes s1 ++ writes s2) = true ->
  puni G D Q = true -> puni G DF Q1 = true -> puni G D' Q2 = true ->
  pot_ge Q Q1 = true -> pot_ge Q1 Q2 = true ->
  (forall r, pval r Q + (m_if M + C) + K r <= pval r Qn) ->
  (forall r, 0 <= K r) ->
  (forall F ps s T R C1 w t1 t2, pok ps -> wt s -> dsat ps s T D -> incl T (lanes G w) ->
     eeval G F ps s e T R C1 -> In t1 T -> In t2 T ->
     is_true_v (R t1) = true -> is_false_v (R t2) = true ->
     forall t, In t T -> m_div M <= K (rho ps s t)) ->
  valid (mkAssn P D Qn) (SIf e s1 s2) (mkAssn P' D' Q2).
Proof.
  intros K P D Qn Q e n C s1 s2 PT P1 D1 Q1 PF DF P2 D2 Q2 P' D' wec wet wjt wje
    Hq HPT V1 V2 Hec Het Hjt Hje HcF HdF HcX HdX HuQ HuQ1 HuQ2 HQQ1 HQ1Q2 Hpre HK0 HKsplit.
  start_valid. simpl in HP, HD.
  pose proof (m_nonneg M) as Hnn. destruct Hnn as (_ & _ & _ & _ & Hif & Hdiv & _).
  assert (HDF : forall st, (forall x t, ~ In x (writes s1) -> sl st x t = sl s x t) -> dsat ps st T DF)
    by (intros; eapply dsat_frame; eauto).
  assert (HD' : forall st, (forall x t, ~ In x (writes s1 ++ writes s2) -> sl st x t = sl s x t) ->
            dsat ps st T D') by (intros; eapply dsat_frame; eauto).
  inversion Hrun; subst.
  - (* SC_IFT: only the then branch runs *)
    match goal with H : eeval _ _ _ _ _ _ _ _ |- _ => rename H into Hee end.
    match goal with H : seval _ _ _ _ s1 _ _ _ |- _ => rename H into Hs1 end.
    pose proof (qexpr_sound _ _ _ _ _ _ _ _ _ _ _ _ Hp Hw HP HD Hn Hne Hi Hee Hq) as Hce.
    assert (Hpre1 : sat_assn ps (mkAssn PT D Q) s T).
    { split; simpl; auto. intros t Ht; apply (cstrs_equiv_sat _ _ _ HPT).
      apply (andc_correct F ps s e T R C1 D P t Hp Hw HD Hee Ht (HP t Ht)); auto. }
    destruct (V1 F ps s T s' C2 w Hp Hn Hne Hi Hw Hpre1 Hs1) as [[HP1 HD1] HQ1].
    split; [split|].
    + intros t Ht; apply (entails_sound _ _ _ _ (HP1 t Ht) Hjt).
    + apply HD'. intros x t Hx. apply (frame_writes _ _ _ _ _ _ _ Hs1). rewrite in_app_iff in Hx; tauto.
    + intros t Ht. simpl. specialize (HQ1 t Ht). simpl in HQ1.
      pose proof (Hpre (rho ps s t)) as H1. pose proof (HK0 (rho ps s t)).
      pose proof (pot_ge_sound (rho ps s' t) _ _ HQ1Q2). fold M. lra.
  - (* SC_IFF: only the else branch runs *)
    match goal with H : eeval _ _ _ _ _ _ _ _ |- _ => rename H into Hee end.
    match goal with H : seval _ _ _ _ s2 _ _ _ |- _ => rename H into Hs2 end.
    pose proof (qexpr_sound _ _ _ _ _ _ _ _ _ _ _ _ Hp Hw HP HD Hn Hne Hi Hee Hq) as Hce.
    assert (Hpre2 : sat_assn ps (mkAssn PF DF Q1) s T).
    { split; simpl.
      - intros t Ht. refine (entails_sound _ _ _ _ _ Hec).
        apply (andc_correct F ps s e T R C1 D P t Hp Hw HD Hee Ht (HP t Ht)); auto.
      - apply HDF; auto. }
    destruct (V2 F ps s T s' C2 w Hp Hn Hne Hi Hw Hpre2 Hs2) as [[HP2 HD2] HQ2].
    split; [split|].
    + intros t Ht; apply (entails_sound _ _ _ _ (HP2 t Ht) Hje).
    + apply HD'. intros x t Hx. apply (frame_writes _ _ _ _ _ _ _ Hs2). rewrite in_app_iff in Hx; tauto.
    + intros t Ht. simpl. specialize (HQ2 t Ht). simpl in HQ2.
      pose proof (Hpre (rho ps s t)) as H1. pose proof (HK0 (rho ps s t)).
      pose proof (pot_ge_sound (rho ps s t) _ _ HQQ1). fold M. lra.
  - (* SC_IFD: the then branch on 𝒯_T, then the else branch on 𝒯_F *)
    match goal with H : eeval _ _ _ _ _ _ _ _ |- _ => rename H into Hee end.
    match goal with H : seval _ _ _ _ s1 _ _ _ |- _ => rename H into Hs1 end.
    match goal with H : seval _ _ _ _ s2 _ _ _ |- _ => rename H into Hs2 end.
    match goal with H : forall t, In t T -> is_bool_v _ = true |- _ => rename H into Hbool end.
    match goal with H : filter (fun t => is_true_v _) T <> [] |- _ => rename H into HneT end.
    match goal with H : filter (fun t => is_false_v _) T <> [] |- _ => rename H into HneF end.
    set (TT := filter (fun t => is_true_v (R t)) T) in *.
    set (TF := filter (fun t => is_false_v (R t)) T) in *.
    pose proof (qexpr_sound _ _ _ _ _ _ _ _ _ _ _ _ Hp Hw HP HD Hn Hne Hi Hee Hq) as Hce.
    assert (HTT : forall t, In t TT <-> In t T /\ is_true_v (R t) = true) by
      (intros; unfold TT; apply filter_In).
    assert (HTF : forall t, In t TF <-> In t T /\ is_false_v (R t) = true) by
      (intros; unfold TF; apply filter_In).
    assert (HTTF : forall t, In t TF -> ~ In t TT).
    { intros t H1 H2. apply HTF in H1; apply HTT in H2.
      destruct H1 as [_ H1], H2 as [_ H2]. destruct (R t) as [| [] |]; discriminate. }
    assert (HTFT : forall t, In t TT -> ~ In t TF) by (intros t H1 H2; eapply HTTF; eauto).
    assert (HnT : NoDup TT) by (apply NoDup_filter; auto).
    assert (HnF : NoDup TF) by (apply NoDup_filter; auto).
    assert (HiT : incl TT (lanes G w)) by (eapply incl_tran; [apply incl_filter|]; auto).
    assert (HiF : incl TF (lanes G w)) by (eapply incl_tran; [apply incl_filter|]; auto).
    assert (Hpre1 : sat_assn ps (mkAssn PT D Q) s TT).
    { split; simpl.
      - intros t Ht. apply HTT in Ht as [Ht Hr]. apply (cstrs_equiv_sat _ _ _ HPT).
        apply (andc_correct F ps s e T R C1 D P t Hp Hw HD Hee Ht (HP t Ht)); auto.
      - eapply dsat_sub; [apply incl_filter | exact HD]. }
    destruct (V1 F ps s TT st1 C2 w Hp HnT HneT HiT Hw Hpre1 Hs1) as [[HP1 HD1] HQ1].
    assert (Hst1 : forall x t, In t TF -> sl st1 x t = sl s x t) by
      (intros; eapply frame_threads; eauto).
    assert (HF1 : forall x t, ~ In x (writes s1) -> sl st1 x t = sl s x t) by
      (intros; eapply frame_writes; eauto).
    assert (Hpre2 : sat_assn ps (mkAssn PF DF Q1) st1 TF).
    { split; simpl.
      - intros t Ht. apply (sat_ext (rho ps s t)); [intros; symmetry; apply rho_frame; auto|].
        apply HTF in Ht as [Ht Hr]. refine (entails_sound _ _ _ _ _ Hec).
        apply (andc_correct F ps s e T R C1 D P t Hp Hw HD Hee Ht (HP t Ht)); auto.
      - eapply dsat_sub; [apply incl_filter | exact (HDF st1 HF1)]. }
    destruct (V2 F ps st1 TF s' C3 w Hp HnF HneF HiF (run_wt _ _ _ _ _ _ _ Hs1 Hw) Hpre2 Hs2)
      as [[HP2 HD2] HQ2].
    assert (Hs'1 : forall x t, In t TT -> sl s' x t = sl st1 x t) by
      (intros; eapply frame_threads; eauto).
    assert (HF' : forall x t, ~ In x (writes s1 ++ writes s2) -> sl s' x t = sl s x t).
    { intros x t Hx. rewrite in_app_iff in Hx.
      rewrite (frame_writes _ _ _ _ _ _ _ Hs2 x) by tauto. apply HF1. tauto. }
    split; [split|].
    + intros t Ht. simpl. specialize (Hbool t Ht).
      destruct (R t) as [| [] |] eqn:Er; try discriminate.
      * assert (HtT : In t TT) by (apply HTT; rewrite Er; auto).
        apply (sat_ext (rho ps st1 t)); [intros; symmetry; apply rho_frame; auto|].
        apply (entails_sound _ _ _ _ (HP1 t HtT) Hjt).
      * assert (HtF : In t TF) by (apply HTF; rewrite Er; auto).
        apply (entails_sound _ _ _ _ (HP2 t HtF) Hje).
    + apply HD'; auto.
    + intros t Ht. simpl.
      destruct (nonempty_elem _ HneT) as [tT HtT]. destruct (nonempty_elem _ HneF) as [tF HtF].
      assert (HtT' : In tT T) by (apply HTT in HtT; tauto).
      assert (HtF' : In tF T) by (apply HTF in HtF; tauto).
      specialize (HQ1 tT HtT). specialize (HQ2 tF HtF). simpl in HQ1, HQ2.
      rewrite (puni_sound ps s T D Q HD HuQ tT t) in HQ1 by auto.
      rewrite (puni_sound ps st1 T DF Q1 (HDF st1 HF1) HuQ1 tT tF) in HQ1 by auto.
      rewrite (puni_sound ps s' T D' Q2 (HD' s' HF') HuQ2 tF t) in HQ2 by auto.
      pose proof (Hpre (rho ps s t)) as H1.
      pose proof (HKsplit F ps s T R C1 w tT tF Hp Hw HD Hi Hee HtT' HtF'
                    ltac:(apply HTT in HtT; tauto) ltac:(apply HTF in HtF; tauto) t Ht) as Hk.
      fold M. lra.
Qed.

Lemma sound_Q_IF4 : forall P D Qn Q e n C s1 s2 PT P1 D1 Q1 PF DF P2 D2 Q2 P' D' wec wet wjt wje,
  qexpr G P D e n C -> cstrs_equiv PT (andc G P D e false) = true ->
  valid (mkAssn PT D Q) s1 (mkAssn P1 D1 Q1) ->
  valid (mkAssn PF DF Q1) s2 (mkAssn P2 D2 Q2) ->
  entails (andc G P D e true) PF wec = true -> entails P1 (filter is_lin PF) wet = true ->
  entails P1 P' wjt = true -> entails P2 P' wje = true ->
  dcovers D DF = true -> disjoint (dvars DF) (writes s1) = true ->
  dcovers D D' = true -> disjoint (dvars D') (writes s1 ++ writes s2) = true ->
  puni G D Q = true -> puni G DF Q1 = true -> puni G D' Q2 = true ->
  pot_ge Q Q1 = true -> pot_ge Q1 Q2 = true ->
  pot_ge Qn (padd Q (m_if M + C + m_div M)) = true ->
  valid (mkAssn P D Qn) (SIf e s1 s2) (mkAssn P' D' Q2).
Proof.
  intros P D Qn Q e n C s1 s2 PT P1 D1 Q1 PF DF P2 D2 Q2 P' D' wec wet wjt wje
    Hq HPT V1 V2 Hec Het Hjt Hje HcF HdF HcX HdX HuQ HuQ1 HuQ2 HQQ1 HQ1Q2 Hpre.
  pose proof (m_nonneg M) as Hnn. destruct Hnn as (_ & _ & _ & _ & _ & Hdiv & _).
  apply (sound_if_charged (fun _ => m_div M) P D Qn Q e n C s1 s2 PT P1 D1 Q1 PF DF P2 D2 Q2
           P' D' wec wet wjt wje); auto.
  - intros r. pose proof (pot_ge_sound r _ _ Hpre) as H1. rewrite padd_val in H1. lra.
  - intros. apply Qle_refl.
Qed.
(** ** Q:WHILE1, Q:WHILEWARP *)
(** The test [e] never splits active threads of one warp that satisfy [D] (Q:WHILE1: [e] is
    uniform; Q:WHILEWARP: the window check). *)
Definition nosplit_at (D : list dent) (e : expr) : Prop :=
  forall F ps s T R C1 w t1 t2, pok ps -> wt s -> dsat ps s T D -> incl T (lanes G w) ->
    eeval G F ps s e T R C1 -> In t1 T -> In t2 T ->
    is_true_v (R t1) = true -> is_false_v (R t2) = true -> False.

Lemma unif_nosplit : forall D e, unif G (dunif G D) e = true -> nosplit_at D e.
Proof.
  intros D e Hu F ps s T R C1 w t1 t2 Hp Hw HD Hi He Ht1 Ht2 E1 E2.
  assert (HX : forall x, memn x (dunif G D) = true -> forall t t', In t T -> In t' T ->
         sl s x t = sl s x t') by (intros; eapply dunif_sound; eauto).
  rewrite (unif_correct F ps s e T R C1 (dunif G D) w Hu He Hi HX t1 t2 Ht1 Ht2) in E1.
  destruct (R t2) as [| [] |]; discriminate.
Qed.

Lemma while1_loop : forall P D Q' e n C b B PB QB QB',
  qexpr G P D e n C -> nosplit_at D e ->
  valid (mkAssn B D QB) b (mkAssn PB D QB') ->
  cstrs_equiv B (andc G P D e false) = true -> cstrs_equiv PB P = true ->
  (forall r, pval r QB <= pval r Q') -> pot_ge QB' (padd Q' (m_if M + C)) = true ->
  forall F ps s sw T s' Cr, seval G F ps s sw T s' Cr -> sw = SWhile e b ->
  forall w, pok ps -> NoDup T -> T <> [] -> incl T (lanes G w) -> wt s ->
  sat_assn ps (mkAssn P D Q') s T ->
  sat_assn ps (mkAssn (andc G P D e true) D Q') s' T /\
  forall t, In t T -> Cr + pval (rho ps s' t) Q' <= pval (rho ps s t) Q' + (m_if M + C).
Proof.
  intros P D Q' e n C b B PB QB QB' Hq Hu V HB HPB HQB HQB' F ps s sw T s' Cr Hrun.
  induction Hrun; intros Esw; inversion Esw; subst; intros w Hp Hn Hne Hi Hw [HP HD];
    simpl in HP, HD.
  - (* SC_WHILEALL *)
    pose proof (qexpr_sound _ _ _ _ _ _ _ _ _ _ _ _ Hp Hw HP HD Hn Hne Hi H Hq) as Hce.
    assert (Hpre : sat_assn ps (mkAssn B D QB) s T).
    { split; simpl; auto. intros t Ht. apply (cstrs_equiv_sat _ _ _ HB).
      apply (andc_correct F ps s e T R C1 D P t Hp Hw HD H Ht (HP t Ht)); auto. }
    destruct (V F ps s T st1 C2 w Hp Hn Hne Hi Hw Hpre Hrun1) as [[HP1 HX1] HQ1].
    assert (Hs1 : sat_assn ps (mkAssn P D Q') st1 T).
    { split; simpl; auto. intros t Ht; apply (cstrs_equiv_sat' _ _ _ HPB); auto. }
    destruct (IHHrun2 eq_refl w Hp Hn Hne Hi (run_wt _ _ _ _ _ _ _ Hrun1 Hw) Hs1) as [Hpost HQ2].
    split; auto. intros t Ht. specialize (HQ1 t Ht); specialize (HQ2 t Ht). simpl in HQ1.
    pose proof (pot_ge_sound (rho ps st1 t) _ _ HQB') as H1. rewrite padd_val in H1.
    pose proof (HQB (rho ps s t)) as H2. fold M in H1, H2, HQ1, HQ2 |- *. lra.
  - (* SC_WHILESOME: impossible, the condition does not split the warp *)
    exfalso. destruct (nonempty_elem _ H1) as [t1 Ht1]. destruct (nonempty_elem _ H2) as [t2 Ht2].
    apply filter_In in Ht1 as [Ht1 E1]. apply filter_In in Ht2 as [Ht2 E2].
    exact (Hu F ps s T R C1 w t1 t2 Hp Hw HD Hi H Ht1 Ht2 E1 E2).
  - (* SC_WHILENONE *)
    pose proof (qexpr_sound _ _ _ _ _ _ _ _ _ _ _ _ Hp Hw HP HD Hn Hne Hi H Hq) as Hce.
    split; [split; simpl; auto|].
    + intros t Ht. apply (andc_correct F ps s e T R C0 D P t Hp Hw HD H Ht (HP t Ht)); auto.
    + intros t Ht. fold M. lra.
Qed.

Lemma sound_Q_WHILE1 : forall P D Qn Q' e n C b B PB QB QB' P',
  qexpr G P D e n C -> unif G (dunif G D) e = true ->
  valid (mkAssn B D QB) b (mkAssn PB D QB') ->
  cstrs_equiv B (andc G P D e false) = true -> cstrs_equiv PB P = true ->
  pot_ge Q' QB = true -> pot_ge QB' (padd Q' (m_if M + C)) = true ->
  pot_ge Qn (padd Q' (m_if M + C)) = true ->
  cstrs_equiv P' (andc G P D e true) = true ->
  valid (mkAssn P D Qn) (SWhile e b) (mkAssn P' D Q').
Proof.
  intros P D Qn Q' e n C b B PB QB QB' P' Hq Hu V HB HPB HQB HQB' Hpre HP'. start_valid.
  destruct (while1_loop P D Q' e n C b B PB QB QB' Hq (unif_nosplit D e Hu) V HB HPB
              (fun r => pot_ge_sound r _ _ HQB) HQB'
              F ps s _ T s' Crun Hrun eq_refl w Hp Hn Hne Hi Hw (conj HP HD)) as [[HP1 HX1] HQ1].
  split; [split; auto|].
  - intros t Ht; apply (cstrs_equiv_sat _ _ _ HP'); auto.
  - intros t Ht. specialize (HQ1 t Ht). simpl.
    pose proof (pot_ge_sound (rho ps s t) _ _ Hpre) as H1. rewrite padd_val in H1. lra.
Qed.

(** ** Q:IF1, Q:IF2, Q:IF3 *)
Lemma sound_Q_IF1 : forall P D Qn Q e n C s1 s2 PT PF A',
  qexpr G P D e n C -> unif G (dunif G D) e = true ->
  cstrs_equiv PT (andc G P D e false) = true -> cstrs_equiv PF (andc G P D e true) = true ->
  valid (mkAssn PT D Q) s1 A' -> valid (mkAssn PF D Q) s2 A' ->
  pot_ge Qn (padd Q (m_if M + C)) = true ->
  valid (mkAssn P D Qn) (SIf e s1 s2) A'.
Proof.
  intros P D Qn Q e n C s1 s2 PT PF A' Hq Hu HPT HPF V1 V2 Hpre. start_valid. simpl in HP, HD.
  assert (HX : forall x, memn x (dunif G D) = true -> forall t t', In t T -> In t' T ->
         sl s x t = sl s x t') by (intros; eapply dunif_sound; eauto).
  inversion Hrun; subst;
    match goal with H : eeval _ _ _ _ _ _ _ _ |- _ => rename H into Hee end;
    pose proof (qexpr_sound _ _ _ _ _ _ _ _ _ _ _ _ Hp Hw HP HD Hn Hne Hi Hee Hq) as Hce.
  - match goal with H : seval _ _ _ _ s1 _ _ _ |- _ => rename H into Hs end.
    assert (Hpre1 : sat_assn ps (mkAssn PT D Q) s T).
    { split; simpl; auto. intros t Ht; apply (cstrs_equiv_sat _ _ _ HPT).
      apply (andc_correct F ps s e T R C1 D P t Hp Hw HD Hee Ht (HP t Ht)); auto. }
    destruct (V1 F ps s T s' C2 w Hp Hn Hne Hi Hw Hpre1 Hs) as [HA HQ1].
    split; auto. intros t Ht. specialize (HQ1 t Ht). simpl in HQ1 |- *.
    pose proof (pot_ge_sound (rho ps s t) _ _ Hpre) as H1. rewrite padd_val in H1. fold M. lra.
  - match goal with H : seval _ _ _ _ s2 _ _ _ |- _ => rename H into Hs end.
    assert (Hpre2 : sat_assn ps (mkAssn PF D Q) s T).
    { split; simpl; auto. intros t Ht; apply (cstrs_equiv_sat _ _ _ HPF).
      apply (andc_correct F ps s e T R C1 D P t Hp Hw HD Hee Ht (HP t Ht)); auto. }
    destruct (V2 F ps s T s' C2 w Hp Hn Hne Hi Hw Hpre2 Hs) as [HA HQ1].
    split; auto. intros t Ht. specialize (HQ1 t Ht). simpl in HQ1 |- *.
    pose proof (pot_ge_sound (rho ps s t) _ _ Hpre) as H1. rewrite padd_val in H1. fold M. lra.
  - (* SC_IFD: impossible, the condition is uniform *)
    exfalso.
    match goal with H : filter (fun t => is_true_v _) T <> [] |- _ =>
      destruct (nonempty_elem _ H) as [t1 Ht1] end.
    match goal with H : filter (fun t => is_false_v _) T <> [] |- _ =>
      destruct (nonempty_elem _ H) as [t2 Ht2] end.
    apply filter_In in Ht1 as [Ht1 E1]. apply filter_In in Ht2 as [Ht2 E2].
    rewrite (unif_correct F ps s e T R C1 (dunif G D) w Hu Hee Hi HX t1 t2 Ht1 Ht2) in E1.
    destruct (R t2) as [| [] |]; discriminate.
Qed.

Lemma if_decided : forall P D Qn Q e n C s1 s2 sb ws A' (neg : bool),
  qexpr G P D e n C ->
  nonempty ((if neg then snd else fst) (cond G e)) = true ->
  entails P ((if neg then snd else fst) (cond G e)) ws = true ->
  sb = (if neg then s2 else s1) ->
  valid (mkAssn P D Q) sb A' -> pot_ge Qn (padd Q (m_if M + C)) = true ->
  valid (mkAssn P D Qn) (SIf e s1 s2) A'.
Proof.
  intros P D Qn Q e n C s1 s2 sb ws A' neg Hq Hne1 Hent Hsb V Hpre. start_valid. simpl in HP, HD.
  (* every active thread decides [e] the same way *)
  assert (Hdec : forall R C1, eeval G F ps s e T R C1 ->
            forall t, In t T -> R t = VBool (negb neg)).
  { intros R C1 He t Ht. pose proof (entails_sound _ _ _ _ (HP t Ht) Hent) as Hs.
    destruct (cond_decides F ps s e T R C1 t Hp Hw He Ht) as [D1 D2].
    destruct neg; simpl in *; auto. }
  inversion Hrun; subst;
    match goal with H : eeval _ _ _ _ _ _ _ _ |- _ => rename H into Hee end;
    pose proof (qexpr_sound _ _ _ _ _ _ _ _ _ _ _ _ Hp Hw HP HD Hn Hne Hi Hee Hq) as Hce;
    pose proof (Hdec _ _ Hee) as HR.
  - destruct neg.
    + exfalso. destruct (nonempty_elem _ Hne) as [t Ht].
      match goal with H : forall t, In t T -> is_true_v _ = true |- _ => specialize (H t Ht) end.
      rewrite HR in *; auto; discriminate.
    + match goal with H : seval _ _ _ _ s1 _ _ _ |- _ => rename H into Hs end.
      destruct (V F ps s T s' C2 w Hp Hn Hne Hi Hw (conj HP HD) Hs) as [HA HQ1].
      split; auto. intros t Ht. specialize (HQ1 t Ht). simpl in HQ1 |- *.
      pose proof (pot_ge_sound (rho ps s t) _ _ Hpre) as H1. rewrite padd_val in H1. fold M. lra.
  - destruct neg.
    + match goal with H : seval _ _ _ _ s2 _ _ _ |- _ => rename H into Hs end.
      destruct (V F ps s T s' C2 w Hp Hn Hne Hi Hw (conj HP HD) Hs) as [HA HQ1].
      split; auto. intros t Ht. specialize (HQ1 t Ht). simpl in HQ1 |- *.
      pose proof (pot_ge_sound (rho ps s t) _ _ Hpre) as H1. rewrite padd_val in H1. fold M. lra.
    + exfalso. destruct (nonempty_elem _ Hne) as [t Ht].
      match goal with H : forall t, In t T -> is_false_v _ = true |- _ => specialize (H t Ht) end.
      rewrite HR in *; auto; discriminate.
  - exfalso.
    match goal with H : filter (fun t => is_true_v _) T <> [] |- _ =>
      destruct (nonempty_elem _ H) as [t1 Ht1] end.
    match goal with H : filter (fun t => is_false_v _) T <> [] |- _ =>
      destruct (nonempty_elem _ H) as [t2 Ht2] end.
    apply filter_In in Ht1 as [Ht1 E1]. apply filter_In in Ht2 as [Ht2 E2].
    rewrite (HR t1 Ht1) in E1. rewrite (HR t2 Ht2) in E2. destruct neg; discriminate.
Qed.

Lemma sound_Q_IF2 : forall P D Qn Q e n C s1 s2 ws A',
  qexpr G P D e n C -> nonempty (fst (cond G e)) = true -> entails P (fst (cond G e)) ws = true ->
  valid (mkAssn P D Q) s1 A' -> pot_ge Qn (padd Q (m_if M + C)) = true ->
  valid (mkAssn P D Qn) (SIf e s1 s2) A'.
Proof. intros. eapply (if_decided P D Qn Q e n C s1 s2 s1 ws A' false); eauto. Qed.

Lemma sound_Q_IF3 : forall P D Qn Q e n C s1 s2 ws A',
  qexpr G P D e n C -> nonempty (snd (cond G e)) = true -> entails P (snd (cond G e)) ws = true ->
  valid (mkAssn P D Q) s2 A' -> pot_ge Qn (padd Q (m_if M + C)) = true ->
  valid (mkAssn P D Qn) (SIf e s1 s2) A'.
Proof. intros. eapply (if_decided P D Qn Q e n C s1 s2 s2 ws A' true); eauto. Qed.

(** ** Q:UNROLL: a loop and its first iteration have the same runs and costs *)
Lemma sound_Q_UNROLL : forall A A' e b,
  valid A (SIf e (SSeq b (SWhile e b)) SSkip) A' -> valid A (SWhile e b) A'.
Proof.
  intros A A' e b V. start_valid.
  inversion Hrun; subst.
  - (* SC_WHILEALL = SC_IFT + SC_SEQ *)
    assert (Hr : seval G F ps s (SIf e (SSeq b (SWhile e b)) SSkip) T s' (C1 + m_if M + (C2 + C3)))
      by (eapply SC_IFT; eauto; eapply SC_SEQ; eauto).
    destruct (V F ps s T s' _ w Hp Hn Hne Hi Hw (conj HP HD) Hr) as [HA HQ].
    split; auto. intros t Ht. specialize (HQ t Ht). fold M in HQ |- *. lra.
  - (* SC_WHILESOME = SC_IFD with the else part [skip] on the exited threads *)
    assert (Hr : seval G F ps s (SIf e (SSeq b (SWhile e b)) SSkip) T s'
                   (C1 + m_if M + (C2 + C3) + 0 + m_div M)).
    { eapply SC_IFD; eauto; [eapply SC_SEQ; eauto | apply SC_SKIP]. }
    destruct (V F ps s T s' _ w Hp Hn Hne Hi Hw (conj HP HD) Hr) as [HA HQ].
    split; auto. intros t Ht. specialize (HQ t Ht). fold M in HQ |- *. lra.
  - (* SC_WHILENONE = SC_IFF + SC_SKIP *)
    assert (Hr : seval G F ps s' (SIf e (SSeq b (SWhile e b)) SSkip) T s' (C + m_if M + 0))
      by (eapply SC_IFF; eauto; apply SC_SKIP).
    destruct (V F ps s' T s' _ w Hp Hn Hne Hi Hw (conj HP HD) Hr) as [HA HQ].
    split; auto. intros t Ht. specialize (HQ t Ht). fold M in HQ |- *. lra.
Qed.


Ltac foldM := repeat match goal with H : context[c_metric G] |- _ => fold M in H end; fold M.

(** ** Q:WHILE2: a possibly divergent loop.  The invariant [I] (the body's pre potential)
    is uniform on the active threads, so when some threads leave the loop (SC_WHILESOME)
    the cost charged to the threads that stay bounds the cost for the exited threads too;
    the post potential [Q'] (≤ [I], over locals the body does not write) has the same value
    on every thread after the loop. *)
Lemma while2_loop : forall P D Q' e n C b B PB I QB' D',
  qexpr G P D e n C ->
  valid (mkAssn B D I) b (mkAssn PB D QB') ->
  cstrs_equiv B (andc G P D e false) = true -> cstrs_equiv PB P = true ->
  pot_ge QB' (padd I (m_if M + m_div M + C)) = true ->
  dcovers D D' = true -> disjoint (dvars D') (writes b) = true ->
  puni G D I = true -> puni G D' Q' = true -> pot_ge I Q' = true ->
  forall F ps s sw T s' Cr, seval G F ps s sw T s' Cr -> sw = SWhile e b ->
  forall w, pok ps -> NoDup T -> T <> [] -> incl T (lanes G w) -> wt s ->
  sat_assn ps (mkAssn P D I) s T ->
  (forall t, In t T -> sat (rho ps s' t) (andc G P D e true)) /\
  forall t, In t T -> Cr + pval (rho ps s' t) Q' <= pval (rho ps s t) I + (m_if M + m_div M + C).
Proof.
  intros P D Q' e n C b B PB I QB' D' Hq V HB HPB HQB' HcD HdD HuI HuQ HIQ
    F ps s sw T s' Cr Hrun.
  pose proof (m_nonneg M) as Hnn. destruct Hnn as (_ & _ & _ & _ & Hif & Hdiv & _).
  induction Hrun; intros Esw; inversion Esw; subst; intros w Hp Hn Hne Hi Hw [HP HD];
    simpl in HP, HD.
  - (* SC_WHILEALL *)
    pose proof (qexpr_sound _ _ _ _ _ _ _ _ _ _ _ _ Hp Hw HP HD Hn Hne Hi H Hq) as Hce.
    assert (Hpre : sat_assn ps (mkAssn B D I) s T).
    { split; simpl; auto. intros t Ht. apply (cstrs_equiv_sat _ _ _ HB).
      apply (andc_correct F ps s e T R C1 D P t Hp Hw HD H Ht (HP t Ht)); auto. }
    destruct (V F ps s T st1 C2 w Hp Hn Hne Hi Hw Hpre Hrun1) as [[HP1 HD1] HQ1].
    assert (Hs1 : sat_assn ps (mkAssn P D I) st1 T).
    { split; simpl; auto. intros t Ht; apply (cstrs_equiv_sat' _ _ _ HPB); auto. }
    destruct (IHHrun2 eq_refl w Hp Hn Hne Hi (run_wt _ _ _ _ _ _ _ Hrun1 Hw) Hs1) as [Hpost HQ2].
    split; auto. intros t Ht. specialize (HQ1 t Ht); specialize (HQ2 t Ht). simpl in HQ1.
    pose proof (pot_ge_sound (rho ps st1 t) _ _ HQB') as H1. rewrite padd_val in H1.
    foldM. lra.
  - (* SC_WHILESOME *)
    pose proof (qexpr_sound _ _ _ _ _ _ _ _ _ _ _ _ Hp Hw HP HD Hn Hne Hi H Hq) as Hce.
    set (TT := filter (fun t => is_true_v (R t)) T) in *.
    assert (HTT : forall t, In t TT <-> In t T /\ is_true_v (R t) = true) by
      (intros; unfold TT; apply filter_In).
    assert (HnT : NoDup TT) by (apply NoDup_filter; auto).
    assert (HiT : incl TT (lanes G w)) by (eapply incl_tran; [apply incl_filter|]; auto).
    assert (Hpre : sat_assn ps (mkAssn B D I) s TT).
    { split; simpl.
      - intros t Ht. apply HTT in Ht as [Ht Hr]. apply (cstrs_equiv_sat _ _ _ HB).
        apply (andc_correct F ps s e T R C1 D P t Hp Hw HD H Ht (HP t Ht)); auto.
      - eapply dsat_sub; [apply incl_filter | exact HD]. }
    destruct (V F ps s TT st1 C2 w Hp HnT H1 HiT Hw Hpre Hrun1) as [[HP1 HD1] HQ1].
    assert (Hs1 : sat_assn ps (mkAssn P D I) st1 TT).
    { split; simpl; auto. intros t Ht; apply (cstrs_equiv_sat' _ _ _ HPB); auto. }
    destruct (IHHrun2 eq_refl w Hp HnT H1 HiT (run_wt _ _ _ _ _ _ _ Hrun1 Hw) Hs1) as [Hpost HQ2].
    (* the post map holds on all threads after the loop *)
    assert (HF : forall x t, ~ In x (writes b) -> sl st2 x t = sl s x t).
    { intros x t Hx. rewrite (frame_writes _ _ _ _ _ _ _ Hrun2 x) by auto.
      apply (frame_writes _ _ _ _ _ _ _ Hrun1 x); auto. }
    assert (HD' : dsat ps st2 T D') by (eapply dsat_frame; eauto).
    destruct (nonempty_elem _ H1) as [tT HtT].
    assert (HtT' : In tT T) by (apply HTT in HtT; tauto).
    assert (Hiter : C2 + C3 + pval (rho ps st2 tT) Q' <= pval (rho ps s tT) I).
    { specialize (HQ1 tT HtT); specialize (HQ2 tT HtT). simpl in HQ1.
      pose proof (pot_ge_sound (rho ps st1 tT) _ _ HQB') as H3. rewrite padd_val in H3.
      foldM. lra. }
    split.
    + intros t Ht. specialize (H0 t Ht). destruct (R t) as [| [] |] eqn:Er; try discriminate.
      * apply Hpost, HTT. rewrite Er; auto.
      * assert (HtT2 : ~ In t TT) by
          (intros Hin; apply HTT in Hin as [_ Hin]; rewrite Er in Hin; discriminate).
        apply (sat_ext (rho ps s t)).
        -- intros v. symmetry. apply rho_frame. intros x.
           rewrite (frame_threads _ _ _ _ _ _ _ Hrun2 x t HtT2).
           apply (frame_threads _ _ _ _ _ _ _ Hrun1 x t HtT2).
        -- apply (andc_correct F ps s e T R C1 D P t Hp Hw HD H Ht (HP t Ht)). rewrite Er; auto.
    + intros t Ht.
      rewrite (puni_sound ps st2 T D' Q' HD' HuQ t tT) by auto.
      rewrite (puni_sound ps s T D I HD HuI t tT) by auto.
      foldM. lra.
  - (* SC_WHILENONE *)
    pose proof (qexpr_sound _ _ _ _ _ _ _ _ _ _ _ _ Hp Hw HP HD Hn Hne Hi H Hq) as Hce.
    split.
    + intros t Ht. apply (andc_correct F ps s e T R C0 D P t Hp Hw HD H Ht (HP t Ht)); auto.
    + intros t Ht. pose proof (pot_ge_sound (rho ps s t) _ _ HIQ). foldM. lra.
Qed.

Lemma sound_Q_WHILE2 : forall P D Qn Q' e n C b B PB I QB' P' D',
  qexpr G P D e n C ->
  valid (mkAssn B D I) b (mkAssn PB D QB') ->
  cstrs_equiv B (andc G P D e false) = true -> cstrs_equiv PB P = true ->
  pot_ge QB' (padd I (m_if M + m_div M + C)) = true ->
  pot_ge Qn (padd I (m_if M + m_div M + C)) = true ->
  cstrs_equiv P' (andc G P D e true) = true ->
  dcovers D D' = true -> disjoint (dvars D') (writes b) = true ->
  puni G D I = true -> puni G D' Q' = true -> pot_ge I Q' = true ->
  valid (mkAssn P D Qn) (SWhile e b) (mkAssn P' D' Q').
Proof.
  intros P D Qn Q' e n C b B PB I QB' P' D' Hq V HB HPB HQB' Hpre HP' HcD HdD HuI HuQ HIQ.
  start_valid.
  destruct (while2_loop P D Q' e n C b B PB I QB' D' Hq V HB HPB HQB' HcD HdD HuI HuQ HIQ
              F ps s _ T s' Crun Hrun eq_refl w Hp Hn Hne Hi Hw (conj HP HD)) as [Hpost HC].
  split; [split|].
  - intros t Ht; apply (cstrs_equiv_sat _ _ _ HP'); auto.
  - eapply dsat_frame; eauto. intros x t Hx. apply (frame_writes _ _ _ _ _ _ _ Hrun); auto.
  - intros t Ht. simpl. specialize (HC t Ht).
    pose proof (pot_ge_sound (rho ps s t) _ _ Hpre) as H1. rewrite padd_val in H1. lra.
Qed.
(** ** Q:WHILELAST: the test splits the warp at most once (spec/logic.md §4).  After a
    split test, every thread still running is within the lane spread [w] of one that left,
    so it satisfies [−L + 1 − w ≤ 0]; the last-round body [B'] then ends with every thread
    failing [e], and the loop stops at the next test (SC_WHILENONE). *)
Lemma lanes_warp_pos : forall w t, In t (lanes G w) -> (0 < c_warp G)%nat.
Proof.
  intros w t H. unfold lanes in H. apply filter_In in H as [H _]. apply in_seq in H. lia.
Qed.

Lemma kvalz_lane : forall k t, kvalz k (lane_t G t) = kval G k t.
Proof.
  intros [[kx ky] kz] t. unfold kvalz, lane_t, kval. cbv zeta. rewrite !ztid_tid. reflexivity.
Qed.

Lemma spread_ok_sound : forall k sw w0 a b, spread_ok (wtids G) k sw = true ->
  In a (lanes G w0) -> In b (lanes G w0) -> (kval G k a - kval G k b <= sw)%Z.
Proof.
  intros k sw w0 a b H Ha Hb.
  pose proof (lanes_warp_pos _ _ Ha) as HW.
  pose proof (in_wtids w0 (lanes_nwarps w0 a HW Ha)) as Hin.
  unfold spread_ok in H. rewrite forallb_forall in H. specialize (H _ Hin).
  rewrite forallb_forall in H. specialize (H (lane_t G a) (in_map _ _ _ Ha)).
  rewrite forallb_forall in H. specialize (H (lane_t G b) (in_map _ _ _ Hb)).
  apply Z.leb_le in H. rewrite !kvalz_lane in H. exact H.
Qed.

Lemma last_window_sound : forall ps s T D L k sw w0 t f,
  dsat ps s T D -> lin_k G D L = Some k -> spread_ok (wtids G) k sw = true ->
  incl T (lanes G w0) -> In t T -> In f T ->
  (1 <= leval (rho ps s f) L)%Z -> holds (rho ps s t) (last_window L sw).
Proof.
  intros ps s T D L k sw w0 t f HD Hk Hs Hi Ht Hf HL.
  unfold lin_k in Hk.
  destruct (lin_k_terms ps s T D (lterms L) k HD Hk) as [B HB].
  pose proof (spread_ok_sound k sw w0 f t Hs (Hi f Hf) (Hi t Ht)) as Hsp.
  unfold last_window, holds, lplus. rewrite ladd_eval, lscale_eval, leval_const.
  unfold leval in *. rewrite (HB f Hf) in HL. rewrite (HB t Ht). lia.
Qed.

(** A thread failing [e] with [cond(e) = [L ≤ 0]] has [L ≥ 1]. *)
Lemma cond_fail_ge1 : forall F ps s e T R C t L, pok ps -> wt s ->
  eeval G F ps s e T R C -> In t T -> fst (cond G e) = [CLe L] ->
  is_false_v (R t) = true -> (1 <= leval (rho ps s t) L)%Z.
Proof.
  intros F ps s e T R C t L Hp Hw He Ht HL Hf.
  destruct (Z_le_gt_dec 1 (leval (rho ps s t) L)) as [H|H]; [exact H|].
  destruct (cond_decides F ps s e T R C t Hp Hw He Ht) as [Hd _].
  assert (Hs : sat (rho ps s t) (fst (cond G e))) by (rewrite HL; intros c [<-|[]]; simpl; lia).
  assert (Hn : nonempty (fst (cond G e)) = true) by (rewrite HL; reflexivity).
  rewrite (Hd Hn Hs) in Hf. discriminate.
Qed.

(** [cond(e) = [L ≤ 0]]: [e] is an inequality, which has no lane facts. *)
Lemma lane_le_nil : forall D e L neg, fst (cond G e) = [CLe L] -> lane G D e neg = [].
Proof.
  intros D [o|op a b|op a|A i] L neg H; simpl in H; try discriminate; simpl.
  destruct (lin_opd G a), (lin_opd G b); try discriminate;
    destruct op; simpl in H; try discriminate; destruct neg; reflexivity.
Qed.

(** The loop after the last round: every thread fails [e], so it stops (SC_WHILENONE). *)
Lemma while_none_after : forall F ps s e b T s' Cr P D n C, pok ps -> wt s ->
  seval G F ps s (SWhile e b) T s' Cr -> T <> [] -> NoDup T -> forall w, incl T (lanes G w) ->
  nonempty (snd (cond G e)) = true -> qexpr G P D e n C ->
  (forall t, In t T -> sat (rho ps s t) (P ++ snd (cond G e))) -> dsat ps s T D ->
  s' = s /\ Cr <= C + m_if M.
Proof.
  intros F ps s e b T s' Cr P D n C Hp Hw Hrun Hne Hn w Hi Hnz Hq HP HD.
  assert (Hf : forall R C1 t, eeval G F ps s e T R C1 -> In t T -> R t = VBool false).
  { intros R C1 t He Ht. destruct (cond_decides F ps s e T R C1 t Hp Hw He Ht) as [_ Hd].
    apply Hd; auto. intros c Hc. apply HP; auto. apply in_or_app; right; auto. }
  assert (HPt : forall t, In t T -> sat (rho ps s t) P).
  { intros t Ht c Hc. apply HP; auto. apply in_or_app; left; auto. }
  destruct (nonempty_elem _ Hne) as [t0 Ht0].
  inversion Hrun; subst.
  - match goal with H : forall t, In t T -> is_true_v (R t) = true |- _ =>
      specialize (H t0 Ht0) as Ht end.
    match goal with H : eeval _ _ _ _ e T R _ |- _ => rewrite (Hf _ _ t0 H Ht0) in Ht end.
    discriminate.
  - match goal with H : filter (fun t => is_true_v (R t)) T <> [] |- _ =>
      destruct (nonempty_elem _ H) as [t1 Ht1] end.
    apply filter_In in Ht1 as [Ht1 Htr].
    match goal with H : eeval _ _ _ _ e T R _ |- _ => rewrite (Hf _ _ t1 H Ht1) in Htr end.
    discriminate.
  - split; auto.
    match goal with H : eeval _ _ _ _ e T R _ |- _ =>
      pose proof (qexpr_sound _ _ _ _ _ _ _ _ _ _ _ _ Hp Hw HPt HD Hn Hne Hi H Hq) end.
    foldM. lra.
Qed.

(** [whilelast_loop] with the one-time divergence charge [K] (spec/logic.md §4): [K ≥ 0],
    [K ≥ M^div] on the active threads of a warp that the test splits, and [K] unchanged by a
    run of the body on each thread. Q:WHILELAST is [K = M^div]; Q:WHILELASTALIGN is
    [K = M^div·[m ∤ s − X]] ([sound_Q_WHILELASTALIGN]). *)
Lemma whilelast_loop : forall (K : (var -> Z) -> Q) P D Q' e n C b B PB BL PN I QB' QL' D' L k sw wl,
  qexpr G P D e n C ->
  fst (cond G e) = [CLe L] -> nonempty (snd (cond G e)) = true ->
  lin_k G D L = Some k -> spread_ok (wtids G) k sw = true ->
  valid (mkAssn B D I) b (mkAssn PB D QB') ->
  valid (mkAssn BL D I) b (mkAssn PN D QL') ->
  cstrs_equiv B (andc G P D e false) = true -> cstrs_equiv PB P = true ->
  cstrs_equiv BL (andc G P D e false ++ [last_window L sw]) = true ->
  entails PN (P ++ snd (cond G e)) wl = true ->
  pot_ge QB' (padd I (m_if M + C)) = true ->
  pot_ge QL' (padd I (m_if M + C)) = true ->
  dcovers D D' = true -> disjoint (dvars D') (writes b) = true ->
  puni G D I = true -> puni G D' Q' = true -> pot_ge I Q' = true ->
  (forall r, 0 <= K r) ->
  (forall F ps s T R C1 w t1 t2, pok ps -> wt s -> dsat ps s T D -> incl T (lanes G w) ->
     eeval G F ps s e T R C1 -> In t1 T -> In t2 T ->
     is_true_v (R t1) = true -> is_false_v (R t2) = true ->
     forall t, In t T -> m_div M <= K (rho ps s t)) ->
  (forall ps s s' t, (forall x, ~ In x (writes b) -> sl s' x t = sl s x t) ->
     K (rho ps s' t) == K (rho ps s t)) ->
  forall F ps s sw' T s' Cr, seval G F ps s sw' T s' Cr -> sw' = SWhile e b ->
  forall w, pok ps -> NoDup T -> T <> [] -> incl T (lanes G w) -> wt s ->
  sat_assn ps (mkAssn P D I) s T ->
  (forall t, In t T -> sat (rho ps s' t) (andc G P D e true)) /\
  forall t, In t T -> Cr + pval (rho ps s' t) Q' <= pval (rho ps s t) I + (m_if M + K (rho ps s t) + C).
Proof.
  intros K P D Q' e n C b B PB BL PN I QB' QL' D' L k sw wl Hq HL Hnz Hk Hs V VL HB HPB HBL HPN
    HQB' HQL' HcD HdD HuI HuQ HIQ HK0 HKsplit HKframe F ps s sw' T s' Cr Hrun.
  pose proof (m_nonneg M) as Hnn. destruct Hnn as (_ & _ & _ & _ & Hif & Hdiv & _).
  induction Hrun; intros Esw; inversion Esw; subst; intros w Hp Hn Hne Hi Hw [HP HD];
    simpl in HP, HD.
  - (* SC_WHILEALL *)
    pose proof (qexpr_sound _ _ _ _ _ _ _ _ _ _ _ _ Hp Hw HP HD Hn Hne Hi H Hq) as Hce.
    assert (Hpre : sat_assn ps (mkAssn B D I) s T).
    { split; simpl; auto. intros t Ht. apply (cstrs_equiv_sat _ _ _ HB).
      apply (andc_correct F ps s e T R C1 D P t Hp Hw HD H Ht (HP t Ht)); auto. }
    destruct (V F ps s T st1 C2 w Hp Hn Hne Hi Hw Hpre Hrun1) as [[HP1 HD1] HQ1].
    assert (Hs1 : sat_assn ps (mkAssn P D I) st1 T).
    { split; simpl; auto. intros t Ht; apply (cstrs_equiv_sat' _ _ _ HPB); auto. }
    destruct (IHHrun2 eq_refl w Hp Hn Hne Hi (run_wt _ _ _ _ _ _ _ Hrun1 Hw) Hs1) as [Hpost HQ2].
    split; auto. intros t Ht. specialize (HQ1 t Ht); specialize (HQ2 t Ht). simpl in HQ1.
    pose proof (pot_ge_sound (rho ps st1 t) _ _ HQB') as H1. rewrite padd_val in H1.
    (* the charge keeps its value along the run (the body leaves its variables alone) *)
    pose proof (HKframe ps s st1 t (fun x Hx => frame_writes _ _ _ _ _ _ _ Hrun1 x t Hx)) as HKe.
    foldM. lra.
  - (* SC_WHILESOME: the last round *)
    pose proof (qexpr_sound _ _ _ _ _ _ _ _ _ _ _ _ Hp Hw HP HD Hn Hne Hi H Hq) as Hce.
    set (TT := filter (fun t => is_true_v (R t)) T) in *.
    assert (HTT : forall t, In t TT <-> In t T /\ is_true_v (R t) = true) by
      (intros; unfold TT; apply filter_In).
    assert (HnT : NoDup TT) by (apply NoDup_filter; auto).
    assert (HiT : incl TT (lanes G w)) by (eapply incl_tran; [apply incl_filter|]; auto).
    destruct (nonempty_elem _ H2) as [f Hf]. apply filter_In in Hf as [HfT Hff].
    pose proof (cond_fail_ge1 F ps s e T R C1 f L Hp Hw H HfT HL Hff) as HLf.
    assert (Hpre : sat_assn ps (mkAssn BL D I) s TT).
    { split; simpl.
      - intros t Ht. apply HTT in Ht as [Ht Hr]. apply (cstrs_equiv_sat _ _ _ HBL).
        intros c Hc. apply in_app_or in Hc as [Hc|[<-|[]]].
        + exact (proj1 (andc_correct F ps s e T R C1 D P t Hp Hw HD H Ht (HP t Ht)) Hr c Hc).
        + apply (last_window_sound ps s T D L k sw w t f HD Hk Hs Hi Ht HfT HLf).
      - eapply dsat_sub; [apply incl_filter | exact HD]. }
    destruct (VL F ps s TT st1 C2 w Hp HnT H1 HiT Hw Hpre Hrun1) as [[HP1 HD1] HQ1].
    simpl in HP1, HD1.
    assert (HPN1 : forall t, In t TT -> sat (rho ps st1 t) (P ++ snd (cond G e))) by
      (intros t Ht; eapply entails_sound; eauto).
    destruct (while_none_after F ps st1 e b TT st2 C3 P D n C Hp (run_wt _ _ _ _ _ _ _ Hrun1 Hw)
                Hrun2 H1 HnT w HiT Hnz Hq HPN1 HD1) as [Est HC3]. subst st2.
    (* the post map holds on all threads after the loop *)
    assert (HF : forall x t, ~ In x (writes b) -> sl st1 x t = sl s x t) by
      (intros x t Hx; apply (frame_writes _ _ _ _ _ _ _ Hrun1 x); auto).
    assert (HD' : dsat ps st1 T D') by (eapply dsat_frame; eauto).
    destruct (nonempty_elem _ H1) as [tT HtT].
    assert (HtT' : In tT T) by (apply HTT in HtT; tauto).
    assert (Hiter : C2 + C3 + pval (rho ps st1 tT) Q' <= pval (rho ps s tT) I).
    { specialize (HQ1 tT HtT). simpl in HQ1.
      pose proof (pot_ge_sound (rho ps st1 tT) _ _ HQL') as H3. rewrite padd_val in H3.
      pose proof (pot_ge_sound (rho ps st1 tT) _ _ HIQ) as H4.
      foldM. lra. }
    split.
    + intros t Ht. specialize (H0 t Ht). destruct (R t) as [| [] |] eqn:Er; try discriminate.
      * assert (HtT2 : In t TT) by (apply HTT; rewrite Er; auto).
        unfold andc. rewrite (lane_le_nil D e L true HL), app_nil_r. apply HPN1; auto.
      * assert (HtT2 : ~ In t TT) by
          (intros Hin; apply HTT in Hin as [_ Hin]; rewrite Er in Hin; discriminate).
        apply (sat_ext (rho ps s t)).
        -- intros v. symmetry. apply rho_frame. intros x.
           apply (frame_threads _ _ _ _ _ _ _ Hrun1 x t HtT2).
        -- apply (andc_correct F ps s e T R C1 D P t Hp Hw HD H Ht (HP t Ht)). rewrite Er; auto.
    + intros t Ht.
      (* the split pays: [K ≥ M^div] on the threads of the split warp *)
      assert (HtTr : is_true_v (R tT) = true) by (apply HTT in HtT; tauto).
      pose proof (HKsplit F ps s T R C1 w tT f Hp Hw HD Hi H HtT' HfT HtTr Hff t Ht) as HKs.
      rewrite (puni_sound ps st1 T D' Q' HD' HuQ t tT) by auto.
      rewrite (puni_sound ps s T D I HD HuI t tT) by auto.
      foldM. lra.
  - (* SC_WHILENONE *)
    pose proof (qexpr_sound _ _ _ _ _ _ _ _ _ _ _ _ Hp Hw HP HD Hn Hne Hi H Hq) as Hce.
    split.
    + intros t Ht. apply (andc_correct F ps s e T R C0 D P t Hp Hw HD H Ht (HP t Ht)); auto.
    + intros t Ht. pose proof (pot_ge_sound (rho ps s t) _ _ HIQ). pose proof (HK0 (rho ps s t)).
      foldM. lra.
Qed.

(** ** Q:WHILEWARP *)
Lemma lin_off_terms : forall ps s T D l k r g, dsat ps s T D ->
  fold_right (fun av acc =>
    match acc with
    | None => None
    | Some ka =>
        match snd av with
        | VP _ => Some ka
        | VT d => Some (tadd ka (tscale (fst av) (tid_k d)))
        | VL x => match c_lty G x, dget D x with
                  | Some TInt, Some (DLin _ k _ _) => Some (tadd ka (tscale (fst av) k))
                  | _, _ => None
                  end
        end
    end) (Some (0, 0, 0)%Z) l = Some k ->
  fold_right (off_step G D) (Some (0, 0)%Z) l = Some (r, g) ->
  exists B, Z.divide g (B - r) /\ forall t, In t T -> tsum (rho ps s t) l = (B + kval G k t)%Z.
Proof.
  intros ps s T D l; induction l as [|[a v] l IH]; intros k r g HD H Ho.
  - simpl in H, Ho. injection Ho as <- <-. inversion H; subst. exists 0%Z. split; [exists 0%Z; lia|].
    intros t _. unfold kval. simpl. lia.
  - cbn [fold_right] in H, Ho.
    destruct (fold_right (off_step G D) (Some (0, 0)%Z) l) as [[r0 g0]|] eqn:Eo;
      [|unfold off_step in Ho; discriminate].
    match type of H with context [fold_right ?f ?z l] =>
      destruct (fold_right f z l) as [ka|] eqn:El; [|discriminate] end.
    destruct (IH ka r0 g0 HD eq_refl eq_refl) as [B [HdB HB]].
    unfold off_step in Ho.
    destruct v as [x|p|d]; simpl in H, Ho.
    + destruct (c_lty G x) as [[]|] eqn:Ex; try discriminate.
      destruct (dget D x) as [[y k' r' g'| | | |]|] eqn:Ed; try discriminate.
      injection Ho as <- <-. inversion H; subst. destruct (dget_In _ _ _ Ed) as [Hin Hy]; simpl in Hy; subst y.
      specialize (HD _ Hin). simpl in HD. rewrite Ex in HD. destruct HD as [c [Hc HD]].
      exists (a * c + B)%Z. split.
      * replace (a * c + B - (r0 + a * r'))%Z with (a * (c - r') + (B - r0))%Z by ring.
        apply Z.divide_add_r.
        -- apply Z.divide_trans with (a * g')%Z; [apply Z.gcd_divide_r|].
           apply Z.mul_divide_mono_l. exact Hc.
        -- apply Z.divide_trans with g0; [apply Z.gcd_divide_l | exact HdB].
      * intros t Ht. simpl. rewrite HD, HB by auto. rewrite kval_tadd, kval_tscale. lia.
    + injection Ho as <- <-. inversion H; subst. exists (a * int_of (ps p) + B)%Z. split.
      * replace (a * int_of (ps p) + B - r0)%Z with (a * int_of (ps p) + (B - r0))%Z by ring.
        apply Z.divide_add_r.
        -- apply Z.divide_trans with a; [apply Z.gcd_divide_r | apply Z.divide_factor_l].
        -- apply Z.divide_trans with g0; [apply Z.gcd_divide_l | exact HdB].
      * intros t Ht. simpl. rewrite HB by auto. lia.
    + injection Ho as <- <-. inversion H; subst. exists B. split; auto. intros t Ht. simpl.
      rewrite HB by auto. rewrite kval_tadd, kval_tscale, kval_tid. lia.
Qed.

Lemma nosplit_pair_sound : forall r g ka kb c, Z.divide g (c - r) ->
  (ka + c <= 0)%Z -> (1 <= kb + c)%Z -> nosplit_pair r g ka kb = false.
Proof.
  intros r g ka kb c Hd H1 H2. unfold nosplit_pair. apply Z.divide_abs_l in Hd.
  destruct (Z.ltb_spec (- ka) (1 - kb)) as [Hl|Hl]; [lia|].
  destruct (Z.eqb_spec (Z.abs g) 0) as [E|E].
  - rewrite E in Hd. destruct Hd as [q Hq]. assert (c = r) by lia. subst c.
    apply negb_false_iff. apply andb_true_iff. split; apply Z.leb_le; lia.
  - apply Z.ltb_ge. pose proof (Z.abs_nonneg g) as Hg.
    destruct Hd as [q Hq].
    replace (r - (1 - kb))%Z with ((c - (1 - kb)) + (- q) * Z.abs g)%Z by lia.
    rewrite Z.mod_add by lia.
    pose proof (Z.mod_le (c - (1 - kb)) (Z.abs g) ltac:(lia) ltac:(lia)). lia.
Qed.

Lemma nosplit_ok_sound : forall k r g w0 a b, nosplit_ok (wtids G) k r g = true ->
  In a (lanes G w0) -> In b (lanes G w0) -> nosplit_pair r g (kval G k a) (kval G k b) = true.
Proof.
  intros k r g w0 a b H Ha Hb.
  pose proof (lanes_warp_pos _ _ Ha) as HW.
  pose proof (in_wtids w0 (lanes_nwarps w0 a HW Ha)) as Hin.
  unfold nosplit_ok in H. rewrite forallb_forall in H. specialize (H _ Hin).
  rewrite forallb_forall in H. specialize (H (lane_t G a) (in_map _ _ _ Ha)).
  rewrite forallb_forall in H. specialize (H (lane_t G b) (in_map _ _ _ Hb)).
  rewrite !kvalz_lane in H. exact H.
Qed.

(** A thread passing [e] with [cond(e) = [L ≤ 0]] has [L ≤ 0]. *)
Lemma cond_pass_le0 : forall F ps s e T R C t L, pok ps -> wt s ->
  eeval G F ps s e T R C -> In t T -> fst (cond G e) = [CLe L] ->
  is_true_v (R t) = true -> (leval (rho ps s t) L <= 0)%Z.
Proof.
  intros F ps s e T R C t L Hp Hw He Ht HL Htr.
  destruct (Z_le_gt_dec (leval (rho ps s t) L) 0) as [H|H]; [exact H|].
  destruct (cond_decides F ps s e T R C t Hp Hw He Ht) as [_ Hd].
  assert (Hs : nonempty (snd (cond G e)) = true /\ sat (rho ps s t) (snd (cond G e))).
  { destruct e as [o|op a b|op a|A i]; simpl in HL |- *; try discriminate.
    destruct (lin_opd G a) as [La|], (lin_opd G b) as [Lb|]; try discriminate.
    unfold lsub, lplus in *.
    destruct op; simpl in HL; try discriminate; injection HL as <-.
    all: (split; [reflexivity|]); intros c [<-|[]]; cbn [holds] in *.
    all: repeat first [rewrite ladd_eval in * | rewrite lscale_eval in * | rewrite leval_const in *].
    all: lia. }
  destruct Hs as [Hn Hs]. rewrite (Hd Hn Hs) in Htr. discriminate.
Qed.

Lemma nosplit_sound : forall D e L k r g, fst (cond G e) = [CLe L] ->
  lin_k G D L = Some k -> lin_off G D L = Some (r, g) -> nosplit_ok (wtids G) k r g = true ->
  nosplit_at D e.
Proof.
  intros D e L k r g HL Hk Ho Hok F ps s T R C1 w t1 t2 Hp Hw HD Hi He Ht1 Ht2 E1 E2.
  pose proof (cond_pass_le0 F ps s e T R C1 t1 L Hp Hw He Ht1 HL E1) as H1.
  pose proof (cond_fail_ge1 F ps s e T R C1 t2 L Hp Hw He Ht2 HL E2) as H2.
  unfold lin_off in Ho. unfold lin_k in Hk.
  destruct (fold_right (off_step G D) (Some (0, 0)%Z) (lterms L)) as [[r0 g0]|] eqn:Eo;
    [|discriminate].
  injection Ho as <- <-.
  destruct (lin_off_terms ps s T D (lterms L) k r0 g0 HD Hk Eo) as [B [HdB HB]].
  pose proof (nosplit_ok_sound k (lcst L + r0) g0 w t1 t2 Hok (Hi t1 Ht1) (Hi t2 Ht2)) as Hns.
  unfold leval in H1, H2. rewrite (HB t1 Ht1) in H1. rewrite (HB t2 Ht2) in H2.
  rewrite (nosplit_pair_sound (lcst L + r0) g0 (kval G k t1) (kval G k t2) (lcst L + B)) in Hns.
  - discriminate.
  - replace (lcst L + B - (lcst L + r0))%Z with (B - r0)%Z by ring. exact HdB.
  - lia.
  - lia.
Qed.

Lemma sound_Q_WHILEWARP : forall P D Qn Q' e n C b B PB I QB' P' D' L k r g,
  qexpr G P D e n C ->
  fst (cond G e) = [CLe L] -> nonempty (snd (cond G e)) = true ->
  lin_k G D L = Some k -> lin_off G D L = Some (r, g) -> nosplit_ok (wtids G) k r g = true ->
  valid (mkAssn B D I) b (mkAssn PB D QB') ->
  cstrs_equiv B (andc G P D e false) = true -> cstrs_equiv PB P = true ->
  pot_ge QB' (padd I (m_if M + C)) = true ->
  pot_ge Qn (padd I (m_if M + C)) = true ->
  cstrs_equiv P' (andc G P D e true) = true ->
  dcovers D D' = true -> pot_ge I Q' = true ->
  valid (mkAssn P D Qn) (SWhile e b) (mkAssn P' D' Q').
Proof.
  intros P D Qn Q' e n C b B PB I QB' P' D' L k r g Hq HL Hnz Hk Ho Hok V HB HPB HQB' Hpre HP'
    HcD HIQ.
  start_valid.
  destruct (while1_loop P D I e n C b B PB I QB' Hq (nosplit_sound D e L k r g HL Hk Ho Hok)
              V HB HPB (fun r => Qle_refl _) HQB' F ps s _ T s' Crun Hrun eq_refl w Hp Hn Hne Hi Hw (conj HP HD))
    as [[HP1 HD1] HQ1].
  split; [split|].
  - intros t Ht; apply (cstrs_equiv_sat _ _ _ HP'); auto.
  - eapply dcovers_sound; eauto.
  - intros t Ht. specialize (HQ1 t Ht). simpl.
    pose proof (pot_ge_sound (rho ps s t) _ _ Hpre) as H1. rewrite padd_val in H1.
    pose proof (pot_ge_sound (rho ps s' t) _ _ HIQ) as H2. lra.
Qed.

(** ** Q:IFALIGN (spec/logic.md §4) *)
Lemma paddm_val : forall rho Q1 c m, pval rho (paddm Q1 c m) == pval rho Q1 + c * mval rho m.
Proof. intros rho [c0 l] c m; unfold pval, paddm; cbn [pcst pterms psum fold_right fst snd]. ring. Qed.

Lemma charge_nonneg : forall rho X r m, 0 <= m_div M * mval rho [res_atom X r m].
Proof.
  intros rho X r m. pose proof (m_nonneg M) as Hnn. destruct Hnn as (_ & _ & _ & _ & _ & Hdiv & _).
  cbn [mval fold_right]. pose proof (atom_nonneg rho (res_atom X r m)).
  apply Qmult_le_0_compat; [exact Hdiv|]. rewrite Qmult_1_r. assumption.
Qed.

Lemma tsum_neg : forall rho l,
  tsum rho (map (fun av => (- fst av, snd av))%Z l) = (- tsum rho l)%Z.
Proof. intros rho l; induction l as [|[a v] l IH]; simpl; lia. Qed.

(** The local class (spec/logic.md §4, Q:IFALIGN): [L = K·tid + X + c'] on every active
    thread, [c' ≡ ρ (mod G)], [X] one value on all of them. *)
Lemma lin_loc_terms : forall ps s T D l k xs r g, dsat ps s T D ->
  fold_right (fun av acc =>
    match acc with
    | None => None
    | Some ka =>
        match snd av with
        | VP _ => Some ka
        | VT d => Some (tadd ka (tscale (fst av) (tid_k d)))
        | VL x => match c_lty G x, dget D x with
                  | Some TInt, Some (DLin _ k _ _) => Some (tadd ka (tscale (fst av) k))
                  | _, _ => None
                  end
        end
    end) (Some (0, 0, 0)%Z) l = Some k ->
  fold_right (loc_step G D) (Some ([], 0, 0)%Z) l = Some (xs, r, g) ->
  exists B, Z.divide g (B - r) /\
    (forall t, In t T -> tsum (rho ps s t) l = (B + tsum (rho ps s t) xs + kval G k t)%Z) /\
    (forall t t', In t T -> In t' T -> tsum (rho ps s t) xs = tsum (rho ps s t') xs).
Proof.
  intros ps s T D l; induction l as [|[a v] l IH]; intros k xs r g HD H Ho.
  - simpl in H, Ho. injection Ho as <- <- <-. inversion H; subst. exists 0%Z.
    split; [exists 0%Z; lia|]. split; [intros t _; unfold kval; simpl; lia|intros; reflexivity].
  - cbn [fold_right] in H, Ho.
    destruct (fold_right (loc_step G D) (Some ([], 0, 0)%Z) l) as [[[xs0 r0] g0]|] eqn:Eo;
      [|unfold loc_step in Ho; discriminate].
    match type of H with context [fold_right ?f ?z l] =>
      destruct (fold_right f z l) as [ka|] eqn:El; [|discriminate] end.
    destruct (IH ka xs0 r0 g0 HD eq_refl eq_refl) as [B [HdB [HB HU]]].
    unfold loc_step in Ho.
    destruct v as [x|p|d]; simpl in H, Ho.
    + destruct (c_lty G x) as [[]|] eqn:Ex; try discriminate.
      destruct (dget D x) as [[y k' r' g'| | | |]|] eqn:Ed; try discriminate.
      inversion H; subst. destruct (dget_In _ _ _ Ed) as [Hin Hy]; simpl in Hy; subst y.
      specialize (HD _ Hin). simpl in HD. rewrite Ex in HD. destruct HD as [c [Hc HD]].
      destruct (kzero k') eqn:Ek.
      * injection Ho as <- <- <-.
        unfold kzero, trip_eqb in Ek. destruct (trip_eq_dec k' (0, 0, 0)%Z) as [E|E];
          [subst k'|discriminate].
        assert (K0 : forall t, kval G (0, 0, 0)%Z t = 0%Z) by (intros; unfold kval; lia).
        exists B. split; [exact HdB|]. split.
        -- intros t Ht. rewrite kval_tadd, kval_tscale, K0. simpl. rewrite HB by auto. lia.
        -- intros t t' Ht Ht'. simpl. rewrite (HU t t' Ht Ht'), (HD t Ht), (HD t' Ht'), !K0. lia.
      * injection Ho as <- <- <-. exists (a * c + B)%Z. split.
        -- replace (a * c + B - (r0 + a * r'))%Z with (a * (c - r') + (B - r0))%Z by ring.
           apply Z.divide_add_r.
           ++ apply Z.divide_trans with (a * g')%Z; [apply Z.gcd_divide_r|].
              apply Z.mul_divide_mono_l. exact Hc.
           ++ apply Z.divide_trans with g0; [apply Z.gcd_divide_l | exact HdB].
        -- split; [|exact HU]. intros t Ht. simpl. rewrite HD, HB by auto.
           rewrite kval_tadd, kval_tscale. lia.
    + injection Ho as <- <- <-. inversion H; subst. exists B. split; [exact HdB|]. split.
      * intros t Ht. simpl. rewrite HB by auto. lia.
      * intros t t' Ht Ht'. simpl. rewrite (HU t t' Ht Ht'). reflexivity.
    + injection Ho as <- <- <-. inversion H; subst. exists B. split; [exact HdB|]. split; [|exact HU].
      intros t Ht. simpl. rewrite HB by auto. rewrite kval_tadd, kval_tscale, kval_tid. lia.
Qed.

(** When the warp splits on [e] (a lane passes, one fails), the charge atom is 1: else
    [m | s − X] puts the offset [c] of [L] in the class [(s, m)], which the window check
    excludes (spec/logic.md §4, Q:IFALIGN's soundness). *)
Lemma res_split : forall F ps s e T R C1 w t1 t2 L k X g r m D, pok ps -> wt s -> dsat ps s T D ->
  incl T (lanes G w) -> eeval G F ps s e T R C1 -> In t1 T -> In t2 T ->
  is_true_v (R t1) = true -> is_false_v (R t2) = true ->
  fst (cond G e) = [CLe L] -> lin_k G D L = Some k -> lin_loc G D L = Some (X, g) ->
  (g mod Zpos m =? 0)%Z = true -> nosplit_ok (wtids G) k r (Zpos m) = true ->
  forall t, In t T -> atom (rho ps s t) (res_atom X r m) = 1.
Proof.
  intros F ps s e T R C1 w t1 t2 L k X g r m D Hp Hw HD Hi He Ht1 Ht2 E1 E2 HL Hk Hlo Hgm Hok t Ht.
  pose proof (cond_pass_le0 F ps s e T R C1 t1 L Hp Hw He Ht1 HL E1) as H1.
  pose proof (cond_fail_ge1 F ps s e T R C1 t2 L Hp Hw He Ht2 HL E2) as H2.
  unfold lin_loc in Hlo. unfold lin_k in Hk.
  destruct (fold_right (loc_step G D) (Some ([], 0, 0)%Z) (lterms L)) as [[[xs r0] g0]|] eqn:Eo;
    [|discriminate].
  injection Hlo as <- <-.
  destruct (lin_loc_terms ps s T D (lterms L) k xs r0 g0 HD Hk Eo) as [B [HdB [HB HU]]].
  unfold leval in H1, H2. rewrite (HB t1 Ht1) in H1. rewrite (HB t2 Ht2) in H2.
  rewrite (HU t2 t1 Ht2 Ht1) in H2.
  apply Z.eqb_eq in Hgm. apply Z.mod_divide in Hgm; [|lia].
  unfold atom, res_atom; cbn [alin adiv akd akval].
  unfold leval; cbn [lcst lterms]. rewrite tsum_neg. rewrite (HU t t1 Ht Ht1).
  destruct (Z.eqb_spec ((r - (lcst L + r0) + - tsum (rho ps s t1) xs) mod Zpos m) 0) as [E|E];
    [|reflexivity].
  exfalso. apply Z.mod_divide in E; [|lia].
  pose proof (nosplit_ok_sound k r (Zpos m) w t1 t2 Hok (Hi t1 Ht1) (Hi t2 Ht2)) as Hns.
  rewrite (nosplit_pair_sound r (Zpos m) (kval G k t1) (kval G k t2)
             (lcst L + B + tsum (rho ps s t1) xs)) in Hns.
  - discriminate.
  - replace (lcst L + B + tsum (rho ps s t1) xs - r)%Z
      with ((B - r0) - (r - (lcst L + r0) + - tsum (rho ps s t1) xs))%Z by ring.
    apply Z.divide_sub_r; [apply Z.divide_trans with g0; [exact Hgm|exact HdB]|exact E].
  - lia.
  - lia.
Qed.

(** ** Q:IFALIGN (spec/logic.md §4): [sound_if_charged] with the charge
    [M^div·[m ∤ s − X]], [≥ 0] when one branch runs and [M^div] when the warp splits
    ([res_split]). *)
Lemma sound_Q_IFALIGN : forall P D Qn Q e n C s1 s2 PT P1 D1 Q1 PF DF P2 D2 Q2 P' D' wec wet wjt wje
  L k X g r m,
  qexpr G P D e n C -> cstrs_equiv PT (andc G P D e false) = true ->
  valid (mkAssn PT D Q) s1 (mkAssn P1 D1 Q1) ->
  valid (mkAssn PF DF Q1) s2 (mkAssn P2 D2 Q2) ->
  entails (andc G P D e true) PF wec = true -> entails P1 (filter is_lin PF) wet = true ->
  entails P1 P' wjt = true -> entails P2 P' wje = true ->
  dcovers D DF = true -> disjoint (dvars DF) (writes s1) = true ->
  dcovers D D' = true -> disjoint (dvars D') (writes s1 ++ writes s2) = true ->
  puni G D Q = true -> puni G DF Q1 = true -> puni G D' Q2 = true ->
  pot_ge Q Q1 = true -> pot_ge Q1 Q2 = true ->
  fst (cond G e) = [CLe L] -> lin_k G D L = Some k -> lin_loc G D L = Some (X, g) ->
  (g mod Zpos m =? 0)%Z = true -> nosplit_ok (wtids G) k r (Zpos m) = true ->
  pot_ge Qn (padd (paddm Q (m_div M) [res_atom X r m]) (m_if M + C)) = true ->
  valid (mkAssn P D Qn) (SIf e s1 s2) (mkAssn P' D' Q2).
Proof.
  intros P D Qn Q e n C s1 s2 PT P1 D1 Q1 PF DF P2 D2 Q2 P' D' wec wet wjt wje L k X g r m
    Hq HPT V1 V2 Hec Het Hjt Hje HcF HdF HcX HdX HuQ HuQ1 HuQ2 HQQ1 HQ1Q2 HL Hk Hlo Hgm Hok Hpre.
  pose proof (m_nonneg M) as Hnn. destruct Hnn as (_ & _ & _ & _ & _ & Hdiv & _).
  apply (sound_if_charged (fun rh => m_div M * mval rh [res_atom X r m])
           P D Qn Q e n C s1 s2 PT P1 D1 Q1 PF DF P2 D2 Q2 P' D' wec wet wjt wje); auto.
  - intros rh. pose proof (pot_ge_sound rh _ _ Hpre) as H1. rewrite padd_val, paddm_val in H1.
    lra.
  - intros rh. apply charge_nonneg.
  - intros F ps s T R C1 w t1 t2 Hp Hw HD Hi Hee Ht1 Ht2 Hr1 Hr2 t Ht.
    assert (Hr : mval (rho ps s t) [res_atom X r m] == 1).
    { cbn [mval fold_right]. rewrite (res_split F ps s e T R C1 w t1 t2 L k X g r m D
        Hp Hw HD Hi Hee Ht1 Ht2 Hr1 Hr2 HL Hk Hlo Hgm Hok t Ht). reflexivity. }
    rewrite Hr. lra.
Qed.


Lemma sound_Q_WHILELAST : forall P D Qn Q' e n C b B PB BL PN I QB' QL' P' D' L k sw wl,
  cstrs_equiv B (andc G P D e false) = true ->
  cstrs_equiv BL (andc G P D e false ++ [last_window L sw]) = true ->
  valid (mkAssn B D I) b (mkAssn PB D QB') ->
  valid (mkAssn BL D I) b (mkAssn PN D QL') ->
  qexpr G P D e n C ->
  fst (cond G e) = [CLe L] -> nonempty (snd (cond G e)) = true ->
  lin_k G D L = Some k -> spread_ok (wtids G) k sw = true ->
  cstrs_equiv PB P = true ->
  entails PN (P ++ snd (cond G e)) wl = true ->
  pot_ge QB' (padd I (m_if M + C)) = true ->
  pot_ge QL' (padd I (m_if M + C)) = true ->
  pot_ge Qn (padd I (m_if M + m_div M + C)) = true ->
  cstrs_equiv P' (andc G P D e true) = true ->
  dcovers D D' = true -> disjoint (dvars D') (writes b) = true ->
  puni G D I = true -> puni G D' Q' = true -> pot_ge I Q' = true ->
  valid (mkAssn P D Qn) (SWhile e b) (mkAssn P' D' Q').
Proof.
  intros P D Qn Q' e n C b B PB BL PN I QB' QL' P' D' L k sw wl HB HBL V VL Hq HL Hnz Hk Hs HPB
    HPN HQB' HQL' Hpre HP' HcD HdD HuI HuQ HIQ.
  pose proof (m_nonneg M) as Hnn. destruct Hnn as (_ & _ & _ & _ & _ & Hdiv & _).
  start_valid.
  destruct (whilelast_loop (fun _ => m_div M) P D Q' e n C b B PB BL PN I QB' QL' D' L k sw wl
              Hq HL Hnz Hk Hs V VL HB HPB HBL HPN HQB' HQL' HcD HdD HuI HuQ HIQ
              (fun _ => Hdiv) ltac:(intros; apply Qle_refl) ltac:(intros; apply Qeq_refl)
              F ps s _ T s' Crun Hrun eq_refl w Hp Hn Hne Hi Hw (conj HP HD)) as [Hpost HC].
  split; [split|].
  - intros t Ht; apply (cstrs_equiv_sat _ _ _ HP'); auto.
  - eapply dsat_frame; eauto. intros x t Hx. apply (frame_writes _ _ _ _ _ _ _ Hrun); auto.
  - intros t Ht. simpl. specialize (HC t Ht). cbv beta in HC.
    pose proof (pot_ge_sound (rho ps s t) _ _ Hpre) as H1. rewrite padd_val in H1. lra.
Qed.

(** ** Q:WHILELASTALIGN (spec/logic.md §4): [whilelast_loop] with the charge
    [M^div·[m ∤ s − X]]: [≥ 0], [M^div] when the warp splits ([res_split], with the loop's
    [D] at every test), and unchanged by the body, which writes no local of [X]. *)
Lemma res_atom_frame : forall ps s s' t X r m W,
  disjoint (lin_locals X) W = true ->
  (forall x, ~ In x W -> sl s' x t = sl s x t) ->
  mval (rho ps s' t) [res_atom X r m] = mval (rho ps s t) [res_atom X r m].
Proof.
  intros ps s s' t X r m W Hd Hf. apply mval_ext.
  intros A a v HA Hv. destruct HA as [<-|[]].
  unfold avars, aforms, res_atom in Hv; cbn [flat_map alin akd lterms app] in Hv.
  rewrite app_nil_r in Hv. apply in_map_iff in Hv as [[a' v'] [Ev Hv']]. cbn [fst snd] in Ev. injection Ev as _ <-.
  destruct v' as [x|p|d]; cbn; auto.
  rewrite Hf; auto. intros Hx.
  unfold disjoint in Hd. rewrite forallb_forall in Hd.
  assert (Hl : In x (lin_locals X)).
  { unfold lin_locals. apply in_flat_map. exists (a', VL x). split; [exact Hv'|left; reflexivity]. }
  specialize (Hd x Hl). apply negb_true_iff in Hd. rewrite (proj2 (memn_In x W) Hx) in Hd.
  discriminate.
Qed.

Lemma sound_Q_WHILELASTALIGN : forall P D Qn Q' e n C b B PB BL PN I QB' QL' P' D' L k sw wl X g r m,
  cstrs_equiv B (andc G P D e false) = true ->
  cstrs_equiv BL (andc G P D e false ++ [last_window L sw]) = true ->
  valid (mkAssn B D I) b (mkAssn PB D QB') ->
  valid (mkAssn BL D I) b (mkAssn PN D QL') ->
  qexpr G P D e n C ->
  fst (cond G e) = [CLe L] -> nonempty (snd (cond G e)) = true ->
  lin_k G D L = Some k -> spread_ok (wtids G) k sw = true ->
  cstrs_equiv PB P = true ->
  entails PN (P ++ snd (cond G e)) wl = true ->
  pot_ge QB' (padd I (m_if M + C)) = true ->
  pot_ge QL' (padd I (m_if M + C)) = true ->
  lin_loc G D L = Some (X, g) ->
  (g mod Zpos m =? 0)%Z = true -> nosplit_ok (wtids G) k r (Zpos m) = true ->
  disjoint (lin_locals X) (writes b) = true ->
  pot_ge Qn (padd (paddm I (m_div M) [res_atom X r m]) (m_if M + C)) = true ->
  cstrs_equiv P' (andc G P D e true) = true ->
  dcovers D D' = true -> disjoint (dvars D') (writes b) = true ->
  puni G D I = true -> puni G D' Q' = true -> pot_ge I Q' = true ->
  valid (mkAssn P D Qn) (SWhile e b) (mkAssn P' D' Q').
Proof.
  intros P D Qn Q' e n C b B PB BL PN I QB' QL' P' D' L k sw wl X g r m HB HBL V VL Hq HL Hnz Hk
    Hs HPB HPN HQB' HQL' Hlo Hgm Hok HdX Hpre HP' HcD HdD HuI HuQ HIQ.
  pose proof (m_nonneg M) as Hnn. destruct Hnn as (_ & _ & _ & _ & _ & Hdiv & _).
  start_valid.
  assert (HK0 : forall rh, 0 <= m_div M * mval rh [res_atom X r m]) by (intros; apply charge_nonneg).
  assert (HKs : forall F ps s T R C1 w t1 t2, pok ps -> wt s -> dsat ps s T D -> incl T (lanes G w) ->
     eeval G F ps s e T R C1 -> In t1 T -> In t2 T ->
     is_true_v (R t1) = true -> is_false_v (R t2) = true ->
     forall t, In t T -> m_div M <= m_div M * mval (rho ps s t) [res_atom X r m]).
  { intros F0 ps0 s0 T0 R C1 w0 t1 t2 Hp0 Hw0 HD0 Hi0 Hee Ht1 Ht2 Hr1 Hr2 t Ht.
    assert (Hr : mval (rho ps0 s0 t) [res_atom X r m] == 1).
    { cbn [mval fold_right]. rewrite (res_split F0 ps0 s0 e T0 R C1 w0 t1 t2 L k X g r m D
        Hp0 Hw0 HD0 Hi0 Hee Ht1 Ht2 Hr1 Hr2 HL Hk Hlo Hgm Hok t Ht). reflexivity. }
    rewrite Hr. lra. }
  assert (HKf : forall ps0 s0 s1 t, (forall x, ~ In x (writes b) -> sl s1 x t = sl s0 x t) ->
     m_div M * mval (rho ps0 s1 t) [res_atom X r m] == m_div M * mval (rho ps0 s0 t) [res_atom X r m]).
  { intros ps0 s0 s1 t Hf. rewrite (res_atom_frame ps0 s0 s1 t X r m (writes b) HdX Hf).
    reflexivity. }
  destruct (whilelast_loop (fun rh => m_div M * mval rh [res_atom X r m])
              P D Q' e n C b B PB BL PN I QB' QL' D' L k sw wl
              Hq HL Hnz Hk Hs V VL HB HPB HBL HPN HQB' HQL' HcD HdD HuI HuQ HIQ HK0 HKs HKf
              F ps s _ T s' Crun Hrun eq_refl w Hp Hn Hne Hi Hw (conj HP HD)) as [Hpost HC].
  split; [split|].
  - intros t Ht; apply (cstrs_equiv_sat _ _ _ HP'); auto.
  - eapply dsat_frame; eauto. intros x t Hx. apply (frame_writes _ _ _ _ _ _ _ Hrun); auto.
  - intros t Ht. simpl. specialize (HC t Ht). cbv beta in HC.
    pose proof (pot_ge_sound (rho ps s t) _ _ Hpre) as H1. rewrite padd_val, paddm_val in H1.
    lra.
Qed.

(** ** Q:WHILELASTWINDOW (spec/logic.md §4, issue 15): [whilelast_loop] with the charge
    [M^div·[(b − X) mod m < b − a + 1]]: [≥ 0]; [M^div] when the warp splits ([win_split]:
    the offset [c ≡ X (mod m)] of [L] lies in the hull [[a, b]] ([hull_ok]), so
    [(b − X) mod m = (b − c) mod m ≤ b − c ≤ b − a]); unchanged by the body, which writes no
    local of [X] ([win_atom_frame]). *)
Lemma hull_ok_sound : forall k a b w0 x y, hull_ok (wtids G) k a b = true ->
  In x (lanes G w0) -> In y (lanes G w0) -> hull_pair a b (kval G k x) (kval G k y) = true.
Proof.
  intros k a b w0 x y H Hx Hy.
  pose proof (lanes_warp_pos _ _ Hx) as HW.
  pose proof (in_wtids w0 (lanes_nwarps w0 x HW Hx)) as Hin.
  unfold hull_ok in H. rewrite forallb_forall in H. specialize (H _ Hin).
  rewrite forallb_forall in H. specialize (H (lane_t G x) (in_map _ _ _ Hx)).
  rewrite forallb_forall in H. specialize (H (lane_t G y) (in_map _ _ _ Hy)).
  rewrite !kvalz_lane in H. exact H.
Qed.

(** The window atom's arithmetic: [c ≡ v (mod m)], [a ≤ c ≤ b] give
    [(b − v) mod m < b − a + 1]. *)
Lemma win_hit : forall a b c v m, (0 < m)%Z -> Z.divide m (c - v) -> (a <= c <= b)%Z ->
  ((b - v) mod m < b - a + 1)%Z.
Proof.
  intros a b c v m Hm [q Hq] Hc.
  replace (b - v)%Z with ((b - c) + q * m)%Z by lia.
  rewrite Z.mod_add by lia.
  pose proof (Z.mod_le (b - c) m ltac:(lia) Hm). lia.
Qed.

Lemma win_split : forall F ps s e T R C1 w t1 t2 L k X g a b m D, pok ps -> wt s -> dsat ps s T D ->
  incl T (lanes G w) -> eeval G F ps s e T R C1 -> In t1 T -> In t2 T ->
  is_true_v (R t1) = true -> is_false_v (R t2) = true ->
  fst (cond G e) = [CLe L] -> lin_k G D L = Some k -> lin_loc G D L = Some (X, g) ->
  (g mod Zpos m =? 0)%Z = true -> hull_ok (wtids G) k a b = true ->
  forall t, In t T -> atom (rho ps s t) (win_atom X b m (b - a + 1)) = 1.
Proof.
  intros F ps s e T R C1 w t1 t2 L k X g a b m D Hp Hw HD Hi He Ht1 Ht2 E1 E2 HL Hk Hlo Hgm Hok t Ht.
  pose proof (cond_pass_le0 F ps s e T R C1 t1 L Hp Hw He Ht1 HL E1) as H1.
  pose proof (cond_fail_ge1 F ps s e T R C1 t2 L Hp Hw He Ht2 HL E2) as H2.
  unfold lin_loc in Hlo. unfold lin_k in Hk.
  destruct (fold_right (loc_step G D) (Some ([], 0, 0)%Z) (lterms L)) as [[[xs r0] g0]|] eqn:Eo;
    [|discriminate].
  injection Hlo as <- <-.
  destruct (lin_loc_terms ps s T D (lterms L) k xs r0 g0 HD Hk Eo) as [B [HdB [HB HU]]].
  unfold leval in H1, H2. rewrite (HB t1 Ht1) in H1. rewrite (HB t2 Ht2) in H2.
  rewrite (HU t2 t1 Ht2 Ht1) in H2.
  apply Z.eqb_eq in Hgm. apply Z.mod_divide in Hgm; [|lia].
  pose proof (hull_ok_sound k a b w t1 t2 Hok (Hi t1 Ht1) (Hi t2 Ht2)) as Hh.
  unfold hull_pair in Hh.
  set (c := (lcst L + B + tsum (rho ps s t1) xs)%Z).
  assert (Hc : (a <= c <= b)%Z).
  { unfold c. destruct (Z.ltb_spec (- kval G k t1) (1 - kval G k t2)) as [Hl|Hl]; [lia|].
    cbn [orb] in Hh. apply andb_true_iff in Hh as [Ha Hb].
    apply Z.leb_le in Ha. apply Z.leb_le in Hb. lia. }
  unfold atom, win_atom; cbn [alin adiv akd akval].
  unfold leval; cbn [lcst lterms]. rewrite tsum_neg. rewrite (HU t t1 Ht Ht1).
  replace (b - (lcst L + r0) + - tsum (rho ps s t1) xs)%Z
    with (b - (lcst L + r0 + tsum (rho ps s t1) xs))%Z by ring.
  rewrite (proj2 (Z.ltb_lt _ _)); [reflexivity|].
  apply (win_hit a b c); [lia| |exact Hc].
  replace (c - (lcst L + r0 + tsum (rho ps s t1) xs))%Z with (B - r0)%Z by (unfold c; ring).
  apply Z.divide_trans with g0; [exact Hgm|exact HdB].
Qed.

Lemma win_atom_frame : forall ps s s' t X b m w W,
  disjoint (lin_locals X) W = true ->
  (forall x, ~ In x W -> sl s' x t = sl s x t) ->
  mval (rho ps s' t) [win_atom X b m w] = mval (rho ps s t) [win_atom X b m w].
Proof.
  intros ps s s' t X b m w W Hd Hf. apply mval_ext.
  intros A a v HA Hv. destruct HA as [<-|[]].
  unfold avars, aforms, win_atom in Hv; cbn [flat_map alin akd lterms app] in Hv.
  rewrite app_nil_r in Hv. apply in_map_iff in Hv as [[a' v'] [Ev Hv']]. cbn [fst snd] in Ev. injection Ev as _ <-.
  destruct v' as [x|p|d]; cbn; auto.
  rewrite Hf; auto. intros Hx.
  unfold disjoint in Hd. rewrite forallb_forall in Hd.
  assert (Hl : In x (lin_locals X)).
  { unfold lin_locals. apply in_flat_map. exists (a', VL x). split; [exact Hv'|left; reflexivity]. }
  specialize (Hd x Hl). apply negb_true_iff in Hd. rewrite (proj2 (memn_In x W) Hx) in Hd.
  discriminate.
Qed.

Lemma sound_Q_WHILELASTWINDOW : forall P D Qn Q' e n C b0 B PB BL PN I QB' QL' P' D' L k sw wl
  X g a b m,
  cstrs_equiv B (andc G P D e false) = true ->
  cstrs_equiv BL (andc G P D e false ++ [last_window L sw]) = true ->
  valid (mkAssn B D I) b0 (mkAssn PB D QB') ->
  valid (mkAssn BL D I) b0 (mkAssn PN D QL') ->
  qexpr G P D e n C ->
  fst (cond G e) = [CLe L] -> nonempty (snd (cond G e)) = true ->
  lin_k G D L = Some k -> spread_ok (wtids G) k sw = true ->
  cstrs_equiv PB P = true ->
  entails PN (P ++ snd (cond G e)) wl = true ->
  pot_ge QB' (padd I (m_if M + C)) = true ->
  pot_ge QL' (padd I (m_if M + C)) = true ->
  lin_loc G D L = Some (X, g) ->
  (g mod Zpos m =? 0)%Z = true -> hull_ok (wtids G) k a b = true ->
  disjoint (lin_locals X) (writes b0) = true ->
  pot_ge Qn (padd (paddm I (m_div M) [win_atom X b m (b - a + 1)]) (m_if M + C)) = true ->
  cstrs_equiv P' (andc G P D e true) = true ->
  dcovers D D' = true -> disjoint (dvars D') (writes b0) = true ->
  puni G D I = true -> puni G D' Q' = true -> pot_ge I Q' = true ->
  valid (mkAssn P D Qn) (SWhile e b0) (mkAssn P' D' Q').
Proof.
  intros P D Qn Q' e n C b0 B PB BL PN I QB' QL' P' D' L k sw wl X g a b m HB HBL V VL Hq HL Hnz
    Hk Hs HPB HPN HQB' HQL' Hlo Hgm Hok HdX Hpre HP' HcD HdD HuI HuQ HIQ.
  pose proof (m_nonneg M) as Hnn. destruct Hnn as (_ & _ & _ & _ & _ & Hdiv & _).
  set (W := win_atom X b m (b - a + 1)) in *.
  start_valid.
  assert (HK0 : forall rh, 0 <= m_div M * mval rh [W]).
  { intros rh. apply Qmult_le_0_compat; [exact Hdiv|apply mval_nonneg]. }
  assert (HKs : forall F ps s T R C1 w t1 t2, pok ps -> wt s -> dsat ps s T D -> incl T (lanes G w) ->
     eeval G F ps s e T R C1 -> In t1 T -> In t2 T ->
     is_true_v (R t1) = true -> is_false_v (R t2) = true ->
     forall t, In t T -> m_div M <= m_div M * mval (rho ps s t) [W]).
  { intros F0 ps0 s0 T0 R C1 w0 t1 t2 Hp0 Hw0 HD0 Hi0 Hee Ht1 Ht2 Hr1 Hr2 t Ht.
    assert (Hr : mval (rho ps0 s0 t) [W] == 1).
    { cbn [mval fold_right]. unfold W. rewrite (win_split F0 ps0 s0 e T0 R C1 w0 t1 t2 L k X g a b m D
        Hp0 Hw0 HD0 Hi0 Hee Ht1 Ht2 Hr1 Hr2 HL Hk Hlo Hgm Hok t Ht). reflexivity. }
    rewrite Hr. lra. }
  assert (HKf : forall ps0 s0 s1 t, (forall x, ~ In x (writes b0) -> sl s1 x t = sl s0 x t) ->
     m_div M * mval (rho ps0 s1 t) [W] == m_div M * mval (rho ps0 s0 t) [W]).
  { intros ps0 s0 s1 t Hf. unfold W.
    rewrite (win_atom_frame ps0 s0 s1 t X b m (b - a + 1) (writes b0) HdX Hf). reflexivity. }
  destruct (whilelast_loop (fun rh => m_div M * mval rh [W])
              P D Q' e n C b0 B PB BL PN I QB' QL' D' L k sw wl
              Hq HL Hnz Hk Hs V VL HB HPB HBL HPN HQB' HQL' HcD HdD HuI HuQ HIQ HK0 HKs HKf
              F ps s _ T s' Crun Hrun eq_refl w Hp Hn Hne Hi Hw (conj HP HD)) as [Hpost HC].
  split; [split|].
  - intros t Ht; apply (cstrs_equiv_sat _ _ _ HP'); auto.
  - eapply dsat_frame; eauto. intros x t Hx. apply (frame_writes _ _ _ _ _ _ _ Hrun); auto.
  - intros t Ht. simpl. specialize (HC t Ht). cbv beta in HC.
    pose proof (pot_ge_sound (rho ps s t) _ _ Hpre) as H1. rewrite padd_val, paddm_val in H1.
    lra.
Qed.

(** ** Q:WEAK and atom rewrites *)
Lemma psum_cons : forall r x l, psum r (x :: l) = fst x * mval r (snd x) + psum r l.
Proof. reflexivity. Qed.

Lemma atom_shift : forall r L d, (0 <= d <= leval r L)%Z ->
  atom r (am (lplus L (- d))) + inject_Z d == atom r (am L).
Proof.
  intros r L d H. rewrite !atom_am. unfold latom, lplus. rewrite ladd_eval, leval_const.
  rewrite !Z.max_r by lia. rewrite <- inject_Z_plus. replace (leval r L + - d + d)%Z with (leval r L) by lia.
  reflexivity.
Qed.

Lemma atom_split : forall r L D, (0 <= leval r D)%Z -> (leval r D <= leval r L)%Z ->
  atom r (am (lsub L D)) + atom r (am D) == atom r (am L).
Proof.
  intros r L D H0 H1. rewrite !atom_am. unfold latom, lsub. rewrite ladd_eval, lscale_eval.
  rewrite !Z.max_r by lia. rewrite <- inject_Z_plus.
  replace (leval r L + -1 * leval r D + leval r D)%Z with (leval r L) by lia.
  reflexivity.
Qed.

Lemma atom_zero : forall r L, (leval r L <= 0)%Z -> atom r (am L) == 0.
Proof. intros r L H. rewrite atom_am. unfold latom. rewrite Z.max_l by lia. reflexivity. Qed.

Lemma atom_eq : forall r A A', anorm A' = anorm A -> atom r A' = atom r A.
Proof. intros r A A' E. rewrite <- (atom_lnorm r A'), E, atom_lnorm; auto. Qed.

Lemma map_mul_sum : forall r c m l2,
  psum r (map (fun b => (c * fst b, m ++ snd b)) l2) == c * mval r m * psum r l2.
Proof.
  intros r c m l2; induction l2 as [|[d m'] l2 IH2]; simpl; [ring|]. rewrite IH2, mval_app. ring.
Qed.

Lemma mmul_sum : forall r l1 l2, psum r (mmul l1 l2) == psum r l1 * psum r l2.
Proof.
  intros r l1 l2; induction l1 as [|[c m] l1 IH]; [reflexivity|].
  change (mmul ((c, m) :: l1) l2) with
    (map (fun b => (c * fst b, m ++ snd b)) l2 ++ mmul l1 l2).
  rewrite psum_app, IH, map_mul_sum, psum_cons. cbn [fst snd]. ring.
Qed.

Lemma rw_mono_sum : forall r La rhs cm,
  (forall A, In A (snd cm) -> anorm A = La -> atom r A == psum r rhs) ->
  psum r (rw_mono La rhs cm) == fst cm * mval r (snd cm).
Proof.
  intros r La rhs [c m] H; unfold rw_mono; cbn [fst snd] in *.
  induction m as [|A m IH]; [cbn; ring|].
  cbn [fold_right]. set (acc := fold_right _ _ m) in *.
  assert (Hacc : psum r acc == c * mval r m) by (apply IH; intros A0 H1 H2; apply H; [right|]; assumption).
  destruct (atm_eq_dec (anorm A) La) as [E|E].
  - rewrite mmul_sum, Hacc, <- (H A (or_introl eq_refl) E).
    change (mval r (A :: m)) with (atom r A * mval r m). ring.
  - rewrite mmul_sum, Hacc. change (mval r (A :: m)) with (atom r A * mval r m).
    change (psum r [(1, [A])]) with (1 * (atom r A * 1) + 0). ring.
Qed.

Lemma pdiv_sum : forall r f l,
  psum r (map (fun cm => (fst cm / f, snd cm)) l) == psum r l * / f.
Proof. intros r f l; induction l as [|[c m] l IH]; simpl; [ring|]. rewrite IH. unfold Qdiv. ring. Qed.

(** The log rewrites' atom equations ([Log.lhalve_sound], [Log.ldouble_sound]). *)
Lemma atom_lhalve : forall r L s, (2 * Zpos s <= leval r L)%Z ->
  atom r (mkAtmK L s KLog) == 1 + atom r (mkAtmK L (xO s) KLog).
Proof.
  intros r L s H. unfold atom; cbn [alin adiv akd akval].
  pose proof (Log.lhalve_sound (leval r L) (Zpos s) ltac:(lia) H) as E. unfold Log.latom in E.
  rewrite Pos2Z.inj_xO, E, inject_Z_plus. reflexivity.
Qed.

Lemma atom_ldouble : forall r L s Mf, (1 <= leval r Mf)%Z ->
  (2 * Zpos s * leval r Mf <= leval r L)%Z ->
  atom r (mkAtmK L s (KLogQ Mf)) == 1 + atom r (mkAtmK L s (KLogQ (lscale 2 Mf))).
Proof.
  intros r L s Mf H1 H2. unfold atom; cbn [alin adiv akd akval]. rewrite lscale_eval.
  assert (Hl : (2 * leval r Mf <= leval r L / Zpos s)%Z)
    by (apply Z.div_le_lower_bound; lia).
  pose proof (Log.ldouble_sound (leval r L / Zpos s) (leval r Mf) H1 Hl) as E.
  unfold Log.qlatom in E. rewrite E, inject_Z_plus. reflexivity.
Qed.

Lemma rw_rhs_sum : forall r P rw0, sat r P -> rw_ok P rw0 = true -> is_mono rw0 = false ->
  psum r (rw_rhs rw0) == atom r (rw_lhs rw0).
Proof.
  intros r P rw0 HP H Hm. pose proof (irw_sound r P rw0 HP H) as Hi.
  pose proof (srw_sound r P rw0 HP H) as Hs.
  destruct rw0 as [L d w|L w|L1 L2 w|L D w0 w|q A d cg|q A cg|q A1 A2 cg|L s w|L s Mf w1 w2
                  |L Dv k cg|L Dv cg|L1 L2 Dv cg];
    simpl in H |- *; try discriminate.
  - apply andb_true_iff in H as [Hd H]. apply Z.leb_le in Hd.
    pose proof (farkas_sound _ _ _ _ HP H) as Hf. cbn [holds] in Hf.
    unfold lsub in Hf. rewrite ladd_eval, lscale_eval, leval_const in Hf.
    rewrite <- (atom_shift r L d) by lia. ring.
  - pose proof (farkas_sound _ _ _ _ HP H) as Hf. cbn [holds] in Hf.
    rewrite (atom_zero r L Hf). reflexivity.
  - apply andb_true_iff in H as [H0 H].
    pose proof (farkas_sound _ _ _ _ HP H0) as Hf0. cbn [holds] in Hf0.
    pose proof (farkas_sound _ _ _ _ HP H) as Hf. cbn [holds] in Hf.
    rewrite lscale_eval in Hf0. unfold lsub in Hf. rewrite ladd_eval, lscale_eval in Hf.
    rewrite <- (atom_split r L D) by lia. ring.
  - destruct Hi as [Hi0 Hi1]. rewrite <- (atom_ishift r A d Hi0 Hi1). ring.
  - rewrite (atom_izero r A Hi). reflexivity.
  - pose proof (farkas_sound _ _ _ _ HP H) as Hf. cbn [holds] in Hf.
    unfold lsub in Hf. rewrite ladd_eval, lscale_eval, leval_const in Hf.
    rewrite (atom_lhalve r L s) by lia. ring.
  - apply andb_true_iff in H as [H1 H2].
    pose proof (farkas_sound _ _ _ _ HP H1) as Hf1. cbn [holds] in Hf1.
    pose proof (farkas_sound _ _ _ _ HP H2) as Hf2. cbn [holds] in Hf2.
    unfold lsub in Hf1, Hf2. rewrite ladd_eval, lscale_eval, leval_const in Hf1.
    rewrite ladd_eval, !lscale_eval in Hf2.
    rewrite (atom_ldouble r L s Mf) by nia. ring.
  - destruct Hs as [Hk [HD HL]]. rewrite (atom_sshift r L Dv k Hk HD HL). ring.
  - rewrite (atom_szero r L Dv Hs). reflexivity.
Qed.

Lemma rw_apply_sound : forall r P rw0 Q1, sat r P -> rw_ok P rw0 = true -> is_mono rw0 = false ->
  pval r (rw_apply rw0 Q1) == pval r Q1.
Proof.
  intros r P rw0 [c l] HP H Hm. unfold rw_apply.
  pose proof (acanon_val r (rw_lhs rw0)) as Hc.
  destruct (acanon (rw_lhs rw0)) as [f [|L' [|L'' m]]] eqn:Ea; try reflexivity.
  pose proof (acanon_one _ _ _ Ea) as Hf. simpl in Hc.
  unfold pval; cbn [pcst pterms]. apply Qplus_inj_l.
  induction l as [|cm l IH]; [reflexivity|].
  change (flat_map ?f (cm :: l)) with (f cm ++ flat_map f l).
  rewrite psum_app, IH, rw_mono_sum; [rewrite psum_cons; reflexivity|].
  intros A _ E. rewrite pdiv_sum, (rw_rhs_sum r P rw0 HP H Hm), Hc, (atom_eq r L' A E).
  field. intros Hz. rewrite Hz in Hf. discriminate.
Qed.

(** A [mono] rewrite: replacing an atom by a smaller one in a polynomial whose terms have
    non-negative coefficients does not increase it. *)
Lemma rw_mono_le : forall r La rhs cm, 0 <= fst cm -> 0 <= psum r rhs ->
  (forall A, In A (snd cm) -> anorm A = La -> psum r rhs <= atom r A) ->
  0 <= psum r (rw_mono La rhs cm) /\ psum r (rw_mono La rhs cm) <= fst cm * mval r (snd cm).
Proof.
  intros r La rhs [c m] Hc Hr H; unfold rw_mono; cbn [fst snd] in *.
  induction m as [|A m IH]; [cbn; split; lra|].
  cbn [fold_right]. set (acc := fold_right _ _ m) in *.
  destruct IH as [Ha1 Ha2]; [intros A0 H1 H2; apply H; [right|]; assumption|].
  change (mval r (A :: m)) with (atom r A * mval r m).
  pose proof (atom_nonneg r A) as HA0.
  destruct (atm_eq_dec (anorm A) La) as [E|E]; rewrite mmul_sum.
  - pose proof (H A (or_introl eq_refl) E) as HA. split; [apply Qmult_le_0_compat; auto|].
    apply Qle_trans with (atom r A * psum r acc); [apply Qmult_le_compat_r; auto|].
    setoid_replace (c * (atom r A * mval r m)) with ((c * mval r m) * atom r A) by ring.
    rewrite Qmult_comm. apply Qmult_le_compat_r; auto.
  - change (psum r [(1, [A])]) with (1 * (atom r A * 1) + 0).
    setoid_replace ((1 * (atom r A * 1) + 0) * psum r acc) with (psum r acc * atom r A) by ring.
    split; [apply Qmult_le_0_compat; auto|].
    setoid_replace (c * (atom r A * mval r m)) with ((c * mval r m) * atom r A) by ring.
    apply Qmult_le_compat_r; auto.
Qed.

Lemma atom_le : forall r L1 L2, (leval r L2 <= leval r L1)%Z -> atom r (am L2) <= atom r (am L1).
Proof. intros r L1 L2 H. rewrite !atom_am. unfold latom. rewrite <- Zle_Qle. lia. Qed.

(** A [mono] or [imono] rewrite replaces its atom by one smaller atom. *)
Lemma rw_mono_rhs : forall r P rw0, sat r P -> rw_ok P rw0 = true -> is_mono rw0 = true ->
  exists A2, rw_rhs rw0 = [(1, [A2])] /\ atom r A2 <= atom r (rw_lhs rw0).
Proof.
  intros r P rw0 HP H Hm. pose proof (irw_sound r P rw0 HP H) as Hi.
  pose proof (srw_sound r P rw0 HP H) as Hs.
  destruct rw0 as [| |L1 L2 w| | | |q A1 A2 cg| | | | |L1 L2 Dv cg]; try discriminate; simpl in H |- *.
  - exists (am L2). split; [reflexivity|].
    pose proof (farkas_sound _ _ _ _ HP H) as Hf. cbn [holds] in Hf.
    unfold lsub in Hf. rewrite ladd_eval, lscale_eval in Hf. apply atom_le; lia.
  - exists (aflr A2). split; [reflexivity|]. apply atom_imono; auto.
  - exists (satm L2 Dv). split; [reflexivity|]. apply atom_smono; auto.
Qed.

Lemma rw_apply_mono : forall r P rw0 Q1, sat r P -> rw_ok P rw0 = true -> is_mono rw0 = true ->
  ptnonneg Q1 = true -> pval r (rw_apply rw0 Q1) <= pval r Q1.
Proof.
  intros r P rw0 [c l] HP H Hm Hn.
  destruct (rw_mono_rhs r P rw0 HP H Hm) as [A2 [Hr Hle]].
  unfold rw_apply. rewrite Hr.
  pose proof (acanon_val r (rw_lhs rw0)) as Hc.
  destruct (acanon (rw_lhs rw0)) as [f [|L' [|L'' m]]] eqn:Ea; try apply Qle_refl.
  pose proof (acanon_one _ _ _ Ea) as Hf0. simpl in Hc.
  unfold pval; cbn [pcst pterms]. apply Qplus_le_r.
  unfold ptnonneg in Hn; cbn [pterms] in Hn.
  induction l as [|cm l IH]; [apply Qle_refl|].
  cbn [forallb] in Hn. apply andb_true_iff in Hn as [Hn1 Hn2]. apply Qle_bool_iff in Hn1.
  change (flat_map ?f (cm :: l)) with (f cm ++ flat_map f l).
  rewrite psum_app, psum_cons. apply Qplus_le_compat; [|apply IH; auto].
  assert (Hrhs : psum r (map (fun cm0 => (fst cm0 / f, snd cm0)) [(1, [A2])]) == atom r A2 * / f).
  { rewrite pdiv_sum. cbn. ring. }
  assert (Hinv : 0 <= / f) by (apply Qinv_le_0_compat; apply Qlt_le_weak; auto).
  apply rw_mono_le; auto.
  - rewrite Hrhs. apply Qmult_le_0_compat; auto using atom_nonneg.
  - intros A _ E. rewrite Hrhs, (atom_eq r L' A E).
    setoid_replace (atom r L') with (atom r (rw_lhs rw0) * / f)
      by (rewrite Hc; field; intros Hz; rewrite Hz in Hf0; discriminate).
    apply Qmult_le_compat_r; auto.
Qed.

Lemma rws_apply_le : forall r P rs Q1, sat r P -> rws_ok P rs Q1 = true ->
  pval r (rws_apply rs Q1) <= pval r Q1.
Proof.
  intros r P rs; induction rs as [|r0 rs IH]; intros Q1 HP H; simpl in *; [lra|].
  repeat rewrite andb_true_iff in H. destruct H as [[H1 H2] H3].
  eapply Qle_trans; [apply IH; eauto|].
  destruct (is_mono r0) eqn:Hm.
  - simpl in H2. apply (rw_apply_mono r P); auto.
  - rewrite (rw_apply_sound r P r0 Q1 HP H1 Hm). lra.
Qed.

Lemma pot_ge_under_sound : forall r P rs Q1 Q2, sat r P -> pot_ge_under P rs Q1 Q2 = true ->
  pval r Q2 <= pval r Q1.
Proof.
  intros r P rs Q1 Q2 HP H. unfold pot_ge_under in H. apply andb_true_iff in H as [H1 H2].
  eapply Qle_trans; [apply pot_ge_sound; eauto | apply (rws_apply_le r P); auto].
Qed.

Lemma sound_Q_WEAK : forall P D Qn P' D' Q' s NP ND NQ NP' ND' NQ' k wpre rpre wpost rpost,
  valid (mkAssn NP ND NQ) s (mkAssn NP' ND' NQ') -> Qle_bool 0 k = true ->
  entails P NP wpre = true -> pot_ge_under P rpre Qn (padd NQ k) = true -> dcovers D ND = true ->
  entails NP' P' wpost = true -> pot_ge_under NP' rpost (padd NQ' k) Q' = true ->
  dcovers ND' D' = true ->
  valid (mkAssn P D Qn) s (mkAssn P' D' Q').
Proof.
  intros P D Qn P' D' Q' st NP ND NQ NP' ND' NQ' k wpre rpre wpost rpost V Hk Hpre Hrpre HcD
    Hpost Hrpost HcD'. start_valid. simpl in HP, HD.
  assert (Hpre1 : sat_assn ps (mkAssn NP ND NQ) s T).
  { split; simpl.
    - intros t Ht; apply (entails_sound _ _ _ _ (HP t Ht) Hpre).
    - eapply dcovers_sound; eauto. }
  destruct (V F ps s T s' Crun w Hp Hn Hne Hi Hw Hpre1 Hrun) as [[HP1 HD1] HQ1].
  split; [split|].
  - intros t Ht; apply (entails_sound _ _ _ _ (HP1 t Ht) Hpost).
  - eapply dcovers_sound; eauto.
  - intros t Ht. simpl. specialize (HQ1 t Ht). simpl in HQ1.
    pose proof (pot_ge_under_sound _ _ _ _ _ (HP t Ht) Hrpre) as H1.
    pose proof (pot_ge_under_sound _ _ _ _ _ (HP1 t Ht) Hrpost) as H2.
    rewrite padd_val in H1, H2. lra.
Qed.
(** ** Filtered judgments (spec/logic.md §4a) *)

(** The value of [e] in thread [t] (the value [eeval] gives it on any [T ∋ t]). *)
Definition ev (F : fmodel) (ps : nat -> val) (s : store) (e : expr) (t : nat) : option val :=
  match e with
  | EOpd o => Some (oval G ps s o t)
  | EBin op a b => bop_eval F op (oval G ps s a t) (oval G ps s b t)
  | EUn op a => uop_eval F op (oval G ps s a t)
  | ERead A i => Some (sa s A (int_of (oval G ps s i t)))
  end.
(** Thread [t] satisfies the loop condition [e] in [s]. *)
Definition etrue (F : fmodel) (ps : nat -> val) (s : store) (e : expr) (t : nat) : bool :=
  match ev F ps s e t with Some v => is_true_v v | None => false end.

Lemma eeval_ev : forall F ps s e T R C, eeval G F ps s e T R C ->
  forall t, In t T -> ev F ps s e t = Some (R t).
Proof. intros F ps s e T R C H t Ht; inversion H; subst; simpl; auto. Qed.

Lemma etrue_R : forall F ps s e T R C, eeval G F ps s e T R C ->
  forall t, In t T -> etrue F ps s e t = is_true_v (R t).
Proof. intros. unfold etrue. erewrite eeval_ev; eauto. Qed.

(** A thread satisfying [cond(¬e)] ([≠ []]) fails [e]. *)
Lemma exit_false : forall F ps s e t, pok ps -> wt s -> nonempty (snd (cond G e)) = true ->
  sat (rho ps s t) (snd (cond G e)) -> etrue F ps s e t = false.
Proof.
  intros F ps s e t Hp Hw Hne Hs. unfold etrue.
  destruct (ev F ps s e t) as [v|] eqn:Ev; [|reflexivity].
  assert (Ho : forall o, exists c, oeval G s o [t] c) by (intros [x|p|v'|d]; eexists; constructor).
  assert (He : exists C, eeval G F ps s e [t] (fun _ => v) C).
  { destruct e as [o|op a b|op a|A i]; simpl in Hne; try discriminate.
    destruct (Ho a) as [c1 H1], (Ho b) as [c2 H2]. eexists. apply EC_OP; eauto.
    intros t' [<-|[]]. exact Ev. }
  destruct He as [C He].
  destruct (cond_decides F ps s e [t] _ C t Hp Hw He (or_introl eq_refl)) as [_ H2].
  specialize (H2 Hne Hs). simpl in H2. subst v. reflexivity.
Qed.

Lemma filter_nil_notin : forall f (T : list nat) t, filter f T = [] -> In t T -> f t = false.
Proof.
  intros f T t H Ht. destruct (f t) eqn:E; auto.
  assert (Hin : In t (filter f T)) by (apply filter_In; auto). rewrite H in Hin; contradiction.
Qed.

Lemma filter_all_false : forall f (T : list nat), (forall t, In t T -> f t = false) -> filter f T = [].
Proof.
  intros f T; induction T as [|a T IH]; intros H; simpl; auto.
  rewrite (H a (or_introl eq_refl)). apply IH. intros; apply H; right; auto.
Qed.

(** The conclusion of a filtered triple for one run ([Qpre] the pre potential): [P'] on
    every thread; [D'] on the threads [𝒯ₑ] that satisfy [e] at the end (on all threads, or
    [𝒯ₑ = ∅], when [u]; a map on no thread is not asserted); the cost is at most [Qpre] when [𝒯ₑ = ∅], and the cost plus
    [Q'] on any thread of [𝒯ₑ] is at most [Qpre] on any thread. *)
Definition fpost (u : bool) (F : fmodel) (ps : nat -> val) (e : expr) (s : store) (T : list nat)
    (s' : store) (C : Q) (Qpre : pot) (A' : assn) : Prop :=
  (forall t, In t T -> sat (rho ps s' t) (aP A')) /\
  (filter (etrue F ps s' e) T <> [] -> dsat ps s' (filter (etrue F ps s' e) T) (aD A')) /\
  (u = true -> filter (etrue F ps s' e) T = [] \/ dsat ps s' T (aD A')) /\
  (filter (etrue F ps s' e) T = [] -> forall t, In t T -> C <= pval (rho ps s t) Qpre) /\
  (forall t t', In t T -> In t' (filter (etrue F ps s' e) T) ->
     C + pval (rho ps s' t') (aQ A') <= pval (rho ps s t) Qpre).

(** [⊢ᵉ {A} s {A'}] (spec/logic.md §4a), on every non-empty set of threads of one warp. *)
Definition validF (u : bool) (e : expr) (A : assn) (st : stmt) (A' : assn) : Prop :=
  forall F ps s T s' C w, pok ps -> NoDup T -> T <> [] -> incl T (lanes G w) -> wt s ->
  sat_assn ps A s T -> seval G F ps s st T s' C -> fpost u F ps e s T s' C (aQ A) A'.

Lemma validF_false : forall u e A st A', validF u e A st A' -> validF false e A st A'.
Proof.
  intros u e A st A' V F ps s T s' C w Hp Hn Hne Hi Hw HA Hr.
  destruct (V F ps s T s' C w Hp Hn Hne Hi Hw HA Hr) as (H1 & H2 & _ & H4 & H5).
  unfold fpost. split; [|split; [|split; [|split]]]; auto. discriminate.
Qed.

(** A larger pre potential and a cost [c0] paid before. *)
Lemma fpost_weaken : forall u F ps e s T s' C Qp A' C' c0 Qn,
  fpost u F ps e s T s' C Qp A' -> C' <= c0 + C ->
  (forall t, In t T -> c0 + pval (rho ps s t) Qp <= pval (rho ps s t) Qn) ->
  fpost u F ps e s T s' C' Qn A'.
Proof.
  intros u F ps e s T s' C Qp A' C' c0 Qn (H1 & H2 & H3 & H4 & H5) HC HQ.
  unfold fpost. split; [|split; [|split; [|split]]]; auto.
  - intros E t Ht. specialize (H4 E t Ht). specialize (HQ t Ht). lra.
  - intros t t' Ht Ht'. specialize (H5 t t' Ht Ht'). specialize (HQ t Ht). lra.
Qed.

Lemma disjoint_In : forall X W x, disjoint X W = true -> In x X -> ~ In x W.
Proof. intros X W x H Hx. apply (disjoint_notin X W x H). apply memn_In; auto. Qed.

Lemma lin_k_vars : forall D L k, lin_k G D L = Some k ->
  forall a x, In (a, VL x) (lterms L) -> In x (dvars D).
Proof.
  intros D L. unfold lin_k. generalize (lterms L) as l. intros l.
  induction l as [|[a' v] l IH]; intros k H a x Hin; simpl in *; [contradiction|].
  destruct (fold_right _ _ l) as [ka|] eqn:El; [|discriminate].
  destruct Hin as [E|Hin]; [|eapply IH; eauto].
  inversion E; subst. simpl in H.
  destruct (c_lty G x) as [[]|]; try discriminate.
  destruct (dget D x) as [[y k' r g| | | |]|] eqn:Ed; try discriminate.
  destruct (dget_In _ _ _ Ed) as [Hd Hy]. rewrite <- Hy. apply in_map; auto.
Qed.

(** A potential uniform under [D] only reads the locals of [D]. *)
Lemma puni_frame : forall ps s s' D Q1 t, puni G D Q1 = true ->
  (forall x, In x (dvars D) -> sl s' x t = sl s x t) ->
  pval (rho ps s' t) Q1 = pval (rho ps s t) Q1.
Proof.
  intros ps s s' D [c l] t H Hx. unfold pval; f_equal. apply psum_ext.
  intros c' m L a v Hcm HL Hav. unfold puni in H; rewrite forallb_forall in H.
  specialize (H _ Hcm). rewrite forallb_forall in H. specialize (H L HL).
  unfold avars in Hav. apply in_flat_map in Hav as [Fm [HF Hav]].
  rewrite forallb_forall in H. specialize (H Fm HF).
  unfold luni in H. destruct (lin_k G D Fm) as [k|] eqn:Ek; [|discriminate].
  destruct v as [x|p|d]; simpl; auto.
  rewrite Hx; auto. eapply lin_k_vars; eauto.
Qed.

Lemma pplus_val : forall r Q1 Q2, pval r (pplus Q1 Q2) == pval r Q1 + pval r Q2.
Proof. intros. unfold pval, pplus; simpl. rewrite psum_app. lra. Qed.

(** The cost of an expression that reads no array does not depend on [P], [D]. *)
Lemma qexpr_noread : forall F ps s e T R C P D n C', noread e = true ->
  eeval G F ps s e T R C -> qexpr G P D e n C' -> C <= C'.
Proof.
  intros F ps s e T R C P D n C' Hnr H1 H2.
  inversion H2; subst; simpl in Hnr; try discriminate; inversion H1; subst;
    repeat match goal with
           | Ha : oeval _ _ ?o _ ?c, Hb : qopd _ ?o ?c' |- _ =>
               pose proof (qopd_sound _ _ _ _ _ Ha Hb); clear Ha Hb
           end; lra.
Qed.

Lemma qexpr_noread_nonneg : forall P D e n C, noread e = true -> qexpr G P D e n C -> 0 <= C.
Proof.
  intros P D e n C Hnr H. pose proof (m_nonneg M) as (H1 & H2 & H3 & H4 & _).
  inversion H; subst; simpl in Hnr; try discriminate;
    repeat match goal with Hb : qopd _ _ _ |- _ => inversion Hb; subst; clear Hb end;
    fold M; lra.
Qed.

(** The coercion of an ordinary judgment: [D'] holds on all threads, so on [𝒯ₑ]; the pre
    potential has one value on all threads. *)
Lemma sound_F_ORD : forall u e A st A', valid A st A' -> puni G (aD A) (aQ A) = true ->
  pnonneg (aQ A') = true -> validF u e A st A'.
Proof.
  intros u e A st A' V Hu Hnn F ps s T s' C w Hp Hn Hne Hi Hw HA Hrun.
  destruct (V F ps s T s' C w Hp Hn Hne Hi Hw HA Hrun) as [[HP' HD'] HQ].
  unfold fpost. split; [|split; [|split; [|split]]].
  - exact HP'.
  - intros _; eapply dsat_sub; [apply incl_filter|exact HD'].
  - intros _; right; exact HD'.
  - intros _ t Ht. specialize (HQ t Ht). pose proof (pnonneg_sound (rho ps s' t) _ Hnn). lra.
  - intros t t' Ht Ht'. apply filter_In in Ht' as [Ht' _]. specialize (HQ t' Ht').
    rewrite (puni_sound ps s T (aD A) (aQ A) (proj2 HA) Hu t t') by auto. exact HQ.
Qed.

Lemma sound_F_SEQ : forall u e A A1 A' s1 s2, valid A s1 A1 -> validF u e A1 s2 A' ->
  validF u e A (SSeq s1 s2) A'.
Proof.
  intros u e A A1 A' s1 s2 V1 V2 F ps s T s' C w Hp Hn Hne Hi Hw HA Hrun.
  inversion Hrun; subst.
  match goal with R1 : seval _ _ _ s s1 T ?st1 ?c1, R2 : seval _ _ _ ?st1 s2 T s' ?c2 |- _ =>
    destruct (V1 F ps s T st1 c1 w Hp Hn Hne Hi Hw HA R1) as [HA1 HQ1];
    destruct (V2 F ps st1 T s' c2 w Hp Hn Hne Hi (run_wt _ _ _ _ _ _ _ R1 Hw) HA1 R2)
      as (HP2 & HD2 & HU2 & HE2 & HQ2)
  end.
  unfold fpost. split; [|split; [|split; [|split]]]; auto.
  - intros E t Ht. specialize (HQ1 t Ht). specialize (HE2 E t Ht). lra.
  - intros t t' Ht Ht'. specialize (HQ1 t Ht). specialize (HQ2 t t' Ht Ht'). lra.
Qed.

Lemma sound_F_WEAK : forall u f P D Qn P' D' Q' st NP ND NQ NP' ND' NQ' k wpre rpre wpost rpost,
  validF u f (mkAssn NP ND NQ) st (mkAssn NP' ND' NQ') -> Qle_bool 0 k = true ->
  entails P NP wpre = true -> pot_ge_under P rpre Qn (padd NQ k) = true -> dcovers D ND = true ->
  entails NP' P' wpost = true -> pot_ge_under NP' rpost (padd NQ' k) Q' = true ->
  dcovers ND' D' = true ->
  validF u f (mkAssn P D Qn) st (mkAssn P' D' Q').
Proof.
  intros u f P D Qn P' D' Q' st NP ND NQ NP' ND' NQ' k wpre rpre wpost rpost V Hk Hpre Hrpre HcD
    Hpost Hrpost HcD' F ps s T s' C w Hp Hn Hne Hi Hw [HP HD] Hrun. cbn [aP aD aQ] in HP, HD.
  assert (Hpre1 : sat_assn ps (mkAssn NP ND NQ) s T).
  { split; cbn [aP aD].
    - intros t Ht; apply (entails_sound _ _ _ _ (HP t Ht) Hpre).
    - eapply dcovers_sound; eauto. }
  destruct (V F ps s T s' C w Hp Hn Hne Hi Hw Hpre1 Hrun) as (HP1 & HD1 & HU1 & HE1 & HQ1).
  cbn [aP aD aQ] in *. apply Qle_bool_iff in Hk.
  unfold fpost. split; [|split; [|split; [|split]]]; cbn [aP aD aQ].
  - intros t Ht; apply (entails_sound _ _ _ _ (HP1 t Ht) Hpost).
  - intros E; eapply dcovers_sound; [|exact (HD1 E)]; auto.
  - intros Hu. destruct (HU1 Hu) as [E|E]; [left; auto | right; eapply dcovers_sound; eauto].
  - intros E t Ht. specialize (HE1 E t Ht).
    pose proof (pot_ge_under_sound _ _ _ _ _ (HP t Ht) Hrpre) as H1. rewrite padd_val in H1. lra.
  - intros t t' Ht Ht'. specialize (HQ1 t t' Ht Ht').
    assert (Ht'' : In t' T) by (apply filter_In in Ht'; tauto).
    pose proof (pot_ge_under_sound _ _ _ _ _ (HP t Ht) Hrpre) as H1.
    pose proof (pot_ge_under_sound _ _ _ _ _ (HP1 t' Ht'') Hrpost) as H2.
    rewrite padd_val in H1, H2. lra.
Qed.


(** Filtered Q:IF1: only SC_IFT or SC_IFF, each a filtered branch from the same state. *)
Lemma sound_F_IF1 : forall u f P D Qn Q e n C s1 s2 PT PF A',
  qexpr G P D e n C -> unif G (dunif G D) e = true ->
  cstrs_equiv PT (andc G P D e false) = true -> cstrs_equiv PF (andc G P D e true) = true ->
  validF u f (mkAssn PT D Q) s1 A' -> validF u f (mkAssn PF D Q) s2 A' ->
  pot_ge Qn (padd Q (m_if M + C)) = true ->
  validF u f (mkAssn P D Qn) (SIf e s1 s2) A'.
Proof.
  intros u f P D Qn Q e n C s1 s2 PT PF A' Hq Hu HPT HPF V1 V2 Hpre.
  intros F ps s T s' Crun w Hp Hn Hne Hi Hw [HP HD] Hrun. cbn [aP aD aQ] in HP, HD.
  assert (HX : forall x, memn x (dunif G D) = true -> forall t t', In t T -> In t' T ->
         sl s x t = sl s x t') by (intros; eapply dunif_sound; eauto).
  inversion Hrun; subst;
    match goal with H : eeval _ _ _ _ _ _ _ _ |- _ => rename H into Hee end;
    pose proof (qexpr_sound _ _ _ _ _ _ _ _ _ _ _ _ Hp Hw HP HD Hn Hne Hi Hee Hq) as Hce.
  - match goal with H : seval _ _ _ _ s1 _ _ _ |- _ => rename H into Hs end.
    assert (Hpre1 : sat_assn ps (mkAssn PT D Q) s T).
    { split; cbn [aP aD]; auto. intros t Ht; apply (cstrs_equiv_sat _ _ _ HPT).
      apply (andc_correct F ps s e T R C1 D P t Hp Hw HD Hee Ht (HP t Ht)); auto. }
    eapply fpost_weaken; [exact (V1 F ps s T s' C2 w Hp Hn Hne Hi Hw Hpre1 Hs)| |].
    + instantiate (1 := C1 + m_if M). foldM. lra.
    + intros t Ht. pose proof (pot_ge_sound (rho ps s t) _ _ Hpre) as H1. rewrite padd_val in H1.
      cbn [aQ]. foldM. lra.
  - match goal with H : seval _ _ _ _ s2 _ _ _ |- _ => rename H into Hs end.
    assert (Hpre2 : sat_assn ps (mkAssn PF D Q) s T).
    { split; cbn [aP aD]; auto. intros t Ht; apply (cstrs_equiv_sat _ _ _ HPF).
      apply (andc_correct F ps s e T R C1 D P t Hp Hw HD Hee Ht (HP t Ht)); auto. }
    eapply fpost_weaken; [exact (V2 F ps s T s' C2 w Hp Hn Hne Hi Hw Hpre2 Hs)| |].
    + instantiate (1 := C1 + m_if M). foldM. lra.
    + intros t Ht. pose proof (pot_ge_sound (rho ps s t) _ _ Hpre) as H1. rewrite padd_val in H1.
      cbn [aQ]. foldM. lra.
  - exfalso.
    match goal with H : filter (fun t => is_true_v _) T <> [] |- _ =>
      destruct (nonempty_elem _ H) as [t1 Ht1] end.
    match goal with H : filter (fun t => is_false_v _) T <> [] |- _ =>
      destruct (nonempty_elem _ H) as [t2 Ht2] end.
    apply filter_In in Ht1 as [Ht1 E1]. apply filter_In in Ht2 as [Ht2 E2].
    rewrite (unif_correct F ps s e T R C1 (dunif G D) w Hu Hee Hi HX t1 t2 Ht1 Ht2) in E1.
    destruct (R t2) as [| [] |]; discriminate.
Qed.

(** Filtered Q:IF2 / Q:IF3: a decided condition. *)
Lemma ifF_decided : forall u f P D Qn Q e n C s1 s2 sb ws A' (neg : bool),
  qexpr G P D e n C ->
  nonempty ((if neg then snd else fst) (cond G e)) = true ->
  entails P ((if neg then snd else fst) (cond G e)) ws = true ->
  sb = (if neg then s2 else s1) ->
  validF u f (mkAssn P D Q) sb A' -> pot_ge Qn (padd Q (m_if M + C)) = true ->
  validF u f (mkAssn P D Qn) (SIf e s1 s2) A'.
Proof.
  intros u f P D Qn Q e n C s1 s2 sb ws A' neg Hq Hne1 Hent Hsb V Hpre.
  intros F ps s T s' Crun w Hp Hn Hne Hi Hw [HP HD] Hrun. cbn [aP aD aQ] in HP, HD.
  assert (Hdec : forall R C1, eeval G F ps s e T R C1 ->
            forall t, In t T -> R t = VBool (negb neg)).
  { intros R C1 He t Ht. pose proof (entails_sound _ _ _ _ (HP t Ht) Hent) as Hs.
    destruct (cond_decides F ps s e T R C1 t Hp Hw He Ht) as [D1 D2].
    destruct neg; simpl in *; auto. }
  assert (Hwk : forall C1, C1 <= C -> forall t, In t T ->
            C1 + m_if M + pval (rho ps s t) Q <= pval (rho ps s t) Qn).
  { intros C1 Hc t Ht. pose proof (pot_ge_sound (rho ps s t) _ _ Hpre) as H1.
    rewrite padd_val in H1. lra. }
  inversion Hrun; subst;
    match goal with H : eeval _ _ _ _ _ _ _ _ |- _ => rename H into Hee end;
    pose proof (qexpr_sound _ _ _ _ _ _ _ _ _ _ _ _ Hp Hw HP HD Hn Hne Hi Hee Hq) as Hce;
    pose proof (Hdec _ _ Hee) as HR.
  - destruct neg.
    + exfalso. destruct (nonempty_elem _ Hne) as [t Ht].
      match goal with H : forall t, In t T -> is_true_v _ = true |- _ => specialize (H t Ht) end.
      rewrite HR in *; auto; discriminate.
    + match goal with H : seval _ _ _ _ s1 _ _ _ |- _ => rename H into Hs end.
      eapply fpost_weaken; [exact (V F ps s T s' C2 w Hp Hn Hne Hi Hw (conj HP HD) Hs)| |].
      * instantiate (1 := C1 + m_if M). foldM. lra.
      * cbn [aQ]. apply (Hwk C1 Hce).
  - destruct neg.
    + match goal with H : seval _ _ _ _ s2 _ _ _ |- _ => rename H into Hs end.
      eapply fpost_weaken; [exact (V F ps s T s' C2 w Hp Hn Hne Hi Hw (conj HP HD) Hs)| |].
      * instantiate (1 := C1 + m_if M). foldM. lra.
      * cbn [aQ]. apply (Hwk C1 Hce).
    + exfalso. destruct (nonempty_elem _ Hne) as [t Ht].
      match goal with H : forall t, In t T -> is_false_v _ = true |- _ => specialize (H t Ht) end.
      rewrite HR in *; auto; discriminate.
  - exfalso.
    match goal with H : filter (fun t => is_true_v _) T <> [] |- _ =>
      destruct (nonempty_elem _ H) as [t1 Ht1] end.
    match goal with H : filter (fun t => is_false_v _) T <> [] |- _ =>
      destruct (nonempty_elem _ H) as [t2 Ht2] end.
    apply filter_In in Ht1 as [Ht1 E1]. apply filter_In in Ht2 as [Ht2 E2].
    rewrite (HR t1 Ht1) in E1. rewrite (HR t2 Ht2) in E2. destruct neg; discriminate.
Qed.

Lemma sound_F_IF2 : forall u f P D Qn Q e n C s1 s2 ws A',
  qexpr G P D e n C -> nonempty (fst (cond G e)) = true -> entails P (fst (cond G e)) ws = true ->
  validF u f (mkAssn P D Q) s1 A' -> pot_ge Qn (padd Q (m_if M + C)) = true ->
  validF u f (mkAssn P D Qn) (SIf e s1 s2) A'.
Proof. intros. eapply (ifF_decided u f P D Qn Q e n C s1 s2 s1 ws A' false); eauto. Qed.

Lemma sound_F_IF3 : forall u f P D Qn Q e n C s1 s2 ws A',
  qexpr G P D e n C -> nonempty (snd (cond G e)) = true -> entails P (snd (cond G e)) ws = true ->
  validF u f (mkAssn P D Q) s2 A' -> pot_ge Qn (padd Q (m_if M + C)) = true ->
  validF u f (mkAssn P D Qn) (SIf e s1 s2) A'.
Proof. intros. eapply (ifF_decided u f P D Qn Q e n C s1 s2 s2 ws A' true); eauto. Qed.

(** A stronger post (the rules' [join] entailments, [D2 ⊒ D'], [Q2 ≥ Q']). *)
Lemma fpost_post : forall u F ps e s T s' C Qp P2 D2 Q2 P' D' Q' ws,
  fpost u F ps e s T s' C Qp (mkAssn P2 D2 Q2) -> entails P2 P' ws = true ->
  dcovers D2 D' = true -> pot_ge Q2 Q' = true -> fpost u F ps e s T s' C Qp (mkAssn P' D' Q').
Proof.
  intros u F ps e s T s' C Qp P2 D2 Q2 P' D' Q' ws (H1 & H2 & H3 & H4 & H5) Hj Hc Hq.
  cbn [aP aD aQ] in *. unfold fpost. split; [|split; [|split; [|split]]]; cbn [aP aD aQ]; auto.
  - intros t Ht; apply (entails_sound _ _ _ _ (H1 t Ht) Hj).
  - intros E; eapply dcovers_sound; [|exact (H2 E)]; auto.
  - intros Hu. destruct (H3 Hu) as [E|E]; [left; auto | right; eapply dcovers_sound; eauto].
  - intros t t' Ht Ht'. specialize (H5 t t' Ht Ht').
    pose proof (pot_ge_sound (rho ps s' t') _ _ Hq). lra.
Qed.

Lemma dsat_threads {ps : nat -> val} : forall s s' T D, (forall x t, In t T -> sl s' x t = sl s x t) ->
  dsat ps s T D -> dsat ps s' T D.
Proof. intros s s' T D Hf H d Hd. apply (esat_frame s); auto. Qed.

(** The then branch of Q:IFEXIT1/4 ran on all threads: every thread fails [e]. *)
Lemma ifexit_then_all : forall u F ps f s T s' C Qp P1 Q1 P' D' Q' wx wjt,
  pok ps -> wt s' -> nonempty (snd (cond G f)) = true -> entails P1 (snd (cond G f)) wx = true ->
  entails P1 P' wjt = true -> pnonneg Q1 = true ->
  (forall t, In t T -> sat (rho ps s' t) P1) ->
  (forall t, In t T -> C + pval (rho ps s' t) Q1 <= pval (rho ps s t) Qp) ->
  fpost u F ps f s T s' C Qp (mkAssn P' D' Q').
Proof.
  intros u F ps f s T s' C Qp P1 Q1 P' D' Q' wx wjt Hp Hw Hxn Hx Hjt Hnn HP1 HQ1.
  assert (HTe : filter (etrue F ps s' f) T = []).
  { apply filter_all_false. intros t Ht. apply exit_false; auto.
    apply (entails_sound _ _ _ _ (HP1 t Ht) Hx). }
  unfold fpost. rewrite HTe. split; [|split; [|split; [|split]]]; cbn [aP aD aQ].
  - intros t Ht. apply (entails_sound _ _ _ _ (HP1 t Ht) Hjt).
  - intros E; contradiction E; reflexivity.
  - intros _; left; reflexivity.
  - intros _ t Ht. specialize (HQ1 t Ht). pose proof (pnonneg_sound (rho ps s' t) _ Hnn). lra.
  - intros t t' _ [].
Qed.

Lemma sound_Q_IFEXIT1 : forall u f P D Qn Q0 c n C s1 s2 PT P1 D1 Q1 PF P2 D2 Q2 P' D' Q' wx wjt wje,
  qexpr G P D c n C -> unif G (dunif G D) c = true ->
  cstrs_equiv PT (andc G P D c false) = true -> cstrs_equiv PF (andc G P D c true) = true ->
  valid (mkAssn PT D Q0) s1 (mkAssn P1 D1 Q1) ->
  validF u f (mkAssn PF D Q0) s2 (mkAssn P2 D2 Q2) ->
  nonempty (snd (cond G f)) = true -> entails P1 (snd (cond G f)) wx = true ->
  entails P1 P' wjt = true -> entails P2 P' wje = true ->
  dcovers D2 D' = true -> pot_ge Q2 Q' = true -> pnonneg Q1 = true ->
  pot_ge Qn (padd Q0 (m_if M + C)) = true ->
  validF u f (mkAssn P D Qn) (SIf c s1 s2) (mkAssn P' D' Q').
Proof.
  intros u f P D Qn Q0 c n C s1 s2 PT P1 D1 Q1 PF P2 D2 Q2 P' D' Q' wx wjt wje
    Hq Hu HPT HPF V1 V2 Hxn Hx Hjt Hje HcD HQ2 Hnn1 Hpre.
  intros F ps s T s' Crun w Hp Hn Hne Hi Hw [HP HD] Hrun. cbn [aP aD aQ] in HP, HD.
  assert (HX : forall x, memn x (dunif G D) = true -> forall t t', In t T -> In t' T ->
         sl s x t = sl s x t') by (intros; eapply dunif_sound; eauto).
  assert (Hwk : forall C1, C1 <= C -> forall t, In t T ->
            C1 + m_if M + pval (rho ps s t) Q0 <= pval (rho ps s t) Qn).
  { intros C1 Hc t Ht. pose proof (pot_ge_sound (rho ps s t) _ _ Hpre) as H1.
    rewrite padd_val in H1. lra. }
  inversion Hrun; subst;
    match goal with H : eeval _ _ _ _ _ _ _ _ |- _ => rename H into Hee end;
    pose proof (qexpr_sound _ _ _ _ _ _ _ _ _ _ _ _ Hp Hw HP HD Hn Hne Hi Hee Hq) as Hce.
  - (* SC_IFT: every thread leaves the loop *)
    match goal with H : seval _ _ _ _ s1 _ _ _ |- _ => rename H into Hs end.
    assert (Hpre1 : sat_assn ps (mkAssn PT D Q0) s T).
    { split; cbn [aP aD]; auto. intros t Ht; apply (cstrs_equiv_sat _ _ _ HPT).
      apply (andc_correct F ps s c T R C1 D P t Hp Hw HD Hee Ht (HP t Ht)); auto. }
    destruct (V1 F ps s T s' C2 w Hp Hn Hne Hi Hw Hpre1 Hs) as [[HP1 _] HQ1].
    cbn [aP aQ] in HP1, HQ1.
    eapply (ifexit_then_all u F ps f s T s' _ Qn P1 Q1); eauto using run_wt.
    intros t Ht. specialize (HQ1 t Ht). specialize (Hwk C1 Hce t Ht). foldM. lra.
  - match goal with H : seval _ _ _ _ s2 _ _ _ |- _ => rename H into Hs end.
    assert (Hpre2 : sat_assn ps (mkAssn PF D Q0) s T).
    { split; cbn [aP aD]; auto. intros t Ht; apply (cstrs_equiv_sat _ _ _ HPF).
      apply (andc_correct F ps s c T R C1 D P t Hp Hw HD Hee Ht (HP t Ht)); auto. }
    eapply fpost_weaken;
      [eapply fpost_post; [exact (V2 F ps s T s' C2 w Hp Hn Hne Hi Hw Hpre2 Hs)|eauto..]| |].
    + instantiate (1 := C1 + m_if M). foldM. lra.
    + cbn [aQ]. apply (Hwk C1 Hce).
  - exfalso.
    match goal with H : filter (fun t => is_true_v _) T <> [] |- _ =>
      destruct (nonempty_elem _ H) as [t1 Ht1] end.
    match goal with H : filter (fun t => is_false_v _) T <> [] |- _ =>
      destruct (nonempty_elem _ H) as [t2 Ht2] end.
    apply filter_In in Ht1 as [Ht1 E1]. apply filter_In in Ht2 as [Ht2 E2].
    rewrite (unif_correct F ps s c T R C1 (dunif G D) w Hu Hee Hi HX t1 t2 Ht1 Ht2) in E1.
    destruct (R t2) as [| [] |]; discriminate.
Qed.

Lemma same_elems_nil : forall (A B : list nat), (forall t, In t A -> In t B) -> B = [] -> A = [].
Proof.
  intros A B H E. destruct A as [|a A]; auto. exfalso.
  specialize (H a (or_introl eq_refl)). rewrite E in H. contradiction.
Qed.

(** Q:IFEXIT4: the then branch leaves the loop; [F] runs on threads [s1] never touched. *)
Lemma sound_Q_IFEXIT4 : forall u f P D Qn QT QF c n C s1 s2 PT P1 D1 Q1 PF P2 D2 Q2 P' D' Q'
    wx wjt wje,
  qexpr G P D c n C ->
  cstrs_equiv PT (andc G P D c false) = true -> cstrs_equiv PF (andc G P D c true) = true ->
  valid (mkAssn PT D QT) s1 (mkAssn P1 D1 Q1) ->
  validF u f (mkAssn PF D QF) s2 (mkAssn P2 D2 Q2) ->
  nonempty (snd (cond G f)) = true -> entails P1 (snd (cond G f)) wx = true ->
  entails P1 P' wjt = true -> entails P2 P' wje = true ->
  dcovers D2 D' = true -> pot_ge Q2 Q' = true ->
  puni G D QT = true -> puni G D QF = true ->
  pnonneg QT = true -> pnonneg QF = true -> pnonneg Q1 = true ->
  pot_ge Qn (padd (pplus QT QF) (m_if M + C + m_div M)) = true ->
  validF false f (mkAssn P D Qn) (SIf c s1 s2) (mkAssn P' D' Q').
Proof.
  intros u f P D Qn QT QF c n C s1 s2 PT P1 D1 Q1 PF P2 D2 Q2 P' D' Q' wx wjt wje
    Hq HPT HPF V1 V2 Hxn Hx Hjt Hje HcD HgeQ HuT HuF HnT0 HnF0 Hnn1 Hpre.
  intros F ps s T s' Crun w Hp Hn Hne Hi Hw [HP HD] Hrun. cbn [aP aD aQ] in HP, HD.
  pose proof (m_nonneg M) as Hnn. destruct Hnn as (_ & _ & _ & _ & Hif & Hdiv & _).
  assert (Hwk : forall t, In t T ->
            pval (rho ps s t) QT + pval (rho ps s t) QF + (m_if M + C + m_div M)
            <= pval (rho ps s t) Qn).
  { intros t Ht. pose proof (pot_ge_sound (rho ps s t) _ _ Hpre) as H1.
    rewrite padd_val, pplus_val in H1. lra. }
  inversion Hrun; subst;
    match goal with H : eeval _ _ _ _ _ _ _ _ |- _ => rename H into Hee end;
    pose proof (qexpr_sound _ _ _ _ _ _ _ _ _ _ _ _ Hp Hw HP HD Hn Hne Hi Hee Hq) as Hce.
  - (* SC_IFT: every thread leaves the loop *)
    match goal with H : seval _ _ _ _ s1 _ _ _ |- _ => rename H into Hs end.
    assert (Hpre1 : sat_assn ps (mkAssn PT D QT) s T).
    { split; cbn [aP aD]; auto. intros t Ht; apply (cstrs_equiv_sat _ _ _ HPT).
      apply (andc_correct F ps s c T R C1 D P t Hp Hw HD Hee Ht (HP t Ht)); auto. }
    destruct (V1 F ps s T s' C2 w Hp Hn Hne Hi Hw Hpre1 Hs) as [[HP1 _] HQ1].
    cbn [aP aQ] in HP1, HQ1.
    eapply (ifexit_then_all false F ps f s T s' _ Qn P1 Q1); eauto using run_wt.
    intros t Ht. specialize (HQ1 t Ht). specialize (Hwk t Ht).
    pose proof (pnonneg_sound (rho ps s t) _ HnF0). foldM. lra.
  - (* SC_IFF: only the else branch runs *)
    match goal with H : seval _ _ _ _ s2 _ _ _ |- _ => rename H into Hs end.
    assert (Hpre2 : sat_assn ps (mkAssn PF D QF) s T).
    { split; cbn [aP aD]; auto. intros t Ht; apply (cstrs_equiv_sat _ _ _ HPF).
      apply (andc_correct F ps s c T R C1 D P t Hp Hw HD Hee Ht (HP t Ht)); auto. }
    pose proof (V2 F ps s T s' C2 w Hp Hn Hne Hi Hw Hpre2 Hs) as Hf.
    assert (Hf' : fpost false F ps f s T s' C2 QF (mkAssn P2 D2 Q2)).
    { destruct Hf as (H1 & H2 & _ & H4 & H5). unfold fpost.
      split; [|split; [|split; [|split]]]; auto. discriminate. }
    eapply fpost_weaken; [eapply fpost_post; [exact Hf'|eauto..]| |].
    + instantiate (1 := C1 + m_if M + m_div M). foldM. lra.
    + cbn [aQ]. intros t Ht. specialize (Hwk t Ht).
      pose proof (pnonneg_sound (rho ps s t) _ HnT0). lra.
  - (* SC_IFD: the then branch on 𝒯_T (all leave), the else branch on 𝒯_F *)
    match goal with H : seval _ _ _ _ s1 _ _ _ |- _ => rename H into Hs1 end.
    match goal with H : seval _ _ _ _ s2 _ _ _ |- _ => rename H into Hs2 end.
    match goal with H : forall t, In t T -> is_bool_v _ = true |- _ => rename H into Hbool end.
    match goal with H : filter (fun t => is_true_v _) T <> [] |- _ => rename H into HneT end.
    match goal with H : filter (fun t => is_false_v _) T <> [] |- _ => rename H into HneF end.
    set (TT := filter (fun t => is_true_v (R t)) T) in *.
    set (TF := filter (fun t => is_false_v (R t)) T) in *.
    assert (HTT : forall t, In t TT <-> In t T /\ is_true_v (R t) = true) by
      (intros; unfold TT; apply filter_In).
    assert (HTF : forall t, In t TF <-> In t T /\ is_false_v (R t) = true) by
      (intros; unfold TF; apply filter_In).
    assert (HTTF : forall t, In t TF -> ~ In t TT).
    { intros t H1 H2. apply HTF in H1; apply HTT in H2.
      destruct H1 as [_ H1], H2 as [_ H2]. destruct (R t) as [| [] |]; discriminate. }
    assert (HTFT : forall t, In t TT -> ~ In t TF) by (intros t H1 H2; eapply HTTF; eauto).
    assert (HnT : NoDup TT) by (apply NoDup_filter; auto).
    assert (HnF : NoDup TF) by (apply NoDup_filter; auto).
    assert (HiT : incl TT (lanes G w)) by (eapply incl_tran; [apply incl_filter|]; auto).
    assert (HiF : incl TF (lanes G w)) by (eapply incl_tran; [apply incl_filter|]; auto).
    assert (Hpre1 : sat_assn ps (mkAssn PT D QT) s TT).
    { split; cbn [aP aD].
      - intros t Ht. apply HTT in Ht as [Ht Hr]. apply (cstrs_equiv_sat _ _ _ HPT).
        apply (andc_correct F ps s c T R C1 D P t Hp Hw HD Hee Ht (HP t Ht)); auto.
      - eapply dsat_sub; [apply incl_filter | exact HD]. }
    destruct (V1 F ps s TT st1 C2 w Hp HnT HneT HiT Hw Hpre1 Hs1) as [[HP1 _] HQ1].
    cbn [aP aQ] in HP1, HQ1.
    assert (Hst1 : forall x t, In t TF -> sl st1 x t = sl s x t) by
      (intros; eapply frame_threads; eauto).
    assert (Hpre2 : sat_assn ps (mkAssn PF D QF) st1 TF).
    { split; cbn [aP aD].
      - intros t Ht. apply (sat_ext (rho ps s t)); [intros; symmetry; apply rho_frame; auto|].
        apply HTF in Ht as [Ht Hr]. apply (cstrs_equiv_sat _ _ _ HPF).
        apply (andc_correct F ps s c T R C1 D P t Hp Hw HD Hee Ht (HP t Ht)); auto.
      - apply (dsat_threads s); auto. eapply dsat_sub; [apply incl_filter | exact HD]. }
    destruct (V2 F ps st1 TF s' C3 w Hp HnF HneF HiF (run_wt _ _ _ _ _ _ _ Hs1 Hw) Hpre2 Hs2)
      as (HP2 & HD2 & _ & HE2 & HQ2).
    cbn [aP aD aQ] in HP2, HD2, HE2, HQ2.
    assert (Hs'1 : forall x t, In t TT -> sl s' x t = sl st1 x t) by
      (intros; eapply frame_threads; eauto).
    assert (Hw1 : wt s') by (eapply run_wt; [exact Hs2|]; eapply run_wt; eauto).
    (* the threads of 𝒯_T fail [f] at the end *)
    assert (HTe : forall t, In t (filter (etrue F ps s' f) T) <-> In t (filter (etrue F ps s' f) TF)).
    { intros t. rewrite !filter_In. split; intros [Ht E]; split; auto.
      - specialize (Hbool t Ht). apply HTF. split; auto.
        destruct (R t) as [| [] |] eqn:Er; try discriminate; auto.
        assert (HtT : In t TT) by (apply HTT; rewrite Er; auto).
        rewrite (exit_false F ps s' f t Hp Hw1 Hxn) in E; [discriminate|].
        apply (sat_ext (rho ps st1 t)); [intros; symmetry; apply rho_frame; auto|].
        apply (entails_sound _ _ _ _ (HP1 t HtT) Hx).
      - apply HTF in Ht; tauto. }
    destruct (nonempty_elem _ HneT) as [tT HtT].
    destruct (nonempty_elem _ HneF) as [tF HtF].
    assert (HtT' : In tT T) by (apply HTT in HtT; tauto).
    assert (HtF' : In tF T) by (apply HTF in HtF; tauto).
    assert (HQF : forall t, In t T -> pval (rho ps st1 tF) QF = pval (rho ps s t) QF).
    { intros t Ht. rewrite (pval_ext _ (rho ps s tF)) by (apply rho_frame; auto).
      apply (puni_sound ps s T D QF HD HuF tF t); auto. }
    assert (HQT : forall t, In t T -> pval (rho ps s tT) QT = pval (rho ps s t) QT).
    { intros t Ht. apply (puni_sound ps s T D QT HD HuT tT t); auto. }
    assert (HC2 : C2 <= pval (rho ps s tT) QT).
    { specialize (HQ1 tT HtT). pose proof (pnonneg_sound (rho ps st1 tT) _ Hnn1). lra. }
    unfold fpost. split; [|split; [|split; [|split]]]; cbn [aP aD aQ].
    + intros t Ht. specialize (Hbool t Ht).
      destruct (R t) as [| [] |] eqn:Er; try discriminate.
      * assert (HtT2 : In t TT) by (apply HTT; rewrite Er; auto).
        apply (sat_ext (rho ps st1 t)); [intros; symmetry; apply rho_frame; auto|].
        apply (entails_sound _ _ _ _ (HP1 t HtT2) Hjt).
      * assert (HtF2 : In t TF) by (apply HTF; rewrite Er; auto).
        apply (entails_sound _ _ _ _ (HP2 t HtF2) Hje).
    + intros E. assert (E' : filter (etrue F ps s' f) TF <> []).
      { intros E2. apply E. apply (same_elems_nil _ _ (fun t Ht => proj1 (HTe t) Ht) E2). }
      eapply dsat_sub; [intros t Ht; exact (proj1 (HTe t) Ht)|].
      eapply dcovers_sound; [|exact (HD2 E')]; auto.
    + discriminate.
    + intros E t Ht. assert (E' : filter (etrue F ps s' f) TF = []).
      { apply (same_elems_nil _ _ (fun t Ht => proj2 (HTe t) Ht) E). }
      specialize (HE2 E' tF HtF). rewrite (HQF t Ht) in HE2. rewrite (HQT t Ht) in HC2.
      specialize (Hwk t Ht). pose proof (pnonneg_sound (rho ps s t) _ HnT0). foldM. lra.
    + intros t t' Ht Ht'. apply HTe in Ht'. specialize (HQ2 tF t' HtF Ht').
      rewrite (HQF t Ht) in HQ2. rewrite (HQT t Ht) in HC2. specialize (Hwk t Ht).
      pose proof (pot_ge_sound (rho ps s' t') _ _ HgeQ) as H3. foldM. lra.
Qed.

(* ---- begin issue 15 (exits15b): Q:GUARD and Q:GUARDEXIT (spec/logic.md §4a) ---- *)

(** A statement that falsifies [g] leaves [g = false] in every thread it ran on. *)
Lemma falsifies_sound : forall F ps s st T s' C, seval G F ps s st T s' C ->
  forall g, falsifies g st = true -> forall t, In t T -> sl s' g t = VBool false.
Proof.
  intros F ps s st T s' C H; induction H; intros g Hf u Hu; simpl in Hf; try discriminate.
  - apply orb_true_iff in Hf as [Hf|Hf]; [apply IHseval2; auto|].
    apply andb_true_iff in Hf as [Hf Hn]. apply negb_true_iff in Hn.
    rewrite (frame_writes _ _ _ _ _ _ _ H0); [apply IHseval1; auto|].
    intros Hin. apply memn_In in Hin. congruence.
  - destruct e as [o| | |]; try discriminate. destruct o as [| |v|]; try discriminate.
    destruct v as [|[]|]; try discriminate. apply Nat.eqb_eq in Hf; subst g.
    match goal with He : eeval _ _ _ _ _ _ _ _ |- _ => inversion He; subst end.
    simpl. rewrite Nat.eqb_refl, (proj2 (memb_In u T) Hu). reflexivity.
Qed.

Lemma sound_Q_GUARDEXIT : forall u g P D Qn P1 D1 Q1 P' D' Q' st wx,
  valid (mkAssn P D Qn) st (mkAssn P1 D1 Q1) -> falsifies g st = true ->
  entails P1 P' wx = true -> pnonneg Q1 = true ->
  validF u (EOpd (OVar g)) (mkAssn P D Qn) st (mkAssn P' D' Q').
Proof.
  intros u g P D Qn P1 D1 Q1 P' D' Q' st wx V Hf Hx Hnn.
  intros F ps s T s' Crun w Hp Hn Hne Hi Hw HA Hrun.
  destruct (V F ps s T s' Crun w Hp Hn Hne Hi Hw HA Hrun) as [[HP1 _] HQ1].
  cbn [aP aQ] in HP1, HQ1.
  assert (HTe : filter (etrue F ps s' (EOpd (OVar g))) T = []).
  { apply filter_all_false. intros t Ht. unfold etrue. simpl.
    rewrite (falsifies_sound _ _ _ _ _ _ _ Hrun g Hf t Ht). reflexivity. }
  unfold fpost. rewrite HTe. split; [|split; [|split; [|split]]]; cbn [aP aD aQ].
  - intros t Ht. apply (entails_sound _ _ _ _ (HP1 t Ht) Hx).
  - intros E; contradiction E; reflexivity.
  - intros _; left; reflexivity.
  - intros _ t Ht. specialize (HQ1 t Ht). pose proof (pnonneg_sound (rho ps s' t) _ Hnn). lra.
  - intros t t' _ [].
Qed.

Lemma sound_Q_GUARD : forall u g P D Qn P1 D1 Q1 D' Q' c rg,
  valid (mkAssn P D Qn) (SAssign g c) (mkAssn P1 D1 Q1) ->
  c_lty G g = Some TBool ->
  pot_ge_under (P1 ++ fst (cond G c)) rg Q1 Q' = true ->
  dcovers D1 D' = true -> pnonneg Q1 = true -> puni G D1 Q1 = true ->
  validF u (EOpd (OVar g)) (mkAssn P D Qn) (SAssign g c) (mkAssn P1 D' Q').
Proof.
  intros u g P D Qn P1 D1 Q1 D' Q' c rg V Hty Hrw Hcov Hnn Hun.
  intros F ps s T s' Crun w Hp Hn Hne Hi Hw HA Hrun.
  destruct (V F ps s T s' Crun w Hp Hn Hne Hi Hw HA Hrun) as [[HP1 HD1] HQ1].
  cbn [aP aD aQ] in HP1, HD1, HQ1.
  inversion Hrun; subst.
  match goal with He : eeval _ _ _ _ _ _ _ _ |- _ => rename He into Hee end.
  (* the integer view of the bool [g] is 0 before and after: [rho] is unchanged *)
  assert (Hrho : forall t, In t T -> forall v, rho ps (set_local s g T R) t v = rho ps s t v).
  { intros t Ht [x|p|d]; simpl; auto. destruct (Nat.eqb_spec x g); simpl; auto.
    subst x. destruct (memb t T) eqn:E; auto.
    match goal with Hh : forall t, In t T -> has_type (R t) _ = true |- _ =>
      pose proof (Hh t Ht) as H1 end.
    match goal with Hl : c_lty G g = Some ?ty |- _ => rewrite Hty in Hl; inversion Hl; subst end.
    pose proof (Hw g TBool Hty t) as H2.
    destruct (R t) as [| |], (sl s g t) as [| |]; simpl in *; try discriminate; reflexivity. }
  unfold fpost. split; [|split; [|split; [|split]]]; cbn [aP aD aQ].
  - exact HP1.
  - intros E. eapply dsat_sub; [apply incl_filter|]. eapply dcovers_sound; eauto.
  - intros _; right. eapply dcovers_sound; eauto.
  - intros _ t Ht. specialize (HQ1 t Ht).
    pose proof (pnonneg_sound (rho ps (set_local s g T R) t) _ Hnn). lra.
  - intros t t' Ht Ht'. apply filter_In in Ht' as [Ht' Et].
    unfold etrue in Et. simpl in Et. rewrite Nat.eqb_refl, (proj2 (memb_In t' T) Ht') in Et.
    (* [c] held at [t'] before the write, so [cond(c)] holds there, before and after *)
    destruct (cond_correct F ps s c T R C t' Hp Hw Hee Ht') as [Hc _].
    assert (Hsat : sat (rho ps (set_local s g T R) t') (P1 ++ fst (cond G c))).
    { apply sat_app; [apply HP1; auto|]. apply (sat_ext (rho ps s t')).
      - intros v; symmetry; apply Hrho; auto.
      - apply Hc; auto. }
    pose proof (pot_ge_under_sound _ _ _ _ _ Hsat Hrw) as H1.
    rewrite (puni_sound ps (set_local s g T R) T D1 Q1 HD1 Hun t' t Ht' Ht) in H1.
    specialize (HQ1 t Ht). lra.
Qed.
(* ---- end issue 15 (exits15b) ---- *)

(* ---- begin issue 15 (exit15): the guard's last write (Q:WHILEGUARD) ---- *)

(** After a statement whose last write of the [bool] guard [g] is [g ← c] with
    [cond(c) ≡ GE] on every path that leaves [g] true ([guard_last]), every thread with
    [g = true] satisfies [GE] (the integer view of [g] is 0: the write leaves [rho]). *)
Lemma guard_last_sound : forall F ps s st T s' C, seval G F ps s st T s' C -> pok ps -> wt s ->
  forall g GE, c_lty G g = Some TBool -> guard_last G g GE st = true ->
  forall t, In t T -> sl s' g t = VBool true -> sat (rho ps s' t) GE.
Proof.
  intros F ps s st T s' C H; induction H; intros Hp Hw g GE Hty Hg u Hu Ht; simpl in Hg;
    try discriminate.
  - (* SC_SEQ *) eapply IHseval2; eauto. eapply run_wt; eauto.
  - (* SC_VWRITE *)
    apply andb_true_iff in Hg as [Ex Heq]. apply Nat.eqb_eq in Ex; subst x.
    assert (HR : R u = VBool true).
    { simpl in Ht. rewrite Nat.eqb_refl, (proj2 (memb_In u T) Hu) in Ht. exact Ht. }
    destruct (cond_correct F ps s e T R C u Hp Hw H Hu) as [Hc _].
    apply (cstrs_equiv_sat _ _ _ Heq). apply (sat_ext (rho ps s u)).
    + intros [x|p|d]; simpl; auto. destruct (Nat.eqb_spec x g); simpl; auto. subst x.
      rewrite (proj2 (memb_In u T) Hu), HR.
      pose proof (Hw g TBool Hty u) as H2. destruct (sl s g u); simpl in *; try discriminate; auto.
    + apply Hc. rewrite HR. reflexivity.
  - (* SC_IFT *)
    apply andb_true_iff in Hg as [Hg _]. apply orb_true_iff in Hg as [Hg|Hf].
    + eapply IHseval; eauto.
    + rewrite (falsifies_sound _ _ _ _ _ _ _ H1 g Hf u Hu) in Ht. discriminate.
  - (* SC_IFF *)
    apply andb_true_iff in Hg as [_ Hg]. apply orb_true_iff in Hg as [Hg|Hf].
    + eapply IHseval; eauto.
    + rewrite (falsifies_sound _ _ _ _ _ _ _ H1 g Hf u Hu) in Ht. discriminate.
  - (* SC_IFD *)
    apply andb_true_iff in Hg as [Hg1 Hg2].
    destruct (is_false_v (R u)) eqn:Ef.
    + (* [u] ran the else branch *)
      assert (HuF : In u (filter (fun t => is_false_v (R t)) T)) by (apply filter_In; auto).
      apply orb_true_iff in Hg2 as [Hg2|Hf].
      * eapply IHseval2; eauto. eapply run_wt; eauto.
      * rewrite (falsifies_sound _ _ _ _ _ _ _ H4 g Hf u HuF) in Ht. discriminate.
    + (* [u] ran the then branch only: its locals after are those after [s1] *)
      assert (HuF : ~ In u (filter (fun t => is_false_v (R t)) T))
        by (intros Hin; apply filter_In in Hin as [_ Hin]; congruence).
      assert (HuT : In u (filter (fun t => is_true_v (R t)) T)).
      { apply filter_In. split; auto. specialize (H0 u Hu).
        destruct (R u) as [| [] |]; simpl in *; congruence. }
      assert (Hfr : forall x, sl st2 x u = sl st1 x u)
        by (intros x; apply (frame_threads _ _ _ _ _ _ _ H4 x u HuF)).
      apply (sat_ext (rho ps st1 u)); [intros v; symmetry; apply rho_frame; auto|].
      rewrite Hfr in Ht. apply orb_true_iff in Hg1 as [Hg1|Hf].
      * eapply IHseval1; eauto.
      * rewrite (falsifies_sound _ _ _ _ _ _ _ H3 g Hf u HuT) in Ht. discriminate.
Qed.
(* ---- end issue 15 (exit15) ---- *)

(* ---- begin issue 15 (brk15): Q:IFGUARD4 (spec/logic.md §4a) ---- *)

(** The loop condition [(var g)] holds at [t] iff [g] is true there. *)
Lemma etrue_var_frame : forall F ps s s' g t, sl s' g t = sl s g t ->
  etrue F ps s' (EOpd (OVar g)) t = etrue F ps s (EOpd (OVar g)) t.
Proof. intros F ps s s' g t E. unfold etrue. simpl. rewrite E. reflexivity. Qed.

Lemma etrue_var_false : forall F ps s g t, sl s g t = VBool false ->
  etrue F ps s (EOpd (OVar g)) t = false.
Proof. intros F ps s g t E. unfold etrue. simpl. rewrite E. reflexivity. Qed.

(** The else branch ran on all threads and falsified the guard: no thread stays. *)
Lemma guard_else_all : forall u F ps g s T s' C Qp P2 Q2 P' D' Q' wje,
  entails P2 P' wje = true -> pnonneg Q2 = true ->
  (forall t, In t T -> sl s' g t = VBool false) ->
  (forall t, In t T -> sat (rho ps s' t) P2) ->
  (forall t, In t T -> C + pval (rho ps s' t) Q2 <= pval (rho ps s t) Qp) ->
  fpost u F ps (EOpd (OVar g)) s T s' C Qp (mkAssn P' D' Q').
Proof.
  intros u F ps g s T s' C Qp P2 Q2 P' D' Q' wje Hje Hnn Hg HP2 HQ2.
  assert (HTe : filter (etrue F ps s' (EOpd (OVar g))) T = []).
  { apply filter_all_false. intros t Ht. apply etrue_var_false; auto. }
  unfold fpost. rewrite HTe. split; [|split; [|split; [|split]]]; cbn [aP aD aQ].
  - intros t Ht. apply (entails_sound _ _ _ _ (HP2 t Ht) Hje).
  - intros E; contradiction E; reflexivity.
  - intros _; left; reflexivity.
  - intros _ t Ht. specialize (HQ2 t Ht). pose proof (pnonneg_sound (rho ps s' t) _ Hnn). lra.
  - intros t t' _ [].
Qed.

(** Q:IFGUARD4: the then branch (filtered) runs first on 𝒯_T; the else branch runs on 𝒯_F,
    whose locals [s1] never touched, and leaves every thread of 𝒯_F with [g = false]; the
    threads that stay are those of 𝒯_T that the then branch's filtered judgment is about. *)
Lemma sound_Q_IFGUARD4 : forall u g P D Qn QT QF c n C s1 s2 PT P1 D1 Q1 PF P2 D2 Q2 P' D' Q'
    wjt wje,
  qexpr G P D c n C ->
  cstrs_equiv PT (andc G P D c false) = true -> cstrs_equiv PF (andc G P D c true) = true ->
  validF u (EOpd (OVar g)) (mkAssn PT D QT) s1 (mkAssn P1 D1 Q1) ->
  valid (mkAssn PF D QF) s2 (mkAssn P2 D2 Q2) -> falsifies g s2 = true ->
  entails P1 P' wjt = true -> entails P2 P' wje = true ->
  dcovers D1 D' = true -> pot_ge Q1 Q' = true ->
  puni G D QT = true -> puni G D QF = true ->
  pnonneg QT = true -> pnonneg QF = true -> pnonneg Q2 = true ->
  pot_ge Qn (padd (pplus QT QF) (m_if M + C + m_div M)) = true ->
  validF false (EOpd (OVar g)) (mkAssn P D Qn) (SIf c s1 s2) (mkAssn P' D' Q').
Proof.
  intros u g P D Qn QT QF c n C s1 s2 PT P1 D1 Q1 PF P2 D2 Q2 P' D' Q' wjt wje
    Hq HPT HPF V1 V2 Hfs Hjt Hje HcD HgeQ HuT HuF HnT0 HnF0 Hnn2 Hpre.
  intros F ps s T s' Crun w Hp Hn Hne Hi Hw [HP HD] Hrun. cbn [aP aD aQ] in HP, HD.
  pose proof (m_nonneg M) as Hnn. destruct Hnn as (_ & _ & _ & _ & Hif & Hdiv & _).
  assert (Hwk : forall t, In t T ->
            pval (rho ps s t) QT + pval (rho ps s t) QF + (m_if M + C + m_div M)
            <= pval (rho ps s t) Qn).
  { intros t Ht. pose proof (pot_ge_sound (rho ps s t) _ _ Hpre) as H1.
    rewrite padd_val, pplus_val in H1. lra. }
  inversion Hrun; subst;
    match goal with H : eeval _ _ _ _ _ _ _ _ |- _ => rename H into Hee end;
    pose proof (qexpr_sound _ _ _ _ _ _ _ _ _ _ _ _ Hp Hw HP HD Hn Hne Hi Hee Hq) as Hce.
  - (* SC_IFT: only the then branch runs *)
    match goal with H : seval _ _ _ _ s1 _ _ _ |- _ => rename H into Hs end.
    assert (Hpre1 : sat_assn ps (mkAssn PT D QT) s T).
    { split; cbn [aP aD]; auto. intros t Ht; apply (cstrs_equiv_sat _ _ _ HPT).
      apply (andc_correct F ps s c T R C1 D P t Hp Hw HD Hee Ht (HP t Ht)); auto. }
    pose proof (V1 F ps s T s' C2 w Hp Hn Hne Hi Hw Hpre1 Hs) as Hf.
    assert (Hf' : fpost false F ps (EOpd (OVar g)) s T s' C2 QT (mkAssn P1 D1 Q1)).
    { destruct Hf as (H1 & H2 & _ & H4 & H5). unfold fpost.
      split; [|split; [|split; [|split]]]; auto. discriminate. }
    eapply fpost_weaken; [eapply fpost_post; [exact Hf'|eauto..]| |].
    + instantiate (1 := C1 + m_if M + m_div M). foldM. lra.
    + cbn [aQ]. intros t Ht. specialize (Hwk t Ht).
      pose proof (pnonneg_sound (rho ps s t) _ HnF0). lra.
  - (* SC_IFF: every thread takes the exit branch *)
    match goal with H : seval _ _ _ _ s2 _ _ _ |- _ => rename H into Hs end.
    assert (Hpre2 : sat_assn ps (mkAssn PF D QF) s T).
    { split; cbn [aP aD]; auto. intros t Ht; apply (cstrs_equiv_sat _ _ _ HPF).
      apply (andc_correct F ps s c T R C1 D P t Hp Hw HD Hee Ht (HP t Ht)); auto. }
    destruct (V2 F ps s T s' C2 w Hp Hn Hne Hi Hw Hpre2 Hs) as [[HP2 _] HQ2].
    cbn [aP aQ] in HP2, HQ2.
    eapply (guard_else_all false F ps g s T s' _ Qn P2 Q2); eauto.
    + intros t Ht. eapply falsifies_sound; eauto.
    + intros t Ht. specialize (HQ2 t Ht). specialize (Hwk t Ht).
      pose proof (pnonneg_sound (rho ps s t) _ HnT0). foldM. lra.
  - (* SC_IFD: the then branch on 𝒯_T, the exit branch on 𝒯_F *)
    match goal with H : seval _ _ _ _ s1 _ _ _ |- _ => rename H into Hs1 end.
    match goal with H : seval _ _ _ _ s2 _ _ _ |- _ => rename H into Hs2 end.
    match goal with H : forall t, In t T -> is_bool_v _ = true |- _ => rename H into Hbool end.
    match goal with H : filter (fun t => is_true_v _) T <> [] |- _ => rename H into HneT end.
    match goal with H : filter (fun t => is_false_v _) T <> [] |- _ => rename H into HneF end.
    set (TT := filter (fun t => is_true_v (R t)) T) in *.
    set (TF := filter (fun t => is_false_v (R t)) T) in *.
    assert (HTT : forall t, In t TT <-> In t T /\ is_true_v (R t) = true) by
      (intros; unfold TT; apply filter_In).
    assert (HTF : forall t, In t TF <-> In t T /\ is_false_v (R t) = true) by
      (intros; unfold TF; apply filter_In).
    assert (HTTF : forall t, In t TF -> ~ In t TT).
    { intros t H1 H2. apply HTF in H1; apply HTT in H2.
      destruct H1 as [_ H1], H2 as [_ H2]. destruct (R t) as [| [] |]; discriminate. }
    assert (HTFT : forall t, In t TT -> ~ In t TF) by (intros t H1 H2; eapply HTTF; eauto).
    assert (HnT : NoDup TT) by (apply NoDup_filter; auto).
    assert (HnF : NoDup TF) by (apply NoDup_filter; auto).
    assert (HiT : incl TT (lanes G w)) by (eapply incl_tran; [apply incl_filter|]; auto).
    assert (HiF : incl TF (lanes G w)) by (eapply incl_tran; [apply incl_filter|]; auto).
    assert (Hpre1 : sat_assn ps (mkAssn PT D QT) s TT).
    { split; cbn [aP aD].
      - intros t Ht. apply HTT in Ht as [Ht Hr]. apply (cstrs_equiv_sat _ _ _ HPT).
        apply (andc_correct F ps s c T R C1 D P t Hp Hw HD Hee Ht (HP t Ht)); auto.
      - eapply dsat_sub; [apply incl_filter | exact HD]. }
    destruct (V1 F ps s TT st1 C2 w Hp HnT HneT HiT Hw Hpre1 Hs1)
      as (HP1 & HD1 & _ & HE1 & HQ1).
    cbn [aP aD aQ] in HP1, HD1, HE1, HQ1.
    assert (Hst1 : forall x t, In t TF -> sl st1 x t = sl s x t) by
      (intros; eapply frame_threads; eauto).
    assert (Hpre2 : sat_assn ps (mkAssn PF D QF) st1 TF).
    { split; cbn [aP aD].
      - intros t Ht. apply (sat_ext (rho ps s t)); [intros; symmetry; apply rho_frame; auto|].
        apply HTF in Ht as [Ht Hr]. apply (cstrs_equiv_sat _ _ _ HPF).
        apply (andc_correct F ps s c T R C1 D P t Hp Hw HD Hee Ht (HP t Ht)); auto.
      - apply (dsat_threads s); auto. eapply dsat_sub; [apply incl_filter | exact HD]. }
    destruct (V2 F ps st1 TF s' C3 w Hp HnF HneF HiF (run_wt _ _ _ _ _ _ _ Hs1 Hw) Hpre2 Hs2)
      as [[HP2 _] HQ2].
    cbn [aP aD aQ] in HP2, HQ2.
    assert (Hs'1 : forall x t, In t TT -> sl s' x t = sl st1 x t) by
      (intros; eapply frame_threads; eauto).
    assert (HgF : forall t, In t TF -> sl s' g t = VBool false) by
      (intros; eapply falsifies_sound; eauto).
    (* the threads that stay: those of 𝒯_T that satisfy [g] after the then branch *)
    set (ge := EOpd (OVar g)) in *.
    assert (HTe : forall t, In t (filter (etrue F ps s' ge) T) <->
                            In t (filter (etrue F ps st1 ge) TT)).
    { intros t. rewrite !filter_In. split; intros [Ht E].
      - specialize (Hbool t Ht).
        destruct (R t) as [| [] |] eqn:Er; try discriminate.
        + assert (HtT : In t TT) by (apply HTT; rewrite Er; auto). split; auto.
          unfold ge. rewrite <- (etrue_var_frame F ps st1 s' g t); auto.
        + assert (HtF : In t TF) by (apply HTF; rewrite Er; auto).
          unfold ge in E. rewrite (etrue_var_false F ps s' g t (HgF t HtF)) in E. discriminate.
      - assert (HtT : In t TT) by exact Ht. apply HTT in Ht as [Ht _]. split; auto.
        unfold ge. rewrite (etrue_var_frame F ps st1 s' g t); auto. }
    destruct (nonempty_elem _ HneT) as [tT HtT].
    destruct (nonempty_elem _ HneF) as [tF HtF].
    assert (HtT' : In tT T) by (apply HTT in HtT; tauto).
    assert (HtF' : In tF T) by (apply HTF in HtF; tauto).
    assert (HQF : forall t, In t T -> pval (rho ps st1 tF) QF = pval (rho ps s t) QF).
    { intros t Ht. rewrite (pval_ext _ (rho ps s tF)) by (apply rho_frame; auto).
      apply (puni_sound ps s T D QF HD HuF tF t); auto. }
    assert (HQT : forall t, In t T -> pval (rho ps s tT) QT = pval (rho ps s t) QT).
    { intros t Ht. apply (puni_sound ps s T D QT HD HuT tT t); auto. }
    assert (HQF' : forall t, In t T -> pval (rho ps s tT) QF = pval (rho ps s t) QF).
    { intros t Ht. apply (puni_sound ps s T D QF HD HuF tT t); auto. }
    assert (HC3 : C3 <= pval (rho ps s tT) QF).
    { specialize (HQ2 tF HtF). pose proof (pnonneg_sound (rho ps s' tF) _ Hnn2).
      rewrite (HQF tT HtT') in HQ2. lra. }
    unfold fpost. split; [|split; [|split; [|split]]]; cbn [aP aD aQ].
    + intros t Ht. specialize (Hbool t Ht).
      destruct (R t) as [| [] |] eqn:Er; try discriminate.
      * assert (HtT2 : In t TT) by (apply HTT; rewrite Er; auto).
        apply (sat_ext (rho ps st1 t)); [intros; symmetry; apply rho_frame; auto|].
        apply (entails_sound _ _ _ _ (HP1 t HtT2) Hjt).
      * assert (HtF2 : In t TF) by (apply HTF; rewrite Er; auto).
        apply (entails_sound _ _ _ _ (HP2 t HtF2) Hje).
    + intros E. assert (E' : filter (etrue F ps st1 ge) TT <> []).
      { intros E2. apply E. apply (same_elems_nil _ _ (fun t Ht => proj1 (HTe t) Ht) E2). }
      eapply dsat_sub; [intros t Ht; exact (proj1 (HTe t) Ht)|].
      apply (dsat_threads st1).
      * intros x t Ht. apply filter_In in Ht as [Ht _]. auto.
      * eapply dcovers_sound; [|exact (HD1 E')]; auto.
    + discriminate.
    + intros E t Ht. assert (E' : filter (etrue F ps st1 ge) TT = []).
      { apply (same_elems_nil _ _ (fun t Ht => proj2 (HTe t) Ht) E). }
      specialize (HE1 E' tT HtT). rewrite (HQT t Ht) in HE1.
      rewrite (HQF' t Ht) in HC3. specialize (Hwk t Ht). foldM. lra.
    + intros t t' Ht Ht'. apply HTe in Ht'.
      assert (Ht'T : In t' TT) by (apply filter_In in Ht'; tauto).
      specialize (HQ1 tT t' HtT Ht'). rewrite (HQT t Ht) in HQ1.
      rewrite (pval_ext (rho ps s' t') (rho ps st1 t')) in * by (apply rho_frame; auto).
      rewrite (HQF' t Ht) in HC3. specialize (Hwk t Ht).
      pose proof (pot_ge_sound (rho ps st1 t') _ _ HgeQ) as H3. foldM. lra.
Qed.
(* ---- end issue 15 (brk15) ---- *)

(** ** Q:WHILEEXIT1 and Q:WHILEEXIT2

    [kk uf C] is the cost of one loop test: [M^if + C], plus [M^div] for Q:WHILEEXIT2. *)
Definition kk (uf : bool) (C : Q) : Q := if uf then m_if M + C else m_if M + m_div M + C.

(** The potential [Φ] of spec/logic.md §4a by induction on the loop's run: on [𝒯] with
    [P] on every thread and [D] on the threads [𝒯ₑ] that satisfy [e], the loop costs at most
    [k] if [𝒯ₑ = ∅], else [k + I + k] with [I] on any thread of [𝒯ₑ].  In the uniform mode
    ([uf], Q:WHILEEXIT1), [D] holds on all of [𝒯] or [𝒯ₑ = ∅], so the test never splits. *)
Lemma whileexit_loop : forall uf GE P D e n C b B PB I QB',
  qexpr G P D e n C -> noread e = true ->
  (uf = true -> unif G (dunif G D) e = true) ->
  validF uf e (mkAssn B D I) b (mkAssn PB D QB') ->
  cstrs_equiv B (P ++ fst (cond G e) ++ GE) = true -> cstrs_equiv PB P = true ->
  (forall r, sat r (PB ++ GE) -> pval r (padd I (kk uf C)) <= pval r QB') ->
  (forall F ps s T s' C, seval G F ps s b T s' C -> pok ps -> wt s ->
     forall t, In t T -> etrue F ps s' e t = true -> sat (rho ps s' t) GE) ->
  forall F ps s sw T s' Cr, seval G F ps s sw T s' Cr -> sw = SWhile e b ->
  forall w, pok ps -> NoDup T -> T <> [] -> incl T (lanes G w) -> wt s ->
  (forall t, In t T -> sat (rho ps s t) P) ->
  (filter (etrue F ps s e) T <> [] -> dsat ps s (filter (etrue F ps s e) T) D) ->
  (uf = true -> filter (etrue F ps s e) T = [] \/ dsat ps s T D) ->
  (forall t, In t (filter (etrue F ps s e) T) -> sat (rho ps s t) GE) ->
  (forall t, In t T -> sat (rho ps s' t) (P ++ snd (cond G e))) /\
  (filter (etrue F ps s e) T = [] -> Cr <= m_if M + C) /\
  (forall te, In te (filter (etrue F ps s e) T) ->
     Cr <= kk uf C + pval (rho ps s te) I + (m_if M + C)).
Proof.
  intros uf GE P D e n C b B PB I QB' Hq Hnr Hu V HB HPB HQB' HGb F ps s sw T s' Cr Hrun.
  pose proof (m_nonneg M) as Hnn. destruct Hnn as (_ & _ & _ & _ & Hif & Hdiv & _).
  assert (Hk : forall C1, C1 <= C -> m_if M + C1 <= kk uf C)
    by (intros; unfold kk; destruct uf; lra).
  induction Hrun; intros Esw; inversion Esw; subst; intros w Hp Hn Hne Hi Hw HP HD HU HG.
  - (* SC_WHILEALL *)
    pose proof (qexpr_noread _ _ _ _ _ _ _ _ _ _ _ Hnr H Hq) as Hce.
    assert (HTe : forall t, In t T -> In t (filter (etrue F ps s e) T)).
    { intros t Ht. apply filter_In. split; auto. rewrite (etrue_R _ _ _ _ _ _ _ H t Ht). auto. }
    assert (HTe' : filter (etrue F ps s e) T <> []).
    { intros E. destruct (nonempty_elem _ Hne) as [t Ht]. specialize (HTe t Ht).
      rewrite E in HTe. contradiction. }
    assert (Hpre : sat_assn ps (mkAssn B D I) s T).
    { split; cbn [aP aD].
      - intros t Ht. apply (cstrs_equiv_sat _ _ _ HB). apply sat_app; auto. apply sat_app.
        + apply (proj1 (cond_correct F ps s e T R C1 t Hp Hw H Ht)); auto.
        + apply HG; auto.
      - eapply dsat_sub; [|exact (HD HTe')]. intros t Ht; auto. }
    destruct (V F ps s T st1 C2 w Hp Hn Hne Hi Hw Hpre Hrun1) as (HP1 & HD1 & HU1 & HE1 & HQ1).
    cbn [aP aD aQ] in *.
    assert (HG1 : forall t, In t (filter (etrue F ps st1 e) T) -> sat (rho ps st1 t) GE).
    { intros t Ht. apply filter_In in Ht as [Ht1 Ht2]. eapply HGb; eauto. }
    destruct (IHHrun2 eq_refl w Hp Hn Hne Hi (run_wt _ _ _ _ _ _ _ Hrun1 Hw)
                (fun t Ht => cstrs_equiv_sat' _ _ _ HPB (HP1 t Ht)) HD1 HU1 HG1)
      as (Hpost & HC0 & HC1).
    split; [exact Hpost|split].
    + intros E; contradiction.
    + intros te Hte. apply filter_In in Hte as [Hte _]. specialize (Hk C1 Hce).
      destruct (filter (etrue F ps st1 e) T) as [|t1 l] eqn:E1.
      * specialize (HE1 eq_refl te Hte). specialize (HC0 eq_refl). foldM. lra.
      * assert (Ht1 : In t1 (t1 :: l)) by (left; auto).
        assert (Ht1g : sat (rho ps st1 t1) (PB ++ GE)).
        { assert (Hf : In t1 (filter (etrue F ps st1 e) T)) by (rewrite E1; exact Ht1).
          pose proof (HG1 t1 ltac:(first [exact Hf | exact Ht1])) as Hg. apply filter_In in Hf as [Hf _].
          apply sat_app; auto. }
        specialize (HQ1 te t1 Hte Ht1). specialize (HC1 t1 Ht1).
        pose proof (HQB' _ Ht1g) as H3. rewrite padd_val in H3.
        foldM. lra.
  - (* SC_WHILESOME: impossible in the uniform mode *)
    pose proof (qexpr_noread _ _ _ _ _ _ _ _ _ _ _ Hnr H Hq) as Hce.
    assert (Hnu : uf = false).
    { destruct uf; auto. exfalso. destruct (HU eq_refl) as [E|HDT].
      - destruct (nonempty_elem _ H1) as [t1 Ht1]. apply filter_In in Ht1 as [Ht1 E1].
        pose proof (filter_nil_notin _ _ _ E Ht1) as E2.
        rewrite (etrue_R _ _ _ _ _ _ _ H t1 Ht1) in E2. congruence.
      - destruct (nonempty_elem _ H1) as [t1 Ht1]. destruct (nonempty_elem _ H2) as [t2 Ht2].
        apply filter_In in Ht1 as [Ht1 E1]. apply filter_In in Ht2 as [Ht2 E2].
        assert (HX : forall x, memn x (dunif G D) = true -> forall t t', In t T -> In t' T ->
                  sl s x t = sl s x t') by (intros; eapply dunif_sound; eauto).
        rewrite (unif_correct F ps s e T R C1 (dunif G D) w (Hu eq_refl) H Hi HX t1 t2 Ht1 Ht2)
          in E1.
        destruct (R t2) as [| [] |]; discriminate. }
    subst uf.
    set (TT := filter (fun t => is_true_v (R t)) T) in *.
    assert (HTT : forall t, In t TT <-> In t (filter (etrue F ps s e) T)).
    { intros t. unfold TT. rewrite !filter_In. split; intros [Ht E]; split; auto;
        rewrite (etrue_R _ _ _ _ _ _ _ H t Ht) in *; auto. }
    assert (HTe' : filter (etrue F ps s e) T <> []).
    { intros E. destruct (nonempty_elem _ H1) as [t Ht]. apply HTT in Ht.
      rewrite E in Ht. contradiction. }
    assert (HnT : NoDup TT) by (apply NoDup_filter; auto).
    assert (HiT : incl TT (lanes G w)) by (eapply incl_tran; [apply incl_filter|]; auto).
    assert (Hpre : sat_assn ps (mkAssn B D I) s TT).
    { split; cbn [aP aD].
      - intros t Ht. pose proof Ht as Ht0. apply filter_In in Ht as [Ht Hr].
        apply (cstrs_equiv_sat _ _ _ HB). apply sat_app; auto. apply sat_app.
        + apply (proj1 (cond_correct F ps s e T R C1 t Hp Hw H Ht)); auto.
        + apply HG, HTT; auto.
      - eapply dsat_sub; [|exact (HD HTe')]. intros t Ht; apply HTT; auto. }
    destruct (V F ps s TT st1 C2 w Hp HnT H1 HiT Hw Hpre Hrun1) as (HP1 & HD1 & _ & HE1 & HQ1).
    cbn [aP aD aQ] in *.
    assert (HG1 : forall t, In t (filter (etrue F ps st1 e) TT) -> sat (rho ps st1 t) GE).
    { intros t Ht. apply filter_In in Ht as [Ht1 Ht2]. eapply HGb; eauto. }
    destruct (IHHrun2 eq_refl w Hp HnT H1 HiT (run_wt _ _ _ _ _ _ _ Hrun1 Hw)
                (fun t Ht => cstrs_equiv_sat' _ _ _ HPB (HP1 t Ht)) HD1
                (fun E => False_ind _ (diff_false_true E)) HG1)
      as (Hpost & HC0 & HC1).
    split; [|split].
    + intros t Ht. specialize (H0 t Ht). destruct (R t) as [| [] |] eqn:Er; try discriminate.
      * apply Hpost. unfold TT. apply filter_In. rewrite Er; auto.
      * assert (HtT2 : ~ In t TT) by
          (intros Hin; apply filter_In in Hin as [_ Hin]; rewrite Er in Hin; discriminate).
        apply (sat_ext (rho ps s t)).
        -- intros v. symmetry. apply rho_frame. intros x.
           rewrite (frame_threads _ _ _ _ _ _ _ Hrun2 x t HtT2).
           apply (frame_threads _ _ _ _ _ _ _ Hrun1 x t HtT2).
        -- apply sat_app; auto. apply (proj2 (cond_correct F ps s e T R C1 t Hp Hw H Ht)).
           rewrite Er; auto.
    + intros E; contradiction.
    + intros te Hte. apply HTT in Hte. specialize (Hk C1 Hce).
      assert (Hk2 : m_if M + m_div M + C1 <= kk false C) by (unfold kk; lra).
      destruct (filter (etrue F ps st1 e) TT) as [|t1 l] eqn:E1.
      * specialize (HE1 eq_refl te Hte). specialize (HC0 eq_refl). foldM. lra.
      * assert (Ht1 : In t1 (t1 :: l)) by (left; auto).
        assert (Ht1g : sat (rho ps st1 t1) (PB ++ GE)).
        { assert (Hf : In t1 (filter (etrue F ps st1 e) TT)) by (rewrite E1; exact Ht1).
          pose proof (HG1 t1 ltac:(first [exact Hf | exact Ht1])) as Hg. apply filter_In in Hf as [Hf _].
          apply sat_app; auto. }
        specialize (HQ1 te t1 Hte Ht1). specialize (HC1 t1 Ht1).
        pose proof (HQB' _ Ht1g) as H3. rewrite padd_val in H3.
        foldM. lra.
  - (* SC_WHILENONE *)
    pose proof (qexpr_noread _ _ _ _ _ _ _ _ _ _ _ Hnr H Hq) as Hce.
    assert (HTe : filter (etrue F ps s e) T = []).
    { apply filter_all_false. intros t Ht. rewrite (etrue_R _ _ _ _ _ _ _ H t Ht).
      specialize (H0 t Ht). destruct (R t) as [| [] |]; auto; discriminate. }
    split; [|split].
    + intros t Ht. apply sat_app; auto.
      apply (proj2 (cond_correct F ps s e T R C0 t Hp Hw H Ht)); auto.
    + intros _. foldM. lra.
    + rewrite HTe. intros te [].
Qed.

(** The loop of Q:WHILEEXIT1/2 and Q:WHILEGUARD on one run: [GE] are facts that the
    threads satisfying [e] have on entry and after every round (the guard's condition for
    Q:WHILEGUARD, [[]] for Q:WHILEEXIT1/2). The pre's potential [Qn] pays [Q' + k2] (the
    last test) on every store ([Hnone]), and the first round [I + k] too when a thread [te]
    enters the body, which then satisfies [P ++ GE] ([Hsome]). *)
Lemma whileexit_run : forall uf GE P D Qn Q' e n C b B I PB QB' P' D' k2,
  qexpr G P D e n C -> noread e = true -> (uf = true -> unif G (dunif G D) e = true) ->
  validF uf e (mkAssn B D I) b (mkAssn PB D QB') ->
  cstrs_equiv B (P ++ fst (cond G e) ++ GE) = true -> cstrs_equiv PB P = true ->
  (forall r, sat r (PB ++ GE) -> pval r (padd I (kk uf C)) <= pval r QB') ->
  (forall F ps s T s' C, seval G F ps s b T s' C -> pok ps -> wt s ->
     forall t, In t T -> etrue F ps s' e t = true -> sat (rho ps s' t) GE) ->
  m_if M + C <= k2 ->
  (forall ps s t, pval (rho ps s t) Q' + k2 <= pval (rho ps s t) Qn) ->
  (forall ps s T t te, dsat ps s T D -> In t T -> In te T -> sat (rho ps s te) (P ++ GE) ->
     pval (rho ps s te) I + kk uf C + pval (rho ps s t) Q' + k2 <= pval (rho ps s t) Qn) ->
  cstrs_equiv P' (P ++ snd (cond G e)) = true ->
  dcovers D D' = true -> disjoint (dvars D') (writes b) = true ->
  puni G D' Q' = true ->
  forall F ps s T s' Crun w, pok ps -> NoDup T -> T <> [] -> incl T (lanes G w) -> wt s ->
  sat_assn ps (mkAssn P D Qn) s T ->
  (forall t, In t (filter (etrue F ps s e) T) -> sat (rho ps s t) GE) ->
  seval G F ps s (SWhile e b) T s' Crun ->
  sat_assn ps (mkAssn P' D' Q') s' T /\
  forall t, In t T -> Crun + pval (rho ps s' t) Q' <= pval (rho ps s t) Qn.
Proof.
  intros uf GE P D Qn Q' e n C b B I PB QB' P' D' k2 Hq Hnr Hu V HB HPB HQB' HGb Hk2 Hnone
    Hsome HP' HcD HdD HuQ F ps s T s' Crun w Hp Hn Hne Hi Hw [HP HD] HG Hrun.
  cbn [aP aD aQ] in HP, HD.
  destruct (whileexit_loop uf GE P D e n C b B PB I QB' Hq Hnr Hu V HB HPB HQB' HGb
              F ps s _ T s' Crun Hrun eq_refl w Hp Hn Hne Hi Hw HP
              (fun _ => dsat_sub _ _ _ _ (incl_filter _ _) HD) (fun _ => or_intror HD) HG)
    as (Hpost & HC0 & HC1).
  assert (HF : forall x t, ~ In x (writes b) -> sl s' x t = sl s x t)
    by (intros; eapply (frame_writes _ _ _ _ _ _ _ Hrun); simpl; auto).
  split; [split|].
  - intros t Ht; apply (cstrs_equiv_sat _ _ _ HP'); auto.
  - eapply dsat_frame; eauto.
  - intros t Ht. cbn [aQ].
    rewrite (puni_frame ps s s' D' Q' t HuQ)
      by (intros x Hx; apply HF; eapply disjoint_In; eauto).
    pose proof (Hnone ps s t) as H0.
    destruct (filter (etrue F ps s e) T) as [|te l] eqn:E.
    + specialize (HC0 eq_refl). lra.
    + assert (Hte : In te (te :: l)) by (left; auto). specialize (HC1 te Hte).
      pose proof (HG te ltac:(first [exact Hte | rewrite E; exact Hte])) as Hge.
      rewrite <- E in Hte. apply filter_In in Hte as [Hte _].
      pose proof (Hsome ps s T t te HD Ht Hte (sat_app _ _ _ (HP te Hte) Hge)) as H1. lra.
Qed.

Lemma sound_whileexit : forall uf P D Qn Q' e n C b B I PB QB' P' D',
  qexpr G P D e n C -> noread e = true -> (uf = true -> unif G (dunif G D) e = true) ->
  validF uf e (mkAssn B D I) b (mkAssn PB D QB') ->
  cstrs_equiv B (P ++ fst (cond G e)) = true -> cstrs_equiv PB P = true ->
  pot_ge QB' (padd I (kk uf C)) = true ->
  pot_ge Qn (padd (pplus I Q') (kk uf C + kk uf C)) = true ->
  cstrs_equiv P' (P ++ snd (cond G e)) = true ->
  dcovers D D' = true -> disjoint (dvars D') (writes b) = true ->
  puni G D I = true -> pnonneg I = true -> puni G D' Q' = true ->
  valid (mkAssn P D Qn) (SWhile e b) (mkAssn P' D' Q').
Proof.
  intros uf P D Qn Q' e n C b B I PB QB' P' D' Hq Hnr Hu V HB HPB HQB' Hpre HP' HcD HdD HuI HnI
    HuQ F ps s T s' Crun w Hp Hn Hne Hi Hw HA Hrun.
  assert (HB' : cstrs_equiv B (P ++ fst (cond G e) ++ []) = true) by (rewrite app_nil_r; exact HB).
  assert (HkC : 0 <= kk uf C /\ m_if M + C <= kk uf C).
  { pose proof (qexpr_noread_nonneg _ _ _ _ _ Hnr Hq).
    pose proof (m_nonneg M) as (_ & _ & _ & _ & Hif & Hdiv & _). unfold kk; destruct uf; lra. }
  destruct HkC as [HkC Hk2].
  assert (HQB'' : forall r, sat r (PB ++ []) -> pval r (padd I (kk uf C)) <= pval r QB')
    by (intros r _; apply pot_ge_sound; auto).
  assert (Hnone : forall ps s t, pval (rho ps s t) Q' + kk uf C <= pval (rho ps s t) Qn).
  { intros ps' s1 t. pose proof (pot_ge_sound (rho ps' s1 t) _ _ Hpre) as H1.
    rewrite padd_val, pplus_val in H1. pose proof (pnonneg_sound (rho ps' s1 t) _ HnI). lra. }
  assert (Hsome : forall ps s T t te, dsat ps s T D -> In t T -> In te T -> sat (rho ps s te) (P ++ []) ->
     pval (rho ps s te) I + kk uf C + pval (rho ps s t) Q' + kk uf C <= pval (rho ps s t) Qn).
  { intros ps' s1 T1 t te HD1 Ht Hte _. pose proof (pot_ge_sound (rho ps' s1 t) _ _ Hpre) as H1.
    rewrite padd_val, pplus_val in H1.
    rewrite (puni_sound ps' s1 T1 D I HD1 HuI te t) by auto. lra. }
  eapply (whileexit_run uf [] P D Qn Q' e n C b B I PB QB' P' D' (kk uf C) Hq Hnr Hu V HB' HPB
            HQB'' ltac:(intros; intros c []) Hk2 Hnone Hsome HP' HcD HdD HuQ); eauto;
    intros; intros c [].
Qed.

(* ---- begin issue 15 (exit15): Q:WHILEGUARD (spec/logic.md §4a) ---- *)

(** [s0; while (g) s]: the threads entering the body satisfy the guard's condition [GE],
    by its last write before the loop ([s0]) and at the end of every round ([s]). *)
Lemma sound_Q_WHILEGUARD : forall uf A s0 g GE P D Qn Q' n C b B I PB QB' P' D' rg,
  valid A s0 (mkAssn P D Qn) -> c_lty G g = Some TBool ->
  guard_last G g GE s0 = true -> guard_last G g GE b = true ->
  qexpr G P D (EOpd (OVar g)) n C ->
  (uf = true -> unif G (dunif G D) (EOpd (OVar g)) = true) ->
  validF uf (EOpd (OVar g)) (mkAssn B D I) b (mkAssn PB D QB') ->
  cstrs_equiv B (P ++ GE) = true -> cstrs_equiv PB P = true ->
  pot_ge_under B rg QB' (padd I (kk uf C)) = true ->
  pot_ge Qn (padd (pplus QB' Q') (m_if M + C)) = true ->
  cstrs_equiv P' P = true ->
  dcovers D D' = true -> disjoint (dvars D') (writes b) = true ->
  puni G D QB' = true -> pnonneg QB' = true -> puni G D' Q' = true ->
  valid A (SSeq s0 (SWhile (EOpd (OVar g)) b)) (mkAssn P' D' Q').
Proof.
  intros uf A s0 g GE P D Qn Q' n C b B I PB QB' P' D' rg V0 Hty Hg0 Hgb Hq Hu V HB HPB HQB'
    Hpre HP' HcD HdD HuJ HnJ HuQ F ps s T s' Crun w Hp Hn Hne Hi Hw HA Hrun.
  inversion Hrun; subst.
  match goal with H1 : seval _ _ _ s s0 T ?a ?c1, H2 : seval _ _ _ ?a (SWhile _ _) T s' ?c2 |- _ =>
    rename H1 into Hr0, H2 into Hr1, a into st1, c1 into C1, c2 into C2 end.
  destruct (V0 F ps s T st1 C1 w Hp Hn Hne Hi Hw HA Hr0) as [HA1 HQ0]. cbn [aQ] in HQ0.
  assert (Hw1 : wt st1) by (eapply run_wt; eauto).
  assert (Hev : forall F ps s' t, etrue F ps s' (EOpd (OVar g)) t = true -> sl s' g t = VBool true).
  { intros F' ps' s1 t E. unfold etrue in E. simpl in E. destruct (sl s1 g t) as [| [] |];
      simpl in E; try discriminate; reflexivity. }
  assert (HGb : forall F ps s T s' C, seval G F ps s b T s' C -> pok ps -> wt s ->
     forall t, In t T -> etrue F ps s' (EOpd (OVar g)) t = true -> sat (rho ps s' t) GE).
  { intros F' ps' s1 T' s2 C' Hr Hp' Hw' t Ht E. eapply guard_last_sound; eauto. }
  assert (HG : forall t, In t (filter (etrue F ps st1 (EOpd (OVar g))) T) -> sat (rho ps st1 t) GE).
  { intros t Ht. apply filter_In in Ht as [Ht E]. eapply guard_last_sound; eauto. }
  assert (HB' : cstrs_equiv B (P ++ fst (cond G (EOpd (OVar g))) ++ GE) = true) by exact HB.
  assert (HP'' : cstrs_equiv P' (P ++ snd (cond G (EOpd (OVar g)))) = true)
    by (simpl; rewrite app_nil_r; exact HP').
  (* the body's post [QB'] pays the round [I + k] where a thread enters it: there [P ++ GE] *)
  assert (HJ : forall r, sat r (P ++ GE) -> pval r (padd I (kk uf C)) <= pval r QB')
    by (intros r Hr; apply (pot_ge_under_sound r B rg); auto; apply (cstrs_equiv_sat _ _ _ HB Hr)).
  assert (HQB'' : forall r, sat r (PB ++ GE) -> pval r (padd I (kk uf C)) <= pval r QB').
  { intros r Hr. apply HJ, sat_app.
    - apply (cstrs_equiv_sat' _ _ _ HPB). eapply sat_app_l; eauto.
    - intros c Hc. apply Hr, in_app_iff; auto. }
  assert (Hnone : forall ps s t, pval (rho ps s t) Q' + (m_if M + C) <= pval (rho ps s t) Qn).
  { intros ps' s1 t. pose proof (pot_ge_sound (rho ps' s1 t) _ _ Hpre) as H1.
    rewrite padd_val, pplus_val in H1. pose proof (pnonneg_sound (rho ps' s1 t) _ HnJ). lra. }
  assert (Hsome : forall ps s T t te, dsat ps s T D -> In t T -> In te T -> sat (rho ps s te) (P ++ GE) ->
     pval (rho ps s te) I + kk uf C + pval (rho ps s t) Q' + (m_if M + C) <= pval (rho ps s t) Qn).
  { intros ps' s1 T1 t te HD1 Ht Hte Hs. pose proof (pot_ge_sound (rho ps' s1 t) _ _ Hpre) as H1.
    rewrite padd_val, pplus_val in H1. pose proof (HJ _ Hs) as H2. rewrite padd_val in H2.
    rewrite (puni_sound ps' s1 T1 D QB' HD1 HuJ te t) in H2 by auto. lra. }
  destruct (whileexit_run uf GE P D Qn Q' (EOpd (OVar g)) n C b B I PB QB' P' D' (m_if M + C) Hq
              eq_refl Hu V
              HB' HPB HQB'' HGb (Qle_refl _) Hnone Hsome HP'' HcD HdD HuQ F ps st1 T s' C2 w Hp Hn Hne Hi Hw1
              HA1 HG Hr1) as [HA' HQ1].
  split; auto. intros t Ht. specialize (HQ0 t Ht). specialize (HQ1 t Ht). cbn [aQ] in *. lra.
Qed.

(** SEQ_ASSOC: sequences are associative. *)
Lemma sound_SEQ_ASSOC : forall A A' s1 s2 s3,
  valid A (SSeq (SSeq s1 s2) s3) A' -> valid A (SSeq s1 (SSeq s2 s3)) A'.
Proof.
  intros A A' s1 s2 s3 V F ps s T s' Crun w Hp Hn Hne Hi Hw HA Hrun.
  inversion Hrun; subst. match goal with H : seval _ _ _ _ (SSeq s2 s3) _ _ _ |- _ =>
    inversion H; subst end.
  match goal with H1 : seval _ _ _ s s1 T ?a ?c1, H2 : seval _ _ _ ?a s2 T ?b ?c2,
    H3 : seval _ _ _ ?b s3 T s' ?c3 |- _ =>
    destruct (V F ps s T s' (c1 + c2 + c3) w Hp Hn Hne Hi Hw HA
      (SC_SEQ _ _ _ _ _ _ _ _ _ _ _ (SC_SEQ _ _ _ _ _ _ _ _ _ _ _ H1 H2) H3)) as [HA' HQ] end.
  split; auto. intros t Ht. specialize (HQ t Ht). lra.
Qed.
(* ---- end issue 15 (exit15) ---- *)

(* ---- begin issue 15 (exit16): Q:FLAGEXIT (spec/logic.md §4a) ---- *)

(** A potential uniform under the empty map reads no local and no thread index: one value
    on every store and thread. *)
Lemma puni_nil_const : forall ps s s' t t' Q1, puni G [] Q1 = true ->
  pval (rho ps s' t') Q1 = pval (rho ps s t) Q1.
Proof.
  intros ps s s' t t' Q1 H.
  rewrite (puni_frame ps s s' [] Q1 t' H) by (intros x []).
  assert (Hd : dsat ps s [t; t'] []) by (intros d []).
  apply (puni_sound ps s [t; t'] [] Q1 Hd H t' t); simpl; auto.
Qed.

(** Q:FLAGEXIT: [s1] runs on 𝒯 (filtered for the flag test [f]: [D1] and [Q1] on the
    threads 𝒯_f that pass [f] afterwards); the test runs on 𝒯 (it reads no array, so its cost
    needs no [D]); 𝒯_f runs [s2] (filtered for the guard), the others run [s3], which leaves
    [g] false, paid by [QF], which reads no local. *)
Lemma sound_Q_FLAGEXIT : forall u1 u2 g f P D Qn Q0 QF s1 s2 s3 n C P1 D1 Q1 PT P2 D2 Q2 P3 D3
    Q3 P' D' Q' wjt wje,
  validF u1 f (mkAssn P D Q0) s1 (mkAssn P1 D1 Q1) ->
  noread f = true -> qexpr G P1 D1 f n C ->
  cstrs_equiv PT (P1 ++ fst (cond G f)) = true ->
  validF u2 (EOpd (OVar g)) (mkAssn PT D1 Q1) s2 (mkAssn P2 D2 Q2) ->
  valid (mkAssn P1 [] QF) s3 (mkAssn P3 D3 Q3) -> falsifies g s3 = true ->
  entails P2 P' wjt = true -> entails P3 P' wje = true ->
  dcovers D2 D' = true -> pot_ge Q2 Q' = true ->
  puni G [] QF = true -> pnonneg QF = true -> pnonneg Q3 = true ->
  pot_ge Qn (padd (pplus Q0 QF) (m_if M + C + m_div M)) = true ->
  validF false (EOpd (OVar g)) (mkAssn P D Qn) (SSeq s1 (SIf f s2 s3)) (mkAssn P' D' Q').
Proof.
  intros u1 u2 g f P D Qn Q0 QF s1 s2 s3 n C P1 D1 Q1 PT P2 D2 Q2 P3 D3 Q3 P' D' Q' wjt wje
    V1 Hnr Hq HPT V2 V3 Hfs Hjt Hje HcD HgeQ HuF HnF0 Hn3 Hpre.
  intros F ps s T s' Crun w Hp Hn Hne Hi Hw HA Hrun.
  pose proof (m_nonneg M) as Hnn. destruct Hnn as (_ & _ & _ & _ & Hif & Hdiv & _).
  inversion Hrun; subst.
  match goal with H1 : seval _ _ _ s s1 T ?a ?c1, H2 : seval _ _ _ ?a (SIf _ _ _) T s' ?c2 |- _ =>
    rename H1 into Hr1, H2 into Hr2, a into st1, c1 into C1 end.
  destruct (V1 F ps s T st1 C1 w Hp Hn Hne Hi Hw HA Hr1) as (HP1 & HD1 & _ & HE1 & HQ1).
  cbn [aP aD aQ] in HP1, HD1, HE1, HQ1.
  assert (Hw1 : wt st1) by (eapply run_wt; eauto).
  assert (Hwk : forall t, In t T ->
            pval (rho ps s t) Q0 + pval (rho ps s t) QF + (m_if M + C + m_div M)
            <= pval (rho ps s t) Qn).
  { intros t Ht. pose proof (pot_ge_sound (rho ps s t) _ _ Hpre) as H1.
    rewrite padd_val, pplus_val in H1. lra. }
  assert (HQF : forall st t t', pval (rho ps st t') QF = pval (rho ps s t) QF)
    by (intros; apply puni_nil_const; auto).
  assert (HQF0 : forall t, 0 <= pval (rho ps s t) QF)
    by (intros t; apply pnonneg_sound; auto).
  inversion Hr2; subst;
    match goal with H : eeval _ _ _ _ _ _ _ _ |- _ => rename H into Hee end;
    pose proof (qexpr_noread _ _ _ _ _ _ _ _ _ _ _ Hnr Hee Hq) as Hce;
    assert (HfR : forall t, In t T -> etrue F ps st1 f t = is_true_v (R t))
      by (intros; eapply etrue_R; eauto).
  - (* SC_IFT: every thread passes the flag test *)
    match goal with H : seval _ _ _ _ s2 _ _ ?c |- _ => rename H into Hs, c into Cb end.
    assert (HTf : forall t, In t T -> In t (filter (etrue F ps st1 f) T)).
    { intros t Ht. apply filter_In. split; auto. rewrite HfR; auto. }
    assert (HTf' : filter (etrue F ps st1 f) T <> []).
    { intros E. destruct (nonempty_elem _ Hne) as [t Ht]. specialize (HTf t Ht).
      rewrite E in HTf. contradiction. }
    assert (Hpre2 : sat_assn ps (mkAssn PT D1 Q1) st1 T).
    { split; cbn [aP aD].
      - intros t Ht. apply (cstrs_equiv_sat _ _ _ HPT). apply sat_app; auto.
        apply (proj1 (cond_correct F ps st1 f T R _ t Hp Hw1 Hee Ht)); auto.
      - eapply dsat_sub; [exact HTf|exact (HD1 HTf')]. }
    destruct (V2 F ps st1 T s' Cb w Hp Hn Hne Hi Hw1 Hpre2 Hs) as (H1 & H2 & _ & H4 & H5).
    cbn [aP aD aQ] in H1, H2, H4, H5.
    destruct (nonempty_elem _ Hne) as [tT HtT].
    unfold fpost. split; [|split; [|split; [|split]]]; cbn [aP aD aQ].
    + intros t Ht. apply (entails_sound _ _ _ _ (H1 t Ht) Hjt).
    + intros E. eapply dcovers_sound; [|exact (H2 E)]; auto.
    + discriminate.
    + intros E t Ht. specialize (H4 E tT HtT). specialize (HQ1 t tT Ht (HTf tT HtT)).
      specialize (Hwk t Ht). specialize (HQF0 t). foldM. lra.
    + intros t t' Ht Ht'. specialize (H5 tT t' HtT Ht'). specialize (HQ1 t tT Ht (HTf tT HtT)).
      specialize (Hwk t Ht). specialize (HQF0 t).
      pose proof (pot_ge_sound (rho ps s' t') _ _ HgeQ). foldM. lra.
  - (* SC_IFF: every thread fails the flag test and leaves *)
    match goal with H : seval _ _ _ _ s3 _ _ ?c |- _ => rename H into Hs, c into Cc end.
    match goal with H : forall t, In t T -> is_false_v _ = true |- _ => rename H into Hall end.
    assert (HTf : filter (etrue F ps st1 f) T = []).
    { apply filter_all_false. intros t Ht. rewrite HfR by auto.
      specialize (Hall t Ht). destruct (R t) as [| [] |]; auto; discriminate. }
    assert (Hpre3 : sat_assn ps (mkAssn P1 [] QF) st1 T)
      by (split; cbn [aP aD]; [exact HP1 | intros d []]).
    destruct (V3 F ps st1 T s' Cc w Hp Hn Hne Hi Hw1 Hpre3 Hs) as [[HP3 _] HQ3].
    cbn [aP aQ] in HP3, HQ3.
    eapply (guard_else_all false F ps g s T s' _ Qn P3 Q3); eauto.
    + intros t Ht. eapply falsifies_sound; eauto.
    + intros t Ht. specialize (HQ3 t Ht). rewrite (HQF st1 t t) in HQ3.
      specialize (HE1 HTf t Ht). specialize (Hwk t Ht). foldM. lra.
  - (* SC_IFD: 𝒯_f runs [s2], the others [s3] *)
    match goal with H : seval _ _ _ st1 s2 _ ?a ?c |- _ => rename H into Hs2, a into st2, c into Cb end.
    match goal with H : seval _ _ _ _ s3 _ _ ?c |- _ => rename H into Hs3, c into Cc end.
    match goal with H : forall t, In t T -> is_bool_v _ = true |- _ => rename H into Hbool end.
    match goal with H : filter (fun t => is_true_v _) T <> [] |- _ => rename H into HneT end.
    match goal with H : filter (fun t => is_false_v _) T <> [] |- _ => rename H into HneF end.
    set (TT := filter (fun t => is_true_v (R t)) T) in *.
    set (TF := filter (fun t => is_false_v (R t)) T) in *.
    assert (HTT : forall t, In t TT <-> In t T /\ is_true_v (R t) = true) by
      (intros; unfold TT; apply filter_In).
    assert (HTF : forall t, In t TF <-> In t T /\ is_false_v (R t) = true) by
      (intros; unfold TF; apply filter_In).
    assert (HTTF : forall t, In t TF -> ~ In t TT).
    { intros t H1 H2. apply HTF in H1; apply HTT in H2.
      destruct H1 as [_ H1], H2 as [_ H2]. destruct (R t) as [| [] |]; discriminate. }
    assert (HTFT : forall t, In t TT -> ~ In t TF) by (intros t H1 H2; eapply HTTF; eauto).
    assert (HnT : NoDup TT) by (apply NoDup_filter; auto).
    assert (HnF : NoDup TF) by (apply NoDup_filter; auto).
    assert (HiT : incl TT (lanes G w)) by (eapply incl_tran; [apply incl_filter|]; auto).
    assert (HiF : incl TF (lanes G w)) by (eapply incl_tran; [apply incl_filter|]; auto).
    assert (HTf : forall t, In t TT <-> In t (filter (etrue F ps st1 f) T)).
    { intros t. rewrite HTT, filter_In. split; intros [Ht E]; split; auto;
        rewrite HfR in *; auto. }
    assert (HTf' : filter (etrue F ps st1 f) T <> []).
    { intros E. apply HneT. apply (same_elems_nil _ _ (fun t Ht => proj1 (HTf t) Ht) E). }
    assert (Hpre2 : sat_assn ps (mkAssn PT D1 Q1) st1 TT).
    { split; cbn [aP aD].
      - intros t Ht. apply HTT in Ht as [Ht Hr]. apply (cstrs_equiv_sat _ _ _ HPT).
        apply sat_app; auto.
        apply (proj1 (cond_correct F ps st1 f T R _ t Hp Hw1 Hee Ht)); auto.
      - eapply dsat_sub; [intros t Ht; exact (proj1 (HTf t) Ht)|exact (HD1 HTf')]. }
    destruct (V2 F ps st1 TT st2 Cb w Hp HnT HneT HiT Hw1 Hpre2 Hs2)
      as (H1 & H2 & _ & H4 & H5).
    cbn [aP aD aQ] in H1, H2, H4, H5.
    assert (Hst2 : forall x t, In t TF -> sl st2 x t = sl st1 x t) by
      (intros; eapply frame_threads; eauto).
    assert (Hpre3 : sat_assn ps (mkAssn P1 [] QF) st2 TF).
    { split; cbn [aP aD]; [|intros d []].
      intros t Ht. apply (sat_ext (rho ps st1 t)); [intros; symmetry; apply rho_frame; auto|].
      apply HTF in Ht as [Ht _]. apply HP1; auto. }
    destruct (V3 F ps st2 TF s' Cc w Hp HnF HneF HiF (run_wt _ _ _ _ _ _ _ Hs2 Hw1) Hpre3 Hs3)
      as [[HP3 _] HQ3].
    cbn [aP aD aQ] in HP3, HQ3.
    assert (Hs'1 : forall x t, In t TT -> sl s' x t = sl st2 x t) by
      (intros; eapply frame_threads; eauto).
    assert (HgF : forall t, In t TF -> sl s' g t = VBool false) by
      (intros; eapply falsifies_sound; eauto).
    set (ge := EOpd (OVar g)) in *.
    assert (HTe : forall t, In t (filter (etrue F ps s' ge) T) <->
                            In t (filter (etrue F ps st2 ge) TT)).
    { intros t. rewrite !filter_In. split; intros [Ht E].
      - specialize (Hbool t Ht).
        destruct (R t) as [| [] |] eqn:Er; try discriminate.
        + assert (HtT : In t TT) by (apply HTT; rewrite Er; auto). split; auto.
          unfold ge. rewrite <- (etrue_var_frame F ps st2 s' g t); auto.
        + assert (HtF : In t TF) by (apply HTF; rewrite Er; auto).
          unfold ge in E. rewrite (etrue_var_false F ps s' g t (HgF t HtF)) in E. discriminate.
      - assert (HtT : In t TT) by exact Ht. apply HTT in Ht as [Ht _]. split; auto.
        unfold ge. rewrite (etrue_var_frame F ps st2 s' g t); auto. }
    destruct (nonempty_elem _ HneT) as [tT HtT].
    destruct (nonempty_elem _ HneF) as [tF HtF].
    assert (HtT' : In tT T) by (apply HTT in HtT; tauto).
    assert (HC4 : forall t, Cc <= pval (rho ps s t) QF).
    { intros t. specialize (HQ3 tF HtF). pose proof (pnonneg_sound (rho ps s' tF) _ Hn3).
      rewrite (HQF st2 t tF) in HQ3. lra. }
    unfold fpost. split; [|split; [|split; [|split]]]; cbn [aP aD aQ].
    + intros t Ht. specialize (Hbool t Ht).
      destruct (R t) as [| [] |] eqn:Er; try discriminate.
      * assert (HtT2 : In t TT) by (apply HTT; rewrite Er; auto).
        apply (sat_ext (rho ps st2 t)); [intros; symmetry; apply rho_frame; auto|].
        apply (entails_sound _ _ _ _ (H1 t HtT2) Hjt).
      * assert (HtF2 : In t TF) by (apply HTF; rewrite Er; auto).
        apply (entails_sound _ _ _ _ (HP3 t HtF2) Hje).
    + intros E. assert (E' : filter (etrue F ps st2 ge) TT <> []).
      { intros E2. apply E. apply (same_elems_nil _ _ (fun t Ht => proj1 (HTe t) Ht) E2). }
      eapply dsat_sub; [intros t Ht; exact (proj1 (HTe t) Ht)|].
      apply (dsat_threads st2).
      * intros x t Ht. apply filter_In in Ht as [Ht _]. auto.
      * eapply dcovers_sound; [|exact (H2 E')]; auto.
    + discriminate.
    + intros E t Ht. assert (E' : filter (etrue F ps st2 ge) TT = []).
      { apply (same_elems_nil _ _ (fun t Ht => proj2 (HTe t) Ht) E). }
      specialize (H4 E' tT HtT). specialize (HQ1 t tT Ht (proj1 (HTf tT) HtT)).
      specialize (HC4 t). specialize (Hwk t Ht). foldM. lra.
    + intros t t' Ht Ht'. apply HTe in Ht'.
      assert (Ht'T : In t' TT) by (apply filter_In in Ht'; tauto).
      specialize (H5 tT t' HtT Ht'). specialize (HQ1 t tT Ht (proj1 (HTf tT) HtT)).
      rewrite (pval_ext (rho ps s' t') (rho ps st2 t')) by (apply rho_frame; auto).
      specialize (HC4 t). specialize (Hwk t Ht).
      pose proof (pot_ge_sound (rho ps st2 t') _ _ HgeQ) as H3. foldM. lra.
Qed.
(* ---- end issue 15 (exit16) ---- *)

(* ---- begin issue 15 (exit15b): Q:WHILEGUARD0 (spec/logic.md §4a) ---- *)

(** The loop of Q:WHILEGUARD from a store where its test is uniform (all threads satisfy
    [D], [e] uniform under [D]): the first test cannot split, so a loop some thread [te]
    enters costs at most [M^if + C] (the first test), the body, and the rest, which
    [whileexit_loop] bounds by the body's post [J ≥ I + k]: in all
    [M^if + C + I(te) + M^if + C]. *)
Lemma whileexit_first_u : forall GE P D e n C b B PB I QB',
  qexpr G P D e n C -> noread e = true -> unif G (dunif G D) e = true ->
  validF false e (mkAssn B D I) b (mkAssn PB D QB') ->
  cstrs_equiv B (P ++ fst (cond G e) ++ GE) = true -> cstrs_equiv PB P = true ->
  (forall r, sat r (PB ++ GE) -> pval r (padd I (kk false C)) <= pval r QB') ->
  (forall F ps s T s' C, seval G F ps s b T s' C -> pok ps -> wt s ->
     forall t, In t T -> etrue F ps s' e t = true -> sat (rho ps s' t) GE) ->
  forall F ps s T s' Cr, seval G F ps s (SWhile e b) T s' Cr ->
  forall w, pok ps -> NoDup T -> T <> [] -> incl T (lanes G w) -> wt s ->
  (forall t, In t T -> sat (rho ps s t) P) -> dsat ps s T D ->
  (forall t, In t (filter (etrue F ps s e) T) -> sat (rho ps s t) GE) ->
  forall te, In te (filter (etrue F ps s e) T) ->
    Cr <= (m_if M + C) + pval (rho ps s te) I + (m_if M + C).
Proof.
  intros GE P D e n C b B PB I QB' Hq Hnr Hu V HB HPB HQB' HGb F ps s T s' Cr Hrun
    w Hp Hn Hne Hi Hw HP HD HG te Hte.
  pose proof (m_nonneg M) as Hnn. destruct Hnn as (_ & _ & _ & _ & Hif & Hdiv & _).
  inversion Hrun; subst.
  - (* SC_WHILEALL *)
    match goal with
    | He : eeval _ _ _ s e T ?R ?c1, Hb : seval _ _ _ s b T ?a ?c2,
      Hr : seval _ _ _ ?a (SWhile e b) T s' ?c3 |- _ =>
        rename He into H, Hb into Hrun1, Hr into Hrun2, a into st1, c1 into C1, c2 into C2,
          c3 into C3, R into R0
    end.
    pose proof (qexpr_noread _ _ _ _ _ _ _ _ _ _ _ Hnr H Hq) as Hce.
    assert (HTe' : filter (etrue F ps s e) T <> []) by (intros E; rewrite E in Hte; contradiction).
    assert (Hpre : sat_assn ps (mkAssn B D I) s T).
    { split; cbn [aP aD].
      - intros t Ht. apply (cstrs_equiv_sat _ _ _ HB). apply sat_app; auto. apply sat_app.
        + apply (proj1 (cond_correct F ps s e T R0 C1 t Hp Hw H Ht)); auto.
        + apply HG. apply filter_In. split; auto. rewrite (etrue_R _ _ _ _ _ _ _ H t Ht). auto.
      - exact HD. }
    destruct (V F ps s T st1 C2 w Hp Hn Hne Hi Hw Hpre Hrun1) as (HP1 & HD1 & _ & HE1 & HQ1).
    cbn [aP aD aQ] in *.
    assert (HG1 : forall t, In t (filter (etrue F ps st1 e) T) -> sat (rho ps st1 t) GE).
    { intros t Ht. apply filter_In in Ht as [Ht1 Ht2]. eapply HGb; eauto. }
    destruct (whileexit_loop false GE P D e n C b B PB I QB' Hq Hnr
                (fun E => False_ind _ (diff_false_true E)) V HB HPB HQB' HGb
                F ps st1 _ T s' C3 Hrun2 eq_refl w Hp Hn Hne Hi (run_wt _ _ _ _ _ _ _ Hrun1 Hw)
                (fun t Ht => cstrs_equiv_sat' _ _ _ HPB (HP1 t Ht)) HD1
                (fun E => False_ind _ (diff_false_true E)) HG1)
      as (_ & HC0 & HC1).
    apply filter_In in Hte as [Hte _].
    destruct (filter (etrue F ps st1 e) T) as [|t1 l] eqn:E1.
    + specialize (HE1 eq_refl te Hte). specialize (HC0 eq_refl). foldM. lra.
    + assert (Ht1 : In t1 (t1 :: l)) by (left; auto).
      assert (Ht1g : sat (rho ps st1 t1) (PB ++ GE)).
      { assert (Hf : In t1 (filter (etrue F ps st1 e) T)) by (rewrite E1; exact Ht1).
        pose proof (HG1 t1 ltac:(first [exact Hf | exact Ht1])) as Hg.
        apply filter_In in Hf as [Hf _]. apply sat_app; auto. }
      specialize (HQ1 te t1 Hte Ht1). specialize (HC1 t1 Ht1).
      pose proof (HQB' _ Ht1g) as H3. rewrite padd_val in H3.
      foldM. lra.
  - (* SC_WHILESOME: impossible, the test is uniform on [T] *)
    exfalso.
    match goal with
    | He : eeval _ _ _ s e T ?R ?c1,
      H1 : filter (fun t => is_true_v (?R t)) T <> [],
      H2 : filter (fun t => is_false_v (?R t)) T <> [] |- _ =>
        destruct (nonempty_elem _ H1) as [t1 Ht1]; destruct (nonempty_elem _ H2) as [t2 Ht2];
        apply filter_In in Ht1 as [Ht1 E1]; apply filter_In in Ht2 as [Ht2 E2];
        assert (HX : forall x, memn x (dunif G D) = true -> forall t t', In t T -> In t' T ->
                  sl s x t = sl s x t') by (intros; eapply dunif_sound; eauto);
        rewrite (unif_correct F ps s e T R c1 (dunif G D) w Hu He Hi HX t1 t2 Ht1 Ht2) in E1;
        destruct (R t2) as [| [] |]; discriminate
    end.
  - (* SC_WHILENONE: no thread passes the test *)
    match goal with
    | He : eeval _ _ _ _ e T ?R ?c, Hf : forall t, In t T -> is_false_v (?R t) = true |- _ =>
        apply filter_In in Hte as [Ht E]; rewrite (etrue_R _ _ _ _ _ _ _ He te Ht) in E;
        specialize (Hf te Ht); destruct (R te) as [| [] |]; discriminate
    end.
Qed.

(** Q:WHILEGUARD0: [s0; while (g) s] with [g] uniform in the loop's pre. *)
Lemma sound_Q_WHILEGUARD0 : forall A s0 g GE P D Qn Q' n C b B I PB QB' J0 P' D' rg r0,
  valid A s0 (mkAssn P D Qn) -> c_lty G g = Some TBool ->
  guard_last G g GE s0 = true -> guard_last G g GE b = true ->
  qexpr G P D (EOpd (OVar g)) n C ->
  unif G (dunif G D) (EOpd (OVar g)) = true ->
  validF false (EOpd (OVar g)) (mkAssn B D I) b (mkAssn PB D QB') ->
  cstrs_equiv B (P ++ GE) = true -> cstrs_equiv PB P = true ->
  pot_ge_under B rg QB' (padd I (m_if M + m_div M + C)) = true ->
  pot_ge_under B r0 J0 (padd I (m_if M + C)) = true ->
  pot_ge Qn (padd (pplus J0 Q') (m_if M + C)) = true ->
  cstrs_equiv P' P = true ->
  dcovers D D' = true -> disjoint (dvars D') (writes b) = true ->
  puni G D QB' = true -> pnonneg QB' = true -> puni G D J0 = true -> pnonneg J0 = true ->
  puni G D' Q' = true ->
  valid A (SSeq s0 (SWhile (EOpd (OVar g)) b)) (mkAssn P' D' Q').
Proof.
  intros A s0 g GE P D Qn Q' n C b B I PB QB' J0 P' D' rg r0 V0 Hty Hg0 Hgb Hq Hu V HB HPB HQB'
    HJ0 Hpre HP' HcD HdD HuJ HnJ HuJ0 HnJ0 HuQ F ps s T s' Crun w Hp Hn Hne Hi Hw HA Hrun.
  inversion Hrun; subst.
  match goal with H1 : seval _ _ _ s s0 T ?a ?c1, H2 : seval _ _ _ ?a (SWhile _ _) T s' ?c2 |- _ =>
    rename H1 into Hr0, H2 into Hr1, a into st1, c1 into C1, c2 into C2 end.
  destruct (V0 F ps s T st1 C1 w Hp Hn Hne Hi Hw HA Hr0) as [HA1 HQ0]. cbn [aQ] in HQ0.
  assert (Hw1 : wt st1) by (eapply run_wt; eauto).
  assert (Hev : forall F ps s' t, etrue F ps s' (EOpd (OVar g)) t = true -> sl s' g t = VBool true).
  { intros F' ps' s1 t E. unfold etrue in E. simpl in E. destruct (sl s1 g t) as [| [] |];
      simpl in E; try discriminate; reflexivity. }
  assert (HGb : forall F ps s T s' C, seval G F ps s b T s' C -> pok ps -> wt s ->
     forall t, In t T -> etrue F ps s' (EOpd (OVar g)) t = true -> sat (rho ps s' t) GE).
  { intros F' ps' s1 T' s2 C' Hr Hp' Hw' t Ht E. eapply guard_last_sound; eauto. }
  assert (HG : forall t, In t (filter (etrue F ps st1 (EOpd (OVar g))) T) -> sat (rho ps st1 t) GE).
  { intros t Ht. apply filter_In in Ht as [Ht E]. eapply guard_last_sound; eauto. }
  assert (HB' : cstrs_equiv B (P ++ fst (cond G (EOpd (OVar g))) ++ GE) = true) by exact HB.
  assert (HP'' : cstrs_equiv P' (P ++ snd (cond G (EOpd (OVar g)))) = true)
    by (simpl; rewrite app_nil_r; exact HP').
  assert (HJ : forall r, sat r (P ++ GE) -> pval r (padd I (kk false C)) <= pval r QB')
    by (intros r Hr; apply (pot_ge_under_sound r B rg); auto; apply (cstrs_equiv_sat _ _ _ HB Hr)).
  assert (HJ0' : forall r, sat r (P ++ GE) -> pval r (padd I (m_if M + C)) <= pval r J0)
    by (intros r Hr; apply (pot_ge_under_sound r B r0); auto; apply (cstrs_equiv_sat _ _ _ HB Hr)).
  assert (HQB'' : forall r, sat r (PB ++ GE) -> pval r (padd I (kk false C)) <= pval r QB').
  { intros r Hr. apply HJ, sat_app.
    - apply (cstrs_equiv_sat' _ _ _ HPB). eapply sat_app_l; eauto.
    - intros c Hc. apply Hr, in_app_iff; auto. }
  destruct HA1 as [HP1 HD1]. cbn [aP aD] in HP1, HD1.
  destruct (whileexit_loop false GE P D (EOpd (OVar g)) n C b B PB I QB' Hq eq_refl
              (fun E => False_ind _ (diff_false_true E)) V HB' HPB HQB'' HGb
              F ps st1 _ T s' C2 Hr1 eq_refl w Hp Hn Hne Hi Hw1 HP1
              (fun _ => dsat_sub _ _ _ _ (incl_filter _ _) HD1)
              (fun E => False_ind _ (diff_false_true E)) HG)
    as (Hpost & HC0 & _).
  assert (HF : forall x t, ~ In x (writes b) -> sl s' x t = sl st1 x t)
    by (intros; eapply (frame_writes _ _ _ _ _ _ _ Hr1); simpl; auto).
  split; [split|].
  - intros t Ht; apply (cstrs_equiv_sat _ _ _ HP''); auto.
  - cbn [aD]. eapply dsat_frame; eauto.
  - intros t Ht. cbn [aQ]. specialize (HQ0 t Ht). cbn [aQ] in HQ0.
    rewrite (puni_frame ps st1 s' D' Q' t HuQ)
      by (intros x Hx; apply HF; eapply disjoint_In; eauto).
    pose proof (pot_ge_sound (rho ps st1 t) _ _ Hpre) as H1.
    rewrite padd_val, pplus_val in H1.
    pose proof (pnonneg_sound (rho ps st1 t) _ HnJ0) as H2.
    pose proof (whileexit_first_u GE P D (EOpd (OVar g)) n C b B PB I QB' Hq eq_refl Hu V HB'
                  HPB HQB'' HGb F ps st1 T s' C2 Hr1 w Hp Hn Hne Hi Hw1 HP1 HD1 HG) as HC1.
    assert (Hsub : forall t, In t (filter (etrue F ps st1 (EOpd (OVar g))) T) -> In t T)
      by (intros t0 Ht0; apply filter_In in Ht0; tauto).
    destruct (filter (etrue F ps st1 (EOpd (OVar g))) T) as [|te l] eqn:E.
    + specialize (HC0 eq_refl). lra.
    + assert (Hte : In te (te :: l)) by (left; auto).
      specialize (HC1 te Hte). pose proof (HG te Hte) as Hge. specialize (Hsub te Hte).
      pose proof (HJ0' _ (sat_app _ _ _ (HP1 te Hsub) Hge)) as H3. rewrite padd_val in H3.
      rewrite (puni_sound ps st1 T D J0 HD1 HuJ0 te t) in H3 by auto.
      lra.
Qed.
(* ---- end issue 15 (exit15b) ---- *)

(* ---- begin issue 15 (case17): Q:CASE, Q:WHILENONE (spec/logic.md §4a) ---- *)

(** Equality rewrites keep a potential's value on the states satisfying their source. *)
Lemma rws_eq_sound : forall r P rs Q1, sat r P -> rws_eqok P rs = true ->
  pval r (rws_apply rs Q1) == pval r Q1.
Proof.
  intros r P rs; induction rs as [|r0 rs IH]; intros Q1 HP H; unfold rws_apply in *; simpl in *;
    [reflexivity|].
  apply andb_true_iff in H as [H1 H2]. apply andb_true_iff in H1 as [H1 Hm].
  apply negb_true_iff in Hm.
  eapply Qeq_trans; [apply (IH (rw_apply r0 Q1) HP H2)|].
  apply (rw_apply_sound r P r0 Q1 HP H1 Hm).
Qed.

Lemma pot_ge_both_sound : forall r P rs Q1 Q2, sat r P -> pot_ge_both P rs Q1 Q2 = true ->
  pval r Q2 <= pval r Q1.
Proof.
  intros r P rs Q1 Q2 HP H. unfold pot_ge_both in H. apply andb_true_iff in H as [H1 H2].
  pose proof (pot_ge_sound r _ _ H2) as H3.
  pose proof (rws_eq_sound r P rs Q1 HP H1) as E1.
  pose proof (rws_eq_sound r P rs Q2 HP H1) as E2. lra.
Qed.

(** One case of Q:CASE: every thread satisfies the case's constraint [c]. *)
Lemma case_branch : forall P D Qn st c PC QC A P' D' Q' rs wj F ps s T s' C w,
  pok ps -> NoDup T -> T <> [] -> incl T (lanes G w) -> wt s ->
  (forall t, In t T -> sat (rho ps s t) P) -> dsat ps s T D ->
  (forall t, In t T -> holds (rho ps s t) c) ->
  cstrs_equiv PC (P ++ [c]) = true -> valid (mkAssn PC D QC) st A ->
  pot_ge_both PC rs Qn QC = true -> entails (aP A) P' wj = true -> dcovers (aD A) D' = true ->
  pot_ge (aQ A) Q' = true -> seval G F ps s st T s' C ->
  sat_assn ps (mkAssn P' D' Q') s' T /\
  forall t, In t T -> C + pval (rho ps s' t) Q' <= pval (rho ps s t) Qn.
Proof.
  intros P D Qn st c PC QC A P' D' Q' rs wj F ps s T s' C w Hp Hn Hne Hi Hw HP HD Hc Heq V Hb
    Hj Hcv Hq Hrun.
  assert (HPC : forall t, In t T -> sat (rho ps s t) PC).
  { intros t Ht. apply (cstrs_equiv_sat _ _ _ Heq). apply sat_app; [auto|].
    intros c' [<-|[]]. auto. }
  destruct (V F ps s T s' C w Hp Hn Hne Hi Hw (conj HPC HD) Hrun) as [[HP' HD'] HQ].
  split; [split|].
  - intros t Ht. eapply entails_sound; [apply HP'; auto | exact Hj].
  - eapply dcovers_sound; eauto.
  - intros t Ht. specialize (HQ t Ht). cbn [aQ] in HQ |- *.
    pose proof (pot_ge_sound (rho ps s' t) _ _ Hq) as H1.
    pose proof (pot_ge_both_sound (rho ps s t) PC rs Qn QC (HPC t Ht) Hb) as H2. lra.
Qed.

Lemma sound_Q_CASE : forall P D Qn st L PT PF QT QF A1 A2 P' D' Q' rt rf wjt wje,
  luni G D L = true ->
  cstrs_equiv PT (P ++ [CLe L]) = true -> cstrs_equiv PF (P ++ [case_else L]) = true ->
  valid (mkAssn PT D QT) st A1 -> valid (mkAssn PF D QF) st A2 ->
  pot_ge_both PT rt Qn QT = true -> pot_ge_both PF rf Qn QF = true ->
  entails (aP A1) P' wjt = true -> entails (aP A2) P' wje = true ->
  dcovers (aD A1) D' = true -> dcovers (aD A2) D' = true ->
  pot_ge (aQ A1) Q' = true -> pot_ge (aQ A2) Q' = true ->
  valid (mkAssn P D Qn) st (mkAssn P' D' Q').
Proof.
  intros P D Qn st L PT PF QT QF A1 A2 P' D' Q' rt rf wjt wje Hu HT HF V1 V2 Hb1 Hb2 Hj1 Hj2
    Hc1 Hc2 Hq1 Hq2.
  start_valid. cbn [aP aD] in HP, HD.
  destruct T as [|t0 T0] eqn:ET; [congruence|]. rewrite <- ET in *.
  assert (Hall : forall t, In t T -> leval (rho ps s t) L = leval (rho ps s t0) L).
  { intros t Ht. apply (luni_sound ps s T D L HD Hu t t0 Ht). rewrite ET; left; auto. }
  destruct (Z_le_gt_dec (leval (rho ps s t0) L) 0) as [Hle|Hgt].
  - eapply (case_branch P D Qn st (CLe L) PT QT A1 P' D' Q' rt wjt); eauto.
    intros t Ht. cbn [holds]. rewrite Hall by auto. exact Hle.
  - eapply (case_branch P D Qn st (case_else L) PF QF A2 P' D' Q' rf wje); eauto.
    intros t Ht. unfold case_else, holds, lplus. rewrite ladd_eval, lscale_eval.
    assert (E1 : leval (rho ps s t) (mkLin 1 []) = 1%Z) by reflexivity.
    rewrite E1, Hall by auto. lia.
Qed.

(** Writing a [bool] local changes no linear form: its integer view is 0 before and after. *)
Lemma rho_set_bool : forall ps s g T R t v, c_lty G g = Some TBool -> wt s ->
  (forall t, In t T -> has_type (R t) TBool = true) ->
  rho ps (set_local s g T R) t v = rho ps s t v.
Proof.
  intros ps s g T R t v Hty Hw HR. destruct v as [x|p|d]; simpl; auto.
  destruct (Nat.eqb_spec x g) as [->|]; simpl; auto.
  destruct (memb t T) eqn:Em; auto.
  apply memb_In in Em. pose proof (HR t Em) as H1. pose proof (Hw g TBool Hty t) as H2.
  destruct (R t), (sl s g t); simpl in *; try discriminate; auto.
Qed.

Lemma sound_Q_WHILENONE : forall A g E P D Qn Q' n C b ws,
  valid A (SAssign g E) (mkAssn P D Qn) -> c_lty G g = Some TBool ->
  nonempty (snd (cond G E)) = true -> entails P (snd (cond G E)) ws = true ->
  qexpr G P D (EOpd (OVar g)) n C ->
  pot_ge Qn (padd Q' (m_if M + C)) = true ->
  valid A (SSeq (SAssign g E) (SWhile (EOpd (OVar g)) b)) (mkAssn P D Q').
Proof.
  intros A g E P D Qn Q' n C b ws V0 Hty Hne' Hent Hq Hpre.
  intros F ps s T s' Crun w Hp Hn Hne Hi Hw HA Hrun.
  inversion Hrun; subst.
  match goal with H1 : seval _ _ _ s (SAssign g E) T ?a ?c1,
    H2 : seval _ _ _ ?a (SWhile _ _) T s' ?c2 |- _ =>
    rename H1 into Hr0, H2 into Hr1, a into st1, c1 into C1, c2 into C2 end.
  destruct (V0 F ps s T st1 C1 w Hp Hn Hne Hi Hw HA Hr0) as [[HP1 HD1] HQ0].
  cbn [aP aD aQ] in HP1, HD1, HQ0.
  inversion Hr0; subst.
  match goal with He : eeval _ _ _ s E T ?r ?c, Hl : c_lty G g = Some ?ty,
    Ht : forall t, In t T -> has_type (?r t) ?ty = true |- _ =>
    rename He into HeE, r into R, Ht into HRt; assert (ty = TBool) by congruence; subst ty end.
  (* every thread evaluated [E] to false: [g] is false everywhere *)
  assert (Hf : forall t, In t T -> R t = VBool false).
  { intros t Ht.
    assert (Hs1 : sat (rho ps (set_local s g T R) t) (snd (cond G E)))
      by (eapply entails_sound; [apply HP1; auto | exact Hent]).
    assert (Hs0 : sat (rho ps s t) (snd (cond G E))).
    { apply (sat_ext (rho ps (set_local s g T R) t)); auto.
      intros v. apply rho_set_bool; auto. }
    pose proof (exit_false F ps s E t Hp Hw Hne' Hs0) as Hef.
    rewrite (etrue_R F ps s E T R _ HeE t Ht) in Hef.
    pose proof (HRt t Ht) as Hb. destruct (R t) as [| [] |]; simpl in *; try discriminate; auto. }
  assert (Hg : forall t, In t T -> sl (set_local s g T R) g t = VBool false).
  { intros t Ht. simpl. rewrite Nat.eqb_refl, (proj2 (memb_In t T) Ht). apply Hf; exact Ht. }
  assert (Ht0 : exists t0, In t0 T)
    by (destruct T as [|t0 T0]; [congruence | exists t0; left; auto]).
  destruct Ht0 as [t0 Ht0].
  assert (Hv : forall s1 r t, sl s1 g t = VBool false -> ev F ps s1 (EOpd (OVar g)) t = Some r ->
    r = VBool false).
  { intros s1 r t Hs Ev. simpl in Ev. rewrite Hs in Ev. inversion Ev; auto. }
  inversion Hr1; subst.
  - (* SC_WHILEALL: impossible *)
    match goal with He : eeval _ _ _ _ (EOpd (OVar g)) T ?r _,
      Hall : forall t, In t T -> is_true_v (?r t) = true |- _ =>
      pose proof (Hv _ _ t0 (Hg t0 Ht0) (eeval_ev _ _ _ _ _ _ _ He t0 Ht0)) as Ev;
      specialize (Hall t0 Ht0) end.
    rewrite Ev in *. simpl in *. discriminate.
  - (* SC_WHILESOME: impossible *)
    exfalso. match goal with He : eeval _ _ _ _ (EOpd (OVar g)) T ?r _,
      Hs : filter (fun t => is_true_v (?r t)) T <> [] |- _ =>
      apply Hs; apply filter_all_false; intros t Ht;
      rewrite (Hv _ _ t (Hg t Ht) (eeval_ev _ _ _ _ _ _ _ He t Ht)); reflexivity end.
  - (* SC_WHILENONE *)
    match goal with He : eeval _ _ _ _ (EOpd (OVar g)) T _ ?c |- _ =>
      pose proof (qexpr_noread F ps _ (EOpd (OVar g)) _ _ _ _ _ _ _ eq_refl He Hq) as Hc end.
    split; [split; auto|]. intros t Ht. specialize (HQ0 t Ht).
    pose proof (pot_ge_sound (rho ps (set_local s g T R) t) _ _ Hpre) as H1.
    rewrite padd_val in H1. cbn [aQ] in *. fold M in HQ0, Hc, H1 |- *. lra.
Qed.
(* ---- end issue 15 (case17) ---- *)

(* ---- begin issue 15 (coqguard18): Q:GWRITEGUARD / Q:VWRITEGUARD (spec/logic.md §4
   "Guarded accesses") ---- *)
(** The access bound of the guarded rules (spec/logic.md §4 "Guarded accesses",
    soundness): under [P] and [D] on the active lanes [T ≠ ∅] of warp [w], every lane has
    [L = K·tid + c] with one [c] (the value of [L_u] on every active lane) and passes the
    guard, [K·tid + c ≤ 0]; a lane [l_max] with the largest [T* = K·tid(l_max)] is kept, and the
    active lanes are among the kept lanes with [K·tid ≤ T*], whose sectors at the access's
    base are counted by the table check at [(w, β, l_max)]: [MemReads ≤ gcharge N₀ terms T*
    ≤ gcharge N₀ terms (−c)] ([T* ≤ −c], [C_j ≥ 0]). *)
Lemma leval_tid_lin : forall ps s t k, leval (rho ps s t) (tid_lin k) = kval G k t.
Proof.
  intros ps s t [[k1 k2] k3]. unfold tid_lin, kval, leval.
  cbn [lcst lterms tsum fold_right fst snd]. unfold rho. cbn beta iota. ring.
Qed.

Lemma guard_acc_sound : forall ps s P D i es n0 I S terms Lu T w,
  guard_acc_w G (wtids G) P D i es n0 I S terms = Some Lu -> pok ps -> wt s -> dsat ps s T D ->
  (forall t, In t T -> sat (rho ps s t) P) -> T <> [] -> incl T (lanes G w) ->
  (0 < S)%Z /\
  forall t, In t T -> (memreads G es T (oval G ps s i) <= gcharge n0 terms (- leval (rho ps s t) Lu))%Z.
Proof.
  intros ps s P D i es n0 I S terms Lu T w H Hp Hw HD HP Hne Hi.
  unfold guard_acc_w in H.
  destruct (idep_opd G D i) as [[[kd r] g]|] eqn:Ei; [|discriminate].
  destruct (guard_form G P D I) as [[L kg]|] eqn:Ef; [|discriminate].
  destruct ((0 <? S)%Z && (0 <? c_warp G)%nat &&
            guard_ok_w G (wtids G) (filter tid_only P) kg kd g r es n0 terms) eqn:Eok;
    [|discriminate].
  injection H as <-.
  repeat rewrite andb_true_iff in Eok. destruct Eok as [[HS HW] Hok].
  apply Z.ltb_lt in HS. apply Nat.ltb_lt in HW. split; [exact HS|].
  unfold guard_ok_w in Hok. repeat rewrite andb_true_iff in Hok.
  destruct Hok as [[[HSB Hn0] Hterms] Hall]. apply Z.ltb_lt in HSB.
  (* the guard [L ≤ 0] and its uniform part *)
  unfold guard_form in Ef.
  destruct (nth_error P I) as [[L0|L0|L0 m0 rs0]|] eqn:EI; try discriminate.
  destruct (lin_k G D L0) as [k0|] eqn:Ek; [|discriminate]. injection Ef as -> ->.
  pose proof (nth_error_In P I EI) as HLin.
  unfold lin_k in Ek. destruct (lin_k_terms ps s T D (lterms L) kg HD Ek) as [B HB].
  set (c := (lcst L + B)%Z).
  assert (HL : forall t, In t T -> leval (rho ps s t) L = (kval G kg t + c)%Z).
  { intros t Ht. unfold leval at 1. rewrite HB by auto. unfold c. lia. }
  assert (HLu : forall t, In t T -> leval (rho ps s t) (lsub L (tid_lin kg)) = c).
  { intros t Ht. unfold lsub. rewrite ladd_eval, lscale_eval, HL, leval_tid_lin by auto. ring. }
  assert (Hgd : forall t, In t T -> (kval G kg t + c <= 0)%Z).
  { intros t Ht. pose proof (HP t Ht _ HLin) as Hh. simpl in Hh. rewrite HL in Hh by auto. lia. }
  (* the index [kd·tid + co] *)
  destruct (idep_opd_sound ps s T D i kd r g Hp Hw HD Ei) as [co [Hco Hv]].
  (* the active lane with the largest [K·tid] *)
  destruct (list_argmax nat (kval G kg) T Hne) as [ts [Hts Hmax]].
  set (Tv := kval G kg ts).
  assert (Hwn : (w < nwarps G)%nat) by (apply (lanes_nwarps w ts HW (Hi ts Hts))).
  pose proof (wlanes_incl ps s P T w Hi HP) as HTL.
  rewrite forallb_forall in Hall. specialize (Hall _ (in_wtids w Hwn)). cbv beta zeta in Hall.
  rewrite wfilter_map_lane in Hall.
  rewrite forallb_forall in Hall.
  specialize (Hall _ (beta_in (c_sector_bytes G) g r co es HSB Hco)). cbv beta in Hall.
  rewrite forallb_forall in Hall.
  specialize (Hall (lane_t G ts) (in_map _ _ _ (HTL ts Hts))). cbv beta in Hall.
  apply Z.leb_le in Hall. rewrite kvalz_lane in Hall. fold Tv in Hall.
  unfold gcount in Hall. rewrite filter_map_lane, kvalz_lanes in Hall. cbv beta in Hall.
  set (WL := wlanes G (filter tid_only P) w) in *.
  assert (Ef2 : filter (fun t => (kvalz kg (lane_t G t) <=? Tv)%Z) WL =
                filter (fun t => (kval G kg t <=? Tv)%Z) WL).
  { apply filter_ext. intros a. rewrite kvalz_lane. reflexivity. }
  rewrite Ef2 in Hall.
  intros t Ht.
  eapply Z.le_trans.
  { apply (mem_at es T (filter (fun t => (kval G kg t <=? Tv)%Z) WL) (oval G ps s i) kd co HSB).
    - intros t' Ht'. apply filter_In. split; [apply HTL; auto|]. apply Z.leb_le. apply Hmax; auto.
    - intros t' Ht'. rewrite Hv by auto. reflexivity. }
  eapply Z.le_trans; [exact Hall|].
  rewrite (HLu t Ht). apply gcharge_mono; auto.
  pose proof (Hgd ts Hts). unfold Tv. lia.
Qed.

Lemma sound_Q_GWRITEGUARD : forall P D Qn Q' A i e es n0 I S terms Lu ne C1 C2,
  c_arr G A = Some (Global, es) -> qopd G i C1 -> qexpr G P D e ne C2 ->
  guard_acc G P D i es n0 I S terms = Some Lu ->
  gpot_ok Qn Q' (m_gwrite M 1) Lu S n0 terms (C1 + C2) = true ->
  valid (mkAssn P D Qn) (SWrite A i e) (mkAssn P D Q').
Proof.
  intros P D Qn Q' A i e es n0 I S terms Lu ne C1 C2 Ha Hi1 He1 Hacc Hge. start_valid.
  destruct (guard_acc_sound ps s P D i es n0 I S terms Lu T w Hacc Hp Hw HD HP Hne Hi)
    as [HS HGA].
  inversion Hrun; subst; rewrite Ha in *; try discriminate.
  match goal with H : Some _ = Some _ |- _ => inversion H; subst end.
  split; [split; auto|]. intros t Ht. simpl.
  match goal with Ho : oeval _ _ i _ _ |- _ => pose proof (qopd_sound _ _ _ _ _ Ho Hi1) end.
  match goal with Hee : eeval _ _ _ _ e _ _ _ |- _ =>
    pose proof (qexpr_sound _ _ _ _ _ _ _ _ _ _ _ _ Hp Hw HP HD Hn Hne Hi Hee He1) end.
  pose proof (HGA t Ht) as Hle.
  unfold gpot_ok in Hge. pose proof (pot_ge_sound (rho ps s t) _ _ Hge) as Hg.
  rewrite padd_val, !pplus_val, !pscale_val, gpot_val in Hg.
  set (RR := inject_Z (gcharge n0 terms (- leval (rho ps s t) Lu))) in *.
  set (Mm := pval (rho ps s t) (gminus Lu (Z.to_pos S) terms)) in *.
  rewrite Qmult_plus_distr_r in Hg.
  match goal with |- context[m_gwrite _ (memreads G ?e0 ?T0 ?R0)] =>
    assert (Hc : m_gwrite M (memreads G e0 T0 R0) <= m_gwrite M 1 * RR);
    [rewrite (proj2 (m_glin M (memreads G e0 T0 R0))), !(Qmult_comm (m_gwrite M 1));
     apply Qmult_le_compat_r;
     [unfold RR; rewrite <- Zle_Qle; exact Hle | destruct (m_acc1 M) as [_ [_ [Hg1 _]]]; exact Hg1] |] end.
  set (K := m_gwrite M 1 * RR) in *. set (KM := m_gwrite M 1 * Mm) in *.
  change (rho ps (set_array s A T (oval G ps s i) R) t) with (rho ps s t). fold M. lra.
Qed.

Lemma sound_Q_VWRITEGUARD : forall P D Qn P' D' Q' x A i es n0 I S terms Lu C,
  c_arr G A = Some (Global, es) -> qopd G i C -> guard_acc G P D i es n0 I S terms = Some Lu ->
  vw_dent G P D x (ERead A i) D' = true -> warp_post_p P P' x = true ->
  pmentions (VL x) Q' = false ->
  gpot_ok Qn Q' (m_gread M 1) Lu S n0 terms (m_vwrite M + C) = true ->
  valid (mkAssn P D Qn) (SAssign x (ERead A i)) (mkAssn P' D' Q').
Proof.
  intros P D Qn P' D' Q' x A i es n0 I S terms Lu C Ha Hi1 Hacc Hx Hs Hm Hge. start_valid.
  destruct (guard_acc_sound ps s P D i es n0 I S terms Lu T w Hacc Hp Hw HD HP Hne Hi)
    as [HS HGA].
  inversion Hrun; subst. simpl in HP, HD. split; [split|].
  - intros t Ht; eapply warp_post_sound; eauto.
  - eapply vw_dent_sound; eauto.
  - intros t Ht. simpl.
    rewrite (pval_ext _ (upd (rho ps s t) (VL x) (int_of (R t)))) by
      (intros; apply rho_set_local; auto).
    rewrite pval_upd_notin by auto.
    pose proof (HGA t Ht) as Hle.
    unfold gpot_ok in Hge. pose proof (pot_ge_sound (rho ps s t) _ _ Hge) as Hg.
    rewrite padd_val, !pplus_val, !pscale_val, gpot_val in Hg.
    set (RR := inject_Z (gcharge n0 terms (- leval (rho ps s t) Lu))) in *.
    set (Mm := pval (rho ps s t) (gminus Lu (Z.to_pos S) terms)) in *.
    rewrite Qmult_plus_distr_r in Hg.
    assert (Hc : m_gread M (memreads G es T (oval G ps s i)) <= m_gread M 1 * RR).
    { rewrite (proj1 (m_glin M (memreads G es T (oval G ps s i)))), !(Qmult_comm (m_gread M 1)).
      apply Qmult_le_compat_r; [unfold RR; rewrite <- Zle_Qle; exact Hle|].
      destruct (m_acc1 M) as [Hg1 _]. exact Hg1. }
    set (K := m_gread M 1 * RR) in *. set (KM := m_gread M 1 * Mm) in *.
    match goal with Hee : eeval _ _ _ _ (ERead _ _) _ _ _ |- _ => inversion Hee; subst end;
      try congruence.
    match goal with Ho : oeval _ _ i _ _ |- _ => pose proof (qopd_sound _ _ _ _ _ Ho Hi1) end.
    try match goal with H : c_arr G A = Some (Global, ?e) |- _ =>
      lazymatch e with es => fail | _ => assert (e = es) by congruence; subst e end end.
    fold M. lra.
Qed.
(* ---- end issue 15 (coqguard18) ---- *)

(** ** RaCUDA Theorem 1 for these representations, with the filtered judgments of
    spec/logic.md §4a (mutual induction on the two judgments) *)
Scheme qstmt_mut := Induction for qstmt Sort Prop
  with qstmtF_mut := Induction for qstmtF Sort Prop.
Combined Scheme qstmt_comb from qstmt_mut, qstmtF_mut.

Theorem soundness_mut :
  (forall A s A', qstmt G A s A' -> valid A s A') /\
  (forall u e A s A', qstmtF G u e A s A' -> validF u e A s A').
Proof.
  apply (qstmt_comb G (fun A s A' _ => valid A s A') (fun u e A s A' _ => validF u e A s A'));
    intros.
  - apply sound_Q_SKIP.
  - apply sound_Q_SYNC; auto.
  - eapply sound_Q_SEQ; eauto.
  - eapply sound_Q_VWRITE1; eauto.
  - eapply sound_Q_VWRITE2; eauto.
  - eapply sound_Q_VWRITE1H; eauto.
  - eapply sound_Q_VWRITE1P; eauto.
  - eapply sound_Q_SHFL; eauto.
  - eapply sound_Q_VOTE; eauto.
  - eapply sound_Q_GWRITE; eauto.
  - eapply sound_Q_SWRITE; eauto.
  - eapply sound_Q_LWRITE; eauto.
  - eapply sound_Q_IF1; eauto.
  - eapply sound_Q_IF2; eauto.
  - eapply sound_Q_IF3; eauto.
  - eapply sound_Q_IF4; eauto.
  - eapply sound_Q_IFALIGN; eauto.
  - eapply sound_Q_WHILE1; eauto.
  - eapply sound_Q_WHILE2; eauto.
  - eapply sound_Q_WHILELAST; eauto.
  - eapply sound_Q_WHILELASTALIGN; eauto.
  - eapply sound_Q_WHILEWARP; eauto.
  - apply sound_Q_UNROLL; auto.
  - eapply sound_Q_WEAK; eauto.
  - eapply (sound_whileexit true); eauto.
  - eapply (sound_whileexit false); [eassumption | eassumption | intros E; discriminate
                                    | eapply validF_false; eassumption | eassumption ..].
  (* issue 15 (exit15) *)
  - eapply sound_Q_WHILEGUARD; eauto.
  - apply sound_SEQ_ASSOC; auto.
  (* issue 15 (exit15b) *)
  - eapply sound_Q_WHILEGUARD0; eauto.
  (* issue 15 (case17) *)
  - eapply sound_Q_CASE; eauto.
  - eapply sound_Q_WHILENONE; eauto.
  (* issue 15 (coqrows17) *)
  - eapply sound_Q_GWRITEROWS; eauto.
  - eapply sound_Q_VWRITEROWS; eauto.
  (* issue 15 (coqguard18) *)
  - eapply sound_Q_GWRITEGUARD; eauto.
  - eapply sound_Q_VWRITEGUARD; eauto.
  (* issue 15 (wincoq19) *)
  - eapply sound_Q_WHILELASTWINDOW; eauto.
  - apply sound_F_ORD; auto.
  - eapply sound_F_SEQ; eauto.
  - eapply sound_F_IF1; eauto.
  - eapply sound_F_IF2; eauto.
  - eapply sound_F_IF3; eauto.
  - eapply sound_F_WEAK; eauto.
  - eapply sound_Q_IFEXIT1; eauto.
  - eapply sound_Q_IFEXIT4; eauto.
  (* issue 15 (exits15b) *)
  - eapply sound_Q_GUARD; eauto.
  - eapply sound_Q_GUARDEXIT; eauto.
  (* issue 15 (brk15) *)
  - eapply sound_Q_IFGUARD4; eauto.
  (* issue 15 (exit16) *)
  - eapply sound_Q_FLAGEXIT; eauto.
Qed.

Theorem soundness : forall A s A', qstmt G A s A' -> valid A s A'.
Proof. apply soundness_mut. Qed.

End Sound.

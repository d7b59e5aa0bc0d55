(** * Soundness of the logic (RaCUDA Lemma 2, Theorem 1) for the
    representations of Logic.v, against the cost semantics of Semantics.v. *)
From Coq Require Import ZArith QArith List Bool Arith Lia Lqa.
From WarpCert Require Import Metric Syntax Semantics Lin Logic.
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

(** [σ, 𝒯 ⊨ {P; X; _}]: [P] holds in every active thread; the locals of [X] agree on [𝒯]. *)
Definition sat_assn (ps : nat -> val) (A : assn) (s : store) (T : list nat) : Prop :=
  (forall t, In t T -> sat (rho ps s t) (aP A)) /\
  (forall x, memn x (aX A) = true -> forall t t', In t T -> In t' T -> sl s x t = sl s x t').

(** Well-typed stores and parameter values (RaCUDA's [Σ ⊢_𝒯 σ]). *)
Definition wt (s : store) : Prop :=
  forall x ty, c_lty G x = Some ty -> forall t, has_type (sl s x t) ty = true.
Definition pok (ps : nat -> val) : Prop :=
  forall p ty, c_pty G p = Some ty -> has_type (ps p) ty = true.

(** Semantic validity of a triple on every non-empty set of threads of one warp. *)
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
  destruct c as [L|L]; simpl in *; rewrite <- (leval_ext r1 r2); auto.
Qed.

Lemma mval_ext : forall r1 r2 m,
  (forall L a v, In L m -> In (a, v) (lterms L) -> r1 v = r2 v) -> mval r1 m = mval r2 m.
Proof.
  intros r1 r2 m H; induction m as [|L m IH]; simpl; auto.
  unfold atom at 1 2. rewrite (leval_ext r1 r2 L) by (intros; eapply H; [left|]; eauto).
  rewrite IH; auto. intros; eapply H; [right|]; eauto.
Qed.

Lemma psum_ext : forall r1 r2 l,
  (forall c m L a v, In (c, m) l -> In L m -> In (a, v) (lterms L) -> r1 v = r2 v) ->
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

(** Potentials over uniform variables have the same value in every active thread. *)
Lemma pvars_ok_var : forall X Q1 c m L a v, pvars_ok X Q1 = true -> In (c, m) (pterms Q1) ->
  In L m -> In (a, v) (lterms L) ->
  match v with VP _ => True | VL x => memn x X = true | VT _ => False end.
Proof.
  intros X Q1 c m L a v Hok Hcm HL Hav. unfold pvars_ok in Hok. rewrite forallb_forall in Hok.
  specialize (Hok _ Hcm). rewrite forallb_forall in Hok. specialize (Hok _ HL).
  unfold lvars_ok in Hok. rewrite forallb_forall in Hok. specialize (Hok _ Hav).
  destruct v; simpl in *; auto; discriminate.
Qed.

Lemma pval_uniform : forall ps X Q1 s t t', pvars_ok X Q1 = true ->
  (forall x, memn x X = true -> sl s x t = sl s x t') ->
  pval (rho ps s t) Q1 = pval (rho ps s t') Q1.
Proof.
  intros ps X Q1 s t t' Hok Hu. unfold pval; f_equal. apply psum_ext.
  intros c m L a v Hcm HL Hav. pose proof (pvars_ok_var X Q1 c m L a v Hok Hcm HL Hav) as Hv.
  destruct v as [x|p|d]; simpl in *; try contradiction; auto. rewrite Hu; auto.
Qed.

(** Potentials over variables not written by [st] keep their value. *)
Lemma pval_frame : forall ps X Q1 s s' t, pvars_ok X Q1 = true ->
  (forall x, memn x X = true -> sl s' x t = sl s x t) ->
  pval (rho ps s' t) Q1 = pval (rho ps s t) Q1.
Proof.
  intros ps X Q1 s s' t Hok Hu. unfold pval; f_equal. apply psum_ext.
  intros c m L a v Hcm HL Hav. pose proof (pvars_ok_var X Q1 c m L a v Hok Hcm HL Hav) as Hv.
  destruct v as [x|p|d]; simpl in *; try contradiction; auto. rewrite Hu; auto.
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
  apply set_local_other; left; intros ->; auto.
Qed.

Lemma run_wt : forall F ps s st T s' C, seval G F ps s st T s' C -> wt s -> wt s'.
Proof.
  intros F ps s st T s' C H; induction H; intros Hw; auto.
  intros y ty' Hy u; simpl. destruct (Nat.eqb_spec y x); simpl; [subst|apply Hw; auto].
  destruct (memb u T) eqn:E; [|apply Hw; auto].
  apply memb_In in E. rewrite H0 in Hy; inversion Hy; subst. auto.
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

(** ** Access counts are at most the warp size *)
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

Lemma acc_sound : forall (f : Z -> Q) n k, (forall a b, (a <= b)%Z -> f a <= f b) ->
  acc_ok G f n = true -> (k <= Z.of_nat (c_warp G))%Z -> f k <= f n.
Proof.
  intros f n k Hm H Hk. unfold acc_ok in H. apply Qle_bool_iff in H.
  eapply Qle_trans; [apply Hm; eauto | auto].
Qed.

(** ** Dependence-based access bounds (MemReads) *)
Lemma nonempty_elem : forall (l : list nat), l <> [] -> exists x, In x l.
Proof. intros [|a l] H; [contradiction|exists a; left; auto]. Qed.

Lemma fold_max_in : forall (l : list Z) x, In x l -> (x <= fold_right Z.max 0 l)%Z.
Proof.
  induction l as [|a l IH]; simpl; intros x H; [contradiction|].
  destruct H as [<-|H]; [lia|]. specialize (IH x H). lia.
Qed.

Lemma gcd_terms_divides : forall r U, Z.divide (gcd_terms U) (tsum r (lterms U)).
Proof.
  intros r [c l]; unfold gcd_terms; simpl. induction l as [|[a v] l IH]; simpl.
  - apply Z.divide_0_r.
  - apply Z.divide_add_r.
    + apply Z.divide_mul_l. apply Z.gcd_divide_l.
    + eapply Z.divide_trans; [apply Z.gcd_divide_r | exact IH].
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

Lemma dep_index : forall ps s P X x k U fw1 fw2 T t0,
  c_lty G x = Some TInt ->
  farkas_ok P (CLe (dep_form x k U)) fw1 = true ->
  farkas_ok P (CLe (lscale (-1) (dep_form x k U))) fw2 = true -> uvars_ok X U = true ->
  (forall t, In t T -> sat (rho ps s t) P) ->
  (forall y, memn y X = true -> forall t t', In t T -> In t' T -> sl s y t = sl s y t') ->
  In t0 T ->
  forall t, In t T -> int_of (oval G ps s (OVar x) t) = (kval G k t + leval (rho ps s t0) U)%Z.
Proof.
  intros ps s P X x k U fw1 fw2 T t0 Ex Hf1 Hf2 Hu HP HX Ht0 t Ht.
  assert (HU : leval (rho ps s t) U = leval (rho ps s t0) U).
  { apply leval_ext. intros a v Hav.
    unfold uvars_ok in Hu. rewrite forallb_forall in Hu. specialize (Hu _ Hav).
    destruct v as [y|p|d]; simpl in *; try discriminate; auto. rewrite (HX y Hu t t0); auto. }
  pose proof (farkas_sound _ _ _ _ (HP t Ht) Hf1) as H1.
  pose proof (farkas_sound _ _ _ _ (HP t Ht) Hf2) as H2.
  rewrite <- HU. cbn [holds] in H1, H2. rewrite lscale_eval in H2.
  destruct k as [[kx ky] kz]. unfold dep_form in H1, H2.
  rewrite ladd_eval, lscale_eval, ladd_eval in H1, H2.
  unfold leval at 1 2 in H1. unfold leval at 1 2 in H2.
  cbn [tsum fold_right lcst lterms fst snd rho] in H1, H2.
  unfold kval. simpl oval. lia.
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
  destruct c' as [L|L]; simpl in *; rewrite <- E; [apply Z.leb_le | apply Z.eqb_eq]; auto.
Qed.

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
  - unfold zrange. apply in_map_iff. exists (Z.to_nat b0). split; [lia|]. apply in_seq. lia.
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
Proof. intros r1 r2 [L|L] H; simpl; rewrite (leval_ext r1 r2); auto. Qed.

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
  set (SB := c_sector_bytes G) in *.
  set (b0 := ((c * es) mod SB)%Z). set (q0 := ((c * es) / SB)%Z).
  assert (Hcq : (c * es = SB * q0 + b0)%Z) by (apply Z.div_mod; lia).
  assert (Hbeta : In b0 (betas SB g r es)) by (apply beta_in; auto).
  assert (Hwn : (w < nwarps G)%nat) by (eapply lanes_nwarps; eauto).
  assert (HTL := wlanes_incl ps s P T w Hi HP).
  unfold memreads. fold SB.
  assert (Hmap : map (fun t => (int_of (oval G ps s i t) * es) / SB)%Z T =
                 map (fun t => (kval G k t * es + b0) / SB + q0)%Z T).
  { apply map_ext_in. intros t Ht. rewrite Hidx by auto.
    replace ((kval G k t + c) * es)%Z with ((kval G k t * es + b0) + q0 * SB)%Z
      by (rewrite Z.mul_add_distr_r, Hcq; ring).
    rewrite Z.div_add by lia. reflexivity. }
  rewrite Hmap. eapply Z.le_trans; [| exact Hb].
  unfold nstar_mem. fold SB.
  eapply Z.le_trans; [| apply fold_max_in; apply in_flat_map;
    exists (map (lane_t G) (lanes G w)); split;
    [apply in_wtids; lia | apply in_map_iff; exists b0; split; [reflexivity | exact Hbeta]]].
  rewrite wfilter_lanes. unfold sec_count. fold SB. rewrite map_map. apply Nat2Z.inj_le.
  apply (nodup_shift_le (fun t => ((kval G k t * es + b0) / SB)%Z) q0). exact HTL.
Qed.

Lemma kval_tid : forall d t, kval G (tid_k d) t = tid G d t.
Proof. intros [|[|[|d]]] t; unfold kval, tid_k, tid; cbv beta iota zeta; lia. Qed.

Ltac dep_split H :=
  cbv beta iota zeta delta [dep_ok dep_ok_sh dep_ok_with exact_bnd nstar nstar_w] in H;
  repeat rewrite andb_true_iff in H.

Lemma dep_sound : forall ps s P X i es n dw T w, dep_ok G P X i es n dw = true ->
  pok ps -> wt s -> (forall t, In t T -> sat (rho ps s t) P) ->
  (forall y, memn y X = true -> forall t t', In t T -> In t' T -> sl s y t = sl s y t') ->
  T <> [] -> incl T (lanes G w) ->
  (memreads G es T (oval G ps s i) <= n)%Z.
Proof.
  intros ps s P X i es n [[[k U] fw1] fw2] T w H Hp Hw HP HX Hne Hi.
  destruct i as [x|p|v|d]; try discriminate.
  - dep_split H. destruct (c_lty G x) as [[]|] eqn:Ex; try discriminate.
    repeat rewrite andb_true_iff in H. destruct H as [[[[[HSB HW] Hf1] Hf2] Hu] Hb].
    apply Z.ltb_lt in HSB. apply Nat.ltb_lt in HW. apply Z.leb_le in Hb.
    destruct (nonempty_elem _ Hne) as [t0 Ht0].
    apply (dep_core ps s P k (gcd_terms U) (lcst U) es n T w (OVar x) (leval (rho ps s t0) U)); auto.
    + eapply dep_index; eauto.
    + replace (leval (rho ps s t0) U - lcst U)%Z with (tsum (rho ps s t0) (lterms U))
        by (unfold leval; lia). apply gcd_terms_divides.
  - dep_split H. destruct (c_pty G p) as [[]|] eqn:Ep; try discriminate.
    repeat rewrite andb_true_iff in H. destruct H as [[HSB HW] Hb].
    apply Z.ltb_lt in HSB. apply Nat.ltb_lt in HW. apply Z.leb_le in Hb.
    apply (dep_core ps s P (0, 0, 0)%Z 1 0 es n T w (OParam p) (int_of (ps p))); auto;
      try (intros t Ht; unfold kval; simpl; lia). apply Z.divide_1_l.
  - dep_split H. destruct v as [c| |]; try discriminate.
    repeat rewrite andb_true_iff in H. destruct H as [[HSB HW] Hb].
    apply Z.ltb_lt in HSB. apply Nat.ltb_lt in HW. apply Z.leb_le in Hb.
    apply (dep_core ps s P (0, 0, 0)%Z 0 c es n T w (OConst (VInt c)) c); auto;
      try (intros t Ht; unfold kval; simpl; lia). replace (c - c)%Z with 0%Z by lia. apply Z.divide_0_r.
  - dep_split H. destruct H as [[HSB HW] Hb].
    apply Z.ltb_lt in HSB. apply Nat.ltb_lt in HW. apply Z.leb_le in Hb.
    apply (dep_core ps s P (tid_k d) 0 0 es n T w (OTid d) 0); auto.
    + intros t Ht. rewrite kval_tid. simpl. lia.
    + apply Z.divide_refl.
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

Lemma conf_core : forall ps s P k g r es n T w o c,
  (0 < c_bank_bytes G)%Z -> (0 < c_banks G)%Z -> (0 < c_warp G)%nat ->
  (nstar_conf G (wtids G) (filter tid_only P) k g r es <= n)%Z ->
  (forall t, In t T -> int_of (oval G ps s o t) = (kval G k t + c)%Z) ->
  Z.divide g (c - r) ->
  (forall t, In t T -> sat (rho ps s t) P) -> T <> [] -> incl T (lanes G w) ->
  (conflicts_of G es T (oval G ps s o) <= n)%Z.
Proof.
  intros ps s P k g r es n T w o c HBB HNB HW Hb Hidx Hcr HP Hne Hi.
  destruct (nonempty_elem _ Hne) as [t0 Ht0].
  set (BB := c_bank_bytes G) in *. set (NB := c_banks G) in *.
  set (b0 := ((c * es) mod (BB * NB))%Z). set (q0 := ((c * es) / (BB * NB))%Z).
  assert (Hcq : (c * es = (BB * NB) * q0 + b0)%Z) by (apply Z.div_mod; lia).
  assert (Hbeta : In b0 (betas (BB * NB) g r es)) by (apply beta_in; auto; lia).
  assert (Hwn : (w < nwarps G)%nat) by (eapply lanes_nwarps; eauto).
  set (L := wlanes G (filter tid_only P) w).
  assert (HTL : incl T L) by (apply (wlanes_incl ps s P T w Hi HP)).
  (* the bank of an actual index is the bank of its offset under b0 *)
  assert (Hbank : forall K, bank G es (K + c) = cbank G es b0 K).
  { intros K. unfold bank, cbank. fold BB NB.
    replace ((K + c) * es)%Z with ((K * es + b0) + (q0 * NB) * BB)%Z
      by (rewrite Z.mul_add_distr_r, Hcq; ring).
    rewrite Z.div_add by lia. rewrite Z.mod_add by lia. reflexivity. }
  eapply Z.le_trans; [| exact Hb].
  unfold nstar_conf. fold BB NB.
  eapply Z.le_trans; [| apply fold_max_in; apply in_flat_map;
    exists (map (lane_t G) (lanes G w)); split;
    [apply in_wtids; lia | apply in_map_iff; exists b0; split; [reflexivity | exact Hbeta]]].
  rewrite wfilter_lanes, conf_count_eq. unfold conflicts_of. fold L.
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
    set (A := filter (fun i => (bank G es i =? jj)%Z) (nodup Z.eq_dec (map (fun t => int_of (oval G ps s o t)) T))).
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

Lemma conf_sound : forall ps s P X i es n dw T w, dep_ok_sh G P X i es n dw = true ->
  pok ps -> wt s -> (forall t, In t T -> sat (rho ps s t) P) ->
  (forall y, memn y X = true -> forall t t', In t T -> In t' T -> sl s y t = sl s y t') ->
  T <> [] -> incl T (lanes G w) ->
  (conflicts_of G es T (oval G ps s i) <= n)%Z.
Proof.
  intros ps s P X i es n [[[k U] fw1] fw2] T w H Hp Hw HP HX Hne Hi.
  destruct i as [x|p|v|d]; try discriminate.
  - dep_split H. destruct (c_lty G x) as [[]|] eqn:Ex; try discriminate.
    repeat rewrite andb_true_iff in H. destruct H as [[[[[[HBB HNB] HW] Hf1] Hf2] Hu] Hb].
    apply Z.ltb_lt in HBB, HNB. apply Nat.ltb_lt in HW. apply Z.leb_le in Hb.
    destruct (nonempty_elem _ Hne) as [t0 Ht0].
    apply (conf_core ps s P k (gcd_terms U) (lcst U) es n T w (OVar x) (leval (rho ps s t0) U)); auto.
    + eapply dep_index; eauto.
    + replace (leval (rho ps s t0) U - lcst U)%Z with (tsum (rho ps s t0) (lterms U))
        by (unfold leval; lia). apply gcd_terms_divides.
  - dep_split H. destruct (c_pty G p) as [[]|] eqn:Ep; try discriminate.
    repeat rewrite andb_true_iff in H. destruct H as [[[HBB HNB] HW] Hb].
    apply Z.ltb_lt in HBB, HNB. apply Nat.ltb_lt in HW. apply Z.leb_le in Hb.
    apply (conf_core ps s P (0, 0, 0)%Z 1 0 es n T w (OParam p) (int_of (ps p))); auto;
      try (intros t Ht; unfold kval; simpl; lia). apply Z.divide_1_l.
  - dep_split H. destruct v as [c| |]; try discriminate.
    repeat rewrite andb_true_iff in H. destruct H as [[[HBB HNB] HW] Hb].
    apply Z.ltb_lt in HBB, HNB. apply Nat.ltb_lt in HW. apply Z.leb_le in Hb.
    apply (conf_core ps s P (0, 0, 0)%Z 0 c es n T w (OConst (VInt c)) c); auto;
      try (intros t Ht; unfold kval; simpl; lia). replace (c - c)%Z with 0%Z by lia. apply Z.divide_0_r.
  - dep_split H. destruct H as [[[HBB HNB] HW] Hb].
    apply Z.ltb_lt in HBB, HNB. apply Nat.ltb_lt in HW. apply Z.leb_le in Hb.
    apply (conf_core ps s P (tid_k d) 0 0 es n T w (OTid d) 0); auto.
    + intros t Ht. rewrite kval_tid. simpl. lia.
    + apply Z.divide_refl.
Qed.

(** ** Lemma 2: expression costs are bounded by the judgment's cost *)
Lemma qopd_sound : forall s o T C C', oeval G s o T C -> qopd G o C' -> C == C'.
Proof. intros s o T C C' H1 H2; inversion H1; inversion H2; subst; try discriminate; lra. Qed.

Lemma gread_bound : forall ps s P X i es n T w, pok ps -> wt s ->
  (forall t, In t T -> sat (rho ps s t) P) ->
  (forall y, memn y X = true -> forall t t', In t T -> In t' T -> sl s y t = sl s y t') ->
  NoDup T -> T <> [] -> incl T (lanes G w) ->
  forall f : Z -> Q, (forall a b, (a <= b)%Z -> f a <= f b) ->
  (acc_ok G f n = true \/ exists dw, dep_ok G P X i es n dw = true) ->
  f (memreads G es T (oval G ps s i)) <= f n.
Proof.
  intros ps s P X i es n T w Hp Hw HP HX Hn Hne Hi f Hm [Hc|[dw Hd]].
  - apply acc_sound; auto. eapply memreads_le; eauto.
  - apply Hm. eapply dep_sound; eauto.
Qed.

Lemma sread_bound : forall ps s P X i es n T w, pok ps -> wt s ->
  (forall t, In t T -> sat (rho ps s t) P) ->
  (forall y, memn y X = true -> forall t t', In t T -> In t' T -> sl s y t = sl s y t') ->
  NoDup T -> T <> [] -> incl T (lanes G w) ->
  forall f : Z -> Q, (forall a b, (a <= b)%Z -> f a <= f b) ->
  (acc_ok G f n = true \/ exists dw, dep_ok_sh G P X i es n dw = true) ->
  f (conflicts_of G es T (oval G ps s i)) <= f n.
Proof.
  intros ps s P X i es n T w Hp Hw HP HX Hn Hne Hi f Hm [Hc|[dw Hd]].
  - apply acc_sound; auto. eapply conflicts_le; eauto.
  - apply Hm. eapply conf_sound; eauto.
Qed.

Lemma qexpr_sound : forall F ps s e T R C P X n C' w, pok ps -> wt s ->
  (forall t, In t T -> sat (rho ps s t) P) ->
  (forall y, memn y X = true -> forall t t', In t T -> In t' T -> sl s y t = sl s y t') ->
  NoDup T -> T <> [] -> incl T (lanes G w) ->
  eeval G F ps s e T R C -> qexpr G P X e n C' -> C <= C'.
Proof.
  intros F ps s e T R C P X n C' w Hp Hw HP HX Hn Hne Hi H1 H2. pose proof (m_mono M) as Hm.
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
        by (eapply gread_bound; eauto; intros; apply Hm; auto) end.
    fold M; lra.
  - match goal with |- context[m_sread _ (conflicts_of G ?es ?T ?R)] =>
      assert (m_sread M (conflicts_of G es T R) <= m_sread M n)
        by (eapply sread_bound; eauto; intros; apply Hm; auto) end.
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
  simpl in *; inversion H1; subst; f_equal;
  rewrite ?ladd_eval, ?lscale_eval; try (unfold leval; simpl; lia); auto.
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
  assert (HL : leval r (lnorm (cform k)) = leval r (cform k)) by apply lnorm_eval.
  set (L := lnorm (cform k)) in *. clearbody L.
  destruct (lterms L) as [|[a [y'|p|d]] [|av l]] eqn:Ht; simpl;
    try (split; intros; discriminate).
  destruct (Nat.eqb_spec y' y) as [<-|]; [|split; intros; discriminate].
  assert (HV : leval r L = (lcst L + a * r (VL y'))%Z) by (unfold leval; rewrite Ht; simpl; lia).
  destruct k as [K|K]; simpl in Hk, HL.
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

(** ** Soundness of each rule (RaCUDA Theorem 1, case by case) *)
Ltac start_valid :=
  intros F ps s T s' Crun w Hp Hn Hne Hi Hw [HP HX] Hrun.

Lemma sound_Q_SKIP : forall A, valid A SSkip A.
Proof.
  intros A. start_valid. inversion Hrun; subst. split; [split; auto|]. intros; lra.
Qed.

Lemma sound_Q_SYNC : forall P X Qn Q', pot_ge Qn (padd Q' (m_sync M)) = true ->
  valid (mkAssn P X Qn) SSync (mkAssn P X Q').
Proof.
  intros P X Qn Q' Hq. start_valid. inversion Hrun; subst. split; [split; auto|].
  intros t Ht. pose proof (pot_ge_sound (rho ps s' t) _ _ Hq). rewrite padd_val in H.
  simpl. fold M. lra.
Qed.

Lemma sound_Q_SEQ : forall A A1 A' s1 s2, valid A s1 A1 -> valid A1 s2 A' ->
  valid A (SSeq s1 s2) A'.
Proof.
  intros A A1 A' s1 s2 V1 V2. start_valid. inversion Hrun; subst.
  match goal with R1 : seval _ _ _ s s1 T ?st1 ?c1, R2 : seval _ _ _ ?st1 s2 T s' ?c2 |- _ =>
    destruct (V1 F ps s T st1 c1 w Hp Hn Hne Hi Hw (conj HP HX) R1) as [HA1 HQ1];
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
Proof. intros r1 r2 [L|L] H; simpl; rewrite (leval_ext r1 r2); auto. Qed.

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
    injection Hc' as <-. destruct c as [L|L]; simpl in *; rewrite <- lsubst_eval; auto.
  - injection Hc' as <-. destruct c as [L|L]; simpl in *; rewrite leval_upd_notin; auto.
Qed.

Lemma vwrite_unif : forall F ps s x e T R Ce P X X' w, pok ps -> wt s ->
  eeval G F ps s e T R Ce -> x_after G P X x e X' = true -> incl T (lanes G w) ->
  (forall t, In t T -> sat (rho ps s t) P) ->
  (forall y, memn y X = true -> forall t t', In t T -> In t' T -> sl s y t = sl s y t') ->
  forall y, memn y X' = true -> forall t t', In t T -> In t' T ->
  sl (set_local s x T R) y t = sl (set_local s x T R) y t'.
Proof.
  intros F ps s x e T R Ce P X X' w Hp Hw He Hx Hi HP HX y Hy t t' Ht Ht'.
  unfold x_after in Hx. rewrite forallb_forall in Hx. apply memn_In in Hy.
  specialize (Hx y Hy). simpl. destruct (Nat.eqb_spec y x); simpl.
  - apply memb_In in Ht as Ht1; apply memb_In in Ht' as Ht1'. rewrite Ht1, Ht1'.
    apply orb_true_iff in Hx as [Hx|Hx].
    + eapply unif_correct; eauto.
    + eapply lin_const_correct; eauto.
  - destruct (memb t T), (memb t' T); apply HX; auto.
Qed.

Lemma sound_Q_VWRITE2 : forall P X Qn P' X' Q' x e n Cj ws,
  qexpr G P X e n Cj -> x_after G P X x e X' = true -> entails_subst G P x e P' ws = true ->
  pmentions (VL x) Q' = false -> pot_ge Qn (padd Q' (m_vwrite M + Cj)) = true ->
  valid (mkAssn P X Qn) (SAssign x e) (mkAssn P' X' Q').
Proof.
  intros P X Qn P' X' Q' x e n Cj ws Hq Hx Hs Hm Hge. start_valid.
  inversion Hrun; subst. simpl in HP, HX. split; [split|].
  - intros t Ht; eapply vwrite_post; eauto.
  - eapply vwrite_unif; eauto.
  - intros t Ht. simpl. pose proof (qexpr_sound _ _ _ _ _ _ _ _ _ _ _ _ Hp Hw HP HX Hn Hne Hi H1 Hq).
    pose proof (pot_ge_sound (rho ps s t) _ _ Hge). rewrite padd_val in H0.
    rewrite (pval_ext _ (upd (rho ps s t) (VL x) (int_of (R t)))) by
      (intros; apply rho_set_local; auto).
    rewrite pval_upd_notin by auto. fold M. lra.
Qed.

Lemma sound_Q_VWRITE1 : forall P X Qn P' X' Q' x e n Cj ws,
  qexpr G P X e n Cj -> x_after G P X x e X' = true -> entails_subst G P x e P' ws = true ->
  lin_fix G P e <> None \/ pmentions (VL x) Q' = false ->
  pot_ge Qn (padd (psubst_e G P x e Q') (m_vwrite M + Cj)) = true ->
  valid (mkAssn P X Qn) (SAssign x e) (mkAssn P' X' Q').
Proof.
  intros P X Qn P' X' Q' x e n Cj ws Hq Hx Hs Hm Hge. start_valid.
  inversion Hrun; subst. simpl in HP, HX. split; [split|].
  - intros t Ht; eapply vwrite_post; eauto.
  - eapply vwrite_unif; eauto.
  - intros t Ht. simpl. pose proof (qexpr_sound _ _ _ _ _ _ _ _ _ _ _ _ Hp Hw HP HX Hn Hne Hi H1 Hq).
    pose proof (pot_ge_sound (rho ps s t) _ _ Hge). rewrite padd_val in H0.
    rewrite (pval_ext _ (upd (rho ps s t) (VL x) (int_of (R t)))) by
      (intros; apply rho_set_local; auto).
    unfold psubst_e in H0. destruct (lin_fix G P e) as [E|] eqn:EL.
    + rewrite psubst_val in H0.
      rewrite (lin_fix_correct F ps s e T R _ P E Hp Hw H1 EL t Ht (HP t Ht)). simpl int_of.
      fold M; lra.
    + destruct Hm as [Hm|Hm]; [congruence|]. rewrite pval_upd_notin by auto. fold M; lra.
Qed.

Lemma sound_Q_GWRITE : forall P X Qn Q' A i e es n ne C1 C2,
  c_arr G A = Some (Global, es) -> qopd G i C1 -> qexpr G P X e ne C2 ->
  (acc_ok G (m_gwrite M) n = true \/ exists dw, dep_ok G P X i es n dw = true) -> pot_ge Qn (padd Q' (m_gwrite M n + C1 + C2)) = true ->
  valid (mkAssn P X Qn) (SWrite A i e) (mkAssn P X Q').
Proof.
  intros P X Qn Q' A i e es n ne C1 C2 Ha Hi1 He1 Hacc Hge. start_valid.
  inversion Hrun; subst; rewrite Ha in *; [|discriminate].
  match goal with H : Some _ = Some _ |- _ => inversion H; subst end.
  split; [split; auto|]. intros t Ht. simpl.
  match goal with Ho : oeval _ _ i _ _ |- _ => pose proof (qopd_sound _ _ _ _ _ Ho Hi1) end.
  match goal with Hee : eeval _ _ _ _ e _ _ _ |- _ =>
    pose proof (qexpr_sound _ _ _ _ _ _ _ _ _ _ _ _ Hp Hw HP HX Hn Hne Hi Hee He1) end.
  pose proof (pot_ge_sound (rho ps s t) _ _ Hge) as Hg. rewrite padd_val in Hg.
  match goal with |- context[m_gwrite _ (memreads G ?es ?T ?R)] =>
    assert (m_gwrite M (memreads G es T R) <= m_gwrite M n)
      by (eapply gread_bound; eauto; intros; apply (m_mono M); auto) end.
  change (rho ps (set_array s A T (oval G ps s i) R) t) with (rho ps s t). fold M. lra.
Qed.

Lemma sound_Q_SWRITE : forall P X Qn Q' A i e es n ne C1 C2,
  c_arr G A = Some (Shared, es) -> qopd G i C1 -> qexpr G P X e ne C2 ->
  (acc_ok G (m_swrite M) n = true \/ exists dw, dep_ok_sh G P X i es n dw = true) -> pot_ge Qn (padd Q' (m_swrite M n + C1 + C2)) = true ->
  valid (mkAssn P X Qn) (SWrite A i e) (mkAssn P X Q').
Proof.
  intros P X Qn Q' A i e es n ne C1 C2 Ha Hi1 He1 Hacc Hge. start_valid.
  inversion Hrun; subst; rewrite Ha in *; [discriminate|].
  match goal with H : Some _ = Some _ |- _ => inversion H; subst end.
  split; [split; auto|]. intros t Ht. simpl.
  match goal with Ho : oeval _ _ i _ _ |- _ => pose proof (qopd_sound _ _ _ _ _ Ho Hi1) end.
  match goal with Hee : eeval _ _ _ _ e _ _ _ |- _ =>
    pose proof (qexpr_sound _ _ _ _ _ _ _ _ _ _ _ _ Hp Hw HP HX Hn Hne Hi Hee He1) end.
  pose proof (pot_ge_sound (rho ps s t) _ _ Hge) as Hg. rewrite padd_val in Hg.
  match goal with |- context[m_swrite _ (conflicts_of G ?es ?T ?R)] =>
    assert (m_swrite M (conflicts_of G es T R) <= m_swrite M n)
      by (eapply sread_bound; eauto; intros; apply (m_mono M); auto) end.
  change (rho ps (set_array s A T (oval G ps s i) R) t) with (rho ps s t). fold M. lra.
Qed.

(** ** Q:IF4 *)
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

Lemma cstrs_equiv_sat : forall r P1 P2, cstrs_equiv P1 P2 = true -> sat r P2 -> sat r P1.
Proof.
  intros r P1; induction P1 as [|c1 P1 IH]; intros [|c2 P2] H HP c Hc.
  - contradiction.
  - discriminate.
  - destruct c1; discriminate.
  - assert (Hc2 : holds r c2) by (apply HP; left; auto).
    assert (HP2 : sat r P2) by (intros c' Hc'; apply HP; right; auto).
    destruct c1 as [L1|L1], c2 as [L2|L2]; cbn [cstrs_equiv] in H; try discriminate;
      apply andb_true_iff in H as [H1 H2];
      destruct (lin_eq_dec (lnorm L1) (lnorm L2)) as [E|]; try discriminate;
      (destruct Hc as [<-|Hc];
       [simpl in *; rewrite <- lnorm_eval, E, lnorm_eval; auto | apply (IH P2); auto]).
Qed.

Lemma cstrs_equiv_sat' : forall r P1 P2, cstrs_equiv P1 P2 = true -> sat r P1 -> sat r P2.
Proof.
  intros r P1; induction P1 as [|c1 P1 IH]; intros [|c2 P2] H HP c Hc; [contradiction|discriminate|contradiction|].
  - assert (Hc2 : holds r c1) by (apply HP; left; auto).
    assert (HP2 : sat r P1) by (intros c' Hc'; apply HP; right; auto).
    destruct c1 as [L1|L1], c2 as [L2|L2]; cbn [cstrs_equiv] in H; try discriminate;
      apply andb_true_iff in H as [H1 H2];
      destruct (lin_eq_dec (lnorm L1) (lnorm L2)) as [E|]; try discriminate;
      (destruct Hc as [<-|Hc];
       [simpl in *; rewrite <- lnorm_eval, <- E, lnorm_eval; auto | apply (IH P2); auto]).
Qed.

Lemma sound_Q_IF4 : forall P X Qn Q e n C s1 s2 PT P1 X1 Q1 PF XF P2 X2 Q2 P' X' wec wet wjt wje,
  qexpr G P X e n C -> cstrs_equiv PT (P ++ fst (cond G e)) = true ->
  valid (mkAssn PT X Q) s1 (mkAssn P1 X1 Q1) ->
  valid (mkAssn PF XF Q1) s2 (mkAssn P2 X2 Q2) ->
  entails (P ++ snd (cond G e)) PF wec = true -> entails P1 PF wet = true ->
  entails P1 P' wjt = true -> entails P2 P' wje = true ->
  subset XF X = true -> disjoint XF (writes s1) = true ->
  subset X' X = true -> disjoint X' (writes s1 ++ writes s2) = true ->
  pvars_ok X Q = true -> pvars_ok XF Q1 = true -> pvars_ok X' Q2 = true ->
  pot_ge Q Q1 = true -> pot_ge Q1 Q2 = true ->
  pot_ge Qn (padd Q (m_if M + C + m_div M)) = true ->
  valid (mkAssn P X Qn) (SIf e s1 s2) (mkAssn P' X' Q2).
Proof.
  intros P X Qn Q e n C s1 s2 PT P1 X1 Q1 PF XF P2 X2 Q2 P' X' wec wet wjt wje
    Hq HPT V1 V2 Hec Het Hjt Hje HsF HdF HsX HdX HvQ HvQ1 HvQ2 HQQ1 HQ1Q2 Hpre.
  start_valid. simpl in HP, HX.
  pose proof (m_nonneg M) as Hnn. destruct Hnn as (_ & _ & _ & _ & Hif & Hdiv & _).
  assert (HXF : forall x, memn x XF = true -> ~ In x (writes s1)) by
    (intros; eapply disjoint_notin; eauto).
  assert (HX'1 : forall x, memn x X' = true -> ~ In x (writes s1)) by
    (intros x Hx Hin; eapply disjoint_notin; eauto; apply in_app_iff; auto).
  assert (HX'2 : forall x, memn x X' = true -> ~ In x (writes s2)) by
    (intros x Hx Hin; eapply disjoint_notin; eauto; apply in_app_iff; auto).
  inversion Hrun; subst.
  - (* SC_IFT *)
    match goal with H : eeval _ _ _ _ _ _ _ _ |- _ => rename H into Hee end.
    match goal with H : seval _ _ _ _ s1 _ _ _ |- _ => rename H into Hs1 end.
    pose proof (qexpr_sound _ _ _ _ _ _ _ _ _ _ _ _ Hp Hw HP HX Hn Hne Hi Hee Hq) as Hce.
    assert (Hpre1 : sat_assn ps (mkAssn PT X Q) s T).
    { split; simpl; auto. intros t Ht; apply (cstrs_equiv_sat _ _ _ HPT); apply sat_app; auto.
      apply (cond_correct F ps s e T R C1 t Hp Hw Hee Ht); auto. }
    destruct (V1 F ps s T s' C2 w Hp Hn Hne Hi Hw Hpre1 Hs1) as [[HP1 HX1] HQ1].
    split; [split|].
    + intros t Ht; apply (entails_sound _ _ _ _ (HP1 t Ht) Hjt).
    + intros x Hx t t' Ht Ht'. simpl in Hx.
      rewrite !(frame_writes _ _ _ _ _ _ _ Hs1 x) by auto. apply HX; auto; first [apply (subset_mem XF); assumption | apply (subset_mem X'); assumption].
    + intros t Ht. simpl. specialize (HQ1 t Ht). simpl in HQ1.
      pose proof (pot_ge_sound (rho ps s t) _ _ Hpre) as H1. rewrite padd_val in H1.
      pose proof (pot_ge_sound (rho ps s' t) _ _ HQ1Q2). fold M. lra.
  - (* SC_IFF *)
    match goal with H : eeval _ _ _ _ _ _ _ _ |- _ => rename H into Hee end.
    match goal with H : seval _ _ _ _ s2 _ _ _ |- _ => rename H into Hs2 end.
    pose proof (qexpr_sound _ _ _ _ _ _ _ _ _ _ _ _ Hp Hw HP HX Hn Hne Hi Hee Hq) as Hce.
    assert (Hpre2 : sat_assn ps (mkAssn PF XF Q1) s T).
    { split; simpl.
      - intros t Ht. refine (entails_sound _ _ _ _ (sat_app _ _ _ (HP t Ht) _) Hec).
        apply (cond_correct F ps s e T R C1 t Hp Hw Hee Ht); auto.
      - intros x Hx; apply HX; first [apply (subset_mem XF); assumption | apply (subset_mem X'); assumption]. }
    destruct (V2 F ps s T s' C2 w Hp Hn Hne Hi Hw Hpre2 Hs2) as [[HP2 HX2] HQ2].
    split; [split|].
    + intros t Ht; apply (entails_sound _ _ _ _ (HP2 t Ht) Hje).
    + intros x Hx t t' Ht Ht'. simpl in Hx.
      rewrite !(frame_writes _ _ _ _ _ _ _ Hs2 x) by auto. apply HX; auto; first [apply (subset_mem XF); assumption | apply (subset_mem X'); assumption].
    + intros t Ht. simpl. specialize (HQ2 t Ht). simpl in HQ2.
      pose proof (pot_ge_sound (rho ps s t) _ _ Hpre) as H1. rewrite padd_val in H1.
      pose proof (pot_ge_sound (rho ps s t) _ _ HQQ1). fold M. lra.
  - (* SC_IFD *)
    match goal with H : eeval _ _ _ _ _ _ _ _ |- _ => rename H into Hee end.
    match goal with H : seval _ _ _ _ s1 _ _ _ |- _ => rename H into Hs1 end.
    match goal with H : seval _ _ _ _ s2 _ _ _ |- _ => rename H into Hs2 end.
    match goal with H : forall t, In t T -> is_bool_v _ = true |- _ => rename H into Hbool end.
    match goal with H : filter (fun t => is_true_v _) T <> [] |- _ => rename H into HneT end.
    match goal with H : filter (fun t => is_false_v _) T <> [] |- _ => rename H into HneF end.
    set (TT := filter (fun t => is_true_v (R t)) T) in *.
    set (TF := filter (fun t => is_false_v (R t)) T) in *.
    pose proof (qexpr_sound _ _ _ _ _ _ _ _ _ _ _ _ Hp Hw HP HX Hn Hne Hi Hee Hq) as Hce.
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
    assert (Hpre1 : sat_assn ps (mkAssn PT X Q) s TT).
    { split; simpl.
      - intros t Ht. apply HTT in Ht as [Ht Hr]. apply (cstrs_equiv_sat _ _ _ HPT), sat_app; auto.
        apply (cond_correct F ps s e T R C1 t Hp Hw Hee Ht); auto.
      - intros x Hx t t' Ht Ht'. apply HTT in Ht; apply HTT in Ht'. apply HX; tauto. }
    destruct (V1 F ps s TT st1 C2 w Hp HnT HneT HiT Hw Hpre1 Hs1) as [[HP1 HX1] HQ1].
    assert (Hst1 : forall x t, In t TF -> sl st1 x t = sl s x t) by
      (intros; eapply frame_threads; eauto).
    assert (HunifF : forall x, memn x XF = true -> forall t t', In t T -> In t' T ->
                       sl st1 x t = sl st1 x t').
    { intros x Hx t t' Ht Ht'. rewrite !(frame_writes _ _ _ _ _ _ _ Hs1 x) by (eapply HXF; eauto).
      apply HX; auto; first [apply (subset_mem XF); assumption | apply (subset_mem X'); assumption]. }
    assert (Hpre2 : sat_assn ps (mkAssn PF XF Q1) st1 TF).
    { split; simpl.
      - intros t Ht. apply (sat_ext (rho ps s t)); [intros; symmetry; apply rho_frame; auto|].
        apply HTF in Ht as [Ht Hr]. refine (entails_sound _ _ _ _ (sat_app _ _ _ (HP t Ht) _) Hec).
        apply (cond_correct F ps s e T R C1 t Hp Hw Hee Ht); auto.
      - intros x Hx t t' Ht Ht'. apply HTF in Ht; apply HTF in Ht'. apply HunifF; tauto. }
    destruct (V2 F ps st1 TF s' C3 w Hp HnF HneF HiF (run_wt _ _ _ _ _ _ _ Hs1 Hw) Hpre2 Hs2)
      as [[HP2 HX2] HQ2].
    assert (Hs'1 : forall x t, In t TT -> sl s' x t = sl st1 x t) by
      (intros; eapply frame_threads; eauto).
    assert (HX's : forall x t, memn x X' = true -> sl s' x t = sl s x t).
    { intros x t Hx. rewrite (frame_writes _ _ _ _ _ _ _ Hs2 x) by auto.
      apply (frame_writes _ _ _ _ _ _ _ Hs1 x); auto. }
    split; [split|].
    + intros t Ht. simpl. specialize (Hbool t Ht).
      destruct (R t) as [| [] |] eqn:Er; try discriminate.
      * assert (HtT : In t TT) by (apply HTT; rewrite Er; auto).
        apply (sat_ext (rho ps st1 t)); [intros; symmetry; apply rho_frame; auto|].
        apply (entails_sound _ _ _ _ (HP1 t HtT) Hjt).
      * assert (HtF : In t TF) by (apply HTF; rewrite Er; auto).
        apply (entails_sound _ _ _ _ (HP2 t HtF) Hje).
    + intros x Hx t t' Ht Ht'. simpl in Hx. rewrite !HX's by auto.
      apply HX; auto; first [apply (subset_mem XF); assumption | apply (subset_mem X'); assumption].
    + intros t Ht. simpl.
      destruct (nonempty_elem _ HneT) as [tT HtT]. destruct (nonempty_elem _ HneF) as [tF HtF].
      assert (HtT' : In tT T) by (apply HTT in HtT; tauto).
      assert (HtF' : In tF T) by (apply HTF in HtF; tauto).
      specialize (HQ1 tT HtT). specialize (HQ2 tF HtF). simpl in HQ1, HQ2.
      rewrite (pval_uniform ps X Q s tT t HvQ) in HQ1 by (intros; apply HX; auto).
      rewrite (pval_uniform ps XF Q1 st1 tT tF HvQ1) in HQ1 by (intros; apply HunifF; auto).
      rewrite (pval_uniform ps X' Q2 s' tF t HvQ2) in HQ2
        by (intros; rewrite !HX's by auto; apply HX; auto; first [apply (subset_mem XF); assumption | apply (subset_mem X'); assumption]).
      pose proof (pot_ge_sound (rho ps s t) _ _ Hpre) as H1. rewrite padd_val in H1.
      fold M. lra.
Qed.

(** ** Q:WHILE1 *)
Lemma while1_loop : forall P X Q' e n C b B PB QB QB',
  qexpr G P X e n C -> unif G X e = true ->
  valid (mkAssn B X QB) b (mkAssn PB X QB') ->
  cstrs_equiv B (P ++ fst (cond G e)) = true -> cstrs_equiv PB P = true ->
  pot_ge Q' QB = true -> pot_ge QB' (padd Q' (m_if M + C)) = true ->
  forall F ps s sw T s' Cr, seval G F ps s sw T s' Cr -> sw = SWhile e b ->
  forall w, pok ps -> NoDup T -> T <> [] -> incl T (lanes G w) -> wt s ->
  sat_assn ps (mkAssn P X Q') s T ->
  sat_assn ps (mkAssn (P ++ snd (cond G e)) X Q') s' T /\
  forall t, In t T -> Cr + pval (rho ps s' t) Q' <= pval (rho ps s t) Q' + (m_if M + C).
Proof.
  intros P X Q' e n C b B PB QB QB' Hq Hu V HB HPB HQB HQB' F ps s sw T s' Cr Hrun.
  induction Hrun; intros Esw; inversion Esw; subst; intros w Hp Hn Hne Hi Hw [HP HX];
    simpl in HP, HX.
  - (* SC_WHILEALL *)
    pose proof (qexpr_sound _ _ _ _ _ _ _ _ _ _ _ _ Hp Hw HP HX Hn Hne Hi H Hq) as Hce.
    assert (Hpre : sat_assn ps (mkAssn B X QB) s T).
    { split; simpl; auto. intros t Ht. apply (cstrs_equiv_sat _ _ _ HB). apply sat_app; auto.
      apply (cond_correct F ps s e T R C1 t Hp Hw H Ht); auto. }
    destruct (V F ps s T st1 C2 w Hp Hn Hne Hi Hw Hpre Hrun1) as [[HP1 HX1] HQ1].
    assert (Hs1 : sat_assn ps (mkAssn P X Q') st1 T).
    { split; simpl; auto. intros t Ht; apply (cstrs_equiv_sat' _ _ _ HPB); auto. }
    destruct (IHHrun2 eq_refl w Hp Hn Hne Hi (run_wt _ _ _ _ _ _ _ Hrun1 Hw) Hs1) as [Hpost HQ2].
    split; auto. intros t Ht. specialize (HQ1 t Ht); specialize (HQ2 t Ht). simpl in HQ1.
    pose proof (pot_ge_sound (rho ps st1 t) _ _ HQB') as H1. rewrite padd_val in H1.
    pose proof (pot_ge_sound (rho ps s t) _ _ HQB) as H2. fold M in H1, H2, HQ1, HQ2 |- *. lra.
  - (* SC_WHILESOME: impossible, the condition is uniform *)
    exfalso. destruct (nonempty_elem _ H1) as [t1 Ht1]. destruct (nonempty_elem _ H2) as [t2 Ht2].
    apply filter_In in Ht1 as [Ht1 E1]. apply filter_In in Ht2 as [Ht2 E2].
    rewrite (unif_correct F ps s e T R C1 X w Hu H Hi HX t1 t2 Ht1 Ht2) in E1.
    destruct (R t2) as [| [] |]; discriminate.
  - (* SC_WHILENONE *)
    pose proof (qexpr_sound _ _ _ _ _ _ _ _ _ _ _ _ Hp Hw HP HX Hn Hne Hi H Hq) as Hce.
    split; [split; simpl; auto|].
    + intros t Ht. apply sat_app; auto. apply (cond_correct F ps s e T R C0 t Hp Hw H Ht); auto.
    + intros t Ht. fold M. lra.
Qed.

Lemma sound_Q_WHILE1 : forall P X Qn Q' e n C b B PB QB QB' P',
  qexpr G P X e n C -> unif G X e = true ->
  valid (mkAssn B X QB) b (mkAssn PB X QB') ->
  cstrs_equiv B (P ++ fst (cond G e)) = true -> cstrs_equiv PB P = true ->
  pot_ge Q' QB = true -> pot_ge QB' (padd Q' (m_if M + C)) = true ->
  pot_ge Qn (padd Q' (m_if M + C)) = true ->
  cstrs_equiv P' (P ++ snd (cond G e)) = true ->
  valid (mkAssn P X Qn) (SWhile e b) (mkAssn P' X Q').
Proof.
  intros P X Qn Q' e n C b B PB QB QB' P' Hq Hu V HB HPB HQB HQB' Hpre HP'. start_valid.
  destruct (while1_loop P X Q' e n C b B PB QB QB' Hq Hu V HB HPB HQB HQB'
              F ps s _ T s' Crun Hrun eq_refl w Hp Hn Hne Hi Hw (conj HP HX)) as [[HP1 HX1] HQ1].
  split; [split; auto|].
  - intros t Ht; apply (cstrs_equiv_sat _ _ _ HP'); auto.
  - intros t Ht. specialize (HQ1 t Ht). simpl.
    pose proof (pot_ge_sound (rho ps s t) _ _ Hpre) as H1. rewrite padd_val in H1. lra.
Qed.

(** ** Q:IF1, Q:IF2, Q:IF3 *)
Lemma sound_Q_IF1 : forall P X Qn Q e n C s1 s2 PT PF A',
  qexpr G P X e n C -> unif G X e = true ->
  cstrs_equiv PT (P ++ fst (cond G e)) = true -> cstrs_equiv PF (P ++ snd (cond G e)) = true ->
  valid (mkAssn PT X Q) s1 A' -> valid (mkAssn PF X Q) s2 A' ->
  pot_ge Qn (padd Q (m_if M + C)) = true ->
  valid (mkAssn P X Qn) (SIf e s1 s2) A'.
Proof.
  intros P X Qn Q e n C s1 s2 PT PF A' Hq Hu HPT HPF V1 V2 Hpre. start_valid. simpl in HP, HX.
  inversion Hrun; subst;
    match goal with H : eeval _ _ _ _ _ _ _ _ |- _ => rename H into Hee end;
    pose proof (qexpr_sound _ _ _ _ _ _ _ _ _ _ _ _ Hp Hw HP HX Hn Hne Hi Hee Hq) as Hce.
  - match goal with H : seval _ _ _ _ s1 _ _ _ |- _ => rename H into Hs end.
    assert (Hpre1 : sat_assn ps (mkAssn PT X Q) s T).
    { split; simpl; auto. intros t Ht; apply (cstrs_equiv_sat _ _ _ HPT); apply sat_app; auto.
      apply (cond_correct F ps s e T R C1 t Hp Hw Hee Ht); auto. }
    destruct (V1 F ps s T s' C2 w Hp Hn Hne Hi Hw Hpre1 Hs) as [HA HQ1].
    split; auto. intros t Ht. specialize (HQ1 t Ht). simpl in HQ1 |- *.
    pose proof (pot_ge_sound (rho ps s t) _ _ Hpre) as H1. rewrite padd_val in H1. fold M. lra.
  - match goal with H : seval _ _ _ _ s2 _ _ _ |- _ => rename H into Hs end.
    assert (Hpre2 : sat_assn ps (mkAssn PF X Q) s T).
    { split; simpl; auto. intros t Ht; apply (cstrs_equiv_sat _ _ _ HPF); apply sat_app; auto.
      apply (cond_correct F ps s e T R C1 t Hp Hw Hee Ht); auto. }
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
    rewrite (unif_correct F ps s e T R C1 X w Hu Hee Hi HX t1 t2 Ht1 Ht2) in E1.
    destruct (R t2) as [| [] |]; discriminate.
Qed.

Lemma if_decided : forall P X Qn Q e n C s1 s2 sb ws A' (neg : bool),
  qexpr G P X e n C ->
  nonempty ((if neg then snd else fst) (cond G e)) = true ->
  entails P ((if neg then snd else fst) (cond G e)) ws = true ->
  sb = (if neg then s2 else s1) ->
  valid (mkAssn P X Q) sb A' -> pot_ge Qn (padd Q (m_if M + C)) = true ->
  valid (mkAssn P X Qn) (SIf e s1 s2) A'.
Proof.
  intros P X Qn Q e n C s1 s2 sb ws A' neg Hq Hne1 Hent Hsb V Hpre. start_valid. simpl in HP, HX.
  (* every active thread decides [e] the same way *)
  assert (Hdec : forall R C1, eeval G F ps s e T R C1 ->
            forall t, In t T -> R t = VBool (negb neg)).
  { intros R C1 He t Ht. pose proof (entails_sound _ _ _ _ (HP t Ht) Hent) as Hs.
    destruct (cond_decides F ps s e T R C1 t Hp Hw He Ht) as [D1 D2].
    destruct neg; simpl in *; auto. }
  inversion Hrun; subst;
    match goal with H : eeval _ _ _ _ _ _ _ _ |- _ => rename H into Hee end;
    pose proof (qexpr_sound _ _ _ _ _ _ _ _ _ _ _ _ Hp Hw HP HX Hn Hne Hi Hee Hq) as Hce;
    pose proof (Hdec _ _ Hee) as HR.
  - destruct neg.
    + exfalso. destruct (nonempty_elem _ Hne) as [t Ht].
      match goal with H : forall t, In t T -> is_true_v _ = true |- _ => specialize (H t Ht) end.
      rewrite HR in *; auto; discriminate.
    + match goal with H : seval _ _ _ _ s1 _ _ _ |- _ => rename H into Hs end.
      destruct (V F ps s T s' C2 w Hp Hn Hne Hi Hw (conj HP HX) Hs) as [HA HQ1].
      split; auto. intros t Ht. specialize (HQ1 t Ht). simpl in HQ1 |- *.
      pose proof (pot_ge_sound (rho ps s t) _ _ Hpre) as H1. rewrite padd_val in H1. fold M. lra.
  - destruct neg.
    + match goal with H : seval _ _ _ _ s2 _ _ _ |- _ => rename H into Hs end.
      destruct (V F ps s T s' C2 w Hp Hn Hne Hi Hw (conj HP HX) Hs) as [HA HQ1].
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

Lemma sound_Q_IF2 : forall P X Qn Q e n C s1 s2 ws A',
  qexpr G P X e n C -> nonempty (fst (cond G e)) = true -> entails P (fst (cond G e)) ws = true ->
  valid (mkAssn P X Q) s1 A' -> pot_ge Qn (padd Q (m_if M + C)) = true ->
  valid (mkAssn P X Qn) (SIf e s1 s2) A'.
Proof. intros. eapply (if_decided P X Qn Q e n C s1 s2 s1 ws A' false); eauto. Qed.

Lemma sound_Q_IF3 : forall P X Qn Q e n C s1 s2 ws A',
  qexpr G P X e n C -> nonempty (snd (cond G e)) = true -> entails P (snd (cond G e)) ws = true ->
  valid (mkAssn P X Q) s2 A' -> pot_ge Qn (padd Q (m_if M + C)) = true ->
  valid (mkAssn P X Qn) (SIf e s1 s2) A'.
Proof. intros. eapply (if_decided P X Qn Q e n C s1 s2 s2 ws A' true); eauto. Qed.

(** ** Q:UNROLL: a loop and its first iteration have the same runs and costs *)
Lemma sound_Q_UNROLL : forall A A' e b,
  valid A (SIf e (SSeq b (SWhile e b)) SSkip) A' -> valid A (SWhile e b) A'.
Proof.
  intros A A' e b V. start_valid.
  inversion Hrun; subst.
  - (* SC_WHILEALL = SC_IFT + SC_SEQ *)
    assert (Hr : seval G F ps s (SIf e (SSeq b (SWhile e b)) SSkip) T s' (C1 + m_if M + (C2 + C3)))
      by (eapply SC_IFT; eauto; eapply SC_SEQ; eauto).
    destruct (V F ps s T s' _ w Hp Hn Hne Hi Hw (conj HP HX) Hr) as [HA HQ].
    split; auto. intros t Ht. specialize (HQ t Ht). fold M in HQ |- *. lra.
  - (* SC_WHILESOME = SC_IFD with the else part [skip] on the exited threads *)
    assert (Hr : seval G F ps s (SIf e (SSeq b (SWhile e b)) SSkip) T s'
                   (C1 + m_if M + (C2 + C3) + 0 + m_div M)).
    { eapply SC_IFD; eauto; [eapply SC_SEQ; eauto | apply SC_SKIP]. }
    destruct (V F ps s T s' _ w Hp Hn Hne Hi Hw (conj HP HX) Hr) as [HA HQ].
    split; auto. intros t Ht. specialize (HQ t Ht). fold M in HQ |- *. lra.
  - (* SC_WHILENONE = SC_IFF + SC_SKIP *)
    assert (Hr : seval G F ps s' (SIf e (SSeq b (SWhile e b)) SSkip) T s' (C + m_if M + 0))
      by (eapply SC_IFF; eauto; apply SC_SKIP).
    destruct (V F ps s' T s' _ w Hp Hn Hne Hi Hw (conj HP HX) Hr) as [HA HQ].
    split; auto. intros t Ht. specialize (HQ t Ht). fold M in HQ |- *. lra.
Qed.

(** ** Q:WHILE2: a possibly divergent loop whose potential [Q'] mentions only uniform
    variables the body does not write; its body therefore costs nothing (each
    iteration must release [C_body + M^if + M^div + C] from an unchanged [Q']). *)
Lemma while2_loop : forall P X Q' e n C b B PB QB QB' X',
  qexpr G P X e n C ->
  valid (mkAssn B X QB) b (mkAssn PB X QB') ->
  cstrs_equiv B (P ++ fst (cond G e)) = true -> cstrs_equiv PB P = true ->
  pot_ge Q' QB = true -> pot_ge QB' (padd Q' (m_if M + m_div M + C)) = true ->
  disjoint X' (writes b) = true -> pvars_ok X' Q' = true ->
  forall F ps s sw T s' Cr, seval G F ps s sw T s' Cr -> sw = SWhile e b ->
  forall w, pok ps -> NoDup T -> T <> [] -> incl T (lanes G w) -> wt s ->
  sat_assn ps (mkAssn P X Q') s T ->
  (forall t, In t T -> sat (rho ps s' t) (P ++ snd (cond G e))) /\
  Cr <= m_if M + m_div M + C.
Proof.
  intros P X Q' e n C b B PB QB QB' X' Hq V HB HPB HQB HQB' HdX HvQ F ps s sw T s' Cr Hrun.
  pose proof (m_nonneg M) as Hnn. destruct Hnn as (_ & _ & _ & _ & Hif & Hdiv & _).
  (* one body run on a non-empty thread set costs at most [−(M^if + M^div + C)] *)
  assert (Hbody : forall s1 T1 st1 C2 w, pok ps -> NoDup T1 -> T1 <> [] -> incl T1 (lanes G w) ->
            wt s1 -> sat_assn ps (mkAssn B X QB) s1 T1 -> seval G F ps s1 b T1 st1 C2 ->
            sat_assn ps (mkAssn PB X QB') st1 T1 /\ C2 + (m_if M + m_div M + C) <= 0).
  { intros s1 T1 st1 C2 w Hp Hn Hne Hi Hw Hpre Hr.
    destruct (V F ps s1 T1 st1 C2 w Hp Hn Hne Hi Hw Hpre Hr) as [HA HQ]. split; auto.
    destruct (nonempty_elem _ Hne) as [t0 Ht0]. specialize (HQ t0 Ht0). simpl in HQ.
    pose proof (pot_ge_sound (rho ps st1 t0) _ _ HQB') as H1. rewrite padd_val in H1.
    pose proof (pot_ge_sound (rho ps s1 t0) _ _ HQB) as H2.
    rewrite (pval_frame ps X' Q' s1 st1 t0 HvQ) in H1.
    - lra.
    - intros x Hx. apply (frame_writes _ _ _ _ _ _ _ Hr). eapply disjoint_notin; eauto. }
  induction Hrun; intros Esw; inversion Esw; subst; intros w Hp Hn Hne Hi Hw [HP HX];
    simpl in HP, HX.
  - (* SC_WHILEALL *)
    pose proof (qexpr_sound _ _ _ _ _ _ _ _ _ _ _ _ Hp Hw HP HX Hn Hne Hi H Hq) as Hce.
    assert (Hpre : sat_assn ps (mkAssn B X QB) s T).
    { split; simpl; auto. intros t Ht. apply (cstrs_equiv_sat _ _ _ HB). apply sat_app; auto.
      apply (cond_correct F ps s e T R C1 t Hp Hw H Ht); auto. }
    destruct (Hbody s T st1 C2 w Hp Hn Hne Hi Hw Hpre Hrun1) as [[HP1 HX1] Hc2].
    assert (Hs1 : sat_assn ps (mkAssn P X Q') st1 T).
    { split; simpl; auto. intros t Ht; apply (cstrs_equiv_sat' _ _ _ HPB); auto. }
    destruct (IHHrun2 eq_refl w Hp Hn Hne Hi (run_wt _ _ _ _ _ _ _ Hrun1 Hw) Hs1) as [Hpost HC3].
    split; auto. fold M in Hce, Hc2, HC3 |- *. lra.
  - (* SC_WHILESOME *)
    pose proof (qexpr_sound _ _ _ _ _ _ _ _ _ _ _ _ Hp Hw HP HX Hn Hne Hi H Hq) as Hce.
    set (TT := filter (fun t => is_true_v (R t)) T) in *.
    assert (HTT : forall t, In t TT <-> In t T /\ is_true_v (R t) = true) by
      (intros; unfold TT; apply filter_In).
    assert (HnT : NoDup TT) by (apply NoDup_filter; auto).
    assert (HiT : incl TT (lanes G w)) by (eapply incl_tran; [apply incl_filter|]; auto).
    assert (Hpre : sat_assn ps (mkAssn B X QB) s TT).
    { split; simpl.
      - intros t Ht. apply HTT in Ht as [Ht Hr]. apply (cstrs_equiv_sat _ _ _ HB), sat_app; auto.
        apply (cond_correct F ps s e T R C1 t Hp Hw H Ht); auto.
      - intros x Hx t t' Ht Ht'. apply HTT in Ht; apply HTT in Ht'. apply HX; tauto. }
    destruct (Hbody s TT st1 C2 w Hp HnT H1 HiT Hw Hpre Hrun1) as [[HP1 HX1] Hc2].
    assert (Hs1 : sat_assn ps (mkAssn P X Q') st1 TT).
    { split; simpl; auto. intros t Ht; apply (cstrs_equiv_sat' _ _ _ HPB); auto. }
    destruct (IHHrun2 eq_refl w Hp HnT H1 HiT (run_wt _ _ _ _ _ _ _ Hrun1 Hw) Hs1) as [Hpost HC3].
    split; [|fold M in Hce, Hc2, HC3 |- *; lra].
    intros t Ht. specialize (H0 t Ht). destruct (R t) as [| [] |] eqn:Er; try discriminate.
    + apply Hpost, HTT. rewrite Er; auto.
    + assert (HtT : ~ In t TT) by (intros Hin; apply HTT in Hin as [_ Hin]; rewrite Er in Hin; discriminate).
      apply (sat_ext (rho ps s t)).
      * intros v. symmetry. apply rho_frame. intros x.
        rewrite (frame_threads _ _ _ _ _ _ _ Hrun2 x t HtT).
        apply (frame_threads _ _ _ _ _ _ _ Hrun1 x t HtT).
      * apply sat_app; auto. apply (cond_correct F ps s e T R C1 t Hp Hw H Ht). rewrite Er; auto.
  - (* SC_WHILENONE *)
    pose proof (qexpr_sound _ _ _ _ _ _ _ _ _ _ _ _ Hp Hw HP HX Hn Hne Hi H Hq) as Hce.
    split.
    + intros t Ht. apply sat_app; auto. apply (cond_correct F ps s e T R C0 t Hp Hw H Ht); auto.
    + fold M in Hce |- *. lra.
Qed.

Lemma sound_Q_WHILE2 : forall P X Qn Q' e n C b B PB QB QB' P' X',
  qexpr G P X e n C ->
  valid (mkAssn B X QB) b (mkAssn PB X QB') ->
  cstrs_equiv B (P ++ fst (cond G e)) = true -> cstrs_equiv PB P = true ->
  pot_ge Q' QB = true -> pot_ge QB' (padd Q' (m_if M + m_div M + C)) = true ->
  pot_ge Qn (padd Q' (m_if M + m_div M + C)) = true ->
  cstrs_equiv P' (P ++ snd (cond G e)) = true ->
  subset X' X = true -> disjoint X' (writes b) = true -> pvars_ok X' Q' = true ->
  valid (mkAssn P X Qn) (SWhile e b) (mkAssn P' X' Q').
Proof.
  intros P X Qn Q' e n C b B PB QB QB' P' X' Hq V HB HPB HQB HQB' Hpre HP' HsX HdX HvQ.
  start_valid.
  destruct (while2_loop P X Q' e n C b B PB QB QB' X' Hq V HB HPB HQB HQB' HdX HvQ
              F ps s _ T s' Crun Hrun eq_refl w Hp Hn Hne Hi Hw (conj HP HX)) as [Hpost HC].
  assert (Hfr : forall x t, memn x X' = true -> sl s' x t = sl s x t).
  { intros x t Hx. apply (frame_writes _ _ _ _ _ _ _ Hrun). simpl. eapply disjoint_notin; eauto. }
  split; [split|].
  - intros t Ht; apply (cstrs_equiv_sat _ _ _ HP'); auto.
  - intros x Hx t t' Ht Ht'. simpl in Hx. rewrite !Hfr by auto.
    apply HX; auto. apply (subset_mem X'); auto.
  - intros t Ht. simpl. rewrite (pval_frame ps X' Q' s s' t HvQ) by (intros; apply Hfr; auto).
    pose proof (pot_ge_sound (rho ps s t) _ _ Hpre) as H1. rewrite padd_val in H1. lra.
Qed.

(** ** Q:WEAK and atom rewrites *)
Lemma psum_cons : forall r x l, psum r (x :: l) = fst x * mval r (snd x) + psum r l.
Proof. reflexivity. Qed.

Lemma atom_shift : forall r L d, (0 <= d <= leval r L)%Z ->
  atom r (lplus L (- d)) + inject_Z d == atom r L.
Proof.
  intros r L d H. unfold atom, lplus. rewrite ladd_eval, leval_const.
  rewrite !Z.max_r by lia. rewrite <- inject_Z_plus. replace (leval r L + - d + d)%Z with (leval r L) by lia.
  reflexivity.
Qed.

Lemma atom_zero : forall r L, (leval r L <= 0)%Z -> atom r L == 0.
Proof. intros r L H. unfold atom. rewrite Z.max_l by lia. reflexivity. Qed.

Lemma atom_eq : forall r L L', lnorm L' = lnorm L -> atom r L' = atom r L.
Proof. intros r L L' E. rewrite <- (atom_lnorm r L'), E, atom_lnorm; auto. Qed.

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
  (forall A, In A (snd cm) -> lnorm A = La -> atom r A == psum r rhs) ->
  psum r (rw_mono La rhs cm) == fst cm * mval r (snd cm).
Proof.
  intros r La rhs [c m] H; unfold rw_mono; cbn [fst snd] in *.
  induction m as [|A m IH]; [cbn; ring|].
  cbn [fold_right]. set (acc := fold_right _ _ m) in *.
  assert (Hacc : psum r acc == c * mval r m) by (apply IH; intros A0 H1 H2; apply H; [right|]; assumption).
  destruct (lin_eq_dec (lnorm A) La) as [E|E].
  - rewrite mmul_sum, Hacc, <- (H A (or_introl eq_refl) E).
    change (mval r (A :: m)) with (atom r A * mval r m). ring.
  - rewrite mmul_sum, Hacc. change (mval r (A :: m)) with (atom r A * mval r m).
    change (psum r [(1, [A])]) with (1 * (atom r A * 1) + 0). ring.
Qed.

Lemma pdiv_sum : forall r f l,
  psum r (map (fun cm => (fst cm / f, snd cm)) l) == psum r l * / f.
Proof. intros r f l; induction l as [|[c m] l IH]; simpl; [ring|]. rewrite IH. unfold Qdiv. ring. Qed.

Lemma rw_rhs_sum : forall r P rw0, sat r P -> rw_ok P rw0 = true ->
  psum r (rw_rhs rw0) == atom r (rw_lhs rw0).
Proof.
  intros r P [L d w|L w] HP H; simpl in H |- *.
  - apply andb_true_iff in H as [Hd H]. apply Z.leb_le in Hd.
    pose proof (farkas_sound _ _ _ _ HP H) as Hf. cbn [holds] in Hf.
    unfold lsub in Hf. rewrite ladd_eval, lscale_eval, leval_const in Hf.
    rewrite <- (atom_shift r L d) by lia. ring.
  - pose proof (farkas_sound _ _ _ _ HP H) as Hf. cbn [holds] in Hf.
    rewrite (atom_zero r L Hf). reflexivity.
Qed.

Lemma rw_apply_sound : forall r P rw0 Q1, sat r P -> rw_ok P rw0 = true ->
  pval r (rw_apply rw0 Q1) == pval r Q1.
Proof.
  intros r P rw0 [c l] HP H. unfold rw_apply.
  pose proof (acanon_val r (rw_lhs rw0)) as Hc.
  destruct (acanon (rw_lhs rw0)) as [f [|L' [|L'' m]]] eqn:Ea; try reflexivity.
  pose proof (acanon_one _ _ _ Ea) as Hf. simpl in Hc.
  unfold pval; cbn [pcst pterms]. apply Qplus_inj_l.
  induction l as [|cm l IH]; [reflexivity|].
  change (flat_map ?f (cm :: l)) with (f cm ++ flat_map f l).
  rewrite psum_app, IH, rw_mono_sum; [rewrite psum_cons; reflexivity|].
  intros A _ E. rewrite pdiv_sum, (rw_rhs_sum r P rw0 HP H), Hc, (atom_eq r L' A E).
  field. intros Hz. rewrite Hz in Hf. discriminate.
Qed.

Lemma rws_apply_sound : forall r P rs Q1, sat r P -> rws_ok P rs = true ->
  pval r (rws_apply rs Q1) == pval r Q1.
Proof.
  intros r P rs; induction rs as [|r0 rs IH]; intros Q1 HP H; simpl in *; [lra|].
  apply andb_true_iff in H as [H1 H2]. rewrite IH by auto. apply (rw_apply_sound r P); auto.
Qed.

Lemma pot_ge_under_sound : forall r P rs Q1 Q2, sat r P -> pot_ge_under P rs Q1 Q2 = true ->
  pval r Q2 <= pval r Q1.
Proof.
  intros r P rs Q1 Q2 HP H. unfold pot_ge_under in H. apply andb_true_iff in H as [H1 H2].
  rewrite <- (rws_apply_sound r P rs Q1) by auto. apply pot_ge_sound; auto.
Qed.

Lemma sound_Q_WEAK : forall P X Qn P' X' Q' s NP NX NQ NP' NX' NQ' k wpre rpre wpost rpost,
  valid (mkAssn NP NX NQ) s (mkAssn NP' NX' NQ') -> Qle_bool 0 k = true ->
  entails P NP wpre = true -> pot_ge_under P rpre Qn (padd NQ k) = true -> subset NX X = true ->
  entails NP' P' wpost = true -> pot_ge_under NP' rpost (padd NQ' k) Q' = true ->
  subset X' NX' = true ->
  valid (mkAssn P X Qn) s (mkAssn P' X' Q').
Proof.
  intros P X Qn P' X' Q' st NP NX NQ NP' NX' NQ' k wpre rpre wpost rpost V Hk Hpre Hrpre HsX
    Hpost Hrpost HsX'. start_valid. simpl in HP, HX.
  assert (Hpre1 : sat_assn ps (mkAssn NP NX NQ) s T).
  { split; simpl.
    - intros t Ht; apply (entails_sound _ _ _ _ (HP t Ht) Hpre).
    - intros x Hx; apply HX; apply (subset_mem NX); auto. }
  destruct (V F ps s T s' Crun w Hp Hn Hne Hi Hw Hpre1 Hrun) as [[HP1 HX1] HQ1].
  split; [split|].
  - intros t Ht; apply (entails_sound _ _ _ _ (HP1 t Ht) Hpost).
  - intros x Hx; apply HX1; apply (subset_mem X'); auto.
  - intros t Ht. simpl. specialize (HQ1 t Ht). simpl in HQ1.
    pose proof (pot_ge_under_sound _ _ _ _ _ (HP t Ht) Hrpre) as H1.
    pose proof (pot_ge_under_sound _ _ _ _ _ (HP1 t Ht) Hrpost) as H2.
    rewrite padd_val in H1, H2. lra.
Qed.

(** ** RaCUDA Theorem 1 for these representations *)
Theorem soundness : forall A s A', qstmt G A s A' -> valid A s A'.
Proof.
  intros A s A' H; induction H.
  - apply sound_Q_SKIP.
  - apply sound_Q_SYNC; auto.
  - eapply sound_Q_SEQ; eauto.
  - eapply sound_Q_VWRITE1; eauto.
  - eapply sound_Q_VWRITE2; eauto.
  - eapply sound_Q_GWRITE; eauto.
  - eapply sound_Q_SWRITE; eauto.
  - eapply sound_Q_IF1; eauto.
  - eapply sound_Q_IF2; eauto.
  - eapply sound_Q_IF3; eauto.
  - eapply sound_Q_IF4; eauto.
  - eapply sound_Q_WHILE1; eauto.
  - eapply sound_Q_WHILE2; eauto.
  - apply sound_Q_UNROLL; auto.
  - eapply sound_Q_WEAK; eauto.
Qed.

End Sound.

(** * The lane-count cap (spec/logic.md §4a, Q:WHILEGUARDCAP / Q:WHILEEXITCAP), part (1)

    The runs of the lock-step semantics do not depend on the metric's [m_div]: a run under
    the context [G] is a run under [ctx_nodiv G] (the same context with [m_div := 0]) with
    the same final store, and its cost is the [ctx_nodiv G] cost plus [m_div] times a
    non-negative count (its splits, SC:IFD and SC:WHILESOME). This is step (1) of the
    rules' soundness argument ([seval_nodiv]).

    Step (2), the bound on the number of splits, is proved here for the loop
    ([cap_loop], [cap_loop_lanes]): if every run of the body on the threads that pass the
    test splits at most [k] times per thread that fails the next test, and at most
    [k·(|T| − 1)] times ([k = a + t], the body's premise [body]), then the whole loop
    splits at most [(k + 1)·(N − 1)] times, [N = min(warp size, block threads)]
    ([cap_lanes]): the loop's cost under [G] is its cost under [ctx_nodiv G] plus at most
    [M^div·(a + t + 1)·(N − 1)], the kernel's [cap_charge]. CapSound.v derives the
    body's premise from a counted meaning of the cap condition's nodes and proves the two
    rules valid; CapCheck.v checks them (no [qstmt] constructor). *)
From Coq Require Import ZArith QArith Lqa Lia List Arith.
From WarpCert Require Import Metric Syntax Semantics.
Open Scope Q_scope.

(** [M] with [m_div := 0]. *)
Definition nodiv (M : metric) : metric.
Proof.
  refine {| m_var := m_var M; m_const := m_const M; m_param := m_param M; m_op := m_op M;
            m_if := m_if M; m_div := 0; m_vwrite := m_vwrite M; m_sync := m_sync M;
            m_gread := m_gread M; m_sread := m_sread M;
            m_gwrite := m_gwrite M; m_swrite := m_swrite M |}.
  - destruct (m_nonneg M) as (?&?&?&?&?&?&?&?). repeat split; auto; lra.
  - exact (m_mono M).
  - exact (m_acc1 M).
  - exact (m_glin M).
Defined.

(** [G] with its metric's [m_div := 0]. *)
Definition ctx_nodiv (G : ctx) : ctx :=
  {| c_metric := nodiv (c_metric G); c_warp := c_warp G; c_banks := c_banks G;
     c_bank_bytes := c_bank_bytes G; c_sector_bytes := c_sector_bytes G;
     c_bx := c_bx G; c_by := c_by G; c_bz := c_bz G;
     c_lty := c_lty G; c_pty := c_pty G; c_arr := c_arr G; c_blockidx := c_blockidx G;
     c_griddim := c_griddim G; c_bgrid := c_bgrid G; c_wu := c_wu G |}.

Lemma oeval_nodiv : forall G s o T C, oeval G s o T C -> oeval (ctx_nodiv G) s o T C.
Proof.
  intros G s o T C H; destruct H.
  - exact (OC_VAR (ctx_nodiv G) s x T).
  - exact (OC_CONST (ctx_nodiv G) s v T).
  - exact (OC_PARAM (ctx_nodiv G) s p T).
  - exact (OC_TID (ctx_nodiv G) s d T).
Qed.

Lemma eeval_nodiv : forall G F ps s e T R C,
  eeval G F ps s e T R C -> eeval (ctx_nodiv G) F ps s e T R C.
Proof.
  intros G F ps s e T R C H; destruct H.
  - apply (EC_OPD (ctx_nodiv G)); apply oeval_nodiv; auto.
  - eapply (EC_OP (ctx_nodiv G)); eauto using oeval_nodiv.
  - eapply (EC_UOP (ctx_nodiv G)); eauto using oeval_nodiv.
  - eapply (EC_GARR (ctx_nodiv G)); eauto using oeval_nodiv.
  - eapply (EC_SARR (ctx_nodiv G)); eauto using oeval_nodiv.
  - eapply (EC_LARR (ctx_nodiv G)); eauto using oeval_nodiv.
Qed.

(** Step (1): the cost under [G] is the cost under [ctx_nodiv G] plus [m_div] times a
    non-negative count, with the same final store. *)
Ltac nd := cbn [ctx_nodiv nodiv c_metric m_var m_const m_param m_op m_if m_div m_vwrite
                 m_sync m_gread m_sread m_gwrite m_swrite].

Theorem seval_nodiv : forall G F ps s st T s' C,
  seval G F ps s st T s' C ->
  exists C' d, seval (ctx_nodiv G) F ps s st T s' C' /\
               C == C' + m_div (c_metric G) * d /\ 0 <= d.
Proof.
  intros G F ps s st T s' C H.
  induction H.
  - exists 0, 0. split; [constructor | split; [ring | lra]].
  - destruct IHseval1 as (A & x & Ha & Ea & Pa); destruct IHseval2 as (B & y & Hb & Eb & Pb).
    exists (A + B), (x + y). split; [eapply SC_SEQ; eauto | split; [rewrite Ea, Eb; ring | lra]].
  - eexists _, 0. split; [eapply SC_VWRITE; eauto using eeval_nodiv | split; [nd; ring | lra]].
  - change (oval G ps s i) with (oval (ctx_nodiv G) ps s i).
    eexists _, 0. split.
    + eapply SC_GWRITE; [exact H | exact (oeval_nodiv _ _ _ _ _ H0)
                   | exact (eeval_nodiv _ _ _ _ _ _ _ _ H1) | exact H2 | exact H3].
    + split; [nd; change (memreads (ctx_nodiv G)) with (memreads G); change (oval (ctx_nodiv G)) with (oval G); ring | lra].
  - change (oval G ps s i) with (oval (ctx_nodiv G) ps s i).
    eexists _, 0. split.
    + eapply SC_SWRITE; [exact H | exact (oeval_nodiv _ _ _ _ _ H0)
                   | exact (eeval_nodiv _ _ _ _ _ _ _ _ H1) | exact H2 | exact H3].
    + split; [nd; change (conflicts_of (ctx_nodiv G)) with (conflicts_of G); change (oval (ctx_nodiv G)) with (oval G); ring | lra].
  - change (oval G ps s i) with (oval (ctx_nodiv G) ps s i).
    eexists _, 0. split.
    + eapply SC_LWRITE; [exact H | exact (oeval_nodiv _ _ _ _ _ H0)
                   | exact (eeval_nodiv _ _ _ _ _ _ _ _ H1) | exact H2 | exact H3].
    + split; [nd; change (oval (ctx_nodiv G)) with (oval G); ring | lra].
  - destruct IHseval as (B & y & Hb & Eb & Pb). eexists _, y.
    split; [eapply SC_IFT; eauto using eeval_nodiv | split; [nd; rewrite Eb; ring | lra]].
  - destruct IHseval as (B & y & Hb & Eb & Pb). eexists _, y.
    split; [eapply SC_IFF; eauto using eeval_nodiv | split; [nd; rewrite Eb; ring | lra]].
  - destruct IHseval1 as (A & x & Ha & Ea & Pa); destruct IHseval2 as (B & y & Hb & Eb & Pb).
    eexists _, (x + y + 1).
    split; [eapply SC_IFD; eauto using eeval_nodiv | split; [nd; rewrite Ea, Eb; ring | lra]].
  - destruct IHseval1 as (A & x & Ha & Ea & Pa); destruct IHseval2 as (B & y & Hb & Eb & Pb).
    eexists _, (x + y).
    split; [eapply SC_WHILEALL; eauto using eeval_nodiv | split; [nd; rewrite Ea, Eb; ring | lra]].
  - destruct IHseval1 as (A & x & Ha & Ea & Pa); destruct IHseval2 as (B & y & Hb & Eb & Pb).
    eexists _, (x + y + 1).
    split; [eapply SC_WHILESOME; eauto using eeval_nodiv | split; [nd; rewrite Ea, Eb; ring | lra]].
  - eexists _, 0. split; [eapply SC_WHILENONE; eauto using eeval_nodiv | split; [nd; ring | lra]].
  - eexists _, 0. split; [eapply SC_SYNC | split; [nd; ring | lra]].
  - change (c_warp G) with (c_warp (ctx_nodiv G)).
    change (oval G ps s v) with (oval (ctx_nodiv G) ps s v).
    change (oval G ps s l) with (oval (ctx_nodiv G) ps s l).
    eexists _, 0. split.
    + eapply SC_SHFL; [exact (oeval_nodiv _ _ _ _ _ H) | exact (oeval_nodiv _ _ _ _ _ H0)
                       | exact H1 | exact H2 | exact H3].
    + split; [nd; ring | lra].
  - change (c_warp G) with (c_warp (ctx_nodiv G)).
    change (oval G ps s p) with (oval (ctx_nodiv G) ps s p).
    eexists _, 0. split.
    + eapply SC_VOTE; [exact (oeval_nodiv _ _ _ _ _ H) | exact H0 | exact H1].
    + split; [nd; ring | lra].
Qed.

(** ** Step (2): the number of splits of a capped loop *)

(** The threads of [T] whose test result in [R] is true (SC:WHILEALL/SOME's filter). *)
Definition passing (R : fam) (T : list nat) : list nat := filter (fun t => is_true_v (R t)) T.

(** [Z.of_nat] as a rational. *)
Definition qn (n : nat) : Q := inject_Z (Z.of_nat n).

(** The split budget of a loop test on [T] with result [R], for [d] splits per lane that
    leaves ([d = a + t + 1]): no thread passes, 0; else [d·(A − 1)] for the [A] threads
    that pass, plus 1 when the test itself splits. *)
Definition cbound (d : nat) (R : fam) (T : list nat) : nat :=
  let A := length (passing R T) in
  if (A =? 0)%nat then 0%nat else (d * (A - 1) + (if (A <? length T)%nat then 1 else 0))%nat.

Lemma eeval_det : forall G F ps s e T R1 C1 R2 C2,
  eeval G F ps s e T R1 C1 -> eeval G F ps s e T R2 C2 -> forall t, In t T -> R1 t = R2 t.
Proof.
  intros G F ps s e T R1 C1 R2 C2 H1 H2 t Ht.
  destruct H1 as [ | s op a b0 T' Ca Cb R Ha Hb HR | s op a T' Ca R Ha HR | | | ];
    inversion H2; subst; try reflexivity;
    match goal with
    | H : forall t, In t _ -> _ = Some (R2 t) |- _ => specialize (H t Ht)
    end; specialize (HR t Ht); congruence.
Qed.

Lemma passing_ext : forall R1 R2 T, (forall t, In t T -> R1 t = R2 t) -> passing R1 T = passing R2 T.
Proof.
  intros R1 R2 T H. unfold passing. apply filter_ext_in. intros t Ht. rewrite H; auto.
Qed.

Lemma filter_length_le : forall (f : nat -> bool) T, (length (filter f T) <= length T)%nat.
Proof. intros f T. induction T as [|a T IH]; simpl; [lia|]. destruct (f a); simpl; lia. Qed.

Lemma passing_length : forall R T, (length (passing R T) <= length T)%nat.
Proof. intros R T. apply filter_length_le. Qed.

Lemma filter_lt : forall (f : nat -> bool) T, (exists t, In t T /\ f t = false) ->
  (length (filter f T) < length T)%nat.
Proof.
  intros f T (t & Ht & Hf). induction T as [|a T IH]; [destruct Ht|].
  simpl. destruct Ht as [<- | Ht].
  - rewrite Hf. pose proof (filter_length_le f T). lia.
  - specialize (IH Ht). destruct (f a); simpl; lia.
Qed.

Lemma passing_all : forall R T, (forall t, In t T -> is_true_v (R t) = true) -> passing R T = T.
Proof.
  intros R T H. unfold passing. induction T as [|a T IH]; simpl; [reflexivity|].
  rewrite H by (left; auto). f_equal. apply IH. intros; apply H; right; auto.
Qed.

Lemma while_eeval : forall G F ps s e b T s' C,
  seval G F ps s (SWhile e b) T s' C -> exists R C0, eeval G F ps s e T R C0.
Proof. intros G F ps s e b T s' C H; inversion H; subst; eauto. Qed.

Lemma mul_le_l : forall m x y, 0 <= m -> x <= y -> m * x <= m * y.
Proof. intros m x y Hm H. rewrite (Qmult_comm m x), (Qmult_comm m y). apply Qmult_le_compat_r; auto. Qed.

Lemma qn_add : forall x y, qn (x + y) == qn x + qn y.
Proof. intros x y. unfold qn. rewrite Nat2Z.inj_add, inject_Z_plus. reflexivity. Qed.

Lemma qn_le : forall x y, (x <= y)%nat -> qn x <= qn y.
Proof. intros x y H. unfold qn. apply inject_Z_mono. lia. Qed.

Lemma qn_nonneg : forall x, 0 <= qn x.
Proof. intros x. change 0 with (qn 0). apply qn_le. lia. Qed.

(** The budget arithmetic of one round on [m] threads, [A1] of which pass the next test:
    [k] splits per leaving lane in the body ([k·(m − max(A1, 1))]), then the rest. *)
Lemma round_budget : forall k m A1, (A1 <= m)%nat ->
  (k * (m - Nat.max A1 1) +
   (if (A1 =? 0)%nat then 0 else S k * (A1 - 1) + (if (A1 <? m)%nat then 1 else 0)) <=
   S k * (m - 1))%nat.
Proof.
  intros k m A1 Hle.
  destruct (A1 =? 0)%nat eqn:E0.
  - apply Nat.eqb_eq in E0; subst. rewrite Nat.add_0_r.
    apply Nat.mul_le_mono; lia.
  - apply Nat.eqb_neq in E0.
    destruct (A1 <? m)%nat eqn:E1.
    + apply Nat.ltb_lt in E1.
      replace (Nat.max A1 1) with A1 by lia.
      replace (m - 1)%nat with ((m - A1) + (A1 - 1))%nat by lia.
      rewrite Nat.mul_add_distr_l.
      assert (k * (m - A1) + 1 <= S k * (m - A1))%nat by (simpl; lia). lia.
    + apply Nat.ltb_ge in E1. replace m with A1 by lia.
      replace (A1 - Nat.max A1 1)%nat with 0%nat by lia. lia.
Qed.

(** The budget is at most [d·(|T| − 1)]: the first phase and every later round that
    splits removes a lane for good. *)
Lemma cbound_le : forall d R T, (1 <= d)%nat -> (cbound d R T <= d * (length T - 1))%nat.
Proof.
  intros d R T Hd. unfold cbound; cbv zeta. pose proof (passing_length R T) as HA.
  destruct (length (passing R T) =? 0)%nat eqn:E0; [apply Nat.le_0_l|]. apply Nat.eqb_neq in E0.
  destruct (length (passing R T) <? length T)%nat eqn:E.
  - apply Nat.ltb_lt in E.
    replace (length T - 1)%nat with ((length (passing R T) - 1) + (length T - length (passing R T)))%nat by lia.
    rewrite Nat.mul_add_distr_l.
    assert (1 * 1 <= d * (length T - length (passing R T)))%nat by (apply Nat.mul_le_mono; lia). lia.
  - apply Nat.ltb_ge in E. replace (length (passing R T)) with (length T) by lia. lia.
Qed.

(** [N = min(warp size, threads of the block)] bounds the active lanes of a warp (the
    kernel's [cap_charge]). *)
Definition cap_lanes (G : ctx) : nat := Nat.min (c_warp G) (c_bx G * c_by G * c_bz G).

Lemma lanes_length : forall G w, (length (lanes G w) <= cap_lanes G)%nat.
Proof.
  intros G w. unfold cap_lanes, lanes. apply Nat.min_glb.
  - etransitivity; [apply filter_length_le | rewrite seq_length; lia].
  - etransitivity; [| rewrite <- (seq_length (c_bx G * c_by G * c_bz G) 0); apply le_n].
    apply NoDup_incl_length.
    + apply NoDup_filter, seq_NoDup.
    + intros t Ht. apply filter_In in Ht. destruct Ht as [_ Ht]. apply Nat.ltb_lt in Ht.
      apply in_seq. lia.
Qed.

Lemma lanes_sub_length : forall G w T, NoDup T -> incl T (lanes G w) -> (length T <= cap_lanes G)%nat.
Proof.
  intros G w T Hn Hi. etransitivity; [apply NoDup_incl_length; eauto | apply lanes_length].
Qed.

(** The body's split count (the part of step (2) the cap condition gives, per round): a
    run of the body [b] on the threads [T] of [T0] that pass the test [e] (with [Inv] of
    the loop head), followed by a test with result [R1], keeps [Inv] and costs its
    [ctx_nodiv G] cost plus at most [M^div·k·(|T| − max(|passing R1 T|, 1))]: [k] splits
    per thread that fails the next test, and at most [k·(|T| − 1)] ([k = a + t]). *)
Definition body_cap (G : ctx) (F : fmodel) (ps : nat -> val) (e : expr) (b : stmt) (k : nat)
    (Inv : store -> list nat -> Prop) : Prop :=
  forall s T0 T s1 C R0 C0 R1 C1, Inv s T0 -> eeval G F ps s e T0 R0 C0 ->
  T = passing R0 T0 -> seval G F ps s b T s1 C -> eeval G F ps s1 e T R1 C1 ->
  Inv s1 T /\ exists C', seval (ctx_nodiv G) F ps s b T s1 C' /\
    C <= C' + m_div (c_metric G) * qn (k * (length T - Nat.max (length (passing R1 T)) 1)).

Section Loop.
Variable G : ctx.
Variable F : fmodel.
Variable ps : nat -> val.
Variable e : expr.
Variable b : stmt.
(** [k = a + t]: the splits per leaving lane of one run of the body *)
Variable k : nat.
(** what the body's derivation knows of the threads at the loop head *)
Variable Inv : store -> list nat -> Prop.
Let md := m_div (c_metric G).
Hypothesis body : body_cap G F ps e b k Inv.

(** Step (2) for the loop: from the budget [cbound] of the first test. *)
Theorem cap_loop : forall s T s' C, seval G F ps s (SWhile e b) T s' C ->
  Inv s T -> forall R C0, eeval G F ps s e T R C0 ->
  exists C', seval (ctx_nodiv G) F ps s (SWhile e b) T s' C' /\
    C <= C' + md * qn (cbound (S k) R T).
Proof.
  assert (Hmd : 0 <= md) by (unfold md; destruct (m_nonneg (c_metric G)) as (?&?&?&?&?&?&?&?); auto).
  intros s T s' C H. remember (SWhile e b) as w eqn:Ew.
  revert Ew. induction H; intros Ew; inversion Ew; subst; clear Ew; intros HI Rx Cx Hx.
  - (* SC_WHILEALL *)
    destruct (while_eeval _ _ _ _ _ _ _ _ _ H2) as (R1 & C1' & HR1).
    assert (HpR : passing R T = T) by (apply passing_all; auto).
    destruct (body s T T st1 C2 R C1 R1 C1' HI H (eq_sym HpR) H1 HR1) as (HI1 & B & HB & EB).
    destruct (IHseval2 eq_refl HI1 R1 C1' HR1) as (C3' & H3 & E3).
    exists (C1 + B + m_if (c_metric G) + C3'). split.
    + change (m_if (c_metric G)) with (m_if (c_metric (ctx_nodiv G))).
      eapply SC_WHILEALL; eauto using eeval_nodiv.
    + assert (Hp : passing Rx T = T).
      { rewrite <- (passing_ext R Rx T (eeval_det _ _ _ _ _ _ _ _ _ _ H Hx)). apply passing_all; auto. }
      assert (Hb : (k * (length T - Nat.max (length (passing R1 T)) 1) + cbound (S k) R1 T
                    <= cbound (S k) Rx T)%nat).
      { unfold cbound at 2. rewrite Hp. rewrite Nat.ltb_irrefl, Nat.add_0_r.
        destruct (length T =? 0)%nat eqn:E0.
        - apply Nat.eqb_eq in E0. rewrite E0. unfold cbound.
          pose proof (passing_length R1 T). replace (length (passing R1 T)) with 0%nat by lia. simpl. lia.
        - unfold cbound. apply round_budget, passing_length. }
      apply qn_le in Hb. rewrite qn_add in Hb.
      assert (md * (qn (k * (length T - Nat.max (length (passing R1 T)) 1)) + qn (cbound (S k) R1 T))
              <= md * qn (cbound (S k) Rx T)) by (apply mul_le_l; auto).
      rewrite Qmult_plus_distr_r in H4. unfold md in *. lra.
  - (* SC_WHILESOME *)
    set (TA := filter (fun t => is_true_v (R t)) T) in *.
    assert (HTA : TA = passing Rx T).
    { exact (passing_ext R Rx T (eeval_det _ _ _ _ _ _ _ _ _ _ H Hx)). }
    destruct (while_eeval _ _ _ _ _ _ _ _ _ H4) as (R1 & C1' & HR1).
    destruct (body s T TA st1 C2 R C1 R1 C1' HI H eq_refl H3 HR1) as (HI1 & B & HB & EB).
    destruct (IHseval2 eq_refl HI1 R1 C1' HR1) as (C3' & H5 & E3).
    exists (C1 + B + m_if (c_metric G) + m_div (c_metric (ctx_nodiv G)) + C3'). split.
    + change (m_if (c_metric G)) with (m_if (c_metric (ctx_nodiv G))).
      eapply SC_WHILESOME; eauto using eeval_nodiv.
    + change (m_div (c_metric (ctx_nodiv G))) with 0.
      assert (HA0 : (0 < length TA)%nat) by (destruct TA; [congruence | simpl; lia]).
      assert (HAT : (length TA < length T)%nat).
      { apply filter_lt. destruct (filter (fun t => is_false_v (R t)) T) as [|t l] eqn:Ef; [congruence|].
        assert (Ht : In t (filter (fun t => is_false_v (R t)) T)) by (rewrite Ef; left; auto).
        apply filter_In in Ht. exists t. split; [tauto|].
        destruct Ht as [_ Ht]. destruct (R t) as [| [|] |]; simpl in *; congruence. }
      assert (Hb : (1 + k * (length TA - Nat.max (length (passing R1 TA)) 1) + cbound (S k) R1 TA
                    <= cbound (S k) Rx T)%nat).
      { unfold cbound at 2. rewrite <- HTA.
        replace (length TA =? 0)%nat with false by (symmetry; apply Nat.eqb_neq; lia).
        replace (length TA <? length T)%nat with true by (symmetry; apply Nat.ltb_lt; lia).
        pose proof (round_budget k (length TA) (length (passing R1 TA)) (passing_length R1 TA)).
        unfold cbound. lia. }
      apply qn_le in Hb. rewrite !qn_add in Hb.
      assert (md * (qn 1 + qn (k * (length TA - Nat.max (length (passing R1 TA)) 1)) + qn (cbound (S k) R1 TA))
              <= md * qn (cbound (S k) Rx T)) by (apply mul_le_l; auto).
      rewrite !Qmult_plus_distr_r in H6. change (qn 1) with 1 in H6. unfold md in *. lra.
  - (* SC_WHILENONE *)
    exists (C + m_if (c_metric G)). split.
    + change (m_if (c_metric G)) with (m_if (c_metric (ctx_nodiv G))).
      eapply SC_WHILENONE; eauto using eeval_nodiv.
    + assert (0 <= md * qn (cbound (S k) Rx T)) by (apply Qmult_le_0_compat; auto using qn_nonneg). lra.
Qed.
(** Step (2) for the threads of a warp: a capped loop splits at most
    [(a + t + 1)·(N − 1)] times ([cap_charge]). *)
Corollary cap_loop_lanes : forall w s T s' C R C0, NoDup T -> incl T (lanes G w) ->
  seval G F ps s (SWhile e b) T s' C -> Inv s T -> eeval G F ps s e T R C0 ->
  exists C', seval (ctx_nodiv G) F ps s (SWhile e b) T s' C' /\
    C <= C' + md * qn (S k * (cap_lanes G - 1)).
Proof.
  intros w s T s' C R C0 Hn Hi H HI He.
  destruct (cap_loop s T s' C H HI R C0 He) as (C' & H' & E). exists C'. split; auto.
  assert (Hmd : 0 <= md) by (unfold md; destruct (m_nonneg (c_metric G)) as (?&?&?&?&?&?&?&?); auto).
  assert (qn (cbound (S k) R T) <= qn (S k * (cap_lanes G - 1))).
  { apply qn_le. etransitivity; [apply cbound_le; lia|].
    apply Nat.mul_le_mono_l. pose proof (lanes_sub_length G w T Hn Hi). lia. }
  assert (md * qn (cbound (S k) R T) <= md * qn (S k * (cap_lanes G - 1))) by (apply mul_le_l; auto).
  lra.
Qed.
End Loop.

(** ** Toward the body's premise [body_cap]: nodes that never split

    Statements without a branch or a loop ([SC:IFD] and [SC:WHILESOME] cannot apply). *)
Fixpoint straight (s : stmt) : bool :=
  match s with
  | SIf _ _ _ | SWhile _ _ => false
  | SSeq a b => straight a && straight b
  | _ => true
  end.

(** A straight statement never splits: its run under [G] is a run under [ctx_nodiv G] of the
    same cost (the leaves of a capped body's nodes Q:VWRITE1/2, Q:GWRITE, Q:SWRITE,
    Q:LWRITE, Q:SYNC, Q:SHFL, Q:VOTE, Q:GUARD). *)
Lemma seval_straight : forall G F ps s st T s' C, straight st = true ->
  seval G F ps s st T s' C -> seval (ctx_nodiv G) F ps s st T s' C.
Proof.
  intros G F ps s st T s' C Hs H. induction H; simpl in Hs; try discriminate.
  - constructor.
  - apply andb_prop in Hs as [H1 H2]. eapply SC_SEQ; eauto.
  - exact (SC_VWRITE (ctx_nodiv G) F ps s x e T R C ty (eeval_nodiv _ _ _ _ _ _ _ _ H) H0 H1).
  - exact (SC_GWRITE (ctx_nodiv G) F ps s A i e T C1 C2 R es H (oeval_nodiv _ _ _ _ _ H0)
             (eeval_nodiv _ _ _ _ _ _ _ _ H1) H2 H3).
  - exact (SC_SWRITE (ctx_nodiv G) F ps s A i e T C1 C2 R es H (oeval_nodiv _ _ _ _ _ H0)
             (eeval_nodiv _ _ _ _ _ _ _ _ H1) H2 H3).
  - exact (SC_LWRITE (ctx_nodiv G) F ps s A i e T C1 C2 R es H (oeval_nodiv _ _ _ _ _ H0)
             (eeval_nodiv _ _ _ _ _ _ _ _ H1) H2 H3).
  - exact (SC_SYNC (ctx_nodiv G) F ps s T).
  - exact (SC_SHFL (ctx_nodiv G) F ps s x k w v l T C1 C2 ty (oeval_nodiv _ _ _ _ _ H)
             (oeval_nodiv _ _ _ _ _ H0) H1 H2 H3).
  - exact (SC_VOTE (ctx_nodiv G) F ps s x k p T C (oeval_nodiv _ _ _ _ _ H) H0 H1).
Qed.

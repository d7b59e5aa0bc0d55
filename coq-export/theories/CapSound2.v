(** * Q:WHILEEXITCAP2 (spec/logic.md §4a, issue 15, mandel19), at the level of meanings

    Q:WHILEEXIT2 whose loop test pays its split per round ([k = M^if + M^div + C], as
    Q:WHILEEXIT2) while the body's exit nodes (Q:IFEXIT4, Q:IFGUARD4, Q:FLAGEXIT, charged
    without [M^div]) are paid by the lane count [(N − 1)·(a + t)·M^div], under
    Q:WHILEEXITCAP's cap condition (kernel/src/rules/cap.rs [q_whileexitcap2] =
    [while_exit_ge] with [cap = Some((cap_charge(…, true), true))]).

    From the same two facts about the body as CapSound.v's [cap_exit_valid_FC]:
    - its validity under [ctx_nodiv G] ([validF (ctx_nodiv G) false e …]);
    - its counted meaning [validFC a t e …] at the loop's tail (CapSound.v, one lemma per node
      the cap condition allows), which gives the per-round count [body_split] with
      [k = a + t] ([body_split_of_FC]);
    [cap_exit2_valid_FC] proves the rule valid under [G] with the kernel's pre
    [I + Q' + 2k + M^div·(a + t)·(N − 1)], [N = cap_lanes G].

    The proof differs from [cap_exit_valid]'s in one place: the loop test's splits are
    not counted by the lane budget (Cap.v [cbound], [(k + 1)] per lost lane) but paid by
    the potential, one [M^div] per round, as in Soundness.v's [whileexit_loop].  So the
    loop's cost under [G] is bounded directly by induction on its run ([cap2_loop]): a
    round runs the body under [G], which is its [ctx_nodiv G] run (whose cost the body's
    [ctx_nodiv G] validity bounds by the potential) dearer by at most
    [M^div·k·(|𝒯| − max(|𝒯₁|, 1))] ([body_split]), and the lane budget left is
    [k·(|𝒯ₑ| − 1)] ([𝒯ₑ] the threads entering the body; [cap2_round_le]).  The post's
    facts are Soundness.v's [whileexit_run] applied to the loop's [ctx_nodiv G] run (Cap.v
    [cap_loop_lanes]).

    Check.v's node [DWhileExitCap2], its [ccheck] case and its soundness in [ccheck_valid]
    (from this corollary) are in CapCheck.v (cap2wire20), as Q:WHILEEXITCAP's. *)
From Coq Require Import ZArith QArith List Bool Arith Lia Lqa.
From WarpCert Require Import Metric Syntax Semantics Lin Shift Guard Logic IntRw Soundness Cap CapSound.
Import ListNotations.
Open Scope Q_scope.

Section CapSound2.
Variable G : ctx.
Let M := c_metric G.
Let G0 := ctx_nodiv G.
Hypothesis HWU : wu_sound G.

(** The lane-count charge of Q:WHILEEXITCAP2: [M^div·k·(N − 1)], [k = a + t] (the
    kernel's [cap_charge(cx, n, true)]: [(lanes − 1)·(exit + tests)·M^div], no [+ 1] for
    the loop test). *)
Definition cap2_delta (k : nat) : Q := m_div M * qn (k * (cap_lanes G - 1)).

Lemma cap2_delta_nonneg : forall k, 0 <= cap2_delta k.
Proof. intros k. unfold cap2_delta. apply Qmult_le_0_compat; [apply md_nonneg | apply qn_nonneg]. Qed.

(** The round's budget: [k] splits per lane lost in the body ([k·(A − max(A₁, 1))]) and the
    budget [k·(A₁ − 1)] of the rounds after it fit in [k·(A − 1)]. *)
Lemma cap2_round_le : forall k A A1, (A1 <= A)%nat ->
  (k * (A - Nat.max A1 1) + k * (A1 - 1) <= k * (A - 1))%nat.
Proof.
  intros k A A1 H. rewrite <- Nat.mul_add_distr_l. apply Nat.mul_le_mono_l. lia.
Qed.

Lemma etrue_length : forall F ps s e T R C, eeval G F ps s e T R C ->
  length (filter (etrue G F ps s e) T) = length (passing R T).
Proof.
  intros F ps s e T R C H. unfold passing. apply filter_length_ext.
  intros y Hy. rewrite (etrue_R G _ _ _ _ _ _ _ H y Hy). reflexivity.
Qed.

(** The loop on one run under [G], by induction on the run (Soundness.v [whileexit_loop]'s
    potential with Q:WHILEEXIT2's [k], and the body's splits by the lane budget): when no
    thread enters the body the loop costs the last test, at most [M^if + C]; else, for [te]
    entering it, at most [k + I(te) + M^if + C + M^div·k'·(|𝒯ₑ| − 1)] ([k' = a + t], [𝒯ₑ]
    the threads entering the body). *)
Lemma cap2_loop : forall P D e n C b B I PB QB' k' F ps w,
  qexpr G0 P D e n C -> noread e = true ->
  validF G0 false e (mkAssn B D I) b (mkAssn PB D QB') ->
  cstrs_equiv B (P ++ fst (cond G e)) = true -> cstrs_equiv PB P = true ->
  (forall r, pval r (padd I (m_if M + m_div M + C)) <= pval r QB') ->
  body_split G F ps e b k' (cap_inv G F ps w P D [] e) ->
  forall s sw T s' Cr, seval G F ps s sw T s' Cr -> sw = SWhile e b ->
  cap_inv G F ps w P D [] e s T -> T <> [] ->
  (filter (etrue G F ps s e) T = [] -> Cr <= m_if M + C) /\
  (forall te, In te (filter (etrue G F ps s e) T) ->
     Cr <= (m_if M + m_div M + C) + pval (rho G ps s te) I + (m_if M + C)
           + m_div M * qn (k' * (length (filter (etrue G F ps s e) T) - 1))).
Proof.
  intros P D e n C b B I PB QB' k' F ps w Hq Hnr V HB HPB HQB' Hs.
  assert (HB' : cstrs_equiv B (P ++ fst (cond G e) ++ []) = true) by (rewrite app_nil_r; exact HB).
  assert (HC : body_cap G F ps e b k' (cap_inv G F ps w P D [] e)).
  { eapply (body_cap_of_split G F ps w e n C b k' P D [] B I PB QB'); eauto.
    intros; intros c []. }
  pose proof (md_nonneg G) as Hmd. change (c_metric G) with M in Hmd.
  pose proof (m_nonneg M) as (_ & _ & _ & _ & Hif & _).
  intros s sw T s' Cr Hrun. induction Hrun; intros Esw HI Hne; inversion Esw; subst.
  - (* SC_WHILEALL: the test does not split *)
    pose proof (qexpr_noread G0 F ps s e T R C1 P D n C Hnr (eeval_nodiv _ _ _ _ _ _ _ _ H) Hq) as Hce.
    assert (HpT : passing R T = T) by (apply passing_all; auto).
    destruct (while_eeval _ _ _ _ _ _ _ _ _ Hrun2) as (R1 & C1' & He1).
    destruct (HC s T T st1 C2 R C1 R1 C1' HI H (eq_sym HpT) Hrun1 He1) as (HI1 & C' & Hb0 & HC').
    pose proof HI as (Hp & Hw & Hn & Hi & _).
    assert (Hpre : sat_assn G0 ps (mkAssn B D I) s T).
    { pose proof (cap_body_pre G F ps w P D [] e B I s T R C1 HB' HI H ltac:(rewrite HpT; exact Hne)) as X.
      rewrite HpT in X. exact X. }
    destruct (V F ps s T st1 C' w Hp Hn Hne Hi Hw Hpre Hb0) as (_ & _ & _ & HE1 & HQ1).
    cbn [aQ] in HE1, HQ1. change (etrue G0) with (etrue G) in HE1, HQ1.
    change (rho G0) with (rho G) in HE1, HQ1.
    destruct (IHHrun2 eq_refl HI1 Hne) as (HC0 & HC1).
    assert (HL : length (filter (etrue G F ps s e) T) = length T)
      by (rewrite (etrue_length F ps s e T R C1 H), HpT; reflexivity).
    assert (HA1 : length (filter (etrue G F ps st1 e) T) = length (passing R1 T))
      by exact (etrue_length F ps st1 e T R1 C1' He1).
    pose proof (passing_length R1 T) as HA1T.
    split.
    + intros E. exfalso. destruct (nonempty_elem _ Hne) as [u Hu].
      assert (Hx : In u (filter (etrue G F ps s e) T))
        by (apply filter_In; split; auto; rewrite (etrue_R G _ _ _ _ _ _ _ H u Hu); auto).
      rewrite E in Hx. contradiction.
    + intros te Hte. rewrite HL. apply filter_In in Hte as [Hte _].
      destruct (filter (etrue G F ps st1 e) T) as [|t1 l] eqn:E1.
      * specialize (HE1 eq_refl te Hte). specialize (HC0 eq_refl).
        simpl in HA1. rewrite <- HA1 in HC'. change (Nat.max 0 1) with 1%nat in HC'.
        change M with (c_metric G) in *. lra.
      * assert (Hf : In t1 (filter (etrue G F ps st1 e) T)) by (rewrite E1; left; auto).
        specialize (HC1 t1 (or_introl eq_refl)).
        specialize (HQ1 te t1 Hte (or_introl eq_refl)).
        pose proof (HQB' (rho G ps st1 t1)) as H3. rewrite padd_val in H3.
        assert (Hb : (k' * (length T - Nat.max (length (passing R1 T)) 1) +
                      k' * (length (t1 :: l) - 1) <= k' * (length T - 1))%nat).
        { rewrite HA1. apply cap2_round_le. exact HA1T. }
        apply qn_le in Hb. rewrite qn_add in Hb.
        assert (m_div M * (qn (k' * (length T - Nat.max (length (passing R1 T)) 1)) +
                           qn (k' * (length (t1 :: l) - 1)))
                <= m_div M * qn (k' * (length T - 1))) as Hm by (apply mul_le_l; auto).
        rewrite Qmult_plus_distr_r in Hm.
        change M with (c_metric G) in *. lra.
  - (* SC_WHILESOME: the test splits, paid by [k]'s [M^div] *)
    pose proof (qexpr_noread G0 F ps s e T R C1 P D n C Hnr (eeval_nodiv _ _ _ _ _ _ _ _ H) Hq) as Hce.
    set (TA := filter (fun t => is_true_v (R t)) T) in *.
    change TA with (passing R T) in *.
    destruct (while_eeval _ _ _ _ _ _ _ _ _ Hrun2) as (R1 & C1' & He1).
    destruct (HC s T (passing R T) st1 C2 R C1 R1 C1' HI H eq_refl Hrun1 He1) as (HI1 & C' & Hb0 & HC').
    pose proof HI as (Hp & Hw & _ & _ & _).
    pose proof HI1 as (_ & _ & HnA & HiA & _).
    pose proof (cap_body_pre G F ps w P D [] e B I s T R C1 HB' HI H H1) as Hpre.
    destruct (V F ps s (passing R T) st1 C' w Hp HnA H1 HiA Hw Hpre Hb0) as (_ & _ & _ & HE1 & HQ1).
    cbn [aQ] in HE1, HQ1. change (etrue G0) with (etrue G) in HE1, HQ1.
    change (rho G0) with (rho G) in HE1, HQ1.
    destruct (IHHrun2 eq_refl HI1 H1) as (HC0 & HC1).
    assert (HL : length (filter (etrue G F ps s e) T) = length (passing R T))
      by exact (etrue_length F ps s e T R C1 H).
    assert (HA1 : length (filter (etrue G F ps st1 e) (passing R T)) = length (passing R1 (passing R T)))
      by exact (etrue_length F ps st1 e (passing R T) R1 C1' He1).
    pose proof (passing_length R1 (passing R T)) as HA1T.
    pose proof (passing_etrue G F ps s e T R C1 H) as HTe.
    split.
    + intros E. exfalso. destruct (nonempty_elem _ H1) as [u Hu].
      apply HTe in Hu. rewrite E in Hu. contradiction.
    + intros te Hte. rewrite HL. apply HTe in Hte.
      destruct (filter (etrue G F ps st1 e) (passing R T)) as [|t1 l] eqn:E1.
      * specialize (HE1 eq_refl te Hte). specialize (HC0 eq_refl).
        simpl in HA1. rewrite <- HA1 in HC'. change (Nat.max 0 1) with 1%nat in HC'.
        change M with (c_metric G) in *. lra.
      * specialize (HC1 t1 (or_introl eq_refl)).
        specialize (HQ1 te t1 Hte (or_introl eq_refl)).
        pose proof (HQB' (rho G ps st1 t1)) as H3. rewrite padd_val in H3.
        assert (Hb : (k' * (length (passing R T) - Nat.max (length (passing R1 (passing R T))) 1) +
                      k' * (length (t1 :: l) - 1) <= k' * (length (passing R T) - 1))%nat).
        { rewrite HA1. apply cap2_round_le. exact HA1T. }
        apply qn_le in Hb. rewrite qn_add in Hb.
        assert (m_div M * (qn (k' * (length (passing R T) - Nat.max (length (passing R1 (passing R T))) 1)) +
                           qn (k' * (length (t1 :: l) - 1)))
                <= m_div M * qn (k' * (length (passing R T) - 1))) as Hm by (apply mul_le_l; auto).
        rewrite Qmult_plus_distr_r in Hm.
        change M with (c_metric G) in *. lra.
  - (* SC_WHILENONE: the last test *)
    pose proof (qexpr_noread G0 F ps s e T R C0 P D n C Hnr (eeval_nodiv _ _ _ _ _ _ _ _ H) Hq) as Hce.
    assert (HTe : filter (etrue G F ps s e) T = []).
    { apply filter_all_false. intros t Ht. rewrite (etrue_R G _ _ _ _ _ _ _ H t Ht).
      specialize (H0 t Ht). destruct (R t) as [| [] |]; auto; discriminate. }
    split.
    + intros _. change M with (c_metric G) in *. lra.
    + rewrite HTe. intros te [].
Qed.

(** ** Q:WHILEEXITCAP2

    Premises, and the kernel check each stands for (kernel/src/rules/cap.rs
    [q_whileexitcap2] = [while_exit_ge(cx, n, s, pre, false, None, false,
    Some((&charge, true)))], kernel/src/rules/stmt.rs):
    - [noread e]: [if let Expr::Read(a, _) = e { … ExitTestReads }];
    - [qexpr (ctx_nodiv G) P D e n C]: [cost = cx.check_node(&c[0], Subject::Expr(e), pre, 0)]
      (a test's cost has no [M^div]: the same under [G] and [ctx_nodiv G], CapSound.v
      [qexpr_nodiv]);
    - [validF (ctx_nodiv G) false e (B, D, I) b (PB, D, QB')]:
      [cx.check_node_in(&c[1], Subject::Stmt(body), pre, 1, Some(e))] with
      [cx.capped = true] (the exit nodes charged without [M^div], [Ctx::split_cost]; the
      cap condition makes every other node of [B] one that charges no [M^div]);
    - [validFC G a t e (B, D, I) b (PB, D, QB')]: the cap condition, [cap_charge]'s
      [walk(cx, body, Pos::TailLoop, &mut found)] ([a = found.exit], [t = found.tests]);
    - [cstrs_equiv B (P ++ fst (cond G e))]: [cx.same_p(&body_p, &bpre.p, "P ∧ cond(e)", …)];
      the body pre's [D]: [cx.same_d(&pre.d, &bpre.d, …)];
    - [cstrs_equiv PB P]: [cx.same_p(&pre.p, &bpost.p, …)]; the body post's [D]:
      [cx.same_d(&pre.d, &bpost.d, …)];
    - [pot_ge QB' (I + k)], [k = M^if + M^div + C]: [cx.same_q(&bpost.q, &plus(&bpre.q, &k),
      …)] with [test_div = cap.is_none_or(|(_, per_round)| per_round)] true for
      Q:WHILEEXITCAP2, so [k = &k0 + &cx.m.div], [k0 = &cx.m.if_ + &cost];
    - [pot_ge Qn (I + Q' + 2k + cap2_delta (a + t))]: [cx.same_q(&pre_q, &want, …)] with
      [pre_q = pre.q − charge], [want = bpre.q + post.q + (k + k)], and
      [charge = cap_charge(cx, n, true) = (lanes − 1)·(exit + tests)·M^div],
      [lanes = min(hw[0], block threads)] ([cap_lanes G]);
    - [cstrs_equiv P' (P ++ snd (cond G e))]: [cx.same_p(&and_cond(true), &post.p, …)];
    - [dcovers D D'], [disjoint (dvars D') (writes b)]:
      [cx.same_d(&without(&pre.d, &body.writes()), &post.d, …)];
    - [puni G D I], [pnonneg I], [puni G D' Q']: the well-formedness of the potentials, as
      for Q:WHILEEXIT2 (Soundness.v [sound_whileexit], Check.v's checks of every node). *)
Theorem cap_exit2_valid : forall P D Qn Q' e n C b B I PB QB' P' D' k,
  qexpr G0 P D e n C -> noread e = true ->
  validF G0 false e (mkAssn B D I) b (mkAssn PB D QB') ->
  cstrs_equiv B (P ++ fst (cond G e)) = true -> cstrs_equiv PB P = true ->
  pot_ge QB' (padd I (m_if M + m_div M + C)) = true ->
  pot_ge Qn (padd (pplus I Q')
    ((m_if M + m_div M + C) + (m_if M + m_div M + C) + cap2_delta k)) = true ->
  cstrs_equiv P' (P ++ snd (cond G e)) = true ->
  dcovers D D' = true -> disjoint (dvars D') (writes b) = true ->
  puni G D I = true -> pnonneg I = true -> puni G D' Q' = true ->
  (forall F ps w, body_split G F ps e b k (cap_inv G F ps w P D [] e)) ->
  valid G (mkAssn P D Qn) (SWhile e b) (mkAssn P' D' Q').
Proof.
  intros P D Qn Q' e n C b B I PB QB' P' D' k Hq Hnr V HB HPB HQB' Hpre HP' HcD HdD HuI HnI HuQ Hs
    F ps s T s' Crun w Hp Hn Hne Hi Hw HA Hrun.
  pose proof (md_nonneg G) as Hmd. change (c_metric G) with M in Hmd.
  pose proof (m_nonneg M) as (_ & _ & _ & _ & Hif & _).
  pose proof (qexpr_noread_nonneg G0 _ _ _ _ _ Hnr Hq) as HC0.
  pose proof (cap2_delta_nonneg k) as Hd.
  assert (HB' : cstrs_equiv B (P ++ fst (cond G e) ++ []) = true) by (rewrite app_nil_r; exact HB).
  assert (HQB1 : forall r, pval r (padd I (m_if M + m_div M + C)) <= pval r QB')
    by (intros r; apply pot_ge_sound; auto).
  destruct HA as [HP HD]. cbn [aP aD aQ] in HP, HD.
  assert (HI : cap_inv G F ps w P D [] e s T).
  { unfold cap_inv. split; [|split; [|split; [|split; [|split; [|split]]]]]; auto.
    - intros _. eapply (dsat_sub G); [apply incl_filter | exact HD].
    - intros u _ c []. }
  (* the cost under [G]: [cap2_loop] *)
  destruct (cap2_loop P D e n C b B I PB QB' k F ps w Hq Hnr V HB HPB HQB1 (Hs F ps w)
              s _ T s' Crun Hrun eq_refl HI Hne) as [HCnone HCsome].
  (* the post's facts: [whileexit_run] on the loop's [ctx_nodiv G] run *)
  assert (HC : body_cap G F ps e b k (cap_inv G F ps w P D [] e)).
  { eapply (body_cap_of_split G F ps w e n C b k P D [] B I PB QB'); eauto.
    intros; intros c []. }
  destruct (while_eeval _ _ _ _ _ _ _ _ _ Hrun) as (R & C0 & He).
  destruct (cap_loop_lanes G F ps e b k (cap_inv G F ps w P D [] e) HC w s T s' Crun R C0 Hn Hi
              Hrun HI He) as (C' & Hr' & _).
  assert (Hkk : kk G0 false C == m_if M + C).
  { unfold kk. change (m_div (c_metric G0)) with 0. change (m_if (c_metric G0)) with (m_if M). ring. }
  destruct (whileexit_run G0 (wu_nodiv G HWU) false [] P D Qn Q' e n C b B I PB QB' P' D'
              (m_if M + m_div M + C) Hq Hnr ltac:(discriminate) V HB' HPB
              ltac:(intros r _; pose proof (HQB1 r) as H1; rewrite padd_val in H1 |- *;
                    rewrite Hkk; lra)
              ltac:(intros; intros c [])
              ltac:(change (m_if (c_metric G0)) with (m_if M); lra)
              ltac:(intros ps' s1 t; change (rho G0) with (rho G);
                    pose proof (pot_ge_sound (rho G ps' s1 t) _ _ Hpre) as H1;
                    rewrite padd_val, pplus_val in H1;
                    pose proof (pnonneg_sound (rho G ps' s1 t) _ HnI); lra)
              ltac:(intros ps' s1 T1 t te HD1 Ht Hte _; rewrite Hkk;
                    change (rho G0) with (rho G) in *;
                    pose proof (pot_ge_sound (rho G ps' s1 t) _ _ Hpre) as H1;
                    rewrite padd_val, pplus_val in H1;
                    rewrite (puni_sound G ps' s1 T1 D I HD1 HuI te t) by auto; lra)
              HP' HcD HdD HuQ F ps s T s' C' w Hp Hn Hne Hi Hw (conj HP HD)
              ltac:(intros; intros c []) Hr')
    as [HA' _].
  split; [exact HA'|]. intros t Ht. cbn [aQ].
  (* [Q'] is uniform over [D'], which the loop does not write *)
  assert (HF : forall x u, ~ In x (writes b) -> sl s' x u = sl s x u)
    by (intros; eapply (frame_writes G _ _ _ _ _ _ _ Hrun); simpl; auto).
  rewrite (puni_frame G ps s s' D' Q' t HuQ)
    by (intros x Hx; apply HF; eapply disjoint_In; eauto).
  pose proof (pot_ge_sound (rho G ps s t) _ _ Hpre) as H1. rewrite padd_val, pplus_val in H1.
  destruct (filter (etrue G F ps s e) T) as [|te l] eqn:E.
  - specialize (HCnone eq_refl). pose proof (pnonneg_sound (rho G ps s t) _ HnI).
    change M with (c_metric G) in *. lra.
  - assert (Hte : In te (filter (etrue G F ps s e) T)) by (rewrite E; left; auto).
    specialize (HCsome te (or_introl eq_refl)).
    apply filter_In in Hte as [Hte _].
    rewrite (puni_sound G ps s T D I HD HuI te t) in HCsome by auto.
    (* [|𝒯ₑ| ≤ |𝒯| ≤ N] *)
    assert (HN : (k * (length (te :: l) - 1) <= k * (cap_lanes G - 1))%nat).
    { apply Nat.mul_le_mono_l. rewrite <- E.
      pose proof (filter_length_le (etrue G F ps s e) T). pose proof (lanes_sub_length G w T Hn Hi). lia. }
    apply qn_le in HN.
    assert (m_div M * qn (k * (length (te :: l) - 1)) <= cap2_delta k)
      by (unfold cap2_delta; apply mul_le_l; auto).
    change M with (c_metric G) in *. lra.
Qed.

(** The rule from the counted body: [body_split] given by the body's [validFC] at the loop's
    tail (CapSound.v [body_split_of_FC]), [k = a + t]: the kernel's [walk] counts
    ([a = found.exit], [t = found.tests]). The same shape as [cap_exit_valid_FC], with
    Q:WHILEEXIT2's [k = M^if + M^div + C] and the charge [cap2_delta (a + t)]. *)
Corollary cap_exit2_valid_FC : forall P D Qn Q' e n C b B I PB QB' P' D' a t,
  qexpr G0 P D e n C -> noread e = true ->
  validF G0 false e (mkAssn B D I) b (mkAssn PB D QB') ->
  validFC G a t e (mkAssn B D I) b (mkAssn PB D QB') ->
  cstrs_equiv B (P ++ fst (cond G e)) = true -> cstrs_equiv PB P = true ->
  pot_ge QB' (padd I (m_if M + m_div M + C)) = true ->
  pot_ge Qn (padd (pplus I Q')
    ((m_if M + m_div M + C) + (m_if M + m_div M + C) + cap2_delta (a + t))) = true ->
  cstrs_equiv P' (P ++ snd (cond G e)) = true ->
  dcovers D D' = true -> disjoint (dvars D') (writes b) = true ->
  puni G D I = true -> pnonneg I = true -> puni G D' Q' = true ->
  valid G (mkAssn P D Qn) (SWhile e b) (mkAssn P' D' Q').
Proof.
  intros P D Qn Q' e n C b B I PB QB' P' D' a t Hq Hnr V VC HB HPB HQB' Hpre HP' HcD HdD HuI HnI HuQ.
  eapply cap_exit2_valid; eauto.
  intros F ps w. eapply body_split_of_FC; [|exact VC]. rewrite app_nil_r. exact HB.
Qed.

End CapSound2.

(** * The lane-count cap (spec/logic.md §4a, Q:WHILEGUARDCAP / Q:WHILEEXITCAP), the loop

    Soundness of the two capped loop rules from two facts about their body:
    - its validity under [ctx_nodiv G] (the body's judgment with [M^div := 0], Cap.v
      step (1)): that is what the kernel checks when it checks [B] with the exit nodes
      charged without [M^div] (and every other node of [B] charges no [M^div]);
    - the per-round split count [body_split] (below): a run of the body on the threads
      that pass the test, followed by a test whose passing threads are [A₁], costs its
      [ctx_nodiv G] cost plus at most [M^div·k·(|T| − max(|A₁|, 1))], [k = a + t].
    From them, [cap_guard_valid] and [cap_exit_valid] prove the rules' conclusions under
    [G] with the kernel's pre ([cap_charge], kernel/src/rules/cap.rs):
    - Q:WHILEGUARDCAP: [J + Q' + M^if + C + M^div·(k + 1)·(N − 1)];
    - Q:WHILEEXITCAP: [I + Q' + 2(M^if + C) + M^div·(k + 1)·(N − 1)],
    [N = cap_lanes G = min(warp size, bx·by·bz)] (the kernel's [lanes]).
    The proof composes Cap.v's [cap_loop_lanes] (step (2), which turns [body_split] into
    the loop's bound) with Soundness.v's [whileexit_run] applied to [ctx_nodiv G].

    [body_split] comes from the body's counted meaning [validFC] ([body_split_of_FC], one
    lemma per node the kernel's [walk] allows: each Q:IFEXIT4 split loses its exit side for
    good, Q:IFGUARD4 / Q:FLAGEXIT split at most once per round and only in a round that
    loses a lane, every other node never splits). CapCheck.v checks the two rules on
    certificates (Check.v's nodes [DWhileGuardCap] / [DWhileExitCap], the export). *)
From Coq Require Import ZArith QArith List Bool Arith Lia Lqa.
From WarpCert Require Import Metric Syntax Semantics Lin Shift Guard Logic IntRw Soundness Cap.
Import ListNotations.
Open Scope Q_scope.

Section CapSound.
Variable G : ctx.
Let M := c_metric G.
Let G0 := ctx_nodiv G.
Hypothesis HWU : wu_sound G.

Lemma wu_nodiv : wu_sound G0.
Proof. exact HWU. Qed.

Lemma md_nonneg : 0 <= m_div M.
Proof. destruct (m_nonneg M) as (?&?&?&?&?&?&?&?); auto. Qed.

(** A run on no thread never splits (SC:IFD and SC:WHILESOME need a thread on each
    side): it is a run under [ctx_nodiv G] of the same cost. *)
Lemma seval_nil_nodiv : forall F ps s st T s' C, T = [] ->
  seval G F ps s st T s' C -> seval G0 F ps s st T s' C.
Proof.
  intros F ps s st T s' C ET H. induction H; subst.
  - constructor.
  - eapply SC_SEQ; eauto.
  - exact (SC_VWRITE G0 F ps s x e [] R C ty (eeval_nodiv _ _ _ _ _ _ _ _ H) H0 H1).
  - exact (SC_GWRITE G0 F ps s A i e [] C1 C2 R es H (oeval_nodiv _ _ _ _ _ H0)
             (eeval_nodiv _ _ _ _ _ _ _ _ H1) H2 H3).
  - exact (SC_SWRITE G0 F ps s A i e [] C1 C2 R es H (oeval_nodiv _ _ _ _ _ H0)
             (eeval_nodiv _ _ _ _ _ _ _ _ H1) H2 H3).
  - exact (SC_LWRITE G0 F ps s A i e [] C1 C2 R es H (oeval_nodiv _ _ _ _ _ H0)
             (eeval_nodiv _ _ _ _ _ _ _ _ H1) H2 H3).
  - exact (SC_IFT G0 F ps s e s1 s2 [] R C1 st1 C2 (eeval_nodiv _ _ _ _ _ _ _ _ H) H0
             (IHseval eq_refl)).
  - exact (SC_IFF G0 F ps s e s1 s2 [] R C1 st1 C2 (eeval_nodiv _ _ _ _ _ _ _ _ H) H0
             (IHseval eq_refl)).
  - exfalso. apply H1. reflexivity.
  - exact (SC_WHILEALL G0 F ps s e b [] R C1 st1 C2 st2 C3 (eeval_nodiv _ _ _ _ _ _ _ _ H) H0
             (IHseval1 eq_refl) (IHseval2 eq_refl)).
  - exfalso. apply H1. reflexivity.
  - exact (SC_WHILENONE G0 F ps s e b [] R C (eeval_nodiv _ _ _ _ _ _ _ _ H) H0).
  - exact (SC_SYNC G0 F ps s []).
  - exact (SC_SHFL G0 F ps s x k w v l [] C1 C2 ty (oeval_nodiv _ _ _ _ _ H)
             (oeval_nodiv _ _ _ _ _ H0) H1 H2 H3).
  - exact (SC_VOTE G0 F ps s x k p [] C (oeval_nodiv _ _ _ _ _ H) H0 H1).
Qed.

(** What the threads [T] at the loop head have (Soundness.v [whileexit_loop]'s premises):
    [P] on every thread, [D] and the guard facts [GE] on those that pass the test [e]. *)
Definition cap_inv (F : fmodel) (ps : nat -> val) (w : nat) (P : list cstr) (D : list dent)
    (GE : list cstr) (e : expr) (s : store) (T : list nat) : Prop :=
  pok G ps /\ wt G s /\ NoDup T /\ incl T (lanes G w) /\
  (forall t, In t T -> sat (rho G ps s t) P) /\
  (filter (etrue G F ps s e) T <> [] -> dsat G ps s (filter (etrue G F ps s e) T) D) /\
  (forall t, In t (filter (etrue G F ps s e) T) -> sat (rho G ps s t) GE).

(** The body's per-round split count (the premise the cap condition must give): on a
    non-empty set [T] of threads that passed the test, a run of the body followed by a test
    with result [R1] is a [ctx_nodiv G] run whose cost is lower by at most
    [M^div·k·(|T| − max(|passing R1 T|, 1))]. *)
Definition body_split (F : fmodel) (ps : nat -> val) (e : expr) (b : stmt) (k : nat)
    (Inv : store -> list nat -> Prop) : Prop :=
  forall s T0 T s1 C R0 C0 R1 C1, Inv s T0 -> eeval G F ps s e T0 R0 C0 ->
  T = passing R0 T0 -> T <> [] -> seval G F ps s b T s1 C -> eeval G F ps s1 e T R1 C1 ->
  exists C', seval G0 F ps s b T s1 C' /\
    C <= C' + m_div M * qn (k * (length T - Nat.max (length (passing R1 T)) 1)).

Lemma passing_etrue : forall F ps s e T R C, eeval G F ps s e T R C ->
  forall t, In t (passing R T) <-> In t (filter (etrue G F ps s e) T).
Proof.
  intros F ps s e T R C H t. unfold passing. rewrite !filter_In.
  split; intros [Ht E]; split; auto; rewrite (etrue_R G _ _ _ _ _ _ _ H t Ht) in *; auto.
Qed.

(** The body's pre on the threads that pass the test, from the loop-head facts [cap_inv]
    (used by [body_cap_of_split] and CapSound2.v's [cap2_loop]). *)
Lemma cap_body_pre : forall F ps w P D GE e B I s T0 R0 C0,
  cstrs_equiv B (P ++ fst (cond G e) ++ GE) = true -> cap_inv F ps w P D GE e s T0 ->
  eeval G F ps s e T0 R0 C0 -> passing R0 T0 <> [] ->
  sat_assn G0 ps (mkAssn B D I) s (passing R0 T0).
Proof.
  intros F ps w P D GE e B I s T0 R0 C0 HB HI He0 HTne.
  destruct HI as (Hp & Hw & Hn & Hi & HP & HD & HG).
  assert (HTe : forall t, In t (passing R0 T0) <-> In t (filter (etrue G F ps s e) T0))
    by (intros t; apply (passing_etrue F ps s e T0 R0 C0 He0)).
  assert (HTe' : filter (etrue G F ps s e) T0 <> []).
  { intros E. destruct (nonempty_elem _ HTne) as [t Ht]. apply HTe in Ht. rewrite E in Ht. contradiction. }
  split; cbn [aP aD].
  - intros t Ht. pose proof Ht as Ht0. unfold passing in Ht0. apply filter_In in Ht0 as [Ht0 Hr].
    apply (cstrs_equiv_sat _ _ _ HB). apply sat_app; [exact (HP t Ht0)|]. apply sat_app.
    + exact (proj1 (cond_correct G F ps s e T0 R0 C0 t Hp Hw He0 Ht0) Hr).
    + exact (HG t (proj1 (HTe t) Ht)).
  - apply (@dsat_sub G ps s (filter (etrue G F ps s e) T0) (passing R0 T0) D); [|exact (HD HTe')].
    intros t Ht; apply HTe; auto.
Qed.

(** [body_split] and the body's validity under [ctx_nodiv G] give Cap.v's [body_cap] for
    the loop-head facts [cap_inv]: the facts are kept by the [ctx_nodiv G] run. *)
Lemma body_cap_of_split : forall F ps w e n C b k P D GE B I PB QB',
  noread e = true -> qexpr G0 P D e n C ->
  validF G0 false e (mkAssn B D I) b (mkAssn PB D QB') ->
  cstrs_equiv B (P ++ fst (cond G e) ++ GE) = true -> cstrs_equiv PB P = true ->
  (forall F ps s T s' C, seval G0 F ps s b T s' C -> pok G ps -> wt G s ->
     forall t, In t T -> etrue G F ps s' e t = true -> sat (rho G ps s' t) GE) ->
  body_split F ps e b k (cap_inv F ps w P D GE e) ->
  body_cap G F ps e b k (cap_inv F ps w P D GE e).
Proof.
  intros F ps w e n C b k P D GE B I PB QB' Hnr Hq V HB HPB HGb Hs.
  intros s T0 T s1 Cb R0 C0 R1 C1 HI He0 ET Hrun He1.
  pose proof HI as (Hp & Hw & Hn & Hi & HP & HD & HG).
  assert (Hw1 : wt G s1) by (eapply run_wt; eauto).
  assert (HnT : NoDup T) by (subst T; apply NoDup_filter; auto).
  assert (HiT : incl T (lanes G w)) by (subst T; eapply incl_tran; [apply incl_filter|]; auto).
  assert (HTc : T = [] \/ T <> []) by (destruct T; [left|right]; congruence).
  destruct HTc as [ET0 | HTne].
  - (* no thread passes: nothing runs, nothing splits *)
    rewrite ET0 in *. split.
    + unfold cap_inv. split; [|split; [|split; [|split; [|split; [|split]]]]]; auto.
      all: simpl; first [ intros E; exfalso; apply E; reflexivity | constructor | intros ? [] ].
    + exists Cb. split; [apply seval_nil_nodiv; auto|].
      replace (k * (length (@nil nat) - Nat.max (length (passing R1 [])) 1))%nat with 0%nat
        by (simpl; lia).
      change (qn 0) with 0. rewrite Qmult_0_r. lra.
  - destruct (Hs s T0 T s1 Cb R0 C0 R1 C1 (conj Hp (conj Hw (conj Hn (conj Hi (conj HP (conj HD HG))))))
                He0 ET HTne Hrun He1) as (C' & Hr0 & HC').
    assert (Hpre : sat_assn G0 ps (mkAssn B D I) s T)
      by (subst T; exact (cap_body_pre F ps w P D GE e B I s T0 R0 C0 HB HI He0 HTne)).
    destruct (V F ps s T s1 C' w Hp HnT HTne HiT Hw Hpre Hr0) as (HP1 & HD1 & _ & _ & _).
    cbn [aP aD aQ] in *.
    split; [|exists C'; split; auto].
    unfold cap_inv. split; [|split; [|split; [|split; [|split; [|split]]]]]; auto.
    + intros t Ht. apply (cstrs_equiv_sat' _ _ _ HPB (HP1 t Ht)).
    + intros t Ht. apply filter_In in Ht as [Ht1 Ht2]. eapply HGb; eauto.
Qed.

(** The pre of a capped loop pays [δ = M^div·(k + 1)·(N − 1)] on top of the [ctx_nodiv G]
    loop's pre. *)
Definition cap_delta (k : nat) : Q := m_div M * qn (S k * (cap_lanes G - 1)).

Lemma cap_delta_nonneg : forall k, 0 <= cap_delta k.
Proof. intros k. unfold cap_delta. apply Qmult_le_0_compat; [apply md_nonneg | apply qn_nonneg]. Qed.

(** The capped loop on one run from the loop head: [whileexit_run] under [ctx_nodiv G]
    for the pre [Qn − δ], and [cap_loop_lanes] for the splits. *)
Lemma cap_run : forall GE P D Qn Q' e n C b B I PB QB' P' D' k2 k,
  qexpr G0 P D e n C -> noread e = true ->
  validF G0 false e (mkAssn B D I) b (mkAssn PB D QB') ->
  cstrs_equiv B (P ++ fst (cond G e) ++ GE) = true -> cstrs_equiv PB P = true ->
  (forall r, sat r (PB ++ GE) -> pval r (padd I (m_if M + C)) <= pval r QB') ->
  (forall F ps s T s' C, seval G0 F ps s b T s' C -> pok G ps -> wt G s ->
     forall t, In t T -> etrue G F ps s' e t = true -> sat (rho G ps s' t) GE) ->
  m_if M + C <= k2 ->
  (forall ps s t, pval (rho G ps s t) Q' + k2 + cap_delta k <= pval (rho G ps s t) Qn) ->
  (forall ps s T t te, dsat G ps s T D -> In t T -> In te T -> sat (rho G ps s te) (P ++ GE) ->
     pval (rho G ps s te) I + (m_if M + C) + pval (rho G ps s t) Q' + k2 + cap_delta k
       <= pval (rho G ps s t) Qn) ->
  cstrs_equiv P' (P ++ snd (cond G e)) = true ->
  dcovers D D' = true -> disjoint (dvars D') (writes b) = true ->
  puni G D' Q' = true ->
  forall F ps s T s' Crun w, pok G ps -> NoDup T -> T <> [] -> incl T (lanes G w) -> wt G s ->
  sat_assn G ps (mkAssn P D Qn) s T ->
  (forall t, In t (filter (etrue G F ps s e) T) -> sat (rho G ps s t) GE) ->
  body_split F ps e b k (cap_inv F ps w P D GE e) ->
  seval G F ps s (SWhile e b) T s' Crun ->
  sat_assn G ps (mkAssn P' D' Q') s' T /\
  forall t, In t T -> Crun + pval (rho G ps s' t) Q' <= pval (rho G ps s t) Qn.
Proof.
  intros GE P D Qn Q' e n C b B I PB QB' P' D' k2 k Hq Hnr V HB HPB HQB' HGb Hk2 Hnone Hsome
    HP' HcD HdD HuQ F ps s T s' Crun w Hp Hn Hne Hi Hw HA HG Hs Hrun.
  pose proof (cap_delta_nonneg k) as Hd.
  assert (HC : body_cap G F ps e b k (cap_inv F ps w P D GE e))
    by (eapply body_cap_of_split; eauto).
  destruct (while_eeval _ _ _ _ _ _ _ _ _ Hrun) as (R & C0 & He).
  destruct HA as [HP HD]. cbn [aP aD aQ] in HP, HD.
  assert (HI : cap_inv F ps w P D GE e s T).
  { repeat split; auto. intros _. eapply (dsat_sub G); [apply incl_filter | exact HD]. }
  destruct (cap_loop_lanes G F ps e b k (cap_inv F ps w P D GE e) HC w s T s' Crun R C0 Hn Hi
              Hrun HI He) as (C' & Hr' & HC').
  fold (cap_delta k) in HC'. fold M in HC'.
  set (Qd := padd Qn (- cap_delta k)).
  assert (HQd : forall r, pval r Qd == pval r Qn - cap_delta k)
    by (intros r; unfold Qd; rewrite padd_val; ring).
  assert (Hkk : kk G0 false C == m_if M + C).
  { unfold kk. change (m_div (c_metric G0)) with 0. change (m_if (c_metric G0)) with (m_if M). ring. }
  destruct (whileexit_run G0 wu_nodiv false GE P D Qd Q' e n C b B I PB QB' P' D' k2 Hq Hnr
              ltac:(discriminate) V HB HPB
              ltac:(intros r Hr; pose proof (HQB' r Hr) as H1; rewrite padd_val in H1 |- *;
                    rewrite Hkk; exact H1)
              HGb Hk2
              ltac:(intros ps' s1 t; rewrite HQd; change (rho G0) with (rho G); pose proof (Hnone ps' s1 t); lra)
              ltac:(intros ps' s1 T1 t te HD1 Ht Hte Hs1; rewrite HQd, Hkk;
                    change (rho G0) with (rho G) in *; pose proof (Hsome ps' s1 T1 t te HD1 Ht Hte Hs1); lra)
              HP' HcD HdD HuQ F ps s T s' C' w Hp Hn Hne Hi Hw (conj HP HD) HG Hr')
    as [HA' HQ1].
  split; [exact HA'|]. intros t Ht. specialize (HQ1 t Ht). rewrite HQd in HQ1.
  change (rho G0) with (rho G) in HQ1. unfold cap_delta in HQ1. lra.
Qed.

(** ** Q:WHILEGUARDCAP

    Premises, and the kernel check each stands for (kernel/src/rules/cap.rs
    [q_whileguardcap] = [while_guard] with the charge [cap_charge] and [M^div := 0] in the
    loop test and the body's exit nodes):
    - [valid G A s0 (P, D, Qn)]: the child [s0], checked under [M] (unchanged);
    - [c_lty G g = Some TBool], [guard_last … s0], [guard_last … b], [qexpr]: Q:WHILEGUARD's
      guard premises (the test's cost [C] is [M]'s and [M']'s: a variable);
    - [validF (ctx_nodiv G) false g (B, D, I) b (PB, D, QB')]: the body [B] checked with
      [M^div := 0] at its exit nodes (the cap condition makes every other node of [B] a
      rule that charges no [M^div]);
    - [pot_ge_under B rg QB' (I + M^if + C)]: Q:WHILEGUARD's round with [k = M^if + C]
      (no [M^div]: the loop test's split is in [δ]);
    - [pot_ge Qn (QB' + Q' + M^if + C + δ)], [δ = M^div·(k + 1)·(N − 1)]: the pre with
      [cap_charge]; [k = a + t] from the kernel's [walk];
    - [body_split]: the cap condition ([walk]'s positions), not formalized yet;
    - the post's premises: Q:WHILEGUARD's. *)
Theorem cap_guard_valid : forall A s0 g GE P D Qn Q' n C b B I PB QB' P' D' rg k,
  valid G A s0 (mkAssn P D Qn) -> c_lty G g = Some TBool ->
  guard_last G g GE s0 = true -> guard_last G g GE b = true ->
  qexpr G0 P D (EOpd (OVar g)) n C ->
  validF G0 false (EOpd (OVar g)) (mkAssn B D I) b (mkAssn PB D QB') ->
  cstrs_equiv B (P ++ GE) = true -> cstrs_equiv PB P = true ->
  pot_ge_under B rg QB' (padd I (m_if M + C)) = true ->
  pot_ge Qn (padd (pplus QB' Q') (m_if M + C + cap_delta k)) = true ->
  cstrs_equiv P' P = true ->
  dcovers D D' = true -> disjoint (dvars D') (writes b) = true ->
  puni G D QB' = true -> pnonneg QB' = true -> puni G D' Q' = true ->
  (forall F ps w, body_split F ps (EOpd (OVar g)) b k (cap_inv F ps w P D GE (EOpd (OVar g)))) ->
  valid G A (SSeq s0 (SWhile (EOpd (OVar g)) b)) (mkAssn P' D' Q').
Proof.
  intros A s0 g GE P D Qn Q' n C b B I PB QB' P' D' rg k V0 Hty Hg0 Hgb Hq V HB HPB HQB'
    Hpre HP' HcD HdD HuJ HnJ HuQ Hs F ps s T s' Crun w Hp Hn Hne Hi Hw HA Hrun.
  inversion Hrun; subst.
  match goal with H1 : seval _ _ _ s s0 T ?a ?c1, H2 : seval _ _ _ ?a (SWhile _ _) T s' ?c2 |- _ =>
    rename H1 into Hr0, H2 into Hr1, a into st1, c1 into C1, c2 into C2 end.
  destruct (V0 F ps s T st1 C1 w Hp Hn Hne Hi Hw HA Hr0) as [HA1 HQ0]. cbn [aQ] in HQ0.
  assert (Hw1 : wt G st1) by (eapply run_wt; eauto).
  assert (HGb : forall F ps s T s' C, seval G0 F ps s b T s' C -> pok G ps -> wt G s ->
     forall t, In t T -> etrue G F ps s' (EOpd (OVar g)) t = true -> sat (rho G ps s' t) GE).
  { intros F' ps' s1 T' s2 C' Hr Hp' Hw' t Ht E.
    eapply (guard_last_sound G0 F' ps' s1 b T' s2 C' Hr Hp' Hw' g GE Hty Hgb t Ht).
    unfold etrue in E. simpl in E. destruct (sl s2 g t) as [| [] |]; simpl in E; try discriminate; reflexivity. }
  assert (HG : forall t, In t (filter (etrue G F ps st1 (EOpd (OVar g))) T) -> sat (rho G ps st1 t) GE).
  { intros t Ht. apply filter_In in Ht as [Ht E]. eapply guard_last_sound; eauto.
    unfold etrue in E. simpl in E. destruct (sl st1 g t) as [| [] |]; simpl in E; try discriminate; reflexivity. }
  assert (HB' : cstrs_equiv B (P ++ fst (cond G (EOpd (OVar g))) ++ GE) = true) by exact HB.
  assert (HP'' : cstrs_equiv P' (P ++ snd (cond G (EOpd (OVar g)))) = true)
    by (simpl; rewrite app_nil_r; exact HP').
  assert (HJ : forall r, sat r (P ++ GE) -> pval r (padd I (m_if M + C)) <= pval r QB')
    by (intros r Hr; apply (pot_ge_under_sound r B rg); auto; apply (cstrs_equiv_sat _ _ _ HB Hr)).
  assert (HQB'' : forall r, sat r (PB ++ GE) -> pval r (padd I (m_if M + C)) <= pval r QB').
  { intros r Hr. apply HJ, sat_app.
    - apply (cstrs_equiv_sat' _ _ _ HPB). eapply sat_app_l; eauto.
    - intros c Hc. apply Hr, in_app_iff; auto. }
  assert (Hnone : forall ps s t, pval (rho G ps s t) Q' + (m_if M + C) + cap_delta k <= pval (rho G ps s t) Qn).
  { intros ps' s1 t. pose proof (pot_ge_sound (rho G ps' s1 t) _ _ Hpre) as H1.
    rewrite padd_val, pplus_val in H1. pose proof (pnonneg_sound (rho G ps' s1 t) _ HnJ). lra. }
  assert (Hsome : forall ps s T t te, dsat G ps s T D -> In t T -> In te T -> sat (rho G ps s te) (P ++ GE) ->
     pval (rho G ps s te) I + (m_if M + C) + pval (rho G ps s t) Q' + (m_if M + C) + cap_delta k
       <= pval (rho G ps s t) Qn).
  { intros ps' s1 T1 t te HD1 Ht Hte Hs1. pose proof (pot_ge_sound (rho G ps' s1 t) _ _ Hpre) as H1.
    rewrite padd_val, pplus_val in H1. pose proof (HJ _ Hs1) as H2. rewrite padd_val in H2.
    rewrite (puni_sound G ps' s1 T1 D QB' HD1 HuJ te t) in H2 by auto. lra. }
  destruct (cap_run GE P D Qn Q' (EOpd (OVar g)) n C b B I PB QB' P' D' (m_if M + C) k Hq eq_refl V
              HB' HPB HQB'' HGb (Qle_refl _) Hnone Hsome HP'' HcD HdD HuQ F ps st1 T s' C2 w Hp Hn Hne Hi
              Hw1 HA1 HG (Hs F ps w) Hr1) as [HA' HQ1].
  split; auto. intros t Ht. specialize (HQ0 t Ht). specialize (HQ1 t Ht). cbn [aQ] in *. lra.
Qed.

(** ** Q:WHILEEXITCAP

    Q:WHILEEXIT2 (mode [u = false]) with [M^div := 0] in the loop test ([B.post ≥ I + M^if +
    C]) and the body's exit nodes, and the pre [I + Q' + 2(M^if + C) + δ] (kernel
    [q_whileexitcap] = [while_exit_ge] with [cap_charge]); premises as
    [cap_guard_valid]'s, without the guard ([GE = []]). *)
Theorem cap_exit_valid : forall P D Qn Q' e n C b B I PB QB' P' D' k,
  qexpr G0 P D e n C -> noread e = true ->
  validF G0 false e (mkAssn B D I) b (mkAssn PB D QB') ->
  cstrs_equiv B (P ++ fst (cond G e)) = true -> cstrs_equiv PB P = true ->
  pot_ge QB' (padd I (m_if M + C)) = true ->
  pot_ge Qn (padd (pplus I Q') ((m_if M + C) + (m_if M + C) + cap_delta k)) = true ->
  cstrs_equiv P' (P ++ snd (cond G e)) = true ->
  dcovers D D' = true -> disjoint (dvars D') (writes b) = true ->
  puni G D I = true -> pnonneg I = true -> puni G D' Q' = true ->
  (forall F ps w, body_split F ps e b k (cap_inv F ps w P D [] e)) ->
  valid G (mkAssn P D Qn) (SWhile e b) (mkAssn P' D' Q').
Proof.
  intros P D Qn Q' e n C b B I PB QB' P' D' k Hq Hnr V HB HPB HQB' Hpre HP' HcD HdD HuI HnI HuQ Hs
    F ps s T s' Crun w Hp Hn Hne Hi Hw HA Hrun.
  assert (HB' : cstrs_equiv B (P ++ fst (cond G e) ++ []) = true) by (rewrite app_nil_r; exact HB).
  assert (Hk0 : 0 <= m_if M + C).
  { pose proof (qexpr_noread_nonneg G0 _ _ _ _ _ Hnr Hq).
    destruct (m_nonneg M) as (_ & _ & _ & _ & Hif & _). lra. }
  assert (HQB'' : forall r, sat r (PB ++ []) -> pval r (padd I (m_if M + C)) <= pval r QB')
    by (intros r _; apply pot_ge_sound; auto).
  assert (Hnone : forall ps s t, pval (rho G ps s t) Q' + (m_if M + C) + cap_delta k <= pval (rho G ps s t) Qn).
  { intros ps' s1 t. pose proof (pot_ge_sound (rho G ps' s1 t) _ _ Hpre) as H1.
    rewrite padd_val, pplus_val in H1. pose proof (pnonneg_sound (rho G ps' s1 t) _ HnI). lra. }
  assert (Hsome : forall ps s T t te, dsat G ps s T D -> In t T -> In te T -> sat (rho G ps s te) (P ++ []) ->
     pval (rho G ps s te) I + (m_if M + C) + pval (rho G ps s t) Q' + (m_if M + C) + cap_delta k
       <= pval (rho G ps s t) Qn).
  { intros ps' s1 T1 t te HD1 Ht Hte _. pose proof (pot_ge_sound (rho G ps' s1 t) _ _ Hpre) as H1.
    rewrite padd_val, pplus_val in H1.
    rewrite (puni_sound G ps' s1 T1 D I HD1 HuI te t) by auto. lra. }
  eapply (cap_run [] P D Qn Q' e n C b B I PB QB' P' D' (m_if M + C) k Hq Hnr V HB' HPB HQB''
            ltac:(intros; intros c []) (Qle_refl _) Hnone Hsome HP' HcD HdD HuQ); eauto.
  intros t _. intros c [].
Qed.

(** ** Toward [body_split]: the counted judgment's meaning

    [validFC a t e A st A']: a run under [G] of [st] on [T] from [A] is a [ctx_nodiv G] run
    whose cost is lower by at most [M^div·x] with [x ≤ a·c + t·min(c, 1)], where
    [c = min(out, |T| − 1)] and [out] is the number of threads of [T] that fail the filter
    [e] at the end (they leave). This is what each node of a capped body at a tail position
    gives (kernel [walk]): a Q:IFEXIT4 split ([a]) loses its exit side, which fails [e]
    for good, and leaves at least one thread on the other side; a Q:IFGUARD4 / Q:FLAGEXIT
    test ([t] of them) splits at most once, and only when some thread leaves. *)
Definition cap_c (e : expr) (F : fmodel) (ps : nat -> val) (s' : store) (T : list nat) : nat :=
  Nat.min (length T - length (filter (etrue G F ps s' e) T)) (length T - 1).

Definition validFC (a t : nat) (e : expr) (A : assn) (st : stmt) (A' : assn) : Prop :=
  forall F ps s T s' C w, pok G ps -> NoDup T -> T <> [] -> incl T (lanes G w) -> wt G s ->
  sat_assn G ps A s T -> seval G F ps s st T s' C ->
  exists C0 x, seval G0 F ps s st T s' C0 /\ C <= C0 + m_div M * qn x /\
    (x <= a * cap_c e F ps s' T + t * Nat.min (cap_c e F ps s' T) 1)%nat.

(** The round's arithmetic: [a·c + t·min(c, 1) ≤ (a + t)·(|T| − max(|A₁|, 1))] for the
    [A₁ ⊆ T] threads that pass the next test. *)
Lemma cap_round_le : forall a t (T A1 : nat), (A1 <= T)%nat -> (1 <= T)%nat ->
  (a * Nat.min (T - A1) (T - 1) + t * Nat.min (Nat.min (T - A1) (T - 1)) 1 <=
   (a + t) * (T - Nat.max A1 1))%nat.
Proof.
  intros a t T A1 H1 H2.
  replace (T - Nat.max A1 1)%nat with (Nat.min (T - A1) (T - 1)) by lia.
  rewrite Nat.mul_add_distr_r. apply Nat.add_le_mono; [lia|].
  apply Nat.mul_le_mono_l. lia.
Qed.

Lemma filter_length_ext : forall (f g : nat -> bool) T, (forall x, In x T -> f x = g x) ->
  length (filter f T) = length (filter g T).
Proof. intros f g T H. rewrite (filter_ext_in f g T H). reflexivity. Qed.

(** [validFC] of the body at the loop's tail (filter = the loop test) gives [body_split]
    with [k = a + t]. *)
Lemma body_split_of_FC : forall F ps w e b a t P D GE B I A',
  cstrs_equiv B (P ++ fst (cond G e) ++ GE) = true ->
  validFC a t e (mkAssn B D I) b A' ->
  body_split F ps e b (a + t) (cap_inv F ps w P D GE e).
Proof.
  intros F ps w e b a t P D GE B I A' HB V.
  intros s T0 T s1 Cb R0 C0 R1 C1 HI He0 ET HTne Hrun He1.
  destruct HI as (Hp & Hw & Hn & Hi & HP & HD & HG).
  assert (HnT : NoDup T) by (subst T; apply NoDup_filter; auto).
  assert (HiT : incl T (lanes G w)) by (subst T; eapply incl_tran; [apply incl_filter|]; auto).
  assert (HTe : forall t, In t T <-> In t (filter (etrue G F ps s e) T0))
    by (intros x; subst T; apply (passing_etrue F ps s e T0 R0 C0 He0)).
  assert (HTe' : filter (etrue G F ps s e) T0 <> []).
  { intros E. destruct (nonempty_elem _ HTne) as [x Hx]. apply HTe in Hx. rewrite E in Hx. contradiction. }
  assert (Hpre : sat_assn G ps (mkAssn B D I) s T).
  { split; cbn [aP aD].
    - intros x Hx. pose proof Hx as Hx0. rewrite ET in Hx0. apply filter_In in Hx0 as [Hx0 Hr].
      apply (cstrs_equiv_sat _ _ _ HB). apply sat_app; [exact (HP x Hx0)|]. apply sat_app.
      + exact (proj1 (cond_correct G F ps s e T0 R0 C0 x Hp Hw He0 Hx0) Hr).
      + exact (HG x (proj1 (HTe x) Hx)).
    - apply (@dsat_sub G ps s (filter (etrue G F ps s e) T0) T D); [|exact (HD HTe')].
      intros x Hx; apply HTe; auto. }
  destruct (V F ps s T s1 Cb w Hp HnT HTne HiT Hw Hpre Hrun) as (C' & x & Hr0 & HC & Hx).
  exists C'. split; [exact Hr0|].
  assert (HA1 : length (passing R1 T) = length (filter (etrue G F ps s1 e) T)).
  { unfold passing. apply filter_length_ext. intros y Hy. rewrite (etrue_R G _ _ _ _ _ _ _ He1 y Hy). reflexivity. }
  assert (Hle : (x <= (a + t) * (length T - Nat.max (length (passing R1 T)) 1))%nat).
  { unfold cap_c in Hx. rewrite HA1. etransitivity; [exact Hx|]. apply cap_round_le.
    - apply filter_length_le.
    - destruct T; [contradiction|simpl; lia]. }
  apply qn_le in Hle.
  assert (m_div M * qn x <= m_div M * qn ((a + t) * (length T - Nat.max (length (passing R1 T)) 1)))
    by (apply mul_le_l; [apply md_nonneg | exact Hle]).
  lra.
Qed.

(** A statement without a branch or a loop (Cap.v [straight]) at a tail position: it
    never splits ([x = 0]); its validity under [G] is the [validFC] premise's run part. *)
Lemma validFC_straight : forall a t e A st A', straight st = true -> validFC a t e A st A'.
Proof.
  intros a t e A st A' Hs F ps s T s' C w _ _ _ _ _ _ Hrun.
  exists C, 0%nat. split; [exact (seval_straight G F ps s st T s' C Hs Hrun)|].
  split; [change (qn 0) with 0; rewrite Qmult_0_r; lra | lia].
Qed.

(** Q:SEQ / F_SEQ at a tail position: an ordinary straight first part ([valid] under [G]
    for the intermediate facts, no split) and the tail part's count. *)
Lemma validFC_seq : forall a t e A A1 A' s1 s2, straight s1 = true -> valid G A s1 A1 ->
  validFC a t e A1 s2 A' -> validFC a t e A (SSeq s1 s2) A'.
Proof.
  intros a t e A A1 A' s1 s2 Hs V1 V2 F ps s T s' C w Hp Hn Hne Hi Hw HA Hrun.
  inversion Hrun; subst.
  match goal with R1 : seval _ _ _ s s1 T ?st1 ?c1, R2 : seval _ _ _ ?st1 s2 T s' ?c2 |- _ =>
    rename R1 into Hr1, R2 into Hr2, st1 into sm, c1 into Ca, c2 into Cb end.
  destruct (V1 F ps s T sm Ca w Hp Hn Hne Hi Hw HA Hr1) as [HA1 _].
  destruct (V2 F ps sm T s' Cb w Hp Hn Hne Hi (run_wt G _ _ _ _ _ _ _ Hr1 Hw) HA1 Hr2)
    as (C0 & x & Hr0 & HC & Hx).
  exists (Ca + C0), x. split; [|split; [lra | exact Hx]].
  eapply SC_SEQ; [exact (seval_straight G F ps s s1 T sm Ca Hs Hr1) | exact Hr0].
Qed.

Lemma filter_tf_length : forall (R : fam) T, (forall t, In t T -> is_bool_v (R t) = true) ->
  (length (filter (fun t => is_true_v (R t)) T) + length (filter (fun t => is_false_v (R t)) T)
   = length T)%nat.
Proof.
  intros R T H. induction T as [|x T IH]; [reflexivity|]. simpl.
  assert (Hx : is_bool_v (R x) = true) by (apply H; left; auto).
  rewrite <- IH by (intros; apply H; right; auto).
  destruct (R x) as [| [] |]; simpl in *; try discriminate; lia.
Qed.

Lemma same_elems_length : forall (A B : list nat), NoDup A -> NoDup B ->
  (forall t, In t A <-> In t B) -> length A = length B.
Proof.
  intros A B HA HB H. apply Nat.le_antisymm; apply NoDup_incl_length; auto;
    intros t Ht; apply H; auto.
Qed.

(** Q:IFEXIT4 at a tail position (the exit node, [a ≥ 1]): its then branch [s1]
    (ordinary, straight) ends on [cond(¬f)] ([wx]), so the threads of [𝒯_T] fail [f] at
    the end; a split ([SC:IFD]) adds 1 to the count of [s2] on [𝒯_F], and
    [1 + c(𝒯_F) ≤ c(𝒯)] because [𝒯_T] is non-empty and leaves. *)
Lemma validFC_ifexit4 : forall a t f P D Qn c s1 s2 PT QT P1 D1 Q1 PF QF A2 A' wx,
  (1 <= a)%nat ->
  cstrs_equiv PT (andc G P D c false) = true -> cstrs_equiv PF (andc G P D c true) = true ->
  straight s1 = true -> valid G (mkAssn PT D QT) s1 (mkAssn P1 D1 Q1) ->
  validFC a t f (mkAssn PF D QF) s2 A2 ->
  nonempty (snd (cond G f)) = true -> entails P1 (snd (cond G f)) wx = true ->
  validFC a t f (mkAssn P D Qn) (SIf c s1 s2) A'.
Proof.
  intros a t f P D Qn c s1 s2 PT QT P1 D1 Q1 PF QF A2 A' wx Ha HPT HPF Hs V1 V2 Hxn Hx.
  intros F ps s T s' Crun w Hp Hn Hne Hi Hw [HP HD] Hrun. cbn [aP aD aQ] in HP, HD.
  inversion Hrun; subst;
    match goal with H : eeval _ _ _ _ _ _ _ _ |- _ => rename H into Hee end.
  - (* SC_IFT: no split *)
    match goal with H : seval _ _ _ _ s1 _ _ _ |- _ => rename H into Hs1 end.
    exists (C1 + m_if (c_metric G) + C2), 0%nat. split; [|split; [|lia]].
    + eapply (SC_IFT G0); [exact (eeval_nodiv _ _ _ _ _ _ _ _ Hee) | eassumption
                          | exact (seval_straight G _ _ _ _ _ _ _ Hs Hs1)].
    + change (qn 0) with 0. rewrite Qmult_0_r. lra.
  - (* SC_IFF: the count of [s2] on [𝒯] *)
    match goal with H : seval _ _ _ _ s2 _ _ _ |- _ => rename H into Hs2 end.
    assert (Hpre2 : sat_assn G ps (mkAssn PF D QF) s T).
    { split; cbn [aP aD]; auto. intros u Hu; apply (cstrs_equiv_sat _ _ _ HPF).
      apply (andc_correct G F ps s c T R C1 D P u Hp Hw HD Hee Hu (HP u Hu)); auto. }
    destruct (V2 F ps s T s' C2 w Hp Hn Hne Hi Hw Hpre2 Hs2) as (C0 & x & Hr0 & HC & Hxb).
    exists (C1 + m_if (c_metric G) + C0), x. split; [|split; [lra | exact Hxb]].
    eapply (SC_IFF G0); [exact (eeval_nodiv _ _ _ _ _ _ _ _ Hee) | eassumption | exact Hr0].
  - (* SC_IFD: 𝒯_T leaves, one split, then the count of [s2] on 𝒯_F *)
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
    { intros u H1 H2. apply HTF in H1; apply HTT in H2.
      destruct H1 as [_ H1], H2 as [_ H2]. destruct (R u) as [| [] |]; discriminate. }
    assert (HnT : NoDup TT) by (apply NoDup_filter; auto).
    assert (HnF : NoDup TF) by (apply NoDup_filter; auto).
    assert (HiT : incl TT (lanes G w)) by (eapply incl_tran; [apply incl_filter|]; auto).
    assert (HiF : incl TF (lanes G w)) by (eapply incl_tran; [apply incl_filter|]; auto).
    assert (Hpre1 : sat_assn G ps (mkAssn PT D QT) s TT).
    { split; cbn [aP aD].
      - intros u Hu. apply HTT in Hu as [Hu Hr]. apply (cstrs_equiv_sat _ _ _ HPT).
        apply (andc_correct G F ps s c T R C1 D P u Hp Hw HD Hee Hu (HP u Hu)); auto.
      - eapply (@dsat_sub G); [apply incl_filter | exact HD]. }
    destruct (V1 F ps s TT st1 C2 w Hp HnT HneT HiT Hw Hpre1 Hs1) as [[HP1 _] _].
    cbn [aP] in HP1.
    assert (Hst1 : forall x u, In u TF -> sl st1 x u = sl s x u) by
      (intros x u Hu; eapply (frame_threads G); [exact Hs1 | apply HTTF; exact Hu]).
    assert (Hpre2 : sat_assn G ps (mkAssn PF D QF) st1 TF).
    { split; cbn [aP aD].
      - intros u Hu. apply (sat_ext (rho G ps s u)); [intros; symmetry; apply rho_frame; auto|].
        apply HTF in Hu as [Hu Hr]. apply (cstrs_equiv_sat _ _ _ HPF).
        apply (andc_correct G F ps s c T R C1 D P u Hp Hw HD Hee Hu (HP u Hu)); auto.
      - apply (@dsat_threads G ps s); auto. eapply (@dsat_sub G); [apply incl_filter | exact HD]. }
    destruct (V2 F ps st1 TF s' C3 w Hp HnF HneF HiF (run_wt G _ _ _ _ _ _ _ Hs1 Hw) Hpre2 Hs2)
      as (C0 & x & Hr0 & HC & Hxb).
    assert (Hs'1 : forall x u, In u TT -> sl s' x u = sl st1 x u).
    { intros x' u Hu. eapply (frame_threads G); [exact Hs2|]. intros Hu'. exact (HTTF u Hu' Hu). }
    assert (Hw1 : wt G s') by (eapply run_wt; [exact Hs2|]; eapply run_wt; eauto).
    (* the threads of 𝒯_T fail [f] at the end *)
    assert (HTe : forall u, In u (filter (etrue G F ps s' f) T) <-> In u (filter (etrue G F ps s' f) TF)).
    { intros u. rewrite !filter_In. split; intros [Hu E]; split; auto.
      - specialize (Hbool u Hu). apply HTF. split; auto.
        destruct (R u) as [| [] |] eqn:Er; try discriminate; auto.
        assert (HuT : In u TT) by (apply HTT; rewrite Er; auto).
        rewrite (exit_false G F ps s' f u Hp Hw1 Hxn) in E; [discriminate|].
        apply (sat_ext (rho G ps st1 u)); [intros; symmetry; apply rho_frame; auto|].
        apply (entails_sound _ _ _ _ (HP1 u HuT) Hx).
      - apply HTF in Hu; tauto. }
    assert (HL : length (filter (etrue G F ps s' f) T) = length (filter (etrue G F ps s' f) TF))
      by (apply same_elems_length; auto using NoDup_filter).
    assert (HLT : (length TT + length TF = length T)%nat) by (apply filter_tf_length; auto).
    assert (HTT1 : (1 <= length TT)%nat) by (destruct TT; [contradiction|simpl; lia]).
    assert (HTF1 : (1 <= length TF)%nat) by (destruct TF; [contradiction|simpl; lia]).
    pose proof (filter_length_le (etrue G F ps s' f) TF) as HfF.
    exists (C1 + m_if (c_metric G) + C2 + C0 + 0), (S x). split; [|split].
    + eapply (SC_IFD G0); [exact (eeval_nodiv _ _ _ _ _ _ _ _ Hee) | eassumption .. |
        exact (seval_straight G _ _ _ _ _ _ _ Hs Hs1) | exact Hr0].
    + change (S x) with (1 + x)%nat. rewrite qn_add. change (qn 1) with 1. change M with (c_metric G) in *. lra.
    + unfold cap_c in *. rewrite HL, <- HLT.
      set (c' := Nat.min (length TF - length (filter (etrue G F ps s' f) TF)) (length TF - 1)) in *.
      assert (Hc : (1 + c' <= Nat.min (length TT + length TF - length (filter (etrue G F ps s' f) TF))
                                     (length TT + length TF - 1))%nat) by (unfold c'; lia).
      set (cc := Nat.min (length TT + length TF - length (filter (etrue G F ps s' f) TF))
                        (length TT + length TF - 1)) in *.
      assert (a * (1 + c') <= a * cc)%nat by (apply Nat.mul_le_mono_l; exact Hc).
      assert (t * Nat.min c' 1 <= t * Nat.min cc 1)%nat by (apply Nat.mul_le_mono_l; lia).
      rewrite Nat.mul_add_distr_l in *. lia.
Qed.

(** Q:IFGUARD4 at the loop's tail (a test node, [t + 1]): its else branch [s2] (ordinary,
    straight) falsifies the guard [g], so the threads of [𝒯_F] fail the loop test at the
    end; a split adds 1 to the count of the then branch [s1] (tail) on [𝒯_T], and then
    [c(𝒯) ≥ c(𝒯_T)] and [min(c(𝒯), 1) = 1]. *)
Lemma validFC_ifguard4 : forall a t g P D Qn c s1 s2 PT QT A1 PF A',
  cstrs_equiv PT (andc G P D c false) = true -> cstrs_equiv PF (andc G P D c true) = true ->
  validFC a t (EOpd (OVar g)) (mkAssn PT D QT) s1 A1 ->
  straight s2 = true -> falsifies g s2 = true ->
  validFC a (S t) (EOpd (OVar g)) (mkAssn P D Qn) (SIf c s1 s2) A'.
Proof.
  intros a t g P D Qn c s1 s2 PT QT A1 PF A' HPT HPF V1 Hs Hf.
  intros F ps s T s' Crun w Hp Hn Hne Hi Hw [HP HD] Hrun. cbn [aP aD aQ] in HP, HD.
  inversion Hrun; subst;
    match goal with H : eeval _ _ _ _ _ _ _ _ |- _ => rename H into Hee end.
  - (* SC_IFT: the count of [s1] on [𝒯] *)
    match goal with H : seval _ _ _ _ s1 _ _ _ |- _ => rename H into Hs1 end.
    assert (Hpre1 : sat_assn G ps (mkAssn PT D QT) s T).
    { split; cbn [aP aD]; auto. intros u Hu; apply (cstrs_equiv_sat _ _ _ HPT).
      apply (andc_correct G F ps s c T R C1 D P u Hp Hw HD Hee Hu (HP u Hu)); auto. }
    destruct (V1 F ps s T s' C2 w Hp Hn Hne Hi Hw Hpre1 Hs1) as (C0 & x & Hr0 & HC & Hxb).
    exists (C1 + m_if (c_metric G) + C0), x. split; [|split; [lra|]].
    + eapply (SC_IFT G0); [exact (eeval_nodiv _ _ _ _ _ _ _ _ Hee) | eassumption | exact Hr0].
    + assert (t * Nat.min (cap_c (EOpd (OVar g)) F ps s' T) 1 <=
              S t * Nat.min (cap_c (EOpd (OVar g)) F ps s' T) 1)%nat
        by (apply Nat.mul_le_mono_r; lia).
      lia.
  - (* SC_IFF: straight, no split *)
    match goal with H : seval _ _ _ _ s2 _ _ _ |- _ => rename H into Hs2 end.
    exists (C1 + m_if (c_metric G) + C2), 0%nat. split; [|split; [|lia]].
    + eapply (SC_IFF G0); [exact (eeval_nodiv _ _ _ _ _ _ _ _ Hee) | eassumption
                          | exact (seval_straight G _ _ _ _ _ _ _ Hs Hs2)].
    + change (qn 0) with 0. rewrite Qmult_0_r. lra.
  - (* SC_IFD: the count of [s1] on 𝒯_T, one split, 𝒯_F leaves *)
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
    { intros u H1 H2. apply HTF in H1; apply HTT in H2.
      destruct H1 as [_ H1], H2 as [_ H2]. destruct (R u) as [| [] |]; discriminate. }
    assert (HnT : NoDup TT) by (apply NoDup_filter; auto).
    assert (HiT : incl TT (lanes G w)) by (eapply incl_tran; [apply incl_filter|]; auto).
    assert (Hpre1 : sat_assn G ps (mkAssn PT D QT) s TT).
    { split; cbn [aP aD].
      - intros u Hu. apply HTT in Hu as [Hu Hr]. apply (cstrs_equiv_sat _ _ _ HPT).
        apply (andc_correct G F ps s c T R C1 D P u Hp Hw HD Hee Hu (HP u Hu)); auto.
      - eapply (@dsat_sub G); [apply incl_filter | exact HD]. }
    destruct (V1 F ps s TT st1 C2 w Hp HnT HneT HiT Hw Hpre1 Hs1) as (C0 & x & Hr0 & HC & Hxb).
    assert (Hs'1 : forall u, In u TT -> sl s' g u = sl st1 g u).
    { intros u Hu. eapply (frame_threads G); [exact Hs2|]. intros Hu'. exact (HTTF u Hu' Hu). }
    assert (HfF : forall u, In u TF -> sl s' g u = VBool false)
      by (intros u Hu; eapply (falsifies_sound G); eauto).
    (* at the end, the threads passing the test are those of 𝒯_T that passed after [s1] *)
    assert (HTe : forall u, In u (filter (etrue G F ps s' (EOpd (OVar g))) T) <->
                            In u (filter (etrue G F ps st1 (EOpd (OVar g))) TT)).
    { intros u. rewrite !filter_In. split; intros [Hu E].
      - specialize (Hbool u Hu). destruct (R u) as [| [] |] eqn:Er; try discriminate.
        + assert (HuT : In u TT) by (apply HTT; rewrite Er; auto).
          split; auto. rewrite <- (etrue_var_frame G F ps st1 s' g u (Hs'1 u HuT)). exact E.
        + assert (HuF : In u TF) by (apply HTF; rewrite Er; auto).
          rewrite (etrue_var_false G F ps s' g u (HfF u HuF)) in E. discriminate.
      - split; [apply HTT in Hu; tauto|].
        rewrite (etrue_var_frame G F ps st1 s' g u (Hs'1 u Hu)). exact E. }
    assert (HL : length (filter (etrue G F ps s' (EOpd (OVar g))) T) =
                 length (filter (etrue G F ps st1 (EOpd (OVar g))) TT))
      by (apply same_elems_length; auto using NoDup_filter).
    assert (HLT : (length TT + length TF = length T)%nat) by (apply filter_tf_length; auto).
    assert (HTT1 : (1 <= length TT)%nat) by (destruct TT; [contradiction|simpl; lia]).
    assert (HTF1 : (1 <= length TF)%nat) by (destruct TF; [contradiction|simpl; lia]).
    pose proof (filter_length_le (etrue G F ps st1 (EOpd (OVar g))) TT) as HfT.
    exists (C1 + m_if (c_metric G) + C0 + C3 + 0), (S x). split; [|split].
    + eapply (SC_IFD G0); [exact (eeval_nodiv _ _ _ _ _ _ _ _ Hee) | eassumption .. | exact Hr0 |
        exact (seval_straight G _ _ _ _ _ _ _ Hs Hs2)].
    + change (S x) with (1 + x)%nat. rewrite qn_add. change (qn 1) with 1.
      change M with (c_metric G) in *. lra.
    + unfold cap_c in *. rewrite HL, <- HLT.
      set (c' := Nat.min (length TT - length (filter (etrue G F ps st1 (EOpd (OVar g))) TT))
                         (length TT - 1)) in *.
      set (cc := Nat.min (length TT + length TF - length (filter (etrue G F ps st1 (EOpd (OVar g))) TT))
                         (length TT + length TF - 1)) in *.
      assert (Hc : (c' <= cc)%nat) by (unfold c', cc; lia).
      assert (Hc1 : Nat.min cc 1 = 1%nat) by (unfold cc; lia).
      rewrite Hc1.
      assert (a * c' <= a * cc)%nat by (apply Nat.mul_le_mono_l; exact Hc).
      assert (t * Nat.min c' 1 <= t * 1)%nat by (apply Nat.mul_le_mono_l; lia).
      lia.
Qed.

(** Q:FLAGEXIT at the loop's tail ([s1] is its part [N] at the flag's tail, filtered by the
    jump flag [f]; then [if f then s2 else s3], [s2] at the loop's tail, [s3] ordinary,
    straight, falsifying [g]): the threads failing [f] after [N] leave (they run [s3]), so
    [N]'s count is paid by them; the flag test splits once, only when some leave. The
    validity of [N] under [ctx_nodiv G] gives the facts [s2] starts from. *)
Lemma validFC_flagexit : forall a tN t2 u1 g f P D Q0 Qn s1 s2 s3 P1 D1 Q1 PT A2 A',
  validF G0 u1 f (mkAssn P D Q0) s1 (mkAssn P1 D1 Q1) ->
  validFC a tN f (mkAssn P D Q0) s1 (mkAssn P1 D1 Q1) ->
  cstrs_equiv PT (P1 ++ fst (cond G f)) = true ->
  validFC a t2 (EOpd (OVar g)) (mkAssn PT D1 Q1) s2 A2 ->
  straight s3 = true -> falsifies g s3 = true ->
  validFC a (tN + S t2) (EOpd (OVar g)) (mkAssn P D Qn) (SSeq s1 (SIf f s2 s3)) A'.
Proof.
  intros a tN t2 u1 g f P D Q0 Qn s1 s2 s3 P1 D1 Q1 PT A2 A' V1F V1C HPT V2 Hs Hf.
  intros F ps s T s' Crun w Hp Hn Hne Hi Hw HA Hrun.
  inversion Hrun; subst.
  match goal with R1 : seval _ _ _ s s1 T ?st1 ?c1, R2 : seval _ _ _ ?st1 (SIf _ _ _) T s' ?c2 |- _ =>
    rename R1 into Hr1, R2 into Hr2, st1 into sm, c1 into Ca, c2 into Cb end.
  destruct (V1C F ps s T sm Ca w Hp Hn Hne Hi Hw HA Hr1) as (C0N & xN & HrN & HCN & HxN).
  destruct (V1F F ps s T sm C0N w Hp Hn Hne Hi Hw HA HrN) as (HP1 & HD1 & _ & _ & _).
  cbn [aP aD] in HP1, HD1.
  change (etrue G0) with (etrue G) in HD1. change (rho G0) with (rho G) in HP1.
  change (dsat G0) with (dsat G) in HD1.
  assert (Hwm : wt G sm) by (eapply run_wt; eauto).
  inversion Hr2; subst;
    match goal with H : eeval _ _ _ _ _ _ _ _ |- _ => rename H into Hee end.
  - (* SC_IFT: every thread passes the flag test; [N] did not split *)
    match goal with H : seval _ _ _ _ s2 _ _ _ |- _ => rename H into Hs2 end.
    match goal with H : forall t, In t T -> is_true_v _ = true |- _ => rename H into Hall end.
    assert (HfT : forall u, In u T -> In u (filter (etrue G F ps sm f) T)).
    { intros u Hu. apply filter_In. split; auto. rewrite (etrue_R G _ _ _ _ _ _ _ Hee u Hu). auto. }
    assert (HfT' : filter (etrue G F ps sm f) T <> []).
    { intros E. destruct (nonempty_elem _ Hne) as [u Hu]. specialize (HfT u Hu). rewrite E in HfT. contradiction. }
    assert (Hpre2 : sat_assn G ps (mkAssn PT D1 Q1) sm T).
    { split; cbn [aP aD].
      - intros u Hu. apply (cstrs_equiv_sat _ _ _ HPT). apply sat_app; [exact (HP1 u Hu)|].
        exact (proj1 (cond_correct G F ps sm f T R C1 u Hp Hwm Hee Hu) (Hall u Hu)).
      - eapply (@dsat_sub G); [exact HfT | exact (HD1 HfT')]. }
    destruct (V2 F ps sm T s' C2 w Hp Hn Hne Hi Hwm Hpre2 Hs2) as (C02 & x2 & Hr02 & HC2 & Hx2).
    assert (HxN0 : xN = 0%nat).
    { unfold cap_c in HxN.
      assert (HL : length (filter (etrue G F ps sm f) T) = length T).
      { apply Nat.le_antisymm; [apply filter_length_le|]. apply NoDup_incl_length; auto. }
      rewrite HL, Nat.sub_diag in HxN. simpl in HxN. lia. }
    subst xN.
    exists (C0N + (C1 + m_if (c_metric G) + C02)), (0 + x2)%nat. split; [|split].
    + eapply (SC_SEQ G0); [exact HrN|].
      eapply (SC_IFT G0); [exact (eeval_nodiv _ _ _ _ _ _ _ _ Hee) | eassumption | exact Hr02].
    + rewrite qn_add. change (qn 0) with 0 in *. change M with (c_metric G) in *. lra.
    + assert (t2 * Nat.min (cap_c (EOpd (OVar g)) F ps s' T) 1 <=
              (tN + S t2) * Nat.min (cap_c (EOpd (OVar g)) F ps s' T) 1)%nat
        by (apply Nat.mul_le_mono_r; lia).
      lia.
  - (* SC_IFF: every thread fails the flag and leaves *)
    match goal with H : seval _ _ _ _ s3 _ _ _ |- _ => rename H into Hs3 end.
    match goal with H : forall t, In t T -> is_false_v _ = true |- _ => rename H into Hall end.
    assert (HfN : filter (etrue G F ps sm f) T = []).
    { apply filter_all_false. intros u Hu. rewrite (etrue_R G _ _ _ _ _ _ _ Hee u Hu).
      specialize (Hall u Hu). destruct (R u) as [| [] |]; auto; discriminate. }
    assert (HfG : filter (etrue G F ps s' (EOpd (OVar g))) T = []).
    { apply filter_all_false. intros u Hu. apply (etrue_var_false G).
      eapply (falsifies_sound G); eauto. }
    exists (C0N + (C1 + m_if (c_metric G) + C2)), xN. split; [|split].
    + eapply (SC_SEQ G0); [exact HrN|].
      eapply (SC_IFF G0); [exact (eeval_nodiv _ _ _ _ _ _ _ _ Hee) | eassumption
                          | exact (seval_straight G _ _ _ _ _ _ _ Hs Hs3)].
    + change M with (c_metric G) in *. lra.
    + unfold cap_c in *. rewrite HfN in HxN. rewrite HfG. simpl in *.
      assert (tN * Nat.min (Nat.min (length T - 0) (length T - 1)) 1 <=
              (tN + S t2) * Nat.min (Nat.min (length T - 0) (length T - 1)) 1)%nat
        by (apply Nat.mul_le_mono_r; lia).
      lia.
  - (* SC_IFD: 𝒯_F leaves, one split, the count of [s2] on 𝒯_T *)
    match goal with H : seval _ _ _ _ s2 _ _ _ |- _ => rename H into Hs2 end.
    match goal with H : seval _ _ _ _ s3 _ _ _ |- _ => rename H into Hs3 end.
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
    { intros u H1 H2. apply HTF in H1; apply HTT in H2.
      destruct H1 as [_ H1], H2 as [_ H2]. destruct (R u) as [| [] |]; discriminate. }
    assert (HnT : NoDup TT) by (apply NoDup_filter; auto).
    assert (HiT : incl TT (lanes G w)) by (eapply incl_tran; [apply incl_filter|]; auto).
    assert (HfT : forall u, In u TT -> In u (filter (etrue G F ps sm f) T)).
    { intros u Hu. apply HTT in Hu as [Hu Hr]. apply filter_In. split; auto.
      rewrite (etrue_R G _ _ _ _ _ _ _ Hee u Hu). auto. }
    assert (HfT' : filter (etrue G F ps sm f) T <> []).
    { intros E. destruct (nonempty_elem _ HneT) as [u Hu]. specialize (HfT u Hu). rewrite E in HfT. contradiction. }
    assert (Hpre2 : sat_assn G ps (mkAssn PT D1 Q1) sm TT).
    { split; cbn [aP aD].
      - intros u Hu. pose proof Hu as Hu0. apply HTT in Hu0 as [Hu0 Hr].
        apply (cstrs_equiv_sat _ _ _ HPT). apply sat_app; [exact (HP1 u Hu0)|].
        exact (proj1 (cond_correct G F ps sm f T R C1 u Hp Hwm Hee Hu0) Hr).
      - eapply (@dsat_sub G); [exact HfT | exact (HD1 HfT')]. }
    destruct (V2 F ps sm TT st1 C2 w Hp HnT HneT HiT Hwm Hpre2 Hs2) as (C02 & x2 & Hr02 & HC2 & Hx2).
    assert (Hs'1 : forall u, In u TT -> sl s' g u = sl st1 g u).
    { intros u Hu. eapply (frame_threads G); [exact Hs3|]. intros Hu'. exact (HTTF u Hu' Hu). }
    assert (HfF : forall u, In u TF -> sl s' g u = VBool false)
      by (intros u Hu; eapply (falsifies_sound G); eauto).
    assert (HTe : forall u, In u (filter (etrue G F ps s' (EOpd (OVar g))) T) <->
                            In u (filter (etrue G F ps st1 (EOpd (OVar g))) TT)).
    { intros u. rewrite !filter_In. split; intros [Hu E].
      - specialize (Hbool u Hu). destruct (R u) as [| [] |] eqn:Er; try discriminate.
        + assert (HuT : In u TT) by (apply HTT; rewrite Er; auto).
          split; auto. rewrite <- (etrue_var_frame G F ps st1 s' g u (Hs'1 u HuT)). exact E.
        + assert (HuF : In u TF) by (apply HTF; rewrite Er; auto).
          rewrite (etrue_var_false G F ps s' g u (HfF u HuF)) in E. discriminate.
      - split; [apply HTT in Hu; tauto|].
        rewrite (etrue_var_frame G F ps st1 s' g u (Hs'1 u Hu)). exact E. }
    assert (HL : length (filter (etrue G F ps s' (EOpd (OVar g))) T) =
                 length (filter (etrue G F ps st1 (EOpd (OVar g))) TT))
      by (apply same_elems_length; auto using NoDup_filter).
    assert (HLN : length (filter (etrue G F ps sm f) T) = length TT).
    { unfold TT. apply filter_length_ext. intros u Hu. apply (etrue_R G _ _ _ _ _ _ _ Hee u Hu). }
    assert (HLT : (length TT + length TF = length T)%nat) by (apply filter_tf_length; auto).
    assert (HTT1 : (1 <= length TT)%nat) by (destruct TT; [contradiction|simpl; lia]).
    assert (HTF1 : (1 <= length TF)%nat) by (destruct TF; [contradiction|simpl; lia]).
    pose proof (filter_length_le (etrue G F ps st1 (EOpd (OVar g))) TT) as HfL.
    exists (C0N + (C1 + m_if (c_metric G) + C02 + C3 + 0)), (xN + 1 + x2)%nat. split; [|split].
    + eapply (SC_SEQ G0); [exact HrN|].
      eapply (SC_IFD G0); [exact (eeval_nodiv _ _ _ _ _ _ _ _ Hee) | eassumption .. | exact Hr02 |
        exact (seval_straight G _ _ _ _ _ _ _ Hs Hs3)].
    + rewrite !qn_add. change (qn 1) with 1. change M with (c_metric G) in *. lra.
    + unfold cap_c in *. rewrite HLN, <- HLT in HxN. rewrite HL, <- HLT.
      replace (Nat.min (length TT + length TF - length TT) (length TT + length TF - 1))
        with (length TF) in HxN by lia.
      set (c2 := Nat.min (length TT - length (filter (etrue G F ps st1 (EOpd (OVar g))) TT))
                         (length TT - 1)) in *.
      replace (Nat.min (length TT + length TF - length (filter (etrue G F ps st1 (EOpd (OVar g))) TT))
                       (length TT + length TF - 1)) with (length TF + c2)%nat by (unfold c2; lia).
      replace (Nat.min (length TF + c2) 1) with 1%nat by lia.
      replace (Nat.min (length TF) 1) with 1%nat in HxN by lia.
      assert (t2 * Nat.min c2 1 <= t2 * 1)%nat by (apply Nat.mul_le_mono_l; lia).
      rewrite Nat.mul_add_distr_l. lia.
Qed.

(** Q:WEAK / F_WEAK at a tail position: the same run, counted from a stronger pre. *)
Lemma validFC_weak : forall a t f P D Qn NP ND NQ st A1 A' wpre,
  validFC a t f (mkAssn NP ND NQ) st A1 -> entails P NP wpre = true -> dcovers D ND = true ->
  validFC a t f (mkAssn P D Qn) st A'.
Proof.
  intros a t f P D Qn NP ND NQ st A1 A' wpre V Hpre HcD.
  intros F ps s T s' C w Hp Hn Hne Hi Hw [HP HD] Hrun. cbn [aP aD] in HP, HD.
  apply (V F ps s T s' C w Hp Hn Hne Hi Hw); auto. split; cbn [aP aD].
  - intros u Hu; apply (entails_sound _ _ _ _ (HP u Hu) Hpre).
  - eapply (dcovers_sound G); eauto.
Qed.

(** An [if] whose test cannot split on the pre's threads (both sides non-empty is
    impossible): a branch's count on all of [𝒯]. *)
Lemma validFC_if_nosplit : forall a t f P D Qn c s1 s2 PT QT PF QF A1 A2 A',
  cstrs_equiv PT (andc G P D c false) = true -> cstrs_equiv PF (andc G P D c true) = true ->
  validFC a t f (mkAssn PT D QT) s1 A1 -> validFC a t f (mkAssn PF D QF) s2 A2 ->
  (forall F ps s T R C1 w, pok G ps -> wt G s -> incl T (lanes G w) ->
     sat_assn G ps (mkAssn P D Qn) s T -> eeval G F ps s c T R C1 ->
     filter (fun t => is_true_v (R t)) T <> [] -> filter (fun t => is_false_v (R t)) T <> [] ->
     False) ->
  validFC a t f (mkAssn P D Qn) (SIf c s1 s2) A'.
Proof.
  intros a t f P D Qn c s1 s2 PT QT PF QF A1 A2 A' HPT HPF V1 V2 Hno.
  intros F ps s T s' Crun w Hp Hn Hne Hi Hw HA Hrun. pose proof HA as [HP HD].
  cbn [aP aD aQ] in HP, HD.
  inversion Hrun; subst;
    match goal with H : eeval _ _ _ _ _ _ _ _ |- _ => rename H into Hee end.
  - match goal with H : seval _ _ _ _ s1 _ _ _ |- _ => rename H into Hs1 end.
    assert (Hpre1 : sat_assn G ps (mkAssn PT D QT) s T).
    { split; cbn [aP aD]; auto. intros u Hu; apply (cstrs_equiv_sat _ _ _ HPT).
      apply (andc_correct G F ps s c T R C1 D P u Hp Hw HD Hee Hu (HP u Hu)); auto. }
    destruct (V1 F ps s T s' C2 w Hp Hn Hne Hi Hw Hpre1 Hs1) as (C0 & x & Hr0 & HC & Hxb).
    exists (C1 + m_if (c_metric G) + C0), x. split; [|split; [lra | exact Hxb]].
    eapply (SC_IFT G0); [exact (eeval_nodiv _ _ _ _ _ _ _ _ Hee) | eassumption | exact Hr0].
  - match goal with H : seval _ _ _ _ s2 _ _ _ |- _ => rename H into Hs2 end.
    assert (Hpre2 : sat_assn G ps (mkAssn PF D QF) s T).
    { split; cbn [aP aD]; auto. intros u Hu; apply (cstrs_equiv_sat _ _ _ HPF).
      apply (andc_correct G F ps s c T R C1 D P u Hp Hw HD Hee Hu (HP u Hu)); auto. }
    destruct (V2 F ps s T s' C2 w Hp Hn Hne Hi Hw Hpre2 Hs2) as (C0 & x & Hr0 & HC & Hxb).
    exists (C1 + m_if (c_metric G) + C0), x. split; [|split; [lra | exact Hxb]].
    eapply (SC_IFF G0); [exact (eeval_nodiv _ _ _ _ _ _ _ _ Hee) | eassumption | exact Hr0].
  - exfalso. eapply Hno; eauto.
Qed.

(** Q:IF1 / Q:IFEXIT1: a test uniform under [D] never splits. *)
Lemma unif_nosplit : forall P D Qn c, unif G (dunif G D) c = true ->
  forall F ps s T R C1 w, pok G ps -> wt G s -> incl T (lanes G w) ->
  sat_assn G ps (mkAssn P D Qn) s T -> eeval G F ps s c T R C1 ->
  filter (fun t => is_true_v (R t)) T <> [] -> filter (fun t => is_false_v (R t)) T <> [] ->
  False.
Proof.
  intros P D Qn c Hu F ps s T R C1 w Hp Hw Hi [_ HD] Hee H1 H2. cbn [aD] in HD.
  assert (HX : forall x, memn x (dunif G D) = true -> forall t t', In t T -> In t' T ->
         sl s x t = sl s x t') by (intros; eapply (dunif_sound G HWU); eauto).
  destruct (nonempty_elem _ H1) as [t1 Ht1]. destruct (nonempty_elem _ H2) as [t2 Ht2].
  apply filter_In in Ht1 as [Ht1 E1]. apply filter_In in Ht2 as [Ht2 E2].
  rewrite (unif_correct G HWU F ps s c T R C1 (dunif G D) w Hu Hee Hi HX t1 t2 Ht1 Ht2) in E1.
  destruct (R t2) as [| [] |]; discriminate.
Qed.

(** Q:IF2 / Q:IF3 at a tail position: a decided test runs one branch on all of [𝒯]. *)
Lemma validFC_if_decided : forall a t f P D Qn Q c s1 s2 sb ws A1 A' (neg : bool),
  nonempty ((if neg then snd else fst) (cond G c)) = true ->
  entails P ((if neg then snd else fst) (cond G c)) ws = true ->
  sb = (if neg then s2 else s1) ->
  validFC a t f (mkAssn P D Q) sb A1 ->
  validFC a t f (mkAssn P D Qn) (SIf c s1 s2) A'.
Proof.
  intros a t f P D Qn Q c s1 s2 sb ws A1 A' neg Hne1 Hent Hsb V.
  intros F ps s T s' Crun w Hp Hn Hne Hi Hw [HP HD] Hrun. cbn [aP aD aQ] in HP, HD.
  assert (Hdec : forall R C1, eeval G F ps s c T R C1 -> forall u, In u T -> R u = VBool (negb neg)).
  { intros R C1 He u Hu. pose proof (entails_sound _ _ _ _ (HP u Hu) Hent) as Hs.
    destruct (cond_decides G F ps s c T R C1 u Hp Hw He Hu) as [D1 D2].
    destruct neg; simpl in *; auto. }
  inversion Hrun; subst;
    match goal with H : eeval _ _ _ _ _ _ _ _ |- _ => rename H into Hee end;
    pose proof (Hdec _ _ Hee) as HR.
  - destruct neg.
    + exfalso. destruct (nonempty_elem _ Hne) as [u Hu].
      match goal with H : forall t, In t T -> is_true_v _ = true |- _ => specialize (H u Hu) end.
      rewrite HR in *; auto; discriminate.
    + match goal with H : seval _ _ _ _ s1 _ _ _ |- _ => rename H into Hs end.
      destruct (V F ps s T s' C2 w Hp Hn Hne Hi Hw (conj HP HD) Hs) as (C0 & x & Hr0 & HC & Hxb).
      exists (C1 + m_if (c_metric G) + C0), x. split; [|split; [lra | exact Hxb]].
      eapply (SC_IFT G0); [exact (eeval_nodiv _ _ _ _ _ _ _ _ Hee) | eassumption | exact Hr0].
  - destruct neg.
    + match goal with H : seval _ _ _ _ s2 _ _ _ |- _ => rename H into Hs end.
      destruct (V F ps s T s' C2 w Hp Hn Hne Hi Hw (conj HP HD) Hs) as (C0 & x & Hr0 & HC & Hxb).
      exists (C1 + m_if (c_metric G) + C0), x. split; [|split; [lra | exact Hxb]].
      eapply (SC_IFF G0); [exact (eeval_nodiv _ _ _ _ _ _ _ _ Hee) | eassumption | exact Hr0].
    + exfalso. destruct (nonempty_elem _ Hne) as [u Hu].
      match goal with H : forall t, In t T -> is_false_v _ = true |- _ => specialize (H u Hu) end.
      rewrite HR in *; auto; discriminate.
  - exfalso.
    match goal with H : filter (fun t => is_true_v _) T <> [] |- _ =>
      destruct (nonempty_elem _ H) as [t1 Ht1] end.
    match goal with H : filter (fun t => is_false_v _) T <> [] |- _ =>
      destruct (nonempty_elem _ H) as [t2 Ht2] end.
    apply filter_In in Ht1 as [Ht1 E1]. apply filter_In in Ht2 as [Ht2 E2].
    rewrite (HR t1 Ht1) in E1. rewrite (HR t2 Ht2) in E2. destruct neg; discriminate.
Qed.

(** ** Ordinary children and the loop test under [ctx_nodiv G]

    The capped body's validity under [ctx_nodiv G] (the premise of [cap_guard_valid]) is
    built from Soundness.v's lemmas applied to [ctx_nodiv G]; its ordinary children are
    straight statements whose judgments are checked under [G]: they are valid under
    [ctx_nodiv G] too ([valid_straight_nodiv]), and so is a test's cost ([qexpr_nodiv]). *)
Lemma oeval_back : forall s o T C, oeval G0 s o T C -> oeval G s o T C.
Proof.
  intros s o T C H; destruct H.
  - exact (OC_VAR G s x T).
  - exact (OC_CONST G s v T).
  - exact (OC_PARAM G s p T).
  - exact (OC_TID G s d T).
Qed.

Lemma eeval_back : forall F ps s e T R C, eeval G0 F ps s e T R C -> eeval G F ps s e T R C.
Proof.
  intros F ps s e T R C H; destruct H.
  - exact (EC_OPD G F ps s o T C (oeval_back _ _ _ _ H)).
  - exact (EC_OP G F ps s op a b T C1 C2 R (oeval_back _ _ _ _ H) (oeval_back _ _ _ _ H0) H1).
  - exact (EC_UOP G F ps s op a T C R (oeval_back _ _ _ _ H) H0).
  - exact (EC_GARR G F ps s A i T C es H (oeval_back _ _ _ _ H0) H1).
  - exact (EC_SARR G F ps s A i T C es H (oeval_back _ _ _ _ H0) H1).
  - exact (EC_LARR G F ps s A i T C es H (oeval_back _ _ _ _ H0) H1).
Qed.

(** A straight run under [ctx_nodiv G] is a run under [G] of the same cost. *)
Lemma seval_straight_back : forall F ps s st T s' C, straight st = true ->
  seval G0 F ps s st T s' C -> seval G F ps s st T s' C.
Proof.
  intros F ps s st T s' C Hs H. induction H; simpl in Hs; try discriminate.
  - constructor.
  - apply andb_prop in Hs as [H1 H2]. eapply SC_SEQ; eauto.
  - exact (SC_VWRITE G F ps s x e T R C ty (eeval_back _ _ _ _ _ _ _ H) H0 H1).
  - exact (SC_GWRITE G F ps s A i e T C1 C2 R es H (oeval_back _ _ _ _ H0)
             (eeval_back _ _ _ _ _ _ _ H1) H2 H3).
  - exact (SC_SWRITE G F ps s A i e T C1 C2 R es H (oeval_back _ _ _ _ H0)
             (eeval_back _ _ _ _ _ _ _ H1) H2 H3).
  - exact (SC_LWRITE G F ps s A i e T C1 C2 R es H (oeval_back _ _ _ _ H0)
             (eeval_back _ _ _ _ _ _ _ H1) H2 H3).
  - exact (SC_SYNC G F ps s T).
  - exact (SC_SHFL G F ps s x k w v l T C1 C2 ty (oeval_back _ _ _ _ H)
             (oeval_back _ _ _ _ H0) H1 H2 H3).
  - exact (SC_VOTE G F ps s x k p T C (oeval_back _ _ _ _ H) H0 H1).
Qed.

Lemma valid_straight_nodiv : forall A st A', straight st = true -> valid G A st A' -> valid G0 A st A'.
Proof.
  intros A st A' Hs V F ps s T s' C w Hp Hn Hne Hi Hw HA Hrun.
  exact (V F ps s T s' C w Hp Hn Hne Hi Hw HA (seval_straight_back F ps s st T s' C Hs Hrun)).
Qed.

Lemma qopd_nodiv : forall o C, qopd G o C -> qopd G0 o C.
Proof.
  intros o C H; destruct H.
  - exact (OQ_VAR G0 x).
  - exact (OQ_CONST G0 v).
  - exact (OQ_PARAM G0 p).
  - exact (OQ_TID G0 d).
Qed.

Lemma qexpr_nodiv : forall P D e n C, qexpr G P D e n C -> qexpr G0 P D e n C.
Proof.
  intros P D e n C H; destruct H.
  - exact (EQ_OPD G0 P D o n C (qopd_nodiv _ _ H)).
  - exact (EQ_OP G0 P D op a b n Ca Cb (qopd_nodiv _ _ H) (qopd_nodiv _ _ H0)).
  - exact (EQ_UOP G0 P D op a n Ca (qopd_nodiv _ _ H)).
  - exact (EQ_GARRAY G0 P D A i n Ci es H (qopd_nodiv _ _ H0) H1).
  - exact (EQ_SARRAY G0 P D A i n Ci es H (qopd_nodiv _ _ H0) H1).
  - exact (EQ_LARRAY G0 P D A i n Ci es H (qopd_nodiv _ _ H0)).
Qed.

(** A straight child at a tail position from its judgment under [G] (F_ORD, Q:GUARD,
    Q:GUARDEXIT): valid under [ctx_nodiv G], no split. *)
Lemma valid_straight_G : forall A st A', straight st = true -> valid G0 A st A' -> valid G A st A'.
Proof.
  intros A st A' Hs V F ps s T s' C w Hp Hn Hne Hi Hw HA Hrun.
  exact (V F ps s T s' C w Hp Hn Hne Hi Hw HA (seval_straight G F ps s st T s' C Hs Hrun)).
Qed.

(** ** The rules from the counted body

    [cap_guard_valid] / [cap_exit_valid] with [body_split] given by the body's [validFC]
    at the loop's tail: [k = a + t], the kernel's [walk] counts ([a = found.exit],
    [t = found.tests]). *)
Corollary cap_guard_valid_FC : forall A s0 g GE P D Qn Q' n C b B I PB QB' P' D' rg a t,
  valid G A s0 (mkAssn P D Qn) -> c_lty G g = Some TBool ->
  guard_last G g GE s0 = true -> guard_last G g GE b = true ->
  qexpr G0 P D (EOpd (OVar g)) n C ->
  validF G0 false (EOpd (OVar g)) (mkAssn B D I) b (mkAssn PB D QB') ->
  validFC a t (EOpd (OVar g)) (mkAssn B D I) b (mkAssn PB D QB') ->
  cstrs_equiv B (P ++ GE) = true -> cstrs_equiv PB P = true ->
  pot_ge_under B rg QB' (padd I (m_if M + C)) = true ->
  pot_ge Qn (padd (pplus QB' Q') (m_if M + C + cap_delta (a + t))) = true ->
  cstrs_equiv P' P = true ->
  dcovers D D' = true -> disjoint (dvars D') (writes b) = true ->
  puni G D QB' = true -> pnonneg QB' = true -> puni G D' Q' = true ->
  valid G A (SSeq s0 (SWhile (EOpd (OVar g)) b)) (mkAssn P' D' Q').
Proof.
  intros A s0 g GE P D Qn Q' n C b B I PB QB' P' D' rg a t V0 Hty Hg0 Hgb Hq V VC HB HPB HQB'
    Hpre HP' HcD HdD HuJ HnJ HuQ.
  eapply cap_guard_valid; eauto.
  intros F ps w. eapply body_split_of_FC; [|exact VC]. exact HB.
Qed.

Corollary cap_exit_valid_FC : forall P D Qn Q' e n C b B I PB QB' P' D' a t,
  qexpr G0 P D e n C -> noread e = true ->
  validF G0 false e (mkAssn B D I) b (mkAssn PB D QB') ->
  validFC a t e (mkAssn B D I) b (mkAssn PB D QB') ->
  cstrs_equiv B (P ++ fst (cond G e)) = true -> cstrs_equiv PB P = true ->
  pot_ge QB' (padd I (m_if M + C)) = true ->
  pot_ge Qn (padd (pplus I Q') ((m_if M + C) + (m_if M + C) + cap_delta (a + t))) = true ->
  cstrs_equiv P' (P ++ snd (cond G e)) = true ->
  dcovers D D' = true -> disjoint (dvars D') (writes b) = true ->
  puni G D I = true -> pnonneg I = true -> puni G D' Q' = true ->
  valid G (mkAssn P D Qn) (SWhile e b) (mkAssn P' D' Q').
Proof.
  intros P D Qn Q' e n C b B I PB QB' P' D' a t Hq Hnr V VC HB HPB HQB' Hpre HP' HcD HdD HuI HnI HuQ.
  eapply cap_exit_valid; eauto.
  intros F ps w. eapply body_split_of_FC; [|exact VC]. rewrite app_nil_r. exact HB.
Qed.

End CapSound.

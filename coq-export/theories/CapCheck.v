(** * The capped loops in the checker (spec/logic.md §4a, Q:WHILEGUARDCAP / Q:WHILEEXITCAP /
    Q:WHILEEXITCAP2)

    The three rules' conclusions are proved valid at the level of meanings in CapSound.v
    ([cap_guard_valid_FC], [cap_exit_valid_FC]) and CapSound2.v ([cap_exit2_valid_FC])
    from two facts about the body [B]: its
    filtered judgment under [ctx_nodiv G] (the metric with [M^div := 0], Cap.v) and its
    counted meaning [validFC a t]. Logic.v's judgment is a section over one context and
    cannot hold the body's judgment at another, so the rules have no [qstmt] constructor;
    they are checked here, one level above Check.v's [check]:
    - [cwalk] is the kernel's cap condition (kernel/src/rules/cap.rs [walk]) on the body's
      tree: it computes [a] (a Q:IFEXIT4 at a tail position) and [t] (the Q:IFGUARD4 /
      Q:FLAGEXIT tests at the loop body's tail) and refuses any other node that may split;
      an ordinary child must be a statement without a branch or a loop (Cap.v [straight]),
      which is stricter than the kernel (its [NO_SPLIT] rules) and enough for the
      certificates the producer writes;
    - [ccheck] walks the spine of a certificate (Q:SEQ, SEQ_ASSOC, Q:WEAK) and checks a
      [DWhileGuardCap] / [DWhileExitCap] / [DWhileExitCap2] node: its own side conditions
      under [G] with the charge [cap_delta (a + t)] = [M^div·(a + t + 1)·(N − 1)] (the
      kernel's [cap_charge]; [DWhileExitCap2]: [cap2_delta (a + t)] = [M^div·(a + t)·(N − 1)]
      with the loop test's [k = M^if + M^div + C] paid per round), the body's tree by
      [check] under [ctx_nodiv G] (a call of the checker at another context: [check] is a
      function of the context) and by [cwalk]; every other node by [check] under [G];
    - [ccheck_valid]: an accepted tree is valid, from [check_qstmt] and [soundness_mut] at
      [G] and at [ctx_nodiv G], CapSound.v's counted lemmas ([cwalk_sound]), its two
      corollaries and CapSound2.v's [cap_exit2_valid_FC]; [cbound_sound] is Check.v's
      [root_sound] (as [bound_sound]) for [ccheck_root].
    A capped loop is accepted on the spine only (not inside another rule's child), where
    the producer puts it.

    A further capped rule is added the same way (Q:WHILEEXITCAP2 was): a [dtree] constructor at the end of Check.v's
    list (with its [dpre] / [dpost] cases; [check] rejects it), a case of [ccheck] with its
    side conditions and the body checked by [check] under [ctx_nodiv G] and [cwalk], and a
    case of [ccheck_valid] that applies its meaning-level theorem to [cwalk_sound] and
    [chk0_validF] (or [chk0_valid]). *)
From Coq Require Import ZArith QArith List Bool Arith Lia Lqa.
From WarpCert Require Import Metric Syntax Semantics Lin Shift Guard Logic IntRw Soundness Check.
From WarpCert Require Import Cap CapSound CapSound2.
Import ListNotations.
Open Scope Q_scope.

(** [a], [t] of two children of a node: one [a] for the loop, the tests of both. *)
Definition cadd (x y : option (nat * nat)) : option (nat * nat) :=
  match x, y with
  | Some (a1, t1), Some (a2, t2) => Some (Nat.max a1 a2, t1 + t2)%nat
  | _, _ => None
  end.

(** The cap condition on the tree [d] about [s] at a tail position ([loop]: the loop
    body's filtered spine, else the part [N] of a Q:FLAGEXIT), as the kernel's [walk]:
    [Some (a, t)] with [a = 1] when a Q:IFEXIT4 is found, [t] the Q:IFGUARD4 / Q:FLAGEXIT
    tests; the children at a tail position are a Q:SEQ's last, Q:WEAK's, Q:IF1–IF3's
    branches, Q:IFEXIT1/4's else branch, Q:IFGUARD4's then branch, Q:FLAGEXIT's [N] (at a
    flag tail) and then branch; a statement without a branch or a loop never splits. *)
Fixpoint cwalk (loop : bool) (s : stmt) (d : dtree) {struct d} : option (nat * nat) :=
  if straight s then Some (0, 0)%nat else
  match d, s with
  | DSeq _ _ _ d2, SSeq s1 s2 => if straight s1 then cwalk loop s2 d2 else None
  | DWeak _ _ _ _ _ _ _ d1, _ => cwalk loop s d1
  | DIf1 _ _ _ dt df, SIf _ s1 s2 => cadd (cwalk loop s1 dt) (cwalk loop s2 df)
  | DIf2 _ _ _ _ dt, SIf _ s1 _ => cwalk loop s1 dt
  | DIf3 _ _ _ _ df, SIf _ _ s2 => cwalk loop s2 df
  | DIfExit1 _ _ _ _ _ _ _ df, SIf _ s1 s2 => if straight s1 then cwalk loop s2 df else None
  | DIfExit4 _ _ _ _ _ _ _ df, SIf _ s1 s2 =>
      if straight s1 then
        match cwalk loop s2 df with Some (a, t) => Some (Nat.max 1 a, t) | None => None end
      else None
  | DIfGuard4 _ _ _ _ _ dt _, SIf _ s1 s2 =>
      if loop && straight s2 then
        match cwalk loop s1 dt with Some (a, t) => Some (a, S t) | None => None end
      else None
  | DFlagExit _ _ _ _ _ d1 dt _, SSeq s1 (SIf _ s2 s3) =>
      if loop && straight s3 then
        match cwalk false s1 d1, cwalk loop s2 dt with
        | Some (a1, t1), Some (a2, t2) => Some (Nat.max a1 a2, t1 + S t2)%nat
        | _, _ => None
        end
      else None
  | _, _ => None
  end.

Section CapCheck.
Variable G : ctx.
Variable tab : ntab.
Variable wt : list (list trip).

(** Q:WHILEEXITCAP / Q:WHILEEXITCAP2's checks (DWhileExit2's, the body by [check] under
    [ctx_nodiv G] and by [cwalk]) with the loop test's [k C] ([C] the test's cost) and the
    pre charged [2k + delta (a + t)]; the two rules differ in [k] and [delta] only. *)
Definition cexit (k : Q -> Q) (delta : nat -> Q) (A B : assn) (ne : accw) (e : expr)
    (b : stmt) (db : dtree) : bool :=
  match ecost G tab (aP A) (aD A) e ne, cwalk true b db with
  | Some C, Some (a, t) =>
      let Bp := dpre db in let Bq := dpost db in
      noread e && deq (aD Bp) (aD A) && deq (aD Bq) (aD A) &&
      cstrs_equiv (aP Bp) (aP A ++ fst (cond G e)) && cstrs_equiv (aP Bq) (aP A) &&
      pot_ge (aQ Bq) (padd (aQ Bp) (k C)) &&
      pot_ge (aQ A) (padd (pplus (aQ Bp) (aQ B)) (k C + k C + delta (a + t)%nat)) &&
      cstrs_equiv (aP B) (aP A ++ snd (cond G e)) &&
      dcovers (aD A) (aD B) && disjoint (dvars (aD B)) (writes b) &&
      puni G (aD A) (aQ Bp) && pnonneg (aQ Bp) && puni G (aD B) (aQ B) &&
      check (ctx_nodiv G) tab wt (Some e) false b db
  | _, _ => false
  end.

(** The checker on the spine of a certificate, with the capped loops (see the header). *)
Fixpoint ccheck (s : stmt) (d : dtree) {struct d} : bool :=
  match d, s with
  | DSeq A B d1 d2, SSeq s1 s2 =>
      aeq (dpre d1) A && aeq (dpost d1) (dpre d2) && aeq (dpost d2) B &&
      ccheck s1 d1 && ccheck s2 d2
  (* Q:WHILE1 and Q:IFALIGN with their children on the spine (a capped loop inside them:
     NVIDIA's Mandelbrot, whose CalcMandelbrot loop is in a grid-stride loop's [if]) *)
  | DWhile1 A B ne db, SWhile e b =>
      match ecost G tab (aP A) (aD A) e ne with
      | Some C =>
          let Bp := dpre db in let Bq := dpost db in
          unif G (dunif G (aD A)) e && deq (aD Bp) (aD A) && deq (aD Bq) (aD A) &&
          deq (aD B) (aD A) &&
          cstrs_equiv (aP Bp) (andc G (aP A) (aD A) e false) && cstrs_equiv (aP Bq) (aP A) &&
          pot_ge (aQ B) (aQ Bp) && pot_ge (aQ Bq) (padd (aQ B) (m_if (c_metric G) + C)) &&
          pot_ge (aQ A) (padd (aQ B) (m_if (c_metric G) + C)) &&
          cstrs_equiv (aP B) (andc G (aP A) (aD A) e true) && ccheck b db
      | None => false
      end
  | DIfAlign A B ne wec wet wjt wje r m dt df, SIf e s1 s2 =>
      match ecost G tab (aP A) (aD A) e ne, fst (cond G e) with
      | Some C, CLe L :: nil =>
          match lin_k G (aD A) L, lin_loc G (aD A) L with
          | Some k, Some (X, g) =>
              let T := dpre dt in let T' := dpost dt in let F := dpre df in let F' := dpost df in
              cstrs_equiv (aP T) (andc G (aP A) (aD A) e false) && deq (aD T) (aD A) &&
              qeq (aQ F) (aQ T') && qeq (aQ B) (aQ F') &&
              entails (andc G (aP A) (aD A) e true) (aP F) wec &&
              entails (aP T') (filter is_lin (aP F)) wet &&
              entails (aP T') (aP B) wjt && entails (aP F') (aP B) wje &&
              dcovers (aD A) (aD F) && disjoint (dvars (aD F)) (writes s1) &&
              dcovers (aD A) (aD B) && disjoint (dvars (aD B)) (writes s1 ++ writes s2) &&
              puni G (aD A) (aQ T) && puni G (aD F) (aQ T') && puni G (aD B) (aQ F') &&
              pot_ge (aQ T) (aQ T') && pot_ge (aQ T') (aQ F') &&
              (g mod Zpos m =? 0)%Z && nosplit_ok wt k r (Zpos m) &&
              pot_ge (aQ A) (padd (paddm (aQ T) (m_div (c_metric G)) [res_atom X r m])
                                  (m_if (c_metric G) + C)) &&
              ccheck s1 dt && ccheck s2 df
          | _, _ => false
          end
      | _, _ => false
      end
  | DAssoc A B d1, SSeq s1 (SSeq s2 s3) =>
      aeq (dpre d1) A && aeq (dpost d1) B && ccheck (SSeq (SSeq s1 s2) s3) d1
  | DWeak A B k wpre rpre wpost rpost d1, _ =>
      let N := dpre d1 in let N' := dpost d1 in
      Qle_bool 0 k && entails (aP A) (aP N) wpre &&
      pot_ge_under (aP A) rpre (aQ A) (padd (aQ N) k) && dcovers (aD A) (aD N) &&
      entails (aP N') (aP B) wpost && pot_ge_under (aP N') rpost (padd (aQ N') k) (aQ B) &&
      dcovers (aD N') (aD B) && ccheck s d1
  (* Q:WHILEGUARDCAP: DWhileGuard's checks (mode [uf = false]) with the loop test's
     [k = M^if + C] and the pre charged [M^if + C + cap_delta (a + t)] *)
  | DWhileGuardCap A B ne GE rg d0 db, SSeq s0 (SWhile (EOpd (OVar g)) b) =>
      let L := dpost d0 in
      match ecost G tab (aP L) (aD L) (EOpd (OVar g)) ne, cwalk true b db with
      | Some C, Some (a, t) =>
          let Bp := dpre db in let Bq := dpost db in
          (match c_lty G g with Some TBool => true | _ => false end) &&
          guard_last G g GE s0 && guard_last G g GE b && aeq (dpre d0) A &&
          deq (aD Bp) (aD L) && deq (aD Bq) (aD L) &&
          cstrs_equiv (aP Bp) (aP L ++ GE) && cstrs_equiv (aP Bq) (aP L) &&
          pot_ge_under (aP Bp) rg (aQ Bq) (padd (aQ Bp) (m_if (c_metric G) + C)) &&
          pot_ge (aQ L) (padd (pplus (aQ Bq) (aQ B))
                              (m_if (c_metric G) + C + cap_delta G (a + t))) &&
          cstrs_equiv (aP B) (aP L) &&
          dcovers (aD L) (aD B) && disjoint (dvars (aD B)) (writes b) &&
          puni G (aD L) (aQ Bq) && pnonneg (aQ Bq) && puni G (aD B) (aQ B) &&
          ccheck s0 d0 && check (ctx_nodiv G) tab wt (Some (EOpd (OVar g))) false b db
      | _, _ => false
      end
  (* Q:WHILEEXITCAP: the loop test's [k = M^if + C], the charge [cap_delta (a + t)] *)
  | DWhileExitCap A B ne db, SWhile e b =>
      cexit (fun C => m_if (c_metric G) + C) (cap_delta G) A B ne e b db
  (* Q:WHILEEXITCAP2: the loop test's [k = M^if + M^div + C] (paid per round, as
     Q:WHILEEXIT2), the charge [cap2_delta (a + t)] *)
  | DWhileExitCap2 A B ne db, SWhile e b =>
      cexit (fun C => m_if (c_metric G) + m_div (c_metric G) + C) (cap2_delta G) A B ne e b db
  | _, _ => check G tab wt None false s d
  end.

Hypothesis Htab : tab_ok G tab = true.
Hypothesis Hwt : wt = wtids G.
Hypothesis HWU : wu_sound G.

(** The table and the lanes under [ctx_nodiv G] are those under [G] ([N*] and the thread
    ids do not read the metric). *)
Lemma Htab0 : tab_ok (ctx_nodiv G) tab = true.
Proof. exact Htab. Qed.

Lemma Hwt0 : wt = wtids (ctx_nodiv G).
Proof. exact Hwt. Qed.

Lemma chk_valid : forall s d, check G tab wt None false s d = true ->
  valid G (dpre d) s (dpost d).
Proof.
  intros s d H. apply (soundness G HWU).
  exact (check_qstmt G tab wt Htab Hwt d None false s H).
Qed.

Lemma chk0_valid : forall s d, check (ctx_nodiv G) tab wt None false s d = true ->
  valid (ctx_nodiv G) (dpre d) s (dpost d).
Proof.
  intros s d H. apply (proj1 (soundness_mut (ctx_nodiv G) (wu_nodiv G HWU))).
  exact (check_qstmt (ctx_nodiv G) tab wt Htab0 Hwt0 d None false s H).
Qed.

Lemma chk0_validF : forall f u s d, check (ctx_nodiv G) tab wt (Some f) u s d = true ->
  validF (ctx_nodiv G) u f (dpre d) s (dpost d).
Proof.
  intros f u s d H. apply (proj2 (soundness_mut (ctx_nodiv G) (wu_nodiv G HWU))).
  exact (check_qstmt (ctx_nodiv G) tab wt Htab0 Hwt0 d (Some f) u s H).
Qed.

(** A straight child checked under [ctx_nodiv G] is valid under [G]. *)
Lemma chk0_valid_G : forall s d, straight s = true ->
  check (ctx_nodiv G) tab wt None false s d = true -> valid G (dpre d) s (dpost d).
Proof. intros s d Hs H. apply (valid_straight_G G); auto. apply chk0_valid; auto. Qed.

(** The counted meaning is monotone in [a] and [t]. *)
Lemma validFC_mono : forall a t a' t' e A st A', (a <= a')%nat -> (t <= t')%nat ->
  validFC G a t e A st A' -> validFC G a' t' e A st A'.
Proof.
  intros a t a' t' e A st A' Ha Ht V F ps s T s' C w Hp Hn Hne Hi Hw HA Hr.
  destruct (V F ps s T s' C w Hp Hn Hne Hi Hw HA Hr) as (C0 & x & H1 & H2 & H3).
  exists C0, x. split; [exact H1|]. split; [exact H2|].
  pose proof (Nat.mul_le_mono_r a a' (cap_c G e F ps s' T) Ha).
  pose proof (Nat.mul_le_mono_r t t' (Nat.min (cap_c G e F ps s' T) 1) Ht). lia.
Qed.

Lemma andc_nd : andc (ctx_nodiv G) = andc G.
Proof. reflexivity. Qed.
Lemma cond_nd : cond (ctx_nodiv G) = cond G.
Proof. reflexivity. Qed.
Lemma unif_nd : unif (ctx_nodiv G) = unif G.
Proof. reflexivity. Qed.
Lemma dunif_nd : dunif (ctx_nodiv G) = dunif G.
Proof. reflexivity. Qed.

Ltac nd_G := rewrite ?andc_nd, ?cond_nd, ?unif_nd, ?dunif_nd in *.

(** The cap condition gives the body's counted meaning (CapSound.v's lemma of each node). *)
Lemma cwalk_sound : forall d loop s f a t, cwalk loop s d = Some (a, t) ->
  check (ctx_nodiv G) tab wt (Some f) false s d = true ->
  validFC G a t f (dpre d) s (dpost d).
Proof.
  induction d; intros loop s f a t Hw Hc; cbn [cwalk] in Hw;
    (destruct (straight s) eqn:Hs;
     [injection Hw as <- <-; apply validFC_straight; exact Hs|]);
    try discriminate.
  - (* DSeq *)
    destruct s; try discriminate.
    destruct (straight s1) eqn:Hs1; [|discriminate].
    cbn [check] in Hc. split_b. subst A B. cbn [dpre dpost].
    eapply validFC_seq; [exact Hs1 | | eapply IHd2; eauto].
    match goal with E : dpost d1 = dpre d2 |- _ => rewrite <- E end.
    apply chk0_valid_G; auto.
  - (* DIf1 *)
    destruct s; try discriminate.
    destruct (cwalk loop s1 d1) as [[a1 t1]|] eqn:E1; [|discriminate].
    destruct (cwalk loop s2 d2) as [[a2 t2]|] eqn:E2; [|discriminate].
    cbn [cadd] in Hw. injection Hw as <- <-.
    cbn [check] in Hc. destruct (ecost _ _ _ _ _ _) as [C|]; [|discriminate]. split_b.
    nd_G. cbn [dpre dpost].
    pose proof (IHd1 _ _ _ _ _ E1 ltac:(eassumption)) as V1.
    pose proof (IHd2 _ _ _ _ _ E2 ltac:(eassumption)) as V2.
    destruct A as [P D Qn]; destruct (dpre d1) as [PT DT QT]; destruct (dpre d2) as [PF DF QF].
    cbn [aP aD aQ] in *. subst DT DF.
    eapply validFC_if_nosplit; [eassumption | eassumption
      | eapply validFC_mono; [| | exact V1]; lia
      | eapply validFC_mono; [| | exact V2]; lia |].
    eapply (unif_nosplit G HWU); eassumption.
  - (* DIf2 *)
    destruct s; try discriminate.
    cbn [check] in Hc. destruct (ecost _ _ _ _ _ _) as [C|]; [|discriminate]. split_b.
    nd_G. cbn [dpre dpost].
    pose proof (IHd _ _ _ _ _ Hw ltac:(eassumption)) as V.
    destruct A as [P D Qn]; destruct (dpre d) as [PT DT QT]. cbn [aP aD aQ] in *. subst PT DT.
    eapply (validFC_if_decided G a t f P D Qn QT e s1 s2 s1 ws _ _ false); eauto.
  - (* DIf3 *)
    destruct s; try discriminate.
    cbn [check] in Hc. destruct (ecost _ _ _ _ _ _) as [C|]; [|discriminate]. split_b.
    nd_G. cbn [dpre dpost].
    pose proof (IHd _ _ _ _ _ Hw ltac:(eassumption)) as V.
    destruct A as [P D Qn]; destruct (dpre d) as [PF DF QF]. cbn [aP aD aQ] in *. subst PF DF.
    eapply (validFC_if_decided G a t f P D Qn QF e s1 s2 s2 ws _ _ true); eauto.
  - (* DWeak *)
    cbn [check] in Hc. split_b. cbn [dpre dpost].
    pose proof (IHd _ _ _ _ _ Hw ltac:(eassumption)) as V.
    destruct A as [P D Qn]; destruct (dpre d) as [NP ND NQ]. cbn [aP aD aQ] in *.
    eapply validFC_weak; eauto.
  - (* DIfExit1 *)
    destruct s; try discriminate.
    destruct (straight s1) eqn:Hs1; [|discriminate].
    cbn [check] in Hc. destruct (ecost _ _ _ _ _ _) as [C|]; [|discriminate]. split_b.
    nd_G. cbn [dpre dpost].
    pose proof (IHd2 _ _ _ _ _ Hw ltac:(eassumption)) as V2.
    destruct A as [P D Qn]; destruct (dpre d1) as [PT DT QT]; destruct (dpre d2) as [PF DF QF].
    cbn [aP aD aQ] in *. subst DT DF.
    eapply validFC_if_nosplit; [eassumption | eassumption
      | exact (validFC_straight G a t f (mkAssn PT D QT) s1 (dpost d1) Hs1)
      | exact V2 |].
    eapply (unif_nosplit G HWU); eassumption.
  - (* DIfExit4 *)
    destruct s; try discriminate.
    destruct (straight s1) eqn:Hs1; [|discriminate].
    destruct (cwalk loop s2 d2) as [[a2 t2]|] eqn:E2; [|discriminate].
    injection Hw as <- <-.
    cbn [check] in Hc. destruct (ecost _ _ _ _ _ _) as [C|]; [|discriminate]. split_b.
    nd_G. cbn [dpre dpost].
    pose proof (IHd2 _ _ _ _ _ E2 ltac:(eassumption)) as V2.
    assert (V1 : valid G (dpre d1) s1 (dpost d1)) by (apply chk0_valid_G; auto).
    destruct A as [P D Qn]; destruct (dpre d1) as [PT DT QT]; destruct (dpre d2) as [PF DF QF].
    destruct (dpost d1) as [P1 D1 Q1].
    cbn [aP aD aQ] in *. subst DT DF.
    assert (V2' : validFC G (Nat.max 1 a2) t2 f (mkAssn PF D QF) s2 (dpost d2))
      by (eapply validFC_mono; [| | exact V2]; lia).
    eapply validFC_ifexit4; [| eassumption | eassumption | exact Hs1 | exact V1 | exact V2'
      | eassumption | eassumption].
    destruct a2; lia.
  - (* DIfGuard4 *)
    destruct s; try discriminate.
    destruct loop; [|discriminate]. destruct (straight s2) eqn:Hs2; [|discriminate].
    destruct (cwalk true s1 d1) as [[a1 t1]|] eqn:E1; [|discriminate].
    injection Hw as <- <-.
    cbn [check] in Hc.
    destruct f as [[g| | |]| | |]; try discriminate.
    destruct (ecost _ _ _ _ _ _) as [C|]; [|discriminate]. split_b.
    nd_G. cbn [dpre dpost].
    pose proof (IHd1 _ _ _ _ _ E1 ltac:(eassumption)) as V1.
    destruct A as [P D Qn]; destruct (dpre d1) as [PT DT QT]; destruct (dpre d2) as [PF DF QF].
    cbn [aP aD aQ] in *. subst DT DF.
    eapply validFC_ifguard4; [eassumption | eassumption | exact V1 | exact Hs2 | eassumption].
  - (* DFlagExit *)
    destruct s as [| | s1 s23 | | | | |]; try discriminate.
    destruct s23 as [| | | | | f' s2 s3 | |]; try discriminate.
    destruct loop; [|discriminate]. destruct (straight s3) eqn:Hs3; [|discriminate].
    destruct (cwalk false s1 d1) as [[a1 t1]|] eqn:E1; [|discriminate].
    destruct (cwalk true s2 d2) as [[a2 t2]|] eqn:E2; [|discriminate].
    injection Hw as <- <-.
    cbn [check] in Hc.
    destruct f as [[g| | |]| | |]; try discriminate.
    destruct (ecost _ _ _ _ _ _) as [C|]; [|discriminate]. split_b.
    nd_G. cbn [dpre dpost].
    pose proof (IHd1 _ _ _ _ _ E1 ltac:(eassumption)) as V1.
    pose proof (IHd2 _ _ _ _ _ E2 ltac:(eassumption)) as V2.
    match goal with Hn : check _ _ _ (Some f') false s1 d1 = true |- _ =>
      pose proof (chk0_validF _ _ _ _ Hn) as V1F end.
    destruct A as [P D Qn]; destruct (dpre d1) as [NP ND NQ]; destruct (dpost d1) as [P1 D1 Q1].
    destruct (dpre d2) as [PT DT QT].
    cbn [aP aD aQ] in *. subst NP ND DT QT.
    assert (V1' : validFC G (Nat.max a1 a2) t1 f' (mkAssn P D NQ) s1 (mkAssn P1 D1 Q1))
      by (eapply validFC_mono; [| | exact V1]; lia).
    assert (V2' : validFC G (Nat.max a1 a2) t2 (EOpd (OVar g)) (mkAssn PT D1 Q1) s2 (dpost d2))
      by (eapply validFC_mono; [| | exact V2]; lia).
    exact (validFC_flagexit G (Nat.max a1 a2) t1 t2 false g f' P D NQ Qn s1 s2 s3 P1 D1 Q1 PT
             (dpost d2) B V1F V1' ltac:(eassumption) V2' Hs3 ltac:(eassumption)).
Qed.

(** Q:WHILEEXITCAP / Q:WHILEEXITCAP2 in [ccheck_valid]: [cexit]'s checks taken apart, the
    body's validity under [ctx_nodiv G] ([VF]), its counted meaning ([VC]) and the test's
    cost under [ctx_nodiv G] ([Hq]); the case then applies its meaning-level theorem. *)
Ltac cexit_facts H :=
  lazymatch goal with |- valid _ (dpre (_ ?A ?B _ ?d)) _ _ =>
  cbn [ccheck] in H; unfold cexit in H;
  destruct (ecost _ _ _ _ _ _) as [C|] eqn:Ec; [|discriminate];
  destruct (cwalk true _ _) as [[a t]|] eqn:Ew; [|discriminate];
  cbv beta zeta in H; split_b; cbn [dpre dpost];
  pose proof (chk0_validF _ _ _ _ ltac:(eassumption)) as VF;
  pose proof (cwalk_sound _ _ _ _ _ _ Ew ltac:(eassumption)) as VC;
  pose proof (qexpr_nodiv G _ _ _ _ _ (ecost_sound G tab Htab _ _ _ _ _ Ec)) as Hq;
  destruct A as [P D Qn]; destruct B as [P' D' Q'];
  destruct (dpre d) as [PB0 DB0 I]; destruct (dpost d) as [PB DB QB'];
  cbn [aP aD aQ] in *; subst DB0 DB
  end.

(** An accepted tree is valid. *)
Theorem ccheck_valid : forall d s, ccheck s d = true -> valid G (dpre d) s (dpost d).
Proof.
  induction d; intros s H; try (apply chk_valid; exact H).
  - (* DSeq *)
    destruct s; try (apply chk_valid; exact H).
    cbn [ccheck] in H. split_b. subst A B. cbn [dpre dpost].
    eapply sound_Q_SEQ; [apply IHd1; eauto|].
    match goal with E : dpost d1 = dpre d2 |- _ => rewrite E end. apply IHd2; eauto.
  - (* DWhile1 *)
    destruct s as [| | | | | | e b |]; try (apply chk_valid; exact H).
    cbn [ccheck] in H.
    destruct (ecost _ _ _ _ _ _) as [C|] eqn:Ec; [|discriminate]. split_b. cbn [dpre dpost].
    pose proof (IHd _ ltac:(eassumption)) as V.
    destruct A as [P D Qn], B as [P' D' Q'], (dpre d) as [PB DB QB],
      (dpost d) as [PB' DB' QB']; cbn [aP aD aQ] in *. subst DB DB' D'.
    eapply (sound_Q_WHILE1 G HWU); eauto using (ecost_sound G tab Htab).
  - (* DWeak *)
    cbn [ccheck] in H. split_b. cbn [dpre dpost].
    pose proof (IHd _ ltac:(eassumption)) as V.
    destruct A as [P D Qn]; destruct B as [P' D' Q'];
      destruct (dpre d) as [NP ND NQ]; destruct (dpost d) as [NP' ND' NQ'].
    cbn [aP aD aQ] in *. eapply sound_Q_WEAK; eauto.
  - (* DAssoc *)
    destruct s as [| | s1 s23 | | | | |]; try (apply chk_valid; exact H).
    destruct s23; try (apply chk_valid; exact H).
    cbn [ccheck] in H. split_b. subst A B. cbn [dpre dpost].
    apply sound_SEQ_ASSOC. apply IHd; auto.
  - (* DIfAlign *)
    destruct s as [| | | | | e s1 s2 | |]; try (apply chk_valid; exact H).
    cbn [ccheck] in H.
    destruct (ecost _ _ _ _ _ _) as [C|] eqn:Ec; [|discriminate].
    destruct (fst (cond G e)) as [|[L|L|L mm rs] [|c' l']] eqn:EL; try discriminate.
    destruct (lin_k G (aD A) L) as [k|] eqn:Ek; try discriminate.
    destruct (lin_loc G (aD A) L) as [[X g]|] eqn:Eo; try discriminate. split_b.
    cbn [dpre dpost].
    pose proof (IHd1 _ ltac:(eassumption)) as V1.
    pose proof (IHd2 _ ltac:(eassumption)) as V2.
    destruct A as [P D Qn], B as [P' D' Q'], (dpre d1) as [PT DT QT],
      (dpost d1) as [P1 D1 Q1], (dpre d2) as [PF DF QF],
      (dpost d2) as [P2 D2 Q2]; cbn [aP aD aQ] in *. subst DT QF Q'. rewrite Hwt in *.
    eapply (sound_Q_IFALIGN G P D Qn QT e ne C s1 s2 PT); eauto using (ecost_sound G tab Htab).
  - (* DWhileGuardCap *)
    destruct s as [| | s0 sw | | | | |]; try (apply chk_valid; exact H).
    destruct sw as [| | | | | | [[g| | |]| | |] b |]; try (apply chk_valid; exact H).
    cbn [ccheck] in H.
    destruct (ecost _ _ _ _ _ _) as [C|] eqn:Ec; [|discriminate].
    destruct (cwalk true b d2) as [[a t]|] eqn:Ew; [|discriminate].
    split_b.
    match goal with Hm : (match c_lty G g with _ => _ end) = true |- _ =>
      destruct (c_lty G g) as [[]|] eqn:Hty; try discriminate end.
    subst A. cbn [dpre dpost].
    pose proof (IHd1 _ ltac:(eassumption)) as V0.
    pose proof (chk0_validF _ _ _ _ ltac:(eassumption)) as VF.
    pose proof (cwalk_sound _ _ _ _ _ _ Ew ltac:(eassumption)) as VC.
    pose proof (qexpr_nodiv G _ _ _ _ _ (ecost_sound G tab Htab _ _ _ _ _ Ec)) as Hq.
    destruct B as [P' D' Q']; destruct (dpost d1) as [P D Qn];
      destruct (dpre d2) as [PB0 DB0 I]; destruct (dpost d2) as [PB DB QB'].
    cbn [aP aD aQ] in *. subst DB0 DB.
    eapply (cap_guard_valid_FC G HWU); eauto.
  - (* DWhileExitCap *)
    destruct s as [| | | | | | e b |]; try (apply chk_valid; exact H).
    cexit_facts H. eapply (cap_exit_valid_FC G HWU); eauto.
  - (* DWhileExitCap2 *)
    destruct s as [| | | | | | e b |]; try (apply chk_valid; exact H).
    cexit_facts H. eapply (cap_exit2_valid_FC G HWU); eauto.
Qed.

End CapCheck.

(** ** The root with the capped loops: [check_root] with [ccheck] *)
Definition ccheck_root (G : ctx) (tab : ntab) (body : stmt) (d : dtree) (bound : pot) : bool :=
  root_chk G tab (ccheck G tab) body d bound.

(** [Check.bound_sound] for [ccheck_root]: [Check.root_sound] with [ccheck_valid]. *)
Theorem cbound_sound : forall G tab body d bound, ccheck_root G tab body d bound = true ->
  forall F ps arrays w s' C, pok G ps -> launch_ok G ps ->
  lanes G w <> [] -> seval G F ps (init_store G arrays) body (lanes G w) s' C ->
  C <= pval (rho_params ps) bound.
Proof.
  intros G tab. refine (root_sound G tab (ccheck G tab) _). intros Htab HWU s d.
  exact (ccheck_valid G tab _ Htab eq_refl HWU d s).
Qed.

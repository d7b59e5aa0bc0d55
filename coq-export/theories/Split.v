(** * Lane subsets: rule L:IFSPLIT (spec/logic.md §4b "Lane subsets", issue 14)

    A lower judgment [Lower.lvalid] is about a fixed thread list [T]; L:IFSPLIT's
    premises are lower judgments about two other lists, the lanes [T1] where the test is
    true and the lanes [T2] where it is false.  [L_IFSPLIT] is the rule's soundness: when
    on every store of [P] the test's true lanes are exactly [T1] and its false lanes
    exactly [T2] (both non-empty), the only lock-step step is [SC_IFD], which runs [s1] on
    [T1] and then [s2] on [T2] from the store [s1] left; with constant potentials the
    branches' bounds add up.  [rem_zero_iff] is why the kernel's lane sets are the true
    lanes: a value [v] with [−m < v < m] and [v ≡ a (mod m)] (a remainder entry
    [(rem x k r m)], [a = k·tid + r]) is [0] exactly when [m | a].

    [L_IFSPLIT_R] is the form [LowerCheck.lcheck_sound] uses (its [DIfSplit] case,
    lowersplit19): the branch pres stated for the test's evaluation at hand.

    No axiom; every proof is closed. *)

From Coq Require Import ZArith QArith List Lia Lqa.
From WarpCert Require Import Metric Syntax Semantics Lower.
Import ListNotations.

Open Scope Q_scope.

(** The remainder entry decides the test [x == 0] lane by lane. *)
Lemma rem_zero_iff : forall v a m : Z,
  (0 < m)%Z -> (- m < v < m)%Z -> (v mod m = a mod m)%Z ->
  (v = 0 <-> a mod m = 0)%Z.
Proof.
  intros v a m Hm Hv Heq. rewrite <- Heq. split.
  - intros ->. apply Z.mod_0_l. lia.
  - intros H0. apply Z.mod_divide in H0; [|lia]. destruct H0 as [q Hq].
    assert (q = 0)%Z by nia. subst q. lia.
Qed.

(** L:IFSPLIT, semantically.  [P] is the if's pre on [T]; on every store of [P] the test
    [e] costs at least [c] on [T] and its true and false lanes are [T1] and [T2], both
    non-empty ([Hsplit]: the kernel's [split_set]); [P1] holds on every store of [P]
    (the kernel's [P ∧ e ⇒ P1], [D ⊒ D1] on the lanes of [T1]) and [P2] on every store
    [s1] leaves from one of [P] on [T1] (the locals of [T2]'s threads are unchanged:
    [P ∧ ¬e ⇒ P2], [D ⊒ D2]); the branches are lower judgments on [T1] and [T2] with
    constant potentials [a1 − b1] and [a2 − b2]; the frame [Hf] is L:IFD's. *)
Lemma L_IFSPLIT : forall G F ps (T T1 T2 : list nat) (P P' P1 P1' P2 P2' : assn) (I' : pot)
    e s1 s2 (c a1 b1 a2 b2 : Q),
  T1 <> [] -> T2 <> [] ->
  elow G F ps T P e c ->
  (forall st R C, P st -> eeval G F ps st e T R C ->
     filter (fun t => is_true_v (R t)) T = T1 /\ filter (fun t => is_false_v (R t)) T = T2) ->
  (forall st, P st -> P1 st) ->
  (forall st st1 C, P st -> seval G F ps st s1 T1 st1 C -> P2 st1) ->
  lvalid G F ps T1 P1 (fun _ => a1) s1 P1' (fun _ => b1) ->
  lvalid G F ps T2 P2 (fun _ => a2) s2 P2' (fun _ => b2) ->
  (forall st st' C, P st -> seval G F ps st (SIf e s1 s2) T st' C -> P' st' /\ I' st == I' st') ->
  lvalid G F ps T P
    (fun st => I' st + m_if (c_metric G) + c + m_div (c_metric G) + (a1 - b1) + (a2 - b2))
    (SIf e s1 s2) P' I'.
Proof.
  intros G F ps T T1 T2 P P' P1 P1' P2 P2' I' e s1 s2 c a1 b1 a2 b2
    HT1 HT2 Hc Hsplit Hp1 Hp2 H1 H2 Hf st st' C HP Hs.
  destruct (Hf _ _ _ HP Hs) as [HP' HI]. split; [exact HP'|].
  inversion Hs; subst;
    match goal with He : eeval _ _ _ st e _ ?R ?C1 |- _ =>
      assert (c <= C1) by (eapply Hc; eauto);
      destruct (Hsplit _ _ _ HP He) as [E1 E2] end.
  - (* SC_IFT: every lane true, but T2, the false lanes, is not empty *)
    exfalso. apply HT2. rewrite <- E2. apply filter_nil_of_all. intros t Ht.
    match goal with Hall : forall t, In t T -> is_true_v _ = true |- _ =>
      apply true_not_false, Hall, Ht end.
  - (* SC_IFF: every lane false, but T1, the true lanes, is not empty *)
    exfalso. apply HT1. rewrite <- E1. apply filter_nil_of_all. intros t Ht.
    match goal with Hall : forall t, In t T -> is_false_v _ = true |- _ =>
      apply false_not_true, Hall, Ht end.
  - (* SC_IFD: s1 on T1, then s2 on T2 from the store s1 left *)
    rewrite E1 in *. rewrite E2 in *.
    match goal with Hb : seval _ _ _ st s1 T1 ?st1 ?C2 |- _ =>
      destruct (H1 _ _ _ (Hp1 _ HP) Hb) as [_ K1];
      pose proof (Hp2 _ _ _ HP Hb) as HP2 end.
    match goal with Hb : seval _ _ _ _ s2 T2 _ ?C3 |- _ =>
      destruct (H2 _ _ _ HP2 Hb) as [_ K2] end.
    lra.
Qed.

(** [L_IFSPLIT] with the premises about the branches' pres stated for the test's
    evaluation at hand (the form [LowerCheck.lcheck_sound] uses, issue 14
    lowersplit19): on every store of [P] and every evaluation [R] of [e] on [T], the true
    and false lanes are [T1] and [T2], [P1] holds and [P2] holds on every store [s1]
    leaves on [T1] (the pres [P ∧ e] and [P ∧ ¬e] hold on the lanes where the evaluated
    test is true or false). *)
Lemma L_IFSPLIT_R : forall G F ps (T T1 T2 : list nat) (P P' P1 P1' P2 P2' : assn) (I' : pot)
    e s1 s2 (c a1 b1 a2 b2 : Q),
  T1 <> [] -> T2 <> [] ->
  elow G F ps T P e c ->
  (forall st R C, P st -> eeval G F ps st e T R C ->
     filter (fun t => is_true_v (R t)) T = T1 /\ filter (fun t => is_false_v (R t)) T = T2 /\
     P1 st /\ (forall st1 C1, seval G F ps st s1 T1 st1 C1 -> P2 st1)) ->
  lvalid G F ps T1 P1 (fun _ => a1) s1 P1' (fun _ => b1) ->
  lvalid G F ps T2 P2 (fun _ => a2) s2 P2' (fun _ => b2) ->
  (forall st st' C, P st -> seval G F ps st (SIf e s1 s2) T st' C -> P' st' /\ I' st == I' st') ->
  lvalid G F ps T P
    (fun st => I' st + m_if (c_metric G) + c + m_div (c_metric G) + (a1 - b1) + (a2 - b2))
    (SIf e s1 s2) P' I'.
Proof.
  intros G F ps T T1 T2 P P' P1 P1' P2 P2' I' e s1 s2 c a1 b1 a2 b2
    HT1 HT2 Hc Hsplit H1 H2 Hf st st' C HP Hs.
  destruct (Hf _ _ _ HP Hs) as [HP' HI]. split; [exact HP'|].
  inversion Hs; subst;
    match goal with He : eeval _ _ _ st e _ ?R ?C1 |- _ =>
      assert (c <= C1) by (eapply Hc; eauto);
      destruct (Hsplit _ _ _ HP He) as [E1 [E2 [Hp1 Hp2]]] end.
  - exfalso. apply HT2. rewrite <- E2. apply filter_nil_of_all. intros t Ht.
    match goal with Hall : forall t, In t T -> is_true_v _ = true |- _ =>
      apply true_not_false, Hall, Ht end.
  - exfalso. apply HT1. rewrite <- E1. apply filter_nil_of_all. intros t Ht.
    match goal with Hall : forall t, In t T -> is_false_v _ = true |- _ =>
      apply false_not_true, Hall, Ht end.
  - rewrite E1 in *. rewrite E2 in *.
    match goal with Hb : seval _ _ _ st s1 T1 ?st1 ?C2 |- _ =>
      destruct (H1 _ _ _ Hp1 Hb) as [_ K1];
      pose proof (Hp2 _ _ Hb) as HP2 end.
    match goal with Hb : seval _ _ _ _ s2 T2 _ ?C3 |- _ =>
      destruct (H2 _ _ _ HP2 Hb) as [_ K2] end.
    lra.
Qed.

(** * L:IFLANES (spec/logic.md §4b "Lane subsets", issue 14, reduce1's guard)

    The kernel's [lanes_set] evaluates a comparison of exact values [k·tid + r] on each lane
    of [T], so the test's value on lane [t] is a known boolean [f t]: its true lanes are
    [filter f T] and its false lanes the others ([lanes_filter]).  When both are non-empty
    the rule is [L_IFSPLIT]; when every lane is true ([T2 = ∅]) the step is [SC_IFT] and the
    then branch runs on all of [T] ([L_IFLANES_ALL]); when every lane is false, [SC_IFF]
    ([L_IFLANES_NONE]).  Constant branch potentials, L:IFD's frame, as [L_IFSPLIT]. *)

(** A test whose value on every lane [t] of [T] is [VBool (f t)] has the true lanes
    [filter f T] and the false lanes [filter (negb ∘ f) T]. *)
Lemma lanes_filter : forall (R : nat -> val) (f : nat -> bool) (T : list nat),
  (forall t, In t T -> R t = VBool (f t)) ->
  filter (fun t => is_true_v (R t)) T = filter f T /\
  filter (fun t => is_false_v (R t)) T = filter (fun t => negb (f t)) T.
Proof.
  intros R f T H. split; apply filter_ext_in; intros t Ht; rewrite (H t Ht);
    destruct (f t); reflexivity.
Qed.

(** L:IFLANES with [T2 = ∅]: the test is true on every lane of the non-empty [T]; [SC_IFF]
    and [SC_IFD] (which needs a false lane) are impossible, and [SC_IFT] runs [s1] on all of
    [T], costing at least [a1 − b1] from [P1] ([P ∧ e ⇒ P1]). *)
Lemma L_IFLANES_ALL : forall G F ps (T : list nat) (P P' P1 P1' : assn) (I' : pot)
    e s1 s2 (c a1 b1 : Q),
  T <> [] ->
  elow G F ps T P e c ->
  (forall st R C, P st -> eeval G F ps st e T R C -> forall t, In t T -> is_true_v (R t) = true) ->
  (forall st, P st -> P1 st) ->
  lvalid G F ps T P1 (fun _ => a1) s1 P1' (fun _ => b1) ->
  (forall st st' C, P st -> seval G F ps st (SIf e s1 s2) T st' C -> P' st' /\ I' st == I' st') ->
  lvalid G F ps T P (fun st => I' st + m_if (c_metric G) + c + (a1 - b1)) (SIf e s1 s2) P' I'.
Proof.
  intros G F ps T P P' P1 P1' I' e s1 s2 c a1 b1 HT Hc Hd Hp1 H1 Hf st st' C HP Hs.
  destruct (Hf _ _ _ HP Hs) as [HP' HI]. split; [exact HP'|].
  assert (Hin : exists t0, In t0 T) by (destruct T as [|t0 T0]; [congruence | exists t0; left; auto]).
  destruct Hin as [t0 Hin].
  inversion Hs; subst;
    match goal with He : eeval _ _ _ st e _ ?R ?C1 |- _ =>
      assert (c <= C1) by (eapply Hc; eauto); pose proof (Hd _ _ _ HP He) as Hall end.
  - match goal with Hb : seval _ _ _ st s1 T _ _ |- _ =>
      destruct (H1 _ _ _ (Hp1 _ HP) Hb) as [_ K1] end.
    lra.
  - exfalso. match goal with Hf0 : forall t, In t T -> is_false_v _ = true |- _ =>
      pose proof (Hf0 t0 Hin) as F0 end.
    rewrite (true_not_false _ (Hall t0 Hin)) in F0. discriminate.
  - exfalso. match goal with Hn : filter (fun t => is_false_v _) _ <> [] |- _ => apply Hn end.
    apply filter_nil_of_all. intros t Ht. apply true_not_false, Hall, Ht.
Qed.

(** L:IFLANES with [T1 = ∅]: the test is false on every lane; [SC_IFF] runs [s2] on all of
    [T], costing at least [a2 − b2] from [P2] ([P ∧ ¬e ⇒ P2]). *)
Lemma L_IFLANES_NONE : forall G F ps (T : list nat) (P P' P2 P2' : assn) (I' : pot)
    e s1 s2 (c a2 b2 : Q),
  T <> [] ->
  elow G F ps T P e c ->
  (forall st R C, P st -> eeval G F ps st e T R C -> forall t, In t T -> is_false_v (R t) = true) ->
  (forall st, P st -> P2 st) ->
  lvalid G F ps T P2 (fun _ => a2) s2 P2' (fun _ => b2) ->
  (forall st st' C, P st -> seval G F ps st (SIf e s1 s2) T st' C -> P' st' /\ I' st == I' st') ->
  lvalid G F ps T P (fun st => I' st + m_if (c_metric G) + c + (a2 - b2)) (SIf e s1 s2) P' I'.
Proof.
  intros G F ps T P P' P2 P2' I' e s1 s2 c a2 b2 HT Hc Hd Hp2 H2 Hf st st' C HP Hs.
  destruct (Hf _ _ _ HP Hs) as [HP' HI]. split; [exact HP'|].
  assert (Hin : exists t0, In t0 T) by (destruct T as [|t0 T0]; [congruence | exists t0; left; auto]).
  destruct Hin as [t0 Hin].
  inversion Hs; subst;
    match goal with He : eeval _ _ _ st e _ ?R ?C1 |- _ =>
      assert (c <= C1) by (eapply Hc; eauto); pose proof (Hd _ _ _ HP He) as Hall end.
  - exfalso. match goal with Ht0 : forall t, In t T -> is_true_v _ = true |- _ =>
      pose proof (Ht0 t0 Hin) as T0 end.
    rewrite (false_not_true _ (Hall t0 Hin)) in T0. discriminate.
  - match goal with Hb : seval _ _ _ st s2 T _ _ |- _ =>
      destruct (H2 _ _ _ (Hp2 _ HP) Hb) as [_ K2] end.
    lra.
  - exfalso. match goal with Hn : filter (fun t => is_true_v _) _ <> [] |- _ => apply Hn end.
    apply filter_nil_of_all. intros t Ht. apply false_not_true, Hall, Ht.
Qed.

(** [L_IFLANES_ALL] and [L_IFLANES_NONE] with the branch's pre stated for the test's
    evaluation at hand (the form [LowerCheck.lcheck_sound] uses, its [DIfLanes] case,
    iflanescoq19): the pre [P ∧ e] ([P ∧ ¬e]) holds on the lanes where the evaluated test
    is true (false). *)
Lemma L_IFLANES_ALL_R : forall G F ps (T : list nat) (P P' P1 P1' : assn) (I' : pot)
    e s1 s2 (c a1 b1 : Q),
  T <> [] ->
  elow G F ps T P e c ->
  (forall st R C, P st -> eeval G F ps st e T R C ->
     (forall t, In t T -> is_true_v (R t) = true) /\ P1 st) ->
  lvalid G F ps T P1 (fun _ => a1) s1 P1' (fun _ => b1) ->
  (forall st st' C, P st -> seval G F ps st (SIf e s1 s2) T st' C -> P' st' /\ I' st == I' st') ->
  lvalid G F ps T P (fun st => I' st + m_if (c_metric G) + c + (a1 - b1)) (SIf e s1 s2) P' I'.
Proof.
  intros G F ps T P P' P1 P1' I' e s1 s2 c a1 b1 HT Hc Hd H1 Hf st st' C HP Hs.
  destruct (Hf _ _ _ HP Hs) as [HP' HI]. split; [exact HP'|].
  assert (Hin : exists t0, In t0 T) by (destruct T as [|t0 T0]; [congruence | exists t0; left; auto]).
  destruct Hin as [t0 Hin].
  inversion Hs; subst;
    match goal with He : eeval _ _ _ st e _ ?R ?C1 |- _ =>
      assert (c <= C1) by (eapply Hc; eauto); destruct (Hd _ _ _ HP He) as [Hall Hp1] end.
  - match goal with Hb : seval _ _ _ st s1 T _ _ |- _ =>
      destruct (H1 _ _ _ Hp1 Hb) as [_ K1] end.
    lra.
  - exfalso. match goal with Hf0 : forall t, In t T -> is_false_v _ = true |- _ =>
      pose proof (Hf0 t0 Hin) as F0 end.
    rewrite (true_not_false _ (Hall t0 Hin)) in F0. discriminate.
  - exfalso. match goal with Hn : filter (fun t => is_false_v _) _ <> [] |- _ => apply Hn end.
    apply filter_nil_of_all. intros t Ht. apply true_not_false, Hall, Ht.
Qed.

Lemma L_IFLANES_NONE_R : forall G F ps (T : list nat) (P P' P2 P2' : assn) (I' : pot)
    e s1 s2 (c a2 b2 : Q),
  T <> [] ->
  elow G F ps T P e c ->
  (forall st R C, P st -> eeval G F ps st e T R C ->
     (forall t, In t T -> is_false_v (R t) = true) /\ P2 st) ->
  lvalid G F ps T P2 (fun _ => a2) s2 P2' (fun _ => b2) ->
  (forall st st' C, P st -> seval G F ps st (SIf e s1 s2) T st' C -> P' st' /\ I' st == I' st') ->
  lvalid G F ps T P (fun st => I' st + m_if (c_metric G) + c + (a2 - b2)) (SIf e s1 s2) P' I'.
Proof.
  intros G F ps T P P' P2 P2' I' e s1 s2 c a2 b2 HT Hc Hd H2 Hf st st' C HP Hs.
  destruct (Hf _ _ _ HP Hs) as [HP' HI]. split; [exact HP'|].
  assert (Hin : exists t0, In t0 T) by (destruct T as [|t0 T0]; [congruence | exists t0; left; auto]).
  destruct Hin as [t0 Hin].
  inversion Hs; subst;
    match goal with He : eeval _ _ _ st e _ ?R ?C1 |- _ =>
      assert (c <= C1) by (eapply Hc; eauto); destruct (Hd _ _ _ HP He) as [Hall Hp2] end.
  - exfalso. match goal with Ht0 : forall t, In t T -> is_true_v _ = true |- _ =>
      pose proof (Ht0 t0 Hin) as T0 end.
    rewrite (false_not_true _ (Hall t0 Hin)) in T0. discriminate.
  - match goal with Hb : seval _ _ _ st s2 T _ _ |- _ =>
      destruct (H2 _ _ _ Hp2 Hb) as [_ K2] end.
    lra.
  - exfalso. match goal with Hn : filter (fun t => is_true_v _) _ <> [] |- _ => apply Hn end.
    apply filter_nil_of_all. intros t Ht. apply false_not_true, Hall, Ht.
Qed.

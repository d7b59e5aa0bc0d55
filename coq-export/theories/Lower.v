(** * The lower-bound rules (spec/logic.md §4b, issue 14), sound against Semantics.v

    A lower judgment is about one fixed list [T] of threads (the lanes of the named warp,
    [lanes G w]) that stays the active set: [lvalid P I s P' I'] means that every run of
    [s] on [T] from a store satisfying [P] ends in a store satisfying [P'] and costs at
    least [I] before minus [I'] after.  Assertions and potentials are semantic here
    (predicates and rational functions of the store); each lemma [L_NAME] below is the
    rule [L:NAME] with the kernel's syntactic side conditions replaced by the semantic
    facts they establish (an entailment by its implication, a substitution by the
    equation it gives, [N ≤ N_W] by [N ≤ memreads] on every store of [P]).

    LowerCheck.v links the kernel's syntactic checks (Farkas witnesses, the [N_W]
    enumeration, [Q'[x ← e]], equality rewrites) to these semantic premises: its checker
    [lcheck] is sound by these lemmas ([lcheck_sound], [lower_bound_sound]), and
    [warpcert export-coq] exports lower certificates to it.  No axiom; every proof is
    closed. *)
From Coq Require Import ZArith QArith List Bool Lia Lqa.
From WarpCert Require Import Metric Syntax Semantics.
Import ListNotations.
Open Scope Q_scope.

(** ** Every run's cost is non-negative on a non-empty thread list

    The metric's constant costs are non-negative ([m_nonneg]) and so is an access of
    count 1 ([m_acc1]), hence by [m_mono] every access of a non-empty thread list, whose
    [MemReads] and [Conflicts] are at least 1.  The rule L:IFD charges a divergent [if]'s
    branches nothing by this lemma. *)
Lemma memreads_pos : forall G es T R, T <> [] -> (1 <= memreads G es T R)%Z.
Proof.
  intros G es T R HT. destruct T as [|t0 T0]; [congruence|]. unfold memreads.
  set (f := fun t => (int_of (R t) * es / c_sector_bytes G)%Z).
  assert (Hin : In (f t0) (nodup Z.eq_dec (map f (t0 :: T0))))
    by (apply nodup_In, in_map; left; reflexivity).
  destruct (nodup Z.eq_dec (map f (t0 :: T0))); [contradiction | simpl; lia].
Qed.

Lemma fold_max_ge : forall (l : list Z) x, In x l -> (x <= fold_right Z.max 0 l)%Z.
Proof.
  intros l x; induction l as [|a l IH]; simpl; [contradiction|].
  intros [<-|H]; [lia|]. specialize (IH H). lia.
Qed.

Lemma conflicts_pos : forall G es T R, T <> [] -> (1 <= conflicts_of G es T R)%Z.
Proof.
  intros G es T R HT. destruct T as [|t0 T0]; [congruence|]. unfold conflicts_of.
  set (idx := nodup Z.eq_dec (map (fun t => int_of (R t)) (t0 :: T0))).
  set (v0 := int_of (R t0)).
  assert (Hv : In v0 idx) by (apply nodup_In, (in_map (fun t => int_of (R t))); left; auto).
  eapply Z.le_trans; [|apply fold_max_ge, in_map_iff;
    exists (bank G es v0); split; [reflexivity | apply in_map; exact Hv]].
  assert (Hf : In v0 (filter (fun i => (bank G es i =? bank G es v0)%Z) idx))
    by (apply filter_In; split; [exact Hv | apply Z.eqb_refl]).
  destruct (filter _ idx); [contradiction | simpl; lia].
Qed.

Lemma access_nonneg : forall (M : metric) n, (1 <= n)%Z ->
  0 <= m_gread M n /\ 0 <= m_sread M n /\ 0 <= m_gwrite M n /\ 0 <= m_swrite M n.
Proof.
  intros M n H. destruct (m_acc1 M) as (A1 & A2 & A3 & A4).
  destruct (m_mono M 1 n H) as (B1 & B2 & B3 & B4). repeat split; lra.
Qed.

Lemma oeval_nonneg : forall G s o T C, oeval G s o T C -> 0 <= C.
Proof.
  intros G s o T C H. destruct (m_nonneg (c_metric G)) as (A1 & A2 & A3 & _).
  inversion H; subst; auto.
Qed.

Lemma eeval_nonneg : forall G F ps s e T R C, T <> [] -> eeval G F ps s e T R C -> 0 <= C.
Proof.
  intros G F ps s e T R C HT H. destruct (m_nonneg (c_metric G)) as (A1 & A2 & A3 & A4 & _).
  inversion H; subst;
    repeat match goal with Ho : oeval _ _ _ _ ?C0 |- _ =>
      pose proof (oeval_nonneg _ _ _ _ _ Ho); clear Ho end.
  - lra.
  - lra.
  - lra.
  - match goal with |- context [memreads ?G' ?es' ?T' ?R'] =>
      destruct (access_nonneg (c_metric G) _ (memreads_pos G' es' T' R' HT)) end. lra.
  - match goal with |- context [conflicts_of ?G' ?es' ?T' ?R'] =>
      destruct (access_nonneg (c_metric G) _ (conflicts_pos G' es' T' R' HT))
        as (_ & ? & _) end. lra.
  - lra.
Qed.

Lemma seval_nonneg : forall G F ps s st T s' C, seval G F ps s st T s' C -> T <> [] -> 0 <= C.
Proof.
  intros G F ps s st T s' C H.
  destruct (m_nonneg (c_metric G)) as (A1 & A2 & A3 & A4 & A5 & A6 & A7 & A8).
  induction H; intros HT;
    repeat match goal with Ho : oeval _ _ _ _ ?C0 |- _ =>
      pose proof (oeval_nonneg _ _ _ _ _ Ho); clear Ho end;
    repeat match goal with He : eeval _ _ _ _ _ _ _ ?C0 |- _ =>
      pose proof (eeval_nonneg _ _ _ _ _ _ _ _ HT He); clear He end.
  - lra.
  - specialize (IHseval1 HT). specialize (IHseval2 HT). lra.
  - lra.
  - match goal with |- context [memreads ?G' ?es' ?T' ?R'] =>
      destruct (access_nonneg (c_metric G) _ (memreads_pos G' es' T' R' HT))
        as (_ & _ & ? & _) end. lra.
  - match goal with |- context [conflicts_of ?G' ?es' ?T' ?R'] =>
      destruct (access_nonneg (c_metric G) _ (conflicts_pos G' es' T' R' HT))
        as (_ & _ & _ & ?) end. lra.
  - lra.
  - specialize (IHseval HT). lra.
  - specialize (IHseval HT). lra.
  - assert (0 <= C2) by (apply IHseval1; assumption).
    assert (0 <= C3) by (apply IHseval2; assumption). lra.
  - specialize (IHseval1 HT). specialize (IHseval2 HT). lra.
  - assert (0 <= C2) by (apply IHseval1; assumption).
    assert (0 <= C3) by (apply IHseval2; assumption). lra.
  - lra.
  - lra.
  - lra.
  - lra.
Qed.

(** ** The minimum cost of a statement on any non-empty thread list (rule L:IFDT)

    [sminc G s] (spec/logic.md §4b, [minc]): every run of [s] on a non-empty thread list
    costs at least it.  An operand costs its constant; an expression its operands, [M^op],
    and an access of count 1 ([m_mono]: every non-empty list touches at least one sector,
    its fullest bank at least one address); a sequence the sum; an [if] or a [while] its
    test and [M^if] (the branches and the body at least 0, [seval_nonneg]); a warp
    operation 0.  The kernel computes the same function (kernel/src/rules/lower.rs
    [minc]). *)
Definition ominc (M : metric) (o : opd) : Q :=
  match o with OVar _ | OTid _ => m_var M | OConst _ => m_const M | OParam _ => m_param M end.

Definition acc1 (G : ctx) (A : nat) (write : bool) : Q :=
  let M := c_metric G in
  match c_arr G A with
  | Some (Global, _) => if write then m_gwrite M 1 else m_gread M 1
  | Some (Shared, _) => if write then m_swrite M 1 else m_sread M 1
  | Some (Local, _) => if write then m_vwrite M else m_var M
  | None => 0
  end.

Definition eminc (G : ctx) (e : expr) : Q :=
  let M := c_metric G in
  match e with
  | EOpd o => ominc M o
  | EBin _ a b => ominc M a + ominc M b + m_op M
  | EUn _ a => ominc M a + m_op M
  | ERead A i => ominc M i + acc1 G A false
  end.

Fixpoint sminc (G : ctx) (s : stmt) : Q :=
  let M := c_metric G in
  match s with
  | SSkip | SWarp _ _ => 0
  | SSync => m_sync M
  | SSeq s1 s2 => sminc G s1 + sminc G s2
  | SAssign _ e => eminc G e + m_vwrite M
  | SWrite A i e => ominc M i + eminc G e + acc1 G A true
  | SIf e _ _ | SWhile e _ => eminc G e + m_if M
  end.

Lemma oeval_minc : forall G s o T C, oeval G s o T C -> C == ominc (c_metric G) o.
Proof. intros G s o T C H. inversion H; subst; reflexivity. Qed.

Lemma eeval_minc : forall G F ps s e T R C, T <> [] -> eeval G F ps s e T R C -> eminc G e <= C.
Proof.
  intros G F ps s e T R C HT H.
  inversion H; subst; unfold eminc, acc1;
    repeat match goal with Ho : oeval _ _ _ _ ?C0 |- _ =>
      pose proof (oeval_minc _ _ _ _ _ Ho); clear Ho end;
    repeat match goal with Ha : c_arr _ _ = _ |- _ => rewrite Ha; clear Ha end;
    cbn beta iota zeta.
  - lra.
  - lra.
  - lra.
  - match goal with |- context [memreads ?G' ?es' ?T' ?R'] =>
      destruct (m_mono (c_metric G) _ _ (memreads_pos G' es' T' R' HT)) as (B & _) end. lra.
  - match goal with |- context [conflicts_of ?G' ?es' ?T' ?R'] =>
      destruct (m_mono (c_metric G) _ _ (conflicts_pos G' es' T' R' HT)) as (_ & B & _) end. lra.
  - lra.
Qed.

Lemma seval_minc : forall G F ps s st T s' C, seval G F ps s st T s' C -> T <> [] ->
  sminc G st <= C.
Proof.
  intros G F ps s st T s' C H.
  destruct (m_nonneg (c_metric G)) as (A1 & A2 & A3 & A4 & A5 & A6 & A7 & A8).
  induction H; intros HT; cbn [sminc]; unfold acc1;
    repeat match goal with Ho : oeval _ _ _ _ ?C0 |- _ =>
      pose proof (oeval_minc _ _ _ _ _ Ho); pose proof (oeval_nonneg _ _ _ _ _ Ho); clear Ho end;
    repeat match goal with He : eeval _ _ _ _ ?e0 _ _ ?C0 |- _ =>
      pose proof (eeval_minc _ _ _ _ _ _ _ _ HT He); clear He end;
    repeat match goal with Ha : c_arr _ _ = _ |- _ => rewrite Ha; clear Ha end;
    cbn beta iota zeta;
    repeat match goal with Hb : seval _ _ _ _ _ ?T0 _ ?C0 |- _ =>
      let HT0 := fresh in
      assert (HT0 : T0 <> []) by first [exact HT | assumption];
      pose proof (seval_nonneg _ _ _ _ _ _ _ _ Hb HT0); clear Hb end.
  - lra.
  - specialize (IHseval1 HT). specialize (IHseval2 HT). lra.
  - lra.
  - match goal with |- context [memreads ?G' ?es' ?T' ?R'] =>
      destruct (m_mono (c_metric G) _ _ (memreads_pos G' es' T' R' HT)) as (_ & _ & B & _) end. lra.
  - match goal with |- context [conflicts_of ?G' ?es' ?T' ?R'] =>
      destruct (m_mono (c_metric G) _ _ (conflicts_pos G' es' T' R' HT)) as (_ & _ & _ & B) end. lra.
  - lra.
  - lra.
  - lra.
  - lra.
  - lra.
  - lra.
  - lra.
  - lra.
  - lra.
  - lra.
Qed.

Section Lower.
Variable G : ctx.
Variable F : fmodel.
Variable ps : nat -> val.
Variable T : list nat.
Let M := c_metric G.

Definition assn := store -> Prop.
Definition pot := store -> Q.

(** [⊢ᴸ {P; I} s {P'; I'}]. *)
Definition lvalid (P : assn) (I : pot) (s : stmt) (P' : assn) (I' : pot) : Prop :=
  forall st st' C, P st -> seval G F ps st s T st' C -> P' st' /\ I st - I' st' <= C.

(** [c] is a lower bound on the cost of [e] on [T] from every store of [P]. *)
Definition elow (P : assn) (e : expr) (c : Q) : Prop :=
  forall st R C, P st -> eeval G F ps st e T R C -> c <= C.

(** [P ⇒ e unif], semantically: on every store of [P] the test has one value on all of
    [T]; [PT]/[PF] hold after a true/false test (the kernel's [P ∧ e], [P ∧ ¬e]). *)
Definition uniform_test (P : assn) (e : expr) (PT PF : assn) : Prop :=
  forall st R C, P st -> eeval G F ps st e T R C ->
    (forall t t', In t T -> In t' T -> R t = R t') /\
    ((forall t, In t T -> is_true_v (R t) = true) -> PT st) /\
    ((forall t, In t T -> is_false_v (R t) = true) -> PF st).

Lemma filter_nil_of_all : forall (f : nat -> bool) (L : list nat),
  (forall t, In t L -> f t = false) -> filter f L = [].
Proof.
  intros f L H. induction L as [|a L IH]; simpl; auto.
  rewrite H by (left; auto). apply IH. intros t Ht. apply H. right; auto.
Qed.

Lemma true_not_false : forall v, is_true_v v = true -> is_false_v v = false.
Proof. intros [z|[|]|b]; simpl; congruence. Qed.
Lemma false_not_true : forall v, is_false_v v = true -> is_true_v v = false.
Proof. intros [z|[|]|b]; simpl; congruence. Qed.

(** L:SKIP *)
Lemma L_SKIP : forall (P : assn) (I : pot), lvalid P I SSkip P I.
Proof. intros P I st st' C HP Hs. inversion Hs; subst. split; auto. lra. Qed.

(** L:SYNC *)
Lemma L_SYNC : forall (P : assn) (I' : pot), lvalid P (fun st => I' st + m_sync M) SSync P I'.
Proof. intros P I' st st' C HP Hs. inversion Hs; subst. split; auto. unfold M. lra. Qed.

(** L:SEQ *)
Lemma L_SEQ : forall (P : assn) (I : pot) s1 (P1 : assn) (I1 : pot) s2 (P2 : assn) (I2 : pot),
  lvalid P I s1 P1 I1 -> lvalid P1 I1 s2 P2 I2 -> lvalid P I (SSeq s1 s2) P2 I2.
Proof.
  intros P I s1 P1 I1 s2 P2 I2 H1 H2 st st' C HP Hs. inversion Hs; subst.
  match goal with A : seval _ _ _ _ s1 T ?m _, B : seval _ _ _ ?m s2 T _ _ |- _ =>
    destruct (H1 _ _ _ HP A) as [HP1 Hc1]; destruct (H2 _ _ _ HP1 B) as [HP2 Hc2] end.
  split; auto. lra.
Qed.

(** L:WEAK: [Q ≤ N.Q + F] under [P], [N.Q' + F ≤ Q'] under [N.P'] (equality rewrites
    establish these inequalities; [mono] would not). *)
Lemma L_WEAK : forall (P : assn) (I : pot) s (P' : assn) (I' : pot) (P1 : assn) (I1 : pot)
  (P1' : assn) (I1' : pot) (f : Q),
  (forall st, P st -> P1 st /\ I st <= I1 st + f) ->
  lvalid P1 I1 s P1' I1' ->
  (forall st, P1' st -> P' st /\ I1' st + f <= I' st) ->
  lvalid P I s P' I'.
Proof.
  intros P I s P' I' P1 I1 P1' I1' f Hpre H Hpost st st' C HP Hs.
  destruct (Hpre st HP) as [HP1 Hq]. destruct (H _ _ _ HP1 Hs) as [HP1' Hc].
  destruct (Hpost st' HP1') as [HP' Hq']. split; auto. lra.
Qed.

(** L:VWRITE1/L:VWRITE2: the potential before is the one after the assignment plus its
    cost (the kernel's [Q = Q'[x ← lin_P(e)] + M^vwrite + C], exact substitution). *)
Lemma L_VWRITE : forall (P P' : assn) (I' : pot) x e (c : Q) (I : pot),
  elow P e c ->
  (forall st R C ty, P st -> eeval G F ps st e T R C -> c_lty G x = Some ty ->
     (forall t, In t T -> has_type (R t) ty = true) ->
     P' (set_local st x T R) /\ I st <= I' (set_local st x T R) + m_vwrite M + c) ->
  lvalid P I (SAssign x e) P' I'.
Proof.
  intros P P' I' x e c I He Hq st st' C HP Hs. inversion Hs; subst.
  match goal with Hee : eeval _ _ _ _ e _ _ _, Hty : c_lty G x = Some _,
                  Hh : forall t, In t _ -> has_type _ _ = true |- _ =>
    destruct (Hq st R _ _ HP Hee Hty Hh) as [HP' Hle] end. split; auto.
  assert (c <= C0) by (eapply He; eauto). unfold M in *. lra.
Qed.

(** Assertions and potentials about the locals only (the kernel's: they mention locals,
    parameters and thread indices, never arrays). *)
Definition alocal (P : assn) : Prop := forall s1 s2, sl s1 = sl s2 -> P s1 -> P s2.
Definition plocal (I : pot) : Prop := forall s1 s2, sl s1 = sl s2 -> I s1 == I s2.

(** L:GWRITE: a claimed count [n] at most the warp's [MemReads] on every store of [P]
    (the kernel's [N ≤ N_W]); [M^gwrite] is monotone (Metric.v, [m_mono]). *)
Lemma L_GWRITE : forall (P : assn) (I' : pot) A i e es (n : Z) (c1 c2 : Q),
  alocal P -> plocal I' -> c_arr G A = Some (Global, es) ->
  (forall st, P st -> (n <= memreads G es T (oval G ps st i))%Z) ->
  (forall st C, P st -> oeval G st i T C -> c1 <= C) -> elow P e c2 ->
  lvalid P (fun st => I' st + m_gwrite M n + c1 + c2) (SWrite A i e) P I'.
Proof.
  intros P I' A i e es n c1 c2 HlP HlI HA Hn Hc1 Hc2 st st' C HP Hs. inversion Hs; subst;
    match goal with H1 : c_arr G A = Some (_, _) |- _ =>
      tryif constr_eq H1 HA then fail else (rewrite HA in H1; inversion H1; subst) end.
  split. { apply (HlP st); auto. }
  match goal with Ho : oeval _ st i T ?C1, He : eeval _ _ _ st e T _ ?C2 |- _ =>
    assert (c1 <= C1) by (eapply Hc1; eauto); assert (c2 <= C2) by (eapply Hc2; eauto) end.
  match goal with |- _ - I' (set_array _ _ _ ?I ?R) <= _ =>
    assert (HI := HlI (set_array st A T I R) st eq_refl) end.
  destruct (m_mono M _ _ (Hn st HP)) as [_ [_ [Hm _]]].
  unfold M in *. lra.
Qed.

(** L:LWRITE: a thread-local array, [Q = Q' + M^vwrite + c1 + c2] (exact). *)
Lemma L_LWRITE : forall (P : assn) (I' : pot) A i e es (c1 c2 : Q),
  alocal P -> plocal I' -> c_arr G A = Some (Local, es) ->
  (forall st C, P st -> oeval G st i T C -> c1 <= C) -> elow P e c2 ->
  lvalid P (fun st => I' st + m_vwrite M + c1 + c2) (SWrite A i e) P I'.
Proof.
  intros P I' A i e es c1 c2 HlP HlI HA Hc1 Hc2 st st' C HP Hs. inversion Hs; subst;
    match goal with H1 : c_arr G A = Some (_, _) |- _ =>
      tryif constr_eq H1 HA then fail else (rewrite HA in H1; inversion H1; subst) end.
  split. { apply (HlP st); auto. }
  match goal with Ho : oeval _ st i T ?C1, He : eeval _ _ _ st e T _ ?C2 |- _ =>
    assert (c1 <= C1) by (eapply Hc1; eauto); assert (c2 <= C2) by (eapply Hc2; eauto) end.
  match goal with |- _ - I' (set_array _ _ _ ?I ?R) <= _ =>
    assert (HI := HlI (set_array st A T I R) st eq_refl) end.
  unfold M in *. lra.
Qed.

(** L:SWRITE: as L:GWRITE with [Conflicts] and [M^swrite]. *)
Lemma L_SWRITE : forall (P : assn) (I' : pot) A i e es (n : Z) (c1 c2 : Q),
  alocal P -> plocal I' -> c_arr G A = Some (Shared, es) ->
  (forall st, P st -> (n <= conflicts_of G es T (oval G ps st i))%Z) ->
  (forall st C, P st -> oeval G st i T C -> c1 <= C) -> elow P e c2 ->
  lvalid P (fun st => I' st + m_swrite M n + c1 + c2) (SWrite A i e) P I'.
Proof.
  intros P I' A i e es n c1 c2 HlP HlI HA Hn Hc1 Hc2 st st' C HP Hs. inversion Hs; subst;
    match goal with H1 : c_arr G A = Some (_, _) |- _ =>
      tryif constr_eq H1 HA then fail else (rewrite HA in H1; inversion H1; subst) end.
  split. { apply (HlP st); auto. }
  match goal with Ho : oeval _ st i T ?C1, He : eeval _ _ _ st e T _ ?C2 |- _ =>
    assert (c1 <= C1) by (eapply Hc1; eauto); assert (c2 <= C2) by (eapply Hc2; eauto) end.
  match goal with |- _ - I' (set_array _ _ _ ?I ?R) <= _ =>
    assert (HI := HlI (set_array st A T I R) st eq_refl) end.
  destruct (m_mono M _ _ (Hn st HP)) as [_ [_ [_ Hm]]].
  unfold M in *. lra.
Qed.

(** L:GARRAY: [(read A i)] costs at least [c + M^gread(n)] when [n ≤ MemReads]. *)
Lemma L_GARRAY : forall (P : assn) A i es (n : Z) (c : Q),
  c_arr G A = Some (Global, es) ->
  (forall st, P st -> (n <= memreads G es T (oval G ps st i))%Z) ->
  (forall st C, P st -> oeval G st i T C -> c <= C) ->
  elow P (ERead A i) (c + m_gread M n).
Proof.
  intros P A i es n c HA Hn Hc st R C HP He. inversion He; subst;
    match goal with H1 : c_arr G A = Some (_, _) |- _ =>
      tryif constr_eq H1 HA then fail else (rewrite HA in H1; inversion H1; subst) end.
  match goal with Ho : oeval _ st i T ?C1 |- _ => assert (c <= C1) by (eapply Hc; eauto) end.
  destruct (m_mono M _ _ (Hn st HP)) as [Hm _]. unfold M in *. lra.
Qed.

(** L:SARRAY *)
Lemma L_SARRAY : forall (P : assn) A i es (n : Z) (c : Q),
  c_arr G A = Some (Shared, es) ->
  (forall st, P st -> (n <= conflicts_of G es T (oval G ps st i))%Z) ->
  (forall st C, P st -> oeval G st i T C -> c <= C) ->
  elow P (ERead A i) (c + m_sread M n).
Proof.
  intros P A i es n c HA Hn Hc st R C HP He. inversion He; subst;
    match goal with H1 : c_arr G A = Some (_, _) |- _ =>
      tryif constr_eq H1 HA then fail else (rewrite HA in H1; inversion H1; subst) end.
  match goal with Ho : oeval _ st i T ?C1 |- _ => assert (c <= C1) by (eapply Hc; eauto) end.
  destruct (m_mono M _ _ (Hn st HP)) as [_ [Hm _]]. unfold M in *. lra.
Qed.

(** A uniform test never takes SC:IFD / SC:WHILESOME: one of the two filters is empty. *)
Lemma uniform_not_split : forall (R : fam),
  (forall t t', In t T -> In t' T -> R t = R t') ->
  filter (fun t => is_true_v (R t)) T = [] \/ filter (fun t => is_false_v (R t)) T = [].
Proof.
  intros R H. destruct (filter (fun t => is_true_v (R t)) T) as [|t1 l1] eqn:E1;
    [left; reflexivity|right].
  assert (Ht1 : In t1 (filter (fun t => is_true_v (R t)) T)) by (rewrite E1; left; reflexivity).
  apply filter_In in Ht1 as [Ht1 Et1].
  apply filter_nil_of_all. intros t Ht. rewrite (H t t1 Ht Ht1). apply true_not_false, Et1.
Qed.

(** L:IF1 (a uniform test): one branch
    pre potential [I0] for both branches, [Q = I0 + M^if + c]. *)
Lemma L_IF1 : forall (P PT PF : assn) e s1 s2 (P' : assn) (I' I0 : pot) (c : Q),
  uniform_test P e PT PF -> elow P e c ->
  lvalid PT I0 s1 P' I' -> lvalid PF I0 s2 P' I' ->
  lvalid P (fun st => I0 st + m_if M + c) (SIf e s1 s2) P' I'.
Proof.
  intros P PT PF e s1 s2 P' I' I0 c Hu Hc HT HF st st' C HP Hs.
  inversion Hs; subst;
    match goal with He : eeval _ _ _ st e T ?R ?C1 |- _ =>
      assert (c <= C1) by (eapply Hc; eauto);
      destruct (Hu _ _ _ HP He) as [Hor [HtT HfF]] end.
  - match goal with Ht : forall t, In t T -> is_true_v _ = true, Hb : seval _ _ _ _ s1 T _ _ |- _ =>
      destruct (HT _ _ _ (HtT Ht) Hb) end.
    split; auto. unfold M in *. lra.
  - match goal with Ht : forall t, In t T -> is_false_v _ = true, Hb : seval _ _ _ _ s2 T _ _ |- _ =>
      destruct (HF _ _ _ (HfF Ht) Hb) end.
    split; auto. unfold M in *. lra.
  - exfalso. destruct (uniform_not_split _ Hor) as [E|E]; auto.
Qed.

(** L:IF2: [P ⇒ e] (every lane of the non-empty warp takes the then branch); only that
    branch's derivation. *)
Lemma L_IF2 : forall (P : assn) e s1 s2 (P' : assn) (I' I0 : pot) (c : Q),
  T <> [] ->
  (forall st R C, P st -> eeval G F ps st e T R C -> forall t, In t T -> is_true_v (R t) = true) ->
  elow P e c -> lvalid P I0 s1 P' I' ->
  lvalid P (fun st => I0 st + m_if M + c) (SIf e s1 s2) P' I'.
Proof.
  intros P e s1 s2 P' I' I0 c HT Hd Hc H1 st st' C HP Hs.
  assert (Hin : exists t0, In t0 T) by (destruct T as [|t0 T0]; [congruence | exists t0; left; auto]).
  destruct Hin as [t0 Hin].
  inversion Hs; subst;
    match goal with He : eeval _ _ _ st e _ ?R ?C1 |- _ =>
      assert (c <= C1) by (eapply Hc; eauto); pose proof (Hd _ _ _ HP He) as Hall end.
  - match goal with Hb : seval _ _ _ _ s1 _ _ _ |- _ => destruct (H1 _ _ _ HP Hb) end.
    split; auto. unfold M in *. lra.
  - exfalso. match goal with Hf : forall t, In t _ -> is_false_v _ = true |- _ =>
      pose proof (Hf t0 Hin) as F0 end.
    rewrite (true_not_false _ (Hall t0 Hin)) in F0. discriminate.
  - exfalso. match goal with Hn : filter (fun t => is_false_v _) _ <> [] |- _ => apply Hn end.
    apply filter_nil_of_all. intros t Ht. apply true_not_false, Hall, Ht.
Qed.

(** L:IF3: [P ⇒ ¬e]; only the else branch. *)
Lemma L_IF3 : forall (P : assn) e s1 s2 (P' : assn) (I' I0 : pot) (c : Q),
  T <> [] ->
  (forall st R C, P st -> eeval G F ps st e T R C -> forall t, In t T -> is_false_v (R t) = true) ->
  elow P e c -> lvalid P I0 s2 P' I' ->
  lvalid P (fun st => I0 st + m_if M + c) (SIf e s1 s2) P' I'.
Proof.
  intros P e s1 s2 P' I' I0 c HT Hd Hc H2 st st' C HP Hs.
  assert (Hin : exists t0, In t0 T) by (destruct T as [|t0 T0]; [congruence | exists t0; left; auto]).
  destruct Hin as [t0 Hin].
  inversion Hs; subst;
    match goal with He : eeval _ _ _ st e _ ?R ?C1 |- _ =>
      assert (c <= C1) by (eapply Hc; eauto); pose proof (Hd _ _ _ HP He) as Hall end.
  - exfalso. match goal with Ht : forall t, In t _ -> is_true_v _ = true |- _ =>
      pose proof (Ht t0 Hin) as T1 end.
    rewrite (false_not_true _ (Hall t0 Hin)) in T1. discriminate.
  - match goal with Hb : seval _ _ _ _ s2 _ _ _ |- _ => destruct (H2 _ _ _ HP Hb) end.
    split; auto. unfold M in *. lra.
  - exfalso. match goal with Hn : filter (fun t => is_true_v _) _ <> [] |- _ => apply Hn end.
    apply filter_nil_of_all. intros t Ht. apply false_not_true, Hall, Ht.
Qed.

(** L:WHILE: a uniform loop with invariant potential [I]; the body's premise pays [I] down
    by a round's cost, [M^if + c] for the test included (by induction on the run). *)
Lemma L_WHILE : forall (P PT PF : assn) e b (I : pot) (c : Q),
  uniform_test P e PT PF -> elow P e c ->
  lvalid PT I b P (fun st => I st + m_if M + c) ->
  lvalid P (fun st => I st + m_if M + c) (SWhile e b) PF I.
Proof.
  intros P PT PF e b I c Hu Hc HB st st' C HP Hs.
  remember (SWhile e b) as w eqn:Ew. remember T as T0 eqn:ET in Hs.
  revert HP. induction Hs; intros HP; try discriminate Ew; inversion Ew; subst.
  - (* SC_WHILEALL *)
    match goal with He : eeval _ _ _ _ e T _ ?C1, Ht : forall t, In t T -> is_true_v _ = true,
                    Hb : seval _ _ _ _ b T _ _ |- _ =>
      assert (c <= C1) by (eapply Hc; eauto);
      destruct (Hu _ _ _ HP He) as [_ [HtT _]];
      destruct (HB _ _ _ (HtT Ht) Hb) as [HP1 Hc2] end.
    destruct (IHHs2 eq_refl eq_refl HP1) as [HPF Hc3].
    split; auto. unfold M in *. lra.
  - (* SC_WHILESOME: impossible for a uniform test *)
    exfalso.
    match goal with He : eeval _ _ _ _ e T _ _ |- _ => destruct (Hu _ _ _ HP He) as [Hor _] end.
    destruct (uniform_not_split _ Hor) as [E|E]; auto.
  - (* SC_WHILENONE *)
    match goal with He : eeval _ _ _ _ e T _ ?C1, Hf : forall t, In t T -> is_false_v _ = true |- _ =>
      assert (c <= C1) by (eapply Hc; eauto);
      destruct (Hu _ _ _ HP He) as [_ [_ HfF]]; pose proof (HfF Hf) end.
    split; auto. unfold M in *. lra.
Qed.

(** The claim of a lower certificate (spec/logic.md §4b, root): a derivation with post
    potential 0 from the root's pre gives [cost ≥ bound] for the named warp. *)
Theorem lower_claim : forall (P : assn) (I : pot) s (P' : assn) st st' C,
  lvalid P I s P' (fun _ => 0) -> P st -> seval G F ps st s T st' C -> I st <= C.
Proof. intros P I s P' st st' C H HP Hs. destruct (H _ _ _ HP Hs) as [_ Hc]. lra. Qed.

(** L:HYP (spec/logic.md §4b, "parameter hypotheses"): a lower certificate whose root pre
    is the launch facts [Launch] and the parameter hypotheses [H] proves the bound [B] on
    the region [Launch ∧ H] only ([lower_claim] with that pre); with an upper claim on
    [Launch] the cost of the warp there is exactly [B]: the bound is attained on the
    whole region. (That the region is not empty is the kernel's evaluation of [Launch]
    and [H] at the witness point, a computation on integers outside this file.) *)
Theorem exact_on_region : forall (Launch H : assn) (B : pot) s (P' : assn) st st' C,
  (forall st st' C, Launch st -> seval G F ps st s T st' C -> C <= B st) ->
  lvalid (fun st => Launch st /\ H st) B s P' (fun _ => 0) ->
  Launch st -> H st -> seval G F ps st s T st' C -> C == B st.
Proof.
  intros Launch H B s P' st st' C Hup Hlow HL HH Hs.
  pose proof (Hup _ _ _ HL Hs) as Hle.
  pose proof (lower_claim _ _ _ _ _ _ _ Hlow (conj HL HH) Hs) as Hge.
  apply Qle_antisym; auto.
Qed.

(** L:UNROLL: a loop and its unrolling [if e then (b; while e b) else skip] have the same
    runs and costs (as Soundness.v's [sound_Q_UNROLL]). *)
Lemma L_UNROLL : forall (P P' : assn) (I I' : pot) e b,
  lvalid P I (SIf e (SSeq b (SWhile e b)) SSkip) P' I' -> lvalid P I (SWhile e b) P' I'.
Proof.
  intros P P' I I' e b V st0 st0' C0 HP Hs. inversion Hs; subst.
  - assert (Hr : seval G F ps st0 (SIf e (SSeq b (SWhile e b)) SSkip) T st0'
                   (C1 + m_if M + (C2 + C3)))
      by (eapply SC_IFT; eauto; eapply SC_SEQ; eauto).
    destruct (V _ _ _ HP Hr) as [HP' Hc]. split; auto. unfold M in *. lra.
  - assert (Hr : seval G F ps st0 (SIf e (SSeq b (SWhile e b)) SSkip) T st0'
                   (C1 + m_if M + (C2 + C3) + 0 + m_div M)).
    { eapply SC_IFD; eauto; [eapply SC_SEQ; eauto | apply SC_SKIP]. }
    destruct (V _ _ _ HP Hr) as [HP' Hc]. split; auto. unfold M in *. lra.
  - assert (Hr : seval G F ps st0' (SIf e (SSeq b (SWhile e b)) SSkip) T st0' (C + m_if M + 0))
      by (eapply SC_IFF; eauto; apply SC_SKIP).
    destruct (V _ _ _ HP Hr) as [HP' Hc]. split; auto. unfold M in *. lra.
Qed.

(** L:IFD: a possibly divergent [if] (cases [SC_IFT], [SC_IFF], [SC_IFD]) costs at least
    its test and [M^if]: its branches' runs, on non-empty thread lists, cost at least 0
    ([seval_nonneg]) and [M^div ≥ 0].  The post assertion and potential must hold after
    every run from the pre (the checker's frame: they mention no local the branches
    write). *)
Lemma L_IFD : forall (P P' : assn) (I' : pot) e s1 s2 (c : Q),
  T <> [] -> elow P e c ->
  (forall st st' C, P st -> seval G F ps st (SIf e s1 s2) T st' C -> P' st' /\ I' st == I' st') ->
  lvalid P (fun st => I' st + m_if M + c) (SIf e s1 s2) P' I'.
Proof.
  intros P P' I' e s1 s2 c HT Hc Hf st st' C HP Hs.
  destruct (Hf _ _ _ HP Hs) as [HP' HI]. split; auto.
  destruct (m_nonneg (c_metric G)) as (_ & _ & _ & _ & _ & Hdiv & _).
  inversion Hs; subst;
    match goal with He : eeval _ _ _ st e _ ?R ?C1 |- _ =>
      assert (c <= C1) by (eapply Hc; eauto) end.
  - match goal with Hb : seval _ _ _ _ s1 _ _ ?C2 |- _ =>
      pose proof (seval_nonneg _ _ _ _ _ _ _ _ Hb HT) end.
    unfold M in *. lra.
  - match goal with Hb : seval _ _ _ _ s2 _ _ ?C2 |- _ =>
      pose proof (seval_nonneg _ _ _ _ _ _ _ _ Hb HT) end.
    unfold M in *. lra.
  - match goal with Hb : seval _ _ _ _ s1 _ _ ?C2, Hn : filter _ _ <> [] |- _ =>
      pose proof (seval_nonneg _ _ _ _ _ _ _ _ Hb Hn) end.
    match goal with Hb : seval _ _ _ _ s2 _ _ ?C3 |- _ =>
      assert (0 <= C3) by (eapply seval_nonneg; [exact Hb | auto]) end.
    unfold M in *. lra.
Qed.

(** L:IFDT: an [if] whose test is true on some lane of [T] on every store of [P] (the
    checker's lane witness) runs its then branch on a non-empty lane list: all of [T]
    ([SC_IFT]) or the true lanes ([SC_IFD], [M^div ≥ 0] and the else branch [≥ 0]);
    [SC_IFF] is impossible.  So it costs at least its test, [M^if] and any [k] that bounds
    every run of [s1] on a non-empty lane list from below ([seval_minc]: [sminc G s1]). *)
Lemma L_IFDT : forall (P P' : assn) (I' : pot) e s1 s2 (c k : Q),
  T <> [] -> elow P e c ->
  (forall st T' st' C, T' <> [] -> seval G F ps st s1 T' st' C -> k <= C) ->
  (forall st R C, P st -> eeval G F ps st e T R C -> exists t, In t T /\ R t = VBool true) ->
  (forall st st' C, P st -> seval G F ps st (SIf e s1 s2) T st' C -> P' st' /\ I' st == I' st') ->
  lvalid P (fun st => I' st + m_if M + c + k) (SIf e s1 s2) P' I'.
Proof.
  intros P P' I' e s1 s2 c k HT Hc Hk Hlane Hf st st' C HP Hs.
  destruct (Hf _ _ _ HP Hs) as [HP' HI]. split; auto.
  destruct (m_nonneg (c_metric G)) as (_ & _ & _ & _ & _ & Hdiv & _).
  inversion Hs; subst;
    match goal with He : eeval _ _ _ st e _ ?R ?C1 |- _ =>
      assert (c <= C1) by (eapply Hc; eauto);
      destruct (Hlane _ _ _ HP He) as [t1 [Ht1 E1]] end.
  - match goal with Hb : seval _ _ _ _ s1 _ _ ?C2 |- _ =>
      pose proof (Hk _ _ _ _ HT Hb) end.
    unfold M in *. lra.
  - match goal with Hall : forall t, In t T -> is_false_v _ = true |- _ =>
      specialize (Hall t1 Ht1); rewrite E1 in Hall; discriminate end.
  - match goal with Hb : seval _ _ _ _ s1 _ _ ?C2, Hn : filter _ _ <> [] |- _ =>
      pose proof (Hk _ _ _ _ Hn Hb) end.
    match goal with Hb : seval _ _ _ _ s2 _ _ ?C3 |- _ =>
      assert (0 <= C3) by (eapply seval_nonneg; [exact Hb | auto]) end.
    unfold M in *. lra.
Qed.

(** L:IFDIV: an [if] whose test is true on some lane of [T] and false on another on
    every store of [P] (the checker's lane witnesses) runs by [SC_IFD]: it costs at
    least its test, [M^if] and [M^div], and its branches' runs on the two non-empty lane
    sets at least any [k1], [k2] that bound every run of [s1], [s2] on a non-empty lane
    list from below ([seval_minc]: [sminc]; [0] by [seval_nonneg]).  [SC_IFT] and
    [SC_IFF] are impossible: a lane would be both true and false. *)
Lemma L_IFDIV : forall (P P' : assn) (I' : pot) e s1 s2 (c k1 k2 : Q),
  elow P e c ->
  (forall st T' st' C, T' <> [] -> seval G F ps st s1 T' st' C -> k1 <= C) ->
  (forall st T' st' C, T' <> [] -> seval G F ps st s2 T' st' C -> k2 <= C) ->
  (forall st R C, P st -> eeval G F ps st e T R C ->
     (exists t, In t T /\ R t = VBool true) /\ (exists t, In t T /\ R t = VBool false)) ->
  (forall st st' C, P st -> seval G F ps st (SIf e s1 s2) T st' C -> P' st' /\ I' st == I' st') ->
  lvalid P (fun st => I' st + m_if M + c + m_div M + k1 + k2) (SIf e s1 s2) P' I'.
Proof.
  intros P P' I' e s1 s2 c k1 k2 Hc Hk1 Hk2 Hsplit Hf st st' C HP Hs.
  destruct (Hf _ _ _ HP Hs) as [HP' HI]. split; auto.
  inversion Hs; subst;
    match goal with He : eeval _ _ _ st e _ ?R ?C1 |- _ =>
      assert (c <= C1) by (eapply Hc; eauto);
      destruct (Hsplit _ _ _ HP He) as [[t1 [Ht1 E1]] [t2 [Ht2 E2]]] end.
  - match goal with Hall : forall t, In t T -> is_true_v _ = true |- _ =>
      specialize (Hall t2 Ht2); rewrite E2 in Hall; discriminate end.
  - match goal with Hall : forall t, In t T -> is_false_v _ = true |- _ =>
      specialize (Hall t1 Ht1); rewrite E1 in Hall; discriminate end.
  - match goal with Hb : seval _ _ _ _ s1 _ _ ?C2, Hn : filter _ _ <> [] |- _ =>
      pose proof (Hk1 _ _ _ _ Hn Hb) end.
    match goal with Hb : seval _ _ _ _ s2 _ _ ?C3, Hn : filter _ _ <> [] |- _ =>
      pose proof (Hk2 _ _ _ _ Hn Hb) end.
    unfold M in *. lra.
Qed.

(** L:IFALIGN: an [if] that splits [T] as for L:IFDIV, charged [M^div·a] for a quantity
    [a ≤ 1] on every store of [P] (the checker's residue atom [[m ∤ F]], 0 or 1) instead of
    [M^div]: L:IFDIV's bound, weakened by [M^div·a ≤ M^div] ([M^div ≥ 0]). *)
Lemma L_IFALIGN : forall (P P' : assn) (I' : pot) e s1 s2 (c k1 k2 : Q) (a : store -> Q),
  (forall st, P st -> a st <= 1) ->
  elow P e c ->
  (forall st T' st' C, T' <> [] -> seval G F ps st s1 T' st' C -> k1 <= C) ->
  (forall st T' st' C, T' <> [] -> seval G F ps st s2 T' st' C -> k2 <= C) ->
  (forall st R C, P st -> eeval G F ps st e T R C ->
     (exists t, In t T /\ R t = VBool true) /\ (exists t, In t T /\ R t = VBool false)) ->
  (forall st st' C, P st -> seval G F ps st (SIf e s1 s2) T st' C -> P' st' /\ I' st == I' st') ->
  lvalid P (fun st => I' st + m_if M + c + k1 + k2 + m_div M * a st) (SIf e s1 s2) P' I'.
Proof.
  intros P P' I' e s1 s2 c k1 k2 a Ha Hc Hk1 Hk2 Hsplit Hf st st' C HP Hs.
  destruct (L_IFDIV P P' I' e s1 s2 c k1 k2 Hc Hk1 Hk2 Hsplit Hf st st' C HP Hs) as [HP' Hge].
  split; [exact HP'|].
  destruct (m_nonneg (c_metric G)) as (_ & _ & _ & _ & _ & Hdiv & _).
  pose proof (Ha st HP) as Ha1.
  assert (Hm : 0 <= m_div M * (1 - a st)) by (apply Qmult_le_0_compat; unfold M in *; lra).
  unfold M in *. lra.
Qed.

End Lower.

(** * An executable lock-step semantics: a fuel-based interpreter, sound for [seval]

    [Semantics.seval] is an inductive relation; it cannot be run.  [exec] below is a
    function on the same syntax (context [G]: metric, hardware, launch, signature; float
    model [F]; parameter values [ps]; the initial store; a statement; the active
    threads) that computes the final store and the cost, or [None] when a premise of
    every applicable rule fails (a run-time error: ill-typed value, division by zero, a
    write-write race, …) or when the fuel (a bound on the depth of the derivation) runs
    out.  It runs under [vm_compute].

    Stores are kept concretely: the locals and array cells written so far in two-level
    binary tries ([FMapPositive]) over the initial store [base]; [abs] reads such a store
    back as a [Semantics.store].  Families of results are lists of [(thread, value)]
    pairs in the order of the active threads.

    Main results (no axioms, see [Print Assumptions] in [tests/coq_semantics_diff.rs]):
    - [exec_sound]: when [exec] returns [(cs', C)], the relation [seval] holds from any
      store equal (pointwise) to the abstraction of the start state, with cost [C], to a
      store equal to the abstraction of [cs'];
    - [run_sound]: the run of a program on warp [w] from [init_store G arrays] that
      [run] computes is a run of [seval] with the same cost;
    - [run_cost_eq], [run_cost_gt], [run_cost_ge]: the forms "the run of [body] at these
      parameter values and array contents on warp [w] costs exactly / more than / at
      least [c]", each proved by [vm_compute] of a boolean (proof by reflection). *)
From Coq Require Import ZArith QArith List Bool Arith Lia FMapPositive.
From WarpCert Require Import Metric Syntax Semantics.
Import ListNotations.

Module PM := PositiveMap.

(** ** Keys, value equality, two-level tries *)

Definition pk (n : nat) : positive := Pos.of_succ_nat n.
Definition zk (z : Z) : positive :=
  match z with Z0 => xH | Zpos p => xO p | Zneg p => xI p end.

Lemma pk_eqb : forall a b, Pos.eqb (pk a) (pk b) = Nat.eqb a b.
Proof.
  intros a b. destruct (Nat.eqb_spec a b) as [->|Hne]; [apply Pos.eqb_refl|].
  apply Pos.eqb_neq. intros H. apply Hne. unfold pk in H. now apply SuccNat2Pos.inj.
Qed.

Lemma zk_eqb : forall a b, Pos.eqb (zk a) (zk b) = Z.eqb a b.
Proof.
  intros [|a|a] [|b|b]; simpl; try reflexivity;
    destruct (Pos.eqb_spec a b) as [->|Hne]; try (rewrite Pos.eqb_refl; reflexivity);
    symmetry; apply Pos.eqb_neq; congruence.
Qed.

Definition val_eqb (v1 v2 : val) : bool :=
  match v1, v2 with
  | VInt a, VInt b => Z.eqb a b
  | VBool a, VBool b => Bool.eqb a b
  | VFloat a, VFloat b => Z.eqb a b
  | _, _ => false
  end.

Lemma val_eqb_eq : forall a b, val_eqb a b = true -> a = b.
Proof.
  intros [a|a|a] [b|b|b] H; simpl in H; try discriminate.
  - apply Z.eqb_eq in H; congruence.
  - apply Bool.eqb_prop in H; congruence.
  - apply Z.eqb_eq in H; congruence.
Qed.

Definition map2 := PM.t (PM.t val).

Definition find2 (m : map2) (a b : positive) : option val :=
  match PM.find a m with Some m' => PM.find b m' | None => None end.

Definition add2 (m : map2) (a b : positive) (v : val) : map2 :=
  PM.add a (PM.add b v (match PM.find a m with Some m' => m' | None => PM.empty val end)) m.

Lemma find2_add2 : forall m a b v a' b',
  find2 (add2 m a b v) a' b' =
  if Pos.eqb a a' && Pos.eqb b b' then Some v else find2 m a' b'.
Proof.
  intros m a b v a' b'. unfold find2, add2.
  destruct (Pos.eqb_spec a a') as [<-|Ha].
  - rewrite PM.gss. destruct (Pos.eqb_spec b b') as [<-|Hb]; simpl.
    + apply PM.gss.
    + rewrite PM.gso by congruence. destruct (PM.find a m); [reflexivity|apply PM.gempty].
  - simpl. rewrite PM.gso by congruence. reflexivity.
Qed.

(** The concrete part of a store: the locals ([x ↦ t ↦ v]) and array cells
    ([A ↦ i ↦ v]) written so far. *)
Record cstore := { cl : map2; ca : map2 }.

Definition cempty : cstore := {| cl := PM.empty _; ca := PM.empty _ |}.

(** Pointwise equality of stores. *)
Definition seq_store (s1 s2 : store) : Prop :=
  (forall x t, sl s1 x t = sl s2 x t) /\ (forall a i, sa s1 a i = sa s2 a i).

(** ** Families as lists of [(thread, value)] *)

Definition opt_fam (f : nat -> option val) : fam :=
  fun t => match f t with Some v => v | None => VInt 0 end.

Fixpoint fam_of (f : nat -> option val) (T : list nat) : option (list (nat * val)) :=
  match T with
  | [] => Some []
  | t :: T' =>
      match f t, fam_of f T' with
      | Some v, Some r => Some ((t, v) :: r)
      | _, _ => None
      end
  end.

Lemma fam_of_sound : forall f T cf, fam_of f T = Some cf ->
  cf = map (fun t => (t, opt_fam f t)) T /\ (forall t, In t T -> f t = Some (opt_fam f t)).
Proof.
  intros f T; induction T as [|t T IH]; intros cf H; simpl in H.
  - inversion H; subst; split; [reflexivity|intros t []].
  - destruct (f t) eqn:Hf; [|discriminate].
    destruct (fam_of f T) as [r|] eqn:Hr; [|discriminate]. inversion H; subst.
    destruct (IH r eq_refl) as [-> Hin]. split.
    + simpl. f_equal. unfold opt_fam. rewrite Hf. reflexivity.
    + intros t' [<-|Ht]; [unfold opt_fam; rewrite Hf; reflexivity|auto].
Qed.

Lemma forallb_fam : forall (p : val -> bool) (R : fam) T,
  forallb (fun tv => p (snd tv)) (map (fun t => (t, R t)) T) = true ->
  forall t, In t T -> p (R t) = true.
Proof.
  intros p R T H t Ht. rewrite forallb_forall in H.
  apply (H (t, R t)). apply in_map_iff. eauto.
Qed.

(** The threads of a family whose value satisfies [p]. *)
Definition tfilter (p : val -> bool) (cf : list (nat * val)) : list nat :=
  map fst (filter (fun tv => p (snd tv)) cf).

Lemma tfilter_map : forall p (R : fam) T,
  tfilter p (map (fun t => (t, R t)) T) = filter (fun t => p (R t)) T.
Proof.
  intros p R T; induction T as [|t T IH]; [reflexivity|].
  unfold tfilter in *; simpl. destruct (p (R t)); simpl; rewrite IH; reflexivity.
Qed.

(** Two active threads writing the same cell write the same value. *)
Definition race_free (pr : list (Z * val)) : bool :=
  forallb (fun p1 => forallb (fun p2 =>
    negb (Z.eqb (fst p1) (fst p2)) || val_eqb (snd p1) (snd p2)) pr) pr.

Lemma race_free_sound : forall T (I R : fam),
  race_free (map (fun t => (int_of (I t), R t)) T) = true -> no_race T I R.
Proof.
  intros T I R H t1 t2 H1 H2 Heq. unfold race_free in H. rewrite forallb_forall in H.
  assert (Hin1 : In (int_of (I t1), R t1) (map (fun t => (int_of (I t), R t)) T))
    by (apply in_map_iff; eauto).
  assert (Hin2 : In (int_of (I t2), R t2) (map (fun t => (int_of (I t), R t)) T))
    by (apply in_map_iff; eauto).
  specialize (H _ Hin1). rewrite forallb_forall in H. specialize (H _ Hin2).
  simpl in H. rewrite Heq, Z.eqb_refl in H. simpl in H. now apply val_eqb_eq.
Qed.

Lemma memreads_ext : forall G es T (R1 R2 : fam), (forall t, R1 t = R2 t) ->
  memreads G es T R1 = memreads G es T R2.
Proof.
  intros G es T R1 R2 H. unfold memreads. f_equal. f_equal. f_equal.
  apply map_ext. intros t. rewrite H. reflexivity.
Qed.

Lemma conflicts_ext : forall G es T (R1 R2 : fam), (forall t, R1 t = R2 t) ->
  conflicts_of G es T R1 = conflicts_of G es T R2.
Proof.
  intros G es T R1 R2 H. unfold conflicts_of.
  replace (map (fun t => int_of (R1 t)) T) with (map (fun t => int_of (R2 t)) T)
    by (apply map_ext; intros t; rewrite H; reflexivity).
  reflexivity.
Qed.

(** ** The interpreter *)

Section Exec.
Variable G : ctx.
Variable F : fmodel.
Variable ps : nat -> val.
(** The store the run started from: cells not in the tries read it. *)
Variable base : store.

Definition lk_l (cs : cstore) (x t : nat) : val :=
  match find2 (cl cs) (pk x) (pk t) with Some v => v | None => sl base x t end.
Definition lk_a (cs : cstore) (a : nat) (i : Z) : val :=
  match find2 (ca cs) (pk a) (zk i) with Some v => v | None => sa base a i end.

(** The store a concrete state stands for. *)
Definition abs (cs : cstore) : store := {| sl := lk_l cs; sa := lk_a cs |}.

Definition coval (cs : cstore) (o : opd) (t : nat) : val :=
  match o with
  | OVar x => lk_l cs x t | OParam p => ps p | OConst v => v | OTid d => VInt (tid G d t)
  end.

Definition ocost (o : opd) : Q :=
  match o with
  | OVar _ => m_var (c_metric G) | OParam _ => m_param (c_metric G)
  | OConst _ => m_const (c_metric G) | OTid _ => m_var (c_metric G)
  end.

Definition all_int (cs : cstore) (i : opd) (T : list nat) : bool :=
  forallb (fun t => has_type (coval cs i t) TInt) T.

(** [σ; e ⇓^𝒯 R; C] computed: the family and the cost. *)
Definition ceval (cs : cstore) (e : expr) (T : list nat) : option (list (nat * val) * Q) :=
  match e with
  | EOpd o => Some (map (fun t => (t, coval cs o t)) T, ocost o)
  | EBin op a b =>
      match fam_of (fun t => bop_eval F op (coval cs a t) (coval cs b t)) T with
      | Some cf => Some (cf, ocost a + ocost b + m_op (c_metric G))
      | None => None
      end
  | EUn op a =>
      match fam_of (fun t => uop_eval F op (coval cs a t)) T with
      | Some cf => Some (cf, ocost a + m_op (c_metric G))
      | None => None
      end
  | ERead A i =>
      if all_int cs i T then
        let R := map (fun t => (t, lk_a cs A (int_of (coval cs i t)))) T in
        match c_arr G A with
        | Some (Global, es) =>
            Some (R, ocost i + m_gread (c_metric G) (memreads G es T (coval cs i)))
        | Some (Shared, es) =>
            Some (R, ocost i + m_sread (c_metric G) (conflicts_of G es T (coval cs i)))
        | Some (Local, _) => Some (R, ocost i + m_var (c_metric G))
        | None => None
        end
      else None
  end.

Definition cset_l (cs : cstore) (x : nat) (cf : list (nat * val)) : cstore :=
  {| cl := fold_left (fun m tv => add2 m (pk x) (pk (fst tv)) (snd tv)) cf (cl cs);
     ca := ca cs |}.

(** Cell [i] gets the value of the first thread writing it (as [set_array]). *)
Definition cset_a (cs : cstore) (A : nat) (pr : list (Z * val)) : cstore :=
  {| cl := cl cs;
     ca := fold_right (fun iv m => add2 m (pk A) (zk (fst iv)) (snd iv)) (ca cs) pr |}.

Definition wcost (sp : space) (es : Z) (T : list nat) (I : fam) : Q :=
  match sp with
  | Global => m_gwrite (c_metric G) (memreads G es T I)
  | Shared => m_swrite (c_metric G) (conflicts_of G es T I)
  | Local => m_vwrite (c_metric G)
  end.

Definition is_true_tv (tv : nat * val) : bool := is_true_v (snd tv).
Definition is_false_tv (tv : nat * val) : bool := is_false_v (snd tv).
Definition is_bool_tv (tv : nat * val) : bool := is_bool_v (snd tv).

(** [σ; s ⇓^𝒯 σ'; C] computed with at most [n] nested rule applications.  The
    conditions pick the rule as [seval] does: [SC_IFT] when the condition is true on
    every active thread, [SC_IFF] when false on every one, [SC_IFD] when both occur
    (and every value is a boolean); [SC_WHILENONE], [SC_WHILEALL], [SC_WHILESOME]. *)
Fixpoint exec (n : nat) (cs : cstore) (c : stmt) (T : list nat) {struct n}
  : option (cstore * Q) :=
  match n with
  | O => None
  | S n' =>
    match c with
    | SSkip => Some (cs, 0)
    | SSync => Some (cs, m_sync (c_metric G))
    | SSeq c1 c2 =>
        match exec n' cs c1 T with
        | Some (cs1, C1) =>
            match exec n' cs1 c2 T with
            | Some (cs2, C2) => Some (cs2, C1 + C2)
            | None => None
            end
        | None => None
        end
    | SAssign x e =>
        match ceval cs e T, c_lty G x with
        | Some (cf, C), Some ty =>
            if forallb (fun tv => has_type (snd tv) ty) cf
            then Some (cset_l cs x cf, C + m_vwrite (c_metric G)) else None
        | _, _ => None
        end
    | SWrite A i e =>
        if all_int cs i T then
          match c_arr G A, ceval cs e T with
          | Some (sp, es), Some (cf, C2) =>
              let pr := map (fun tv => (int_of (coval cs i (fst tv)), snd tv)) cf in
              if race_free pr
              then Some (cset_a cs A pr, ocost i + C2 + wcost sp es T (coval cs i))
              else None
          | _, _ => None
          end
        else None
    | SIf e c1 c2 =>
        match ceval cs e T with
        | Some (cf, C1) =>
            if forallb is_true_tv cf then
              match exec n' cs c1 T with
              | Some (cs1, C2) => Some (cs1, C1 + m_if (c_metric G) + C2)
              | None => None
              end
            else if forallb is_false_tv cf then
              match exec n' cs c2 T with
              | Some (cs1, C2) => Some (cs1, C1 + m_if (c_metric G) + C2)
              | None => None
              end
            else if forallb is_bool_tv cf then
              match tfilter is_true_v cf, tfilter is_false_v cf with
              | (_ :: _) as TT, (_ :: _) as TF =>
                  match exec n' cs c1 TT with
                  | Some (cs1, C2) =>
                      match exec n' cs1 c2 TF with
                      | Some (cs2, C3) =>
                          Some (cs2, C1 + m_if (c_metric G) + C2 + C3 + m_div (c_metric G))
                      | None => None
                      end
                  | None => None
                  end
              | _, _ => None
              end
            else None
        | None => None
        end
    | SWarp x (WShfl k w v l) =>
        match c_lty G x with
        | Some ty =>
            if forallb (fun t => has_type (coval cs v t) ty && has_type (coval cs l t) TInt) T
            then Some (cset_l cs x (map (fun t =>
                         (t, shfl_fam (Z.of_nat (c_warp G)) k w (coval cs v) (coval cs l) T t)) T),
                       ocost v + ocost l + m_op (c_metric G) + m_vwrite (c_metric G))
            else None
        | None => None
        end
    | SWarp x (WVote k p) =>
        match c_lty G x with
        | Some TInt =>
            if forallb (fun t => is_bool_v (coval cs p t)) T
            then Some (cset_l cs x (map (fun t =>
                         (t, vote_val (Z.of_nat (c_warp G)) k (coval cs p) T)) T),
                       ocost p + m_op (c_metric G) + m_vwrite (c_metric G))
            else None
        | _ => None
        end
    | SWhile e b =>
        match ceval cs e T with
        | Some (cf, C1) =>
            if forallb is_false_tv cf then Some (cs, C1 + m_if (c_metric G))
            else if forallb is_true_tv cf then
              match exec n' cs b T with
              | Some (cs1, C2) =>
                  match exec n' cs1 (SWhile e b) T with
                  | Some (cs2, C3) => Some (cs2, C1 + C2 + m_if (c_metric G) + C3)
                  | None => None
                  end
              | None => None
              end
            else if forallb is_bool_tv cf then
              match tfilter is_true_v cf, tfilter is_false_v cf with
              | (_ :: _) as TT, (_ :: _) =>
                  match exec n' cs b TT with
                  | Some (cs1, C2) =>
                      match exec n' cs1 (SWhile e b) TT with
                      | Some (cs2, C3) =>
                          Some (cs2, C1 + C2 + m_if (c_metric G) + m_div (c_metric G) + C3)
                      | None => None
                      end
                  | None => None
                  end
              | _, _ => None
              end
            else None
        | None => None
        end
    end
  end.

(** ** Soundness *)

Lemma coval_eq : forall s cs o t, seq_store s (abs cs) -> oval G ps s o t = coval cs o t.
Proof. intros s cs [x|p|v|d] t [Hl Ha]; simpl; auto. apply Hl. Qed.

Lemma ocost_sound : forall s o T, oeval G s o T (ocost o).
Proof. intros s [x|p|v|d] T; constructor. Qed.

Lemma ceval_sound : forall cs e T cf C, ceval cs e T = Some (cf, C) ->
  forall s, seq_store s (abs cs) ->
  exists R, eeval G F ps s e T R C /\ cf = map (fun t => (t, R t)) T.
Proof.
  intros cs e T cf C H s Hs. pose proof (fun o t => coval_eq s cs o t Hs) as Hc.
  destruct e as [o|op a b|op a|A i]; simpl in H.
  - inversion H; subst. exists (oval G ps s o). split.
    + constructor. apply ocost_sound.
    + apply map_ext. intros t. rewrite Hc. reflexivity.
  - destruct (fam_of _ T) as [r|] eqn:Hf; [|discriminate]. inversion H; subst.
    apply fam_of_sound in Hf as [-> Hin]. eexists. split; [|reflexivity].
    constructor; try apply ocost_sound. intros t Ht. rewrite !Hc. auto.
  - destruct (fam_of _ T) as [r|] eqn:Hf; [|discriminate]. inversion H; subst.
    apply fam_of_sound in Hf as [-> Hin]. eexists. split; [|reflexivity].
    constructor; try apply ocost_sound. intros t Ht. rewrite !Hc. auto.
  - destruct (all_int cs i T) eqn:Hi; [|discriminate].
    assert (Hty : forall t, In t T -> has_type (oval G ps s i t) TInt = true).
    { intros t Ht. unfold all_int in Hi. rewrite forallb_forall in Hi. rewrite Hc. auto. }
    assert (Hm : map (fun t => (t, lk_a cs A (int_of (coval cs i t)))) T =
                 map (fun t => (t, sa s A (int_of (oval G ps s i t)))) T).
    { apply map_ext. intros t. rewrite Hc. destruct Hs as [_ Ha]. rewrite Ha. reflexivity. }
    destruct (c_arr G A) as [[[| |] es]|] eqn:Ha; inversion H; subst.
    + eexists. split; [|exact Hm].
      rewrite (memreads_ext G es T (coval cs i) (oval G ps s i)) by (intros; auto).
      econstructor; eauto using ocost_sound.
    + eexists. split; [|exact Hm].
      rewrite (conflicts_ext G es T (coval cs i) (oval G ps s i)) by (intros; auto).
      eapply EC_SARR; eauto using ocost_sound.
    + eexists. split; [|exact Hm]. eapply EC_LARR; eauto using ocost_sound.
Qed.

Lemma fold_set_l : forall T (R : fam) m x y t,
  find2 (fold_left (fun m tv => add2 m (pk x) (pk (fst tv)) (snd tv))
                   (map (fun t => (t, R t)) T) m) (pk y) (pk t) =
  if (y =? x) && memb t T then Some (R t) else find2 m (pk y) (pk t).
Proof.
  intros T R; induction T as [|t0 T IH]; intros m x y t; simpl.
  - rewrite andb_false_r. reflexivity.
  - rewrite IH, find2_add2, !pk_eqb. unfold memb; simpl.
    destruct (Nat.eqb_spec y x) as [->|Hne]; simpl.
    + rewrite Nat.eqb_refl. simpl.
      rewrite (Nat.eqb_sym t t0).
      destruct (Nat.eqb_spec t0 t) as [<-|Hne0]; simpl;
        destruct (existsb _ T); reflexivity.
    + replace (x =? y) with false by (symmetry; apply Nat.eqb_neq; congruence).
      reflexivity.
Qed.

Lemma fold_set_a : forall T (I R : fam) m A B i,
  find2 (fold_right (fun iv m => add2 m (pk A) (zk (fst iv)) (snd iv)) m
                    (map (fun t => (int_of (I t), R t)) T)) (pk B) (zk i) =
  if B =? A then
    match find (fun t => Z.eqb (int_of (I t)) i) T with
    | Some t => Some (R t) | None => find2 m (pk B) (zk i) end
  else find2 m (pk B) (zk i).
Proof.
  intros T I R; induction T as [|t0 T IH]; intros m A B i; simpl.
  - destruct (B =? A); reflexivity.
  - rewrite find2_add2, pk_eqb, zk_eqb, IH, Nat.eqb_sym.
    destruct (B =? A); simpl; [|reflexivity].
    destruct (int_of (I t0) =? i)%Z; reflexivity.
Qed.

Lemma seq_set_l : forall s cs x T (R : fam), seq_store s (abs cs) ->
  seq_store (set_local s x T R) (abs (cset_l cs x (map (fun t => (t, R t)) T))).
Proof.
  intros s cs x T R [Hl Ha]. split; intros y t; simpl; unfold lk_l; simpl.
  - rewrite fold_set_l. destruct ((y =? x) && memb t T); [reflexivity|]. apply Hl.
  - apply Ha.
Qed.

Lemma seq_set_a : forall s cs A T (I R : fam), seq_store s (abs cs) ->
  seq_store (set_array s A T I R)
            (abs (cset_a cs A (map (fun t => (int_of (I t), R t)) T))).
Proof.
  intros s cs A T I R [Hl Ha]. split; intros y t; simpl.
  - apply Hl.
  - unfold lk_a; simpl. rewrite fold_set_a.
    destruct (y =? A); [|apply Ha].
    destruct (find _ T); [reflexivity|apply Ha].
Qed.

Theorem exec_sound : forall n cs c T cs' C, exec n cs c T = Some (cs', C) ->
  forall s, seq_store s (abs cs) ->
  exists s', seval G F ps s c T s' C /\ seq_store s' (abs cs').
Proof.
  induction n as [|n IH]; intros cs c T cs' C H s Hs; [discriminate|].
  destruct c as [| |c1 c2|x e|A i e|e c1 c2|e b|x [k w v l|k p]]; simpl in H.
  - inversion H; subst. eexists; split; [constructor|exact Hs].
  - inversion H; subst. eexists; split; [constructor|exact Hs].
  - destruct (exec n cs c1 T) as [[cs1 C1]|] eqn:E1; [|discriminate].
    destruct (exec n cs1 c2 T) as [[cs2 C2]|] eqn:E2; [|discriminate].
    inversion H; subst.
    destruct (IH _ _ _ _ _ E1 s Hs) as [s1 [H1 Hs1]].
    destruct (IH _ _ _ _ _ E2 s1 Hs1) as [s2 [H2 Hs2]].
    exists s2. split; [econstructor; eauto|exact Hs2].
  - destruct (ceval cs e T) as [[cf C0]|] eqn:Ee; [|discriminate].
    destruct (c_lty G x) as [ty|] eqn:Hx; [|discriminate].
    destruct (forallb _ cf) eqn:Hty; [|discriminate]. inversion H; subst.
    destruct (ceval_sound _ _ _ _ _ Ee s Hs) as [R [HR ->]].
    exists (set_local s x T R). split.
    + econstructor; eauto. intros t Ht.
      exact (forallb_fam (fun v => has_type v ty) R T Hty t Ht).
    + apply seq_set_l, Hs.
  - destruct (all_int cs i T) eqn:Hi; [|discriminate].
    destruct (c_arr G A) as [[sp es]|] eqn:HA; [|discriminate].
    destruct (ceval cs e T) as [[cf C2]|] eqn:Ee; [|discriminate].
    destruct (ceval_sound _ _ _ _ _ Ee s Hs) as [R [HR ->]].
    pose proof (fun t => coval_eq s cs i t Hs) as Hc.
    assert (Hpr : map (fun tv => (int_of (coval cs i (fst tv)), snd tv))
                      (map (fun t => (t, R t)) T) =
                  map (fun t => (int_of (oval G ps s i t), R t)) T).
    { rewrite map_map. apply map_ext. intros t. simpl. rewrite Hc. reflexivity. }
    rewrite Hpr in H. destruct (race_free _) eqn:Hr; [|discriminate]. inversion H; subst.
    assert (Hty : forall t, In t T -> has_type (oval G ps s i t) TInt = true).
    { intros t Ht. unfold all_int in Hi. rewrite forallb_forall in Hi. rewrite Hc. auto. }
    exists (set_array s A T (oval G ps s i) R). split.
    + destruct sp; simpl.
      * rewrite (memreads_ext G es T (coval cs i) (oval G ps s i)) by (intros; auto).
        econstructor; eauto using ocost_sound, race_free_sound.
      * rewrite (conflicts_ext G es T (coval cs i) (oval G ps s i)) by (intros; auto).
        eapply SC_SWRITE; eauto using ocost_sound, race_free_sound.
      * eapply SC_LWRITE; eauto using ocost_sound, race_free_sound.
    + apply seq_set_a, Hs.
  - destruct (ceval cs e T) as [[cf C1]|] eqn:Ee; [|discriminate].
    destruct (ceval_sound _ _ _ _ _ Ee s Hs) as [R [HR ->]].
    destruct (forallb is_true_tv _) eqn:Ht.
    { destruct (exec n cs c1 T) as [[cs1 C2]|] eqn:E1; [|discriminate]. inversion H; subst.
      destruct (IH _ _ _ _ _ E1 s Hs) as [s1 [H1 Hs1]]. exists s1. split; [|exact Hs1].
      eapply SC_IFT; eauto. exact (forallb_fam is_true_v R T Ht). }
    destruct (forallb is_false_tv _) eqn:Hf.
    { destruct (exec n cs c2 T) as [[cs1 C2]|] eqn:E1; [|discriminate]. inversion H; subst.
      destruct (IH _ _ _ _ _ E1 s Hs) as [s1 [H1 Hs1]]. exists s1. split; [|exact Hs1].
      eapply SC_IFF; eauto. exact (forallb_fam is_false_v R T Hf). }
    destruct (forallb is_bool_tv _) eqn:Hb; [|discriminate].
    rewrite !tfilter_map in H.
    destruct (filter (fun t => is_true_v (R t)) T) as [|t1 TT] eqn:ETT; [discriminate|].
    destruct (filter (fun t => is_false_v (R t)) T) as [|t2 TF] eqn:ETF; [discriminate|].
    destruct (exec n cs c1 (t1 :: TT)) as [[cs1 C2]|] eqn:E1; [|discriminate].
    destruct (exec n cs1 c2 (t2 :: TF)) as [[cs2 C3]|] eqn:E2; [|discriminate].
    inversion H; subst.
    destruct (IH _ _ _ _ _ E1 s Hs) as [s1 [H1 Hs1]].
    destruct (IH _ _ _ _ _ E2 s1 Hs1) as [s2 [H2 Hs2]].
    exists s2. split; [|exact Hs2].
    eapply SC_IFD; eauto.
    + exact (forallb_fam is_bool_v R T Hb).
    + rewrite ETT; discriminate.
    + rewrite ETF; discriminate.
    + rewrite ETT; exact H1.
    + rewrite ETF; exact H2.
  - destruct (ceval cs e T) as [[cf C1]|] eqn:Ee; [|discriminate].
    destruct (ceval_sound _ _ _ _ _ Ee s Hs) as [R [HR ->]].
    destruct (forallb is_false_tv _) eqn:Hf.
    { inversion H; subst. exists s. split; [|exact Hs].
      eapply SC_WHILENONE; eauto. exact (forallb_fam is_false_v R T Hf). }
    destruct (forallb is_true_tv _) eqn:Ht.
    { destruct (exec n cs b T) as [[cs1 C2]|] eqn:E1; [|discriminate].
      destruct (exec n cs1 (SWhile e b) T) as [[cs2 C3]|] eqn:E2; [|discriminate].
      inversion H; subst.
      destruct (IH _ _ _ _ _ E1 s Hs) as [s1 [H1 Hs1]].
      destruct (IH _ _ _ _ _ E2 s1 Hs1) as [s2 [H2 Hs2]].
      exists s2. split; [|exact Hs2].
      eapply SC_WHILEALL; eauto. exact (forallb_fam is_true_v R T Ht). }
    destruct (forallb is_bool_tv _) eqn:Hb; [|discriminate].
    rewrite !tfilter_map in H.
    destruct (filter (fun t => is_true_v (R t)) T) as [|t1 TT] eqn:ETT; [discriminate|].
    destruct (filter (fun t => is_false_v (R t)) T) as [|t2 TF] eqn:ETF; [discriminate|].
    destruct (exec n cs b (t1 :: TT)) as [[cs1 C2]|] eqn:E1; [|discriminate].
    destruct (exec n cs1 (SWhile e b) (t1 :: TT)) as [[cs2 C3]|] eqn:E2; [|discriminate].
    inversion H; subst.
    destruct (IH _ _ _ _ _ E1 s Hs) as [s1 [H1 Hs1]].
    destruct (IH _ _ _ _ _ E2 s1 Hs1) as [s2 [H2 Hs2]].
    exists s2. split; [|exact Hs2].
    eapply SC_WHILESOME; eauto.
    + exact (forallb_fam is_bool_v R T Hb).
    + rewrite ETT; discriminate.
    + rewrite ETF; discriminate.
    + rewrite ETT; exact H1.
    + rewrite ETT; exact H2.
  - (* SC:SHFL *)
    destruct (c_lty G x) as [ty|] eqn:Hx; [|discriminate].
    destruct (forallb _ T) eqn:Hty; [|discriminate]. inversion H; subst.
    pose proof (fun o t => coval_eq s cs o t Hs) as Hc.
    rewrite forallb_forall in Hty.
    exists (set_local s x T (shfl_fam (Z.of_nat (c_warp G)) k w (oval G ps s v) (oval G ps s l) T)).
    split.
    + eapply SC_SHFL; [apply ocost_sound | apply ocost_sound | exact Hx | |];
        intros t Ht; specialize (Hty t Ht); apply andb_true_iff in Hty as [H1 H2];
        rewrite Hc; assumption.
    + replace (map (fun t => (t, shfl_fam (Z.of_nat (c_warp G)) k w (coval cs v) (coval cs l) T t)) T)
        with (map (fun t => (t, shfl_fam (Z.of_nat (c_warp G)) k w (oval G ps s v) (oval G ps s l) T t)) T)
        by (apply map_ext; intros t; rewrite (shfl_fam_ext _ _ _ _ _ _ _ _ (Hc v) (Hc l)); reflexivity).
      apply seq_set_l, Hs.
  - (* SC:VOTE *)
    destruct (c_lty G x) as [[| |]|] eqn:Hx; try discriminate.
    destruct (forallb _ T) eqn:Hty; [|discriminate]. inversion H; subst.
    pose proof (fun o t => coval_eq s cs o t Hs) as Hc.
    rewrite forallb_forall in Hty.
    exists (set_local s x T (fun _ => vote_val (Z.of_nat (c_warp G)) k (oval G ps s p) T)).
    split.
    + eapply SC_VOTE; [apply ocost_sound | exact Hx |].
      intros t Ht. rewrite Hc. apply Hty. exact Ht.
    + rewrite (vote_val_ext _ k (coval cs p) (oval G ps s p) T) by (intros t; symmetry; apply Hc).
      apply seq_set_l, Hs.
Qed.

End Exec.

(** ** Runs of a program on one warp *)

(** The cost of running [body] on warp [w] from the initial store with array contents
    [arrays] ([Semantics.init_store]), with at most [fuel] nested rule applications. *)
Definition run (G : ctx) (F : fmodel) (ps : nat -> val) (arrays : nat -> Z -> val)
    (body : stmt) (w : nat) (fuel : nat) : option Q :=
  match exec G F ps (init_store G arrays) fuel cempty body (lanes G w) with
  | Some (_, C) => Some C
  | None => None
  end.

Lemma seq_store_init : forall b, seq_store b (abs b cempty).
Proof.
  intros b. split; intros; simpl; unfold lk_l, lk_a, find2; simpl;
    rewrite PM.gempty; reflexivity.
Qed.

Theorem run_sound : forall G F ps arrays body w fuel C,
  run G F ps arrays body w fuel = Some C ->
  exists s', seval G F ps (init_store G arrays) body (lanes G w) s' C.
Proof.
  intros G F ps arrays body w fuel C H. unfold run in H.
  destruct (exec _ _ _ _ _ _ _ _) as [[cs' C']|] eqn:E; [|discriminate].
  inversion H; subst.
  destruct (exec_sound G F ps _ _ _ _ _ _ _ E _ (seq_store_init _)) as [s' [Hr _]].
  eauto.
Qed.

(** "The run costs exactly [c]" ([==] on [Q]), decided by computing the run. *)
Definition run_costs (G : ctx) (F : fmodel) ps arrays body w fuel (c : Q) : bool :=
  match run G F ps arrays body w fuel with Some C => Qeq_bool C c | None => false end.

(** "The run costs more than [c]". *)
Definition run_exceeds (G : ctx) (F : fmodel) ps arrays body w fuel (c : Q) : bool :=
  match run G F ps arrays body w fuel with Some C => negb (Qle_bool C c) | None => false end.

(** "The run costs at least [c]". *)
Definition run_reaches (G : ctx) (F : fmodel) ps arrays body w fuel (c : Q) : bool :=
  match run G F ps arrays body w fuel with Some C => Qle_bool c C | None => false end.

Theorem run_cost_eq : forall G F ps arrays body w fuel c,
  run_costs G F ps arrays body w fuel c = true ->
  exists s' C, seval G F ps (init_store G arrays) body (lanes G w) s' C /\ C == c.
Proof.
  intros G F ps arrays body w fuel c H. unfold run_costs in H.
  destruct (run G F ps arrays body w fuel) as [C|] eqn:E; [|discriminate].
  destruct (run_sound _ _ _ _ _ _ _ _ E) as [s' Hr].
  exists s', C. split; [exact Hr|]. now apply Qeq_bool_eq.
Qed.

Theorem run_cost_gt : forall G F ps arrays body w fuel c,
  run_exceeds G F ps arrays body w fuel c = true ->
  exists s' C, seval G F ps (init_store G arrays) body (lanes G w) s' C /\ c < C.
Proof.
  intros G F ps arrays body w fuel c H. unfold run_exceeds in H.
  destruct (run G F ps arrays body w fuel) as [C|] eqn:E; [|discriminate].
  destruct (run_sound _ _ _ _ _ _ _ _ E) as [s' Hr].
  exists s', C. split; [exact Hr|]. apply Qnot_le_lt. intros Hle.
  apply Qle_bool_iff in Hle. rewrite Hle in H. discriminate.
Qed.

Theorem run_cost_ge : forall G F ps arrays body w fuel c,
  run_reaches G F ps arrays body w fuel c = true ->
  exists s' C, seval G F ps (init_store G arrays) body (lanes G w) s' C /\ c <= C.
Proof.
  intros G F ps arrays body w fuel c H. unfold run_reaches in H.
  destruct (run G F ps arrays body w fuel) as [C|] eqn:E; [|discriminate].
  destruct (run_sound _ _ _ _ _ _ _ _ E) as [s' Hr].
  exists s', C. split; [exact Hr|]. now apply Qle_bool_iff.
Qed.

(** ** Array contents (for generated files) *)

(** Cells [0 … n−1] hold [vs], every other cell [d]; the trie is built once. *)
Definition cells (vs : list val) (d : val) : Z -> val :=
  let m := fst (fold_left (fun acc v => (PM.add (zk (snd acc)) v (fst acc), Z.succ (snd acc)))
                          vs (PM.empty val, 0%Z)) in
  fun i => match PM.find (zk i) m with Some v => v | None => d end.

(** Array [a] holds the [a]-th contents of [l]. *)
Definition arrays_of (l : list (Z -> val)) : nat -> Z -> val :=
  fun a => nth a l (fun _ => VInt 0).

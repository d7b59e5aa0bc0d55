(** * Refuting a claimed bound by one computed run

    The bound theorem of an exported certificate ([warp_bound], coq-export/README.md)
    states that for every float model, well-typed parameter values satisfying the launch
    facts, array contents and non-empty warp [w], a run of [body] costs at most
    [pval (rho_params ps) bound].  [refute_sound] turns one run computed by [Exec.run]
    — at parameter values that are well typed ([pok_list]) and satisfy the launch facts
    ([launch_ok_b]), on a non-empty warp, costing more than the bound at those values —
    into the negation of that statement.  The boolean [refutes] is decided by
    [vm_compute]: a refutation of a claimed bound (issue 19) is checkable in Coq. *)
From Coq Require Import ZArith QArith List Bool Arith Lia.
From WarpCert Require Import Metric Syntax Semantics Lin Logic Soundness Check Exec.
Import ListNotations.

(** [pok] decided, for a context whose parameter types are [nth p tys None]. *)
Definition pok_list (tys : list (option ty)) (ps : nat -> val) : bool :=
  forallb (fun p => match nth p tys None with Some t => has_type (ps p) t | None => true end)
          (seq 0 (length tys)).

Lemma pok_list_sound : forall G tys ps, (forall p, c_pty G p = nth p tys None) ->
  pok_list tys ps = true -> pok G ps.
Proof.
  intros G tys ps Hty H p t Hp. rewrite Hty in Hp.
  destruct (Nat.lt_ge_cases p (length tys)) as [Hl|Hl].
  - unfold pok_list in H. rewrite forallb_forall in H.
    assert (Hin : In p (seq 0 (length tys))) by (apply in_seq; lia).
    specialize (H p Hin). rewrite Hp in H. exact H.
  - rewrite nth_overflow in Hp by lia. discriminate.
Qed.

(** The launch facts [launch_ok] decided. *)
Definition launch_ok_b (G : ctx) (ps : nat -> val) : bool :=
  forallb (fun p => Z.leb 0 (int_of (ps p))) (c_blockidx G) &&
  forallb (fun p => Z.leb 1 (int_of (ps p))) (c_griddim G) &&
  forallb (fun bg => Z.leb (int_of (ps (fst bg))) (int_of (ps (snd bg)) - 1)) (c_bgrid G).

Lemma launch_ok_b_sound : forall G ps, launch_ok_b G ps = true -> launch_ok G ps.
Proof.
  intros G ps H. unfold launch_ok_b in H. apply andb_prop in H as [H H3].
  apply andb_prop in H as [H1 H2]. rewrite forallb_forall in H1, H2, H3.
  split; [|split].
  - intros p Hp. apply Z.leb_le. auto.
  - intros p Hp. apply Z.leb_le. auto.
  - intros bg Hbg. apply Z.leb_le. auto.
Qed.

(** The run of [body] on warp [w] at [ps] and [arrays] refutes [bound]. *)
Definition refutes (G : ctx) (tys : list (option ty)) (F : fmodel) (ps : nat -> val)
    (arrays : nat -> Z -> val) (body : stmt) (w fuel : nat) (bound : pot) : bool :=
  pok_list tys ps && launch_ok_b G ps && negb (Nat.eqb (length (lanes G w)) 0) &&
  run_exceeds G F ps arrays body w fuel (pval (rho_params ps) bound).

Theorem refute_sound : forall G tys F ps arrays body w fuel bound,
  (forall p, c_pty G p = nth p tys None) ->
  refutes G tys F ps arrays body w fuel bound = true ->
  ~ (forall (F' : fmodel) (ps' : nat -> val) (arrays' : nat -> Z -> val) (w' : nat)
        (s' : store) (C : Q),
       pok G ps' -> launch_ok G ps' -> lanes G w' <> [] ->
       seval G F' ps' (init_store G arrays') body (lanes G w') s' C ->
       C <= pval (rho_params ps') bound).
Proof.
  intros G tys F ps arrays body w fuel bound Hty H Hall. unfold refutes in H.
  apply andb_prop in H as [H Hrun]. apply andb_prop in H as [H Hne].
  apply andb_prop in H as [Hp Hl].
  destruct (run_cost_gt _ _ _ _ _ _ _ _ Hrun) as [s' [C [Hs Hlt]]].
  assert (Hw : lanes G w <> []).
  { intros E. rewrite E in Hne. discriminate. }
  pose proof (Hall F ps arrays w s' C (pok_list_sound G tys ps Hty Hp)
                   (launch_ok_b_sound G ps Hl) Hw Hs) as Hle.
  exact (Qlt_not_le _ _ Hlt Hle).
Qed.

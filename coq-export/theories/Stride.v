(** * Strided accesses: one sector per lane (spec/logic.md §4b "Strided accesses")

    The counting lemma of L:GARRAYSTRIDE / L:GWRITESTRIDE: when the active threads'
    indices are [u·f(t) + c] for one integer [u] with [M ≤ |u|·es] ([M] the sector size,
    [es] the element size) and one integer [c], the threads touch exactly as many sectors
    ([Semantics.memreads]) as [f] has distinct values on them ([stride_memreads]). With
    [f = tid_d] on a warp whose lanes share the index's other thread terms, this is the
    kernel's count [stride_W] (the number of distinct [tid_d] over the warp's lanes).

    The rules' checks are in LowerCheck.v ([stride_ok], [stride_mem_sound], the
    constructors [DVwrite1S], [DVwrite2S], [DWriteS]), through [stride_claim_le] with
    [f = tid_d] and the row multiplier [u = A·P + B] of the index's [DScl] entry.

    No axiom; every proof is closed. *)
From Coq Require Import ZArith List Lia.
From WarpCert Require Import Syntax Semantics.
Import ListNotations.

(** [nodup] commutes with an injective map, in length. *)
Lemma nodup_map_inj_length : forall (h : Z -> Z) (l : list Z),
  (forall a b, h a = h b -> a = b) ->
  length (nodup Z.eq_dec (map h l)) = length (nodup Z.eq_dec l).
Proof.
  intros h l Hinj; induction l as [|a l IH]; simpl; auto.
  destruct (in_dec Z.eq_dec (h a) (map h l)) as [Hi|Hi];
    destruct (in_dec Z.eq_dec a l) as [Hj|Hj]; simpl; auto.
  - exfalso. apply in_map_iff in Hi as [x [Hx Hin]]. apply Hinj in Hx. subst. auto.
  - exfalso. apply Hi. apply in_map. exact Hj.
Qed.

(** Addresses [|u|·es ≥ M] apart per unit of [v] lie in distinct sectors: the sector of
    [(u·v + c)·es] determines [v]. *)
Lemma stride_sector_inj : forall M es u c v1 v2,
  (0 < M)%Z -> (0 <= es)%Z -> (M <= Z.abs u * es)%Z ->
  (((u * v1 + c) * es) / M = ((u * v2 + c) * es) / M)%Z -> v1 = v2.
Proof.
  intros M es u c v1 v2 HM Hes Hu Heq.
  destruct (Z.eq_dec v1 v2) as [|Hne]; [assumption|exfalso].
  set (a1 := ((u * v1 + c) * es)%Z). set (a2 := ((u * v2 + c) * es)%Z).
  fold a1 a2 in Heq.
  pose proof (Z.mul_div_le a1 M HM) as L1. pose proof (Z.mul_div_le a2 M HM) as L2.
  pose proof (Z.mod_pos_bound a1 M HM) as B1. pose proof (Z.mod_pos_bound a2 M HM) as B2.
  pose proof (Z.div_mod a1 M ltac:(lia)) as D1. pose proof (Z.div_mod a2 M ltac:(lia)) as D2.
  assert (Hd : (Z.abs (a1 - a2) < M)%Z) by (rewrite Heq in D1; lia).
  assert (Ha : (a1 - a2 = u * (v1 - v2) * es)%Z) by (unfold a1, a2; ring).
  rewrite Ha in Hd. rewrite !Z.abs_mul in Hd.
  assert (Hv : (1 <= Z.abs (v1 - v2))%Z) by lia.
  rewrite (Z.abs_eq es Hes) in Hd.
  assert (Z.abs u * es <= Z.abs u * Z.abs (v1 - v2) * es)%Z.
  { rewrite <- Z.mul_assoc, (Z.mul_comm (Z.abs (v1 - v2)) es), Z.mul_assoc.
    rewrite <- (Z.mul_1_r (Z.abs u * es)) at 1.
    apply Z.mul_le_mono_nonneg_l; [apply Z.mul_nonneg_nonneg; lia | lia]. }
  lia.
Qed.

(** The counting lemma: [MemReads] of indices [u·f(t) + c] over [T] is the number of
    distinct values of [f] on [T] when [M ≤ |u|·es]. *)
Lemma stride_memreads : forall G es T (R : fam) (f : nat -> Z) u c,
  (0 < c_sector_bytes G)%Z -> (0 <= es)%Z -> (c_sector_bytes G <= Z.abs u * es)%Z ->
  (forall t, In t T -> int_of (R t) = (u * f t + c)%Z) ->
  memreads G es T R = Z.of_nat (length (nodup Z.eq_dec (map f T))).
Proof.
  intros G es T R f u c HM Hes Hu HR. unfold memreads.
  set (h := fun v => (((u * v + c) * es) / c_sector_bytes G)%Z).
  assert (E : map (fun t => (int_of (R t) * es) / c_sector_bytes G)%Z T = map h (map f T)).
  { rewrite map_map. apply map_ext_in. intros t Ht. unfold h. rewrite (HR t Ht). reflexivity. }
  rewrite E, nodup_map_inj_length; auto.
  intros a b Hab. unfold h in Hab. exact (stride_sector_inj _ _ _ _ _ _ HM Hes Hu Hab).
Qed.

(** The lower-bound form L:GARRAYSTRIDE uses: a claim [n] at most the number of distinct
    [f]-values is at most the threads' [MemReads]. *)
Lemma stride_claim_le : forall G es T (R : fam) (f : nat -> Z) u c n,
  (0 < c_sector_bytes G)%Z -> (0 <= es)%Z -> (c_sector_bytes G <= Z.abs u * es)%Z ->
  (forall t, In t T -> int_of (R t) = (u * f t + c)%Z) ->
  (n <= Z.of_nat (length (nodup Z.eq_dec (map f T))))%Z ->
  (n <= memreads G es T R)%Z.
Proof.
  intros. erewrite stride_memreads; eauto.
Qed.

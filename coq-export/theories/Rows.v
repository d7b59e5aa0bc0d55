(** * Row charges (spec/logic.md §4 "Rows": Q:GWRITEROWS / Q:VWRITEROWS, issue 15)

    The checker side of the row rules and the key soundness lemma, for MemReads:

    - [row_f wt tc u km g r es ρ] is the kernel's [access::row_table] value [f(ρ)]: the
      maximum over the warps (lanes kept by the thread constraints [tc]) and over the bases
      [β₀ ∈ betas M g r es] of [Σ_y count_y((β₀ + es·ρ·y) mod M)], the warp's lanes grouped
      by their key [ukey u] (row coordinate [y = ysel u]);
    - [rows_ok_w] is the side condition: [N₀ ≥ 0], [C_j ≥ 0], [M_j ≥ 1], a period [L]
      (the lcm of [P_M] and the [M_j]) that [P_M] and every [M_j] divide, and for every
      [ρ ∈ [0, L)], [N₀ + Σ_j C_j·[M_j ∤ ρ] ≥ max(1, f(ρ mod P_M))] with
      [P_M = M / gcd(es, M)], computed by enumeration as the kernel does;
    - [rows_mem]: a warp whose active lanes access [km·tid + U·y + c] ([c ≡ r (mod g)])
      reads at most [f(U mod P_M)] sectors (its rows' sectors, each row's base fixed
      modulo [M] by [U mod P_M]);
    - [rows_charge_sound] / [rows_sound]: under [rows_ok_w], [MemReads ≤ N₀ + Σ_j
      C_j·[M_j ∤ U]] for every integer [U] (the row multiplier's value), and the charge is
      at least 1.

    Not yet here (spec/logic.md §6): the row multiplier on [DScl] entries and its
    propagation, the constructors [Q_GWRITEROWS] / [Q_VWRITEROWS] and their cases of the
    soundness theorem, the checker nodes and the export. *)
From Coq Require Import ZArith QArith List Bool Arith Lia Znumtheory.
From WarpCert Require Import Metric Syntax Semantics Lin Logic Soundness.
Import ListNotations.

Section Rows.
Variable G : ctx.

(** The row coordinate of a lane's thread ids [tt]: the sum of its coordinates on the
    dimensions of [u] ([tid_d] when [u] is the one dimension [d]). *)
Definition ysel (u : ubits) (tt : trip) : Z := kvalz (1, 1, 1)%Z (ukey u tt).

(** [P_M = M / gcd(es, M)]: [es·P_M] is a multiple of [M]. *)
Definition pm (es : Z) : Z := (c_sector_bytes G / Z.gcd es (c_sector_bytes G))%Z.

(** One warp's rows (lanes [L], grouped by [ukey u]) at base [β₀] and residue [ρ]. *)
Definition row_sum (u : ubits) (km : trip) (es rho b0 : Z) (L : list trip) : Z :=
  fold_right Z.add 0%Z
    (map (fun key =>
            sec_count G (map (kvalz km) (filter (fun tt => trip_eqb (ukey u tt) key) L)) es
                      ((b0 + es * rho * kvalz (1, 1, 1)%Z key) mod c_sector_bytes G))
         (nodup trip_eq_dec (map (ukey u) L))).

(** [f(ρ)]: the largest [row_sum] over the warps [wt] and the admissible bases. *)
Definition row_f (wt : list (list trip)) (tc : list cstr) (u : ubits) (km : trip)
    (g r es rho : Z) : Z :=
  fold_right Z.max 0%Z
    (flat_map (fun L => map (fun b0 => row_sum u km es rho b0 (wfilter tc L))
                            (betas (c_sector_bytes G) g r es)) wt).

(** The charge [N₀ + Σ_j C_j·[M_j ∤ v]] of the row terms [(C_j, M_j)] at [v]. *)
Definition rcharge (n0 : Z) (rows : list (Z * Z)) (v : Z) : Z :=
  (n0 + fold_right Z.add 0 (map (fun cm => if (v mod snd cm =? 0)%Z then 0 else fst cm) rows))%Z.

Definition rows_lcm (es : Z) (rows : list (Z * Z)) : Z := fold_right Z.lcm (pm es) (map snd rows).

(** The side condition of the row rules (enumeration bounded by the kernel's
    [ROWS_LIMIT = 2^16]). *)
Definition rows_ok_w (wt : list (list trip)) (tc : list cstr) (u : ubits) (km : trip)
    (g r es n0 : Z) (rows : list (Z * Z)) : bool :=
  let P := pm es in let L := rows_lcm es rows in
  (0 <? c_sector_bytes G)%Z && (0 <=? n0)%Z &&
  forallb (fun cm => (0 <=? fst cm) && (1 <=? snd cm))%Z rows &&
  (0 <? L)%Z && (L <=? 65536)%Z && (L mod P =? 0)%Z &&
  forallb (fun cm => L mod snd cm =? 0)%Z rows &&
  forallb (fun rho => Z.max 1 (row_f wt tc u km g r es (rho mod P)) <=? rcharge n0 rows rho)%Z
          (zrange L).

(** A group of lanes at indices [k·tid + c] meets exactly the sectors of the offsets
    [k·tid·es] at base [(c·es) mod M], shifted by a whole number of sectors. *)
Lemma mem_at : forall es (T L : list nat) (R : fam) k c,
  (0 < c_sector_bytes G)%Z -> incl T L ->
  (forall t, In t T -> int_of (R t) = (kval G k t + c)%Z) ->
  (memreads G es T R <= sec_count G (map (kval G k) L) es ((c * es) mod c_sector_bytes G))%Z.
Proof.
  intros es T L R k c HSB HTL Hidx. set (SB := c_sector_bytes G) in *.
  set (b0 := ((c * es) mod SB)%Z). set (q0 := ((c * es) / SB)%Z).
  assert (Hcq : (c * es = SB * q0 + b0)%Z) by (apply Z.div_mod; lia).
  unfold memreads. fold SB.
  assert (Hmap : map (fun t => (int_of (R t) * es) / SB)%Z T =
                 map (fun t => (kval G k t * es + b0) / SB + q0)%Z T).
  { apply map_ext_in. intros t Ht. rewrite Hidx by auto.
    replace ((kval G k t + c) * es)%Z with ((kval G k t * es + b0) + q0 * SB)%Z
      by (rewrite Z.mul_add_distr_r, Hcq; ring).
    rewrite Z.div_add by lia. reflexivity. }
  rewrite Hmap.
  unfold sec_count. fold SB. rewrite map_map. apply Nat2Z.inj_le.
  apply (nodup_shift_le (fun t => ((kval G k t * es + b0) / SB)%Z) q0). exact HTL.
Qed.

Lemma pm_pos : forall es, (0 < c_sector_bytes G)%Z -> (0 < pm es)%Z.
Proof.
  intros es HSB. unfold pm. set (SB := c_sector_bytes G) in *.
  assert (Hg : (0 < Z.gcd es SB)%Z).
  { pose proof (Z.gcd_nonneg es SB).
    destruct (Z.eq_dec (Z.gcd es SB) 0) as [E|E]; [|lia]. apply Z.gcd_eq_0 in E. lia. }
  destruct (Z.gcd_divide_r es SB) as [b Hb].
  rewrite Hb at 1. rewrite Z.div_mul by lia. nia.
Qed.

(** Modulo [M], a row's base [(U·y + c)·es] depends on [U mod P_M] only. *)
Lemma pm_shift : forall es U y c, (0 < c_sector_bytes G)%Z ->
  (((U * y + c) * es) mod c_sector_bytes G =
   ((c * es) mod c_sector_bytes G + es * (U mod pm es) * y) mod c_sector_bytes G)%Z.
Proof.
  intros es U y c HSB. pose proof (pm_pos es HSB) as HP. unfold pm in *.
  set (SB := c_sector_bytes G) in *. set (gd := Z.gcd es SB) in *.
  assert (Hg : (0 < gd)%Z).
  { unfold gd. pose proof (Z.gcd_nonneg es SB).
    destruct (Z.eq_dec (Z.gcd es SB) 0) as [E|E]; [|lia]. apply Z.gcd_eq_0 in E. lia. }
  destruct (Z.gcd_divide_l es SB) as [a Ha]. fold gd in Ha.
  destruct (Z.gcd_divide_r es SB) as [b Hb]. fold gd in Hb.
  assert (HPb : (SB / gd = b)%Z) by (rewrite Hb; apply Z.div_mul; lia).
  rewrite HPb in *.
  pose proof (Z.div_mod U b ltac:(lia)) as HU.
  assert (E : ((U * y + c) * es = (c * es + es * (U mod b) * y) + (a * (U / b) * y) * SB)%Z).
  { rewrite Hb, Ha. rewrite HU at 1. ring. }
  rewrite E, Z.mod_add by lia. rewrite Zplus_mod_idemp_l. reflexivity.
Qed.

Lemma filter_incl_f : forall A (p : A -> bool) (l1 l2 : list A), incl l1 l2 -> incl (filter p l1) (filter p l2).
Proof.
  intros A p l1 l2 H x Hx. apply filter_In in Hx as [Hx Hp]. apply filter_In; auto.
Qed.

Lemma ysel_key : forall u t key, trip_eqb (ukey u (lane_t G t)) key = true ->
  ysel u (lane_t G t) = kvalz (1, 1, 1)%Z key.
Proof.
  intros u t key H. unfold trip_eqb in H. destruct (trip_eq_dec _ _) as [E|]; [|discriminate].
  unfold ysel. rewrite E. reflexivity.
Qed.

(** The key lemma (spec/logic.md §4 "Rows", soundness): the active lanes [T] of warp [w]
    (satisfying [P]) access the elements [km·tid + U·y + c], [c ≡ r (mod g)]. The warp's
    sectors are at most the sum of its rows' (lanes with one key [ukey u]), and row [y]'s
    base is [(c·es mod M + es·(U mod P_M)·y) mod M] up to whole sectors: the row table's
    entry at [U mod P_M] bounds them. *)
Lemma rows_mem : forall ps s P u km U c g r es T w (R : fam),
  (0 < c_sector_bytes G)%Z -> (0 < c_warp G)%nat ->
  (forall t, In t T -> int_of (R t) = (kval G km t + U * ysel u (lane_t G t) + c)%Z) ->
  Z.divide g (c - r) ->
  (forall t, In t T -> sat (rho G ps s t) P) -> T <> [] -> incl T (lanes G w) ->
  (memreads G es T R <= row_f (wtids G) (filter tid_only P) u km g r es (U mod pm es))%Z.
Proof.
  intros ps s P u km U c g r es T w R HSB HW Hidx Hcr HP Hne Hi.
  destruct (nonempty_elem _ Hne) as [t0 Ht0].
  assert (Hwn : (w < nwarps G)%nat) by (eapply lanes_nwarps; eauto).
  set (tc := filter tid_only P). set (WL := wlanes G tc w).
  assert (HTL : incl T WL) by (apply (wlanes_incl G ps s P T w Hi HP)).
  set (SB := c_sector_bytes G) in *.
  set (b0 := ((c * es) mod SB)%Z).
  assert (Hbeta : In b0 (betas SB g r es)) by (apply beta_in; auto).
  eapply Z.le_trans; [|apply fold_max_in, in_flat_map; exists (map (lane_t G) (lanes G w));
    split; [apply in_wtids; auto | apply in_map_iff; exists b0; split; [reflexivity | exact Hbeta]]].
  unfold row_sum. rewrite wfilter_map_lane. fold tc WL.
  set (K := nodup trip_eq_dec (map (ukey u) (map (lane_t G) WL))).
  assert (HK : forall t, In t T -> In (ukey u (lane_t G t)) K).
  { intros t Ht. apply nodup_In. apply in_map, in_map. apply HTL; auto. }
  eapply Z.le_trans; [apply (memreads_groups G u es R T K HK)|]. apply sum_le.
  intros key _. rewrite filter_map_lane, kvalz_lanes.
  set (y := kvalz (1, 1, 1)%Z key).
  unfold SB in *.
  replace ((b0 + es * (U mod pm es) * y) mod c_sector_bytes G)%Z
    with (((U * y + c) * es) mod c_sector_bytes G)%Z by (unfold b0; apply pm_shift; auto).
  apply (mem_at es _ _ R km (U * y + c)); auto.
  - apply filter_incl_f; auto.
  - intros t Ht. apply filter_In in Ht as [Ht Hp]. rewrite Hidx by auto.
    rewrite (ysel_key u t key Hp). fold y. ring.
Qed.

(** The side condition makes the charge at any [U] cover [f(U mod P_M)] and 1. *)
Lemma rows_charge_sound : forall wt tc u km g r es n0 rows U,
  rows_ok_w wt tc u km g r es n0 rows = true ->
  (Z.max 1 (row_f wt tc u km g r es (U mod pm es)) <= rcharge n0 rows U)%Z.
Proof.
  intros wt tc u km g r es n0 rows U H. unfold rows_ok_w in H.
  repeat rewrite andb_true_iff in H.
  destruct H as [[[[[[[HSB Hn0] Hrows] HL] _] HLP] HLM] Hall].
  apply Z.ltb_lt in HSB. apply Z.ltb_lt in HL. apply Z.eqb_eq in HLP.
  set (L := rows_lcm es rows) in *. pose proof (pm_pos es HSB) as HP.
  set (v := (U mod L)%Z).
  assert (Hv : In v (zrange L)) by (apply in_zrange, Z.mod_pos_bound; lia).
  rewrite forallb_forall in Hall. specialize (Hall v Hv). apply Z.leb_le in Hall.
  assert (Ev : (v mod pm es = U mod pm es)%Z).
  { unfold v. symmetry. apply Zmod_div_mod; auto. apply Z.mod_divide; lia. }
  rewrite Ev in Hall. eapply Z.le_trans; [exact Hall|].
  unfold rcharge. apply Z.eq_le_incl. f_equal. f_equal. apply map_ext_in.
  intros [cj mj] Hcm. rewrite forallb_forall in Hrows, HLM.
  specialize (Hrows _ Hcm). specialize (HLM _ Hcm). simpl in *.
  rewrite andb_true_iff in Hrows. destruct Hrows as [_ Hm]. apply Z.leb_le in Hm.
  apply Z.eqb_eq in HLM.
  assert (E : (v mod mj = U mod mj)%Z).
  { unfold v. symmetry. apply Zmod_div_mod; try lia. apply Z.mod_divide; lia. }
  rewrite E. reflexivity.
Qed.

(** Soundness of the row charge for MemReads: a warp whose active lanes access
    [km·tid + U·y + c] ([c ≡ r (mod g)]) reads at most [N₀ + Σ_j C_j·[M_j ∤ U]] sectors,
    and the charge is at least 1. *)
Lemma rows_sound : forall ps s P u km U c g r es n0 rows T w (R : fam),
  rows_ok_w (wtids G) (filter tid_only P) u km g r es n0 rows = true -> (0 < c_warp G)%nat ->
  (forall t, In t T -> int_of (R t) = (kval G km t + U * ysel u (lane_t G t) + c)%Z) ->
  Z.divide g (c - r) ->
  (forall t, In t T -> sat (rho G ps s t) P) -> T <> [] -> incl T (lanes G w) ->
  (memreads G es T R <= rcharge n0 rows U)%Z /\ (1 <= rcharge n0 rows U)%Z.
Proof.
  intros ps s P u km U c g r es n0 rows T w R Hok HW Hidx Hcr HP Hne Hi.
  pose proof (rows_charge_sound _ _ _ _ _ _ _ _ _ U Hok) as Hc.
  assert (HSB : (0 < c_sector_bytes G)%Z).
  { unfold rows_ok_w in Hok. repeat rewrite andb_true_iff in Hok. apply Z.ltb_lt. tauto. }
  pose proof (rows_mem ps s P u km U c g r es T w R HSB HW Hidx Hcr HP Hne Hi). lia.
Qed.
(** The charge as a potential: [N₀ + Σ_j C_j·[M_j ∤ X]] with residue atoms (spec/logic.md §1
    "Residue atoms"; [Lin.KRes]); its value is [rcharge] at [X]'s value. *)
Definition rterm (X : lin) (cm : Z * Z) : Q * list atm :=
  (inject_Z (fst cm), [mkAtmK (mkLin 0 []) 1 (KRes X (Z.to_pos (snd cm)))]).
Definition rpot (X : lin) (n0 : Z) (rows : list (Z * Z)) : pot :=
  mkPot (inject_Z n0) (map (rterm X) rows).

Lemma rpot_val : forall rho X n0 rows, forallb (fun cm => 1 <=? snd cm)%Z rows = true ->
  (pval rho (rpot X n0 rows) == inject_Z (rcharge n0 rows (leval rho X)))%Q.
Proof.
  intros rho X n0 rows H. unfold pval, rpot, rcharge; cbn [pcst pterms].
  rewrite inject_Z_plus. apply Qplus_comp; [reflexivity|].
  induction rows as [|[c m] rows IH]; cbn [map psum fold_right fst snd]; [reflexivity|].
  cbn [forallb] in H. rewrite andb_true_iff in H. destruct H as [Hm H]. cbn [snd] in Hm.
  apply Z.leb_le in Hm.
  rewrite inject_Z_plus. apply Qplus_comp; [|apply IH; auto].
  unfold mval, atom, rterm; cbn [fold_right akd alin adiv akval fst snd].
  rewrite Z2Pos.id by lia.
  destruct (leval rho X mod m =? 0)%Z; unfold Qeq, Qmult, inject_Z; simpl; lia.
Qed.
(** From a scaled entry's meaning (Soundness.esat of [DScl x u k r g]: some [k'] equal to
    [k] outside [u] and [c ≡ r (mod g)]) with one [?] dimension to the form of [rows_sound]:
    the index is [kmask u k·tid + U·y + c] with [U] the coefficient of [k'] on [u] (the
    value [A·P + B] of a row multiplier, spec/logic.md §1 "Row multipliers"). *)
Definition onebit (u : ubits) : bool :=
  match u with (true, false, false) | (false, true, false) | (false, false, true) => true | _ => false end.

Lemma row_index : forall u k' t, onebit u = true ->
  kval G k' t = (kval G (kmask u k') t + kvalz k' (ukey u (1, 1, 1)%Z) * ysel u (lane_t G t))%Z.
Proof.
  intros [[u1 u2] u3] [[k1 k2] k3] t H. unfold ysel, lane_t. rewrite !ztid_tid.
  destruct u1, u2, u3; try discriminate; unfold kval, kmask, kvalz, ukey; ring.
Qed.

Lemma rows_entry_sound : forall ps s P u k k' c g r es n0 rows T w (R : fam),
  onebit u = true ->
  rows_ok_w (wtids G) (filter tid_only P) u (kmask u k) g r es n0 rows = true ->
  (0 < c_warp G)%nat -> kmask u k' = kmask u k -> Z.divide g (c - r) ->
  (forall t, In t T -> int_of (R t) = (kval G k' t + c)%Z) ->
  (forall t, In t T -> sat (rho G ps s t) P) -> T <> [] -> incl T (lanes G w) ->
  (memreads G es T R <= rcharge n0 rows (kvalz k' (ukey u (1, 1, 1)%Z)))%Z /\
  (1 <= rcharge n0 rows (kvalz k' (ukey u (1, 1, 1)%Z)))%Z.
Proof.
  intros ps s P u k k' c g r es n0 rows T w R Hu Hok HW Hk Hcr Hidx HP Hne Hi.
  apply (rows_sound ps s P u (kmask u k) _ c g r es n0 rows T w R Hok HW); auto.
  intros t Ht. rewrite Hidx, (row_index u k' t Hu), Hk by auto. ring.
Qed.
(** The access check of the row rules on an index operand [i] (a local with a scaled entry
    [(dep x … ? … r g)] with one [?] dimension in [D]), without the multiplier: the side
    condition at the entry's [u], [kmask u k], [r], [g]. *)
Definition scl_entry (D : list dent) (i : opd) : option (ubits * trip * Z * Z) :=
  match i with
  | OVar x => match dget D x with Some (DScl _ u k r g) => Some (u, k, r, g) | _ => None end
  | _ => None
  end.
Definition rows_acc (P : list cstr) (D : list dent) (i : opd) (es n0 : Z) (rows : list (Z * Z)) : bool :=
  match scl_entry D i with
  | Some (u, k, r, g) =>
      onebit u && (0 <? c_warp G)%nat && rows_ok_w (wtids G) (filter tid_only P) u (kmask u k) g r es n0 rows
  | None => false
  end.

(** Under [D] and [P] on the active lanes of a warp, an index accepted by [rows_acc] reads
    at most the charge at the entry's coefficient [U] on its [?] dimension (which the row
    multiplier, once formalized, names as [A·P + B]). *)
Lemma rows_acc_sound : forall ps s P D i es n0 rows T w,
  rows_acc P D i es n0 rows = true -> dsat G s T D ->
  (forall t, In t T -> sat (rho G ps s t) P) -> T <> [] -> incl T (lanes G w) ->
  exists U, (memreads G es T (oval G ps s i) <= rcharge n0 rows U)%Z /\ (1 <= rcharge n0 rows U)%Z.
Proof.
  intros ps s P D i es n0 rows T w H HD HP Hne Hi. unfold rows_acc in H.
  destruct (scl_entry D i) as [[[[u k] r] g]|] eqn:Es; [|discriminate].
  repeat rewrite andb_true_iff in H. destruct H as [[Hu HW] Hok]. apply Nat.ltb_lt in HW.
  destruct i as [x| | |]; simpl in Es; try discriminate.
  destruct (dget D x) as [[| | |y u' k0 r0 g0|]|] eqn:Ed; try discriminate.
  inversion Es; subst.
  destruct (dget_In _ _ _ Ed) as [Hin Hy]; simpl in Hy; subst y.
  specialize (HD _ Hin). simpl in HD. destruct HD as [_ [k' [c [Hk [Hcr HD]]]]].
  exists (kvalz k' (ukey u (1, 1, 1)%Z)).
  apply (rows_entry_sound ps s P u k k' c g r es n0 rows T w (oval G ps s (OVar x)) Hu Hok HW Hk Hcr);
    auto.
Qed.
End Rows.

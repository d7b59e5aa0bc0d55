(** * Soundness of the integer rewrites of Q:WEAK (issue 14)

    spec/certificate.md "Integer rewrites": [RIShift], [RIZero], [RIMono] of Logic.v.  On a
    state [r] satisfying [P], the environment [r'] that also gives the fresh variables
    [VL q], [VL (S q)] the values [⌊L/d⌋] of the atoms' floors satisfies [P] and the
    defining facts ([aarg_sound], [Floor.floor_def_lower], [Floor.floor_def_upper]); every
    cut derives a valid fact ([cut_of_sound], [Floor.cg_cut]); so the final Farkas witness
    proves its target about the atoms' arguments ([irw_sound]), and the rewrite is an
    equality ([Floor.ishift_sound] with [Floor.floor_shift], [Floor.izero_sound]) or an
    inequality ([Floor.imono_sound]) of atom values ([irw_atoms]). *)
From Coq Require Import ZArith QArith List Bool Arith Lia Lqa.
From WarpCert Require Import Lin Floor Logic.
Import ListNotations.
Local Open Scope Z_scope.

Lemma sat_app : forall r P1 P2, sat r P1 -> sat r P2 -> sat r (P1 ++ P2).
Proof. intros r P1 P2 H1 H2 c Hc. apply in_app_or in Hc as [Hc|Hc]; auto. Qed.

Lemma tsum_div : forall r m l, m <> 0 -> forallb (fun av => (fst av mod m =? 0)%Z) l = true ->
  tsum r l = m * tsum r (map (fun av => (fst av / m, snd av)%Z) l).
Proof.
  intros r m l Hm; induction l as [|[a v] l IH]; simpl; intros H; [lia|].
  apply andb_true_iff in H as [H1 H2]. apply Z.eqb_eq in H1.
  apply Z.mod_divide in H1; auto. rewrite IH by auto.
  rewrite (div_exact m a) at 1 by auto. ring.
Qed.

(** A cut derives a fact valid on every integer state satisfying its sources. *)
Lemma cut_of_sound : forall r P w c, sat r P -> cut_of P w = Some c -> holds r c.
Proof.
  intros r P [m ws] c HP H. unfold cut_of in H.
  destruct (Z.ltb_spec 0 m) as [Hm|Hm]; [|discriminate].
  destruct (fcomb P ws) as [Sm|] eqn:HS; [|discriminate].
  destruct (forallb _ (lterms (lnorm Sm))) eqn:Hd; [|discriminate].
  injection H as <-. pose proof (fcomb_le r P ws Sm HP HS) as Hle.
  unfold lnorm in Hd; cbn [lcst lterms] in Hd |- *.
  unfold leval in Hle |- *; cbn [holds lcst lterms] in *.
  rewrite <- (tnorm_sum r (lterms Sm)) in Hle.
  rewrite (tsum_div r m (tnorm (lterms Sm))) in Hle by (auto; lia).
  set (t := tsum r (map _ (tnorm (lterms Sm)))) in *.
  pose proof (cg_cut m t (lcst Sm) Hm ltac:(lia)).
  unfold leval; cbn [lcst lterms]. fold t. lia.
Qed.

Lemma cuts_src_sound : forall r cs P P', sat r P -> cuts_src P cs = Some P' -> sat r P'.
Proof.
  intros r cs; induction cs as [|c cs IH]; simpl; intros P P' HP H.
  - injection H as <-; auto.
  - destruct (cut_of P c) as [k|] eqn:Hk; [|discriminate].
    apply (IH (P ++ [k])); auto. apply sat_app; auto.
    intros c' [<-|[]]. eapply cut_of_sound; eauto.
Qed.

Lemma cg_ok_sound : forall r P fs cg t, sat r (P ++ fs) -> cg_ok P fs cg t = true ->
  leval r t <= 0.
Proof.
  intros r P fs cg t HP H. unfold cg_ok in H.
  destruct (cuts_src (P ++ fs) (fst cg)) as [Src|] eqn:Hs; [|discriminate].
  exact (farkas_sound r Src (CLe t) (snd cg) (cuts_src_sound r _ _ _ HP Hs) H).
Qed.

(** The argument of an atom and its defining facts, where [x] has the value of the floor. *)
Lemma aarg_sound : forall r x A, r x = leval r (alin A) / Zpos (adiv A) ->
  sat r (snd (aarg x A)) /\ leval r (fst (aarg x A)) = leval r (alin A) / Zpos (adiv A).
Proof.
  intros r x [L d] Hx; cbn [alin adiv] in *. unfold aarg; cbn [alin adiv].
  destruct (Z.eqb_spec (Zpos d) 1) as [E|E]; cbn [fst snd].
  - split; [intros c []|]. rewrite E, Z.div_1_r. reflexivity.
  - assert (Hv : leval r (mkLin 0 [(Zpos d, x)]) = Zpos d * r x)
      by (unfold leval, tsum; cbn [fold_right lcst lterms fst snd]; ring).
    assert (Hv1 : leval r (mkLin 0 [(1, x)]) = r x)
      by (unfold leval, tsum; cbn [fold_right lcst lterms fst snd]; ring).
    split; [|rewrite Hv1; auto].
    pose proof (floor_def_lower (leval r L) (Zpos d) ltac:(lia)).
    pose proof (floor_def_upper (leval r L) (Zpos d) ltac:(lia)).
    assert (Hk : forall k, leval r (mkLin k []) = k)
      by (intros; unfold leval, tsum; cbn [fold_right lcst lterms]; ring).
    intros c [<-|[<-|[]]]; cbn [holds]; unfold lsub, lplus;
      rewrite ?ladd_eval, ?lscale_eval, ?Hv, ?Hk; rewrite Hx; lia.
Qed.

Lemma holds_upd_notin : forall r x z c, mentions x (cform c) = false ->
  holds (upd r x z) c <-> holds r c.
Proof. intros r x z [L|L|L m rs] H; simpl in *; rewrite leval_upd_notin; tauto. Qed.

(** The environment with the fresh variables set. *)
Definition fenv (r : var -> Z) (q : nat) (v0 v1 : Z) : var -> Z := upd (upd r (VL q) v0) (VL (S q)) v1.

Lemma fenv_ok : forall r q P As v0 v1, fresh_ok q P As = true -> sat r P ->
  sat (fenv r q v0 v1) P /\
  (forall A, In A As -> leval (fenv r q v0 v1) (alin A) = leval r (alin A)) /\
  fenv r q v0 v1 (VL q) = v0 /\ fenv r q v0 v1 (VL (S q)) = v1.
Proof.
  intros r q P As v0 v1 H HP. unfold fresh_ok in H. apply andb_true_iff in H as [H1 H2].
  rewrite forallb_forall in H1, H2. unfold fenv. split; [|split; [|split]].
  - intros c Hc. specialize (H1 c Hc). apply andb_true_iff in H1 as [Ha Hb].
    apply negb_true_iff in Ha, Hb. apply holds_upd_notin; auto. apply holds_upd_notin; auto.
  - intros A HA. specialize (H2 A HA). apply andb_true_iff in H2 as [Ha Hb].
    apply negb_true_iff in Ha, Hb. rewrite !leval_upd_notin; auto.
  - unfold upd; cbn [var_key]. replace (Nat.eqb (3 * q) (3 * S q)) with false
      by (symmetry; apply Nat.eqb_neq; lia). rewrite Nat.eqb_refl. reflexivity.
  - unfold upd; cbn [var_key]. rewrite Nat.eqb_refl. reflexivity.
Qed.

(** The floor of an atom: its value is [max(0, afl r A)]. *)
Definition afl (r : var -> Z) (A : atm) : Z := leval r (alin A) / Zpos (adiv A).

(** What an accepted integer rewrite proves about the atoms' floors. *)
Lemma irw_sound : forall r P rw0, sat r P -> rw_ok P rw0 = true ->
  match rw0 with
  | RIShift _ A d _ => 0 <= d /\ d <= afl r A
  | RIZero _ A _ => afl r A <= 0
  | RIMono _ A1 A2 _ => afl r A2 <= afl r A1
  | _ => True
  end.
Proof.
  intros r P rw0 HP H. unfold afl.
  destruct rw0 as [| | | |q A d cg|q A cg|q A1 A2 cg| | | | |]; auto; simpl in H.
  - destruct (aarg (VL q) A) as [a1 f1] eqn:Ea.
    repeat rewrite andb_true_iff in H. destruct H as [[Hd Hf] Hc]. apply Z.leb_le in Hd.
    destruct (fenv_ok r q P [A] (leval r (alin A) / Zpos (adiv A)) 0 Hf HP) as [HP' [HA [H0 _]]].
    set (r' := fenv r q _ _) in *.
    assert (HL : leval r' (alin A) = leval r (alin A)) by (apply HA; left; auto).
    destruct (aarg_sound r' (VL q) A ltac:(rewrite H0, HL; auto)) as [Hs Hv].
    rewrite Ea in Hs, Hv; cbn [fst snd] in Hs, Hv.
    pose proof (cg_ok_sound r' P f1 cg _ (sat_app _ _ _ HP' Hs) Hc) as Ht.
    unfold lsub in Ht. rewrite ladd_eval, lscale_eval, Hv, HL in Ht.
    unfold leval at 1, tsum in Ht; cbn [fold_right lcst lterms] in Ht. lia.
  - destruct (aarg (VL q) A) as [a1 f1] eqn:Ea.
    apply andb_true_iff in H as [Hf Hc].
    destruct (fenv_ok r q P [A] (leval r (alin A) / Zpos (adiv A)) 0 Hf HP) as [HP' [HA [H0 _]]].
    set (r' := fenv r q _ _) in *.
    assert (HL : leval r' (alin A) = leval r (alin A)) by (apply HA; left; auto).
    destruct (aarg_sound r' (VL q) A ltac:(rewrite H0, HL; auto)) as [Hs Hv].
    rewrite Ea in Hs, Hv; cbn [fst snd] in Hs, Hv.
    pose proof (cg_ok_sound r' P f1 cg _ (sat_app _ _ _ HP' Hs) Hc) as Ht.
    rewrite Hv, HL in Ht. exact Ht.
  - destruct (aarg (VL q) A1) as [a1 f1] eqn:Ea1. destruct (aarg (VL (S q)) A2) as [a2 f2] eqn:Ea2.
    apply andb_true_iff in H as [Hf Hc].
    destruct (fenv_ok r q P [A1; A2] (leval r (alin A1) / Zpos (adiv A1))
                (leval r (alin A2) / Zpos (adiv A2)) Hf HP) as [HP' [HA [H0 H1]]].
    set (r' := fenv r q _ _) in *.
    assert (HL1 : leval r' (alin A1) = leval r (alin A1)) by (apply HA; left; auto).
    assert (HL2 : leval r' (alin A2) = leval r (alin A2)) by (apply HA; right; left; auto).
    destruct (aarg_sound r' (VL q) A1 ltac:(rewrite H0, HL1; auto)) as [Hs1 Hv1].
    destruct (aarg_sound r' (VL (S q)) A2 ltac:(rewrite H1, HL2; auto)) as [Hs2 Hv2].
    rewrite Ea1 in Hs1, Hv1. rewrite Ea2 in Hs2, Hv2. cbn [fst snd] in Hs1, Hv1, Hs2, Hv2.
    pose proof (cg_ok_sound r' P (f1 ++ f2) cg _
                  (sat_app _ _ _ HP' (sat_app _ _ _ Hs1 Hs2)) Hc) as Ht.
    unfold lsub in Ht. rewrite ladd_eval, lscale_eval, Hv1, Hv2, HL1, HL2 in Ht. lia.
Qed.

(** The atoms' values: [A = d + A↓d] ([ishift]), [A = 0] ([izero]). *)
Lemma atom_ishift : forall r A d, 0 <= d -> d <= afl r A ->
  (atom r (ashift A d) + inject_Z d == atom r (aflr A))%Q.
Proof.
  intros r [L dv k] d H0 H1. unfold afl, atom, ashift, aflr in *; cbn [alin adiv akd akval] in *.
  unfold lplus. rewrite ladd_eval.
  replace (leval r (mkLin (- (Zpos dv * d)) [])) with (- (Zpos dv * d))
    by (unfold leval, tsum; cbn [fold_right lcst lterms]; ring).
  replace (leval r L + - (Zpos dv * d)) with (leval r L - Zpos dv * d) by lia.
  rewrite floor_shift by lia. rewrite (ishift_sound (leval r L / Zpos dv) d H0 H1).
  rewrite inject_Z_plus. reflexivity.
Qed.

Lemma atom_izero : forall r A, afl r A <= 0 -> (atom r (aflr A) == 0)%Q.
Proof.
  intros r A H. unfold afl, atom, aflr in *; cbn [alin adiv akd akval].
  rewrite izero_sound by auto. reflexivity.
Qed.

Lemma atom_imono : forall r A1 A2, afl r A2 <= afl r A1 -> (atom r (aflr A2) <= atom r (aflr A1))%Q.
Proof.
  intros r A1 A2 H. unfold afl, atom, aflr in *; cbn [alin adiv akd akval].
  rewrite <- Zle_Qle. apply imono_sound; auto.
Qed.

(** ** Symbolic floor atoms (spec/certificate.md "Integer rewrites", [Lin.KFloorS])

    [⌊L/D⌋⁺] with a divisor form [D] of [gridDim] parameters: the rewrites [RSShift],
    [RSZero], [RSMono] of Logic.v have no defining facts; their witness proves its target
    from [P] alone ([srw_sound]).  [ishift] needs [D ≥ 1], read off the launch facts in [P]
    ([sdiv_pos_sound]); [izero] and [imono] hold for every value of [D] (the atom is [0]
    when [D < 1]). *)
Lemma sdiv_pos_sound : forall r P Dv, sat r P -> sdiv_wf Dv = true -> sdiv_pos P Dv = true ->
  1 <= leval r Dv.
Proof.
  intros r P [c l] HP Hw Hp. unfold sdiv_wf, sdiv_pos in *; cbn [lcst lterms] in *.
  apply andb_true_iff in Hw as [[Hc Hn]%andb_true_iff Hl]. apply Z.leb_le in Hc.
  destruct l as [|av0 l0]; [discriminate|]. clear Hn.
  assert (Ht : forall l, forallb (fun av => (0 <? fst av)%Z && match snd av with VP _ => true | _ => false end) l = true ->
            forallb (fun av => match snd av with
                     | VP p => existsb (fun c => match c with
                                                 | CLe L => lin_eqb (lnorm L) (gd_fact p)
                                                 | _ => false end) P
                     | _ => false end) l = true ->
            forall a v, In (a, v) l -> 1 <= a /\ 1 <= r v).
  { intros l H1 H2 a v Hin. rewrite forallb_forall in H1, H2.
    specialize (H1 _ Hin). specialize (H2 _ Hin). cbn [fst snd] in *.
    apply andb_true_iff in H1 as [Ha Hv]. apply Z.ltb_lt in Ha. split; [lia|].
    destruct v as [|p|]; try discriminate. apply existsb_exists in H2 as [c0 [Hc0 Hm]].
    destruct c0 as [L|L|L m rs]; try discriminate. unfold lin_eqb in Hm.
    destruct (lin_eq_dec (lnorm L) (gd_fact p)) as [E|]; [|discriminate].
    specialize (HP _ Hc0). cbn [holds] in HP. rewrite <- lnorm_eval, E in HP.
    unfold gd_fact, leval, tsum in HP; cbn [fold_right lcst lterms fst snd] in HP. lia. }
  specialize (Ht _ Hl Hp).
  assert (Hs : forall l', (forall a v, In (a, v) l' -> 1 <= a /\ 1 <= r v) -> 0 <= tsum r l').
  { intros l'; induction l' as [|[a v] l' IH]; intros H; simpl; [lia|].
    destruct (H a v (or_introl eq_refl)). assert (0 <= tsum r l') by (apply IH; intros; apply H; right; auto).
    nia. }
  destruct av0 as [a v]. unfold leval; cbn [lcst lterms tsum fold_right fst snd].
  destruct (Ht a v (or_introl eq_refl)).
  assert (0 <= tsum r l0) by (apply Hs; intros; apply Ht; right; auto).
  fold (tsum r l0). nia.
Qed.

(** What an accepted symbolic rewrite proves about the atom's form and divisor. *)
Lemma srw_sound : forall r P rw0, sat r P -> rw_ok P rw0 = true ->
  match rw0 with
  | RSShift L Dv k _ => 0 <= k /\ 1 <= leval r Dv /\ k * leval r Dv <= leval r L
  | RSZero L Dv _ => leval r L - leval r Dv + 1 <= 0
  | RSMono L1 L2 Dv _ => leval r L2 <= leval r L1
  | _ => True
  end.
Proof.
  intros r P rw0 HP H.
  assert (HP0 : sat r (P ++ [])) by (rewrite app_nil_r; exact HP).
  destruct rw0 as [| | | | | | | | |L Dv k cg|L Dv cg|L1 L2 Dv cg]; auto; simpl in H.
  - repeat rewrite andb_true_iff in H. destruct H as [[[Hk Hw] Hp] Hc]. apply Z.leb_le in Hk.
    pose proof (cg_ok_sound r P [] cg _ HP0 Hc) as Ht.
    unfold lsub in Ht. rewrite ladd_eval, !lscale_eval in Ht.
    split; [exact Hk|]. split; [exact (sdiv_pos_sound r P Dv HP Hw Hp)|lia].
  - apply andb_true_iff in H as [_ Hc].
    pose proof (cg_ok_sound r P [] cg _ HP0 Hc) as Ht.
    unfold lplus, lsub in Ht. rewrite !ladd_eval, lscale_eval in Ht.
    unfold leval at 3 in Ht; cbn [lcst lterms tsum fold_right] in Ht. lia.
  - apply andb_true_iff in H as [_ Hc].
    pose proof (cg_ok_sound r P [] cg _ HP0 Hc) as Ht.
    unfold lsub in Ht. rewrite ladd_eval, lscale_eval in Ht. lia.
Qed.

(** The atoms' values: [⌊L/D⌋⁺ = k + ⌊(L − k·D)/D⌋⁺] ([ishift]), [⌊L/D⌋⁺ = 0] ([izero]),
    [⌊L2/D⌋⁺ ≤ ⌊L1/D⌋⁺] ([imono]). *)
Lemma atom_sshift : forall r L Dv k, 0 <= k -> 1 <= leval r Dv -> k * leval r Dv <= leval r L ->
  (atom r (satm L Dv) == inject_Z k + atom r (satm (lsub L (lscale k Dv)) Dv))%Q.
Proof.
  intros r L Dv k H0 H1 H2. unfold atom, satm; cbn [alin adiv akd akval].
  rewrite !Z.div_1_r. unfold lsub. rewrite ladd_eval, !lscale_eval.
  destruct (Z.leb_spec 1 (leval r Dv)) as [_|]; [|lia].
  set (x := leval r L). set (y := leval r Dv) in *.
  replace (x + -1 * (k * y)) with (x + (- k) * y) by ring.
  rewrite Z.div_add by lia.
  assert (k <= x / y) by (apply Z.div_le_lower_bound; lia).
  replace (Z.max 0 (x / y)) with (k + Z.max 0 (x / y + - k)) by lia.
  rewrite inject_Z_plus. reflexivity.
Qed.

Lemma atom_szero : forall r L Dv, leval r L - leval r Dv + 1 <= 0 -> (atom r (satm L Dv) == 0)%Q.
Proof.
  intros r L Dv H. unfold atom, satm; cbn [alin adiv akd akval]. rewrite Z.div_1_r.
  destruct (Z.leb_spec 1 (leval r Dv)); [|reflexivity].
  assert (leval r L / leval r Dv < 1) by (apply Z.div_lt_upper_bound; lia).
  rewrite Z.max_l by lia. reflexivity.
Qed.

Lemma atom_smono : forall r L1 L2 Dv, leval r L2 <= leval r L1 ->
  (atom r (satm L2 Dv) <= atom r (satm L1 Dv))%Q.
Proof.
  intros r L1 L2 Dv H. unfold atom, satm; cbn [alin adiv akd]. rewrite <- Zle_Qle.
  apply akval_mono. apply Z.div_le_mono; lia.
Qed.

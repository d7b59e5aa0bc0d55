(** * Derivation trees, the boolean checker, and the bound theorem

    An exported certificate is a [dtree]: one node per rule application of
    the certificate, carrying the node's pre- and post-assertion and the
    witnesses.  [check] walks program and tree together and decides every side
    condition by computation; [check_qstmt] reflects an accepted tree into the
    inductive logic of Logic.v, and [bound_sound] combines it with
    [soundness] (Soundness.v): the exported file proves its bound theorem by
    [vm_compute] on [check_root] (proof by reflection).

    Access bounds [N*] are memoized as the kernel does: the file carries a table
    of claims [(key, n)] ([N*(key) ≤ n]); [check_root] computes [N*] once per
    entry ([tab_ok]), and the accesses of the tree look their key up ([tab_le]).
    The lanes' thread ids [wtids G] are computed once by [check_root] and passed to
    [check] (for the [>>] rule of [dep_D]). *)
From Coq Require Import ZArith QArith List Bool Arith Lia Lqa.
From WarpCert Require Import Metric Syntax Semantics Lin Shift Logic Soundness.
Import ListNotations.

(** The access claim of a read or write: the claimed count [n] (0 for other expressions). *)
Definition accw := Z.

Inductive dtree :=
  | DSkip (A : assn)
  | DSync (A B : assn)
  | DSeq (A B : assn) (d1 d2 : dtree)
  | DVwrite1 (A B : assn) (ne : accw) (ws : list fwit)
  | DVwrite2 (A B : assn) (ne : accw) (ws : list fwit)
  | DWrite (A B : assn) (n ne : accw)
  | DIf1 (A B : assn) (ne : accw) (dt df : dtree)
  | DIf2 (A B : assn) (ne : accw) (ws : list fwit) (dt : dtree)
  | DIf3 (A B : assn) (ne : accw) (ws : list fwit) (df : dtree)
  | DIf4 (A B : assn) (ne : accw) (wec wet wjt wje : list fwit) (dt df : dtree)
  | DWhile1 (A B : assn) (ne : accw) (db : dtree)
  | DWhile2 (A B : assn) (ne : accw) (db : dtree)
  | DWhileLast (A B : assn) (ne : accw) (sw : Z) (wl : list fwit) (db dl : dtree)
  | DWhileWarp (A B : assn) (ne : accw) (db : dtree)
  | DUnroll (A B : assn) (d : dtree)
  | DWeak (A B : assn) (k : Q) (wpre : list fwit) (rpre : list rw) (wpost : list fwit)
      (rpost : list rw) (d : dtree)
  | DIfExit1 (A B : assn) (ne : accw) (wx wjt wje : list fwit) (dt df : dtree)
  | DIfExit4 (A B : assn) (ne : accw) (wx wjt wje : list fwit) (dt df : dtree)
  | DWhileExit1 (A B : assn) (ne : accw) (db : dtree)
  | DWhileExit2 (A B : assn) (ne : accw) (db : dtree)
  | DWarp (A B : assn)
  (* issue 15 (exits15b): Q:GUARD, Q:GUARDEXIT *)
  | DGuard (A B : assn) (rg : list rw) (d : dtree)
  | DGuardExit (A B : assn) (wx : list fwit) (d : dtree)
  (* issue 15 (brk15): Q:IFGUARD4 *)
  | DIfGuard4 (A B : assn) (ne : accw) (wjt wje : list fwit) (dt df : dtree)
  (* issue 15 (exit15): Q:WHILEGUARD ([s0; while (g) s], the guard's condition [GE]), SEQ_ASSOC *)
  | DWhileGuard (A B : assn) (ne : accw) (uf : bool) (GE : list cstr) (rg : list rw) (d0 db : dtree)
  | DAssoc (A B : assn) (d : dtree)
  (* issue 15 (exit16): Q:FLAGEXIT ([s1; if f then s2 else s3], [d1] filtered for [f]) *)
  | DFlagExit (A B : assn) (ne : accw) (wjt wje : list fwit) (d1 dt df : dtree)
  (* issue 15 (align15): Q:IFALIGN; [r], [m]: the node's residue class [(class r m)], the
     charge [[m ∤ r − X]] is built by the check *)
  | DIfAlign (A B : assn) (ne : accw) (wec wet wjt wje : list fwit) (r : Z) (m : positive)
      (dt df : dtree)
  (* issue 15 (exit15b): Q:WHILEGUARD0 ([s0; while (g) s], [g] uniform in the loop's pre;
     [J0] the pre's entry potential, [r0] its rewrites under the body's pre) *)
  | DWhileGuard0 (A B : assn) (ne : accw) (GE : list cstr) (J0 : pot) (rg r0 : list rw)
      (d0 db : dtree)
  (* issue 15 (wla15): Q:WHILELASTALIGN, Q:WHILELAST's fields then the node's residue class
     [(class r m)]; the charge [[m ∤ r − X]] is built by the check *)
  | DWhileLastAlign (A B : assn) (ne : accw) (sw : Z) (wl : list fwit) (r : Z) (m : positive)
      (db dl : dtree)
  (* issue 14 (brdis14): L:IFWRAP, a lower rule only (LowerCheck.v; [check] rejects it):
     L:IFD's [P ⇒ P'] witnesses [wjt]; the split is decided from [D] and the lanes *)
  | DIfWrap (A B : assn) (ne : accw) (wjt : list fwit)
  (* issue 15 (case17): Q:CASE (the split form [L], equality rewrites [rt], [rf] of both
     sides, join witnesses), Q:WHILENONE ([g ← E; while (g) s], [ws]: [P ⇒ cond(¬E)]) *)
  | DCase (A B : assn) (L : lin) (rt rf : list rw) (wjt wje : list fwit) (dt df : dtree)
  | DWhileNone (A B : assn) (ne : accw) (ws : list fwit) (d0 : dtree)
  (* issue 15 (coqrows17): Q:GWRITEROWS / Q:VWRITEROWS, the charge's fields [(n N₀)],
     [(rows (C M)…)]; the written expression's claim [ne]; Q:VWRITE2's witnesses [ws] *)
  | DWriteRows (A B : assn) (n0 : Z) (rows : list (Z * Z)) (ne : accw)
  | DVwriteRows (A B : assn) (n0 : Z) (rows : list (Z * Z))
  (* issue 14 (lowercoq18): L:GARRAYSTRIDE / L:GWRITESTRIDE, lower rules only (LowerCheck.v;
     [check] rejects them): L:VWRITE1 / L:VWRITE2 whose read is L:GARRAYSTRIDE, its
     [(entail stride w)] list [wst]; L:GWRITESTRIDE, L:GWRITE's fields then [wst] *)
  | DVwrite1S (A B : assn) (ne : accw) (wst ws : list fwit)
  | DVwrite2S (A B : assn) (ne : accw) (wst ws : list fwit)
  | DWriteS (A B : assn) (n ne : accw) (wst : list fwit)
  (* issue 15 (coqguard18): Q:GWRITEGUARD / Q:VWRITEGUARD, the charge's fields [(n N₀)],
     [(guard I S (C t)…)]; the written expression's claim [ne] *)
  | DWriteGuard (A B : assn) (n0 : Z) (gi : nat) (sd : Z) (terms : list (Z * Z)) (ne : accw)
  | DVwriteGuard (A B : assn) (n0 : Z) (gi : nat) (sd : Z) (terms : list (Z * Z))
  (* issue 15 (wincoq19): Q:WHILELASTWINDOW, Q:WHILELAST's fields then the node's modulus
     [(n m)]; the hull [[a, b]] and the charge [[(b − X) mod m < b − a + 1]] are built by the
     check *)
  | DWhileLastWindow (A B : assn) (ne : accw) (sw : Z) (wl : list fwit) (m : positive)
      (db dl : dtree)
  (* issue 14 (lowersplit19): L:IFSPLIT, a lower rule only (LowerCheck.v; [check] rejects
     it): the test's claim [ne], the witnesses of [P ⇒ P'] ([wjt]), [P ∧ e ⇒ P1] ([wth])
     and [P ∧ ¬e ⇒ P2] ([wel]); the branches over the two lane subsets *)
  | DIfSplit (A B : assn) (ne : accw) (wjt wth wel : list fwit) (dt df : dtree)
  (* issue 14 (iflanescoq19): L:IFLANES, a lower rule only (LowerCheck.v; [check] rejects
     it): DIfSplit's fields; a side with no lanes has no child in the certificate and is
     printed as [DSkip] (not checked) *)
  | DIfLanes (A B : assn) (ne : accw) (wjt wth wel : list fwit) (dt df : dtree)
  (* issue 15 (capcons20): Q:WHILEGUARDCAP ([s0; while (g) s], DWhileGuard's fields without
     the mode) and Q:WHILEEXITCAP (DWhileExit2's fields); the body [db] is checked under
     [ctx_nodiv G] and the charge counted by CapCheck.v ([ccheck]; [check] rejects them) *)
  | DWhileGuardCap (A B : assn) (ne : accw) (GE : list cstr) (rg : list rw) (d0 db : dtree)
  | DWhileExitCap (A B : assn) (ne : accw) (db : dtree)
  (* issue 15 (cap2wire20): Q:WHILEEXITCAP2, DWhileExitCap's fields; the loop test keeps
     [M^div] ([k = M^if + M^div + C]), checked by CapCheck.v ([check] rejects it) *)
  | DWhileExitCap2 (A B : assn) (ne : accw) (db : dtree).

Definition dpre (d : dtree) : assn :=
  match d with
  | DSkip A => A
  | DSync A _ | DSeq A _ _ _ | DVwrite1 A _ _ _ | DVwrite2 A _ _ _ | DWrite A _ _ _
  | DIf1 A _ _ _ _ | DIf2 A _ _ _ _ | DIf3 A _ _ _ _ | DIf4 A _ _ _ _ _ _ _ _
  | DWhile1 A _ _ _ | DWhile2 A _ _ _ | DWhileLast A _ _ _ _ _ _ | DWhileWarp A _ _ _
  | DUnroll A _ _
  | DWeak A _ _ _ _ _ _ _
  | DIfExit1 A _ _ _ _ _ _ _ | DIfExit4 A _ _ _ _ _ _ _ | DWhileExit1 A _ _ _
  | DWhileExit2 A _ _ _ | DWarp A _ => A
  | DGuard A _ _ _ | DGuardExit A _ _ _ => A
  | DIfGuard4 A _ _ _ _ _ _ => A
  | DWhileGuard A _ _ _ _ _ _ _ | DAssoc A _ _ => A
  | DFlagExit A _ _ _ _ _ _ _ => A
  | DIfAlign A _ _ _ _ _ _ _ _ _ _ => A
  | DWhileGuard0 A _ _ _ _ _ _ _ _ => A
  | DWhileLastAlign A _ _ _ _ _ _ _ _ => A
  | DIfWrap A _ _ _ => A
  | DCase A _ _ _ _ _ _ _ _ | DWhileNone A _ _ _ _ => A
  | DWriteRows A _ _ _ _ | DVwriteRows A _ _ _ => A
  | DVwrite1S A _ _ _ _ | DVwrite2S A _ _ _ _ | DWriteS A _ _ _ _ => A
  | DWriteGuard A _ _ _ _ _ _ | DVwriteGuard A _ _ _ _ _ => A
  | DWhileLastWindow A _ _ _ _ _ _ _ => A
  | DIfSplit A _ _ _ _ _ _ _ => A
  | DIfLanes A _ _ _ _ _ _ _ => A
  | DWhileGuardCap A _ _ _ _ _ _ | DWhileExitCap A _ _ _ => A
  | DWhileExitCap2 A _ _ _ => A
  end.
Definition dpost (d : dtree) : assn :=
  match d with
  | DSkip A => A
  | DSync _ B | DSeq _ B _ _ | DVwrite1 _ B _ _ | DVwrite2 _ B _ _ | DWrite _ B _ _
  | DIf1 _ B _ _ _ | DIf2 _ B _ _ _ | DIf3 _ B _ _ _ | DIf4 _ B _ _ _ _ _ _ _
  | DWhile1 _ B _ _ | DWhile2 _ B _ _ | DWhileLast _ B _ _ _ _ _ | DWhileWarp _ B _ _
  | DUnroll _ B _
  | DWeak _ B _ _ _ _ _ _
  | DIfExit1 _ B _ _ _ _ _ _ | DIfExit4 _ B _ _ _ _ _ _ | DWhileExit1 _ B _ _
  | DWhileExit2 _ B _ _ | DWarp _ B => B
  | DGuard _ B _ _ | DGuardExit _ B _ _ => B
  | DIfGuard4 _ B _ _ _ _ _ => B
  | DWhileGuard _ B _ _ _ _ _ _ | DAssoc _ B _ => B
  | DFlagExit _ B _ _ _ _ _ _ => B
  | DIfAlign _ B _ _ _ _ _ _ _ _ _ => B
  | DWhileGuard0 _ B _ _ _ _ _ _ _ => B
  | DWhileLastAlign _ B _ _ _ _ _ _ _ => B
  | DIfWrap _ B _ _ => B
  | DCase _ B _ _ _ _ _ _ _ | DWhileNone _ B _ _ _ => B
  | DWriteRows _ B _ _ _ | DVwriteRows _ B _ _ => B
  | DVwrite1S _ B _ _ _ | DVwrite2S _ B _ _ _ | DWriteS _ B _ _ _ => B
  | DWriteGuard _ B _ _ _ _ _ | DVwriteGuard _ B _ _ _ _ => B
  | DWhileLastWindow _ B _ _ _ _ _ _ => B
  | DIfSplit _ B _ _ _ _ _ _ => B
  | DIfLanes _ B _ _ _ _ _ _ => B
  | DWhileGuardCap _ B _ _ _ _ _ | DWhileExitCap _ B _ _ => B
  | DWhileExitCap2 _ B _ _ => B
  end.

Definition dec_b {A} (d : forall a b : A, {a = b} + {a <> b}) (a b : A) : bool :=
  if d a b then true else false.
Lemma dec_b_eq : forall A d (a b : A), dec_b d a b = true -> a = b.
Proof. intros A d a b; unfold dec_b; destruct (d a b); congruence. Qed.

Definition pot_eq_dec : forall a b : pot, {a = b} + {a <> b}.
Proof.
  intros a b. destruct (assn_eq_dec (mkAssn [] [] a) (mkAssn [] [] b)) as [E|E];
    [left; inversion E; auto | right; intros ->; auto].
Defined.
Definition peq := dec_b (list_eq_dec cstr_eq_dec).
Definition deq := dec_b (list_eq_dec dent_eq_dec).
Definition qeq := dec_b pot_eq_dec.
Definition aeq := dec_b assn_eq_dec.

Definition pair_dec {A B} (da : forall a b : A, {a = b} + {a <> b})
    (db : forall a b : B, {a = b} + {a <> b}) : forall a b : A * B, {a = b} + {a <> b}.
Proof.
  intros [a1 b1] [a2 b2]. destruct (da a1 a2), (db b1 b2); subst; auto;
    right; intros H; inversion H; auto.
Defined.

Definition option_dec {A} (da : forall a b : A, {a = b} + {a <> b}) :
    forall a b : option A, {a = b} + {a <> b}.
Proof. decide equality. Defined.

Definition nkey_eq_dec : forall a b : nkey, {a = b} + {a <> b} :=
  pair_dec (pair_dec (pair_dec (pair_dec (pair_dec Bool.bool_dec (list_eq_dec cstr_eq_dec))
    (option_dec (pair_dec (pair_dec trip_eq_dec Z.eq_dec) Z.eq_dec))) (option_dec Z.eq_dec)) Z.eq_dec)
    (option_dec (pair_dec (pair_dec (pair_dec Bool.bool_dec Bool.bool_dec) Bool.bool_dec) trip_eq_dec)).

(** A table of access-bound claims [N*(key) ≤ n]. *)
Definition ntab := list (nkey * Z).
Definition tab_le (tab : ntab) (key : nkey) (n : Z) : bool :=
  existsb (fun kn => dec_b nkey_eq_dec (fst kn) key && (snd kn <=? n)%Z) tab.

Ltac split_b :=
  repeat match goal with
         | H : (_ && _) = true |- _ => apply andb_true_iff in H as [? ?]
         | H : peq _ _ = true |- _ => apply dec_b_eq in H
         | H : deq _ _ = true |- _ => apply dec_b_eq in H
         | H : qeq _ _ = true |- _ => apply dec_b_eq in H
         | H : aeq _ _ = true |- _ => apply dec_b_eq in H
         end.

Section Check.
Variable G : ctx.
Variable tab : ntab.
Variable wt : list (list trip).
Let M := c_metric G.

(** Each claim of the table, [N*] computed once per entry from the lanes' thread ids
    [wt] ([wtids G], computed once by [check_root]). *)
Definition tab_ok_w (wt : list (list (Z * Z * Z))) : bool :=
  forallb (fun kn => (nstar_w G wt (fst kn) <=? snd kn)%Z) tab.
Definition tab_ok : bool := tab_ok_w (wtids G).

Lemma tab_sound : tab_ok = true -> forall key n, tab_le tab key n = true -> exact_bnd G key n = true.
Proof.
  intros Ht key n H. unfold tab_le in H. apply existsb_exists in H as [[k m] [Hin H]].
  apply andb_true_iff in H as [E H]. apply dec_b_eq in E. simpl in E, H. subst k.
  unfold tab_ok, tab_ok_w in Ht. rewrite forallb_forall in Ht. specialize (Ht _ Hin).
  simpl in Ht. unfold exact_bnd, nstar. apply Z.leb_le in Ht, H. apply Z.leb_le. lia.
Qed.

Lemma dacc_with_mono : forall (b1 b2 : nkey -> Z -> bool) sh P D i es n,
  (forall key m, b1 key m = true -> b2 key m = true) ->
  dacc_with G b1 sh P D i es n = true -> dacc_with G b2 sh P D i es n = true.
Proof.
  intros b1 b2 sh P D i es n Hb H. unfold dacc_with in *. repeat rewrite andb_true_iff in *.
  intuition.
Qed.

Definition ocost (o : opd) : Q :=
  match o with OVar _ | OTid _ => m_var M | OConst _ => m_const M | OParam _ => m_param M end.

Definition gacc_ok (sh : bool) (P : list cstr) (D : list dent) (i : opd) (es n : Z) : bool :=
  dacc_with G (tab_le tab) sh P D i es n.

Lemma gacc_ok_sound : tab_ok = true -> forall sh P D i es n, gacc_ok sh P D i es n = true ->
  dacc G sh P D i es n = true.
Proof. intros Ht sh P D i es n H. eapply dacc_with_mono; [|exact H]. apply tab_sound; auto. Qed.

Definition ecost (P : list cstr) (D : list dent) (e : expr) (n : accw) : option Q :=
  match e with
  | EOpd o => Some (ocost o)
  | EBin _ a b => Some (ocost a + ocost b + m_op M)
  | EUn _ a => Some (ocost a + m_op M)
  | ERead A i =>
      match c_arr G A with
      | Some (Global, es) =>
          if gacc_ok false P D i es n then Some (ocost i + m_gread M n) else None
      | Some (Shared, es) =>
          if gacc_ok true P D i es n then Some (ocost i + m_sread M n) else None
      | Some (Local, _) => Some (ocost i + m_var M)
      | None => None
      end
  end.

(** The operand costs of a warp operation (Q:SHFL, Q:VOTE). *)
Definition wcost (op : warpop) : Q :=
  match op with WShfl _ _ v l => ocost v + ocost l | WVote _ p => ocost p end.

Lemma ocost_sound : forall o, qopd G o (ocost o).
Proof. intros [x|p|v|d]; constructor. Qed.

Lemma ecost_sound : tab_ok = true ->
  forall P D e n C, ecost P D e n = Some C -> qexpr G P D e n C.
Proof.
  intros Ht P D [o|op a b|op a|A i] n C H; simpl in H.
  - inversion H; constructor; apply ocost_sound.
  - inversion H; constructor; apply ocost_sound.
  - inversion H; constructor; apply ocost_sound.
  - destruct (c_arr G A) as [[[] es]|] eqn:E; try discriminate.
    + destruct (gacc_ok false P D i es n) eqn:Ea; inversion H.
      eapply EQ_GARRAY; eauto using gacc_ok_sound; apply ocost_sound.
    + destruct (gacc_ok true P D i es n) eqn:Ea; inversion H.
      eapply EQ_SARRAY; eauto using gacc_ok_sound; apply ocost_sound.
    + inversion H. eapply EQ_LARRAY; eauto; apply ocost_sound.
Qed.

(** In filtered position ([fe = Some e], spec/logic.md §4a) a node of an ordinary rule is
    coerced ([F_ORD]), which needs its pre potential uniform under its pre map and its
    post potential non-negative (both implied by well-formedness). *)
Definition fco (fe : option expr) (A B : assn) : bool :=
  match fe with None => true | Some _ => puni G (aD A) (aQ A) && pnonneg (aQ B) end.

(** Q:VWRITE1 with the bounding substitution of a halving assignment (spec/logic.md §4
    "Halving", Shift.v): the witnesses end with one for [P ⇒ A ≥ 1]; log atoms rising with
    [x] get [x ← A/d] ([d = hdiv e]), no quotient log atom has [x] in its divisor form. *)
Definition vw1h_ok (P : list cstr) (D : list dent) (Qn : pot) (P' : list cstr)
    (D' : list dent) (Q' : pot) (x : nat) (e : expr) (C : Q) (ws : list fwit) : bool :=
  match halving G e with
  | Some La => vw_dent_w G wt P D x e D' && entails_bsubst P x La P' ws && ptnonneg Q' &&
      pdivfree (VL x) Q' && pot_ge Qn (padd (pbsubst (VL x) La (hdiv e) Q') (m_vwrite M + C))
  | None => false
  end.

(** A factor's bound [α] of Q:VWRITE1's lower bounding substitution (spec/logic.md §4
    "Products"): 1 when its witness [w] shows [P ⇒ A ≥ 1], else 0. *)
Definition factor_bound (P : list cstr) (A : lin) (w : fwit) : Z :=
  if farkas_ok P (at_least A 1) w then 1%Z else 0%Z.

(** Q:VWRITE1 with the lower bounding substitution of a product (spec/logic.md §4
    "Products", Shift.v): the witnesses end with those of [P ⇒ A ≥ α], [P ⇒ B ≥ β], and
    [α], [β] are read off them ([factor_bound]). *)
Definition vw1p_ok (P : list cstr) (D : list dent) (Qn : pot) (P' : list cstr)
    (D' : list dent) (Q' : pot) (x : nat) (e : expr) (C : Q) (ws : list fwit) : bool :=
  match product G e, rev ws with
  | Some (A, B), wb :: wa :: _ =>
      let al := factor_bound P A wa in
      let be := factor_bound P B wb in
      let F := prod_floor A B al be in
      vw_dent_w G wt P D x e D' && entails_lsubst P x F [at_least A al; at_least B be] P' ws &&
      ptnonneg Q' && pfalls (VL x) Q' && pot_ge Qn (padd (plsubst (VL x) F Q') (m_vwrite M + C))
  | _, _ => false
  end.

(** The divisors of symbolic floor atoms named by rewrites ([RSShift], [RSZero], [RSMono])
    are [gridDim] parameters (spec/certificate.md "Integer rewrites"; [Logic.sdiv_wf]
    checks the rest): every variable of [D] is a parameter listed in [c_griddim]. *)
Definition sdiv_gd (Dv : lin) : bool :=
  forallb (fun av => match snd av with VP p => existsb (Nat.eqb p) (c_griddim G) | _ => false end)
    (lterms Dv).
Definition rws_gd (rs : list rw) : bool :=
  forallb (fun r => match r with
                    | RSShift _ Dv _ _ | RSZero _ Dv _ | RSMono _ _ Dv _ => sdiv_gd Dv
                    | _ => true end) rs.

(** [check fe u s d]: [d] derives [s] as an ordinary judgment ([fe = None]) or as a
    filtered judgment for the loop condition [e] ([fe = Some e]; [u]: no Q:IFEXIT4 in
    filtered position, as Q:WHILEEXIT1 requires). *)
Fixpoint check (fe : option expr) (u : bool) (s : stmt) (d : dtree) : bool :=
  match d, s with
  | DSkip A, SSkip => fco fe A A
  | DWarp A B, SWarp x op =>
      warp_post_p (aP A) (aP B) x && warp_dent G (aD A) x op (aD B) &&
      negb (pmentions (VL x) (aQ B)) &&
      pot_ge (aQ A) (padd (aQ B) (wcost op + m_op M + m_vwrite M)) && fco fe A B
  | DSync A B, SSync =>
      peq (aP A) (aP B) && deq (aD A) (aD B) && pot_ge (aQ A) (padd (aQ B) (m_sync M)) &&
      fco fe A B
  | DSeq A B d1 d2, SSeq s1 s2 =>
      aeq (dpre d1) A && aeq (dpost d1) (dpre d2) && aeq (dpost d2) B &&
      check None false s1 d1 && check fe u s2 d2
  | DVwrite1 A B ne ws, SAssign x e =>
      match ecost (aP A) (aD A) e ne with
      | Some C =>
          vw_dent_w G wt (aP A) (aD A) x e (aD B) &&
          entails_subst G (aP A) x e (aP B) ws &&
          (match lin_fix G (aP A) e with Some _ => true | None => negb (pmentions (VL x) (aQ B)) end) &&
          pot_ge (aQ A) (padd (psubst_e G (aP A) x e (aQ B)) (m_vwrite M + C)) && fco fe A B
          || vw1h_ok (aP A) (aD A) (aQ A) (aP B) (aD B) (aQ B) x e C ws && fco fe A B
          || vw1p_ok (aP A) (aD A) (aQ A) (aP B) (aD B) (aQ B) x e C ws && fco fe A B
      | None => false
      end
  | DVwrite2 A B ne ws, SAssign x e =>
      match ecost (aP A) (aD A) e ne with
      | Some C =>
          vw_dent_w G wt (aP A) (aD A) x e (aD B) && entails_subst G (aP A) x e (aP B) ws &&
          negb (pmentions (VL x) (aQ B)) && pot_ge (aQ A) (padd (aQ B) (m_vwrite M + C)) &&
          fco fe A B
      | None => false
      end
  | DWrite A B n ne, SWrite Ar i e =>
      match ecost (aP A) (aD A) e ne, c_arr G Ar with
      | Some C2, Some (Global, es) =>
          peq (aP A) (aP B) && deq (aD A) (aD B) && gacc_ok false (aP A) (aD A) i es n &&
          pot_ge (aQ A) (padd (aQ B) (m_gwrite M n + ocost i + C2)) && fco fe A B
      | Some C2, Some (Shared, es) =>
          peq (aP A) (aP B) && deq (aD A) (aD B) && gacc_ok true (aP A) (aD A) i es n &&
          pot_ge (aQ A) (padd (aQ B) (m_swrite M n + ocost i + C2)) && fco fe A B
      | Some C2, Some (Local, es) =>
          peq (aP A) (aP B) && deq (aD A) (aD B) &&
          pot_ge (aQ A) (padd (aQ B) (m_vwrite M + ocost i + C2)) && fco fe A B
      | _, _ => false
      end
  | DWriteRows A B n0 rows ne, SWrite Ar i e =>
      match ecost (aP A) (aD A) e ne, c_arr G Ar with
      | Some C2, Some (Global, es) =>
          match rows_acc_w G wt (aP A) (aD A) i es n0 rows with
          | Some X =>
              peq (aP A) (aP B) && deq (aD A) (aD B) &&
              pot_ge (aQ A) (padd (pcharge (aQ B) (m_gwrite M 1) X n0 rows) (ocost i + C2)) &&
              fco fe A B
          | None => false
          end
      | _, _ => false
      end
  | DVwriteRows A B n0 rows, SAssign x (ERead Ar i) =>
      match c_arr G Ar with
      | Some (Global, es) =>
          match rows_acc_w G wt (aP A) (aD A) i es n0 rows with
          | Some X =>
              vw_dent_w G wt (aP A) (aD A) x (ERead Ar i) (aD B) &&
              warp_post_p (aP A) (aP B) x &&
              negb (pmentions (VL x) (aQ B)) &&
              pot_ge (aQ A) (padd (pcharge (aQ B) (m_gread M 1) X n0 rows) (m_vwrite M + ocost i)) &&
              fco fe A B
          | None => false
          end
      | _ => false
      end
  | DWriteGuard A B n0 gi sd terms ne, SWrite Ar i e =>
      match ecost (aP A) (aD A) e ne, c_arr G Ar with
      | Some C2, Some (Global, es) =>
          match guard_acc_w G wt (aP A) (aD A) i es n0 gi sd terms with
          | Some Lu =>
              peq (aP A) (aP B) && deq (aD A) (aD B) &&
              gpot_ok (aQ A) (aQ B) (m_gwrite M 1) Lu sd n0 terms (ocost i + C2) &&
              fco fe A B
          | None => false
          end
      | _, _ => false
      end
  | DVwriteGuard A B n0 gi sd terms, SAssign x (ERead Ar i) =>
      match c_arr G Ar with
      | Some (Global, es) =>
          match guard_acc_w G wt (aP A) (aD A) i es n0 gi sd terms with
          | Some Lu =>
              vw_dent_w G wt (aP A) (aD A) x (ERead Ar i) (aD B) &&
              warp_post_p (aP A) (aP B) x &&
              negb (pmentions (VL x) (aQ B)) &&
              gpot_ok (aQ A) (aQ B) (m_gread M 1) Lu sd n0 terms (m_vwrite M + ocost i) &&
              fco fe A B
          | None => false
          end
      | _ => false
      end
  | DIf1 A B ne dt df, SIf e s1 s2 =>
      match ecost (aP A) (aD A) e ne with
      | Some C =>
          let T := dpre dt in let F := dpre df in
          unif G (dunif G (aD A)) e &&
          cstrs_equiv (aP T) (andc G (aP A) (aD A) e false) &&
          cstrs_equiv (aP F) (andc G (aP A) (aD A) e true) &&
          deq (aD T) (aD A) && deq (aD F) (aD A) && qeq (aQ F) (aQ T) &&
          aeq (dpost dt) B && aeq (dpost df) B &&
          pot_ge (aQ A) (padd (aQ T) (m_if M + C)) && check fe u s1 dt && check fe u s2 df
      | None => false
      end
  | DIf2 A B ne ws dt, SIf e s1 s2 =>
      match ecost (aP A) (aD A) e ne with
      | Some C =>
          let T := dpre dt in
          nonempty (fst (cond G e)) && entails (aP A) (fst (cond G e)) ws &&
          peq (aP T) (aP A) && deq (aD T) (aD A) && aeq (dpost dt) B &&
          pot_ge (aQ A) (padd (aQ T) (m_if M + C)) && check fe u s1 dt
      | None => false
      end
  | DIf3 A B ne ws df, SIf e s1 s2 =>
      match ecost (aP A) (aD A) e ne with
      | Some C =>
          let F := dpre df in
          nonempty (snd (cond G e)) && entails (aP A) (snd (cond G e)) ws &&
          peq (aP F) (aP A) && deq (aD F) (aD A) && aeq (dpost df) B &&
          pot_ge (aQ A) (padd (aQ F) (m_if M + C)) && check fe u s2 df
      | None => false
      end
  | DIf4 A B ne wec wet wjt wje dt df, SIf e s1 s2 =>
      match ecost (aP A) (aD A) e ne with
      | Some C =>
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
          pot_ge (aQ A) (padd (aQ T) (m_if M + C + m_div M)) &&
          check None false s1 dt && check None false s2 df && fco fe A B
      | None => false
      end
  | DWhile1 A B ne db, SWhile e s =>
      match ecost (aP A) (aD A) e ne with
      | Some C =>
          let Bp := dpre db in let Bq := dpost db in
          unif G (dunif G (aD A)) e && deq (aD Bp) (aD A) && deq (aD Bq) (aD A) &&
          deq (aD B) (aD A) &&
          cstrs_equiv (aP Bp) (andc G (aP A) (aD A) e false) && cstrs_equiv (aP Bq) (aP A) &&
          pot_ge (aQ B) (aQ Bp) && pot_ge (aQ Bq) (padd (aQ B) (m_if M + C)) &&
          pot_ge (aQ A) (padd (aQ B) (m_if M + C)) &&
          cstrs_equiv (aP B) (andc G (aP A) (aD A) e true) && check None false s db &&
          fco fe A B
      | None => false
      end
  | DWhile2 A B ne db, SWhile e s =>
      match ecost (aP A) (aD A) e ne with
      | Some C =>
          let Bp := dpre db in let Bq := dpost db in
          deq (aD Bp) (aD A) && deq (aD Bq) (aD A) &&
          cstrs_equiv (aP Bp) (andc G (aP A) (aD A) e false) && cstrs_equiv (aP Bq) (aP A) &&
          pot_ge (aQ Bq) (padd (aQ Bp) (m_if M + m_div M + C)) &&
          pot_ge (aQ A) (padd (aQ Bp) (m_if M + m_div M + C)) &&
          cstrs_equiv (aP B) (andc G (aP A) (aD A) e true) &&
          dcovers (aD A) (aD B) && disjoint (dvars (aD B)) (writes s) &&
          puni G (aD A) (aQ Bp) && puni G (aD B) (aQ B) && pot_ge (aQ Bp) (aQ B) &&
          check None false s db && fco fe A B
      | None => false
      end
  | DWhileLast A B ne sw wl db dl, SWhile e s =>
      match ecost (aP A) (aD A) e ne, fst (cond G e) with
      | Some C, CLe L :: nil =>
          match lin_k G (aD A) L with
          | Some k =>
              let Bp := dpre db in let Bq := dpost db in
              let Lp := dpre dl in let Lq := dpost dl in
              nonempty (snd (cond G e)) && spread_ok wt k sw &&
              deq (aD Bp) (aD A) && deq (aD Bq) (aD A) &&
              deq (aD Lp) (aD A) && deq (aD Lq) (aD A) && qeq (aQ Lp) (aQ Bp) &&
              cstrs_equiv (aP Bp) (andc G (aP A) (aD A) e false) && cstrs_equiv (aP Bq) (aP A) &&
              cstrs_equiv (aP Lp) (andc G (aP A) (aD A) e false ++ [last_window L sw]) &&
              entails (aP Lq) (aP A ++ snd (cond G e)) wl &&
              pot_ge (aQ Bq) (padd (aQ Bp) (m_if M + C)) &&
              pot_ge (aQ Lq) (padd (aQ Bp) (m_if M + C)) &&
              pot_ge (aQ A) (padd (aQ Bp) (m_if M + m_div M + C)) &&
              cstrs_equiv (aP B) (andc G (aP A) (aD A) e true) &&
              dcovers (aD A) (aD B) && disjoint (dvars (aD B)) (writes s) &&
              puni G (aD A) (aQ Bp) && puni G (aD B) (aQ B) && pot_ge (aQ Bp) (aQ B) &&
              check None false s db && check None false s dl && fco fe A B
          | None => false
          end
      | _, _ => false
      end
  | DWhileWarp A B ne db, SWhile e s =>
      match ecost (aP A) (aD A) e ne, fst (cond G e) with
      | Some C, CLe L :: nil =>
          match lin_k G (aD A) L, lin_off G (aD A) L with
          | Some k, Some (r, g) =>
              let Bp := dpre db in let Bq := dpost db in
              nonempty (snd (cond G e)) && nosplit_ok wt k r g &&
              deq (aD Bp) (aD A) && deq (aD Bq) (aD A) &&
              cstrs_equiv (aP Bp) (andc G (aP A) (aD A) e false) && cstrs_equiv (aP Bq) (aP A) &&
              pot_ge (aQ Bq) (padd (aQ Bp) (m_if M + C)) &&
              pot_ge (aQ A) (padd (aQ Bp) (m_if M + C)) &&
              cstrs_equiv (aP B) (andc G (aP A) (aD A) e true) &&
              dcovers (aD A) (aD B) && pot_ge (aQ Bp) (aQ B) &&
              check None false s db && fco fe A B
          | _, _ => false
          end
      | _, _ => false
      end
  | DUnroll A B d, SWhile e s =>
      aeq (dpre d) A && aeq (dpost d) B && check None false (SIf e (SSeq s (SWhile e s)) SSkip) d &&
      fco fe A B
  | DWeak A B k wpre rpre wpost rpost d, s =>
      let N := dpre d in let N' := dpost d in
      Qle_bool 0 k && entails (aP A) (aP N) wpre &&
      pot_ge_under (aP A) rpre (aQ A) (padd (aQ N) k) && dcovers (aD A) (aD N) &&
      entails (aP N') (aP B) wpost && pot_ge_under (aP N') rpost (padd (aQ N') k) (aQ B) &&
      dcovers (aD N') (aD B) && rws_gd (rpre ++ rpost) && check fe u s d
  | DIfExit1 A B ne wx wjt wje dt df, SIf c s1 s2 =>
      match fe, ecost (aP A) (aD A) c ne with
      | Some f, Some C =>
          let T := dpre dt in let T' := dpost dt in let F := dpre df in let F' := dpost df in
          unif G (dunif G (aD A)) c &&
          cstrs_equiv (aP T) (andc G (aP A) (aD A) c false) &&
          cstrs_equiv (aP F) (andc G (aP A) (aD A) c true) &&
          deq (aD T) (aD A) && deq (aD F) (aD A) && qeq (aQ F) (aQ T) &&
          nonempty (snd (cond G f)) && entails (aP T') (snd (cond G f)) wx &&
          entails (aP T') (aP B) wjt && entails (aP F') (aP B) wje &&
          dcovers (aD F') (aD B) && pot_ge (aQ F') (aQ B) && pnonneg (aQ T') &&
          pot_ge (aQ A) (padd (aQ T) (m_if M + C)) &&
          check None false s1 dt && check fe u s2 df
      | _, _ => false
      end
  | DIfExit4 A B ne wx wjt wje dt df, SIf c s1 s2 =>
      match fe, ecost (aP A) (aD A) c ne with
      | Some f, Some C =>
          let T := dpre dt in let T' := dpost dt in let F := dpre df in let F' := dpost df in
          negb u &&
          cstrs_equiv (aP T) (andc G (aP A) (aD A) c false) &&
          cstrs_equiv (aP F) (andc G (aP A) (aD A) c true) &&
          deq (aD T) (aD A) && deq (aD F) (aD A) &&
          nonempty (snd (cond G f)) && entails (aP T') (snd (cond G f)) wx &&
          entails (aP T') (aP B) wjt && entails (aP F') (aP B) wje &&
          dcovers (aD F') (aD B) && pot_ge (aQ F') (aQ B) &&
          puni G (aD A) (aQ T) && puni G (aD A) (aQ F) &&
          pnonneg (aQ T) && pnonneg (aQ F) && pnonneg (aQ T') &&
          pot_ge (aQ A) (padd (pplus (aQ T) (aQ F)) (m_if M + C + m_div M)) &&
          check None false s1 dt && check fe u s2 df
      | _, _ => false
      end
  | DWhileExit1 A B ne db, SWhile e s =>
      match ecost (aP A) (aD A) e ne with
      | Some C =>
          let Bp := dpre db in let Bq := dpost db in
          unif G (dunif G (aD A)) e && noread e &&
          deq (aD Bp) (aD A) && deq (aD Bq) (aD A) &&
          cstrs_equiv (aP Bp) (aP A ++ fst (cond G e)) && cstrs_equiv (aP Bq) (aP A) &&
          pot_ge (aQ Bq) (padd (aQ Bp) (m_if M + C)) &&
          pot_ge (aQ A) (padd (pplus (aQ Bp) (aQ B)) ((m_if M + C) + (m_if M + C))) &&
          cstrs_equiv (aP B) (aP A ++ snd (cond G e)) &&
          dcovers (aD A) (aD B) && disjoint (dvars (aD B)) (writes s) &&
          puni G (aD A) (aQ Bp) && pnonneg (aQ Bp) && puni G (aD B) (aQ B) &&
          check (Some e) true s db && fco fe A B
      | None => false
      end
  | DWhileExit2 A B ne db, SWhile e s =>
      match ecost (aP A) (aD A) e ne with
      | Some C =>
          let Bp := dpre db in let Bq := dpost db in
          noread e &&
          deq (aD Bp) (aD A) && deq (aD Bq) (aD A) &&
          cstrs_equiv (aP Bp) (aP A ++ fst (cond G e)) && cstrs_equiv (aP Bq) (aP A) &&
          pot_ge (aQ Bq) (padd (aQ Bp) (m_if M + m_div M + C)) &&
          pot_ge (aQ A) (padd (pplus (aQ Bp) (aQ B))
                               ((m_if M + m_div M + C) + (m_if M + m_div M + C))) &&
          cstrs_equiv (aP B) (aP A ++ snd (cond G e)) &&
          dcovers (aD A) (aD B) && disjoint (dvars (aD B)) (writes s) &&
          puni G (aD A) (aQ Bp) && pnonneg (aQ Bp) && puni G (aD B) (aQ B) &&
          check (Some e) false s db && fco fe A B
      | None => false
      end
  (* ---- begin issue 15 (exits15b): writes of a bool loop guard (spec/logic.md §4a) ---- *)
  | DGuard A B rg d, SAssign x c =>
      match fe with
      | Some (EOpd (OVar g)) =>
          let N' := dpost d in
          Nat.eqb x g && (match c_lty G g with Some TBool => true | _ => false end) &&
          aeq (dpre d) A && peq (aP N') (aP B) && dcovers (aD N') (aD B) &&
          pot_ge_under (aP N' ++ fst (cond G c)) rg (aQ N') (aQ B) &&
          pnonneg (aQ N') && puni G (aD N') (aQ N') && check None false (SAssign x c) d
      | _ => false
      end
  | DGuardExit A B wx d, s =>
      match fe with
      | Some (EOpd (OVar g)) =>
          falsifies g s && aeq (dpre d) A && entails (aP (dpost d)) (aP B) wx &&
          pnonneg (aQ (dpost d)) && check None false s d
      | _ => false
      end
  (* ---- end issue 15 (exits15b) ---- *)
  (* issue 15 (brk15): Q:IFGUARD4, the else branch falsifies the guard [g] *)
  | DIfGuard4 A B ne wjt wje dt df, SIf c s1 s2 =>
      match fe, ecost (aP A) (aD A) c ne with
      | Some (EOpd (OVar g)), Some C =>
          let T := dpre dt in let T' := dpost dt in let F := dpre df in let F' := dpost df in
          negb u && falsifies g s2 &&
          cstrs_equiv (aP T) (andc G (aP A) (aD A) c false) &&
          cstrs_equiv (aP F) (andc G (aP A) (aD A) c true) &&
          deq (aD T) (aD A) && deq (aD F) (aD A) &&
          entails (aP T') (aP B) wjt && entails (aP F') (aP B) wje &&
          dcovers (aD T') (aD B) && pot_ge (aQ T') (aQ B) &&
          puni G (aD A) (aQ T) && puni G (aD A) (aQ F) &&
          pnonneg (aQ T) && pnonneg (aQ F) && pnonneg (aQ F') &&
          pot_ge (aQ A) (padd (pplus (aQ T) (aQ F)) (m_if M + C + m_div M)) &&
          check fe u s1 dt && check None false s2 df
      | _, _ => false
      end
  (* issue 15 (exit15): Q:WHILEGUARD and SEQ_ASSOC *)
  | DWhileGuard A B ne uf GE rg d0 db, SSeq s0 (SWhile (EOpd (OVar g)) s) =>
      let L := dpost d0 in
      match ecost (aP L) (aD L) (EOpd (OVar g)) ne with
      | Some C =>
          let Bp := dpre db in let Bq := dpost db in
          let k := if uf then m_if M + C else m_if M + m_div M + C in
          (match c_lty G g with Some TBool => true | _ => false end) &&
          (if uf then unif G (dunif G (aD L)) (EOpd (OVar g)) else true) &&
          guard_last G g GE s0 && guard_last G g GE s && aeq (dpre d0) A &&
          deq (aD Bp) (aD L) && deq (aD Bq) (aD L) &&
          cstrs_equiv (aP Bp) (aP L ++ GE) && cstrs_equiv (aP Bq) (aP L) &&
          pot_ge_under (aP Bp) rg (aQ Bq) (padd (aQ Bp) k) &&
          pot_ge (aQ L) (padd (pplus (aQ Bq) (aQ B)) (m_if M + C)) &&
          cstrs_equiv (aP B) (aP L) &&
          dcovers (aD L) (aD B) && disjoint (dvars (aD B)) (writes s) &&
          puni G (aD L) (aQ Bq) && pnonneg (aQ Bq) && puni G (aD B) (aQ B) &&
          check None false s0 d0 && check (Some (EOpd (OVar g))) uf s db && fco fe A B
      | None => false
      end
  | DAssoc A B d, SSeq s1 (SSeq s2 s3) =>
      aeq (dpre d) A && aeq (dpost d) B && check None false (SSeq (SSeq s1 s2) s3) d &&
      fco fe A B
  (* issue 15 (exit16): Q:FLAGEXIT *)
  | DFlagExit A B ne wjt wje d1 dt df, SSeq s1 (SIf f s2 s3) =>
      let N := dpre d1 in let N' := dpost d1 in
      let T := dpre dt in let T' := dpost dt in let Fp := dpre df in let F' := dpost df in
      match fe, ecost (aP N') (aD N') f ne with
      | Some (EOpd (OVar g)), Some C =>
          negb u && noread f && falsifies g s3 &&
          peq (aP N) (aP A) && deq (aD N) (aD A) &&
          cstrs_equiv (aP T) (aP N' ++ fst (cond G f)) && deq (aD T) (aD N') &&
          qeq (aQ T) (aQ N') &&
          peq (aP Fp) (aP N') && deq (aD Fp) [] &&
          entails (aP T') (aP B) wjt && entails (aP F') (aP B) wje &&
          dcovers (aD T') (aD B) && pot_ge (aQ T') (aQ B) &&
          puni G [] (aQ Fp) && pnonneg (aQ Fp) && pnonneg (aQ F') &&
          pot_ge (aQ A) (padd (pplus (aQ N) (aQ Fp)) (m_if M + C + m_div M)) &&
          check (Some f) false s1 d1 && check fe false s2 dt && check None false s3 df
      | _, _ => false
      end
  (* issue 15 (align15): Q:IFALIGN, Q:IF4's checks with the charge [M^div·[m ∤ r − X]] *)
  | DIfAlign A B ne wec wet wjt wje r m dt df, SIf e s1 s2 =>
      match ecost (aP A) (aD A) e ne, fst (cond G e) with
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
              pot_ge (aQ A) (padd (paddm (aQ T) (m_div M) [res_atom X r m]) (m_if M + C)) &&
              check None false s1 dt && check None false s2 df && fco fe A B
          | _, _ => false
          end
      | _, _ => false
      end
  (* issue 15 (exit15b): Q:WHILEGUARD0 *)
  | DWhileGuard0 A B ne GE J0 rg r0 d0 db, SSeq s0 (SWhile (EOpd (OVar g)) s) =>
      let L := dpost d0 in
      match ecost (aP L) (aD L) (EOpd (OVar g)) ne with
      | Some C =>
          let Bp := dpre db in let Bq := dpost db in
          (match c_lty G g with Some TBool => true | _ => false end) &&
          unif G (dunif G (aD L)) (EOpd (OVar g)) &&
          guard_last G g GE s0 && guard_last G g GE s && aeq (dpre d0) A &&
          deq (aD Bp) (aD L) && deq (aD Bq) (aD L) &&
          cstrs_equiv (aP Bp) (aP L ++ GE) && cstrs_equiv (aP Bq) (aP L) &&
          pot_ge_under (aP Bp) rg (aQ Bq) (padd (aQ Bp) (m_if M + m_div M + C)) &&
          pot_ge_under (aP Bp) r0 J0 (padd (aQ Bp) (m_if M + C)) &&
          pot_ge (aQ L) (padd (pplus J0 (aQ B)) (m_if M + C)) &&
          cstrs_equiv (aP B) (aP L) &&
          dcovers (aD L) (aD B) && disjoint (dvars (aD B)) (writes s) &&
          puni G (aD L) (aQ Bq) && pnonneg (aQ Bq) && puni G (aD L) J0 && pnonneg J0 &&
          puni G (aD B) (aQ B) &&
          check None false s0 d0 && check (Some (EOpd (OVar g))) false s db && fco fe A B
      | None => false
      end
  (* issue 15 (wla15): Q:WHILELASTALIGN, DWhileLast's checks with the charge
     [M^div·[m ∤ r − X]] and the body writing no local of [X] *)
  | DWhileLastAlign A B ne sw wl r m db dl, SWhile e s =>
      match ecost (aP A) (aD A) e ne, fst (cond G e) with
      | Some C, CLe L :: nil =>
          match lin_k G (aD A) L, lin_loc G (aD A) L with
          | Some k, Some (X, g) =>
              let Bp := dpre db in let Bq := dpost db in
              let Lp := dpre dl in let Lq := dpost dl in
              nonempty (snd (cond G e)) && spread_ok wt k sw &&
              deq (aD Bp) (aD A) && deq (aD Bq) (aD A) &&
              deq (aD Lp) (aD A) && deq (aD Lq) (aD A) && qeq (aQ Lp) (aQ Bp) &&
              cstrs_equiv (aP Bp) (andc G (aP A) (aD A) e false) && cstrs_equiv (aP Bq) (aP A) &&
              cstrs_equiv (aP Lp) (andc G (aP A) (aD A) e false ++ [last_window L sw]) &&
              entails (aP Lq) (aP A ++ snd (cond G e)) wl &&
              pot_ge (aQ Bq) (padd (aQ Bp) (m_if M + C)) &&
              pot_ge (aQ Lq) (padd (aQ Bp) (m_if M + C)) &&
              (g mod Zpos m =? 0)%Z && nosplit_ok wt k r (Zpos m) &&
              disjoint (lin_locals X) (writes s) &&
              pot_ge (aQ A) (padd (paddm (aQ Bp) (m_div M) [res_atom X r m]) (m_if M + C)) &&
              cstrs_equiv (aP B) (andc G (aP A) (aD A) e true) &&
              dcovers (aD A) (aD B) && disjoint (dvars (aD B)) (writes s) &&
              puni G (aD A) (aQ Bp) && puni G (aD B) (aQ B) && pot_ge (aQ Bp) (aQ B) &&
              check None false s db && check None false s dl && fco fe A B
          | _, _ => false
          end
      | _, _ => false
      end
  (* issue 15 (case17): Q:CASE *)
  | DCase A B L rt rf wjt wje dt df, s =>
      let T := dpre dt in let T' := dpost dt in let F := dpre df in let F' := dpost df in
      luni G (aD A) L &&
      cstrs_equiv (aP T) (aP A ++ [CLe L]) && cstrs_equiv (aP F) (aP A ++ [case_else L]) &&
      deq (aD T) (aD A) && deq (aD F) (aD A) &&
      pot_ge_both (aP T) rt (aQ A) (aQ T) && pot_ge_both (aP F) rf (aQ A) (aQ F) &&
      entails (aP T') (aP B) wjt && entails (aP F') (aP B) wje &&
      dcovers (aD T') (aD B) && dcovers (aD F') (aD B) &&
      pot_ge (aQ T') (aQ B) && pot_ge (aQ F') (aQ B) &&
      check None false s dt && check None false s df && fco fe A B
  (* issue 15 (case17): Q:WHILENONE *)
  | DWhileNone A B ne ws d0, SSeq s0 (SWhile (EOpd (OVar g)) s) =>
      let L := dpost d0 in
      match s0, ecost (aP L) (aD L) (EOpd (OVar g)) ne with
      | SAssign x E, Some C =>
          Nat.eqb x g && (match c_lty G g with Some TBool => true | _ => false end) &&
          nonempty (snd (cond G E)) && entails (aP L) (snd (cond G E)) ws &&
          aeq (dpre d0) A && peq (aP B) (aP L) && deq (aD B) (aD L) &&
          pot_ge (aQ L) (padd (aQ B) (m_if M + C)) &&
          check None false s0 d0 && fco fe A B
      | _, _ => false
      end
  (* issue 15 (wincoq19): Q:WHILELASTWINDOW, DWhileLastAlign's checks with the hull
     [[a, b]] of the warps' split windows computed by enumeration ([win_hull], as the
     kernel's [window_hull]) and checked pairwise ([hull_ok]), and the charge
     [M^div·[(b − X) mod m < b − a + 1]] *)
  | DWhileLastWindow A B ne sw wl m db dl, SWhile e s =>
      match ecost (aP A) (aD A) e ne, fst (cond G e) with
      | Some C, CLe L :: nil =>
          match lin_k G (aD A) L, lin_loc G (aD A) L with
          | Some k, Some (X, g) =>
              match win_hull wt k with
              | Some (a, b) =>
                  let Bp := dpre db in let Bq := dpost db in
                  let Lp := dpre dl in let Lq := dpost dl in
                  nonempty (snd (cond G e)) && spread_ok wt k sw &&
                  deq (aD Bp) (aD A) && deq (aD Bq) (aD A) &&
                  deq (aD Lp) (aD A) && deq (aD Lq) (aD A) && qeq (aQ Lp) (aQ Bp) &&
                  cstrs_equiv (aP Bp) (andc G (aP A) (aD A) e false) && cstrs_equiv (aP Bq) (aP A) &&
                  cstrs_equiv (aP Lp) (andc G (aP A) (aD A) e false ++ [last_window L sw]) &&
                  entails (aP Lq) (aP A ++ snd (cond G e)) wl &&
                  pot_ge (aQ Bq) (padd (aQ Bp) (m_if M + C)) &&
                  pot_ge (aQ Lq) (padd (aQ Bp) (m_if M + C)) &&
                  (g mod Zpos m =? 0)%Z && hull_ok wt k a b &&
                  disjoint (lin_locals X) (writes s) &&
                  pot_ge (aQ A)
                    (padd (paddm (aQ Bp) (m_div M) [win_atom X b m (b - a + 1)]) (m_if M + C)) &&
                  cstrs_equiv (aP B) (andc G (aP A) (aD A) e true) &&
                  dcovers (aD A) (aD B) && disjoint (dvars (aD B)) (writes s) &&
                  puni G (aD A) (aQ Bp) && puni G (aD B) (aQ B) && pot_ge (aQ Bp) (aQ B) &&
                  check None false s db && check None false s dl && fco fe A B
              | None => false
              end
          | _, _ => false
          end
      | _, _ => false
      end
  | _, _ => false
  end.

Lemma ord_close : forall fe u A s B, qstmt G A s B -> fco fe A B = true ->
  match fe with None => qstmt G A s B | Some e => qstmtF G u e A s B end.
Proof.
  intros [e|] u A s B H Hf; simpl in Hf; [apply andb_true_iff in Hf as [H1 H2]; apply F_ORD|]; auto.
Qed.

Ltac ih_none IH Hc := specialize (IH _ _ _ Hc); cbv beta iota in IH.

Lemma check_qstmt : tab_ok = true -> wt = wtids G ->
  forall d fe u s, check fe u s d = true ->
  match fe with None => qstmt G (dpre d) s (dpost d) | Some e => qstmtF G u e (dpre d) s (dpost d) end.
Proof.
  intros Htab Hwt.
  induction d; intros fe u s H;
    [match goal with
     | _ : check _ _ _ (DWeak _ _ _ _ _ _ _ _) = true |- _ => idtac
     | _ : check _ _ _ (DGuardExit _ _ _ _) = true |- _ => idtac
     | _ : check _ _ _ (DCase _ _ _ _ _ _ _ _ _) = true |- _ => idtac
     | _ => destruct s; cbn [check] in H; try discriminate; cbn [dpre dpost]
     end..].
  - (* DSkip *) apply ord_close; [apply Q_SKIP | exact H].
  - (* DSync *) split_b. apply ord_close; [|assumption].
    destruct A as [P D Qn], B as [P' D' Q']; simpl in *; subst. apply Q_SYNC; auto.
  - (* DSeq *) split_b. subst.
    match goal with Hc : check None _ s1 d1 = true |- _ => ih_none IHd1 Hc end.
    match goal with Hc : check fe _ s2 d2 = true |- _ => specialize (IHd2 _ _ _ Hc) end.
    match goal with E : dpost d1 = dpre d2 |- _ => rewrite <- E in IHd2 end.
    destruct fe; [eapply F_SEQ | eapply Q_SEQ]; eauto.
  - (* DVwrite1 *)
    destruct (ecost (aP A) (aD A) e ne) as [C|] eqn:Ec; try discriminate.
    apply orb_true_iff in H as [H|H]; [apply orb_true_iff in H as [H|H]|];
      split_b; (apply ord_close; [|assumption]);
      destruct A as [P D Qn], B as [P' D' Q']; simpl in *.
    + rewrite Hwt in *. eapply Q_VWRITE1; eauto using ecost_sound.
      destruct (lin_fix G P e); [left; discriminate | right; apply negb_true_iff; auto].
    + unfold vw1h_ok in *. destruct (halving G e) as [La|] eqn:Eh; [|discriminate]. split_b.
      rewrite Hwt in *. eapply Q_VWRITE1H; eauto using ecost_sound.
    + unfold vw1p_ok in *. destruct (product G e) as [[La Lb]|] eqn:Eh; [|discriminate].
      destruct (rev ws) as [|wb [|wa r]]; try discriminate. split_b.
      rewrite Hwt in *. eapply Q_VWRITE1P; eauto using ecost_sound.
  - (* DVwrite2 *)
    destruct (ecost (aP A) (aD A) e ne) as [C|] eqn:Ec; try discriminate. split_b.
    apply ord_close; [|assumption].
    destruct A as [P D Qn], B as [P' D' Q']; simpl in *. rewrite Hwt in *.
    eapply Q_VWRITE2; eauto using ecost_sound. apply negb_true_iff; auto.
  - (* DWrite *)
    destruct (ecost (aP A) (aD A) e ne) as [C2|] eqn:Ec; try discriminate.
    destruct (c_arr G arr) as [[[] es]|] eqn:Ea; try discriminate; split_b;
      apply ord_close; try assumption;
      pose proof (ecost_sound Htab _ _ _ _ _ Ec);
      destruct A as [P D Qn], B as [P' D' Q']; simpl in *; subst.
    + eapply Q_GWRITE; eauto using ecost_sound, ocost_sound, gacc_ok_sound.
    + eapply Q_SWRITE; eauto using ecost_sound, ocost_sound, gacc_ok_sound.
    + eapply Q_LWRITE; eauto using ecost_sound, ocost_sound.
  - (* DIf1 *)
    destruct (ecost (aP A) (aD A) e ne) as [C|] eqn:Ec; try discriminate. split_b.
    match goal with Hc : check _ _ s1 d1 = true |- _ => specialize (IHd1 _ _ _ Hc) end.
    match goal with Hc : check _ _ s2 d2 = true |- _ => specialize (IHd2 _ _ _ Hc) end.
    match goal with E : dpost d1 = B |- _ => rewrite E in IHd1 end.
    match goal with E : dpost d2 = B |- _ => rewrite E in IHd2 end.
    destruct A as [P D Qn], (dpre d1) as [PT DT QT] eqn:E1, (dpre d2) as [PF DF QF] eqn:E3;
      simpl in *; subst.
    destruct fe.
    + eapply (F_IF1 G u e0 P D Qn QT e ne C s1 s2 PT PF); eauto using ecost_sound.
    + eapply (Q_IF1 G P D Qn QT e ne C s1 s2 PT PF); eauto using ecost_sound.
  - (* DIf2 *)
    destruct (ecost (aP A) (aD A) e ne) as [C|] eqn:Ec; try discriminate. split_b.
    match goal with Hc : check _ _ s1 d = true |- _ => specialize (IHd _ _ _ Hc) end.
    match goal with E : dpost d = B |- _ => rewrite E in IHd end.
    destruct A as [P D Qn], (dpre d) as [PT DT QT] eqn:E1; simpl in *; subst.
    destruct fe.
    + eapply (F_IF2 G u e0 P D Qn QT e ne C s1 s2); eauto using ecost_sound.
    + eapply (Q_IF2 G P D Qn QT e ne C s1 s2); eauto using ecost_sound.
  - (* DIf3 *)
    destruct (ecost (aP A) (aD A) e ne) as [C|] eqn:Ec; try discriminate. split_b.
    match goal with Hc : check _ _ s2 d = true |- _ => specialize (IHd _ _ _ Hc) end.
    match goal with E : dpost d = B |- _ => rewrite E in IHd end.
    destruct A as [P D Qn], (dpre d) as [PF DF QF] eqn:E1; simpl in *; subst.
    destruct fe.
    + eapply (F_IF3 G u e0 P D Qn QF e ne C s1 s2); eauto using ecost_sound.
    + eapply (Q_IF3 G P D Qn QF e ne C s1 s2); eauto using ecost_sound.
  - (* DIf4 *)
    destruct (ecost (aP A) (aD A) e ne) as [C|] eqn:Ec; try discriminate. split_b.
    apply ord_close; [|assumption].
    match goal with Hc : check _ _ s1 d1 = true |- _ => ih_none IHd1 Hc end.
    match goal with Hc : check _ _ s2 d2 = true |- _ => ih_none IHd2 Hc end.
    destruct A as [P D Qn], B as [P' D' Q'], (dpre d1) as [PT DT QT] eqn:E1,
      (dpost d1) as [P1 D1 Q1] eqn:E2, (dpre d2) as [PF DF QF] eqn:E3,
      (dpost d2) as [P2 D2 Q2] eqn:E4; simpl in *; subst.
    eapply (Q_IF4 G P D Qn QT e ne C s1 s2 PT); eauto using ecost_sound.
  - (* DWhile1 *)
    destruct (ecost (aP A) (aD A) e ne) as [C|] eqn:Ec; try discriminate. split_b.
    apply ord_close; [|assumption].
    match goal with Hc : check _ _ _ d = true |- _ => ih_none IHd Hc end.
    destruct A as [P D Qn], B as [P' D' Q'], (dpre d) as [PB DB QB] eqn:E1,
      (dpost d) as [PB' DB' QB'] eqn:E2; simpl in *; subst.
    eapply Q_WHILE1; eauto using ecost_sound.
  - (* DWhile2 *)
    destruct (ecost (aP A) (aD A) e ne) as [C|] eqn:Ec; try discriminate. split_b.
    apply ord_close; [|assumption].
    match goal with Hc : check _ _ _ d = true |- _ => ih_none IHd Hc end.
    destruct A as [P D Qn], B as [P' D' Q'], (dpre d) as [PB DB QB] eqn:E1,
      (dpost d) as [PB' DB' QB'] eqn:E2; simpl in *; subst.
    eapply Q_WHILE2; eauto using ecost_sound.
  - (* DWhileLast *)
    destruct (ecost (aP A) (aD A) e ne) as [C|] eqn:Ec; try discriminate.
    destruct (fst (cond G e)) as [|[L|L|L m rs] [|c' l']] eqn:EL; try discriminate.
    destruct (lin_k G (aD A) L) as [k|] eqn:Ek; try discriminate. split_b.
    apply ord_close; [|assumption].
    match goal with Hc : check _ _ _ d1 = true |- _ => ih_none IHd1 Hc end.
    match goal with Hc : check _ _ _ d2 = true |- _ => ih_none IHd2 Hc end.
    destruct A as [P D Qn], B as [P' D' Q'], (dpre d1) as [PB DB QB] eqn:E1,
      (dpost d1) as [PB' DB' QB'] eqn:E2, (dpre d2) as [PL DL QL] eqn:E3,
      (dpost d2) as [PN DN QN] eqn:E4; simpl in *; subst. rewrite Hwt in *.
    eapply Q_WHILELAST; eauto using ecost_sound.
  - (* DWhileWarp *)
    destruct (ecost (aP A) (aD A) e ne) as [C|] eqn:Ec; try discriminate.
    destruct (fst (cond G e)) as [|[L|L|L m rs] [|c' l']] eqn:EL; try discriminate.
    destruct (lin_k G (aD A) L) as [k|] eqn:Ek; try discriminate.
    destruct (lin_off G (aD A) L) as [[r g]|] eqn:Eo; try discriminate. split_b.
    apply ord_close; [|assumption].
    match goal with Hc : check _ _ _ d = true |- _ => ih_none IHd Hc end.
    destruct A as [P D Qn], B as [P' D' Q'], (dpre d) as [PB DB QB] eqn:E1,
      (dpost d) as [PB' DB' QB'] eqn:E2; simpl in *; subst. rewrite Hwt in *.
    eapply Q_WHILEWARP; eauto using ecost_sound.
  - (* DUnroll *)
    split_b. apply ord_close; [|assumption].
    match goal with Hc : check _ _ _ d = true |- _ => ih_none IHd Hc end.
    subst. apply Q_UNROLL; auto.
  - (* DWeak *)
    cbn [check] in H. split_b. cbn [dpre dpost].
    match goal with Hc : check _ _ _ d = true |- _ => specialize (IHd _ _ _ Hc) end.
    destruct A as [P D Qn], B as [P' D' Q'], (dpre d) as [NP ND NQ] eqn:E1,
      (dpost d) as [NP' ND' NQ'] eqn:E2; simpl in *.
    destruct fe; [eapply F_WEAK | eapply Q_WEAK]; eauto.
  - (* DIfExit1 *)
    destruct fe as [f|]; cbv beta iota in H; [|discriminate].
    destruct (ecost (aP A) (aD A) e ne) as [C|] eqn:Ec; try discriminate. split_b.
    match goal with Hc : check None _ s1 d1 = true |- _ => ih_none IHd1 Hc end.
    match goal with Hc : check (Some f) _ s2 d2 = true |- _ => specialize (IHd2 _ _ _ Hc) end.
    cbv beta iota in IHd2.
    destruct A as [P D Qn], B as [P' D' Q'], (dpre d1) as [PT DT QT] eqn:E1,
      (dpost d1) as [P1 D1 Q1] eqn:E2, (dpre d2) as [PF DF QF] eqn:E3,
      (dpost d2) as [P2 D2 Q2] eqn:E4; simpl in *; subst.
    eapply (Q_IFEXIT1 G u f P D Qn QT e ne C s1 s2 PT P1 D1 Q1 PF P2 D2 Q2);
      eauto using ecost_sound.
  - (* DIfExit4 *)
    destruct fe as [f|]; cbv beta iota in H; [|discriminate].
    destruct (ecost (aP A) (aD A) e ne) as [C|] eqn:Ec; try discriminate. split_b.
    match goal with Hc : check None _ s1 d1 = true |- _ => ih_none IHd1 Hc end.
    match goal with Hc : check (Some f) _ s2 d2 = true |- _ => specialize (IHd2 _ _ _ Hc) end.
    cbv beta iota in IHd2.
    match goal with Hu : negb u = true |- _ => apply negb_true_iff in Hu; subst u end.
    destruct A as [P D Qn], B as [P' D' Q'], (dpre d1) as [PT DT QT] eqn:E1,
      (dpost d1) as [P1 D1 Q1] eqn:E2, (dpre d2) as [PF DF QF] eqn:E3,
      (dpost d2) as [P2 D2 Q2] eqn:E4; simpl in *; subst.
    eapply (Q_IFEXIT4 G false f P D Qn QT QF e ne C s1 s2 PT P1 D1 Q1 PF P2 D2 Q2);
      eauto using ecost_sound.
  - (* DWhileExit1 *)
    destruct (ecost (aP A) (aD A) e ne) as [C|] eqn:Ec; try discriminate. split_b.
    apply ord_close; [|assumption].
    match goal with Hc : check _ _ _ d = true |- _ => specialize (IHd _ _ _ Hc) end.
    cbv beta iota in IHd.
    destruct A as [P D Qn], B as [P' D' Q'], (dpre d) as [PB DB QB] eqn:E1,
      (dpost d) as [PB' DB' QB'] eqn:E2; simpl in *; subst.
    eapply Q_WHILEEXIT1; eauto using ecost_sound.
  - (* DWhileExit2 *)
    destruct (ecost (aP A) (aD A) e ne) as [C|] eqn:Ec; try discriminate. split_b.
    apply ord_close; [|assumption].
    match goal with Hc : check _ _ _ d = true |- _ => specialize (IHd _ _ _ Hc) end.
    cbv beta iota in IHd.
    destruct A as [P D Qn], B as [P' D' Q'], (dpre d) as [PB DB QB] eqn:E1,
      (dpost d) as [PB' DB' QB'] eqn:E2; simpl in *; subst.
    eapply Q_WHILEEXIT2; eauto using ecost_sound.
  - (* DWarp *) split_b. apply ord_close; [|assumption].
    destruct A as [P D Qn], B as [P' D' Q']; simpl in *.
    match goal with Hm : negb _ = true |- _ => apply negb_true_iff in Hm end.
    destruct op as [k w v l|k p].
    + eapply Q_SHFL; eauto using ocost_sound.
    + eapply Q_VOTE; eauto using ocost_sound.
  (* ---- begin issue 15 (exits15b) ---- *)
  - (* DGuard *)
    destruct fe as [[[g| | |]| | |]|]; cbv beta iota in H; try discriminate.
    destruct (c_lty G g) as [[| |]|] eqn:Et; split_b; try discriminate.
    match goal with Hc : check None _ _ d = true |- _ => ih_none IHd Hc end.
    match goal with Hx : Nat.eqb x g = true |- _ => apply Nat.eqb_eq in Hx; subst x end.
    match goal with E : dpre d = A |- _ => rewrite E in IHd end.
    destruct A as [P D Qn], B as [P' D' Q'], (dpost d) as [P1 D1 Q1] eqn:E2; simpl in *; subst.
    eapply Q_GUARD; eauto.
  - (* DGuardExit *)
    cbn [check] in H. destruct fe as [[[g| | |]| | |]|]; cbv beta iota in H; try discriminate.
    split_b.
    match goal with Hc : check None _ _ d = true |- _ => ih_none IHd Hc end.
    match goal with E : dpre d = A |- _ => rewrite E in IHd end.
    cbn [dpre dpost].
    destruct A as [P D Qn], B as [P' D' Q'], (dpost d) as [P1 D1 Q1] eqn:E2; simpl in *; subst.
    eapply Q_GUARDEXIT; eauto.
  (* ---- end issue 15 (exits15b) ---- *)
  - (* DIfGuard4 (brk15) *)
    destruct fe as [[[g| | |]| | |]|]; cbv beta iota in H; try discriminate.
    destruct (ecost (aP A) (aD A) e ne) as [C|] eqn:Ec; try discriminate. split_b.
    match goal with Hc : check None _ s2 d2 = true |- _ => ih_none IHd2 Hc end.
    match goal with Hc : check (Some _) _ s1 d1 = true |- _ => specialize (IHd1 _ _ _ Hc) end.
    cbv beta iota in IHd1.
    match goal with Hu : negb u = true |- _ => apply negb_true_iff in Hu; subst u end.
    destruct A as [P D Qn], B as [P' D' Q'], (dpre d1) as [PT DT QT] eqn:E1,
      (dpost d1) as [P1 D1 Q1] eqn:E2, (dpre d2) as [PF DF QF] eqn:E3,
      (dpost d2) as [P2 D2 Q2] eqn:E4; simpl in *; subst.
    eapply (Q_IFGUARD4 G false g P D Qn QT QF e ne C s1 s2 PT P1 D1 Q1 PF P2 D2 Q2);
      eauto using ecost_sound.
  - (* DWhileGuard (exit15) *)
    destruct s2; try discriminate. destruct e as [[g| | |]| | |]; try discriminate.
    destruct (ecost (aP (dpost d1)) (aD (dpost d1)) (EOpd (OVar g)) ne) as [C|] eqn:Ec;
      try discriminate.
    destruct (c_lty G g) as [[| |]|] eqn:Et; destruct uf; split_b; try discriminate;
    apply ord_close; try assumption;
    match goal with Hc : check None _ _ d1 = true |- _ => ih_none IHd1 Hc end;
    match goal with Hc : check (Some _) _ _ d2 = true |- _ => specialize (IHd2 _ _ _ Hc) end;
    cbv beta iota in IHd2;
    match goal with E : dpre d1 = A |- _ => rewrite E in IHd1 end;
    destruct B as [P' D' Q'], (dpost d1) as [P D Qn] eqn:E0, (dpre d2) as [PB DB QB] eqn:E1,
      (dpost d2) as [PB' DB' QB'] eqn:E2; simpl in *; subst.
    + eapply (Q_WHILEGUARD G true) with (n := ne); eauto using ecost_sound.
    + eapply (Q_WHILEGUARD G false) with (n := ne); eauto using ecost_sound;
      intros E; discriminate E.
  - (* DAssoc (exit15) *)
    destruct s2; try discriminate. split_b.
    apply ord_close; [|assumption].
    match goal with Hc : check None _ _ d = true |- _ => ih_none IHd Hc end.
    match goal with E : dpre d = A |- _ => rewrite E in IHd end.
    match goal with E : dpost d = B |- _ => rewrite E in IHd end.
    apply SEQ_ASSOC; exact IHd.
  - (* DFlagExit (exit16) *)
    destruct s2 as [| | | | | e t1 t2 | |]; try discriminate.
    destruct fe as [[[g| | |]| | |]|]; cbv beta iota in H; try discriminate.
    destruct (ecost (aP (dpost d1)) (aD (dpost d1)) e ne) as [C|] eqn:Ec; try discriminate.
    split_b.
    match goal with Hc : check None _ _ d3 = true |- _ => ih_none IHd3 Hc end.
    match goal with Hc : check (Some e) _ _ d1 = true |- _ => specialize (IHd1 _ _ _ Hc) end.
    cbv beta iota in IHd1.
    match goal with Hc : check (Some (EOpd (OVar g))) _ _ d2 = true |- _ =>
      specialize (IHd2 _ _ _ Hc) end.
    cbv beta iota in IHd2.
    match goal with Hu : negb u = true |- _ => apply negb_true_iff in Hu; subst u end.
    destruct A as [P D Qn], B as [P' D' Q'], (dpre d1) as [PN DN Q0] eqn:E1,
      (dpost d1) as [P1 D1 Q1] eqn:E2, (dpre d2) as [PT DT QT] eqn:E3,
      (dpost d2) as [P2 D2 Q2] eqn:E4, (dpre d3) as [PF DF QF] eqn:E5,
      (dpost d3) as [P3 D3 Q3] eqn:E6; simpl in *; subst.
    eapply (Q_FLAGEXIT G false false g e P D Qn Q0 QF s1 t1 t2 ne C P1 D1 Q1 PT P2 D2 Q2
              P3 D3 Q3); eauto using ecost_sound.
  - (* DIfAlign (align15) *)
    destruct (ecost (aP A) (aD A) e ne) as [C|] eqn:Ec; try discriminate.
    destruct (fst (cond G e)) as [|[L|L|L mm rs] [|c' l']] eqn:EL; try discriminate.
    destruct (lin_k G (aD A) L) as [k|] eqn:Ek; try discriminate.
    destruct (lin_loc G (aD A) L) as [[X g]|] eqn:Eo; try discriminate. split_b.
    apply ord_close; [|assumption].
    match goal with Hc : check _ _ s1 d1 = true |- _ => ih_none IHd1 Hc end.
    match goal with Hc : check _ _ s2 d2 = true |- _ => ih_none IHd2 Hc end.
    destruct A as [P D Qn], B as [P' D' Q'], (dpre d1) as [PT DT QT] eqn:E1,
      (dpost d1) as [P1 D1 Q1] eqn:E2, (dpre d2) as [PF DF QF] eqn:E3,
      (dpost d2) as [P2 D2 Q2] eqn:E4; simpl in *; subst. rewrite Hwt in *.
    eapply (Q_IFALIGN G P D Qn QT e ne C s1 s2 PT); eauto using ecost_sound.
  - (* DWhileGuard0 (exit15b) *)
    destruct s2; try discriminate. destruct e as [[g| | |]| | |]; try discriminate.
    destruct (ecost (aP (dpost d1)) (aD (dpost d1)) (EOpd (OVar g)) ne) as [C|] eqn:Ec;
      try discriminate.
    destruct (c_lty G g) as [[| |]|] eqn:Et; split_b; try discriminate;
    apply ord_close; try assumption;
    match goal with Hc : check None _ _ d1 = true |- _ => ih_none IHd1 Hc end;
    match goal with Hc : check (Some _) _ _ d2 = true |- _ => specialize (IHd2 _ _ _ Hc) end;
    cbv beta iota in IHd2;
    match goal with E : dpre d1 = A |- _ => rewrite E in IHd1 end;
    destruct B as [P' D' Q'], (dpost d1) as [P D Qn] eqn:E0, (dpre d2) as [PB DB QB] eqn:E1,
      (dpost d2) as [PB' DB' QB'] eqn:E2; simpl in *; subst.
    eapply (Q_WHILEGUARD0 G) with (n := ne); eauto using ecost_sound.
  - (* DWhileLastAlign (wla15) *)
    destruct (ecost (aP A) (aD A) e ne) as [C|] eqn:Ec; try discriminate.
    destruct (fst (cond G e)) as [|[L|L|L mm rs] [|c' l']] eqn:EL; try discriminate.
    destruct (lin_k G (aD A) L) as [k|] eqn:Ek; try discriminate.
    destruct (lin_loc G (aD A) L) as [[X g]|] eqn:Eo; try discriminate. split_b.
    apply ord_close; [|assumption].
    match goal with Hc : check _ _ _ d1 = true |- _ => ih_none IHd1 Hc end.
    match goal with Hc : check _ _ _ d2 = true |- _ => ih_none IHd2 Hc end.
    destruct A as [P D Qn], B as [P' D' Q'], (dpre d1) as [PB DB QB] eqn:E1,
      (dpost d1) as [PB' DB' QB'] eqn:E2, (dpre d2) as [PL DL QL] eqn:E3,
      (dpost d2) as [PN DN QN] eqn:E4; simpl in *; subst. rewrite Hwt in *.
    eapply Q_WHILELASTALIGN; eauto using ecost_sound.
  - (* DCase (case17) *)
    cbn [check] in H. split_b. apply ord_close; [|assumption]. cbn [dpre dpost].
    match goal with Hc : check None _ _ d1 = true |- _ => ih_none IHd1 Hc end.
    match goal with Hc : check None _ _ d2 = true |- _ => ih_none IHd2 Hc end.
    destruct A as [P D Qn], B as [P' D' Q'], (dpre d1) as [PT DT QT] eqn:E1,
      (dpre d2) as [PF DF QF] eqn:E3; simpl in *; subst.
    eapply (Q_CASE G P D Qn s L PT PF QT QF); eauto.
  - (* DWhileNone (case17) *)
    destruct s2; try discriminate. destruct e as [[g| | |]| | |]; try discriminate.
    destruct s1; try (cbv beta iota in H; discriminate).
    destruct (ecost (aP (dpost d)) (aD (dpost d)) (EOpd (OVar g)) ne) as [C|] eqn:Ec;
      try discriminate.
    destruct (c_lty G g) as [[| |]|] eqn:Et; split_b; try discriminate.
    apply ord_close; [|assumption].
    match goal with Hc : check None _ _ d = true |- _ => ih_none IHd Hc end.
    match goal with E : dpre d = A |- _ => rewrite E in IHd end.
    match goal with Hx : Nat.eqb _ _ = true |- _ => apply Nat.eqb_eq in Hx; subst end.
    destruct B as [P' D' Q'], (dpost d) as [P D Qn] eqn:E0; simpl in *; subst.
    eapply Q_WHILENONE with (n := ne) (ws := ws); eauto using ecost_sound.
  - (* DWriteRows (coqrows17) *)
    destruct (ecost (aP A) (aD A) e ne) as [C2|] eqn:Ec; try discriminate.
    destruct (c_arr G arr) as [[[] es]|] eqn:Ea; try discriminate.
    destruct (rows_acc_w G wt (aP A) (aD A) i es n0 rows) as [X|] eqn:Er; try discriminate.
    split_b. apply ord_close; [|assumption].
    pose proof (ecost_sound Htab _ _ _ _ _ Ec).
    destruct A as [P D Qn], B as [P' D' Q']; simpl in *; subst.
    eapply Q_GWRITEROWS; eauto using ocost_sound.
  - (* DVwriteRows (coqrows17) *)
    destruct e as [o|op a b|op a|arr i]; try discriminate.
    destruct (c_arr G arr) as [[[] es]|] eqn:Ea; try discriminate.
    destruct (rows_acc_w G wt (aP A) (aD A) i es n0 rows) as [X|] eqn:Er; try discriminate.
    split_b. apply ord_close; [|assumption].
    destruct A as [P D Qn], B as [P' D' Q']; simpl in *. rewrite Hwt in *.
    eapply Q_VWRITEROWS; eauto using ocost_sound. apply negb_true_iff; auto.
  - (* DWriteGuard (coqguard18) *)
    destruct (ecost (aP A) (aD A) e ne) as [C2|] eqn:Ec; try discriminate.
    destruct (c_arr G arr) as [[[] es]|] eqn:Ea; try discriminate.
    destruct (guard_acc_w G wt (aP A) (aD A) i es n0 gi sd terms) as [Lu|] eqn:Er; try discriminate.
    split_b. apply ord_close; [|assumption].
    pose proof (ecost_sound Htab _ _ _ _ _ Ec).
    destruct A as [P D Qn], B as [P' D' Q']; simpl in *; subst.
    eapply Q_GWRITEGUARD; eauto using ocost_sound.
  - (* DVwriteGuard (coqguard18) *)
    destruct e as [o|op a b|op a|arr i]; try discriminate.
    destruct (c_arr G arr) as [[[] es]|] eqn:Ea; try discriminate.
    destruct (guard_acc_w G wt (aP A) (aD A) i es n0 gi sd terms) as [Lu|] eqn:Er; try discriminate.
    split_b. apply ord_close; [|assumption].
    destruct A as [P D Qn], B as [P' D' Q']; simpl in *. rewrite Hwt in *.
    eapply Q_VWRITEGUARD; eauto using ocost_sound. apply negb_true_iff; auto.
  - (* DWhileLastWindow (wincoq19) *)
    destruct (ecost (aP A) (aD A) e ne) as [C|] eqn:Ec; try discriminate.
    destruct (fst (cond G e)) as [|[L|L|L mm rs] [|c' l']] eqn:EL; try discriminate.
    destruct (lin_k G (aD A) L) as [k|] eqn:Ek; try discriminate.
    destruct (lin_loc G (aD A) L) as [[X g]|] eqn:Eo; try discriminate.
    destruct (win_hull wt k) as [[a b]|] eqn:Eh; try discriminate. split_b.
    apply ord_close; [|assumption].
    match goal with Hc : check _ _ _ d1 = true |- _ => ih_none IHd1 Hc end.
    match goal with Hc : check _ _ _ d2 = true |- _ => ih_none IHd2 Hc end.
    destruct A as [P D Qn], B as [P' D' Q'], (dpre d1) as [PB DB QB] eqn:E1,
      (dpost d1) as [PB' DB' QB'] eqn:E2, (dpre d2) as [PL DL QL] eqn:E3,
      (dpost d2) as [PN DN QN] eqn:E4; simpl in *; subst. rewrite Hwt in *.
    eapply Q_WHILELASTWINDOW; eauto using ecost_sound.
Qed.

End Check.

(** ** The root (spec/logic.md §5) and the bound theorem *)
Section Root.
Variable G : ctx.
Variable tab : ntab.

Definition bdim (d : nat) : nat := match d with O => c_bx G | S O => c_by G | _ => c_bz G end.

(** The launch facts: [0 ≤ threadIdx.d ≤ B_d − 1] for [d = x, y, z], then
    [0 ≤ blockIdx.d] for the program's [blockIdx] parameters, [1 ≤ gridDim.d] for its
    [gridDim] parameters, and [blockIdx.d ≤ gridDim.d − 1] when both are parameters. *)
Definition launch_facts : list cstr :=
  flat_map (fun d => [CLe (mkLin 0 [((-1)%Z, VT d)]);
                      CLe (mkLin (- (Z.of_nat (bdim d) - 1)) [(1%Z, VT d)])]) [0; 1; 2]%nat
  ++ map (fun p => CLe (mkLin 0 [((-1)%Z, VP p)])) (c_blockidx G)
  ++ map (fun p => CLe (mkLin 1 [((-1)%Z, VP p)])) (c_griddim G)
  ++ map (fun bg => CLe (mkLin 1 [(1%Z, VP (fst bg)); ((-1)%Z, VP (snd bg))])) (c_bgrid G).

(** The launch: block indices non-negative and below the grid size, grid sizes positive. *)
Definition launch_ok (ps : nat -> val) : Prop :=
  (forall p, In p (c_blockidx G) -> (0 <= int_of (ps p))%Z) /\
  (forall p, In p (c_griddim G) -> (1 <= int_of (ps p))%Z) /\
  (forall bg, In bg (c_bgrid G) -> (int_of (ps (fst bg)) <= int_of (ps (snd bg)) - 1)%Z).

(** Dimension [d] is warp-uniform: in every warp all lanes share [threadIdx.d]. *)
Definition wud_b_w (wt : list (list (Z * Z * Z))) (d : nat) : bool :=
  forallb (fun L => match L with
                    | [] => true
                    | t0 :: _ => forallb (fun tt => (rho_tt tt (VT d) =? rho_tt t0 (VT d))%Z) L
                    end) wt.
Definition wud_b : nat -> bool := wud_b_w (wtids G).

Lemma wud_sound : (0 < c_warp G)%nat -> forallb wud_b (c_wu G) = true -> wu_sound G.
Proof.
  intros HW H d Hd w t t' Ht Ht'. rewrite forallb_forall in H. specialize (H d Hd).
  unfold wud_b, wud_b_w in H. rewrite forallb_forall in H.
  specialize (H _ (in_wtids G w ltac:(eapply lanes_nwarps; eauto))).
  destruct (lanes G w) as [|t0 l] eqn:El; [contradiction|]. cbn [map] in H.
  rewrite forallb_forall in H.
  pose proof (H (lane_t G t) (in_map (lane_t G) (t0 :: l) t Ht)) as E1.
  pose proof (H (lane_t G t') (in_map (lane_t G) (t0 :: l) t' Ht')) as E2.
  apply Z.eqb_eq in E1, E2. rewrite !rho_tt_lane in E1, E2. unfold rho_tid in E1, E2. congruence.
Qed.

(** The root's map is implied by the initial one: every local is 0 ([int]) or its
    type's default in every thread. *)
Definition root_dent (d : dent) : bool :=
  match d with
  | DLin x k r g =>
      kzero k && match c_lty G x with
                 | Some TInt => if (g =? 0)%Z then (r =? 0)%Z else (r mod g =? 0)%Z
                 | _ => true
                 end
  | _ => false
  end.

Lemma root_dsat {ps : nat -> val} : forall arrays T D, forallb root_dent D = true -> dsat G ps (init_store G arrays) T D.
Proof.
  intros arrays T D H d Hd. rewrite forallb_forall in H. specialize (H d Hd).
  destruct d as [x k r g| | | |]; try discriminate. simpl in H. apply andb_true_iff in H as [Hk H].
  apply kzero_eq in Hk; subst k. simpl. destruct (c_lty G x) as [[]|] eqn:Ex.
  - exists 0%Z. split.
    + destruct (Z.eqb_spec g 0) as [->|Hg].
      * apply Z.eqb_eq in H; subst. apply Z.divide_0_r.
      * apply Z.eqb_eq in H. apply Z.mod_divide in H; auto.
        replace (0 - r)%Z with (- r)%Z by lia. apply Z.divide_opp_r; auto.
    + intros t _. reflexivity.
  - intros t t' _ _. reflexivity.
  - intros t t' _ _. reflexivity.
  - intros t t' _ _. reflexivity.
Qed.

(** The root's checks with [chk] the checker of the tree on the lanes [wtids G]: [check]
    ([check_root] below) or CapCheck.v's [ccheck] ([ccheck_root], the capped loops). *)
Definition root_chk (chk : list (list trip) -> stmt -> dtree -> bool)
    (body : stmt) (d : dtree) (bound : pot) : bool :=
  let wt := wtids G in
  (0 <? c_bx G) && (0 <? c_by G) && (0 <? c_bz G) && (0 <? c_warp G) &&
  forallb (wud_b_w wt) (c_wu G) && tab_ok_w G tab wt &&
  cstrs_equiv (aP (dpre d)) launch_facts && forallb root_dent (aD (dpre d)) &&
  qeq (aQ (dpre d)) bound && pvars_ok [] bound &&
  pnonneg (aQ (dpost d)) && chk wt body d.

Definition check_root (body : stmt) (d : dtree) (bound : pot) : bool :=
  root_chk (fun wt => check G tab wt None false) body d bound.

(** The value of a potential that mentions only parameters. *)
Definition rho_params (ps : nat -> val) : var -> Z :=
  fun v => match v with VP p => int_of (ps p) | _ => 0%Z end.

Lemma launch_facts_hold : forall ps s w t,
  (0 < c_bx G)%nat -> (0 < c_by G)%nat -> launch_ok ps ->
  In t (lanes G w) -> sat (rho G ps s t) launch_facts.
Proof.
  intros ps s w t Hx Hy [Hb [Hg Hbg]] Ht. unfold lanes in Ht. apply filter_In in Ht as [_ Ht].
  apply Nat.ltb_lt in Ht.
  pose proof (Nat.mod_upper_bound t (c_bx G) ltac:(lia)).
  pose proof (Nat.mod_upper_bound (t / c_bx G) (c_by G) ltac:(lia)).
  assert (t / (c_bx G * c_by G) < c_bz G)%nat by (apply Nat.div_lt_upper_bound; lia).
  intros c Hc. unfold launch_facts in Hc. repeat rewrite in_app_iff in Hc.
  destruct Hc as [Hc|[Hc|[Hc|Hc]]].
  - simpl in Hc.
    repeat (destruct Hc as [<-|Hc];
      [unfold holds, leval, tsum;
       cbv beta iota zeta delta [fold_right fst snd lcst lterms rho tid bdim]; lia|]).
    contradiction.
  - apply in_map_iff in Hc as [p [<- Hp]]. specialize (Hb p Hp).
    unfold holds, leval, tsum; cbv beta iota zeta delta [fold_right fst snd lcst lterms rho]. lia.
  - apply in_map_iff in Hc as [p [<- Hp]]. specialize (Hg p Hp).
    unfold holds, leval, tsum; cbv beta iota zeta delta [fold_right fst snd lcst lterms rho]. lia.
  - apply in_map_iff in Hc as [[b g] [<- Hp]]. specialize (Hbg (b, g) Hp). simpl in Hbg.
    unfold holds, leval, tsum; cbv beta iota zeta delta [fold_right fst snd lcst lterms rho]. lia.
Qed.

(** The bound theorem for a checker [chk] whose accepted trees are valid (given the facts
    the root checks: the table and the warp-uniform dimensions). *)
Theorem root_sound : forall chk,
  (tab_ok G tab = true -> wu_sound G -> forall s d, chk (wtids G) s d = true ->
   valid G (dpre d) s (dpost d)) ->
  forall body d bound, root_chk chk body d bound = true ->
  forall F ps arrays w s' C, pok G ps -> launch_ok ps ->
  lanes G w <> [] -> seval G F ps (init_store G arrays) body (lanes G w) s' C ->
  C <= pval (rho_params ps) bound.
Proof.
  intros chk Hvalid body d bound H F ps arrays w s' C Hp Hb Hne Hrun.
  unfold root_chk in H. cbv zeta in H. fold wud_b in H. fold (tab_ok G tab) in H. split_b.
  repeat match goal with Hl : (_ <? _)%nat = true |- _ => apply Nat.ltb_lt in Hl end.
  match goal with Hc : chk _ body d = true |- _ => rename Hc into Hchk end.
  match goal with Hc : cstrs_equiv _ _ = true |- _ => rename Hc into Heq end.
  match goal with Hc : forallb root_dent _ = true |- _ => rename Hc into Hrd end.
  match goal with Hc : pvars_ok _ _ = true |- _ => rename Hc into Hpv end.
  match goal with Hc : pnonneg _ = true |- _ => rename Hc into Hnn end.
  match goal with Hc : aQ (dpre d) = bound |- _ => rename Hc into HQb end.
  match goal with Hc : tab_ok G tab = true |- _ => rename Hc into Htab end.
  match goal with Hc : forallb wud_b _ = true |- _ => rename Hc into Hwu end.
  assert (HWU : wu_sound G) by (apply wud_sound; auto).
  pose proof (Hvalid Htab HWU _ _ Hchk) as V.
  assert (Hsat : sat_assn G ps (dpre d) (init_store G arrays) (lanes G w)).
  { split.
    - intros t Ht. apply (cstrs_equiv_sat _ _ _ Heq). eapply launch_facts_hold; eauto.
    - apply root_dsat; auto. }
  assert (Hwt : wt G (init_store G arrays)).
  { intros x ty Hx t. simpl. rewrite Hx. destruct ty; reflexivity. }
  assert (Hn : NoDup (lanes G w)) by (apply NoDup_filter, seq_NoDup).
  destruct (V F ps _ _ _ _ w Hp Hn Hne (incl_refl _) Hwt Hsat Hrun) as [_ HQ].
  destruct (nonempty_elem _ Hne) as [t Ht]. specialize (HQ t Ht).
  pose proof (pnonneg_sound (rho G ps s' t) _ Hnn).
  rewrite HQb in HQ.
  assert (pval (rho G ps (init_store G arrays) t) bound = pval (rho_params ps) bound).
  { unfold pval; f_equal. apply psum_ext. intros c m L a v HcL HL Hav.
    pose proof (pvars_ok_var [] bound c m L a v Hpv HcL HL Hav) as Hv.
    destruct v; simpl in *; auto; try discriminate; contradiction. }
  match goal with Hv : pval _ bound = pval _ bound |- _ => rewrite Hv in HQ end.
  lra.
Qed.

Theorem bound_sound : forall body d bound, check_root body d bound = true ->
  forall F ps arrays w s' C, pok G ps -> launch_ok ps ->
  lanes G w <> [] -> seval G F ps (init_store G arrays) body (lanes G w) s' C ->
  C <= pval (rho_params ps) bound.
Proof.
  refine (root_sound (fun wt => check G tab wt None false) _). intros Htab HWU s d H.
  exact (soundness G HWU _ _ _ (check_qstmt G tab _ Htab eq_refl _ None false _ H)).
Qed.

End Root.

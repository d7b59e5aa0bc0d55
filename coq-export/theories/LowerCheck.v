(** * A checker for lower-bound certificates (spec/logic.md §4b), sound by reflection

    An exported lower certificate is a [dtree] (Check.v's type: the [L:] rules are
    printed with the constructors of their [Q:] counterparts, [L:WHILE] as [DWhile1]);
    [lcheck] walks program and tree and decides every side condition by computation,
    with the lower directions: each potential comparison is reversed ([pot_ge] of
    Lin.v with its arguments swapped), L:WEAK's rewrites must all be equalities
    ([rws_eq]: shift, zero, split, ishift, izero; never mono/imono), and an access
    claim [n] must be at most the named warp's count ([nw_ok], the kernel's [N_W]).
    [lcheck_sound] turns an accepted tree into the semantic judgment [Lower.lvalid]
    on the warp's lanes, through Lower.v's rule lemmas ([L_SKIP] … [L_WHILE]), with
    Soundness.v's lemmas for assertions, dependence maps, substitution and rewrites;
    [lower_bound_sound] concludes [bound ≤ cost] by [Lower.lower_claim] for every parameter
    value satisfying the launch facts and the certificate's parameter hypotheses [H]
    (rule L:HYP: [lcheck_root] accepts a root pre [launch_facts ++ H], [H] over parameters
    only; [H = []] without hypotheses).

    [N_W] (kernel/src/access.rs [n_warp]): a claim [n ≤ 1] holds for every access of a
    non-empty warp; a larger claim needs an index with a linear entry [(k, r, g)] and [n]
    at most the count of the warp's offsets [k·tid] at every admissible base [β] ([betas],
    the kernel's enumeration): distinct sectors ([sec_count], [MemReads]) or the fullest
    bank's distinct offsets ([conf_count], [Conflicts]).  The actual count is the one at
    [β = c·es mod M] ([nw_mem_sound], [conf_count_le]).

    No axiom; every proof is closed. *)
From Coq Require Import ZArith QArith List Bool Arith Lia Lqa.
From WarpCert Require Import Metric Syntax Semantics Lin Shift Logic Soundness Check.
From WarpCert Require Lower Stride Split.
Import ListNotations.

(** Rewrites that are equalities under [P] (no [mono]/[imono]). *)
Definition rws_eq (P : list cstr) (rs : list rw) (Q1 : pot) : bool :=
  rws_ok P rs Q1 && forallb (fun r => negb (is_mono r)) rs.

Lemma rws_eq_sound : forall r P rs Q1, sat r P -> rws_eq P rs Q1 = true ->
  pval r (rws_apply rs Q1) == pval r Q1.
Proof.
  intros r P rs; induction rs as [|r0 rs IH]; intros Q1 HP H; unfold rws_eq in *; simpl in *;
    [reflexivity|].
  repeat rewrite andb_true_iff in H. destruct H as [[[H1 H2] H3] [H4 H5]].
  apply negb_true_iff in H4.
  rewrite IH; [| exact HP | rewrite H3, H5; reflexivity].
  apply (rw_apply_sound r P r0 Q1 HP H1 H4).
Qed.

Section LCheck.
Variable G : ctx.
(** [wl]: the lanes' thread ids of every warp ([wtids G]). *)
Variable wl : list (list trip).
Let M := c_metric G.
(** The side conditions about the judgment's lane set: [lt], the thread ids of its lanes
    (the named warp's at the root, a subset below an L:IFSPLIT), a section variable here
    and an argument of [lcheck]. *)
Section Lanes.
Variable lt : list trip.
(** [hc]: the root's parameter hypotheses (L:HYP; their congruences feed [wdep]). *)
Variable hc : list cstr.

(** [N ≤ N_W(i)] (spec/logic.md §4b), in the covered subset described above. *)
Definition nw_ok (sh : bool) (D : list dent) (i : opd) (es n : Z) : bool :=
  (n <=? 1)%Z ||
  match idep_opd G D i with
  | Some (k, r, g) =>
      if sh then
        (0 <? c_bank_bytes G)%Z && (0 <? c_banks G)%Z &&
        forallb (fun b => n <=? conf_count G (nodup Z.eq_dec (map (kvalz k) lt)) es b)%Z
                (betas (c_bank_bytes G * c_banks G) g r es)
      else
        (0 <? c_sector_bytes G)%Z &&
        forallb (fun b => n <=? sec_count G (map (kvalz k) lt) es b)%Z
                (betas (c_sector_bytes G) g r es)
  | None => false
  end.

(** The exact cost of an expression node (OQ:*, EQ:OP, EQ:UOP, EQ:LARRAY) or the cost
    of L:GARRAY / L:SARRAY with its claim [n]. *)
Definition lecost (D : list dent) (e : expr) (n : Z) : option Q :=
  match e with
  | EOpd o => Some (ocost G o)
  | EBin _ a b => Some (ocost G a + ocost G b + m_op M)
  | EUn _ a => Some (ocost G a + m_op M)
  | ERead A i =>
      match c_arr G A with
      | Some (Global, es) => if nw_ok false D i es n then Some (ocost G i + m_gread M n) else None
      | Some (Shared, es) => if nw_ok true D i es n then Some (ocost G i + m_sread M n) else None
      | Some (Local, _) => Some (ocost G i + m_var M)
      | None => None
      end
  end.

(** The frame of L:IFD: a constraint or potential that mentions no local of [W] has the
    same value in two environments that differ only on the locals of [W]. *)
Lemma tsum_frame : forall r1 r2 l, (forall a v, In (a, v) l -> r1 v = r2 v) ->
  tsum r1 l = tsum r2 l.
Proof.
  intros r1 r2 l H; induction l as [|[a v] l IH]; simpl; auto.
  rewrite (H a v) by (left; auto). rewrite IH; auto. intros; eapply H; right; eauto.
Qed.

Lemma holds_frame : forall r1 r2 c, (forall a v, In (a, v) (lterms (cform c)) -> r1 v = r2 v) ->
  holds r1 c -> holds r2 c.
Proof.
  intros r1 r2 c H. assert (E : leval r1 (cform c) = leval r2 (cform c))
    by (unfold leval; rewrite (tsum_frame r1 r2); auto).
  destruct c; simpl in *; rewrite E; auto.
Qed.

Lemma mentions_in : forall a v L, In (a, v) (lterms L) -> mentions v L = true.
Proof.
  intros a v L H. unfold mentions. apply existsb_exists. exists (a, v). split; auto.
  apply Nat.eqb_refl.
Qed.

Lemma amentions_in : forall a v A, In (a, v) (avars A) -> amentions v A = true.
Proof.
  intros a v A H. unfold avars in H. apply in_flat_map in H. destruct H as [L [HL Hin]].
  unfold amentions. apply existsb_exists. exists L. split; [exact HL|]. eapply mentions_in; eauto.
Qed.

Lemma rho_frame_w : forall ps st st' t W v,
  (forall x t, ~ In x W -> sl st' x t = sl st x t) ->
  (forall x, In x W -> v <> VL x) -> rho G ps st' t v = rho G ps st t v.
Proof.
  intros ps st st' t W [x|p|d] Hf Hv; simpl; auto.
  rewrite Hf; auto. intros Hin. apply (Hv x Hin). reflexivity.
Qed.

(** L:IFDIV (spec/logic.md §4b): the facts [threadIdx = tt] of one lane, and [P] with
    them entails [Ps] by [ws] for some lane [tt] of the warp (the kernel names the lane;
    the checker tries each). *)
Definition fixc (tt : trip) : list cstr :=
  let '(a, b, c) := tt in
  [CEq (mkLin (- a) [(1, VT 0)]); CEq (mkLin (- b) [(1, VT 1)]); CEq (mkLin (- c) [(1, VT 2)])]%Z.
Definition lane_entails (P Ps : list cstr) (ws : list fwit) : bool :=
  existsb (fun tt => entails (fixc tt ++ P) Ps ws) lt.

(** L:VWRITE1/L:VWRITE2's warp-exact product entry (spec/logic.md §4b "Warp-exact
    products", issue 14). [pcong hc p]: the class [(r, m)] of the first congruence
    hypothesis [(mod p m (r))] ([m ≥ 1], form exactly [p]) of the root's hypotheses [hc]. *)
Fixpoint pcong (H : list cstr) (p : nat) : option (Z * Z) :=
  match H with
  | [] => None
  | CMod L m [r] :: H' =>
      if lin_eqb (lnorm L) (lnorm (mkLin 0 [(1, VP p)]%Z)) && (1 <=? m)%Z then Some (r, m)
      else pcong H' p
  | _ :: H' => pcong H' p
  end.
Definition opcong (o : opd) : option (Z * Z) :=
  match o with OParam p => pcong hc p | _ => None end.
(** [went_W(o)]: an operand with a linear entry [(k, r, g)] whose [k·tid] is one value [K]
    on every lane of the warp is one integer [c ≡ r + K (mod g)] there; an [int] parameter
    with a congruence hypothesis [(mod p m (r))] is one integer [≡ r (mod m)]. *)
Definition wdep (D : list dent) (o : opd) : option (Z * Z) :=
  match idep_opd G D o, lt with
  | Some (k, r, g), tt0 :: _ =>
      if forallb (fun tt => (kvalz k tt =? kvalz k tt0)%Z) lt then
        match opcong o with Some rm => Some rm | None => Some (r + kvalz k tt0, g)%Z end
      else None
  | _, _ => None
  end.
(** [went_W(a * b)]: the product of two such warp-uniform integers ([dmul_uni]). *)
Definition wprod (D : list dent) (e : expr) : option dtrip :=
  match e with
  | EBin OMul a b =>
      match wdep D a, wdep D b with
      | Some (r1, g1), Some (r2, g2) => Some (dmul_uni ((0, 0, 0), r1, g1) ((0, 0, 0), r2, g2))%Z
      | _, _ => None
      end
  | _ => None
  end.
(** The post map of [x ← e] in a lower derivation: each entry as Q:VWRITE's [vw_dent_w]
    allows it, or, for an [int] local [x], implied by [went_W(e)]. *)
Definition vw_dent_l (P : list cstr) (D : list dent) (x : nat) (e : expr) (D' : list dent) : bool :=
  forallb (fun d => vw_dent_w G wl P D x e [d] ||
     ((dvar d =? x) && match c_lty G x, wprod D e with
                       | Some TInt, Some (k, r, g) => eimplies (DLin x k r g) d
                       | _, _ => false
                       end)) D'.

(** L:IFALIGN's charge [[m ∤ F]] (spec/logic.md §4b), as the kernel writes residue atoms
    in potentials ([Lin.KRes]). *)
Definition res_lower (Fm : lin) (m : positive) : atm := mkAtmK (mkLin 0 []) 1 (KRes Fm m).

(** L:IFWRAP (spec/logic.md §4b): the test [x == 0] or [x != 0] and the wrapped entry
    [(wrap x k m)] of [x] in [D]; and every residue [0 … m − 1] is [k·tid mod m] on some
    lane of the warp. *)
Definition wrap_test (D : list dent) (e : expr) : option (trip * Z) :=
  match e with
  | EBin OEq (OVar x) (OConst (VInt Z0)) | EBin ONe (OVar x) (OConst (VInt Z0)) =>
      match dget D x with Some (DWrap _ k m) => Some (k, m) | _ => None end
  | _ => None
  end.
Definition wrap_covers (k : trip) (m : Z) : bool :=
  forallb (fun r => existsb (fun tt => Z.eqb (kvalz k tt mod m) r) lt)
    (map Z.of_nat (seq 0 (Z.to_nat m))).

(** L:GARRAYSTRIDE / L:GWRITESTRIDE (spec/logic.md §4b "Strided accesses"): the claim [n]
    of a global access at index [i] (element size [es]) is at most [stride_W(i)] when the
    index is a local [x] whose entry is scaled with one [?] dimension and a row multiplier
    [u = a·p + b] ([DScl x u k r g (Some (p, a, b))]), the part [kmask u k] of its lane
    coefficients has one value on the warp's lanes, and [ws] proves [S − s·u ≤ 0] from [P]
    ([S = ⌈M/es⌉], [M] the sector size, [s] the sign of [a], else of [b]); [stride_W(i)]
    is the number of distinct [tid_d] (the lanes' [ucoef u]) over the warp's lanes.  As
    the kernel's [stride_count] (kernel/src/rules/lower.rs). *)
Definition stride_ok (P : list cstr) (D : list dent) (i : opd) (es n : Z) (ws : list fwit) : bool :=
  match i with
  | OVar x =>
      match dget D x, lt with
      | Some (DScl _ u k _ _ (Some (p, a, b))), tt0 :: _ =>
          let sg := if (a =? 0)%Z then Z.sgn b else Z.sgn a in
          let S := ((c_sector_bytes G + es - 1) / es)%Z in
          onebit u && (0 <? c_sector_bytes G)%Z && (0 <? es)%Z && negb (sg =? 0)%Z &&
          forallb (fun tt => kvalz (kmask u k) tt =? kvalz (kmask u k) tt0)%Z lt &&
          entails P [CLe (mkLin (S - sg * b) [(- sg * a, VP p)])%Z] ws &&
          (0 <=? n)%Z && (n <=? Z.of_nat (length (nodup Z.eq_dec (map (ucoef u) lt))))%Z
      | _, _ => false
      end
  | _ => false
  end.

(** The cost of an L:GARRAYSTRIDE read [(read A i)], [A] global: [C_i + M^gread(n)]. *)
Definition lecost_st (P : list cstr) (D : list dent) (e : expr) (n : Z) (ws : list fwit) : option Q :=
  match e with
  | ERead A i =>
      match c_arr G A with
      | Some (Global, es) => if stride_ok P D i es n ws then Some (ocost G i + m_gread M n) else None
      | _ => None
      end
  | _ => None
  end.

(** L:IFSPLIT (spec/logic.md §4b "Lane subsets"): the test [x == 0] ([true]) or [x != 0]
    ([false]) and the remainder entry [(rem x k r m)] of [x] in [D]. *)
Definition split_test (D : list dent) (e : expr) : option (trip * Z * Z * bool) :=
  match e with
  | EBin OEq (OVar x) (OConst (VInt Z0)) =>
      match dget D x with Some (DRem _ k r m) => Some (k, r, m, true) | _ => None end
  | EBin ONe (OVar x) (OConst (VInt Z0)) =>
      match dget D x with Some (DRem _ k r m) => Some (k, r, m, false) | _ => None end
  | _ => None
  end.
(** A lane takes the then branch iff [m | k·tid + r] is [b] (the kernel's [split_set]). *)
Definition split_lane (k : trip) (r m : Z) (b : bool) (tt : trip) : bool :=
  Bool.eqb ((kvalz k tt + r) mod m =? 0)%Z b.
(** A constant potential (no term; the exporter prints constants as [mkPot c []]). *)
Definition pconst (Q1 : pot) : bool := match pterms Q1 with [] => true | _ => false end.

(** L:IFLANES (spec/logic.md §4b "Lane subsets", iflanescoq19): the test is a comparison
    [a op b] ([cmpZ] defined for [op]) whose operands have exact linear entries [(k, r, 0)]
    ([idep_opd]: an integer constant, a [threadIdx.d], or a local with [(dep x k r 0)]),
    as the kernel's [lanes_set]. *)
Definition lanes_test (D : list dent) (e : expr) : option (binop * trip * Z * trip * Z) :=
  match e with
  | EBin op a b =>
      match cmpZ op 0 0, idep_opd G D a, idep_opd G D b with
      | Some _, Some (ka, ra, Z0), Some (kb, rb, Z0) => Some (op, ka, ra, kb, rb)
      | _, _, _ => None
      end
  | _ => None
  end.
(** A lane takes the then branch iff the comparison of its two values [k·tid + r] holds. *)
Definition lanes_lane (op : binop) (ka : trip) (ra : Z) (kb : trip) (rb : Z) (tt : trip) : bool :=
  match cmpZ op (kvalz ka tt + ra) (kvalz kb tt + rb) with Some b => b | None => false end.

End Lanes.

(** [lcheck lt hc s d]: [d] derives [⊢ᴸ {dpre d} s {dpost d}] over the lanes [lt]. *)
Fixpoint lcheck (lt : list trip) (hc : list cstr) (s : stmt) (d : dtree) : bool :=
  match d, s with
  | DSkip A, SSkip => true
  | DSync A B, SSync =>
      peq (aP A) (aP B) && deq (aD A) (aD B) && pot_ge (padd (aQ B) (m_sync M)) (aQ A)
  | DSeq A B d1 d2, SSeq s1 s2 =>
      aeq (dpre d1) A && aeq (dpost d1) (dpre d2) && aeq (dpost d2) B &&
      lcheck lt hc s1 d1 && lcheck lt hc s2 d2
  | DVwrite1 A B ne ws, SAssign x e =>
      match lecost lt (aD A) e ne with
      | Some C =>
          vw_dent_l lt hc (aP A) (aD A) x e (aD B) &&
          entails_subst G (aP A) x e (aP B) ws &&
          (match lin_fix G (aP A) e with Some _ => true | None => negb (pmentions (VL x) (aQ B)) end) &&
          pot_ge (padd (psubst_e G (aP A) x e (aQ B)) (m_vwrite M + C)) (aQ A)
      | None => false
      end
  | DVwrite2 A B ne ws, SAssign x e =>
      match lecost lt (aD A) e ne with
      | Some C =>
          vw_dent_l lt hc (aP A) (aD A) x e (aD B) && entails_subst G (aP A) x e (aP B) ws &&
          negb (pmentions (VL x) (aQ B)) && pot_ge (padd (aQ B) (m_vwrite M + C)) (aQ A)
      | None => false
      end
  | DWrite A B n ne, SWrite Ar i e =>
      match lecost lt (aD A) e ne, c_arr G Ar with
      | Some C2, Some (Global, es) =>
          peq (aP A) (aP B) && deq (aD A) (aD B) && nw_ok lt false (aD A) i es n &&
          pot_ge (padd (aQ B) (m_gwrite M n + ocost G i + C2)) (aQ A)
      | Some C2, Some (Shared, es) =>
          peq (aP A) (aP B) && deq (aD A) (aD B) && nw_ok lt true (aD A) i es n &&
          pot_ge (padd (aQ B) (m_swrite M n + ocost G i + C2)) (aQ A)
      | Some C2, Some (Local, es) =>
          peq (aP A) (aP B) && deq (aD A) (aD B) &&
          pot_ge (padd (aQ B) (m_vwrite M + ocost G i + C2)) (aQ A)
      | _, _ => false
      end
  | DIf1 A B ne dt df, SIf e s1 s2 =>
      match lecost lt (aD A) e ne with
      | Some C =>
          let T := dpre dt in let F := dpre df in
          unif G (dunif G (aD A)) e &&
          cstrs_equiv (aP T) (andc G (aP A) (aD A) e false) &&
          cstrs_equiv (aP F) (andc G (aP A) (aD A) e true) &&
          deq (aD T) (aD A) && deq (aD F) (aD A) && qeq (aQ F) (aQ T) &&
          aeq (dpost dt) B && aeq (dpost df) B &&
          pot_ge (padd (aQ T) (m_if M + C)) (aQ A) && lcheck lt hc s1 dt && lcheck lt hc s2 df
      | None => false
      end
  | DIf2 A B ne ws dt, SIf e s1 s2 =>
      match lecost lt (aD A) e ne with
      | Some C =>
          let T := dpre dt in
          nonempty (fst (cond G e)) && entails (aP A) (fst (cond G e)) ws &&
          peq (aP T) (aP A) && deq (aD T) (aD A) && aeq (dpost dt) B &&
          pot_ge (padd (aQ T) (m_if M + C)) (aQ A) && lcheck lt hc s1 dt
      | None => false
      end
  | DIf3 A B ne ws df, SIf e s1 s2 =>
      match lecost lt (aD A) e ne with
      | Some C =>
          let F := dpre df in
          nonempty (snd (cond G e)) && entails (aP A) (snd (cond G e)) ws &&
          peq (aP F) (aP A) && deq (aD F) (aD A) && aeq (dpost df) B &&
          pot_ge (padd (aQ F) (m_if M + C)) (aQ A) && lcheck lt hc s2 df
      | None => false
      end
  | DIf4 A B ne wec wet wjt _ _ _, SIf e s1 s2 =>
      (* L:IFD (printed with Q:IF4's constructor; its [else-cond], [else-then],
         [join-else] lists and its two children are unused), or L:IFDIV when its
         [else-then] list [wet] and its [else-cond] list [wec] are not empty: [wet] then
         proves [e] and [wec] proves [¬e] from [P] and the thread index of some lane of
         the warp ([lane_entails]), and [M^div] and both branches' [Lower.sminc] are
         charged; or L:IFDT when only [wet] is not empty: some lane takes the then
         branch, charged [Lower.sminc G s1] *)
      match lecost lt (aD A) e ne with
      | Some C =>
          let W := writes (SIf e s1 s2) in
          let split := nonempty wet in
          let both := nonempty wec in
          (negb split || (nonempty (fst (cond G e)) &&
             lane_entails lt (aP A) (fst (cond G e)) wet &&
             (negb both || (nonempty (snd (cond G e)) &&
                lane_entails lt (aP A) (snd (cond G e)) wec)))) &&
          entails (aP A) (aP B) wjt &&
          forallb (fun c => forallb (fun x => negb (mentions (VL x) (cform c))) W) (aP B) &&
          forallb (fun x => negb (pmentions (VL x) (aQ B))) W &&
          dcovers (aD A) (aD B) && disjoint (dvars (aD B)) W &&
          pot_ge (padd (aQ B) (m_if M + C +
            (if split then (if both then m_div M + Lower.sminc G s1 + Lower.sminc G s2
                            else Lower.sminc G s1) else 0))) (aQ A)
      | None => false
      end
  | DIfAlign A B ne wec wet wjt _ r m _ _, SIf e s1 s2 =>
      (* L:IFALIGN (printed with Q:IFALIGN's constructor): L:IFDIV's checks, its lane
         witnesses as the [else-then] ([e]) and [else-cond] ([¬e]) lists and [P ⇒ P'] as
         [join-then] ([join-else] and the two children unused), with [M^div·[m ∤ r − X]]
         charged instead of [M^div], the atom built from the node's class [(r, m)] as
         Check.v's Q:IFALIGN builds it ([res_atom X r m], written through [res_lower]);
         the class itself needs no check here: any residue atom is at most 1 *)
      match lecost lt (aD A) e ne, fst (cond G e) with
      | Some C, CLe L :: nil =>
          match lin_loc G (aD A) L with
          | Some (X, _) =>
          let W := writes (SIf e s1 s2) in
          nonempty (fst (cond G e)) && nonempty (snd (cond G e)) &&
          lane_entails lt (aP A) (fst (cond G e)) wet &&
          lane_entails lt (aP A) (snd (cond G e)) wec &&
          entails (aP A) (aP B) wjt &&
          forallb (fun c => forallb (fun x => negb (mentions (VL x) (cform c))) W) (aP B) &&
          forallb (fun x => negb (pmentions (VL x) (aQ B))) W &&
          dcovers (aD A) (aD B) && disjoint (dvars (aD B)) W &&
          pot_ge (padd (paddm (aQ B) (m_div M)
                    [res_lower (mkLin (r - lcst X) (map (fun av => (- fst av, snd av))%Z (lterms X))) m])
                    (m_if M + C + Lower.sminc G s1 + Lower.sminc G s2)) (aQ A)
          | None => false
          end
      | _, _ => false
      end
  | DIfWrap A B ne wjt, SIf e s1 s2 =>
      (* L:IFWRAP: L:IFD's frame, the split from the wrapped entry and the lanes, and
         L:IFDIV's charge [M^div + sminc s1 + sminc s2] *)
      match lecost lt (aD A) e ne, wrap_test (aD A) e with
      | Some C, Some (k, m) =>
          let W := writes (SIf e s1 s2) in
          (2 <=? m)%Z && wrap_covers lt k m &&
          entails (aP A) (aP B) wjt &&
          forallb (fun c => forallb (fun x => negb (mentions (VL x) (cform c))) W) (aP B) &&
          forallb (fun x => negb (pmentions (VL x) (aQ B))) W &&
          dcovers (aD A) (aD B) && disjoint (dvars (aD B)) W &&
          pot_ge (padd (aQ B) (m_if M + C + m_div M + Lower.sminc G s1 + Lower.sminc G s2)) (aQ A)
      | _, _ => false
      end
  (* L:VWRITE1 / L:VWRITE2 whose read is L:GARRAYSTRIDE (lowercoq18) *)
  | DVwrite1S A B ne wst ws, SAssign x e =>
      match lecost_st lt (aP A) (aD A) e ne wst with
      | Some C =>
          vw_dent_l lt hc (aP A) (aD A) x e (aD B) &&
          entails_subst G (aP A) x e (aP B) ws &&
          (match lin_fix G (aP A) e with Some _ => true | None => negb (pmentions (VL x) (aQ B)) end) &&
          pot_ge (padd (psubst_e G (aP A) x e (aQ B)) (m_vwrite M + C)) (aQ A)
      | None => false
      end
  | DVwrite2S A B ne wst ws, SAssign x e =>
      match lecost_st lt (aP A) (aD A) e ne wst with
      | Some C =>
          vw_dent_l lt hc (aP A) (aD A) x e (aD B) && entails_subst G (aP A) x e (aP B) ws &&
          negb (pmentions (VL x) (aQ B)) && pot_ge (padd (aQ B) (m_vwrite M + C)) (aQ A)
      | None => false
      end
  (* L:GWRITESTRIDE (lowercoq18): L:GWRITE with the stride count *)
  | DWriteS A B n ne wst, SWrite Ar i e =>
      match lecost lt (aD A) e ne, c_arr G Ar with
      | Some C2, Some (Global, es) =>
          peq (aP A) (aP B) && deq (aD A) (aD B) && stride_ok lt (aP A) (aD A) i es n wst &&
          pot_ge (padd (aQ B) (m_gwrite M n + ocost G i + C2)) (aQ A)
      | _, _ => false
      end
  | DUnroll A B d, SWhile e s =>
      (* L:UNROLL *)
      aeq (dpre d) A && aeq (dpost d) B && lcheck lt hc (SIf e (SSeq s (SWhile e s)) SSkip) d
  | DWhile1 A B ne db, SWhile e s =>
      match lecost lt (aD A) e ne with
      | Some C =>
          let Bp := dpre db in let Bq := dpost db in
          unif G (dunif G (aD A)) e && deq (aD Bp) (aD A) && deq (aD Bq) (aD A) &&
          deq (aD B) (aD A) &&
          cstrs_equiv (aP Bp) (andc G (aP A) (aD A) e false) && cstrs_equiv (aP Bq) (aP A) &&
          pot_ge (aQ Bp) (aQ B) && pot_ge (padd (aQ B) (m_if M + C)) (aQ Bq) &&
          pot_ge (padd (aQ B) (m_if M + C)) (aQ A) &&
          cstrs_equiv (aP B) (andc G (aP A) (aD A) e true) && lcheck lt hc s db
      | None => false
      end
  | DWeak A B k wpre rpre wpost rpost d, s =>
      let N := dpre d in let N' := dpost d in
      entails (aP A) (aP N) wpre && rws_eq (aP A) rpre (aQ A) &&
      pot_ge (padd (aQ N) k) (rws_apply rpre (aQ A)) && dcovers (aD A) (aD N) &&
      entails (aP N') (aP B) wpost && rws_eq (aP N') rpost (padd (aQ N') k) &&
      pot_ge (aQ B) (rws_apply rpost (padd (aQ N') k)) && dcovers (aD N') (aD B) &&
      lcheck lt hc s d
  | DIfSplit A B ne wjt wth wel dt df, SIf e s1 s2 =>
      (* L:IFSPLIT (lowersplit19): the remainder entry splits [lt] into the lanes [lt1]
         taking the then branch and the others [lt2], both non-empty; [P ∧ e ⇒ P1] by
         [wth], [P ∧ ¬e ⇒ P2] by [wel], [D ⊒ D1], [D ⊒ D2]; the branches' potentials
         constants; L:IFD's frame; [Q ≤ Q' + M^if + C + M^div + K1 + K2]; each branch
         checked over its own lanes *)
      match lecost lt (aD A) e ne, split_test (aD A) e with
      | Some C, Some (k, r, m, b) =>
          let W := writes (SIf e s1 s2) in
          let lt1 := filter (split_lane k r m b) lt in
          let lt2 := filter (fun tt => negb (split_lane k r m b tt)) lt in
          let T1 := dpre dt in let T1' := dpost dt in
          let F1 := dpre df in let F1' := dpost df in
          (1 <=? m)%Z && nonempty lt1 && nonempty lt2 &&
          entails (andc G (aP A) (aD A) e false) (aP T1) wth &&
          entails (andc G (aP A) (aD A) e true) (aP F1) wel &&
          dcovers (aD A) (aD T1) && dcovers (aD A) (aD F1) &&
          pconst (aQ T1) && pconst (aQ T1') && pconst (aQ F1) && pconst (aQ F1') &&
          entails (aP A) (aP B) wjt &&
          forallb (fun c => forallb (fun x => negb (mentions (VL x) (cform c))) W) (aP B) &&
          forallb (fun x => negb (pmentions (VL x) (aQ B))) W &&
          dcovers (aD A) (aD B) && disjoint (dvars (aD B)) W &&
          pot_ge (padd (aQ B) (m_if M + C + m_div M + (pcst (aQ T1) - pcst (aQ T1'))
                               + (pcst (aQ F1) - pcst (aQ F1')))) (aQ A) &&
          lcheck lt1 hc s1 dt && lcheck lt2 hc s2 df
      | _, _ => false
      end
  | DIfLanes A B ne wjt wth wel dt df, SIf e s1 s2 =>
      (* L:IFLANES (iflanescoq19): the exact values of the test's operands split [lt] into
         the lanes [lt1] where the comparison holds and the others [lt2]; each non-empty
         side's branch is checked over its lanes as L:IFSPLIT's (an empty side's child is
         not read: SC:IFT / SC:IFF); [M^div] only when both sides are non-empty *)
      match lecost lt (aD A) e ne, lanes_test (aD A) e with
      | Some C, Some (op, ka, ra, kb, rb) =>
          let W := writes (SIf e s1 s2) in
          let lt1 := filter (lanes_lane op ka ra kb rb) lt in
          let lt2 := filter (fun tt => negb (lanes_lane op ka ra kb rb tt)) lt in
          let n1 := nonempty lt1 in let n2 := nonempty lt2 in
          let T1 := dpre dt in let T1' := dpost dt in
          let F1 := dpre df in let F1' := dpost df in
          (n1 || n2) &&
          (negb n1 || (entails (andc G (aP A) (aD A) e false) (aP T1) wth &&
             dcovers (aD A) (aD T1) && pconst (aQ T1) && pconst (aQ T1') &&
             lcheck lt1 hc s1 dt)) &&
          (negb n2 || (entails (andc G (aP A) (aD A) e true) (aP F1) wel &&
             dcovers (aD A) (aD F1) && pconst (aQ F1) && pconst (aQ F1') &&
             lcheck lt2 hc s2 df)) &&
          entails (aP A) (aP B) wjt &&
          forallb (fun c => forallb (fun x => negb (mentions (VL x) (cform c))) W) (aP B) &&
          forallb (fun x => negb (pmentions (VL x) (aQ B))) W &&
          dcovers (aD A) (aD B) && disjoint (dvars (aD B)) W &&
          pot_ge (padd (aQ B) (m_if M + C + (if n1 && n2 then m_div M else 0)
                               + (if n1 then pcst (aQ T1) - pcst (aQ T1') else 0)
                               + (if n2 then pcst (aQ F1) - pcst (aQ F1') else 0))) (aQ A)
      | _, _ => false
      end
  | _, _ => false
  end.

End LCheck.

(** ** Soundness: an accepted tree is a valid lower judgment on its lane set

    The judgment's lane set [T] is a list of lanes of the named warp [w] without
    duplicates, and [t0] one of them, the lane at which potentials are read (every lane
    gives the same inequalities). The root's set is the warp's lanes; an L:IFSPLIT
    branch's is a subset ([lsound]: an accepted tree is valid over every such set). *)
Section LSound.
Variable G : ctx.
Hypothesis HWU : wu_sound G.
Variable F : fmodel.
Variable ps : nat -> val.
Hypothesis Hp : pok G ps.
Variable w : nat.
Let M := c_metric G.
(** [hc]: the root's parameter hypotheses, which the parameter values satisfy (L:HYP). *)
Variable hc : list cstr.
Hypothesis Hhc : sat (rho_params ps) hc.

(** [T] is a lane set of warp [w] read at [t0]. *)
Definition lanes_ok (T : list nat) (t0 : nat) : Prop :=
  In t0 T /\ NoDup T /\ incl T (lanes G w).
(** The semantic assertion and potential of an exported assertion on the lanes [T]. *)
Definition LPg (T : list nat) (A : assn) : store -> Prop := fun st => wt G st /\ sat_assn G ps A st T.
Definition LIg (t0 : nat) (A : assn) : store -> Q := fun st => pval (rho G ps st t0) (aQ A).
(** An accepted tree is a valid lower judgment over every lane set. *)
Definition lsound (d : dtree) : Prop :=
  forall T t0, lanes_ok T t0 -> forall s,
  lcheck G (wtids G) (map (lane_t G) T) hc s d = true ->
  Lower.lvalid G F ps T (LPg T (dpre d)) (LIg t0 (dpre d)) s (LPg T (dpost d)) (LIg t0 (dpost d)).
(** The children of a node that [lcheck] checks (the induction hypotheses of
    [lcheck_sound]). *)
Definition kids (d : dtree) : Prop :=
  match d with
  | DSeq _ _ d1 d2 | DIf1 _ _ _ d1 d2 | DIfSplit _ _ _ _ _ _ d1 d2
  | DIfLanes _ _ _ _ _ _ d1 d2 => lsound d1 /\ lsound d2
  | DIf2 _ _ _ _ d1 | DIf3 _ _ _ _ d1 | DWhile1 _ _ _ d1 | DUnroll _ _ d1
  | DWeak _ _ _ _ _ _ _ d1 => lsound d1
  | _ => True
  end.

Section Lanes.
Variable T : list nat.
Variable t0 : nat.
Hypothesis Ht0 : In t0 T.
Hypothesis HTnd : NoDup T.
Hypothesis HTw : incl T (lanes G w).

(** The semantic assertion and potential of an exported assertion on the lanes [T]. *)
Definition LP (A : assn) : store -> Prop := fun st => wt G st /\ sat_assn G ps A st T.
Definition LI (A : assn) : store -> Q := fun st => pval (rho G ps st t0) (aQ A).

Lemma T_nodup : NoDup T.
Proof. exact HTnd. Qed.
Lemma T_ne : T <> [].
Proof. intros E. rewrite E in Ht0. contradiction. Qed.

Lemma LP_local : forall A, Lower.alocal (LP A).
Proof.
  intros A [l1 a1] [l2 a2] E H. simpl in E. subst l2. exact H.
Qed.
Lemma LI_local : forall A, Lower.plocal (LI A).
Proof. intros A [l1 a1] [l2 a2] E. simpl in E. subst l2. reflexivity. Qed.

(** [MemReads ≥ 1] and [Conflicts ≥ 1] on a non-empty warp. *)
Lemma memreads_ge1 : forall es R, (1 <= memreads G es T R)%Z.
Proof. intros es R. apply Lower.memreads_pos, T_ne. Qed.

Lemma conflicts_ge1 : forall es R, (1 <= conflicts_of G es T R)%Z.
Proof. intros es R. apply Lower.conflicts_pos, T_ne. Qed.

(** The kernel's [N_W] for [MemReads]: the count at the actual base is one of those the
    checker computed. *)
Lemma nw_mem_sound : forall D i es n st,
  nw_ok G (map (lane_t G) T) false D i es n = true -> wt G st -> dsat G ps st T D ->
  (n <= memreads G es T (oval G ps st i))%Z.
Proof.
  intros D i es n st H Hw HD. unfold nw_ok in H. apply orb_true_iff in H as [H|H].
  - apply Z.leb_le in H. pose proof (memreads_ge1 es (oval G ps st i)). lia.
  - destruct (idep_opd G D i) as [[[k r] g]|] eqn:Ei; [|discriminate].
    apply andb_true_iff in H as [HSB Hk]. apply Z.ltb_lt in HSB.
    destruct (idep_opd_sound G ps st T D i k r g Hp Hw HD Ei) as [c [Hcr Hv]].
    set (SB := c_sector_bytes G) in *.
    set (b0 := ((c * es) mod SB)%Z). set (q0 := ((c * es) / SB)%Z).
    assert (Hcq : (c * es = SB * q0 + b0)%Z) by (apply Z.div_mod; lia).
    assert (Hb : In b0 (betas SB g r es)) by (apply beta_in; auto).
    rewrite forallb_forall in Hk. specialize (Hk b0 Hb). apply Z.leb_le in Hk.
    eapply Z.le_trans; [exact Hk|].
    unfold sec_count, memreads. fold SB. rewrite kvalz_lanes, map_map. apply Nat2Z.inj_le.
    assert (Hmap : map (fun t => (int_of (oval G ps st i t) * es) / SB)%Z T =
                   map (fun t => (kval G k t * es + b0) / SB + q0)%Z T).
    { apply map_ext_in. intros t Ht. rewrite Hv by auto. simpl int_of.
      replace ((kval G k t + c) * es)%Z with ((kval G k t * es + b0) + q0 * SB)%Z
        by (rewrite Z.mul_add_distr_r, Hcq; ring).
      rewrite Z.div_add by lia. reflexivity. }
    rewrite Hmap.
    pose proof (nodup_shift_le (fun t => ((kval G k t * es + b0) / SB + q0)%Z) (- q0) T T
                  (incl_refl _)) as Hs.
    rewrite (map_ext (fun t => ((kval G k t * es + b0) / SB + q0 + - q0)%Z)
                     (fun t => ((kval G k t * es + b0) / SB)%Z)) in Hs by (intros; lia).
    exact Hs.
Qed.

(** The same for [Conflicts]: the bank of index [K + c] is the bank of offset [K] at the
    base [β = c·es mod (bank_bytes·banks)], and [K ↦ K + c] maps the distinct offsets of
    a bank one-to-one into its distinct indices. *)
Lemma conf_count_le : forall es (R : fam) k c g r,
  (0 < c_bank_bytes G)%Z -> (0 < c_banks G)%Z ->
  (forall t, In t T -> int_of (R t) = (kval G k t + c)%Z) -> Z.divide g (c - r) ->
  exists b, In b (betas (c_bank_bytes G * c_banks G) g r es) /\
    (conf_count G (nodup Z.eq_dec (map (kval G k) T)) es b <= conflicts_of G es T R)%Z.
Proof.
  intros es R k c g r HBB HNB Hidx Hcr.
  set (BB := c_bank_bytes G) in *. set (NB := c_banks G) in *.
  set (b0 := ((c * es) mod (BB * NB))%Z). set (q0 := ((c * es) / (BB * NB))%Z).
  assert (Hcq : (c * es = (BB * NB) * q0 + b0)%Z) by (apply Z.div_mod; lia).
  exists b0. split; [apply beta_in; [lia | exact Hcr]|].
  assert (Hbank : forall K, bank G es (K + c) = cbank G es b0 K).
  { intros K. unfold bank, cbank. fold BB NB.
    replace ((K + c) * es)%Z with ((K * es + b0) + (q0 * NB) * BB)%Z
      by (rewrite Z.mul_add_distr_r, Hcq; ring).
    rewrite Z.div_add by lia. rewrite Z.mod_add by lia. reflexivity. }
  rewrite conf_count_eq. unfold conflicts_of.
  set (offs := nodup Z.eq_dec (map (kval G k) T)).
  set (idx := nodup Z.eq_dec (map (fun t => int_of (R t)) T)).
  apply fold_max_dom. intros a Ha.
  apply in_map_iff in Ha as [j [<- Hj]]. apply in_map_iff in Hj as [K [<- HK]].
  assert (HKT := HK). apply nodup_In, in_map_iff in HKT as [t [EK Ht]].
  exists (Z.of_nat (length (filter (fun i => (bank G es i =? cbank G es b0 K)%Z) idx))).
  split.
  - apply in_map_iff. exists (cbank G es b0 K). split; [reflexivity|].
    rewrite <- Hbank. apply in_map_iff. exists (K + c)%Z. split; [reflexivity|].
    apply nodup_In, in_map_iff. exists t. split; [rewrite Hidx by auto; lia | exact Ht].
  - apply Nat2Z.inj_le.
    set (A := filter (fun K' => (cbank G es b0 K' =? cbank G es b0 K)%Z) offs).
    assert (HA : NoDup (map (fun v => (v - - c)%Z) A)).
    { apply NoDup_map_shift. apply NoDup_filter, NoDup_nodup. }
    rewrite <- (map_length (fun v => (v - - c)%Z) A).
    apply NoDup_incl_length; auto.
    intros y Hy. apply in_map_iff in Hy as [v [<- Hv]]. apply filter_In in Hv as [Hv Hbj].
    apply nodup_In, in_map_iff in Hv as [t' [Ev Ht']]. subst v.
    apply filter_In. split.
    + apply nodup_In, in_map_iff. exists t'. split; [rewrite Hidx by auto; lia | exact Ht'].
    + replace (kval G k t' - - c)%Z with (kval G k t' + c)%Z by lia. rewrite Hbank. exact Hbj.
Qed.

Lemma nw_conf_sound : forall D i es n st,
  nw_ok G (map (lane_t G) T) true D i es n = true -> wt G st -> dsat G ps st T D ->
  (n <= conflicts_of G es T (oval G ps st i))%Z.
Proof.
  intros D i es n st H Hw HD. unfold nw_ok in H. apply orb_true_iff in H as [H|H].
  - apply Z.leb_le in H. pose proof (conflicts_ge1 es (oval G ps st i)). lia.
  - destruct (idep_opd G D i) as [[[k r] g]|] eqn:Ei; [|discriminate].
    apply andb_true_iff in H as [H Hk]. apply andb_true_iff in H as [HBB HNB].
    apply Z.ltb_lt in HBB, HNB.
    destruct (idep_opd_sound G ps st T D i k r g Hp Hw HD Ei) as [c [Hcr Hv]].
    destruct (conf_count_le es (oval G ps st i) k c g r HBB HNB
                (fun t Ht => ltac:(rewrite Hv by exact Ht; reflexivity)) Hcr) as [b [Hb Hle]].
    rewrite forallb_forall in Hk. specialize (Hk b Hb). apply Z.leb_le in Hk.
    rewrite kvalz_lanes in Hk. lia.
Qed.

Lemma ocost_le : forall st o C, oeval G st o T C -> ocost G o <= C.
Proof. intros st o C H. rewrite (qopd_sound G st o T C _ H (ocost_sound G o)). lra. Qed.

Lemma lecost_sound : forall A e n c, lecost G (map (lane_t G) T) (aD A) e n = Some c ->
  Lower.elow G F ps T (LP A) e c.
Proof.
  intros A e n c H st R C [Hw [HP HD]] He.
  destruct e as [o|op a b|op a|Ar i]; simpl in H.
  - inversion H; subst. inversion He; subst. eapply ocost_le; eauto.
  - inversion H; subst. inversion He; subst.
    match goal with Ha : oeval _ _ a _ _, Hb : oeval _ _ b _ _ |- _ =>
      pose proof (ocost_le _ _ _ Ha); pose proof (ocost_le _ _ _ Hb) end. lra.
  - inversion H; subst. inversion He; subst.
    match goal with Ha : oeval _ _ a _ _ |- _ => pose proof (ocost_le _ _ _ Ha) end. lra.
  - destruct (c_arr G Ar) as [[[] es]|] eqn:Ea; try discriminate.
    + destruct (nw_ok G _ false (aD A) i es n) eqn:En; inversion H; subst.
      inversion He; subst; rewrite Ea in *;
        match goal with H1 : Some _ = Some _ |- _ => inversion H1; subst end.
      match goal with Ho : oeval _ _ i _ _ |- _ => pose proof (ocost_le _ _ _ Ho) end.
      destruct (m_mono (c_metric G) _ _ (nw_mem_sound _ _ _ _ st En Hw HD)) as [Hm _]. lra.
    + destruct (nw_ok G _ true (aD A) i es n) eqn:En; inversion H; subst.
      inversion He; subst; rewrite Ea in *;
        match goal with H1 : Some _ = Some _ |- _ => inversion H1; subst end.
      match goal with Ho : oeval _ _ i _ _ |- _ => pose proof (ocost_le _ _ _ Ho) end.
      destruct (m_mono (c_metric G) _ _ (nw_conf_sound _ _ _ _ st En Hw HD)) as [_ [Hm _]]. lra.
    + inversion H; subst. inversion He; subst; rewrite Ea in *;
        match goal with H1 : Some _ = Some _ |- _ => inversion H1; subst end.
      match goal with Ho : oeval _ _ i _ _ |- _ => pose proof (ocost_le _ _ _ Ho) end. lra.
Qed.

(** L:GARRAYSTRIDE / L:GWRITESTRIDE (spec/logic.md §4b "Strided accesses"): with one [?]
    dimension [u], a lane's coefficient sum is its part off [u] plus the [u] coefficient
    times the lane's [tid_d] ([ucoef u] of its thread index). *)
Lemma stride_index : forall u k' t, onebit u = true ->
  kval G k' t = (kvalz (kmask u k') (lane_t G t) + ucoef u k' * ucoef u (lane_t G t))%Z.
Proof.
  intros [[u1 u2] u3] [[k1 k2] k3] t H. unfold kval, lane_t. rewrite !ztid_tid.
  destruct u1, u2, u3; try discriminate; cbn [kvalz kmask ucoef]; ring.
Qed.

(** [stride_ok]'s claim is at most the warp's [MemReads]: by [Stride.stride_claim_le] with
    [f t = tid_d t], the multiplier's value [u] ([M ≤ S·es ≤ |u|·es] from the Farkas
    witness, read at lane [t0]) and the uniform part [K + c] of the index. *)
Lemma stride_mem_sound : forall P D i es n ws st,
  stride_ok G (map (lane_t G) T) P D i es n ws = true -> dsat G ps st T D ->
  (forall t, In t T -> sat (rho G ps st t) P) ->
  (n <= memreads G es T (oval G ps st i))%Z.
Proof.
  intros P D i es n ws st H HD HP. unfold stride_ok in H.
  destruct i as [x| | |]; try discriminate.
  destruct (dget D x) as [[| | |y u k r g [[[p a] b]|]|]|] eqn:Ed; try discriminate.
  destruct (map (lane_t G) T) as [|tt0 l] eqn:El; try discriminate. rewrite <- El in H.
  cbv zeta in H. repeat rewrite andb_true_iff in H.
  destruct H as [[[[[[[Hu HM] Hes] Hsg] Hk] He] Hn0] Hn].
  apply Z.ltb_lt in HM, Hes. apply negb_true_iff, Z.eqb_neq in Hsg. apply Z.leb_le in Hn.
  destruct (dget_In _ _ _ Ed) as [Hin Hy]; simpl in Hy; subst y.
  specialize (HD _ Hin). simpl in HD. destruct HD as [_ [k' [c [Hkm [_ [[_ Hm] Hv]]]]]].
  set (sg := if (a =? 0)%Z then Z.sgn b else Z.sgn a) in *.
  set (S := ((c_sector_bytes G + es - 1) / es)%Z) in *.
  assert (Hsg1 : (sg = 1 \/ sg = -1)%Z)
    by (clear -Hsg; unfold sg in *; destruct (a =? 0)%Z; [destruct b|destruct a]; simpl in *; lia).
  pose proof (entails_sound _ _ _ _ (HP t0 Ht0) He) as Hs.
  specialize (Hs _ (or_introl eq_refl)). unfold holds, leval in Hs. simpl in Hs.
  assert (HSes : (c_sector_bytes G <= S * es)%Z).
  { unfold S. pose proof (Z.div_mod (c_sector_bytes G + es - 1) es ltac:(lia)).
    pose proof (Z.mod_pos_bound (c_sector_bytes G + es - 1) es Hes). lia. }
  assert (HSu : (S <= Z.abs (ucoef u k'))%Z) by (rewrite Hm; destruct Hsg1 as [E|E]; rewrite E in Hs; lia).
  assert (HMu : (c_sector_bytes G <= Z.abs (ucoef u k') * es)%Z) by nia.
  apply (Stride.stride_claim_le G es T (oval G ps st (OVar x)) (fun t => ucoef u (lane_t G t))
           (ucoef u k') (kvalz (kmask u k) tt0 + c)); [lia | lia | exact HMu | |].
  - intros t Ht. simpl. rewrite Hv by exact Ht. rewrite (stride_index u k' t Hu), Hkm.
    rewrite forallb_forall in Hk. specialize (Hk (lane_t G t) (in_map _ _ _ Ht)).
    apply Z.eqb_eq in Hk. lia.
  - rewrite map_map in Hn. exact Hn.
Qed.

Lemma lecost_st_sound : forall A e n ws c,
  lecost_st G (map (lane_t G) T) (aP A) (aD A) e n ws = Some c ->
  Lower.elow G F ps T (LP A) e c.
Proof.
  intros A e n ws c H st R C [Hw [HP HD]] He.
  destruct e as [o|op a b|op a|Ar i]; simpl in H; try discriminate.
  destruct (c_arr G Ar) as [[[] es]|] eqn:Ea; try discriminate.
  destruct (stride_ok G _ (aP A) (aD A) i es n ws) eqn:En; inversion H; subst.
  inversion He; subst; rewrite Ea in *;
    match goal with H1 : Some _ = Some _ |- _ => inversion H1; subst end.
  match goal with Ho : oeval _ _ i _ _ |- _ => pose proof (ocost_le _ _ _ Ho) end.
  destruct (m_mono (c_metric G) _ _ (stride_mem_sound _ _ _ _ _ _ st En HD HP)) as [Hm _]. lra.
Qed.

(** A uniform test ([unif]) has one value on the warp. *)
Lemma unif_uniform : forall D e st R C, unif G (dunif G D) e = true -> wt G st -> dsat G ps st T D ->
  eeval G F ps st e T R C -> forall t t', In t T -> In t' T -> R t = R t'.
Proof.
  intros D e st R C Hu Hw HD He.
  assert (HX : forall x, memn x (dunif G D) = true -> forall t t', In t T -> In t' T ->
         sl st x t = sl st x t') by (intros; eapply dunif_sound; eauto).
  intros t t' Ht Ht'. eapply (unif_correct G HWU); eauto.
Qed.

(** The helpers of [lcheck_sound]: a pre potential at most [Q + k] ([pot_ge] reversed),
    the assertion of a node equal to another's, a uniform test, a decided test, and the
    post of an assignment. *)
Lemma pre_le : forall A Q1 k st, pot_ge (padd Q1 k) (aQ A) = true ->
  LI A st <= pval (rho G ps st t0) Q1 + k.
Proof.
  intros A Q1 k st H. unfold LI. pose proof (pot_ge_sound (rho G ps st t0) _ _ H) as Hg.
  rewrite padd_val in Hg. exact Hg.
Qed.

Lemma LP_same : forall A B, aP A = aP B -> aD A = aD B -> LP A = LP B.
Proof. intros A B E1 E2. unfold LP, sat_assn. rewrite E1, E2. reflexivity. Qed.

Lemma uniform_of : forall A PT PF e, unif G (dunif G (aD A)) e = true ->
  cstrs_equiv (aP PT) (andc G (aP A) (aD A) e false) = true ->
  cstrs_equiv (aP PF) (andc G (aP A) (aD A) e true) = true ->
  aD PT = aD A -> aD PF = aD A ->
  Lower.uniform_test G F ps T (LP A) e (LP PT) (LP PF).
Proof.
  intros A PT PF e Hu HPT HPF HDT HDF st R C1 [Hw [HP HD]] He.
  split; [eapply unif_uniform; eauto|].
  split; intros Hall; (split; [exact Hw|]); split.
  - intros t Ht. apply (cstrs_equiv_sat _ _ _ HPT).
    apply (andc_correct G F ps st e T R C1 (aD A) (aP A) t Hp Hw HD He Ht (HP t Ht)); auto.
  - rewrite HDT; exact HD.
  - intros t Ht. apply (cstrs_equiv_sat _ _ _ HPF).
    apply (andc_correct G F ps st e T R C1 (aD A) (aP A) t Hp Hw HD He Ht (HP t Ht)); auto.
  - rewrite HDF; exact HD.
Qed.

Lemma decided_of : forall A e ws (neg : bool),
  nonempty ((if neg then snd else fst) (cond G e)) = true ->
  entails (aP A) ((if neg then snd else fst) (cond G e)) ws = true ->
  forall st R C, LP A st -> eeval G F ps st e T R C -> forall t, In t T -> R t = VBool (negb neg).
Proof.
  intros A e ws neg Hn Hent st R C [Hw [HP HD]] He t Ht.
  pose proof (entails_sound _ _ _ _ (HP t Ht) Hent) as Hs.
  destruct (cond_decides G F ps st e T R C t Hp Hw He Ht) as [D1 D2].
  destruct neg; simpl in *; auto.
Qed.

(** A lane's thread index satisfies its [fixc] facts. *)
Lemma fixc_lane : forall st t, sat (rho G ps st t) (fixc (lane_t G t)).
Proof.
  intros st t c Hc. unfold lane_t in Hc. rewrite !ztid_tid in Hc. cbn [fixc In] in Hc.
  destruct Hc as [<-|[<-|[<-|[]]]]; cbn [holds]; unfold leval, tsum;
    cbn [lcst lterms fold_right fst snd rho]; lia.
Qed.

(** The frame of L:IFD and L:IFDIV: after the [if], [P'] (entailed by [P], mentioning no
    local the branches write), [D'] and the potential [Q'] (mentioning none) hold and
    keep their values. *)
Lemma ifd_frame : forall A B e s1 s2 wjt,
  entails (aP A) (aP B) wjt = true ->
  forallb (fun c => forallb (fun x => negb (mentions (VL x) (cform c))) (writes (SIf e s1 s2))) (aP B) = true ->
  forallb (fun x => negb (pmentions (VL x) (aQ B))) (writes (SIf e s1 s2)) = true ->
  dcovers (aD A) (aD B) = true -> disjoint (dvars (aD B)) (writes (SIf e s1 s2)) = true ->
  forall st st' C', LP A st -> seval G F ps st (SIf e s1 s2) T st' C' -> LP B st' /\ LI B st == LI B st'.
Proof.
  intros A B e s1 s2 wjt Hent HPw HQw Hcov Hdj.
  rewrite forallb_forall in HQw, HPw.
  intros st st' C' [Hw [HP HD]] Hs.
  assert (Hfr : forall x t, ~ In x (writes (SIf e s1 s2)) -> sl st' x t = sl st x t)
    by (intros x t Hx; eapply (frame_writes G); eauto).
  split; [split; [eapply (run_wt G); eauto | split]|].
  + intros t Ht c Hc. apply (holds_frame (rho G ps st t)).
    * intros a v Hav. symmetry. apply (rho_frame_w G ps st st' t (writes (SIf e s1 s2)) v Hfr).
      intros x Hx E. subst v. specialize (HPw c Hc). rewrite forallb_forall in HPw.
      specialize (HPw x Hx). apply negb_true_iff in HPw.
      rewrite (mentions_in _ _ _ Hav) in HPw. discriminate.
    * eapply entails_sound; eauto.
  + eapply (dsat_frame G); eauto.
  + assert (E : psum (rho G ps st t0) (pterms (aQ B)) = psum (rho G ps st' t0) (pterms (aQ B))).
    { apply psum_ext. intros c m L a v Hcm HL Hav. symmetry.
      apply (rho_frame_w G ps st st' t0 (writes (SIf e s1 s2)) v Hfr).
      intros x Hx Ev. subst v. specialize (HQw x Hx). apply negb_true_iff in HQw.
      assert (Hm : pmentions (VL x) (aQ B) = true).
      { unfold pmentions. apply existsb_exists. exists (c, m). split; [exact Hcm|].
        apply existsb_exists. exists L. split; [exact HL|]. eapply amentions_in; eauto. }
      rewrite Hm in HQw. discriminate. }
    unfold LI, pval. rewrite E. reflexivity.
Qed.

(** The value of [paddm] (a potential plus [c] times a monomial) and the residue atom's
    bound [≤ 1] (L:IFALIGN). *)
Lemma paddm_lval : forall rho Q1 c m, pval rho (paddm Q1 c m) == pval rho Q1 + c * mval rho m.
Proof. intros rho [c0 l] c m; unfold pval, paddm; cbn [pcst pterms psum fold_right fst snd]. ring. Qed.

Lemma res_lower_le1 : forall rho Fm m, mval rho [res_lower Fm m] <= 1.
Proof.
  intros rho Fm m. cbn [mval fold_right]. rewrite Qmult_1_r.
  unfold atom, res_lower; cbn [akd akval]. destruct (Z.eqb _ 0); unfold Qle; simpl; lia.
Qed.

(** L:IFDIV's lane witnesses: some lane of the warp has the test [¬neg]. *)
Lemma lane_decided : forall A e ws (neg : bool),
  nonempty ((if neg then snd else fst) (cond G e)) = true ->
  lane_entails (map (lane_t G) T) (aP A) ((if neg then snd else fst) (cond G e)) ws = true ->
  forall st R C, LP A st -> eeval G F ps st e T R C -> exists t, In t T /\ R t = VBool (negb neg).
Proof.
  intros A e ws neg Hn Hl st R C [Hw [HP HD]] He.
  unfold lane_entails in Hl. apply existsb_exists in Hl as [tt [Htt Hent]].
  apply in_map_iff in Htt as [t [<- Ht]].
  exists t. split; [exact Ht|].
  assert (Hs : sat (rho G ps st t) ((if neg then snd else fst) (cond G e))).
  { eapply entails_sound; [|exact Hent]. apply sat_app; [apply fixc_lane | exact (HP t Ht)]. }
  destruct (cond_decides G F ps st e T R C t Hp Hw He Ht) as [D1 D2].
  destruct neg; simpl in *; auto.
Qed.

(** L:VWRITE1/L:VWRITE2's warp-exact product entry is sound (spec/logic.md §4b
    "Warp-exact products"). *)
Lemma kval_lane : forall k t, kval G k t = kvalz k (lane_t G t).
Proof. intros [[a b] c] t. unfold kval, kvalz, lane_t. rewrite !ztid_tid. reflexivity. Qed.

Lemma pcong_sound : forall H p r m, sat (rho_params ps) H -> pcong H p = Some (r, m) ->
  Z.divide m (int_of (ps p) - r).
Proof.
  induction H as [|c H IH]; intros p r m HS E; [discriminate|].
  assert (HS' : sat (rho_params ps) H) by (intros c' Hc'; apply HS; right; exact Hc').
  destruct c as [L|L|L m' [|r' [|r'' rs]]]; cbn [pcong] in E; try (eapply IH; eauto; fail).
  destruct (lin_eqb (lnorm L) (lnorm (mkLin 0 [(1, VP p)]%Z)) && (1 <=? m')%Z) eqn:Ec;
    [|eapply IH; eauto].
  injection E as <- <-. apply andb_true_iff in Ec as [E1 E2]. apply Z.leb_le in E2.
  unfold lin_eqb in E1. destruct (lin_eq_dec _ _) as [El|]; [|discriminate].
  pose proof (HS _ (or_introl eq_refl)) as Hh. cbn [holds] in Hh.
  rewrite <- (lnorm_eval _ L), El, lnorm_eval in Hh.
  unfold leval, tsum in Hh. cbn [lcst lterms fold_right fst snd rho_params] in Hh.
  destruct Hh as [Hh|[]].
  replace (0 + (1 * int_of (ps p) + 0))%Z with (int_of (ps p)) in Hh by ring.
  exists (int_of (ps p) / m')%Z. rewrite (Z.div_mod (int_of (ps p)) m') at 1 by lia.
  rewrite <- Hh. ring.
Qed.

Lemma wdep_sound : forall D o st r g, wt G st -> dsat G ps st T D ->
  wdep G (map (lane_t G) T) hc D o = Some (r, g) ->
  (forall t, In t T -> oval G ps st o t = VInt (int_of (oval G ps st o t))) /\
  exists c, Z.divide g (c - r) /\ forall t, In t T -> int_of (oval G ps st o t) = c.
Proof.
  intros D o st r g Hw HD E. unfold wdep in E.
  destruct (idep_opd G D o) as [[[k r0] g0]|] eqn:Ei; [|discriminate].
  destruct (map (lane_t G) T) as [|tt0 l] eqn:El; [discriminate|].
  destruct (forallb _ _) eqn:Ef; [|discriminate]. rewrite <- El in Ef.
  rewrite forallb_forall in Ef.
  destruct (opd_fdep G ps st T D o k r0 g0 Hp Hw HD Ei) as [[c0 [Hc0 Hv]] Va].
  split; [exact Va|].
  assert (K : forall t, In t T -> kval G k t = kvalz k tt0).
  { intros t Ht. rewrite kval_lane. apply Z.eqb_eq. apply Ef. apply in_map. exact Ht. }
  destruct (opcong hc o) as [[r1 m1]|] eqn:Eo.
  - injection E as <- <-. destruct o as [x|p|v|d]; cbn [opcong] in Eo; try discriminate.
    exists (int_of (ps p)). split; [eapply pcong_sound; eauto|].
    intros t Ht. reflexivity.
  - injection E as <- <-. exists (kvalz k tt0 + c0)%Z. split.
    + replace (kvalz k tt0 + c0 - (r0 + kvalz k tt0))%Z with (c0 - r0)%Z by ring. exact Hc0.
    + intros t Ht. rewrite Hv, K by exact Ht. ring.
Qed.

Lemma wprod_sound : forall D e st R C x k r g, wt G st -> dsat G ps st T D ->
  eeval G F ps st e T R C -> c_lty G x = Some TInt ->
  wprod G (map (lane_t G) T) hc D e = Some (k, r, g) ->
  esat G ps (set_local st x T R) T (DLin x k r g).
Proof.
  intros D e st R C x k r g Hw HD He Hx E. destruct e as [o|op a b|op a|A i]; try discriminate.
  destruct op; try discriminate. cbn [wprod] in E.
  destruct (wdep G (map (lane_t G) T) hc D a) as [[r1 g1]|] eqn:Ea; [|discriminate].
  destruct (wdep G (map (lane_t G) T) hc D b) as [[r2 g2]|] eqn:Eb; [|discriminate].
  apply some_eq in E.
  destruct (wdep_sound D a st r1 g1 Hw HD Ea) as [Va [c1 [Hc1 Ca]]].
  destruct (wdep_sound D b st r2 g2 Hw HD Eb) as [Vb [c2 [Hc2 Cb]]].
  assert (Fa : fdep G T (fun t => int_of (oval G ps st a t)) (0, 0, 0)%Z r1 g1).
  { exists c1. split; [exact Hc1|]. intros t Ht. rewrite kval_zero, Ca by exact Ht. ring. }
  assert (Fb : fdep G T (fun t => int_of (oval G ps st b t)) (0, 0, 0)%Z r2 g2).
  { exists c2. split; [exact Hc2|]. intros t Ht. rewrite kval_zero, Cb by exact Ht. ring. }
  assert (Fm := fdep_mul G _ _ _ _ _ _ _ Fa Fb).
  unfold dmul_uni in E. eapply (fdep_norm G) in Fm; [|exact E].
  destruct Fm as [c [Hc Hf]]. cbn [esat]. rewrite Hx. exists c. split; [exact Hc|].
  intros t Ht. rewrite sl_set_local_x by exact Ht. rewrite <- Hf by exact Ht.
  inversion He; subst.
  match goal with Hb : forall t, In t T -> bop_eval _ _ _ _ = Some _ |- _ => rename Hb into HB end.
  specialize (HB t Ht). rewrite (Va t Ht), (Vb t Ht) in HB. simpl in HB.
  injection HB as <-. reflexivity.
Qed.

Lemma vw_dent_l_sound : forall A x e D' st R C ty, LP A st -> eeval G F ps st e T R C ->
  c_lty G x = Some ty -> (forall t, In t T -> has_type (R t) ty = true) ->
  vw_dent_l G (wtids G) (map (lane_t G) T) hc (aP A) (aD A) x e D' = true ->
  dsat G ps (set_local st x T R) T D'.
Proof.
  intros A x e D' st R C ty [Hw [HP HD]] He Hx Hty H d Hd.
  unfold vw_dent_l in H. rewrite forallb_forall in H. specialize (H d Hd).
  apply orb_true_iff in H as [H|H].
  - assert (Hs : dsat G ps (set_local st x T R) T [d]).
    { eapply (vw_dent_sound G HWU) with (D' := [d]) (w := w); eauto. }
    apply Hs; left; reflexivity.
  - apply andb_true_iff in H as [Ex H]. apply Nat.eqb_eq in Ex.
    destruct (c_lty G x) as [[]|] eqn:Ey; try discriminate.
    destruct (wprod G (map (lane_t G) T) hc (aD A) e) as [[[k r] g]|] eqn:Ep; [|discriminate].
    eapply eimplies_sound; [exact H|]. eapply wprod_sound; eauto.
Qed.


Lemma vwrite_lp : forall A B x e ws st R C ty,
  vw_dent_l G (wtids G) (map (lane_t G) T) hc (aP A) (aD A) x e (aD B) = true ->
  entails_subst G (aP A) x e (aP B) ws = true -> LP A st -> eeval G F ps st e T R C ->
  c_lty G x = Some ty -> (forall t, In t T -> has_type (R t) ty = true) ->
  LP B (set_local st x T R).
Proof.
  intros A B x e ws st R C ty Hd Hs [Hw [HP HD]] He Hty Hh.
  assert (Hrun : seval G F ps st (SAssign x e) T (set_local st x T R) (C + m_vwrite (c_metric G)))
    by (eapply SC_VWRITE; eauto).
  split; [eapply run_wt; eauto | split].
  - intros t Ht; eapply vwrite_post; eauto.
  - eapply vw_dent_l_sound; eauto. split; [exact Hw | split; assumption].
Qed.

Lemma LI_set_local : forall B x st R,
  LI B (set_local st x T R) = pval (upd (rho G ps st t0) (VL x) (int_of (R t0))) (aQ B).
Proof. intros B x st R. unfold LI. apply pval_ext. intros; apply rho_set_local; auto. Qed.

Ltac lweak := eapply (Lower.L_WEAK G F ps T) with (f := 0).

(** L:WEAK with only a smaller pre potential. *)
Lemma lvalid_pre : forall P (I : store -> Q) s P' I' (J : store -> Q),
  Lower.lvalid G F ps T P J s P' I' -> (forall st, P st -> I st <= J st) ->
  Lower.lvalid G F ps T P I s P' I'.
Proof.
  intros P I s P' I' J V H. lweak; [| exact V |].
  - intros st Hs. split; [exact Hs|]. pose proof (H st Hs). lra.
  - intros st Hs. split; [exact Hs | lra].
Qed.

(** A branch's runs on non-empty lane lists cost at least its [sminc] ([seval_minc]). *)
(** L:IFWRAP's split: a wrapped entry [(wrap x k m)], [m ≥ 2], whose [k·tid mod m]
    covers every residue on the warp's lanes makes [x == 0] true on the lane with
    [k·tid ≡ −c] and false on the lane with [k·tid ≡ 1 − c] ([c] the entry's unknown);
    the reverse for [x != 0]. *)
Lemma kvalz_lane : forall k t, kvalz k (lane_t G t) = kval G k t.
Proof.
  intros [[a b] c] t. unfold kvalz, lane_t, kval. rewrite !ztid_tid. reflexivity.
Qed.

Lemma wrap_covers_at : forall k m, (1 <= m)%Z -> wrap_covers (map (lane_t G) T) k m = true ->
  forall r, (0 <= r < m)%Z -> exists t, In t T /\ (kval G k t mod m = r)%Z.
Proof.
  intros k m Hm Hc r Hr. unfold wrap_covers in Hc. rewrite forallb_forall in Hc.
  assert (Hin : In r (map Z.of_nat (seq 0 (Z.to_nat m)))).
  { apply in_map_iff. exists (Z.to_nat r). split; [apply Z2Nat.id; lia|].
    apply in_seq. lia. }
  specialize (Hc r Hin). apply existsb_exists in Hc as [tt [Htt Heq]].
  apply in_map_iff in Htt as [t [<- Ht]]. exists t. split; [exact Ht|].
  apply Z.eqb_eq in Heq. rewrite kvalz_lane in Heq. exact Heq.
Qed.

Lemma wrap_split : forall A e k m, wrap_test (aD A) e = Some (k, m) -> (2 <= m)%Z ->
  wrap_covers (map (lane_t G) T) k m = true ->
  forall st R C, LP A st -> eeval G F ps st e T R C ->
  (exists t, In t T /\ R t = VBool true) /\ (exists t, In t T /\ R t = VBool false).
Proof.
  intros A e k m Hw Hm Hc st R C [Hwt [HP HD]] He.
  assert (Hx : exists op x, e = EBin op (OVar x) (OConst (VInt 0)) /\
                 (op = OEq \/ op = ONe) /\ In (DWrap x k m) (aD A)).
  { destruct e as [|op a b| |]; simpl in Hw; try discriminate.
    destruct op; simpl in Hw; try discriminate;
      destruct a as [x| | |]; simpl in Hw; try discriminate;
      destruct b as [| |v|]; simpl in Hw; try discriminate;
      destruct v as [z| |]; simpl in Hw; try discriminate;
      destruct z; simpl in Hw; try discriminate;
      destruct (dget (aD A) x) as [[]|] eqn:Eg; try discriminate;
      injection Hw as <- <-; apply dget_In in Eg as [Hin Ev]; cbn [dvar] in Ev; subst;
      eexists; exists x; (split; [reflexivity | split; [auto | exact Hin]]). }
  destruct Hx as (op & x & -> & Hop & Hin).
  destruct (HD _ Hin) as [Hty [c Hc']].
  (* the test's value on a lane: [x == 0] (or [!=]) on [x = (k·tid + c) rem m] *)
  assert (Hval : forall t, In t T ->
            bop_eval F op (VInt (Z.rem (kval G k t + c) m)) (VInt 0) = Some (R t)).
  { intros t Ht. inversion He; subst.
    match goal with Hb : forall t, In t T -> bop_eval _ _ _ _ = Some (R t) |- _ =>
      specialize (Hb t Ht) end.
    pose proof (Hwt x TInt Hty t) as Ht'. specialize (Hc' t Ht).
    cbn [oval] in *. destruct (sl st x t) as [z| |]; try discriminate. cbn [int_of] in Hc'.
    subst z. assumption. }
  assert (Hm0 : m <> 0%Z) by lia.
  destruct (wrap_covers_at k m ltac:(lia) Hc (- c mod m)%Z ltac:(apply Z.mod_pos_bound; lia))
    as [t1 [Ht1 E1]].
  destruct (wrap_covers_at k m ltac:(lia) Hc ((1 - c) mod m)%Z ltac:(apply Z.mod_pos_bound; lia))
    as [t2 [Ht2 E2]].
  assert (Z1 : Z.rem (kval G k t1 + c) m = 0%Z).
  { apply (proj2 (Z.rem_mod_eq_0 _ _ Hm0)).
    rewrite Zplus_mod, E1, <- Zplus_mod. replace (- c + c)%Z with 0%Z by lia. apply Zmod_0_l. }
  assert (Z2 : Z.rem (kval G k t2 + c) m <> 0%Z).
  { intros Hz. apply (proj1 (Z.rem_mod_eq_0 _ _ Hm0)) in Hz.
    rewrite Zplus_mod, E2, <- Zplus_mod in Hz. replace (1 - c + c)%Z with 1%Z in Hz by lia.
    rewrite Z.mod_small in Hz by lia. discriminate. }
  pose proof (Hval t1 Ht1) as V1. pose proof (Hval t2 Ht2) as V2.
  rewrite Z1 in V1. apply Z.eqb_neq in Z2.
  remember (Z.rem (kval G k t2 + c) m) as z2 eqn:Ez2.
  destruct Hop as [-> | ->]; cbn in V1, V2; rewrite ?Z2 in V2; cbn in V2;
    injection V1 as V1; injection V2 as V2.
  - split; [exists t1 | exists t2]; (split; [assumption | congruence]).
  - split; [exists t2 | exists t1]; (split; [assumption | congruence]).
Qed.

Ltac minc_side :=
  let HT' := fresh in let Hb := fresh in
  intros ?st ?T' ?st' ?C' HT' Hb; exact (Lower.seval_minc _ _ _ _ _ _ _ _ Hb HT').

(** The pre side of [lvalid_pre] from [pot_ge (padd Q k) (aQ A)]. *)
Ltac pre_side H :=
  intros ?st ?Hs; cbv beta;
  match goal with st : store |- _ => pose proof (pre_le _ _ _ st H) end; unfold LI, M in *; lra.

(** L:IFSPLIT (spec/logic.md §4b "Lane subsets"): the lanes of a filtered list of thread
    ids are the filtered lanes. *)
Lemma filter_map_lane : forall (p : trip -> bool) (l : list nat),
  filter p (map (lane_t G) l) = map (lane_t G) (filter (fun t => p (lane_t G t)) l).
Proof.
  intros p l; induction l as [|t l IH]; simpl; [reflexivity|].
  destruct (p (lane_t G t)); simpl; rewrite IH; reflexivity.
Qed.

Lemma nonempty_map_in : forall (l : list nat) (g : nat -> trip), nonempty (map g l) = true ->
  exists t, In t l.
Proof. intros [|t l] g H; [discriminate | exists t; left; reflexivity]. Qed.

(** A constant potential's value. *)
Lemma pconst_val : forall r Q1, pconst Q1 = true -> pval r Q1 == pcst Q1.
Proof.
  intros r [c l] H. unfold pconst in H. cbn [pterms] in H. destruct l; [|discriminate].
  unfold pval, psum. cbn. ring.
Qed.

(** A judgment whose pre and post potentials are constants, with those constants. *)
Lemma lvalid_const : forall T' t' P s P' A B, pconst (aQ A) = true -> pconst (aQ B) = true ->
  Lower.lvalid G F ps T' P (LIg t' A) s P' (LIg t' B) ->
  Lower.lvalid G F ps T' P (fun _ => pcst (aQ A)) s P' (fun _ => pcst (aQ B)).
Proof.
  intros T' t' P s P' A B HA HB V.
  eapply (Lower.L_WEAK G F ps T') with (f := 0); [| exact V |].
  - intros st Hs. split; [exact Hs|]. unfold LIg. rewrite pconst_val by exact HA. lra.
  - intros st Hs. split; [exact Hs|]. unfold LIg. rewrite pconst_val by exact HB. lra.
Qed.

(** The remainder entry decides the test lane by lane ([Split.rem_zero_iff]): on a lane
    of [T], [x == 0] ([b = true]) or [x != 0] ([b = false]) is true iff [split_lane]
    says the lane takes the then branch. *)
Lemma split_lanes : forall A e k r m b st R C,
  split_test (aD A) e = Some (k, r, m, b) -> (1 <= m)%Z -> LP A st -> eeval G F ps st e T R C ->
  forall t, In t T -> is_true_v (R t) = split_lane k r m b (lane_t G t) /\
                      is_false_v (R t) = negb (split_lane k r m b (lane_t G t)).
Proof.
  intros A e k r m b st R C Hs Hm [Hwt [HP HD]] He.
  assert (Hx : exists op x, e = EBin op (OVar x) (OConst (VInt 0)) /\
                 ((op = OEq /\ b = true) \/ (op = ONe /\ b = false)) /\ In (DRem x k r m) (aD A)).
  { destruct e as [|op a c| |]; simpl in Hs; try discriminate.
    destruct op; simpl in Hs; try discriminate;
      destruct a as [x| | |]; simpl in Hs; try discriminate;
      destruct c as [| |v|]; simpl in Hs; try discriminate;
      destruct v as [z| |]; simpl in Hs; try discriminate;
      destruct z; simpl in Hs; try discriminate;
      destruct (dget (aD A) x) as [[]|] eqn:Eg; try discriminate;
      injection Hs as <- <- <- <-; apply dget_In in Eg as [Hin Ev]; cbn [dvar] in Ev; subst;
      eexists; exists x; (split; [reflexivity | split; [auto | exact Hin]]). }
  destruct Hx as (op & x & -> & Hop & Hin).
  destruct (HD _ Hin) as [Hty Hrem].
  intros t Ht. specialize (Hrem t Ht). destruct Hrem as [Hdv Hlt].
  inversion He; subst.
  match goal with Hb : forall t, In t T -> bop_eval _ _ _ _ = Some (R t) |- _ =>
    specialize (Hb t Ht); rename Hb into HB end.
  pose proof (Hwt x TInt Hty t) as Ht'.
  cbn [oval] in HB. destruct (sl st x t) as [z| |]; try discriminate. cbn [int_of] in Hdv, Hlt.
  assert (Hz : (z = 0 <-> (kval G k t + r) mod m = 0)%Z).
  { apply Split.rem_zero_iff; [lia | lia |].
    destruct Hdv as [q Hq]. replace z with ((kval G k t + r) + q * m)%Z by lia.
    apply Z.mod_add. lia. }
  unfold split_lane. rewrite kvalz_lane.
  destruct (Z.eqb_spec z 0) as [Ez|Ez]; destruct (Z.eqb_spec ((kval G k t + r) mod m) 0) as [Em|Em];
    try tauto; destruct Hop as [[-> ->]|[-> ->]]; cbn in HB; rewrite ?(proj2 (Z.eqb_eq z 0) Ez),
    ?(proj2 (Z.eqb_neq z 0) Ez) in HB; cbn in HB; injection HB as <-; auto.
Qed.

(** L:IFLANES: the exact entries decide the comparison lane by lane: on a lane of [T] the
    test is true iff [lanes_lane] says the lane takes the then branch. *)
Lemma vbool_tf : forall b, is_true_v (VBool b) = b /\ is_false_v (VBool b) = negb b.
Proof. intros []; split; reflexivity. Qed.

Lemma lanes_lanes : forall A e op ka ra kb rb st R C,
  lanes_test G (aD A) e = Some (op, ka, ra, kb, rb) -> LP A st -> eeval G F ps st e T R C ->
  forall t, In t T -> is_true_v (R t) = lanes_lane op ka ra kb rb (lane_t G t) /\
                      is_false_v (R t) = negb (lanes_lane op ka ra kb rb (lane_t G t)).
Proof.
  intros A e op ka ra kb rb st R C Hs [Hwt [HP HD]] He.
  destruct e as [|op' a b| |]; cbn [lanes_test] in Hs; try discriminate.
  destruct (cmpZ op' 0 0) eqn:Ec; try discriminate.
  destruct (idep_opd G (aD A) a) as [[[ka' ra'] ga]|] eqn:Ea; try discriminate.
  destruct ga; try discriminate.
  destruct (idep_opd G (aD A) b) as [[[kb' rb'] gb]|] eqn:Eb; try discriminate.
  destruct gb; try discriminate.
  injection Hs as <- <- <- <- <-.
  destruct (idep_opd_sound G ps st T (aD A) a ka' ra' 0 Hp Hwt HD Ea) as [ca [Hca Va]].
  destruct (idep_opd_sound G ps st T (aD A) b kb' rb' 0 Hp Hwt HD Eb) as [cb [Hcb Vb]].
  apply Z.divide_0_l in Hca. apply Z.divide_0_l in Hcb.
  intros t Ht. inversion He; subst.
  match goal with Hb : forall t, In t T -> bop_eval _ _ _ _ = Some (R t) |- _ =>
    specialize (Hb t Ht); rename Hb into HB end.
  rewrite (Va t Ht), (Vb t Ht) in HB.
  replace ca with ra' in HB by lia. replace cb with rb' in HB by lia.
  unfold lanes_lane. rewrite !kvalz_lane.
  destruct op'; cbn in Ec; try discriminate; cbn [bop_eval cmpZ option_map] in HB |- *;
    injection HB as HB; rewrite <- HB; apply vbool_tf.
Qed.

Lemma orb_negb_l : forall b c, (negb b || c)%bool = true -> b = true -> c = true.
Proof. intros [] c H E; [exact H | discriminate]. Qed.

Lemma filter_true_id : forall (p : nat -> bool) (l : list nat),
  (forall t, In t l -> p t = true) -> filter p l = l.
Proof.
  intros p l; induction l as [|a l IH]; intros H; simpl; [reflexivity|].
  rewrite (H a) by (left; reflexivity). f_equal. apply IH. intros t Ht. apply H. right; exact Ht.
Qed.

Lemma nonempty_map_nil : forall (l : list nat) (g : nat -> trip), nonempty (map g l) = false ->
  l = [].
Proof. intros [|t l] g H; [reflexivity | discriminate]. Qed.

Lemma lcheck_sound : forall d, kids d -> forall s,
  lcheck G (wtids G) (map (lane_t G) T) hc s d = true ->
  Lower.lvalid G F ps T (LP (dpre d)) (LI (dpre d)) s (LP (dpost d)) (LI (dpost d)).
Proof.
  (* the children's judgments over [T] (all but L:IFSPLIT's, which are over subsets) *)
  assert (Here : forall d, lsound d -> forall s,
    lcheck G (wtids G) (map (lane_t G) T) hc s d = true ->
    Lower.lvalid G F ps T (LP (dpre d)) (LI (dpre d)) s (LP (dpost d)) (LI (dpost d)))
    by (intros d Hd; exact (Hd T t0 (conj Ht0 (conj HTnd HTw)))).
  intros d Hk; destruct d; cbn [kids] in Hk;
    [lazymatch goal with
     | |- context [DIfSplit] => idtac
     | |- context [DIfLanes] => idtac
     | _ => lazymatch type of Hk with
            | lsound ?a /\ lsound ?b =>
                pose proof (Here a (proj1 Hk)) as IHd1; pose proof (Here b (proj2 Hk)) as IHd2;
                clear Hk
            | lsound ?a => pose proof (Here a Hk) as IHd; clear Hk
            | _ => idtac
            end
     end..];
    intros s H;
    [match goal with
     | _ : lcheck _ _ _ _ _ (DWeak _ _ _ _ _ _ _ _) = true |- _ => idtac
     | _ => destruct s; cbn [lcheck] in H; try discriminate; cbn [dpre dpost]
     end..].
  - (* DSkip *) apply Lower.L_SKIP.
  - (* DSync *) split_b. rewrite (LP_same A B) by assumption.
    eapply lvalid_pre; [apply (Lower.L_SYNC G F ps T (LP B) (LI B)) | pre_side H0].
  - (* DSeq *) split_b. subst.
    eapply Lower.L_SEQ; [apply IHd1; eauto|].
    match goal with E : dpost d1 = dpre d2 |- _ => rewrite E end. apply IHd2; eauto.
  - (* DVwrite1 *)
    destruct (lecost G _ (aD A) e ne) as [C|] eqn:Ec; try discriminate. split_b.
    eapply Lower.L_VWRITE; [eapply lecost_sound; eauto|].
    intros st R C' ty Hs He Hty Hh. split; [eapply vwrite_lp; eauto|].
    pose proof (pre_le _ _ _ st H0) as Hg. rewrite LI_set_local.
    destruct Hs as [Hw [HP HD]]. unfold psubst_e in Hg.
    destruct (lin_fix G (aP A) e) as [E|] eqn:EL.
    + rewrite psubst_val in Hg.
      rewrite (lin_fix_correct G F ps st e T R _ (aP A) E Hp Hw He EL t0 Ht0 (HP t0 Ht0)).
      simpl int_of. unfold M in *. lra.
    + match goal with Hm : negb _ = true |- _ => apply negb_true_iff in Hm end.
      rewrite pval_upd_notin by auto. unfold M in *. lra.
  - (* DVwrite2 *)
    destruct (lecost G _ (aD A) e ne) as [C|] eqn:Ec; try discriminate. split_b.
    eapply Lower.L_VWRITE; [eapply lecost_sound; eauto|].
    intros st R C' ty Hs He Hty Hh. split; [eapply vwrite_lp; eauto|].
    pose proof (pre_le _ _ _ st H0) as Hg. rewrite LI_set_local.
    match goal with Hm : negb _ = true |- _ => apply negb_true_iff in Hm end.
    rewrite pval_upd_notin by auto. unfold M in *. lra.
  - (* DWrite *)
    destruct (lecost G _ (aD A) e ne) as [C2|] eqn:Ec; try discriminate.
    destruct (c_arr G arr) as [[[] es]|] eqn:Ea; try discriminate; split_b;
      match goal with E1 : aP A = aP B, E2 : aD A = aD B |- _ =>
        rewrite <- (LP_same A B E1 E2) end.
    + eapply lvalid_pre;
        [eapply (Lower.L_GWRITE G F ps T (LP A) (LI B) arr i e es n (ocost G i) C2);
           eauto using LP_local, LI_local, lecost_sound | pre_side H0].
      * intros st [Hw [HP HD]]. eapply nw_mem_sound; eauto.
      * intros st C [Hw HA] Ho. eapply ocost_le; eauto.
    + eapply lvalid_pre;
        [eapply (Lower.L_SWRITE G F ps T (LP A) (LI B) arr i e es n (ocost G i) C2);
           eauto using LP_local, LI_local, lecost_sound | pre_side H0].
      * intros st [Hw [HP HD]]. eapply nw_conf_sound; eauto.
      * intros st C [Hw HA] Ho. eapply ocost_le; eauto.
    + eapply lvalid_pre;
        [eapply (Lower.L_LWRITE G F ps T (LP A) (LI B) arr i e es (ocost G i) C2);
           eauto using LP_local, LI_local, lecost_sound | pre_side H0].
      intros st C [Hw HA] Ho. eapply ocost_le; eauto.
  - (* DIf1 *)
    destruct (lecost G _ (aD A) e ne) as [C|] eqn:Ec; try discriminate. split_b.
    match goal with Hc : lcheck _ _ _ _ s1 d1 = true |- _ => specialize (IHd1 _ Hc) end.
    match goal with Hc : lcheck _ _ _ _ s2 d2 = true |- _ => specialize (IHd2 _ Hc) end.
    match goal with E : dpost d1 = B |- _ => rewrite E in IHd1 end.
    match goal with E : dpost d2 = B |- _ => rewrite E in IHd2 end.
    assert (HI : LI (dpre d2) = LI (dpre d1))
      by (unfold LI; match goal with E : aQ (dpre d2) = aQ (dpre d1) |- _ => rewrite E end;
          reflexivity).
    rewrite HI in IHd2.
    match goal with Hc : pot_ge _ (aQ A) = true |- _ => rename Hc into Hge end.
    eapply lvalid_pre;
      [eapply (Lower.L_IF1 G F ps T (LP A) (LP (dpre d1)) (LP (dpre d2)) e s1 s2
                 (LP B) (LI B) (LI (dpre d1)) C); eauto using lecost_sound | pre_side Hge].
    apply uniform_of; assumption.
  - (* DIf2 *)
    destruct (lecost G _ (aD A) e ne) as [C|] eqn:Ec; try discriminate. split_b.
    match goal with Hc : lcheck _ _ _ _ s1 d = true |- _ => specialize (IHd _ Hc) end.
    match goal with E : dpost d = B |- _ => rewrite E in IHd end.
    rewrite (LP_same (dpre d) A) in IHd by assumption.
    match goal with Hc : pot_ge _ (aQ A) = true |- _ => rename Hc into Hge end.
    eapply lvalid_pre;
      [eapply (Lower.L_IF2 G F ps T (LP A) e s1 s2 (LP B) (LI B) (LI (dpre d)) C);
         [exact T_ne | | eapply lecost_sound; eauto | exact IHd] | pre_side Hge].
    intros st R C1 Hs He t Ht. erewrite (decided_of A e ws false); eauto; reflexivity.
  - (* DIf3 *)
    destruct (lecost G _ (aD A) e ne) as [C|] eqn:Ec; try discriminate. split_b.
    match goal with Hc : lcheck _ _ _ _ s2 d = true |- _ => specialize (IHd _ Hc) end.
    match goal with E : dpost d = B |- _ => rewrite E in IHd end.
    rewrite (LP_same (dpre d) A) in IHd by assumption.
    match goal with Hc : pot_ge _ (aQ A) = true |- _ => rename Hc into Hge end.
    eapply lvalid_pre;
      [eapply (Lower.L_IF3 G F ps T (LP A) e s1 s2 (LP B) (LI B) (LI (dpre d)) C);
         [exact T_ne | | eapply lecost_sound; eauto | exact IHd] | pre_side Hge].
    intros st R C1 Hs He t Ht. erewrite (decided_of A e ws true); eauto; reflexivity.
  - (* DIf4: L:IFD, or L:IFDIV when [wet] and [wec] are not empty, L:IFDT when only
       [wet] is *)
    destruct (lecost G _ (aD A) e ne) as [C|] eqn:Ec; try discriminate.
    cbv zeta in H. destruct (nonempty wet) eqn:Hsp; [destruct (nonempty wec) eqn:Hsb|];
      cbn [negb orb] in H; split_b.
    + match goal with Hc : pot_ge _ (aQ A) = true |- _ => rename Hc into Hge end.
      eapply lvalid_pre;
        [eapply (Lower.L_IFDIV G F ps T (LP A) (LP B) (LI B) e s1 s2 C
                   (Lower.sminc G s1) (Lower.sminc G s2));
           [eapply lecost_sound; eauto | minc_side | minc_side | | eapply ifd_frame; eauto]
        | pre_side Hge].
      intros st R C1 Hs He. split.
      * eapply (lane_decided A e wet false); eauto.
      * eapply (lane_decided A e wec true); eauto.
    + match goal with Hc : pot_ge _ (aQ A) = true |- _ => rename Hc into Hge end.
      eapply lvalid_pre;
        [eapply (Lower.L_IFDT G F ps T (LP A) (LP B) (LI B) e s1 s2 C (Lower.sminc G s1));
           [exact T_ne | eapply lecost_sound; eauto
           | minc_side | | eapply ifd_frame; eauto] | pre_side Hge].
      intros st R C1 Hs He. eapply (lane_decided A e wet false); eauto.
    + match goal with Hc : pot_ge _ (aQ A) = true |- _ => rename Hc into Hge end.
      eapply lvalid_pre;
        [eapply (Lower.L_IFD G F ps T (LP A) (LP B) (LI B) e s1 s2 C);
           [exact T_ne | eapply lecost_sound; eauto | eapply ifd_frame; eauto] | pre_side Hge].
  - (* DWhile1 *)
    destruct (lecost G _ (aD A) e ne) as [C|] eqn:Ec; try discriminate. split_b.
    match goal with Hc : lcheck _ _ _ _ s d = true |- _ => specialize (IHd _ Hc) end.
    match goal with Hc : cstrs_equiv (aP (dpost d)) _ = true |- _ => rename Hc into HPq end.
    match goal with Hc : aD (dpost d) = aD A |- _ => rename Hc into HDq end.
    match goal with Hc : pot_ge (aQ (dpre d)) (aQ B) = true |- _ => rename Hc into Hg1 end.
    match goal with Hc : pot_ge _ (aQ (dpost d)) = true |- _ => rename Hc into Hg2 end.
    match goal with Hc : pot_ge _ (aQ A) = true |- _ => rename Hc into Hg3 end.
    assert (HB : Lower.lvalid G F ps T (LP (dpre d)) (LI B) s (LP A)
                   (fun st => LI B st + m_if (c_metric G) + C)).
    { lweak; [| exact IHd |].
      - intros st Hs. split; [exact Hs|]. unfold LI.
        pose proof (pot_ge_sound (rho G ps st t0) _ _ Hg1). lra.
      - intros st [Hw [HP HD]]. split; [split; [exact Hw | split]|].
        + intros t Ht. apply (cstrs_equiv_sat' _ _ _ HPq), HP, Ht.
        + rewrite <- HDq; exact HD.
        + cbv beta. pose proof (pre_le _ _ _ st Hg2). unfold LI, M in *. lra. }
    eapply lvalid_pre;
      [eapply (Lower.L_WHILE G F ps T (LP A) (LP (dpre d)) (LP B) e s (LI B) C);
         [apply uniform_of; assumption | eapply lecost_sound; eauto | exact HB] | pre_side Hg3].
  - (* DUnroll: L:UNROLL *)
    split_b. subst. apply Lower.L_UNROLL.
    match goal with Hc : lcheck _ _ _ _ _ d = true |- _ => exact (IHd _ Hc) end.
  - (* DWeak *)
    cbn [lcheck] in H. split_b. cbn [dpre dpost].
    match goal with Hc : lcheck _ _ _ _ s d = true |- _ => specialize (IHd _ Hc) end.
    eapply (Lower.L_WEAK G F ps T) with (f := k); [| exact IHd |].
    + intros st [Hw [HP HD]]. split; [split; [exact Hw | split]|].
      * intros t Ht. eapply entails_sound; eauto.
      * eapply dcovers_sound; eauto.
      * unfold LI.
        match goal with Hr : rws_eq (aP A) _ _ = true |- _ =>
          pose proof (rws_eq_sound _ _ _ _ (HP t0 Ht0) Hr) as E1 end.
        match goal with Hr : pot_ge (padd _ k) (rws_apply _ (aQ A)) = true |- _ =>
          pose proof (pot_ge_sound (rho G ps st t0) _ _ Hr) as Hg end. rewrite padd_val in Hg.
        lra.
    + intros st [Hw [HP HD]]. split; [split; [exact Hw | split]|].
      * intros t Ht. eapply entails_sound; eauto.
      * eapply dcovers_sound; eauto.
      * unfold LI.
        match goal with Hr : rws_eq (aP (dpost d)) _ _ = true |- _ =>
          pose proof (rws_eq_sound _ _ _ _ (HP t0 Ht0) Hr) as E1 end.
        match goal with Hr : pot_ge (aQ B) _ = true |- _ =>
          pose proof (pot_ge_sound (rho G ps st t0) _ _ Hr) as Hg end. rewrite padd_val in E1.
        lra.
  - (* DIfAlign: L:IFALIGN *)
    destruct (lecost G _ (aD A) e ne) as [C|] eqn:Ec; try discriminate.
    destruct (fst (cond G e)) as [|[L| |] [|]] eqn:Ef; try discriminate.
    destruct (lin_loc G (aD A) L) as [[X g]|]; try discriminate.
    cbv zeta in H. split_b. rewrite <- Ef in *.
    match goal with Hc : pot_ge (padd (paddm _ _ [res_lower ?f ?k]) _) (aQ A) = true |- _ =>
      rename Hc into Hge; set (a := fun st => mval (rho G ps st t0) [res_lower f k]) end.
    eapply lvalid_pre;
      [eapply (Lower.L_IFALIGN G F ps T (LP A) (LP B) (LI B) e s1 s2 C
                 (Lower.sminc G s1) (Lower.sminc G s2) a);
         [intros st _; apply res_lower_le1 | eapply lecost_sound; eauto | minc_side | minc_side | |
          eapply ifd_frame; eauto] |].
    + intros st R C1 Hs He. split.
      * eapply (lane_decided A e wet false); eauto.
      * eapply (lane_decided A e wec true); eauto.
    + intros st Hs; cbv beta. pose proof (pre_le _ _ _ st Hge) as Hl.
      rewrite paddm_lval in Hl. unfold a, LI, M in *. lra.
  - (* DIfWrap: L:IFWRAP *)
    destruct (lecost G _ (aD A) e ne) as [C|] eqn:Ec; try discriminate.
    destruct (wrap_test (aD A) e) as [[k m]|] eqn:Ew; try discriminate.
    cbv zeta in H. split_b.
    match goal with Hc : pot_ge _ (aQ A) = true |- _ => rename Hc into Hge end.
    eapply lvalid_pre;
      [eapply (Lower.L_IFDIV G F ps T (LP A) (LP B) (LI B) e s1 s2 C
                 (Lower.sminc G s1) (Lower.sminc G s2));
         [eapply lecost_sound; eauto | minc_side | minc_side | | eapply ifd_frame; eauto]
      | pre_side Hge].
    intros st R C1 Hs He. eapply wrap_split; eauto. apply Z.leb_le; assumption.
  - (* DVwrite1S: L:VWRITE1 with an L:GARRAYSTRIDE read *)
    destruct (lecost_st G _ (aP A) (aD A) e ne wst) as [C|] eqn:Ec; try discriminate. split_b.
    eapply Lower.L_VWRITE; [eapply lecost_st_sound; eauto|].
    intros st R C' ty Hs He Hty Hh. split; [eapply vwrite_lp; eauto|].
    pose proof (pre_le _ _ _ st H0) as Hg. rewrite LI_set_local.
    destruct Hs as [Hw [HP HD]]. unfold psubst_e in Hg.
    destruct (lin_fix G (aP A) e) as [E|] eqn:EL.
    + rewrite psubst_val in Hg.
      rewrite (lin_fix_correct G F ps st e T R _ (aP A) E Hp Hw He EL t0 Ht0 (HP t0 Ht0)).
      simpl int_of. unfold M in *. lra.
    + match goal with Hm : negb _ = true |- _ => apply negb_true_iff in Hm end.
      rewrite pval_upd_notin by auto. unfold M in *. lra.
  - (* DVwrite2S: L:VWRITE2 with an L:GARRAYSTRIDE read *)
    destruct (lecost_st G _ (aP A) (aD A) e ne wst) as [C|] eqn:Ec; try discriminate. split_b.
    eapply Lower.L_VWRITE; [eapply lecost_st_sound; eauto|].
    intros st R C' ty Hs He Hty Hh. split; [eapply vwrite_lp; eauto|].
    pose proof (pre_le _ _ _ st H0) as Hg. rewrite LI_set_local.
    match goal with Hm : negb _ = true |- _ => apply negb_true_iff in Hm end.
    rewrite pval_upd_notin by auto. unfold M in *. lra.
  - (* DWriteS: L:GWRITESTRIDE *)
    destruct (lecost G _ (aD A) e ne) as [C2|] eqn:Ec; try discriminate.
    destruct (c_arr G arr) as [[[] es]|] eqn:Ea; try discriminate; split_b.
    match goal with E1 : aP A = aP B, E2 : aD A = aD B |- _ =>
      rewrite <- (LP_same A B E1 E2) end.
    match goal with Hc : pot_ge _ (aQ A) = true |- _ => rename Hc into Hge end.
    eapply lvalid_pre;
      [eapply (Lower.L_GWRITE G F ps T (LP A) (LI B) arr i e es n (ocost G i) C2);
         eauto using LP_local, LI_local, lecost_sound | pre_side Hge].
    + intros st [Hw [HP HD]]. eapply stride_mem_sound; eauto.
    + intros st C [Hw HA] Ho. eapply ocost_le; eauto.
  - (* DIfSplit: L:IFSPLIT, by [Split.L_IFSPLIT_R]; the branches over their lanes [T1],
       [T2] by the children's [lsound] *)
    destruct (lecost G _ (aD A) e ne) as [C|] eqn:Ec; try discriminate.
    destruct (split_test (aD A) e) as [[[[k r] m] b]|] eqn:Es; try discriminate.
    cbv zeta in H. split_b.
    destruct Hk as [K1 K2].
    set (f := split_lane k r m b) in *.
    rewrite (filter_map_lane f T) in *.
    rewrite (filter_map_lane (fun tt => negb (f tt)) T) in *.
    cbv beta in *.
    set (T1 := filter (fun t => f (lane_t G t)) T) in *.
    set (T2 := filter (fun t => negb (f (lane_t G t))) T) in *.
    match goal with Hc : (1 <=? m)%Z = true |- _ => apply Z.leb_le in Hc; rename Hc into Hm1 end.
    match goal with Hc : lcheck _ _ (map _ T1) _ s1 d1 = true |- _ => rename Hc into Hc1 end.
    match goal with Hc : lcheck _ _ (map _ T2) _ s2 d2 = true |- _ => rename Hc into Hc2 end.
    match goal with Hc : nonempty (map _ T1) = true |- _ => rename Hc into Hn1 end.
    match goal with Hc : nonempty (map _ T2) = true |- _ => rename Hc into Hn2 end.
    match goal with Hc : entails _ (aP (dpre d1)) wth = true |- _ => rename Hc into Hw1 end.
    match goal with Hc : entails _ (aP (dpre d2)) wel = true |- _ => rename Hc into Hw2 end.
    match goal with Hc : dcovers (aD A) (aD (dpre d1)) = true |- _ => rename Hc into Hd1 end.
    match goal with Hc : dcovers (aD A) (aD (dpre d2)) = true |- _ => rename Hc into Hd2 end.
    match goal with Hc : pot_ge _ (aQ A) = true |- _ => rename Hc into Hge end.
    assert (HT1 : incl T1 T) by (intros t Ht; apply filter_In in Ht; tauto).
    assert (HT2 : incl T2 T) by (intros t Ht; apply filter_In in Ht; tauto).
    assert (Hdis : forall t, In t T2 -> ~ In t T1).
    { intros t H2 H1. apply filter_In in H1 as [_ E1]. apply filter_In in H2 as [_ E2].
      rewrite E1 in E2. discriminate. }
    destruct (nonempty_map_in _ _ Hn1) as [t1 Ht1].
    destruct (nonempty_map_in _ _ Hn2) as [t2 Ht2].
    assert (V1 := K1 T1 t1 (conj Ht1 (conj (NoDup_filter _ HTnd)
                   (fun t Ht => HTw t (HT1 t Ht)))) s1 Hc1).
    assert (V2 := K2 T2 t2 (conj Ht2 (conj (NoDup_filter _ HTnd)
                   (fun t Ht => HTw t (HT2 t Ht)))) s2 Hc2).
    apply lvalid_const in V1; [|assumption..]. apply lvalid_const in V2; [|assumption..].
    eapply lvalid_pre;
      [eapply (Split.L_IFSPLIT_R G F ps T T1 T2 (LP A) (LP B) (LPg T1 (dpre d1))
                 (LPg T1 (dpost d1)) (LPg T2 (dpre d2)) (LPg T2 (dpost d2)) (LI B) e s1 s2 C);
         [intros E; rewrite E in Ht1; exact Ht1 | intros E; rewrite E in Ht2; exact Ht2
         | eapply lecost_sound; eauto
         | | exact V1 | exact V2 | eapply ifd_frame; eauto]
      | pre_side Hge].
    intros st R C1 HA He.
    pose proof (split_lanes A e k r m b st R C1 Es Hm1 HA He) as Hl.
    destruct HA as [Hw [HP HD]].
    split; [unfold T1; apply filter_ext_in; intros t Ht; apply Hl, Ht|].
    split; [unfold T2; apply filter_ext_in; intros t Ht; apply Hl, Ht|].
    split.
    + split; [exact Hw|]. split.
      * intros t Ht. assert (HtT := HT1 t Ht).
        unfold T1 in Ht. apply filter_In in Ht as [_ Hft].
        eapply entails_sound; [|exact Hw1].
        apply (andc_correct G F ps st e T R C1 (aD A) (aP A) t Hp Hw HD He HtT (HP t HtT)).
        rewrite (proj1 (Hl t HtT)). exact Hft.
      * eapply dcovers_sound; [exact Hd1|]. eapply dsat_sub; [exact HT1 | exact HD].
    + intros st1 C2 Hs1.
      assert (Hfr : forall x t, In t T2 -> sl st1 x t = sl st x t)
        by (intros x t Ht; eapply (frame_threads G); [exact Hs1 | apply Hdis, Ht]).
      split; [eapply run_wt; eauto|]. split.
      * intros t Ht. assert (HtT := HT2 t Ht).
        assert (Hs : sat (rho G ps st t) (aP (dpre d2))).
        { eapply entails_sound; [|exact Hw2].
          apply (andc_correct G F ps st e T R C1 (aD A) (aP A) t Hp Hw HD He HtT (HP t HtT)).
          rewrite (proj2 (Hl t HtT)). unfold T2 in Ht. apply filter_In in Ht as [_ Hft].
          exact Hft. }
        intros c Hc. apply (holds_frame (rho G ps st t)); [|exact (Hs c Hc)].
        intros a [x|p|dd] _; cbn [rho]; auto. rewrite (Hfr x t Ht). reflexivity.
      * intros dd Hdd. eapply (esat_frame G); [intros t Ht; apply Hfr, Ht|].
        eapply dcovers_sound; [exact Hd2| |exact Hdd].
        eapply dsat_sub; [exact HT2 | exact HD].
  - (* DIfLanes: L:IFLANES; both sides non-empty by [Split.L_IFSPLIT_R] (as DIfSplit),
       only the then side by [Split.L_IFLANES_ALL_R], only the else side by
       [Split.L_IFLANES_NONE_R] *)
    destruct (lecost G _ (aD A) e ne) as [C|] eqn:Ec; try discriminate.
    destruct (lanes_test G (aD A) e) as [[[[[op ka] ra] kb] rb]|] eqn:Es; try discriminate.
    cbv zeta in H.
    destruct Hk as [K1 K2].
    set (f := lanes_lane op ka ra kb rb) in *.
    rewrite (filter_map_lane f T) in *.
    rewrite (filter_map_lane (fun tt => negb (f tt)) T) in *.
    cbv beta in *.
    set (T1 := filter (fun t => f (lane_t G t)) T) in *.
    set (T2 := filter (fun t => negb (f (lane_t G t))) T) in *.
    assert (HT1 : incl T1 T) by (intros t Ht; apply filter_In in Ht; tauto).
    assert (HT2 : incl T2 T) by (intros t Ht; apply filter_In in Ht; tauto).
    split_b.
    match goal with Hc : (nonempty _ || nonempty _)%bool = true |- _ => rename Hc into Hor end.
    match goal with Hc : (negb (nonempty (map _ T1)) || _)%bool = true |- _ => rename Hc into HB1 end.
    match goal with Hc : (negb (nonempty (map _ T2)) || _)%bool = true |- _ => rename Hc into HB2 end.
    match goal with Hc : pot_ge _ (aQ A) = true |- _ => rename Hc into Hge end.
    match type of Hor with (?n1 || ?n2)%bool = true =>
      destruct n1 eqn:Hn1; destruct n2 eqn:Hn2 end;
      rewrite ?Hn1, ?Hn2 in Hge, Hor; cbn [andb orb] in Hge, Hor.
    4: discriminate.
    + (* both sides: SC:IFD *)
      pose proof (orb_negb_l _ _ HB1 ltac:(first [exact Hn1 | reflexivity])) as HB1'. pose proof (orb_negb_l _ _ HB2 ltac:(first [exact Hn2 | reflexivity])) as HB2'.
      clear HB1 HB2. split_b.
      match goal with Hc : lcheck _ _ (map _ T1) _ s1 d1 = true |- _ => rename Hc into Hc1 end.
      match goal with Hc : lcheck _ _ (map _ T2) _ s2 d2 = true |- _ => rename Hc into Hc2 end.
      match goal with Hc : entails _ (aP (dpre d1)) wth = true |- _ => rename Hc into Hw1 end.
      match goal with Hc : entails _ (aP (dpre d2)) wel = true |- _ => rename Hc into Hw2 end.
      match goal with Hc : dcovers (aD A) (aD (dpre d1)) = true |- _ => rename Hc into Hd1 end.
      match goal with Hc : dcovers (aD A) (aD (dpre d2)) = true |- _ => rename Hc into Hd2 end.
      assert (Hdis : forall t, In t T2 -> ~ In t T1).
      { intros t Hi2 Hi1. apply filter_In in Hi1 as [_ E1]. apply filter_In in Hi2 as [_ E2].
        rewrite E1 in E2. discriminate. }
      destruct (nonempty_map_in _ _ Hn1) as [t1 Ht1].
      destruct (nonempty_map_in _ _ Hn2) as [t2 Ht2].
      assert (V1 := K1 T1 t1 (conj Ht1 (conj (NoDup_filter _ HTnd)
                     (fun t Ht => HTw t (HT1 t Ht)))) s1 Hc1).
      assert (V2 := K2 T2 t2 (conj Ht2 (conj (NoDup_filter _ HTnd)
                     (fun t Ht => HTw t (HT2 t Ht)))) s2 Hc2).
      apply lvalid_const in V1; [|assumption..]. apply lvalid_const in V2; [|assumption..].
      eapply lvalid_pre;
        [eapply (Split.L_IFSPLIT_R G F ps T T1 T2 (LP A) (LP B) (LPg T1 (dpre d1))
                   (LPg T1 (dpost d1)) (LPg T2 (dpre d2)) (LPg T2 (dpost d2)) (LI B) e s1 s2 C);
           [intros E; rewrite E in Ht1; exact Ht1 | intros E; rewrite E in Ht2; exact Ht2
           | eapply lecost_sound; eauto
           | | exact V1 | exact V2 | eapply ifd_frame; eauto]
        | pre_side Hge].
      intros st R C1 HA He.
      pose proof (lanes_lanes A e op ka ra kb rb st R C1 Es HA He) as Hl.
      destruct HA as [Hw [HP HD]].
      split; [unfold T1; apply filter_ext_in; intros t Ht; apply Hl, Ht|].
      split; [unfold T2; apply filter_ext_in; intros t Ht; apply Hl, Ht|].
      split.
      * split; [exact Hw|]. split.
        -- intros t Ht. assert (HtT := HT1 t Ht).
           unfold T1 in Ht. apply filter_In in Ht as [_ Hft].
           eapply entails_sound; [|exact Hw1].
           apply (andc_correct G F ps st e T R C1 (aD A) (aP A) t Hp Hw HD He HtT (HP t HtT)).
           rewrite (proj1 (Hl t HtT)). exact Hft.
        -- eapply dcovers_sound; [exact Hd1|]. eapply dsat_sub; [exact HT1 | exact HD].
      * intros st1 C2 Hs1.
        assert (Hfr : forall x t, In t T2 -> sl st1 x t = sl st x t)
          by (intros x t Ht; eapply (frame_threads G); [exact Hs1 | apply Hdis, Ht]).
        split; [eapply run_wt; eauto|]. split.
        -- intros t Ht. assert (HtT := HT2 t Ht).
           assert (Hs : sat (rho G ps st t) (aP (dpre d2))).
           { eapply entails_sound; [|exact Hw2].
             apply (andc_correct G F ps st e T R C1 (aD A) (aP A) t Hp Hw HD He HtT (HP t HtT)).
             rewrite (proj2 (Hl t HtT)). unfold T2 in Ht. apply filter_In in Ht as [_ Hft].
             exact Hft. }
           intros c Hc. apply (holds_frame (rho G ps st t)); [|exact (Hs c Hc)].
           intros a [x|p|dd] _; cbn [rho]; auto. rewrite (Hfr x t Ht). reflexivity.
        -- intros dd Hdd. eapply (esat_frame G); [intros t Ht; apply Hfr, Ht|].
           eapply dcovers_sound; [exact Hd2| |exact Hdd].
           eapply dsat_sub; [exact HT2 | exact HD].
    + (* only the then side: SC:IFT over all of [T] *)
      pose proof (orb_negb_l _ _ HB1 ltac:(first [exact Hn1 | reflexivity])) as HB1'. clear HB1 HB2. split_b.
      match goal with Hc : lcheck _ _ (map _ T1) _ s1 d1 = true |- _ => rename Hc into Hc1 end.
      match goal with Hc : entails _ (aP (dpre d1)) wth = true |- _ => rename Hc into Hw1 end.
      match goal with Hc : dcovers (aD A) (aD (dpre d1)) = true |- _ => rename Hc into Hd1 end.
      assert (E2 : T2 = []) by (eapply nonempty_map_nil; exact Hn2).
      assert (Hall : forall t, In t T -> f (lane_t G t) = true).
      { intros t Ht. destruct (f (lane_t G t)) eqn:Ef; [reflexivity|].
        assert (Hin : In t T2) by (unfold T2; apply filter_In; rewrite Ef; auto).
        rewrite E2 in Hin. contradiction. }
      assert (E1 : T1 = T) by (unfold T1; apply filter_true_id; exact Hall).
      rewrite E1 in Hc1.
      assert (V1 := K1 T t0 (conj Ht0 (conj HTnd HTw)) s1 Hc1).
      apply lvalid_const in V1; [|assumption..].
      eapply lvalid_pre;
        [eapply (Split.L_IFLANES_ALL_R G F ps T (LP A) (LP B) (LPg T (dpre d1))
                   (LPg T (dpost d1)) (LI B) e s1 s2 C);
           [exact T_ne | eapply lecost_sound; eauto | | exact V1 | eapply ifd_frame; eauto]
        | pre_side Hge].
      intros st R C1 HA He.
      pose proof (lanes_lanes A e op ka ra kb rb st R C1 Es HA He) as Hl.
      destruct HA as [Hw [HP HD]].
      split; [intros t Ht; rewrite (proj1 (Hl t Ht)); apply Hall, Ht|].
      split; [exact Hw|]. split.
      * intros t Ht.
        eapply entails_sound; [|exact Hw1].
        apply (andc_correct G F ps st e T R C1 (aD A) (aP A) t Hp Hw HD He Ht (HP t Ht)).
        rewrite (proj1 (Hl t Ht)). apply Hall, Ht.
      * eapply dcovers_sound; [exact Hd1| exact HD].
    + (* only the else side: SC:IFF over all of [T] *)
      pose proof (orb_negb_l _ _ HB2 ltac:(first [exact Hn2 | reflexivity])) as HB2'. clear HB1 HB2. split_b.
      match goal with Hc : lcheck _ _ (map _ T2) _ s2 d2 = true |- _ => rename Hc into Hc2 end.
      match goal with Hc : entails _ (aP (dpre d2)) wel = true |- _ => rename Hc into Hw2 end.
      match goal with Hc : dcovers (aD A) (aD (dpre d2)) = true |- _ => rename Hc into Hd2 end.
      assert (E1 : T1 = []) by (eapply nonempty_map_nil; exact Hn1).
      assert (Hnone : forall t, In t T -> negb (f (lane_t G t)) = true).
      { intros t Ht. destruct (f (lane_t G t)) eqn:Ef; [|reflexivity].
        assert (Hin : In t T1) by (unfold T1; apply filter_In; rewrite Ef; auto).
        rewrite E1 in Hin. contradiction. }
      assert (E2 : T2 = T) by (unfold T2; apply filter_true_id; exact Hnone).
      rewrite E2 in Hc2.
      assert (V2 := K2 T t0 (conj Ht0 (conj HTnd HTw)) s2 Hc2).
      apply lvalid_const in V2; [|assumption..].
      eapply lvalid_pre;
        [eapply (Split.L_IFLANES_NONE_R G F ps T (LP A) (LP B) (LPg T (dpre d2))
                   (LPg T (dpost d2)) (LI B) e s1 s2 C);
           [exact T_ne | eapply lecost_sound; eauto | | exact V2 | eapply ifd_frame; eauto]
        | pre_side Hge].
      intros st R C1 HA He.
      pose proof (lanes_lanes A e op ka ra kb rb st R C1 Es HA He) as Hl.
      destruct HA as [Hw [HP HD]].
      split; [intros t Ht; rewrite (proj2 (Hl t Ht)); apply Hnone, Ht|].
      split; [exact Hw|]. split.
      * intros t Ht.
        eapply entails_sound; [|exact Hw2].
        apply (andc_correct G F ps st e T R C1 (aD A) (aP A) t Hp Hw HD He Ht (HP t Ht)).
        rewrite (proj2 (Hl t Ht)). apply Hnone, Ht.
      * eapply dcovers_sound; [exact Hd2| exact HD].
Qed.

End Lanes.

(** Every accepted tree is valid over every lane set of the warp (induction on the tree;
    L:IFSPLIT's children over their subsets). *)
Theorem lcheck_sound_all : forall d, lsound d.
Proof.
  induction d; intros T t0 [Ht0 [HTnd HTw]]; eapply lcheck_sound; eauto; cbn [kids]; auto.
Qed.

End LSound.

(** ** The root of a lower certificate (spec/logic.md §4b) and the claim *)
Section LRoot.
Variable G : ctx.

(** [H]: the parameter hypotheses of the certificate ([(lower W (hyp C…) …)], rule
    L:HYP; [[]] without them): [le]/[eq] facts over parameters only ([hyp_params]). *)
Definition hyp_params (c : cstr) : bool :=
  match c with
  | CLe L | CEq L | CMod L _ _ =>
      forallb (fun av => match snd av with VP _ => true | _ => false end) (lterms L)
  end.

(** A hypothesis over parameters holds at every lane and store when it holds of the
    parameter values. *)
Lemma hyp_params_holds : forall ps s t c, hyp_params c = true ->
  holds (rho_params ps) c -> holds (rho G ps s t) c.
Proof.
  intros ps s t [L|L|L m rs] Hc Hh; simpl in *;
    rewrite forallb_forall in Hc; rewrite (leval_ext _ (rho_params ps)); auto;
    intros a v Hav; specialize (Hc _ Hav); destruct v; simpl in *; try discriminate; reflexivity.
Qed.

(** [w]: the named warp ([(lower W)]); its lanes must exist ([NoSuchWarp]); the root's pre
    as an upper certificate's but with [P = launch facts ++ H] (L:HYP), the initial map
    and the bound; its post potential at most 0 ([LowerPostNotZero]). *)
Definition lcheck_root (w : nat) (H : list cstr) (body : stmt) (d : dtree) (bound : pot) : bool :=
  (0 <? c_bx G) && (0 <? c_by G) && (0 <? c_bz G) && (0 <? c_warp G) &&
  negb (Nat.eqb (length (lanes G w)) 0) &&
  forallb (wud_b G) (c_wu G) && forallb hyp_params H &&
  cstrs_equiv (aP (dpre d)) (launch_facts G ++ filter is_lin H) &&
  forallb (root_dent G) (aD (dpre d)) &&
  qeq (aQ (dpre d)) bound && pvars_ok [] bound &&
  pot_ge (mkPot 0 []) (aQ (dpost d)) &&
  lcheck G (wtids G) (map (lane_t G) (lanes G w)) H body d.

(** The claim of a lower certificate: for every parameter value satisfying the launch
    facts and the hypotheses [H] and every content of the arrays, a run of the body on
    warp [w]'s lanes costs at least the bound. *)
Theorem lower_bound_sound : forall w H body d bound, lcheck_root w H body d bound = true ->
  forall F ps arrays s' C, pok G ps -> launch_ok G ps -> sat (rho_params ps) H ->
  seval G F ps (init_store G arrays) body (lanes G w) s' C ->
  pval (rho_params ps) bound <= C.
Proof.
  intros w Hy body d bound H F ps arrays s' C Hp Hb HH Hrun.
  unfold lcheck_root in H. split_b.
  repeat match goal with Hl : (_ <? _)%nat = true |- _ => apply Nat.ltb_lt in Hl end.
  match goal with Hc : lcheck _ _ _ _ body d = true |- _ => rename Hc into Hchk end.
  match goal with Hc : cstrs_equiv _ _ = true |- _ => rename Hc into Heq end.
  match goal with Hc : forallb (root_dent G) _ = true |- _ => rename Hc into Hrd end.
  match goal with Hc : pvars_ok _ _ = true |- _ => rename Hc into Hpv end.
  match goal with Hc : pot_ge _ (aQ (dpost d)) = true |- _ => rename Hc into Hz end.
  match goal with Hc : aQ (dpre d) = bound |- _ => rename Hc into HQb end.
  match goal with Hc : forallb (wud_b G) _ = true |- _ => rename Hc into Hwu end.
  match goal with Hc : forallb hyp_params _ = true |- _ => rename Hc into Hhp end.
  match goal with Hc : negb _ = true |- _ => rename Hc into Hl end.
  assert (HWU : wu_sound G) by (apply wud_sound; auto).
  destruct (lanes G w) as [|t0 l] eqn:El; [discriminate|].
  assert (Ht0 : In t0 (lanes G w)) by (rewrite El; left; reflexivity).
  rewrite <- El in Hchk, Hrun.
  assert (Hnd : NoDup (lanes G w)) by (apply NoDup_filter, seq_NoDup).
  pose proof (lcheck_sound_all G HWU F ps Hp w Hy HH d (lanes G w) t0
                (conj Ht0 (conj Hnd (incl_refl _))) body Hchk) as V.
  assert (V0 : Lower.lvalid G F ps (lanes G w) (LPg G ps (lanes G w) (dpre d)) (LIg G ps t0 (dpre d)) body
                 (LPg G ps (lanes G w) (dpost d)) (fun _ => 0)).
  { eapply (Lower.L_WEAK G F ps (lanes G w)) with (f := 0); [| exact V |].
    - intros st Hs. split; [exact Hs | lra].
    - intros st Hs. split; [exact Hs|]. unfold LIg.
      pose proof (pot_ge_sound (rho G ps st t0) _ _ Hz) as Hg. unfold pval in Hg at 2.
      simpl in Hg. lra. }
  assert (Hsat : LPg G ps (lanes G w) (dpre d) (init_store G arrays)).
  { split; [intros x ty Hx t; simpl; rewrite Hx; destruct ty; reflexivity|]. split.
    - intros t Ht. apply (cstrs_equiv_sat _ _ _ Heq). intros c Hc.
      apply in_app_or in Hc as [Hc|Hc]; [eapply launch_facts_hold; eauto|].
      apply filter_In in Hc as [Hc _].
      rewrite forallb_forall in Hhp. apply hyp_params_holds; auto.
    - apply root_dsat; auto. }
  pose proof (Lower.lower_claim G F ps (lanes G w) _ _ body _ _ _ _ V0 Hsat Hrun) as Hc.
  unfold LIg in Hc. rewrite HQb in Hc.
  assert (pval (rho G ps (init_store G arrays) t0) bound = pval (rho_params ps) bound).
  { unfold pval; f_equal. apply psum_ext. intros c m L a v HcL HL Hav.
    pose proof (pvars_ok_var [] bound c m L a v Hpv HcL HL Hav) as Hv.
    destruct v; simpl in *; auto; try discriminate; contradiction. }
  match goal with Hv : pval _ bound = pval _ bound |- _ => rewrite Hv in Hc end.
  exact Hc.
Qed.

End LRoot.

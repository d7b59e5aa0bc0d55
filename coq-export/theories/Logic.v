(** * The quantitative logic (RaCUDA §4, Fig. 8; spec/logic.md), over the
    concrete representations of warpcert certificates.

    Assertions are [{P; X; Q}]: [P] a list of integer linear constraints
    (per active thread), [X] a set of locals that are warp-uniform — the
    exporter takes the locals whose dependence entry [(dep x k r g)] has non-zero
    [k] only on warp-uniform dimensions ([c_wu]), which includes RaCUDA's [X]
    ([k = 0]) — and [Q] a polynomial potential.  Rule names: spec/logic.md with
    [:] written [_] ([Q:WHILE1] is [Q_WHILE1]).

    Side conditions are boolean functions ([entails], [pot_ge], ...), so that
    an exported derivation is checked by computation.  Differences from
    spec/logic.md (all make the Coq rules *stronger* in their premises, so a
    derivation here is also one of the spec's logic; coq-export/README.md):
    - potential equalities of the spec are checked as [≥] ([pot_ge]);
    - access bounds [N*] re-derive the index's dependence from [P] ([dep_ok]);
    - Q:IF4 additionally requires [Q ≥ Q1], [Q1 ≥ Q2], that the uniform sets
      of the else branch and of the post are subsets of [X] not written by the
      branches before them, and that the potentials mention only uniform
      variables (these replace RaCUDA's Lemma 3, see coq-export/README.md);
    - Q:WHILE2 additionally requires that the post's uniform set is a subset of
      [X] not written by the body and that [Q'] mentions only it (the kernel's
      well-formedness of the post gives both). *)
From Coq Require Import ZArith QArith List Bool Arith Lia Lqa.
From WarpCert Require Import Metric Syntax Semantics Lin.
Import ListNotations.

Record assn := mkAssn { aP : list cstr; aX : list nat; aQ : pot }.

Definition cstr_eq_dec : forall a b : cstr, {a = b} + {a <> b}.
Proof. decide equality; apply lin_eq_dec. Defined.
Definition assn_eq_dec : forall a b : assn, {a = b} + {a <> b}.
Proof.
  assert (Hq : forall a b : Q, {a = b} + {a <> b}).
  { intros [n d] [m e]. destruct (Z.eq_dec n m), (Pos.eq_dec d e); subst; auto;
      right; intros H; inversion H; auto. }
  assert (Hp : forall a b : pot, {a = b} + {a <> b}).
  { intros [c l] [d m]. destruct (Hq c d); [|right; intros H; inversion H; auto].
    destruct (list_eq_dec (fun x y : Q * list lin =>
                ltac:(decide equality; apply list_eq_dec, lin_eq_dec)) l m);
      subst; auto; right; intros H; inversion H; auto. }
  decide equality; [apply list_eq_dec, Nat.eq_dec | apply list_eq_dec, cstr_eq_dec].
Defined.
Definition assn_eqb (a b : assn) : bool := if assn_eq_dec a b then true else false.

(** Integer operations as the semantics computes them (float models play no role on
    integers: [bop_eval_int]). *)
Definition f0 : fmodel := {| f_bin := fun _ _ _ => None; f_un := fun _ _ => None |}.
Definition int_eval (op : binop) (a b : Z) : option Z :=
  match bop_eval f0 op (VInt a) (VInt b) with Some (VInt z) => Some z | _ => None end.
Lemma bop_eval_int : forall F op a b,
  bop_eval F op (VInt a) (VInt b) = bop_eval f0 op (VInt a) (VInt b).
Proof. intros F op a b; destruct op; reflexivity. Qed.

Section Logic.
Variable G : ctx.
Let M := c_metric G.

(** ** Computed notions (spec/logic.md §2) *)
Definition lin_opd (o : opd) : option lin :=
  match o with
  | OVar x => match c_lty G x with Some TInt => Some (mkLin 0 [(1%Z, VL x)]) | _ => None end
  | OParam p => match c_pty G p with Some TInt => Some (mkLin 0 [(1%Z, VP p)]) | _ => None end
  | OConst (VInt n) => Some (mkLin n [])
  | OTid d => if d <? 3 then Some (mkLin 0 [(1%Z, VT d)]) else None
  | _ => None
  end.

Definition lin_expr (e : expr) : option lin :=
  match e with
  | EOpd o => lin_opd o
  | EBin OAdd a b => match lin_opd a, lin_opd b with Some La, Some Lb => Some (ladd La Lb) | _, _ => None end
  | EBin OSub a b =>
      match lin_opd a, lin_opd b with Some La, Some Lb => Some (ladd La (lscale (-1) Lb)) | _, _ => None end
  | EBin OMul (OConst (VInt n)) b => option_map (lscale n) (lin_opd b)
  | EBin OMul a (OConst (VInt n)) => option_map (lscale n) (lin_opd a)
  | EUn UNeg a => option_map (lscale (-1)) (lin_opd a)
  | _ => None
  end.

Definition lsub (La Lb : lin) : lin := ladd La (lscale (-1) Lb).
Definition lplus (L : lin) (k : Z) : lin := ladd L (mkLin k []).

(** [cond(e)] and [cond(¬e)] (strict inequalities tightened over the integers). *)
Definition cond (e : expr) : list cstr * list cstr :=
  match e with
  | EBin op a b =>
      match lin_opd a, lin_opd b with
      | Some La, Some Lb =>
          match op with
          | OLt => ([CLe (lplus (lsub La Lb) 1)], [CLe (lsub Lb La)])
          | OLe => ([CLe (lsub La Lb)], [CLe (lplus (lsub Lb La) 1)])
          | OGt => ([CLe (lplus (lsub Lb La) 1)], [CLe (lsub La Lb)])
          | OGe => ([CLe (lsub Lb La)], [CLe (lplus (lsub La Lb) 1)])
          | OEq => ([CEq (lsub La Lb)], [])
          | ONe => ([], [CEq (lsub La Lb)])
          | _ => ([], [])
          end
      | _, _ => ([], [])
      end
  | _ => ([], [])
  end.

Definition nonempty {A} (l : list A) : bool := match l with [] => false | _ => true end.

Definition memn (x : nat) (X : list nat) : bool := existsb (Nat.eqb x) X.

(** Uniform operands: constants, parameters, locals of [X], and [threadIdx.d] for a
    warp-uniform dimension [d]. *)
Definition opd_unif (X : list nat) (o : opd) : bool :=
  match o with OVar x => memn x X | OParam _ | OConst _ => true | OTid d => memn d (c_wu G) end.

(** [P ⇒ e unif]: every operand is uniform. *)
Definition unif (X : list nat) (e : expr) : bool :=
  match e with
  | EOpd o | EUn _ o | ERead _ o => opd_unif X o
  | EBin _ a b => opd_unif X a && opd_unif X b
  end.

(** ** Fixed operands and [lin_P(e)] (spec/logic.md §2)

    [ybounds y P = (lo, hi)]: the best integer bounds on the local [y] read off the
    constraints of [P] mentioning [y] alone; [fixv P y = Some c] when they meet. *)
Definition omax (a b : option Z) : option Z :=
  match a, b with Some x, Some y => Some (Z.max x y) | Some x, None | None, Some x => Some x | None, None => None end.
Definition omin (a b : option Z) : option Z :=
  match a, b with Some x, Some y => Some (Z.min x y) | Some x, None | None, Some x => Some x | None, None => None end.

(** Bounds on [y] from [a·y + c ≤ 0]: [y ≤ ⌊−c/a⌋] ([a > 0]), [y ≥ ⌈c/(−a)⌉] ([a < 0]). *)
Definition le_bounds (a c : Z) : option Z * option Z :=
  ((if (a <? 0)%Z then Some (- ((- c) / (- a)))%Z else None),
   (if (0 <? a)%Z then Some ((- c) / a)%Z else None)).

Definition cbounds (y : nat) (k : cstr) : option Z * option Z :=
  let L := lnorm (cform k) in
  match lterms L with
  | [(a, VL y')] =>
      if y' =? y then
        let b1 := le_bounds a (lcst L) in
        match k with
        | CLe _ => b1
        | CEq _ => let b2 := le_bounds (- a) (- lcst L) in (omax (fst b1) (fst b2), omin (snd b1) (snd b2))
        end
      else (None, None)
  | _ => (None, None)
  end.

Fixpoint ybounds (y : nat) (P : list cstr) : option Z * option Z :=
  match P with
  | [] => (None, None)
  | k :: P' => let b := cbounds y k in let b' := ybounds y P' in
               (omax (fst b) (fst b'), omin (snd b) (snd b'))
  end.

Definition fixv (P : list cstr) (y : nat) : option Z :=
  match ybounds y P with
  | (Some l, Some h) => if (l =? h)%Z then Some l else None
  | _ => None
  end.

Definition fixo (P : list cstr) (o : opd) : opd :=
  match o with
  | OVar y => match c_lty G y with
              | Some TInt => match fixv P y with Some c => OConst (VInt c) | None => o end
              | _ => o end
  | _ => o
  end.

(** [lin_P(e)]: [lin] of [e] with fixed operands replaced by their values, a binary
    operator other than [+ − *] on two constants evaluated. *)
Definition lin_fix (P : list cstr) (e : expr) : option lin :=
  match e with
  | EOpd o => lin_opd (fixo P o)
  | EBin op a b =>
      match fixo P a, fixo P b with
      | OConst (VInt x), OConst (VInt y) =>
          match op with
          | OAdd | OSub | OMul => lin_expr (EBin op (OConst (VInt x)) (OConst (VInt y)))
          | _ => option_map (fun z => mkLin z []) (int_eval op x y)
          end
      | a', b' => lin_expr (EBin op a' b')
      end
  | EUn op a => lin_expr (EUn op (fixo P a))
  | ERead _ _ => None
  end.

(** [lin_P(e)] is a constant: [e] has the same value in every thread satisfying [P]. *)
Definition lin_const (P : list cstr) (e : expr) : bool :=
  match lin_fix P e with Some L => negb (nonempty (lterms (lnorm L))) | None => false end.

(** The coarse access bound: charging [n] is at least charging the warp size. *)
Definition acc_ok (f : Z -> Q) (n : Z) : bool := Qle_bool (f (Z.of_nat (c_warp G))) (f n).

(** ** Dependence-based access bounds [N*] (spec/logic.md §2)

    The certificate's dependence map says that the index [x] is [k·threadIdx + c] on
    the active threads, with a warp-uniform [c ≡ r (mod g)].  The Coq check
    re-derives this from the constraints: Farkas witnesses for
    [x − k·threadIdx − U ≤ 0] and [≥ 0], [U] a linear form over parameters and uniform
    locals ([c = U], [r] its constant, [g] the gcd of its coefficients).  [N*] is
    computed by enumeration exactly as in spec/logic.md §2; it depends only on the
    key [(kind, constraints of P over threadIdx alone, k, g, r, element size)]. *)
Definition zrange (n : Z) : list Z := map Z.of_nat (seq 0 (Z.to_nat n)).
Definition tid_only (c : cstr) : bool :=
  forallb (fun av => match snd av with VT _ => true | _ => false end) (lterms (cform c)).
Definition holds_b (r : var -> Z) (c : cstr) : bool :=
  match c with CLe L => (leval r L <=? 0)%Z | CEq L => (leval r L =? 0)%Z end.
Definition rho_tid (t : nat) : var -> Z := fun v => match v with VT d => tid G d t | _ => 0%Z end.
Definition kval (k : Z * Z * Z) (t : nat) : Z :=
  let '(kx, ky, kz) := k in (kx * tid G 0 t + ky * tid G 1 t + kz * tid G 2 t)%Z.
Definition nwarps : nat := (c_bx G * c_by G * c_bz G + c_warp G - 1) / c_warp G.
Definition gcd_terms (U : lin) : Z := fold_right (fun av acc => Z.gcd (fst av) acc) 0%Z (lterms U).

(** The lanes of warp [w] satisfying the thread constraints [tc] (used by the proofs). *)
Definition wlanes (tc : list cstr) (w : nat) : list nat :=
  filter (fun t => forallb (holds_b (rho_tid t)) tc) (lanes G w).
Definition betas (MB g r es : Z) : list Z :=
  filter (fun b => ((b - r * es) mod Z.gcd (g * es) MB =? 0)%Z) (zrange MB).

(** For computation, the thread ids of every lane of every warp are computed once, in
    binary integers ([ztid] equals [tid]: Soundness.ztid_tid). *)
Definition ztid (d : nat) (zt : Z) : Z :=
  let zx := Z.of_nat (c_bx G) in let zy := Z.of_nat (c_by G) in
  match d with O => (zt mod zx)%Z | S O => ((zt / zx) mod zy)%Z | _ => (zt / (zx * zy))%Z end.
Definition lane_t (t : nat) : Z * Z * Z := let zt := Z.of_nat t in (ztid 0 zt, ztid 1 zt, ztid 2 zt).
Definition wtids : list (list (Z * Z * Z)) := map (fun w => map lane_t (lanes G w)) (seq 0 nwarps).
Definition rho_tt (tt : Z * Z * Z) : var -> Z :=
  fun v => let '(a, b, c) := tt in match v with VT O => a | VT (S O) => b | VT _ => c | _ => 0%Z end.
Definition kvalz (k tt : Z * Z * Z) : Z :=
  let '(kx, ky, kz) := k in let '(a, b, c) := tt in (kx * a + ky * b + kz * c)%Z.
Definition wfilter (tc : list cstr) (L : list (Z * Z * Z)) : list (Z * Z * Z) :=
  filter (fun tt => forallb (holds_b (rho_tt tt)) tc) L.

(** MemReads: distinct sectors of the byte addresses [K·es + β]. *)
Definition sec_count (offs : list Z) (es b : Z) : Z :=
  Z.of_nat (length (nodup Z.eq_dec (map (fun K => ((K * es + b) / c_sector_bytes G)%Z) offs))).
Definition nstar_mem (wt : list (list (Z * Z * Z))) (tc : list cstr) (k : Z * Z * Z) (g r es : Z) : Z :=
  let bs := betas (c_sector_bytes G) g r es in
  fold_right Z.max 0%Z
    (flat_map (fun L => let offs := map (kvalz k) (wfilter tc L) in map (sec_count offs es) bs) wt).

(** Conflicts: per bank [⌊a/bank_bytes⌋ mod banks] of [a = K·es + β], the distinct
    offsets [K]; the fullest bank. *)
Definition cbank (es b K : Z) : Z := (((K * es + b) / c_bank_bytes G) mod c_banks G)%Z.
Definition conf_count (offs : list Z) (es b : Z) : Z :=
  let bks := map (cbank es b) offs in
  fold_right Z.max 0%Z (map (fun j => Z.of_nat (length (filter (Z.eqb j) bks))) bks).
Definition nstar_conf (wt : list (list (Z * Z * Z))) (tc : list cstr) (k : Z * Z * Z) (g r es : Z) : Z :=
  let bs := betas (c_bank_bytes G * c_banks G) g r es in
  fold_right Z.max 0%Z
    (flat_map (fun L => let offs := nodup Z.eq_dec (map (kvalz k) (wfilter tc L)) in
                        map (conf_count offs es) bs) wt).

(** Keys of [N*]: [(shared?, tc, k, g, r, es)]; [nstar_w wt] with [wt = wtids]. *)
Definition nkey := (bool * list cstr * (Z * Z * Z) * Z * Z * Z)%type.
Definition nstar_w (wt : list (list (Z * Z * Z))) (key : nkey) : Z :=
  let '(sh, tc, k, g, r, es) := key in
  if sh then nstar_conf wt tc k g r es else nstar_mem wt tc k g r es.
Definition nstar (key : nkey) : Z := nstar_w wtids key.

(** A bound oracle: [bnd key n] claims [N*(key) ≤ n]; [exact_bnd] computes. *)
Definition exact_bnd (key : nkey) (n : Z) : bool := (nstar key <=? n)%Z.

Definition dep_form (x : nat) (k : Z * Z * Z) (U : lin) : lin :=
  let '(kx, ky, kz) := k in
  ladd (mkLin 0 [(1%Z, VL x)]) (lscale (-1) (ladd (mkLin 0 [(kx, VT 0); (ky, VT 1); (kz, VT 2)]) U)).
Definition uvars_ok (X : list nat) (U : lin) : bool :=
  forallb (fun av => match snd av with VP _ => true | VL x => memn x X | VT _ => false end) (lterms U).
(** [(k, U, w1, w2)]: witnesses for [x − k·threadIdx − U ≤ 0] and for its negation. *)
Definition dwit := ((Z * Z * Z) * lin * fwit * fwit)%type.
Definition tid_k (d : nat) : Z * Z * Z :=
  match d with O => (1, 0, 0)%Z | S O => (0, 1, 0)%Z | _ => (0, 0, 1)%Z end.

(** The dependence check of an access with index [i], shared ([sh]) or global, under
    the bound oracle [bnd]: a local ([dw] witnesses its dependence), [threadIdx.d]
    ([k = e_d]), an [int] parameter ([k = 0], [c] uniform: [g = 1]) or a constant [c]
    ([k = 0], [g = 0]); [dw] is only read for a local. *)
Definition dep_ok_with (bnd : nkey -> Z -> bool) (sh : bool) (P : list cstr) (X : list nat)
    (i : opd) (es n : Z) (dw : dwit) : bool :=
  let '(k, U, w1, w2) := dw in
  let pos := (if sh then (0 <? c_bank_bytes G)%Z && (0 <? c_banks G)%Z
              else (0 <? c_sector_bytes G)%Z) && (0 <? c_warp G)%nat in
  let tc := filter tid_only P in
  match i with
  | OVar x => match c_lty G x with
              | Some TInt => pos &&
                             farkas_ok P (CLe (dep_form x k U)) w1 &&
                             farkas_ok P (CLe (lscale (-1) (dep_form x k U))) w2 && uvars_ok X U &&
                             bnd (sh, tc, k, gcd_terms U, lcst U, es) n
              | _ => false end
  | OTid d => pos && bnd (sh, tc, tid_k d, 0%Z, 0%Z, es) n
  | OParam p => match c_pty G p with
                | Some TInt => pos && bnd (sh, tc, (0, 0, 0)%Z, 1%Z, 0%Z, es) n
                | _ => false end
  | OConst (VInt c) => pos && bnd (sh, tc, (0, 0, 0)%Z, 0%Z, c, es) n
  | _ => false
  end.

Definition dep_ok := dep_ok_with exact_bnd false.
Definition dep_ok_sh := dep_ok_with exact_bnd true.

(** Potentials may mention only [int] parameters and locals of [X]. *)
Definition lvars_ok (X : list nat) (L : lin) : bool :=
  forallb (fun av => match snd av with VP _ => true | VL x => memn x X | VT _ => false end) (lterms L).
Definition pvars_ok (X : list nat) (Q1 : pot) : bool :=
  forallb (fun cm => forallb (lvars_ok X) (snd cm)) (pterms Q1).

Definition subset (X Y : list nat) : bool := forallb (fun x => memn x Y) X.
Definition disjoint (X Y : list nat) : bool := forallb (fun x => negb (memn x Y)) X.

(** [P'[x ← e]] for the constraints of a post-condition: constraints that do not
    mention [x] are kept; the others need [lin_P(e)]. *)
Definition csubst (P : list cstr) (x : nat) (e : expr) (c : cstr) : option cstr :=
  if mentions (VL x) (cform c) then
    match lin_fix P e with
    | Some E => Some (match c with CLe L => CLe (lsubst (VL x) E L) | CEq L => CEq (lsubst (VL x) E L) end)
    | None => None
    end
  else Some c.

Fixpoint map_opt {A B} (f : A -> option B) (l : list A) : option (list B) :=
  match l with
  | [] => Some []
  | a :: l' => match f a, map_opt f l' with Some b, Some bs => Some (b :: bs) | _, _ => None end
  end.

Definition entails_subst (P : list cstr) (x : nat) (e : expr) (P' : list cstr) (ws : list fwit) : bool :=
  match map_opt (csubst P x e) P' with Some Ps => entails P Ps ws | None => false end.

(** The uniform set after [x ← e]: other locals must have been uniform; [x] only if [e]
    is uniform or [lin_P(e)] is a constant. *)
Definition x_after (P : list cstr) (X : list nat) (x : nat) (e : expr) (X' : list nat) : bool :=
  forallb (fun y => if y =? x then unif X e || lin_const P e else memn y X) X'.

(** [Q'[x ← e]] of Q:VWRITE1 ([Q'] itself when [lin_P(e)] is undefined; the rule then
    requires that [Q'] does not mention [x]). *)
Definition psubst_e (P : list cstr) (x : nat) (e : expr) (Q' : pot) : pot :=
  match lin_fix P e with Some E => psubst (VL x) E Q' | None => Q' end.

(** ** Atom rewrites of Q:WEAK (spec/certificate.md, [RW]) *)
Inductive rw := RShift (L : lin) (d : Z) (w : fwit) | RZero (L : lin) (w : fwit).

Definition rw_ok (P : list cstr) (r : rw) : bool :=
  match r with
  | RShift L d w => (0 <=? d)%Z && farkas_ok P (CLe (lsub (mkLin d []) L)) w
  | RZero L w => farkas_ok P (CLe L) w
  end.

Definition rw_lhs (r : rw) : lin := match r with RShift L _ _ | RZero L _ => L end.
(** The right-hand side of [max0(L)]: [d + max0(L − d)] or [0]. *)
Definition rw_rhs (r : rw) : list (Q * list lin) :=
  match r with RShift L d _ => [(inject_Z d, []); (1%Q, [lplus L (- d)])] | RZero _ _ => [] end.

Definition mmul (l1 l2 : list (Q * list lin)) : list (Q * list lin) :=
  flat_map (fun a => map (fun b => (fst a * fst b, snd a ++ snd b)%Q) l2) l1.

(** Every atom of a monomial equal (normalized) to [La] is replaced by [rhs]. *)
Definition rw_mono (La : lin) (rhs : list (Q * list lin)) (cm : Q * list lin) : list (Q * list lin) :=
  fold_right (fun A acc => if lin_eq_dec (lnorm A) La then mmul rhs acc else mmul [(1%Q, [A])] acc)
    [(fst cm, [])] (snd cm).

(** [max0(L) = f·max0(L')] ([acanon]): every atom [L'] becomes [rhs / f]; a rewrite of
    a constant form changes nothing. *)
Definition rw_apply (r : rw) (Q1 : pot) : pot :=
  match acanon (rw_lhs r) with
  | (f, [L']) =>
      let rhs := map (fun cm => (fst cm / f, snd cm)%Q) (rw_rhs r) in
      mkPot (pcst Q1) (flat_map (rw_mono (lnorm L') rhs) (pterms Q1))
  | _ => Q1
  end.

Fixpoint rws_ok (P : list cstr) (rs : list rw) : bool :=
  match rs with [] => true | r :: rs' => rw_ok P r && rws_ok P rs' end.
Definition rws_apply (rs : list rw) (Q1 : pot) : pot := fold_left (fun q r => rw_apply r q) rs Q1.

(** [Q1 ≥ Q2] under [P], justified by rewrites of [Q1]. *)
Definition pot_ge_under (P : list cstr) (rs : list rw) (Q1 Q2 : pot) : bool :=
  rws_ok P rs && pot_ge (rws_apply rs Q1) Q2.

(** Equality of constraint lists up to normalization of each form. *)
Fixpoint cstrs_equiv (P1 P2 : list cstr) : bool :=
  match P1, P2 with
  | [], [] => true
  | CLe L1 :: P1', CLe L2 :: P2' | CEq L1 :: P1', CEq L2 :: P2' =>
      (if lin_eq_dec (lnorm L1) (lnorm L2) then true else false) && cstrs_equiv P1' P2'
  | _, _ => false
  end.

(** ** Judgments for operands and expressions: [P ⊢_M e : C] *)
Inductive qopd : opd -> Q -> Prop :=
  | OQ_VAR : forall x, qopd (OVar x) (m_var M)
  | OQ_CONST : forall v, qopd (OConst v) (m_const M)
  | OQ_PARAM : forall p, qopd (OParam p) (m_param M)
  | OQ_TID : forall d, qopd (OTid d) (m_var M).

(** [n] is the access count claimed for a read (ignored by the other rules);
    [EQ_OPD] is the coercion of an operand to an expression. *)
Inductive qexpr (P : list cstr) (X : list nat) : expr -> Z -> Q -> Prop :=
  | EQ_OPD : forall o n C, qopd o C -> qexpr P X (EOpd o) n C
  | EQ_OP : forall op a b n Ca Cb, qopd a Ca -> qopd b Cb ->
      qexpr P X (EBin op a b) n (Ca + Cb + m_op M)
  | EQ_UOP : forall op a n Ca, qopd a Ca -> qexpr P X (EUn op a) n (Ca + m_op M)
  | EQ_GARRAY : forall A i n Ci es, c_arr G A = Some (Global, es) -> qopd i Ci ->
      (acc_ok (m_gread M) n = true \/ exists dw, dep_ok P X i es n dw = true) ->
      qexpr P X (ERead A i) n (Ci + m_gread M n)
  | EQ_SARRAY : forall A i n Ci es, c_arr G A = Some (Shared, es) -> qopd i Ci ->
      (acc_ok (m_sread M) n = true \/ exists dw, dep_ok_sh P X i es n dw = true) ->
      qexpr P X (ERead A i) n (Ci + m_sread M n).

(** ** Statement judgments [⊢_M {P; X; Q} s {P'; X'; Q'}] *)
Inductive qstmt : assn -> stmt -> assn -> Prop :=
  | Q_SKIP : forall A, qstmt A SSkip A
  | Q_SYNC : forall P X Qn Q',
      pot_ge Qn (padd Q' (m_sync M)) = true ->
      qstmt (mkAssn P X Qn) SSync (mkAssn P X Q')
  | Q_SEQ : forall A A1 A' s1 s2, qstmt A s1 A1 -> qstmt A1 s2 A' -> qstmt A (SSeq s1 s2) A'
  | Q_VWRITE1 : forall P X Qn P' X' Q' x e n C ws,
      qexpr P X e n C -> unif X e = true -> x_after P X x e X' = true ->
      entails_subst P x e P' ws = true ->
      lin_fix P e <> None \/ pmentions (VL x) Q' = false ->
      pot_ge Qn (padd (psubst_e P x e Q') (m_vwrite M + C)) = true ->
      qstmt (mkAssn P X Qn) (SAssign x e) (mkAssn P' X' Q')
  | Q_VWRITE2 : forall P X Qn P' X' Q' x e n C ws,
      qexpr P X e n C -> x_after P X x e X' = true -> entails_subst P x e P' ws = true ->
      pmentions (VL x) Q' = false -> pot_ge Qn (padd Q' (m_vwrite M + C)) = true ->
      qstmt (mkAssn P X Qn) (SAssign x e) (mkAssn P' X' Q')
  | Q_GWRITE : forall P X Qn Q' A i e es n ne C1 C2,
      c_arr G A = Some (Global, es) -> qopd i C1 -> qexpr P X e ne C2 ->
      (acc_ok (m_gwrite M) n = true \/ exists dw, dep_ok P X i es n dw = true) -> pot_ge Qn (padd Q' (m_gwrite M n + C1 + C2)) = true ->
      qstmt (mkAssn P X Qn) (SWrite A i e) (mkAssn P X Q')
  | Q_SWRITE : forall P X Qn Q' A i e es n ne C1 C2,
      c_arr G A = Some (Shared, es) -> qopd i C1 -> qexpr P X e ne C2 ->
      (acc_ok (m_swrite M) n = true \/ exists dw, dep_ok_sh P X i es n dw = true) -> pot_ge Qn (padd Q' (m_swrite M n + C1 + C2)) = true ->
      qstmt (mkAssn P X Qn) (SWrite A i e) (mkAssn P X Q')
  | Q_IF1 : forall P X Qn Q e n C s1 s2 PT PF A',
      qexpr P X e n C -> unif X e = true ->
      cstrs_equiv PT (P ++ fst (cond e)) = true -> cstrs_equiv PF (P ++ snd (cond e)) = true ->
      qstmt (mkAssn PT X Q) s1 A' -> qstmt (mkAssn PF X Q) s2 A' ->
      pot_ge Qn (padd Q (m_if M + C)) = true ->
      qstmt (mkAssn P X Qn) (SIf e s1 s2) A'
  | Q_IF2 : forall P X Qn Q e n C s1 s2 ws A',
      qexpr P X e n C -> nonempty (fst (cond e)) = true -> entails P (fst (cond e)) ws = true ->
      qstmt (mkAssn P X Q) s1 A' -> pot_ge Qn (padd Q (m_if M + C)) = true ->
      qstmt (mkAssn P X Qn) (SIf e s1 s2) A'
  | Q_IF3 : forall P X Qn Q e n C s1 s2 ws A',
      qexpr P X e n C -> nonempty (snd (cond e)) = true -> entails P (snd (cond e)) ws = true ->
      qstmt (mkAssn P X Q) s2 A' -> pot_ge Qn (padd Q (m_if M + C)) = true ->
      qstmt (mkAssn P X Qn) (SIf e s1 s2) A'
  | Q_IF4 : forall P X Qn Q e n C s1 s2 PT P1 X1 Q1 PF XF P2 X2 Q2 P' X' wec wet wjt wje,
      qexpr P X e n C -> cstrs_equiv PT (P ++ fst (cond e)) = true ->
      qstmt (mkAssn PT X Q) s1 (mkAssn P1 X1 Q1) ->
      qstmt (mkAssn PF XF Q1) s2 (mkAssn P2 X2 Q2) ->
      entails (P ++ snd (cond e)) PF wec = true -> entails P1 PF wet = true ->
      entails P1 P' wjt = true -> entails P2 P' wje = true ->
      subset XF X = true -> disjoint XF (writes s1) = true ->
      subset X' X = true -> disjoint X' (writes s1 ++ writes s2) = true ->
      pvars_ok X Q = true -> pvars_ok XF Q1 = true -> pvars_ok X' Q2 = true ->
      pot_ge Q Q1 = true -> pot_ge Q1 Q2 = true ->
      pot_ge Qn (padd Q (m_if M + C + m_div M)) = true ->
      qstmt (mkAssn P X Qn) (SIf e s1 s2) (mkAssn P' X' Q2)
  | Q_WHILE1 : forall P X Qn Q' e n C s B PB QB QB' P',
      qexpr P X e n C -> unif X e = true ->
      qstmt (mkAssn B X QB) s (mkAssn PB X QB') ->
      cstrs_equiv B (P ++ fst (cond e)) = true -> cstrs_equiv PB P = true ->
      pot_ge Q' QB = true -> pot_ge QB' (padd Q' (m_if M + C)) = true ->
      pot_ge Qn (padd Q' (m_if M + C)) = true ->
      cstrs_equiv P' (P ++ snd (cond e)) = true ->
      qstmt (mkAssn P X Qn) (SWhile e s) (mkAssn P' X Q')
  | Q_WHILE2 : forall P X Qn Q' e n C s B PB QB QB' P' X',
      qexpr P X e n C ->
      qstmt (mkAssn B X QB) s (mkAssn PB X QB') ->
      cstrs_equiv B (P ++ fst (cond e)) = true -> cstrs_equiv PB P = true ->
      pot_ge Q' QB = true -> pot_ge QB' (padd Q' (m_if M + m_div M + C)) = true ->
      pot_ge Qn (padd Q' (m_if M + m_div M + C)) = true ->
      cstrs_equiv P' (P ++ snd (cond e)) = true ->
      subset X' X = true -> disjoint X' (writes s) = true -> pvars_ok X' Q' = true ->
      qstmt (mkAssn P X Qn) (SWhile e s) (mkAssn P' X' Q')
  | Q_UNROLL : forall A A' e s,
      qstmt A (SIf e (SSeq s (SWhile e s)) SSkip) A' -> qstmt A (SWhile e s) A'
  | Q_WEAK : forall P X Qn P' X' Q' s NP NX NQ NP' NX' NQ' k wpre rpre wpost rpost,
      qstmt (mkAssn NP NX NQ) s (mkAssn NP' NX' NQ') -> Qle_bool 0 k = true ->
      entails P NP wpre = true -> pot_ge_under P rpre Qn (padd NQ k) = true -> subset NX X = true ->
      entails NP' P' wpost = true -> pot_ge_under NP' rpost (padd NQ' k) Q' = true ->
      subset X' NX' = true ->
      qstmt (mkAssn P X Qn) s (mkAssn P' X' Q').

End Logic.

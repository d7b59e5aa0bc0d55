(** * The quantitative logic (RaCUDA §4, Fig. 8; spec/logic.md), over the
    concrete representations of warpcert certificates.

    Assertions are [{P; D; Q}] as in spec/logic.md §1: [P] a list of integer
    linear constraints and lane constraints (per active thread), [D] the
    thread-dependence map (linear, remainder and range entries, [dent]) and [Q] a
    polynomial potential.  Rule names: spec/logic.md with [:] written [_]
    ([Q:WHILE1] is [Q_WHILE1]).

    Side conditions are boolean functions ([entails], [pot_ge], [dcovers], ...), so
    that an exported derivation is checked by computation.  The differences from
    spec/logic.md are listed in coq-export/README.md ("Differences"); in short:
    - potential equalities of the spec are checked as [≥] ([pot_ge]), map
      equalities computed by the spec ([D \ W]) as implications with
      disjointness from [W];
    - Q:IF4 additionally requires [Q ≥ Q1] and [Q1 ≥ Q2] (RaCUDA's Lemma 3, which
      fails for the spec's rule: coq-export/README.md gives a counterexample the
      kernel accepts), and states the maps' frame conditions and the potentials'
      uniformity (spec §1 well-formedness) as premises;
    - Q:WHILE2 states the post's frame condition and the uniformity of the
      invariant and of the post potential as premises;
    - Q:WHILEEXIT1/2 (spec/logic.md §4a) use [P ∧ e], [P ∧ ¬e] without lane facts (the
      spec's lane fact of [¬e] can be false for a thread that left by a Q:IFEXIT exit:
      coq-export/README.md gives a counterexample the kernel accepts) and require a loop
      condition that reads no array. *)
From Coq Require Import ZArith QArith List Bool Arith Lia Lqa.
From WarpCert Require Import Metric Syntax Semantics Lin Shift Guard.
Import ListNotations.

(** Thread coefficients [(kx, ky, kz)] of a dependence. *)
Definition trip := (Z * Z * Z)%type.

(** Entries of the thread-dependence map (spec/logic.md §1): [DLin x k r g] is
    [(dep x kx ky kz r g)], [DRem x k r m] is [(rem x kx ky kz r m)], [DRng x w] is
    [(rng x w)], [DScl x u k r g] is the scaled entry [(dep x kx ? kz r g)] whose [?]
    dimensions are the [true] components of [u], [DWrap x k m] is the wrapped entry
    [(wrap x kx ky kz m)] (issue 15; meaning: Soundness.esat). A scaled entry may carry a
    row multiplier [Some (p, a, b)]: its [?] coefficient is [a·p + b] for the [int]
    parameter [p] (spec/logic.md §1 "Row multipliers"; written [(? p a b)]). *)
Definition ubits := (bool * bool * bool)%type.
Definition rmul := (nat * Z * Z)%type.
Inductive dent := DLin (x : nat) (k : trip) (r g : Z) | DRem (x : nat) (k : trip) (r m : Z)
  | DRng (x : nat) (w : Z) | DScl (x : nat) (u : ubits) (k : trip) (r g : Z) (m : option rmul)
  | DWrap (x : nat) (k : trip) (m : Z).

Record assn := mkAssn { aP : list cstr; aD : list dent; aQ : pot }.

Definition trip_eq_dec : forall a b : trip, {a = b} + {a <> b}.
Proof. decide equality; [apply Z.eq_dec | decide equality; apply Z.eq_dec]. Defined.
Definition rmul_eq_dec : forall a b : option rmul, {a = b} + {a <> b}.
Proof. repeat decide equality. Defined.
Definition dent_eq_dec : forall a b : dent, {a = b} + {a <> b}.
Proof.
  assert (Hu : forall a b : ubits, {a = b} + {a <> b}).
  { intros [[a1 a2] a3] [[b1 b2] b3].
    destruct (Bool.bool_dec a1 b1), (Bool.bool_dec a2 b2), (Bool.bool_dec a3 b3); subst;
      first [left; reflexivity | right; intros H; inversion H; contradiction]. }
  decide equality; first [apply Z.eq_dec | apply trip_eq_dec | apply Nat.eq_dec | apply Hu | apply rmul_eq_dec].
Defined.
Definition cstr_eq_dec : forall a b : cstr, {a = b} + {a <> b}.
Proof. decide equality; first [apply lin_eq_dec | apply Z.eq_dec | apply list_eq_dec, Z.eq_dec]. Defined.
Definition assn_eq_dec : forall a b : assn, {a = b} + {a <> b}.
Proof.
  assert (Hq : forall a b : Q, {a = b} + {a <> b}).
  { intros [n d] [m e]. destruct (Z.eq_dec n m), (Pos.eq_dec d e); subst; auto;
      right; intros H; inversion H; auto. }
  assert (Hp : forall a b : pot, {a = b} + {a <> b}).
  { intros [c l] [d m]. destruct (Hq c d); [|right; intros H; inversion H; auto].
    destruct (list_eq_dec (fun x y : Q * list atm =>
                ltac:(decide equality; apply list_eq_dec, atm_eq_dec)) l m);
      subst; auto; right; intros H; inversion H; auto. }
  decide equality; [apply list_eq_dec, dent_eq_dec | apply list_eq_dec, cstr_eq_dec].
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

Definition nonempty {A} (l : list A) : bool := match l with [] => false | _ => true end.
Definition memn (x : nat) (X : list nat) : bool := existsb (Nat.eqb x) X.
Definition subset (X Y : list nat) : bool := forallb (fun x => memn x Y) X.
Definition disjoint (X Y : list nat) : bool := forallb (fun x => negb (memn x Y)) X.
(** [[0, n)] as a list of binary integers (built in linear time). *)
Fixpoint zrange_from (k : nat) (a : Z) : list Z :=
  match k with O => [] | S k' => a :: zrange_from k' (a + 1)%Z end.
Definition zrange (n : Z) : list Z := zrange_from (Z.to_nat n) 0%Z.

(** ** Dependence entries *)
Definition dvar (d : dent) : nat :=
  match d with DLin x _ _ _ | DRem x _ _ _ | DRng x _ | DScl x _ _ _ _ _ | DWrap x _ _ => x end.
Definition dvars (D : list dent) : list nat := map dvar D.
Fixpoint dget (D : list dent) (x : nat) : option dent :=
  match D with [] => None | d :: D' => if dvar d =? x then Some d else dget D' x end.
Definition trip_eqb (a b : trip) : bool := if trip_eq_dec a b then true else false.
Definition dent_eqb (a b : dent) : bool := if dent_eq_dec a b then true else false.
Definition kzero (k : trip) : bool := trip_eqb k (0, 0, 0)%Z.
Definition ubits_eqb (a b : ubits) : bool :=
  let '(a1, a2, a3) := a in let '(b1, b2, b3) := b in Bool.eqb a1 b1 && Bool.eqb a2 b2 && Bool.eqb a3 b3.

(** [d1] implies [d2] (spec/logic.md §2): same local, kind and [k]; linear: [g2 | g1]
    and [r1 ≡ r2 (mod g2)] ([g2 = 0]: [g1 = 0], [r1 = r2]); remainder: equal; range:
    [w1 ≤ w2]; scaled: same [?] dimensions and [k], congruences as linear. *)
(** A row multiplier may be forgotten, never invented or changed. *)
Definition mimplies (m1 m2 : option rmul) : bool :=
  match m2 with None => true | Some _ => if rmul_eq_dec m1 m2 then true else false end.

Definition cimplies (r1 g1 r2 g2 : Z) : bool :=
  if (g2 =? 0)%Z then (g1 =? 0)%Z && (r1 =? r2)%Z
  else ((g1 mod g2 =? 0)%Z && ((r1 - r2) mod g2 =? 0)%Z).
Definition eimplies (d1 d2 : dent) : bool :=
  match d1, d2 with
  | DLin x1 k1 r1 g1, DLin x2 k2 r2 g2 => (x1 =? x2) && trip_eqb k1 k2 && cimplies r1 g1 r2 g2
  | DRem x1 k1 r1 m1, DRem x2 k2 r2 m2 =>
      (x1 =? x2) && trip_eqb k1 k2 && (r1 =? r2)%Z && (m1 =? m2)%Z
  | DRng x1 w1, DRng x2 w2 => (x1 =? x2) && (w1 <=? w2)%Z
  | DWrap x1 k1 m1, DWrap x2 k2 m2 => (x1 =? x2) && trip_eqb k1 k2 && (m1 =? m2)%Z
  | DScl x1 u1 k1 r1 g1 m1, DScl x2 u2 k2 r2 g2 m2 =>
      (x1 =? x2) && ubits_eqb u1 u2 && trip_eqb k1 k2 && cimplies r1 g1 r2 g2 && mimplies m1 m2
  | _, _ => false
  end.

(** [D1 ⊒ D2]: every entry of [D2] is implied by an entry of [D1]. *)
Definition dcovers (D1 D2 : list dent) : bool :=
  forallb (fun d2 => existsb (fun d1 => eimplies d1 d2) D1) D2.

Definition tadd (a b : trip) : trip :=
  let '(a1, a2, a3) := a in let '(b1, b2, b3) := b in (a1 + b1, a2 + b2, a3 + b3)%Z.
Definition tscale (c : Z) (a : trip) : trip := let '(a1, a2, a3) := a in (c * a1, c * a2, c * a3)%Z.
Definition tid_k (d : nat) : trip :=
  match d with O => (1, 0, 0)%Z | S O => (0, 1, 0)%Z | _ => (0, 0, 1)%Z end.

Section Logic.
Variable G : ctx.
Let M := c_metric G.

Definition kval (k : trip) (t : nat) : Z :=
  let '(kx, ky, kz) := k in (kx * tid G 0 t + ky * tid G 1 t + kz * tid G 2 t)%Z.

(** Thread coefficients only on warp-uniform dimensions ([c_wu]). *)
Definition kwu (k : trip) : bool :=
  let '(kx, ky, kz) := k in
  ((kx =? 0)%Z || memn 0 (c_wu G)) && ((ky =? 0)%Z || memn 1 (c_wu G)) &&
  ((kz =? 0)%Z || memn 2 (c_wu G)).

(** The warp-uniform locals of [D]: linear entries whose thread coefficients are on
    warp-uniform dimensions only (RaCUDA's [X(D)] is the case [k = 0]). *)
Definition dunif (D : list dent) : list nat :=
  flat_map (fun d => match d with DLin x k _ _ => if kwu k then [x] else [] | _ => [] end) D.

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
  | EBin OShl a (OConst (VInt c)) =>
      if ((0 <=? c) && (c <? 64))%Z then option_map (lscale (2 ^ c)) (lin_opd a) else None
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
  if negb (is_lin k) then (None, None) else
  let L := lnorm (cform k) in
  match lterms L with
  | [(a, VL y')] =>
      if y' =? y then
        let b1 := le_bounds a (lcst L) in
        match k with
        | CLe _ => b1
        | CEq _ => let b2 := le_bounds (- a) (- lcst L) in (omax (fst b1) (fst b2), omin (snd b1) (snd b2))
        | CMod _ _ _ => (None, None)
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

(** ** Dependence of integer operands and expressions [dep_D] (spec/logic.md §2)

    A dependence [(k, r, g)] of an integer family [R] on the active threads: there is
    [c ≡ r (mod g)] with [R(t) = k·tid(t) + c] for every active thread. *)
Definition dtrip := (trip * Z * Z)%type.
Definition dnorm (k : trip) (r g : Z) : dtrip :=
  let g' := Z.abs g in (k, (if (g' =? 0)%Z then r else r mod g')%Z, g').
Definition dexact (x : dtrip) : option Z :=
  let '(k, r, g) := x in if kzero k && (g =? 0)%Z then Some r else None.
Definition dadd (x y : dtrip) (sg : Z) : dtrip :=
  let '(k1, r1, g1) := x in let '(k2, r2, g2) := y in
  dnorm (tadd k1 (tscale sg k2)) (r1 + sg * r2) (Z.gcd g1 g2).
Definition dscale (c : Z) (x : dtrip) : dtrip :=
  let '(k, r, g) := x in dnorm (tscale c k) (c * r) (g * c).
Definition dmul_uni (x y : dtrip) : dtrip :=
  let '(_, r1, g1) := x in let '(_, r2, g2) := y in
  dnorm (0, 0, 0)%Z (r1 * r2) (Z.gcd (Z.gcd (g1 * g2) (r1 * g2)) (r2 * g1)).
(** A thread coefficient as the collapse counts it: none on a dimension of extent 1
    ([threadIdx.d = 0] on every thread of such a block). *)
Definition kext (b : nat) (kd : Z) : Z := if (b =? 1)%nat then 0%Z else kd.

(** The collapse: an entry whose thread coefficients are on warp-uniform dimensions
    only is one integer per warp; its congruence is the gcd over the dimensions of
    extent other than 1. *)
Definition collapse (x : dtrip) : dtrip :=
  let '(k, r, g) := x in
  if kzero k || negb (kwu k) then x
  else let '(kx, ky, kz) := k in
       dnorm (0, 0, 0)%Z r
         (Z.gcd (Z.gcd (Z.gcd g (kext (c_bx G) kx)) (kext (c_by G) ky)) (kext (c_bz G) kz)).
Definition duni (x : dtrip) : bool := kzero (fst (fst x)).

Definition idep_opd (D : list dent) (o : opd) : option dtrip :=
  match o with
  | OConst (VInt n) => Some ((0, 0, 0), n, 0)%Z
  | OParam p => match c_pty G p with Some TInt => Some ((0, 0, 0), 0, 1)%Z | _ => None end
  | OTid d => Some (tid_k d, 0, 0)%Z
  | OVar x => match c_lty G x, dget D x with
              | Some TInt, Some (DLin _ k r g) => Some (k, r, g)
              | _, _ => None
              end
  | _ => None
  end.

Definition kvalz (k tt : trip) : Z :=
  let '(kx, ky, kz) := k in let '(a, b, c) := tt in (kx * a + ky * b + kz * c)%Z.

(** The [>>] rule: [⌊(k·tid(l) + ρ) / 2^c⌋] is the same on all lanes of every warp for
    every residue [ρ ∈ [0, 2^c)] with [ρ ≡ r (mod gcd(g, 2^c))] (the lanes' thread ids
    [wt]; at most the kernel's work limit of residues times threads). *)
Definition shift_ok_w (wt : list (list trip)) (x : dtrip) (c : Z) : bool :=
  let '(k, r, g) := x in
  let p := (2 ^ c)%Z in
  let step := if (g =? 0)%Z then p else Z.gcd g p in
  let cnt := (p / step)%Z in
  ((0 <=? c) && (c <? 62) && (0 <? step))%Z &&
  (cnt * Z.of_nat (c_bx G * c_by G * c_bz G) <=? 4000000)%Z &&
  forallb (fun L =>
    match map (kvalz k) L with
    | [] => true
    | o0 :: os =>
        forallb (fun i => let rho := (r mod step + i * step)%Z in
                   forallb (fun o => ((o + rho) / p =? (o0 + rho) / p)%Z) os) (zrange cnt)
    end) wt.

Definition dopaque (X : list nat) (os : list opd) : option dtrip :=
  if forallb (opd_unif X) os then Some ((0, 0, 0), 0, 1)%Z else None.

(** [dep_D(e)] for integer results, under the lanes' thread ids [wt] (for [>>]). *)
Definition idep_expr_w (wt : list (list trip)) (D : list dent) (e : expr) : option dtrip :=
  let X := dunif D in
  match e with
  | EOpd o => idep_opd D o
  | ERead _ o => dopaque X [o]
  | EUn UNeg o => option_map (dscale (-1)) (idep_opd D o)
  | EUn _ o => dopaque X [o]
  | EBin op a b =>
      match op, idep_opd D a, idep_opd D b with
      | OAdd, Some x, Some y => Some (dadd x y 1)
      | OSub, Some x, Some y => Some (dadd x y (-1))
      | OMul, Some x, Some y =>
          match dexact x, dexact y with
          | Some c, _ => Some (dscale c y)
          | None, Some c => Some (dscale c x)
          | None, None =>
              let x' := collapse x in let y' := collapse y in
              if duni x' && duni y' then Some (dmul_uni x' y') else None
          end
      | OShl, Some x, Some y =>
          match dexact y with
          | Some c => if ((0 <=? c) && (c <? 62))%Z then Some (dscale (2 ^ c) x) else dopaque X [a; b]
          | None => dopaque X [a; b]
          end
      | OShr, Some x, Some y =>
          match dexact y with
          | Some c => if negb (duni (collapse x)) && shift_ok_w wt x c then Some ((0, 0, 0), 0, 1)%Z
                      else dopaque X [a; b]
          | None => dopaque X [a; b]
          end
      | _, _, _ => dopaque X [a; b]
      end
  end.

(** ** Widths of integer values (spec/logic.md §2 "Widths") *)
Definition width_opd (D : list dent) (o : opd) : option Z :=
  match idep_opd D o with
  | Some (k, _, _) => if kzero k then Some 0%Z else None
  | None => match o with
            | OVar x => match c_lty G x, dget D x with
                        | Some TInt, Some (DRng _ w) => Some w
                        | Some TInt, Some (DWrap _ _ m) => if (1 <=? m)%Z then Some (2 * m - 2)%Z else None
                        | _, _ => None
                        end
            | _ => None
            end
  end.
Definition exact_nonneg (D : list dent) (o : opd) : option Z :=
  match option_map dexact (idep_opd D o) with
  | Some (Some n) => if (0 <=? n)%Z then Some n else None
  | _ => None
  end.
Definition width_expr (D : list dent) (e : expr) : option Z :=
  match e with
  | EOpd (OVar x) => match idep_opd D (OVar x) with None => width_opd D (OVar x) | Some _ => None end
  | EBin OAnd a b => match exact_nonneg D b with Some n => Some n | None => exact_nonneg D a end
  | EBin OMod _ b => match exact_nonneg D b with
                     | Some m => if (1 <=? m)%Z then Some (2 * m - 2)%Z else None
                     | None => None
                     end
  | EBin OAdd a b | EBin OSub a b =>
      match width_opd D a, width_opd D b with Some w1, Some w2 => Some (w1 + w2)%Z | _, _ => None end
  | EUn UNeg a => width_opd D a
  | _ => None
  end.

(** ** Lane facts and [P ∧ e] (spec/logic.md §2 "Lane facts") *)
Definition rem_of (D : list dent) (o : opd) : option (trip * Z * Z) :=
  match o with
  | OVar x => match dget D x with Some (DRem _ k r m) => Some (k, r, m) | _ => None end
  | _ => None
  end.
Definition exact_of (D : list dent) (o : opd) : option Z :=
  match idep_opd D o with Some x => dexact x | None => None end.
Definition lane_form (k : trip) (r : Z) : lin :=
  let '(kx, ky, kz) := k in mkLin r [(kx, VT 0); (ky, VT 1); (kz, VT 2)].

(** [lane_D(e)] ([neg = false]) or [lane_D(¬e)] ([neg = true]). *)
Definition lane (D : list dent) (e : expr) (neg : bool) : list cstr :=
  match e with
  | EBin op a b =>
      let eqn := match op, neg with
                 | OEq, false | ONe, true => Some true
                 | OEq, true | ONe, false => Some false
                 | _, _ => None
                 end in
      match eqn with
      | None => []
      | Some equal =>
          let pick := match rem_of D a, exact_of D b with
                      | Some re, Some c => Some (re, c)
                      | _, _ => match rem_of D b, exact_of D a with
                                | Some re, Some c => Some (re, c)
                                | _, _ => None
                                end
                      end in
          match pick with
          | None => []
          | Some ((k, r, m), c) =>
              if equal then [CMod (lane_form k r) m [(c mod m)%Z]]
              else if ((c =? 0) && (m <=? 4096))%Z
                   then [CMod (lane_form k r) m (zrange_from (Z.to_nat (m - 1)) 1%Z)]
                   else []
          end
      end
  | _ => []
  end.

(** [P ∧ e] ([neg = false]) and [P ∧ ¬e] ([neg = true]) under the pre's map [D]. *)
Definition andc (P : list cstr) (D : list dent) (e : expr) (neg : bool) : list cstr :=
  P ++ (if neg then snd (cond e) else fst (cond e)) ++ lane D e neg.

(** ** Access bounds [N*] (spec/logic.md §2 "Access bounds")

    [N*] is computed from the index's dependence [dep_D(o)] exactly as the kernel
    does; it depends only on the key [(shared?, constraints of P over threadIdx alone,
    dep_D(o), range width of o, element size)]. *)
Definition tid_only (c : cstr) : bool :=
  forallb (fun av => match snd av with VT _ => true | _ => false end) (lterms (cform c)).
Definition holds_b (r : var -> Z) (c : cstr) : bool :=
  match c with
  | CLe L => (leval r L <=? 0)%Z
  | CEq L => (leval r L =? 0)%Z
  | CMod L m rs => existsb (Z.eqb (leval r L mod m)) rs
  end.
Definition rho_tid (t : nat) : var -> Z := fun v => match v with VT d => tid G d t | _ => 0%Z end.
Definition nwarps : nat := (c_bx G * c_by G * c_bz G + c_warp G - 1) / c_warp G.

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


(** The range bound [R]: indices in one window [[c', c' + w]]; [c' mod M] is all that
    matters. *)
Definition rmem_c (w es c : Z) : Z :=
  Z.of_nat (length (nodup Z.eq_dec
    (map (fun u => ((c + u) * es) / c_sector_bytes G)%Z (zrange (w + 1))))).
Definition rconf_c (us : list Z) (es c : Z) : Z :=
  let bks := map (fun u => bank G es (c + u)) us in
  fold_right Z.max 0%Z (map (fun j => Z.of_nat (length (filter (Z.eqb j) bks))) (zrange (c_banks G))).
Definition rbound (sh : bool) (w es : Z) : Z :=
  let us := zrange (w + 1) in
  if sh then fold_right Z.max 0%Z (map (rconf_c us es) (zrange (c_bank_bytes G * c_banks G)))
  else fold_right Z.max 0%Z (map (rmem_c w es) (zrange (c_sector_bytes G))).

(** The grouped count of a scaled index [(u, k)] (spec/logic.md §2 "Access bounds"):
    the kept lanes of a warp grouped by their [threadIdx.d], [d ∈ u] ([ukey]); per group
    the largest count over the bases [β ≡ 0 (mod gcd(es, M))]; the sum over the groups. *)
Definition ukey (u : ubits) (tt : trip) : trip :=
  let '(u1, u2, u3) := u in let '(a, b, c) := tt in
  ((if u1 then a else 0), (if u2 then b else 0), (if u3 then c else 0))%Z.
Definition sgroup_count (sh : bool) (k : trip) (es : Z) (grp : list trip) : Z :=
  if sh then
    fold_right Z.max 0%Z (map (conf_count (nodup Z.eq_dec (map (kvalz k) grp)) es)
                              (betas (c_bank_bytes G * c_banks G) 1 0 es))
  else fold_right Z.max 0%Z (map (sec_count (map (kvalz k) grp) es) (betas (c_sector_bytes G) 1 0 es)).
Definition sgroups (sh : bool) (u : ubits) (k : trip) (es : Z) (L : list trip) : Z :=
  fold_right Z.add 0%Z
    (map (fun key => sgroup_count sh k es (filter (fun tt => trip_eqb (ukey u tt) key) L))
         (nodup trip_eq_dec (map (ukey u) L))).

(** Keys of [N*]: [(shared?, tc, dep, range width, es, scaled (u, k))]; [nstar_w wt] with
    [wt = wtids]. *)
Definition nkey := (bool * list cstr * option dtrip * option Z * Z * option (ubits * trip))%type.
Definition nstar_w (wt : list (list trip)) (key : nkey) : Z :=
  let '(sh, tc, dep, rg, es, sc) := key in
  match dep, sc with
  | Some (k, r, g), _ => if sh then nstar_conf wt tc k g r es else nstar_mem wt tc k g r es
  | None, Some (u, k) => fold_right Z.max 0%Z (map (fun L => sgroups sh u k es (wfilter tc L)) wt)
  | None, None =>
      let best := fold_right Z.max 0%Z (map (fun L => Z.of_nat (length (wfilter tc L))) wt) in
      match rg with
      | Some w =>
          let MB := if sh then (c_bank_bytes G * c_banks G)%Z else c_sector_bytes G in
          if ((0 <=? w) && ((w + 1) * MB <=? 4000000))%Z then Z.min best (rbound sh w es) else best
      | None => best
      end
  end.
Definition nstar (key : nkey) : Z := nstar_w wtids key.

(** A bound oracle: [bnd key n] claims [N*(key) ≤ n]; [exact_bnd] computes. *)
Definition exact_bnd (key : nkey) (n : Z) : bool := (nstar key <=? n)%Z.

Definition rng_of (D : list dent) (i : opd) : option Z :=
  match i with
  | OVar x => match dget D x with
              | Some (DRng _ w) => Some w
              | Some (DWrap _ _ m) | Some (DRem _ _ _ m) => if (1 <=? m)%Z then Some (2 * m - 2)%Z else None
              | _ => None
              end
  | _ => None
  end.
(** A wrapped index [(wrap k m)] is counted for Conflicts as the linear [(k, 0, 1)] when
    [m·es] is a multiple of [bank_bytes·banks] (spec/logic.md §2 "Wrapped entries"). *)
Definition wrap_dep (sh : bool) (es : Z) (D : list dent) (i : opd) : option dtrip :=
  match i with
  | OVar x => match dget D x with
              | Some (DWrap _ k m) =>
                  if sh && (1 <=? m)%Z && ((m * es) mod (c_bank_bytes G * c_banks G) =? 0)%Z
                  then Some (k, 0, 1)%Z
                  else None
              | _ => None
              end
  | _ => None
  end.
Definition scl_of (D : list dent) (i : opd) : option (ubits * trip) :=
  match i with OVar x => match dget D x with Some (DScl _ u k _ _ _) => Some (u, k) | _ => None end | _ => None end.
Definition akey (sh : bool) (P : list cstr) (D : list dent) (i : opd) (es : Z) : nkey :=
  let dep := match idep_opd D i with Some d => Some d | None => wrap_dep sh es D i end in
  let sc := match dep with None => scl_of D i | Some _ => None end in
  (sh, filter tid_only P, dep, match dep, sc with None, None => rng_of D i | _, _ => None end, es, sc).

(** The access check of index [i] (shared [sh] or global) with claim [n] under [bnd]. *)
Definition dacc_with (bnd : nkey -> Z -> bool) (sh : bool) (P : list cstr) (D : list dent)
    (i : opd) (es n : Z) : bool :=
  (if sh then (0 <? c_bank_bytes G)%Z && (0 <? c_banks G)%Z else (0 <? c_sector_bytes G)%Z) &&
  (0 <? c_warp G)%nat && bnd (akey sh P D i es) n.
Definition dacc := dacc_with exact_bnd.

(** ** Potentials uniform under [D] (spec/logic.md §1)

    [lin_k D L]: the thread coefficients of [L] (those of [threadIdx.d] plus, for each
    local, its coefficient times its entry's [k]); defined when every variable is a
    parameter, a [threadIdx.d] or an [int] local with a linear entry. *)
Definition lin_k (D : list dent) (L : lin) : option trip :=
  fold_right (fun av acc =>
    match acc with
    | None => None
    | Some ka =>
        match snd av with
        | VP _ => Some ka
        | VT d => Some (tadd ka (tscale (fst av) (tid_k d)))
        | VL x => match c_lty G x, dget D x with
                  | Some TInt, Some (DLin _ k _ _) => Some (tadd ka (tscale (fst av) k))
                  | _, _ => None
                  end
        end
    end) (Some (0, 0, 0)%Z) (lterms L).
Definition luni (D : list dent) (L : lin) : bool :=
  match lin_k D L with Some k => kzero k | None => false end.
Definition puni (D : list dent) (Q1 : pot) : bool :=
  forallb (fun cm => forallb (fun A => forallb (luni D) (aforms A)) (snd cm)) (pterms Q1).

(** Q:WHILELAST (spec/logic.md §4): [w] bounds [k·tid(a) − k·tid(b)] for any two lanes
    [a], [b] of one warp ([wt]: the lanes' thread ids of every warp, [wtids]); the last
    round's extra constraint [−L + 1 − w ≤ 0]. *)
Definition spread_ok (wt : list (list trip)) (k : trip) (w : Z) : bool :=
  forallb (fun l => forallb (fun a => forallb (fun b => (kvalz k a - kvalz k b <=? w)%Z) l) l) wt.
Definition last_window (L : lin) (w : Z) : cstr := CLe (lplus (lscale (-1) L) (1 - w)).

(** Q:WHILEWARP (spec/logic.md §4): the offset class [(ρ, G)] of [L] under [D] (every
    active thread has [L = k·tid + c] with one [c ≡ ρ (mod G)]), and the window check
    pairwise over the lanes [a], [b] of every warp: no integer [c ≡ ρ (mod G)] lies in
    [[1 − k·tid(b), −k·tid(a)]]. *)
Definition off_step (D : list dent) (av : Z * var) (acc : option (Z * Z)) : option (Z * Z) :=
  match acc with
  | None => None
  | Some (r, g) =>
      match snd av with
      | VP _ => Some (r, Z.gcd g (fst av))
      | VT _ => Some (r, g)
      | VL x => match c_lty G x, dget D x with
                | Some TInt, Some (DLin _ _ r' g') => Some ((r + fst av * r')%Z, Z.gcd g (fst av * g'))
                | _, _ => None
                end
      end
  end.
Definition lin_off (D : list dent) (L : lin) : option (Z * Z) :=
  match fold_right (off_step D) (Some (0, 0)%Z) (lterms L) with
  | Some (r, g) => Some ((lcst L + r)%Z, g)
  | None => None
  end.
Definition nosplit_pair (r g ka kb : Z) : bool :=
  if (- ka <? 1 - kb)%Z then true
  else if (Z.abs g =? 0)%Z then negb ((1 - kb <=? r) && (r <=? - ka))%Z
  else (- ka <? 1 - kb + Z.modulo (r - (1 - kb)) (Z.abs g))%Z.
Definition nosplit_ok (wt : list (list trip)) (k : trip) (r g : Z) : bool :=
  forallb (fun l => forallb (fun a => forallb (fun b =>
    nosplit_pair r g (kvalz k a) (kvalz k b)) l) l) wt.

(** Q:IFALIGN (spec/logic.md §4, issue 15): the local class [(ρ, G)] of [L] under [D] and
    its uniform part [X]: parameter terms and the terms of locals with a uniform linear
    entry ([k = 0]) go to [X]; another local's linear entry [(k, r', g')] adds [a·r'] to
    [ρ] and [a·g'] to [G]'s gcd. [X]'s constant is [c_L + ρ]. *)
Definition loc_step (D : list dent) (av : Z * var) (acc : option (list (Z * var) * Z * Z))
  : option (list (Z * var) * Z * Z) :=
  match acc with
  | None => None
  | Some (xs, r, g) =>
      match snd av with
      | VP _ => Some (av :: xs, r, g)
      | VT _ => Some (xs, r, g)
      | VL x => match c_lty G x, dget D x with
                | Some TInt, Some (DLin _ k r' g') =>
                    if kzero k then Some (av :: xs, r, g)
                    else Some (xs, (r + fst av * r')%Z, Z.gcd g (fst av * g'))
                | _, _ => None
                end
      end
  end.
Definition lin_loc (D : list dent) (L : lin) : option (lin * Z) :=
  match fold_right (loc_step D) (Some ([], 0, 0)%Z) (lterms L) with
  | Some (xs, r, g) => Some (mkLin (lcst L + r) xs, g)
  | None => None
  end.
(** The charge atom [[m ∤ s − X]] (a residue atom, spec/logic.md §1) and [Q + c·Π m]. *)
Definition res_atom (X : lin) (s : Z) (m : positive) : atm :=
  mkAtmK (mkLin 0 []) 1 (KRes (mkLin (s - lcst X) (map (fun av => (- fst av, snd av))%Z (lterms X))) m).
Definition paddm (Q1 : pot) (c : Q) (m : list atm) : pot := mkPot (pcst Q1) ((c, m) :: pterms Q1).
(** The locals of a form (Q:WHILELASTALIGN: the body writes none of [X]'s). *)
Definition lin_locals (L : lin) : list nat :=
  flat_map (fun av => match snd av with VL x => [x] | _ => [] end) (lterms L).

(** Q:WHILELASTWINDOW (spec/logic.md §4, issue 15): the hull [[a, b]] of the warps' split
    windows, by enumeration as the kernel's [nosplit::window_hull]: over the warps [l] of
    [wt] whose [k·tid] is not constant ([lo < hi], the least and largest [k·tid] of the
    warp's lanes), [a] the least [1 − hi] and [b] the largest [−lo]; [None] when no warp
    has a window. [hull_ok] is the property the soundness proof uses, checked pairwise over
    the lanes [x], [y] of every warp: an offset [c] with [k·tid(x) + c ≤ 0 < k·tid(y) + c]
    (the window [[1 − k·tid(y), −k·tid(x)]] non-empty) lies in [[a, b]]. *)
Definition warp_win (k : trip) (l : list trip) : option (Z * Z) :=
  match map (kvalz k) l with
  | [] => None
  | v :: vs =>
      let lo := fold_right Z.min v vs in let hi := fold_right Z.max v vs in
      if (lo <? hi)%Z then Some ((1 - hi)%Z, (- lo)%Z) else None
  end.
Definition win_hull (wt : list (list trip)) (k : trip) : option (Z * Z) :=
  fold_right (fun l acc =>
    match warp_win k l, acc with
    | Some (wa, wb), Some (a, b) => Some (Z.min wa a, Z.max wb b)
    | Some ab, None => Some ab
    | None, _ => acc
    end) None wt.
Definition hull_pair (a b kx ky : Z) : bool :=
  ((- kx <? 1 - ky) || ((a <=? 1 - ky) && (- kx <=? b)))%Z.
Definition hull_ok (wt : list (list trip)) (k : trip) (a b : Z) : bool :=
  forallb (fun l => forallb (fun x => forallb (fun y =>
    hull_pair a b (kvalz k x) (kvalz k y)) l) l) wt.
(** The charge atom [[(b − X) mod m < w]] (a window atom, spec/logic.md §1). *)
Definition win_atom (X : lin) (b : Z) (m : positive) (w : Z) : atm :=
  mkAtmK (mkLin 0 []) 1
    (KWin (mkLin (b - lcst X) (map (fun av => (- fst av, snd av))%Z (lterms X))) m w).

(** Potentials that mention only [int] parameters and locals of [X] (the root's bound:
    [X = []]). *)
Definition lvars_ok (X : list nat) (L : lin) : bool :=
  forallb (fun av => match snd av with VP _ => true | VL x => memn x X | VT _ => false end) (lterms L).
Definition pvars_ok (X : list nat) (Q1 : pot) : bool :=
  forallb (fun cm => forallb (fun A => lvars_ok X (mkLin 0 (avars A))) (snd cm)) (pterms Q1).

(** [P'[x ← e]] for the constraints of a post-condition: constraints that do not
    mention [x] are kept; the others need [lin_P(e)]. *)
Definition csubst (P : list cstr) (x : nat) (e : expr) (c : cstr) : option cstr :=
  if mentions (VL x) (cform c) then
    match lin_fix P e with
    | Some E => Some (match c with
                      | CLe L => CLe (lsubst (VL x) E L)
                      | CEq L => CEq (lsubst (VL x) E L)
                      | CMod L m rs => CMod (lsubst (VL x) E L) m rs
                      end)
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

(** ** Scaled entries ([scaled_D], spec/logic.md §2 "Scaled entries")

    A scaled dependence [(u, (k, r, g))]: on the active threads of one warp,
    [σ = k'·tid + c] for some [k'] equal to [k] outside the [?] dimensions [u] and some
    [c ≡ r (mod g)] (Soundness.fscl); [k] is [0] on [u]. *)
Definition sdtrip := (ubits * dtrip)%type.
Definition nou : ubits := (false, false, false).
Definition uor (a b : ubits) : ubits :=
  let '(a1, a2, a3) := a in let '(b1, b2, b3) := b in (a1 || b1, a2 || b2, a3 || b3).
Definition uany (u : ubits) : bool := let '(a1, a2, a3) := u in a1 || a2 || a3.
(** The dimensions with a non-zero coefficient. *)
Definition knz (k : trip) : ubits :=
  let '(k1, k2, k3) := k in (negb (k1 =? 0), negb (k2 =? 0), negb (k3 =? 0))%Z.
(** [k] with the coefficients of the dimensions of [u] set to 0. *)
Definition kmask (u : ubits) (k : trip) : trip :=
  let '(u1, u2, u3) := u in let '(k1, k2, k3) := k in
  ((if u1 then 0 else k1), (if u2 then 0 else k2), (if u3 then 0 else k3))%Z.
Definition sdnorm (u : ubits) (x : dtrip) : sdtrip := let '(k, r, g) := x in (u, (kmask u k, r, g)).

(** [scaled_D(o)]: a local's scaled entry, else [dep_D(o)] with no [?] dimension. *)
Definition sopd (D : list dent) (o : opd) : option sdtrip :=
  match o with
  | OVar x => match dget D x with
              | Some (DScl _ u k r g _) => Some (u, (k, r, g))
              | _ => option_map (pair nou) (idep_opd D o)
              end
  | _ => option_map (pair nou) (idep_opd D o)
  end.

(** [x·y] with [y] linear: exact [c] scales [x] ([c = 0]: exact 0); uniform after
    collapse: every thread dimension of [x] becomes [?]. *)
Definition sprod (x y : sdtrip) : option sdtrip :=
  let '(ux, dx) := x in let '(uy, dy) := y in
  if uany uy then None else
  match dexact dy with
  | Some c => if (c =? 0)%Z then Some (nou, ((0, 0, 0), 0, 0)%Z) else Some (sdnorm ux (dscale c dx))
  | None =>
      let y' := collapse dy in
      if duni y' then
        let '(kx, rx, gx) := dx in Some (sdnorm (uor ux (knz kx)) (dmul_uni ((0, 0, 0)%Z, rx, gx) y'))
      else None
  end.

Definition sexpr (D : list dent) (e : expr) : option sdtrip :=
  match e with
  | EOpd o => sopd D o
  | EUn UNeg o => option_map (fun x => sdnorm (fst x) (dscale (-1) (snd x))) (sopd D o)
  | EBin op a b =>
      match sopd D a, sopd D b with
      | Some (ua, da), Some (ub, db) =>
          match op with
          | OAdd => Some (sdnorm (uor ua ub) (dadd da db 1))
          | OSub => Some (sdnorm (uor ua ub) (dadd da db (-1)))
          | OMul => match sprod (ua, da) (ub, db) with
                    | Some z => Some z
                    | None => sprod (ub, db) (ua, da)
                    end
          | _ => None
          end
      | _, _ => None
      end
  | _ => None
  end.

(** ** Row multipliers (spec/logic.md §1 "Row multipliers", issue 15)

    The candidates with a multiplier [(? P A B)] for [x ← e], on one [?] dimension [u]
    (kernel [rules/deps.rs] [row_mul], [sum_mul]): a copy of a local's entry with a
    multiplier; the product [P·b] (or [b·P]) of an [int] parameter [P] and a linear [b]
    whose only non-zero coefficient [k_d] is on [u] ([(? P k_d 0)]); the sum or
    difference of two operands each with a multiplier on [u] or linear, at least one with
    a multiplier, all over the same [P] (coefficients add). The [k], [r], [g] parts are
    [scaled_D(e)]'s. *)
Definition onebit (u : ubits) : bool :=
  match u with (true, false, false) | (false, true, false) | (false, false, true) => true | _ => false end.
(** The coefficient of [k] on the dimensions of [u]. *)
Definition ucoef (u : ubits) (k : trip) : Z :=
  let '(u1, u2, u3) := u in let '(k1, k2, k3) := k in
  ((if u1 then k1 else 0) + (if u2 then k2 else 0) + (if u3 then k3 else 0))%Z.
(** An operand's part on [u]: linear (no parameter, [A = 0], [B = k_u]) or a scaled entry
    on [u] with a multiplier. *)
Definition mpart (D : list dent) (u : ubits) (o : opd) : option (dtrip * option nat * Z * Z) :=
  match idep_opd D o, o with
  | Some (k, r, g), _ => Some ((k, r, g), None, 0%Z, ucoef u k)
  | None, OVar y =>
      match dget D y with
      | Some (DScl _ u' k r g (Some (p, a, b))) =>
          if ubits_eqb u' u then Some ((k, r, g), Some p, a, b) else None
      | _ => None
      end
  | None, _ => None
  end.
Definition mparam (px py : option nat) : option nat :=
  match px, py with
  | Some p, Some q => if Nat.eqb p q then Some p else None
  | Some p, None | None, Some p => Some p
  | None, None => None
  end.
Definition sum_cand (D : list dent) (x : nat) (a b : opd) (sg : Z) (u : ubits) : list dent :=
  match mpart D u a, mpart D u b with
  | Some (da, pa, aa, ba), Some (db, pb, ab, bb) =>
      match mparam pa pb with
      | Some p => let '(u', (k, r, g)) := sdnorm u (dadd da db sg) in
                  [DScl x u' k r g (Some (p, aa + sg * ab, ba + sg * bb)%Z)]
      | None => []
      end
  | _, _ => []
  end.
Definition prod_cand (D : list dent) (x : nat) (p : nat) (b : opd) : list dent :=
  match c_pty G p, idep_opd D b with
  | Some TInt, Some (k, r, g) =>
      if onebit (knz k) then
        let '(u', (k', r', g')) := sdnorm (knz k) (dmul_uni ((0, 0, 0), r, g) ((0, 0, 0), 0, 1))%Z in
        [DScl x u' k' r' g' (Some (p, ucoef (knz k) k, 0%Z))]
      else []
  | _, _ => []
  end.
Definition ubits1 : list ubits := [(true, false, false); (false, true, false); (false, false, true)].
Definition row_cands (D : list dent) (x : nat) (e : expr) : list dent :=
  match e with
  | EOpd (OVar y) => match dget D y with
                     | Some (DScl _ u k r g (Some m)) => [DScl x u k r g (Some m)]
                     | _ => []
                     end
  | EBin OAdd a b => flat_map (sum_cand D x a b 1) ubits1
  | EBin OSub a b => flat_map (sum_cand D x a b (-1)) ubits1
  | EBin OMul (OParam p) b => prod_cand D x p b
  | EBin OMul b (OParam p) => prod_cand D x p b
  | _ => []
  end.

(** ** Row charges (spec/logic.md §4 "Rows": Q:GWRITEROWS / Q:VWRITEROWS, issue 15)

    - [row_f wt tc u km g r es ρ] is the kernel's [access::row_table] value [f(ρ)]: the
      maximum over the warps (lanes kept by the thread constraints [tc]) and over the bases
      [β₀ ∈ betas M g r es] of [Σ_y count_y((β₀ + es·ρ·y) mod M)], the warp's lanes grouped
      by their key [ukey u] (row coordinate [y = ysel u]);
    - [rows_ok_w] is the side condition: [N₀ ≥ 0], [C_j ≥ 0], [M_j ≥ 1], a period [L]
      (the lcm of [P_M] and the [M_j]) that [P_M] and every [M_j] divide, and for every
      [ρ ∈ [0, L)], [N₀ + Σ_j C_j·[M_j ∤ ρ] ≥ max(1, f(ρ mod P_M))] with
      [P_M = M / gcd(es, M)], computed by enumeration as the kernel does;
    - [rows_acc]: the index's scaled entry with a row multiplier [(? p a b)] on one [?]
      dimension, the side condition at the entry's [u], [kmask u k], [r], [g]; its value is
      the multiplier's form [X = a·p + b]. The soundness is in Soundness.v ([rows_sound],
      [rows_acc_sound]). *)

(** The row coordinate of a lane's thread ids [tt]: the sum of its coordinates on the
    dimensions of [u] ([tid_d] when [u] is the one dimension [d]). *)
Definition ysel (u : ubits) (tt : trip) : Z := kvalz (1, 1, 1)%Z (ukey u tt).

(** [P_M = M / gcd(es, M)]: [es·P_M] is a multiple of [M]. *)
Definition pm (es : Z) : Z := (c_sector_bytes G / Z.gcd es (c_sector_bytes G))%Z.

(** One warp's rows (lanes [L], grouped by [ukey u]) at base [β₀] and residue [ρ]. *)
Definition row_sum (u : ubits) (km : trip) (es rho b0 : Z) (L : list trip) : Z :=
  fold_right Z.add 0%Z
    (map (fun key =>
            sec_count (map (kvalz km) (filter (fun tt => trip_eqb (ukey u tt) key) L)) es
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

(** The charge as a potential: [Q' + mg·(N₀ + Σ_j C_j·[M_j ∤ X])] with residue atoms
    (spec/logic.md §1 "Residue atoms"; [Lin.KRes]). *)
Definition rterm (X : lin) (cm : Z * Z) : Q * list atm :=
  (inject_Z (fst cm), [mkAtmK (mkLin 0 []) 1 (KRes X (Z.to_pos (snd cm)))]).
Definition rpot (X : lin) (n0 : Z) (rows : list (Z * Z)) : pot :=
  mkPot (inject_Z n0) (map (rterm X) rows).
Definition pcharge (Q1 : pot) (mg : Q) (X : lin) (n0 : Z) (rows : list (Z * Z)) : pot :=
  mkPot (pcst Q1 + mg * pcst (rpot X n0 rows))
        (map (fun cm => (mg * fst cm, snd cm)) (pterms (rpot X n0 rows)) ++ pterms Q1).

(** The index's scaled entry with a row multiplier. *)
Definition rows_entry (D : list dent) (i : opd) : option (ubits * trip * Z * Z * rmul) :=
  match i with
  | OVar x => match dget D x with Some (DScl _ u k r g (Some m)) => Some (u, k, r, g, m) | _ => None end
  | _ => None
  end.
(** The access check of the row rules: the multiplier's form [X = a·p + b]. *)
Definition rows_acc_w (wt : list (list trip)) (P : list cstr) (D : list dent) (i : opd)
    (es n0 : Z) (rows : list (Z * Z)) : option lin :=
  match rows_entry D i with
  | Some (u, k, r, g, (p, a, b)) =>
      if onebit u && (0 <? c_warp G)%nat &&
         rows_ok_w wt (filter tid_only P) u (kmask u k) g r es n0 rows
      then Some (mkLin b [(a, VP p)]) else None
  | None => None
  end.
Definition rows_acc := rows_acc_w wtids.

(** ** The entry an assignment [x ← e] may give [x] ([ent_P,D(e)], spec/logic.md §2)

    The candidates: the exact value when [lin_P(e)] is constant; a copied remainder
    entry; the remainder entry of [a % m]; [dep_D(e)]; the range entry of
    [width_D(e)]; the scaled entry [scaled_D(e)] when it has a [?] dimension.  A claimed entry must be implied by one of them.  For a
    [bool]/[float] local the only entry is "uniform", which needs [e]'s operands
    uniform or [lin_P(e)] constant. *)
(** The wrapped candidates of [x ← e] (spec/logic.md §2 "Wrapped entries"): a copy of a
    wrapped entry; [(wrap k m)] for [a % m] with [dep_D(a) = (k, r, g)], [m ≥ 1] exact. *)
Definition wrap_cands (D : list dent) (x : nat) (e : expr) : list dent :=
  match e with
  | EOpd (OVar y) => match dget D y with Some (DWrap _ k m) => [DWrap x k m] | _ => [] end
  | EBin OMod a b =>
      match option_map dexact (idep_opd D b), idep_opd D a with
      | Some (Some m), Some (k, _, _) => if (1 <=? m)%Z then [DWrap x k m] else []
      | _, _ => []
      end
  | _ => []
  end.

Definition ent_cands_w (wt : list (list trip)) (P : list cstr) (D : list dent) (x : nat)
    (e : expr) : list dent :=
  (if lin_const P e then
     match lin_fix P e with Some L => [DLin x (0, 0, 0)%Z (lcst (lnorm L)) 0%Z] | None => [] end
   else [])
  ++ (match e with
      | EOpd (OVar y) => match dget D y with Some (DRem _ k r m) => [DRem x k r m] | _ => [] end
      | _ => []
      end)
  ++ (match e with
      | EBin OMod a b =>
          match option_map dexact (idep_opd D b), idep_opd D a with
          | Some (Some m), Some (k, r, g) =>
              if ((1 <=? m) && (g mod m =? 0))%Z then [DRem x k (r mod m)%Z m] else []
          | _, _ => []
          end
      | _ => []
      end)
  ++ (match idep_expr_w wt D e with Some (k, r, g) => [DLin x k r g] | None => [] end)
  ++ (match width_expr D e with Some w => [DRng x w] | None => [] end)
  ++ wrap_cands D x e
  ++ row_cands D x e
  ++ (match sexpr D e with
      | Some (u, (k, r, g)) => if uany u then [DScl x u k r g None] else []
      | None => []
      end).

Definition ent_ok_w (wt : list (list trip)) (P : list cstr) (D : list dent) (x : nat) (e : expr)
    (d : dent) : bool :=
  (dvar d =? x) &&
  match c_lty G x with
  | Some TInt => existsb (fun c => eimplies c d) (ent_cands_w wt P D x e)
  | _ => match d with DLin _ _ _ _ => unif (dunif D) e || lin_const P e | _ => false end
  end.

(** The post map of [x ← e]: entries of other locals are [D]'s; [x]'s are justified. *)
Definition vw_dent_w (wt : list (list trip)) (P : list cstr) (D : list dent) (x : nat) (e : expr)
    (D' : list dent) : bool :=
  forallb (fun d => if dvar d =? x then ent_ok_w wt P D x e d else existsb (dent_eqb d) D) D'.
Definition vw_dent := vw_dent_w wtids.

(** [Q'[x ← e]] of Q:VWRITE1 ([Q'] itself when [lin_P(e)] is undefined; the rule then
    requires that [Q'] does not mention [x]). *)
Definition psubst_e (P : list cstr) (x : nat) (e : expr) (Q' : pot) : pot :=
  match lin_fix P e with Some E => psubst (VL x) E Q' | None => Q' end.

(** Halving (spec/logic.md §4, Q:VWRITE1 "Halving"): [x ← a >> c] ([1 ≤ c < 64]) or
    [x ← a / c] ([c ≥ 2]) with [A = lin(a)]; the witnesses are those of [P ⇒ P'⌈x ← e⌉]
    followed by one for [P ⇒ A ≥ 1] (Shift.v). *)
Definition halving (e : expr) : option lin :=
  match e with
  | EBin OShr a (OConst (VInt c)) => if ((1 <=? c) && (c <? 64))%Z then lin_opd a else None
  | EBin ODiv a (OConst (VInt c)) => if (2 <=? c)%Z then lin_opd a else None
  | _ => None
  end.
(** The divisor [d] of a halving assignment: [2^c] for [a >> c], [c] for [a / c]; the new
    value [v] has [d·v ≤ A] (the log atoms' bounding substitution [x ← A/d], Shift.v). *)
Definition hdiv (e : expr) : Z :=
  match e with
  | EBin OShr _ (OConst (VInt c)) => 2 ^ c
  | EBin ODiv _ (OConst (VInt c)) => c
  | _ => 1
  end.
Definition entails_bsubst (P : list cstr) (x : nat) (A : lin) (P' : list cstr)
    (ws : list fwit) : bool :=
  match map_opt (bcsubst (VL x) A) P' with
  | Some Ps => entails P (Ps ++ [CLe (lsub (mkLin 1 []) A)]) ws
  | None => false
  end.

(** Products (spec/logic.md §4, Q:VWRITE1 "Products"): [x ← a * b] with [A = lin(a)],
    [B = lin(b)]; under [A ≥ α] and [B ≥ β] the value is at least [F = β·A + α·B − α·β]
    (Shift.v); the witnesses are those of [P ⇒ P'[x ← F]] (constraints not rising with
    [x]) followed by one for [P ⇒ A ≥ α] and one for [P ⇒ B ≥ β]. *)
Definition product (e : expr) : option (lin * lin) :=
  match e with
  | EBin OMul a b => match lin_opd a, lin_opd b with Some A, Some B => Some (A, B) | _, _ => None end
  | _ => None
  end.
Definition prod_floor (A B : lin) (al be : Z) : lin :=
  ladd (ladd (lscale be A) (lscale al B)) (mkLin (- (al * be)) []).
(** [α − A ≤ 0]: the side condition [P ⇒ A ≥ α]. *)
Definition at_least (A : lin) (al : Z) : cstr := CLe (lsub (mkLin al []) A).
Definition entails_lsubst (P : list cstr) (x : nat) (F : lin) (sides : list cstr)
    (P' : list cstr) (ws : list fwit) : bool :=
  match map_opt (lcsubst (VL x) F) P' with
  | Some Ps => entails P (Ps ++ sides) ws
  | None => false
  end.

(** ** Atom rewrites of Q:WEAK (spec/certificate.md, [RW]) *)
(** [RShift L d w]: [max0(L) = d + max0(L − d)] when [P ⇒ L ≥ d]; [RZero L w]:
    [max0(L) = 0] when [P ⇒ L ≤ 0]; [RMono L1 L2 w]: [max0(L1) ≥ max0(L2)] when
    [P ⇒ L1 ≥ L2], applied only to a polynomial whose terms have non-negative
    coefficients (spec/certificate.md [RW]); [RSplit L D w0 w]: [max0(L) = max0(L − D) +
    max0(D)] when [P ⇒ D ≥ 0] ([w0]) and [P ⇒ L ≥ D] ([w]).

    The integer rewrites (spec/certificate.md "Integer rewrites", issue 14) [RIShift q A d
    cg] ([A = d + A↓d]), [RIZero q A cg] ([A = 0]) and [RIMono q A1 A2 cg] ([A1 ≥ A2], like
    [RMono] only on a polynomial without negative coefficients) take a Chvátal–Gomory
    witness [cg = (cuts, w)]; [q] names two locals [VL q], [VL (S q)] that occur neither
    in [P] nor in the atoms: the fresh integer variables of the floor atoms' arguments
    ([aarg]); their atoms are read as floor atoms ([aflr]: the kernel has no integer rewrite of
    a log atom).

    The log rewrites (spec/certificate.md "Log rewrites", issue 15; [Log.lhalve_sound],
    [Log.ldouble_sound]): [RLHalve L s w] for the log atom [⌊log2 (L/s)⌋⁺]:
    [= 1 + ⌊log2 (L/2s)⌋⁺] when [P ⇒ L ≥ 2s] ([w]); [RLDouble L s M w1 w2] for the quotient
    log atom [⌊log2 ((L/s)/M)⌋⁺] ([M] integral): [= 1 + ⌊log2 ((L/s)/2M)⌋⁺] when
    [P ⇒ M ≥ 1] ([w1]) and [P ⇒ L ≥ 2s·M] ([w2]). *)
Definition cgw := (list fwit * fwit)%type.
Inductive rw := RShift (L : lin) (d : Z) (w : fwit) | RZero (L : lin) (w : fwit)
  | RMono (L1 L2 : lin) (w : fwit) | RSplit (L D : lin) (w0 w : fwit)
  | RIShift (q : nat) (A : atm) (d : Z) (cg : cgw) | RIZero (q : nat) (A : atm) (cg : cgw)
  | RIMono (q : nat) (A1 A2 : atm) (cg : cgw)
  | RLHalve (L : lin) (s : positive) (w : fwit)
  | RLDouble (L : lin) (s : positive) (Mf : lin) (w1 w2 : fwit)
  | RSShift (L Dv : lin) (k : Z) (cg : cgw) | RSZero (L Dv : lin) (cg : cgw)
  | RSMono (L1 L2 Dv : lin) (cg : cgw).

(** Integer rewrites of symbolic floor atoms [⌊L/D⌋⁺] ([(floors L D)], [Lin.KFloorS D];
    spec/certificate.md "Integer rewrites"): [RSShift L D k cg] ([ishift]: [⌊L/D⌋⁺ = k +
    ⌊(L − k·D)/D⌋⁺] when [P ⇒ k·D − L ≤ 0], [k ≥ 0]), [RSZero L D cg] ([izero]:
    [⌊L/D⌋⁺ = 0] when [P ⇒ L − D + 1 ≤ 0]) and [RSMono L1 L2 D cg] ([imono]:
    [⌊L1/D⌋⁺ ≥ ⌊L2/D⌋⁺] when [P ⇒ L2 − L1 ≤ 0]); the atoms have no defining facts, the
    witness [cg] (cuts, then Farkas) works from [P] alone.  The divisor must be
    well-formed ([sdiv_wf]): parameters with positive coefficients, at least one, and a
    constant [≥ 0] (that they are [gridDim] parameters, [c_griddim], is checked by
    Check.v's Q:WEAK node, [rws_gd]: [rw_ok] does not depend on the context); [ishift] also
    needs [D ≥ 1] on the states of [P], which [sdiv_pos] reads off the launch facts
    [1 − p ≤ 0] of its parameters in [P] (parameters are never assigned, so the root's
    launch facts stay in [P]). *)
Definition sdiv_wf (Dv : lin) : bool :=
  (0 <=? lcst Dv)%Z && negb (match lterms Dv with [] => true | _ => false end) &&
  forallb (fun av => (0 <? fst av)%Z && match snd av with VP _ => true | _ => false end)
    (lterms Dv).
Definition gd_fact (p : nat) : lin := mkLin 1 [((-1)%Z, VP p)].
Definition sdiv_pos (P : list cstr) (Dv : lin) : bool :=
  forallb (fun av => match snd av with
                     | VP p => existsb (fun c => match c with
                                                 | CLe L => lin_eqb (lnorm L) (gd_fact p)
                                                 | _ => false end) P
                     | _ => false end) (lterms Dv).
(** The symbolic floor atom [⌊L/D⌋⁺] as exported ([mkAtmK L 1 (KFloorS D)]). *)
Definition satm (L Dv : lin) : atm := mkAtmK L 1 (KFloorS Dv).

(** The argument of an atom and its defining facts (the kernel's [atom_arg]): [max0(L)]
    ([d = 1]) has the argument [L] and no facts; the floor atom [⌊L/d⌋⁺] the variable
    [v] with [d·v − L ≤ 0] and [L − d·v − (d − 1) ≤ 0] ([v = ⌊L/d⌋], [Floor.floor_def_lower],
    [Floor.floor_def_upper]). *)
Definition aarg (v : var) (A : atm) : lin * list cstr :=
  let d := Zpos (adiv A) in
  if (d =? 1)%Z then (alin A, [])
  else (mkLin 0 [(1%Z, v)],
        [CLe (lsub (mkLin 0 [(d, v)]) (alin A));
         CLe (lplus (lsub (alin A) (mkLin 0 [(d, v)])) (1 - d))]).

(** One Chvátal–Gomory cut [(m, [(i, μ)…])] from [P] (the kernel's [check_cut], on the
    scaled forms: [S_m = Σ μᵢ·Lᵢ = m·S]): the sources are linear, [μ ≥ 0] on
    inequalities, and every variable coefficient of [S_m] is a multiple of [m]; with
    [S_m = m·t + b] it derives [t + ⌈b/m⌉ ≤ 0] ([Floor.cg_cut]). *)
Definition cut_of (P : list cstr) (w : fwit) : option cstr :=
  let '(m, ws) := w in
  if (0 <? m)%Z then
    match fcomb P ws with
    | Some Sm =>
        let X := lnorm Sm in
        if forallb (fun av => (fst av mod m =? 0)%Z) (lterms X)
        then Some (CLe (mkLin ((lcst X + m - 1) / m) (map (fun av => (fst av / m, snd av)%Z) (lterms X))))
        else None
    | None => None
    end
  else None.

(** The cuts in order, each appended to the source list for the next. *)
Fixpoint cuts_src (P : list cstr) (cs : list fwit) : option (list cstr) :=
  match cs with
  | [] => Some P
  | c :: cs' => match cut_of P c with Some k => cuts_src (P ++ [k]) cs' | None => None end
  end.

Definition fresh_ok (q : nat) (P : list cstr) (As : list atm) : bool :=
  forallb (fun c => negb (mentions (VL q) (cform c)) && negb (mentions (VL (S q)) (cform c))) P &&
  forallb (fun A => negb (mentions (VL q) (alin A)) && negb (mentions (VL (S q)) (alin A))) As.

(** The integer witness [cg] proves [target] from [P], the defining facts [fs] and the cuts. *)
Definition cg_ok (P fs : list cstr) (cg : cgw) (target : lin) : bool :=
  match cuts_src (P ++ fs) (fst cg) with
  | Some Src => farkas_ok Src (CLe target) (snd cg)
  | None => false
  end.

Definition rw_ok (P : list cstr) (r : rw) : bool :=
  match r with
  | RShift L d w => (0 <=? d)%Z && farkas_ok P (CLe (lsub (mkLin d []) L)) w
  | RZero L w => farkas_ok P (CLe L) w
  | RMono L1 L2 w => farkas_ok P (CLe (lsub L2 L1)) w
  | RSplit L D w0 w => farkas_ok P (CLe (lscale (-1) D)) w0 && farkas_ok P (CLe (lsub D L)) w
  | RIShift q A d cg =>
      let '(a1, f1) := aarg (VL q) A in
      (0 <=? d)%Z && fresh_ok q P [A] && cg_ok P f1 cg (lsub (mkLin d []) a1)
  | RIZero q A cg =>
      let '(a1, f1) := aarg (VL q) A in fresh_ok q P [A] && cg_ok P f1 cg a1
  | RIMono q A1 A2 cg =>
      let '(a1, f1) := aarg (VL q) A1 in let '(a2, f2) := aarg (VL (S q)) A2 in
      fresh_ok q P [A1; A2] && cg_ok P (f1 ++ f2) cg (lsub a2 a1)
  | RLHalve L s w => farkas_ok P (CLe (lsub (mkLin (2 * Zpos s) []) L)) w
  | RLDouble L s Mf w1 w2 =>
      farkas_ok P (CLe (lsub (mkLin 1 []) Mf)) w1 &&
      farkas_ok P (CLe (lsub (lscale (2 * Zpos s) Mf) L)) w2
  | RSShift L Dv k cg =>
      (0 <=? k)%Z && sdiv_wf Dv && sdiv_pos P Dv && cg_ok P [] cg (lsub (lscale k Dv) L)
  | RSZero L Dv cg => sdiv_wf Dv && cg_ok P [] cg (lplus (lsub L Dv) 1)
  | RSMono L1 L2 Dv cg => sdiv_wf Dv && cg_ok P [] cg (lsub L2 L1)
  end.

(** The floor atom [⌊L/d⌋⁺] of an atom's form and divisor. *)
Definition aflr (A : atm) : atm := mkAtm (alin A) (adiv A).

(** [A↓d] of [RIShift]: [⌊(L − d'·d)/d'⌋⁺] for [A = ⌊L/d'⌋⁺] ([Floor.floor_shift]). *)
Definition ashift (A : atm) (d : Z) : atm :=
  mkAtm (lplus (alin A) (- (Zpos (adiv A) * d))) (adiv A).

Definition rw_lhs (r : rw) : atm :=
  match r with
  | RShift L _ _ | RZero L _ | RMono L _ _ | RSplit L _ _ _ => am L
  | RIShift _ A _ _ | RIZero _ A _ | RIMono _ A _ _ => aflr A
  | RLHalve L s _ => mkAtmK L s KLog
  | RLDouble L s Mf _ _ => mkAtmK L s (KLogQ Mf)
  | RSShift L Dv _ _ | RSZero L Dv _ | RSMono L _ Dv _ => satm L Dv
  end.
(** The right-hand side of the atom: [d + max0(L − d)], [0], [max0(L2)],
    [max0(L − D) + max0(D)], [d + A↓d], [0], [A2], [1 + ⌊log2 (L/2s)⌋⁺], resp.
    [1 + ⌊log2 ((L/s)/2M)⌋⁺]. *)
Definition rw_rhs (r : rw) : list (Q * list atm) :=
  match r with
  | RShift L d _ => [(inject_Z d, []); (1%Q, [am (lplus L (- d))])]
  | RZero _ _ | RIZero _ _ _ => []
  | RMono _ L2 _ => [(1%Q, [am L2])]
  | RSplit L D _ _ => [(1%Q, [am (lsub L D)]); (1%Q, [am D])]
  | RIShift _ A d _ => [(inject_Z d, []); (1%Q, [ashift A d])]
  | RIMono _ _ A2 _ => [(1%Q, [aflr A2])]
  | RLHalve L s _ => [(1%Q, []); (1%Q, [mkAtmK L (2 * s)%positive KLog])]
  | RLDouble L s Mf _ _ => [(1%Q, []); (1%Q, [mkAtmK L s (KLogQ (lscale 2 Mf))])]
  | RSShift L Dv k _ => [(inject_Z k, []); (1%Q, [satm (lsub L (lscale k Dv)) Dv])]
  | RSZero _ _ _ => []
  | RSMono _ L2 Dv _ => [(1%Q, [satm L2 Dv])]
  end.
Definition is_mono (r : rw) : bool :=
  match r with RMono _ _ _ | RIMono _ _ _ _ | RSMono _ _ _ _ => true | _ => false end.
(** The terms of a potential have non-negative coefficients. *)
Definition ptnonneg (Q1 : pot) : bool := forallb (fun cm => Qle_bool 0 (fst cm)) (pterms Q1).

Definition mmul (l1 l2 : list (Q * list atm)) : list (Q * list atm) :=
  flat_map (fun a => map (fun b => (fst a * fst b, snd a ++ snd b)%Q) l2) l1.

(** Every atom of a monomial equal (normalized) to [La] is replaced by [rhs]. *)
Definition rw_mono (La : atm) (rhs : list (Q * list atm)) (cm : Q * list atm) : list (Q * list atm) :=
  fold_right (fun A acc => if atm_eq_dec (anorm A) La then mmul rhs acc else mmul [(1%Q, [A])] acc)
    [(fst cm, [])] (snd cm).

(** [A = f·A'] ([acanon]): every atom [A'] becomes [rhs / f]; a rewrite of a constant
    atom changes nothing. *)
Definition rw_apply (r : rw) (Q1 : pot) : pot :=
  match acanon (rw_lhs r) with
  | (f, [L']) =>
      let rhs := map (fun cm => (fst cm / f, snd cm)%Q) (rw_rhs r) in
      mkPot (pcst Q1) (flat_map (rw_mono (anorm L') rhs) (pterms Q1))
  | _ => Q1
  end.

(** The rewrites [rs] applied in order to [Q1] are justified under [P] (a [mono]
    rewrite only when the current polynomial has no negative term coefficient). *)
Fixpoint rws_ok (P : list cstr) (rs : list rw) (Q1 : pot) : bool :=
  match rs with
  | [] => true
  | r :: rs' => rw_ok P r && (negb (is_mono r) || ptnonneg Q1) && rws_ok P rs' (rw_apply r Q1)
  end.
Definition rws_apply (rs : list rw) (Q1 : pot) : pot := fold_left (fun q r => rw_apply r q) rs Q1.

(** [Q1 ≥ Q2] under [P], justified by rewrites of [Q1]. *)
Definition pot_ge_under (P : list cstr) (rs : list rw) (Q1 Q2 : pot) : bool :=
  rws_ok P rs Q1 && pot_ge (rws_apply rs Q1) Q2.

(** Equality of constraint lists up to normalization of each form. *)
Definition zlist_eqb (a b : list Z) : bool := if list_eq_dec Z.eq_dec a b then true else false.
Fixpoint cstrs_equiv (P1 P2 : list cstr) : bool :=
  match P1, P2 with
  | [], [] => true
  | CLe L1 :: P1', CLe L2 :: P2' | CEq L1 :: P1', CEq L2 :: P2' =>
      lin_eqb (lnorm L1) (lnorm L2) && cstrs_equiv P1' P2'
  | CMod L1 m1 rs1 :: P1', CMod L2 m2 rs2 :: P2' =>
      lin_eqb (lnorm L1) (lnorm L2) && (m1 =? m2)%Z && zlist_eqb rs1 rs2 && cstrs_equiv P1' P2'
  | _, _ => false
  end.

(** The sum of two potentials ([Q:WHILEEXIT1/2]'s [I + Q']). *)
Definition pplus (Q1 Q2 : pot) : pot := mkPot (pcst Q1 + pcst Q2) (pterms Q1 ++ pterms Q2).

(** An expression that reads no array (its cost does not depend on [P], [D]). *)
Definition noread (e : expr) : bool := match e with ERead _ _ => false | _ => true end.

(** ** Warp operations (Q:SHFL, Q:VOTE; spec/logic.md §4)

    The post's constraints are constraints of the pre that do not mention [x] (the
    kernel requires exactly those, in order); the post map equals the pre's except at [x],
    whose entry must be implied by the candidate: a shuffle of an operand with a
    thread-independent [dep_D] keeps it, a vote is uniform [(0, 0, 1)]; for a
    [bool]/[float] local, a shuffle of a uniform operand is uniform. *)
Definition cstr_eqb (a b : cstr) : bool := if cstr_eq_dec a b then true else false.

Definition warp_post_p (P P' : list cstr) (x : nat) : bool :=
  forallb (fun c => existsb (cstr_eqb c) P && negb (mentions (VL x) (cform c))) P'.

Definition warp_cands (D : list dent) (x : nat) (op : warpop) : list dent :=
  match op with
  | WShfl _ _ v _ =>
      match idep_opd D v with
      | Some (k, r, g) => if kzero k then [DLin x (0, 0, 0)%Z r g] else []
      | None => []
      end
  | WVote _ _ => [DLin x (0, 0, 0)%Z 0%Z 1%Z]
  end.

Definition warp_ent_ok (D : list dent) (x : nat) (op : warpop) (d : dent) : bool :=
  (dvar d =? x) &&
  match c_lty G x with
  | Some TInt => existsb (fun c => eimplies c d) (warp_cands D x op)
  | _ => match d, op with DLin _ _ _ _, WShfl _ _ v _ => opd_unif (dunif D) v | _, _ => false end
  end.

Definition warp_dent (D : list dent) (x : nat) (op : warpop) (D' : list dent) : bool :=
  forallb (fun d => if dvar d =? x then warp_ent_ok D x op d else existsb (dent_eqb d) D) D'.

(** ** Judgments for operands and expressions: [P ⊢_M e : C] *)
Inductive qopd : opd -> Q -> Prop :=
  | OQ_VAR : forall x, qopd (OVar x) (m_var M)
  | OQ_CONST : forall v, qopd (OConst v) (m_const M)
  | OQ_PARAM : forall p, qopd (OParam p) (m_param M)
  | OQ_TID : forall d, qopd (OTid d) (m_var M).

(** [n] is the access count claimed for a read (ignored by the other rules);
    [EQ_OPD] is the coercion of an operand to an expression. *)
Inductive qexpr (P : list cstr) (D : list dent) : expr -> Z -> Q -> Prop :=
  | EQ_OPD : forall o n C, qopd o C -> qexpr P D (EOpd o) n C
  | EQ_OP : forall op a b n Ca Cb, qopd a Ca -> qopd b Cb ->
      qexpr P D (EBin op a b) n (Ca + Cb + m_op M)
  | EQ_UOP : forall op a n Ca, qopd a Ca -> qexpr P D (EUn op a) n (Ca + m_op M)
  | EQ_GARRAY : forall A i n Ci es, c_arr G A = Some (Global, es) -> qopd i Ci ->
      dacc false P D i es n = true -> qexpr P D (ERead A i) n (Ci + m_gread M n)
  | EQ_SARRAY : forall A i n Ci es, c_arr G A = Some (Shared, es) -> qopd i Ci ->
      dacc true P D i es n = true -> qexpr P D (ERead A i) n (Ci + m_sread M n)
  | EQ_LARRAY : forall A i n Ci es, c_arr G A = Some (Local, es) -> qopd i Ci ->
      qexpr P D (ERead A i) n (Ci + m_var M).

(* ---- begin issue 15 (exits15b): guard exits (Q:GUARDEXIT) ---- *)
(** [falsifies g s]: the last write of the local [g] in [s] is [g ← false]
    (spec/logic.md §4a, Q:GUARDEXIT). *)
Fixpoint falsifies (g : nat) (s : stmt) : bool :=
  match s with
  | SAssign x (EOpd (OConst (VBool false))) => Nat.eqb x g
  | SSeq s1 s2 => falsifies g s2 || (falsifies g s1 && negb (memn g (writes s2)))
  | _ => false
  end.
(* ---- end issue 15 (exits15b) ---- *)

(* ---- begin issue 15 (exit15): Q:WHILEGUARD (spec/logic.md §4a) ---- *)
(** [guard_last g GE s]: on every path of [s] the last write of the [bool] local [g] is
    [g ← c] with [cond(c) ≡ GE] (the last statement of the path), or [g] is falsified
    ([falsifies]): a thread with [g = true] after [s] satisfies [GE]. *)
Fixpoint guard_last (g : nat) (GE : list cstr) (s : stmt) : bool :=
  match s with
  | SAssign x c => Nat.eqb x g && cstrs_equiv GE (fst (cond c))
  | SSeq _ s2 => guard_last g GE s2
  | SIf _ s1 s2 => (guard_last g GE s1 || falsifies g s1) && (guard_last g GE s2 || falsifies g s2)
  | _ => false
  end.
(* ---- end issue 15 (exit15) ---- *)

(* ---- begin issue 15 (case17): Q:CASE, Q:WHILENONE (spec/logic.md §4a) ---- *)
(** Q:CASE's else case: [−L + 1 ≤ 0], i.e. [L ≥ 1] (forms are integer-valued). *)
Definition case_else (L : lin) : cstr := CLe (lplus (lscale (-1) L) 1).
(** A rewrite list of equalities only (no [mono]/[imono]), each valid under [P]. *)
Definition rws_eqok (P : list cstr) (rs : list rw) : bool :=
  forallb (fun r => rw_ok P r && negb (is_mono r)) rs.
(** [Q1 ≥ Q2] under [P]: the equality rewrites [rs] applied to both sides. *)
Definition pot_ge_both (P : list cstr) (rs : list rw) (Q1 Q2 : pot) : bool :=
  rws_eqok P rs && pot_ge (rws_apply rs Q1) (rws_apply rs Q2).
(* ---- end issue 15 (case17) ---- *)

(* ---- begin issue 15 (coqguard18): Q:GWRITEGUARD / Q:VWRITEGUARD (spec/logic.md §4
   "Guarded accesses") ---- *)
(** The kernel's [access::guard_table] check, by enumeration: for every warp of [wt]
    (lanes kept by the thread constraints [tc]), every admissible base [β] and every kept
    lane [l] with [T = K·tid(l)] ([kg] the guard's thread coefficients), the sectors
    [gcount] met by the kept lanes [l'] with [K·tid(l') ≤ T] at the offsets [kd·tid(l')]
    are at most the charge [gcharge N₀ terms T] (Guard.v). Also [N₀ ≥ 0], [C_j ≥ 0]. *)
Definition gcount (kg kd : trip) (es b T : Z) (WL : list trip) : Z :=
  sec_count (map (kvalz kd) (filter (fun l => (kvalz kg l <=? T)%Z) WL)) es b.
Definition guard_ok_w (wt : list (list trip)) (tc : list cstr) (kg kd : trip)
    (g r es n0 : Z) (terms : list (Z * Z)) : bool :=
  (0 <? c_sector_bytes G)%Z && (0 <=? n0)%Z && forallb (fun ct => 0 <=? fst ct)%Z terms &&
  forallb (fun L =>
    let WL := wfilter tc L in
    forallb (fun b =>
      forallb (fun l => gcount kg kd es b (kvalz kg l) WL <=? gcharge n0 terms (kvalz kg l))%Z WL)
      (betas (c_sector_bytes G) g r es)) wt.
(** [K·tid] as a form. *)
Definition tid_lin (k : trip) : lin :=
  let '(k1, k2, k3) := k in mkLin 0 [(k1, VT 0); (k2, VT 1); (k3, VT 2)].
(** The guard [L ≤ 0] at index [I] of [P] and its thread coefficients [K] ([lin_k]: every
    local of [L] has a linear entry). *)
Definition guard_form (P : list cstr) (D : list dent) (I : nat) : option (lin * trip) :=
  match nth_error P I with
  | Some (CLe L) => match lin_k D L with Some k => Some (L, k) | None => None end
  | _ => None
  end.
(** The access check of the guarded rules: the index has a linear entry [(kd, r, g)], the
    guard names an inequality of [P], [S ≥ 1], the table check; the result is the uniform
    part [L_u = L − K·tid] from which the charge's atoms are built. *)
Definition guard_acc_w (wt : list (list trip)) (P : list cstr) (D : list dent) (i : opd)
    (es n0 : Z) (I : nat) (S : Z) (terms : list (Z * Z)) : option lin :=
  match idep_opd D i, guard_form P D I with
  | Some (kd, r, g), Some (L, kg) =>
      if (0 <? S)%Z && (0 <? c_warp G)%nat && guard_ok_w wt (filter tid_only P) kg kd g r es n0 terms
      then Some (lsub L (tid_lin kg)) else None
  | _, _ => None
  end.
Definition guard_acc := guard_acc_w wtids.
(** The potential equation as [≥]: [Q + mg·Σ_j C_j·A⁻_j ≥ Q' + mg·(N₀ + Σ_j C_j·A⁺_j) + k]. *)
Definition gpot_ok (Qn Q' : pot) (mg : Q) (Lu : lin) (S n0 : Z) (terms : list (Z * Z)) (k : Q) : bool :=
  pot_ge (pplus Qn (pscale mg (gminus Lu (Z.to_pos S) terms)))
         (padd (pplus Q' (pscale mg (gplus Lu (Z.to_pos S) n0 terms))) k).
(* ---- end issue 15 (coqguard18) ---- *)

(** ** Statement judgments [⊢_M {P; D; Q} s {P'; D'; Q'}]

    [qstmt] is the ordinary judgment, [qstmtF u e] the filtered judgment of
    spec/logic.md §4a for the loop condition [e] ([⊢ᵉ_M]): its post's [D] and
    potential are only about the threads that satisfy [e] after the statement.  The
    index [u = true] records that the derivation has no [Q_IFEXIT4] in filtered
    position (the side condition of [Q_WHILEEXIT1]).  Constructors of [qstmtF]: the
    coercion [F_ORD] of an ordinary judgment (with the well-formedness facts its
    soundness uses: the pre potential uniform under the pre map, the post potential
    non-negative), the filtered versions [F_SEQ] (second child), [F_WEAK], [F_IF1],
    [F_IF2], [F_IF3] of §4's rules, and the rules [Q_IFEXIT1], [Q_IFEXIT4]. *)
Inductive qstmt : assn -> stmt -> assn -> Prop :=
  | Q_SKIP : forall A, qstmt A SSkip A
  | Q_SYNC : forall P D Qn Q',
      pot_ge Qn (padd Q' (m_sync M)) = true ->
      qstmt (mkAssn P D Qn) SSync (mkAssn P D Q')
  | Q_SEQ : forall A A1 A' s1 s2, qstmt A s1 A1 -> qstmt A1 s2 A' -> qstmt A (SSeq s1 s2) A'
  | Q_VWRITE1 : forall P D Qn P' D' Q' x e n C ws,
      qexpr P D e n C -> vw_dent P D x e D' = true ->
      entails_subst P x e P' ws = true ->
      lin_fix P e <> None \/ pmentions (VL x) Q' = false ->
      pot_ge Qn (padd (psubst_e P x e Q') (m_vwrite M + C)) = true ->
      qstmt (mkAssn P D Qn) (SAssign x e) (mkAssn P' D' Q')
  | Q_VWRITE2 : forall P D Qn P' D' Q' x e n C ws,
      qexpr P D e n C -> vw_dent P D x e D' = true -> entails_subst P x e P' ws = true ->
      pmentions (VL x) Q' = false -> pot_ge Qn (padd Q' (m_vwrite M + C)) = true ->
      qstmt (mkAssn P D Qn) (SAssign x e) (mkAssn P' D' Q')
  | Q_VWRITE1H : forall P D Qn P' D' Q' x e A n C ws,
      qexpr P D e n C -> halving e = Some A -> vw_dent P D x e D' = true ->
      entails_bsubst P x A P' ws = true -> ptnonneg Q' = true -> pdivfree (VL x) Q' = true ->
      pot_ge Qn (padd (pbsubst (VL x) A (hdiv e) Q') (m_vwrite M + C)) = true ->
      qstmt (mkAssn P D Qn) (SAssign x e) (mkAssn P' D' Q')
  | Q_VWRITE1P : forall P D Qn P' D' Q' x e A B al be n C ws,
      qexpr P D e n C -> product e = Some (A, B) -> vw_dent P D x e D' = true ->
      entails_lsubst P x (prod_floor A B al be) [at_least A al; at_least B be] P' ws = true ->
      ptnonneg Q' = true -> pfalls (VL x) Q' = true ->
      pot_ge Qn (padd (plsubst (VL x) (prod_floor A B al be) Q') (m_vwrite M + C)) = true ->
      qstmt (mkAssn P D Qn) (SAssign x e) (mkAssn P' D' Q')
  | Q_SHFL : forall P D Qn P' D' Q' x k w v l Cv Cl,
      qopd v Cv -> qopd l Cl -> warp_post_p P P' x = true ->
      warp_dent D x (WShfl k w v l) D' = true -> pmentions (VL x) Q' = false ->
      pot_ge Qn (padd Q' (Cv + Cl + m_op M + m_vwrite M)) = true ->
      qstmt (mkAssn P D Qn) (SWarp x (WShfl k w v l)) (mkAssn P' D' Q')
  | Q_VOTE : forall P D Qn P' D' Q' x k p Cp,
      qopd p Cp -> warp_post_p P P' x = true ->
      warp_dent D x (WVote k p) D' = true -> pmentions (VL x) Q' = false ->
      pot_ge Qn (padd Q' (Cp + m_op M + m_vwrite M)) = true ->
      qstmt (mkAssn P D Qn) (SWarp x (WVote k p)) (mkAssn P' D' Q')
  | Q_GWRITE : forall P D Qn Q' A i e es n ne C1 C2,
      c_arr G A = Some (Global, es) -> qopd i C1 -> qexpr P D e ne C2 ->
      dacc false P D i es n = true -> pot_ge Qn (padd Q' (m_gwrite M n + C1 + C2)) = true ->
      qstmt (mkAssn P D Qn) (SWrite A i e) (mkAssn P D Q')
  | Q_SWRITE : forall P D Qn Q' A i e es n ne C1 C2,
      c_arr G A = Some (Shared, es) -> qopd i C1 -> qexpr P D e ne C2 ->
      dacc true P D i es n = true -> pot_ge Qn (padd Q' (m_swrite M n + C1 + C2)) = true ->
      qstmt (mkAssn P D Qn) (SWrite A i e) (mkAssn P D Q')
  | Q_LWRITE : forall P D Qn Q' A i e es ne C1 C2,
      c_arr G A = Some (Local, es) -> qopd i C1 -> qexpr P D e ne C2 ->
      pot_ge Qn (padd Q' (m_vwrite M + C1 + C2)) = true ->
      qstmt (mkAssn P D Qn) (SWrite A i e) (mkAssn P D Q')
  | Q_IF1 : forall P D Qn Q e n C s1 s2 PT PF A',
      qexpr P D e n C -> unif (dunif D) e = true ->
      cstrs_equiv PT (andc P D e false) = true -> cstrs_equiv PF (andc P D e true) = true ->
      qstmt (mkAssn PT D Q) s1 A' -> qstmt (mkAssn PF D Q) s2 A' ->
      pot_ge Qn (padd Q (m_if M + C)) = true ->
      qstmt (mkAssn P D Qn) (SIf e s1 s2) A'
  | Q_IF2 : forall P D Qn Q e n C s1 s2 ws A',
      qexpr P D e n C -> nonempty (fst (cond e)) = true -> entails P (fst (cond e)) ws = true ->
      qstmt (mkAssn P D Q) s1 A' -> pot_ge Qn (padd Q (m_if M + C)) = true ->
      qstmt (mkAssn P D Qn) (SIf e s1 s2) A'
  | Q_IF3 : forall P D Qn Q e n C s1 s2 ws A',
      qexpr P D e n C -> nonempty (snd (cond e)) = true -> entails P (snd (cond e)) ws = true ->
      qstmt (mkAssn P D Q) s2 A' -> pot_ge Qn (padd Q (m_if M + C)) = true ->
      qstmt (mkAssn P D Qn) (SIf e s1 s2) A'
  | Q_IF4 : forall P D Qn Q e n C s1 s2 PT P1 D1 Q1 PF DF P2 D2 Q2 P' D' wec wet wjt wje,
      qexpr P D e n C -> cstrs_equiv PT (andc P D e false) = true ->
      qstmt (mkAssn PT D Q) s1 (mkAssn P1 D1 Q1) ->
      qstmt (mkAssn PF DF Q1) s2 (mkAssn P2 D2 Q2) ->
      entails (andc P D e true) PF wec = true -> entails P1 (filter is_lin PF) wet = true ->
      entails P1 P' wjt = true -> entails P2 P' wje = true ->
      dcovers D DF = true -> disjoint (dvars DF) (writes s1) = true ->
      dcovers D D' = true -> disjoint (dvars D') (writes s1 ++ writes s2) = true ->
      puni D Q = true -> puni DF Q1 = true -> puni D' Q2 = true ->
      pot_ge Q Q1 = true -> pot_ge Q1 Q2 = true ->
      pot_ge Qn (padd Q (m_if M + C + m_div M)) = true ->
      qstmt (mkAssn P D Qn) (SIf e s1 s2) (mkAssn P' D' Q2)
  | Q_IFALIGN : forall P D Qn Q e n C s1 s2 PT P1 D1 Q1 PF DF P2 D2 Q2 P' D' wec wet wjt wje
      L k X g r m,
      qexpr P D e n C -> cstrs_equiv PT (andc P D e false) = true ->
      qstmt (mkAssn PT D Q) s1 (mkAssn P1 D1 Q1) ->
      qstmt (mkAssn PF DF Q1) s2 (mkAssn P2 D2 Q2) ->
      entails (andc P D e true) PF wec = true -> entails P1 (filter is_lin PF) wet = true ->
      entails P1 P' wjt = true -> entails P2 P' wje = true ->
      dcovers D DF = true -> disjoint (dvars DF) (writes s1) = true ->
      dcovers D D' = true -> disjoint (dvars D') (writes s1 ++ writes s2) = true ->
      puni D Q = true -> puni DF Q1 = true -> puni D' Q2 = true ->
      pot_ge Q Q1 = true -> pot_ge Q1 Q2 = true ->
      fst (cond e) = [CLe L] -> lin_k D L = Some k -> lin_loc D L = Some (X, g) ->
      (g mod Zpos m =? 0)%Z = true -> nosplit_ok wtids k r (Zpos m) = true ->
      pot_ge Qn (padd (paddm Q (m_div M) [res_atom X r m]) (m_if M + C)) = true ->
      qstmt (mkAssn P D Qn) (SIf e s1 s2) (mkAssn P' D' Q2)
  | Q_WHILE1 : forall P D Qn Q' e n C s B PB QB QB' P',
      qexpr P D e n C -> unif (dunif D) e = true ->
      qstmt (mkAssn B D QB) s (mkAssn PB D QB') ->
      cstrs_equiv B (andc P D e false) = true -> cstrs_equiv PB P = true ->
      pot_ge Q' QB = true -> pot_ge QB' (padd Q' (m_if M + C)) = true ->
      pot_ge Qn (padd Q' (m_if M + C)) = true ->
      cstrs_equiv P' (andc P D e true) = true ->
      qstmt (mkAssn P D Qn) (SWhile e s) (mkAssn P' D Q')
  | Q_WHILE2 : forall P D Qn Q' e n C s B PB I QB' P' D',
      qexpr P D e n C ->
      qstmt (mkAssn B D I) s (mkAssn PB D QB') ->
      cstrs_equiv B (andc P D e false) = true -> cstrs_equiv PB P = true ->
      pot_ge QB' (padd I (m_if M + m_div M + C)) = true ->
      pot_ge Qn (padd I (m_if M + m_div M + C)) = true ->
      cstrs_equiv P' (andc P D e true) = true ->
      dcovers D D' = true -> disjoint (dvars D') (writes s) = true ->
      puni D I = true -> puni D' Q' = true -> pot_ge I Q' = true ->
      qstmt (mkAssn P D Qn) (SWhile e s) (mkAssn P' D' Q')
  | Q_WHILELAST : forall P D Qn Q' e n C s B PB BL PN I QB' QL' P' D' L k w wl,
      cstrs_equiv B (andc P D e false) = true ->
      cstrs_equiv BL (andc P D e false ++ [last_window L w]) = true ->
      qstmt (mkAssn B D I) s (mkAssn PB D QB') ->
      qstmt (mkAssn BL D I) s (mkAssn PN D QL') ->
      qexpr P D e n C ->
      fst (cond e) = [CLe L] -> nonempty (snd (cond e)) = true ->
      lin_k D L = Some k -> spread_ok wtids k w = true ->
      cstrs_equiv PB P = true ->
      entails PN (P ++ snd (cond e)) wl = true ->
      pot_ge QB' (padd I (m_if M + C)) = true ->
      pot_ge QL' (padd I (m_if M + C)) = true ->
      pot_ge Qn (padd I (m_if M + m_div M + C)) = true ->
      cstrs_equiv P' (andc P D e true) = true ->
      dcovers D D' = true -> disjoint (dvars D') (writes s) = true ->
      puni D I = true -> puni D' Q' = true -> pot_ge I Q' = true ->
      qstmt (mkAssn P D Qn) (SWhile e s) (mkAssn P' D' Q')
  | Q_WHILELASTALIGN : forall P D Qn Q' e n C s B PB BL PN I QB' QL' P' D' L k w wl X g r m,
      cstrs_equiv B (andc P D e false) = true ->
      cstrs_equiv BL (andc P D e false ++ [last_window L w]) = true ->
      qstmt (mkAssn B D I) s (mkAssn PB D QB') ->
      qstmt (mkAssn BL D I) s (mkAssn PN D QL') ->
      qexpr P D e n C ->
      fst (cond e) = [CLe L] -> nonempty (snd (cond e)) = true ->
      lin_k D L = Some k -> spread_ok wtids k w = true ->
      cstrs_equiv PB P = true ->
      entails PN (P ++ snd (cond e)) wl = true ->
      pot_ge QB' (padd I (m_if M + C)) = true ->
      pot_ge QL' (padd I (m_if M + C)) = true ->
      lin_loc D L = Some (X, g) ->
      (g mod Zpos m =? 0)%Z = true -> nosplit_ok wtids k r (Zpos m) = true ->
      disjoint (lin_locals X) (writes s) = true ->
      pot_ge Qn (padd (paddm I (m_div M) [res_atom X r m]) (m_if M + C)) = true ->
      cstrs_equiv P' (andc P D e true) = true ->
      dcovers D D' = true -> disjoint (dvars D') (writes s) = true ->
      puni D I = true -> puni D' Q' = true -> pot_ge I Q' = true ->
      qstmt (mkAssn P D Qn) (SWhile e s) (mkAssn P' D' Q')
  | Q_WHILEWARP : forall P D Qn Q' e n C s B PB I QB' P' D' L k r g,
      qexpr P D e n C ->
      fst (cond e) = [CLe L] -> nonempty (snd (cond e)) = true ->
      lin_k D L = Some k -> lin_off D L = Some (r, g) -> nosplit_ok wtids k r g = true ->
      qstmt (mkAssn B D I) s (mkAssn PB D QB') ->
      cstrs_equiv B (andc P D e false) = true -> cstrs_equiv PB P = true ->
      pot_ge QB' (padd I (m_if M + C)) = true ->
      pot_ge Qn (padd I (m_if M + C)) = true ->
      cstrs_equiv P' (andc P D e true) = true ->
      dcovers D D' = true -> pot_ge I Q' = true ->
      qstmt (mkAssn P D Qn) (SWhile e s) (mkAssn P' D' Q')
  | Q_UNROLL : forall A A' e s,
      qstmt A (SIf e (SSeq s (SWhile e s)) SSkip) A' -> qstmt A (SWhile e s) A'
  | Q_WEAK : forall P D Qn P' D' Q' s NP ND NQ NP' ND' NQ' k wpre rpre wpost rpost,
      qstmt (mkAssn NP ND NQ) s (mkAssn NP' ND' NQ') -> Qle_bool 0 k = true ->
      entails P NP wpre = true -> pot_ge_under P rpre Qn (padd NQ k) = true -> dcovers D ND = true ->
      entails NP' P' wpost = true -> pot_ge_under NP' rpost (padd NQ' k) Q' = true ->
      dcovers ND' D' = true ->
      qstmt (mkAssn P D Qn) s (mkAssn P' D' Q')
  | Q_WHILEEXIT1 : forall P D Qn Q' e n C s B I PB QB' P' D',
      qexpr P D e n C -> unif (dunif D) e = true -> noread e = true ->
      qstmtF true e (mkAssn B D I) s (mkAssn PB D QB') ->
      cstrs_equiv B (P ++ fst (cond e)) = true -> cstrs_equiv PB P = true ->
      pot_ge QB' (padd I (m_if M + C)) = true ->
      pot_ge Qn (padd (pplus I Q') ((m_if M + C) + (m_if M + C))) = true ->
      cstrs_equiv P' (P ++ snd (cond e)) = true ->
      dcovers D D' = true -> disjoint (dvars D') (writes s) = true ->
      puni D I = true -> pnonneg I = true -> puni D' Q' = true ->
      qstmt (mkAssn P D Qn) (SWhile e s) (mkAssn P' D' Q')
  | Q_WHILEEXIT2 : forall u P D Qn Q' e n C s B I PB QB' P' D',
      qexpr P D e n C -> noread e = true ->
      qstmtF u e (mkAssn B D I) s (mkAssn PB D QB') ->
      cstrs_equiv B (P ++ fst (cond e)) = true -> cstrs_equiv PB P = true ->
      pot_ge QB' (padd I (m_if M + m_div M + C)) = true ->
      pot_ge Qn (padd (pplus I Q') ((m_if M + m_div M + C) + (m_if M + m_div M + C))) = true ->
      cstrs_equiv P' (P ++ snd (cond e)) = true ->
      dcovers D D' = true -> disjoint (dvars D') (writes s) = true ->
      puni D I = true -> pnonneg I = true -> puni D' Q' = true ->
      qstmt (mkAssn P D Qn) (SWhile e s) (mkAssn P' D' Q')
  (* issue 15 (exit15): Q:WHILEGUARD, the guard loop with the statement [s0] before it *)
  (* issue 15 (exit16): [uf = true] is Q:WHILEGUARD1, the uniform mode (Q:WHILEEXIT1's
     premises: [g] uniform, a body without divergent exit, no [M^div]) *)
  (* issue 15 (guard15): the body's post [QB'] is the loop head's potential [J]: it pays the
     round [I + k] only under the body's pre [B] (the guard's condition: a thread enters),
     by the rewrites [rg]; the pre pays [J + Q' + M^if + C], nothing for a loop no lane enters *)
  | Q_WHILEGUARD : forall uf A s0 g GE P D Qn Q' n C s B I PB QB' P' D' rg,
      qstmt A s0 (mkAssn P D Qn) -> c_lty G g = Some TBool ->
      guard_last g GE s0 = true -> guard_last g GE s = true ->
      qexpr P D (EOpd (OVar g)) n C ->
      (uf = true -> unif (dunif D) (EOpd (OVar g)) = true) ->
      qstmtF uf (EOpd (OVar g)) (mkAssn B D I) s (mkAssn PB D QB') ->
      cstrs_equiv B (P ++ GE) = true -> cstrs_equiv PB P = true ->
      pot_ge_under B rg QB' (padd I (if uf then m_if M + C else m_if M + m_div M + C)) = true ->
      pot_ge Qn (padd (pplus QB' Q') (m_if M + C)) = true ->
      cstrs_equiv P' P = true ->
      dcovers D D' = true -> disjoint (dvars D') (writes s) = true ->
      puni D QB' = true -> pnonneg QB' = true -> puni D' Q' = true ->
      qstmt A (SSeq s0 (SWhile (EOpd (OVar g)) s)) (mkAssn P' D' Q')
  | SEQ_ASSOC : forall A A' s1 s2 s3,
      qstmt A (SSeq (SSeq s1 s2) s3) A' -> qstmt A (SSeq s1 (SSeq s2 s3)) A'
  (* issue 15 (exit15b): Q:WHILEGUARD0, Q:WHILEGUARD whose guard is uniform in the pre, so
     the first test cannot split: the pre pays [J0 + Q' + M^if + C] with [J0 ≥ I + M^if + C]
     under the body's pre [B] (rewrites [r0]); the body's post [QB'] pays the later rounds *)
  | Q_WHILEGUARD0 : forall A s0 g GE P D Qn Q' n C s B I PB QB' J0 P' D' rg r0,
      qstmt A s0 (mkAssn P D Qn) -> c_lty G g = Some TBool ->
      guard_last g GE s0 = true -> guard_last g GE s = true ->
      qexpr P D (EOpd (OVar g)) n C ->
      unif (dunif D) (EOpd (OVar g)) = true ->
      qstmtF false (EOpd (OVar g)) (mkAssn B D I) s (mkAssn PB D QB') ->
      cstrs_equiv B (P ++ GE) = true -> cstrs_equiv PB P = true ->
      pot_ge_under B rg QB' (padd I (m_if M + m_div M + C)) = true ->
      pot_ge_under B r0 J0 (padd I (m_if M + C)) = true ->
      pot_ge Qn (padd (pplus J0 Q') (m_if M + C)) = true ->
      cstrs_equiv P' P = true ->
      dcovers D D' = true -> disjoint (dvars D') (writes s) = true ->
      puni D QB' = true -> pnonneg QB' = true -> puni D J0 = true -> pnonneg J0 = true ->
      puni D' Q' = true ->
      qstmt A (SSeq s0 (SWhile (EOpd (OVar g)) s)) (mkAssn P' D' Q')
  (* issue 15 (case17): Q:CASE, a case split on the uniform integer form [L] *)
  | Q_CASE : forall P D Qn s L PT PF QT QF A1 A2 P' D' Q' rt rf wjt wje,
      luni D L = true ->
      cstrs_equiv PT (P ++ [CLe L]) = true -> cstrs_equiv PF (P ++ [case_else L]) = true ->
      qstmt (mkAssn PT D QT) s A1 -> qstmt (mkAssn PF D QF) s A2 ->
      pot_ge_both PT rt Qn QT = true -> pot_ge_both PF rf Qn QF = true ->
      entails (aP A1) P' wjt = true -> entails (aP A2) P' wje = true ->
      dcovers (aD A1) D' = true -> dcovers (aD A2) D' = true ->
      pot_ge (aQ A1) Q' = true -> pot_ge (aQ A2) Q' = true ->
      qstmt (mkAssn P D Qn) s (mkAssn P' D' Q')
  (* issue 15 (case17): Q:WHILENONE, the guard loop after [g ← E] with [P ⇒ cond(¬E)] *)
  | Q_WHILENONE : forall A g E P D Qn Q' n C b ws,
      qstmt A (SAssign g E) (mkAssn P D Qn) -> c_lty G g = Some TBool ->
      nonempty (snd (cond E)) = true -> entails P (snd (cond E)) ws = true ->
      qexpr P D (EOpd (OVar g)) n C ->
      pot_ge Qn (padd Q' (m_if M + C)) = true ->
      qstmt A (SSeq (SAssign g E) (SWhile (EOpd (OVar g)) b)) (mkAssn P D Q')
  (* issue 15 (coqrows17): Q:GWRITEROWS / Q:VWRITEROWS, a global access charged
     [M^g(1)·(N₀ + Σ_j C_j·[M_j ∤ X])] for the index's row multiplier [X] (rows_acc) *)
  | Q_GWRITEROWS : forall P D Qn Q' A i e es n0 rows X ne C1 C2,
      c_arr G A = Some (Global, es) -> qopd i C1 -> qexpr P D e ne C2 ->
      rows_acc P D i es n0 rows = Some X ->
      pot_ge Qn (padd (pcharge Q' (m_gwrite M 1) X n0 rows) (C1 + C2)) = true ->
      qstmt (mkAssn P D Qn) (SWrite A i e) (mkAssn P D Q')
  | Q_VWRITEROWS : forall P D Qn P' D' Q' x A i es n0 rows X C,
      c_arr G A = Some (Global, es) -> qopd i C -> rows_acc P D i es n0 rows = Some X ->
      vw_dent P D x (ERead A i) D' = true -> warp_post_p P P' x = true ->
      pmentions (VL x) Q' = false ->
      pot_ge Qn (padd (pcharge Q' (m_gread M 1) X n0 rows) (m_vwrite M + C)) = true ->
      qstmt (mkAssn P D Qn) (SAssign x (ERead A i)) (mkAssn P' D' Q')
  (* issue 15 (coqguard18): Q:GWRITEGUARD / Q:VWRITEGUARD, a global access whose active
     lanes pass the guard at index [I] of [P], charged [M^g(1)·(N₀ + Σ_j C_j·[t_j ≤ −L_u])]
     (guard_acc, gpot_ok) *)
  | Q_GWRITEGUARD : forall P D Qn Q' A i e es n0 I S terms Lu ne C1 C2,
      c_arr G A = Some (Global, es) -> qopd i C1 -> qexpr P D e ne C2 ->
      guard_acc P D i es n0 I S terms = Some Lu ->
      gpot_ok Qn Q' (m_gwrite M 1) Lu S n0 terms (C1 + C2) = true ->
      qstmt (mkAssn P D Qn) (SWrite A i e) (mkAssn P D Q')
  | Q_VWRITEGUARD : forall P D Qn P' D' Q' x A i es n0 I S terms Lu C,
      c_arr G A = Some (Global, es) -> qopd i C -> guard_acc P D i es n0 I S terms = Some Lu ->
      vw_dent P D x (ERead A i) D' = true -> warp_post_p P P' x = true ->
      pmentions (VL x) Q' = false ->
      gpot_ok Qn Q' (m_gread M 1) Lu S n0 terms (m_vwrite M + C) = true ->
      qstmt (mkAssn P D Qn) (SAssign x (ERead A i)) (mkAssn P' D' Q')
  (* issue 15 (wincoq19): Q:WHILELASTWINDOW, Q:WHILELASTALIGN's premises with the charge
     [M^div·[(b − X) mod m < b − a + 1]] for a hull [[a, b]] of the warps' split windows *)
  | Q_WHILELASTWINDOW : forall P D Qn Q' e n C s B PB BL PN I QB' QL' P' D' L k w wl X g a b m,
      cstrs_equiv B (andc P D e false) = true ->
      cstrs_equiv BL (andc P D e false ++ [last_window L w]) = true ->
      qstmt (mkAssn B D I) s (mkAssn PB D QB') ->
      qstmt (mkAssn BL D I) s (mkAssn PN D QL') ->
      qexpr P D e n C ->
      fst (cond e) = [CLe L] -> nonempty (snd (cond e)) = true ->
      lin_k D L = Some k -> spread_ok wtids k w = true ->
      cstrs_equiv PB P = true ->
      entails PN (P ++ snd (cond e)) wl = true ->
      pot_ge QB' (padd I (m_if M + C)) = true ->
      pot_ge QL' (padd I (m_if M + C)) = true ->
      lin_loc D L = Some (X, g) ->
      (g mod Zpos m =? 0)%Z = true -> hull_ok wtids k a b = true ->
      disjoint (lin_locals X) (writes s) = true ->
      pot_ge Qn (padd (paddm I (m_div M) [win_atom X b m (b - a + 1)]) (m_if M + C)) = true ->
      cstrs_equiv P' (andc P D e true) = true ->
      dcovers D D' = true -> disjoint (dvars D') (writes s) = true ->
      puni D I = true -> puni D' Q' = true -> pot_ge I Q' = true ->
      qstmt (mkAssn P D Qn) (SWhile e s) (mkAssn P' D' Q')
with qstmtF : bool -> expr -> assn -> stmt -> assn -> Prop :=
  | F_ORD : forall u e A s A', qstmt A s A' -> puni (aD A) (aQ A) = true -> pnonneg (aQ A') = true ->
      qstmtF u e A s A'
  | F_SEQ : forall u e A A1 A' s1 s2, qstmt A s1 A1 -> qstmtF u e A1 s2 A' ->
      qstmtF u e A (SSeq s1 s2) A'
  | F_IF1 : forall u f P D Qn Q e n C s1 s2 PT PF A',
      qexpr P D e n C -> unif (dunif D) e = true ->
      cstrs_equiv PT (andc P D e false) = true -> cstrs_equiv PF (andc P D e true) = true ->
      qstmtF u f (mkAssn PT D Q) s1 A' -> qstmtF u f (mkAssn PF D Q) s2 A' ->
      pot_ge Qn (padd Q (m_if M + C)) = true ->
      qstmtF u f (mkAssn P D Qn) (SIf e s1 s2) A'
  | F_IF2 : forall u f P D Qn Q e n C s1 s2 ws A',
      qexpr P D e n C -> nonempty (fst (cond e)) = true -> entails P (fst (cond e)) ws = true ->
      qstmtF u f (mkAssn P D Q) s1 A' -> pot_ge Qn (padd Q (m_if M + C)) = true ->
      qstmtF u f (mkAssn P D Qn) (SIf e s1 s2) A'
  | F_IF3 : forall u f P D Qn Q e n C s1 s2 ws A',
      qexpr P D e n C -> nonempty (snd (cond e)) = true -> entails P (snd (cond e)) ws = true ->
      qstmtF u f (mkAssn P D Q) s2 A' -> pot_ge Qn (padd Q (m_if M + C)) = true ->
      qstmtF u f (mkAssn P D Qn) (SIf e s1 s2) A'
  | F_WEAK : forall u f P D Qn P' D' Q' s NP ND NQ NP' ND' NQ' k wpre rpre wpost rpost,
      qstmtF u f (mkAssn NP ND NQ) s (mkAssn NP' ND' NQ') -> Qle_bool 0 k = true ->
      entails P NP wpre = true -> pot_ge_under P rpre Qn (padd NQ k) = true -> dcovers D ND = true ->
      entails NP' P' wpost = true -> pot_ge_under NP' rpost (padd NQ' k) Q' = true ->
      dcovers ND' D' = true ->
      qstmtF u f (mkAssn P D Qn) s (mkAssn P' D' Q')
  | Q_IFEXIT1 : forall u f P D Qn Q0 c n C s1 s2 PT P1 D1 Q1 PF P2 D2 Q2 P' D' Q' wx wjt wje,
      qexpr P D c n C -> unif (dunif D) c = true ->
      cstrs_equiv PT (andc P D c false) = true -> cstrs_equiv PF (andc P D c true) = true ->
      qstmt (mkAssn PT D Q0) s1 (mkAssn P1 D1 Q1) ->
      qstmtF u f (mkAssn PF D Q0) s2 (mkAssn P2 D2 Q2) ->
      nonempty (snd (cond f)) = true -> entails P1 (snd (cond f)) wx = true ->
      entails P1 P' wjt = true -> entails P2 P' wje = true ->
      dcovers D2 D' = true -> pot_ge Q2 Q' = true -> pnonneg Q1 = true ->
      pot_ge Qn (padd Q0 (m_if M + C)) = true ->
      qstmtF u f (mkAssn P D Qn) (SIf c s1 s2) (mkAssn P' D' Q')
  | Q_IFEXIT4 : forall u f P D Qn QT QF c n C s1 s2 PT P1 D1 Q1 PF P2 D2 Q2 P' D' Q' wx wjt wje,
      qexpr P D c n C ->
      cstrs_equiv PT (andc P D c false) = true -> cstrs_equiv PF (andc P D c true) = true ->
      qstmt (mkAssn PT D QT) s1 (mkAssn P1 D1 Q1) ->
      qstmtF u f (mkAssn PF D QF) s2 (mkAssn P2 D2 Q2) ->
      nonempty (snd (cond f)) = true -> entails P1 (snd (cond f)) wx = true ->
      entails P1 P' wjt = true -> entails P2 P' wje = true ->
      dcovers D2 D' = true -> pot_ge Q2 Q' = true ->
      puni D QT = true -> puni D QF = true ->
      pnonneg QT = true -> pnonneg QF = true -> pnonneg Q1 = true ->
      pot_ge Qn (padd (pplus QT QF) (m_if M + C + m_div M)) = true ->
      qstmtF false f (mkAssn P D Qn) (SIf c s1 s2) (mkAssn P' D' Q')
  (* ---- begin issue 15 (exits15b): writes of a bool loop guard (spec/logic.md §4a) ---- *)
  | Q_GUARD : forall u g P D Qn P1 D1 Q1 D' Q' c rg,
      qstmt (mkAssn P D Qn) (SAssign g c) (mkAssn P1 D1 Q1) ->
      c_lty G g = Some TBool ->
      pot_ge_under (P1 ++ fst (cond c)) rg Q1 Q' = true ->
      dcovers D1 D' = true -> pnonneg Q1 = true -> puni D1 Q1 = true ->
      qstmtF u (EOpd (OVar g)) (mkAssn P D Qn) (SAssign g c) (mkAssn P1 D' Q')
  | Q_GUARDEXIT : forall u g P D Qn P1 D1 Q1 P' D' Q' s wx,
      qstmt (mkAssn P D Qn) s (mkAssn P1 D1 Q1) -> falsifies g s = true ->
      entails P1 P' wx = true -> pnonneg Q1 = true ->
      qstmtF u (EOpd (OVar g)) (mkAssn P D Qn) s (mkAssn P' D' Q')
  (* ---- end issue 15 (exits15b) ---- *)
  (* issue 15 (brk15): Q:IFGUARD4, a divergent [if] whose else branch falsifies the guard *)
  | Q_IFGUARD4 : forall u g P D Qn QT QF c n C s1 s2 PT P1 D1 Q1 PF P2 D2 Q2 P' D' Q' wjt wje,
      qexpr P D c n C ->
      cstrs_equiv PT (andc P D c false) = true -> cstrs_equiv PF (andc P D c true) = true ->
      qstmtF u (EOpd (OVar g)) (mkAssn PT D QT) s1 (mkAssn P1 D1 Q1) ->
      qstmt (mkAssn PF D QF) s2 (mkAssn P2 D2 Q2) -> falsifies g s2 = true ->
      entails P1 P' wjt = true -> entails P2 P' wje = true ->
      dcovers D1 D' = true -> pot_ge Q1 Q' = true ->
      puni D QT = true -> puni D QF = true ->
      pnonneg QT = true -> pnonneg QF = true -> pnonneg Q2 = true ->
      pot_ge Qn (padd (pplus QT QF) (m_if M + C + m_div M)) = true ->
      qstmtF false (EOpd (OVar g)) (mkAssn P D Qn) (SIf c s1 s2) (mkAssn P' D' Q')
  (* issue 15 (exit16): Q:FLAGEXIT, [s1] filtered for the jump-flag test [f] (its exits set
     the flag), then [if f then s2 else s3] whose else branch falsifies the guard [g] *)
  | Q_FLAGEXIT : forall u1 u2 g f P D Qn Q0 QF s1 s2 s3 n C P1 D1 Q1 PT P2 D2 Q2 P3 D3 Q3
      P' D' Q' wjt wje,
      qstmtF u1 f (mkAssn P D Q0) s1 (mkAssn P1 D1 Q1) ->
      noread f = true -> qexpr P1 D1 f n C ->
      cstrs_equiv PT (P1 ++ fst (cond f)) = true ->
      qstmtF u2 (EOpd (OVar g)) (mkAssn PT D1 Q1) s2 (mkAssn P2 D2 Q2) ->
      qstmt (mkAssn P1 [] QF) s3 (mkAssn P3 D3 Q3) -> falsifies g s3 = true ->
      entails P2 P' wjt = true -> entails P3 P' wje = true ->
      dcovers D2 D' = true -> pot_ge Q2 Q' = true ->
      puni [] QF = true -> pnonneg QF = true -> pnonneg Q3 = true ->
      pot_ge Qn (padd (pplus Q0 QF) (m_if M + C + m_div M)) = true ->
      qstmtF false (EOpd (OVar g)) (mkAssn P D Qn) (SSeq s1 (SIf f s2 s3)) (mkAssn P' D' Q').

End Logic.

(** * The lock-step cost semantics of one warp (RaCUDA §3, Fig. 5; spec/semantics.md)

    One constructor per rule, named as in spec/semantics.md with [:] written
    [_] ([SC:IFD] is [SC_IFD]).  Integers are mathematical ([Z]): a run of
    warpcert's executable semantics (checked [i64] arithmetic) that does not
    fail is a run of this relation with the same cost.  Float operations are
    given by an arbitrary [fmodel]; every theorem holds for all of them. *)
From Coq Require Import ZArith QArith List Bool Arith Lia.
From WarpCert Require Import Metric Syntax.
Import ListNotations.

(** Operations on floats (and conversions from floats), left abstract. *)
Record fmodel := {
  f_bin : binop -> val -> val -> option val;
  f_un : unop -> val -> option val
}.

Definition cmpZ (op : binop) (a b : Z) : option bool :=
  match op with
  | OLt => Some (a <? b)%Z | OLe => Some (a <=? b)%Z | OGt => Some (b <? a)%Z
  | OGe => Some (b <=? a)%Z | OEq => Some (a =? b)%Z | ONe => Some (negb (a =? b))%Z
  | _ => None
  end.

Definition b2z (b : bool) : Z := if b then 1 else 0.

Definition bop_eval (F : fmodel) (op : binop) (v1 v2 : val) : option val :=
  match v1, v2 with
  | VInt a, VInt b =>
      match op with
      | OAdd => Some (VInt (a + b)) | OSub => Some (VInt (a - b)) | OMul => Some (VInt (a * b))
      | ODiv => if (b =? 0)%Z then None else Some (VInt (Z.quot a b))
      | OMod => if (b =? 0)%Z then None else Some (VInt (Z.rem a b))
      | OShl => if ((0 <=? b) && (b <? 64))%Z then Some (VInt (Z.shiftl a b)) else None
      | OShr => if ((0 <=? b) && (b <? 64))%Z then Some (VInt (Z.shiftr a b)) else None
      | OAnd => Some (VInt (Z.land a b)) | OOr => Some (VInt (Z.lor a b))
      | OXor => Some (VInt (Z.lxor a b))
      | OMin => Some (VInt (Z.min a b)) | OMax => Some (VInt (Z.max a b))
      | OLand | OLor => None
      | _ => option_map VBool (cmpZ op a b)
      end
  | VBool a, VBool b =>
      match op with
      | OLand | OAnd => Some (VBool (a && b)) | OLor | OOr => Some (VBool (a || b))
      | OXor => Some (VBool (xorb a b))
      | OMin => Some (VBool (a && b)) | OMax => Some (VBool (a || b))
      | _ => option_map VBool (cmpZ op (b2z a) (b2z b))
      end
  | VFloat _, VFloat _ => f_bin F op v1 v2
  | _, _ => None
  end.

(** [popc a]: the 1 bits of [a mod 2^64]; [ffs a]: 1 + the index of its lowest 1 bit, 0
    when there is none ([Z.testbit] reads the two's complement, so the low 64 bits of a
    negative [a] are those of [a mod 2^64]; spec/semantics.md, EC:UOP). *)
Fixpoint popc_bits (n : nat) (a : Z) : Z :=
  match n with
  | O => 0
  | S k => (if Z.testbit a (Z.of_nat k) then 1 else 0) + popc_bits k a
  end.
Fixpoint ffs_bits (n : nat) (i a : Z) : Z :=
  match n with
  | O => 0
  | S k => if Z.testbit a i then i + 1 else ffs_bits k (i + 1) a
  end.
Definition popc64 (a : Z) : Z := popc_bits 64 a.
Definition ffs64 (a : Z) : Z := ffs_bits 64 0 a.

Definition uop_eval (F : fmodel) (op : unop) (v : val) : option val :=
  match op, v with
  | UNeg, VInt a => Some (VInt (- a))
  | UNot, VBool b => Some (VBool (negb b))
  | UBitnot, VInt a => Some (VInt (Z.lnot a))
  | UPopc, VInt a => Some (VInt (popc64 a))
  | UFfs, VInt a => Some (VInt (ffs64 a))
  | UToInt, VInt a => Some (VInt a)
  | UToInt, VBool b => Some (VInt (b2z b))
  | UToBool, VInt a => Some (VBool (negb (a =? 0)%Z))
  | UToBool, VBool b => Some (VBool b)
  | UToFloat, VFloat _ => Some v
  | _, VFloat _ => f_un F op v
  | UToFloat, _ => f_un F op v
  | _, _ => None
  end.

(** Stores: one value per local and thread; arrays map integer indices to values. *)
Record store := { sl : nat -> nat -> val; sa : nat -> Z -> val }.

(** Result families [R = (R(t))_{t ∈ 𝒯}], given as total functions. *)
Definition fam := nat -> val.

(** [MemReads(R)]: distinct sectors of the element indices of the active threads. *)
Definition memreads (G : ctx) (es : Z) (T : list nat) (R : fam) : Z :=
  Z.of_nat (length (nodup Z.eq_dec
    (map (fun t => (int_of (R t) * es) / c_sector_bytes G)%Z T))).

(** [Conflicts(R)]: distinct indices in the fullest bank. *)
Definition bank (G : ctx) (es i : Z) : Z := ((i * es) / c_bank_bytes G) mod c_banks G.
Definition conflicts_of (G : ctx) (es : Z) (T : list nat) (R : fam) : Z :=
  let idx := nodup Z.eq_dec (map (fun t => int_of (R t)) T) in
  fold_right Z.max 0%Z
    (map (fun j => Z.of_nat (length (filter (fun i => bank G es i =? j)%Z idx)))
         (map (bank G es) idx)).

(** ** Warp operations (spec/semantics.md §3, SC:SHFL and SC:VOTE)

    [shfl_src W w k t a]: the thread thread [t] reads in a shuffle of mode [k] with
    lane argument [a] in segments of [w] lanes of a warp of [W] lanes, [None] outside the
    reader's segment (PTX [shfl.sync]).  [shfl_fam]: the reader gets the source's value if
    the source is active, else its own.  [vote_val]: the ballot (sum of [2^(t mod W)]
    over the threads whose predicate holds), any, all. *)
Definition shfl_src (W w : Z) (k : shflk) (t : nat) (a : Z) : option nat :=
  let zt := Z.of_nat t in
  let lane := (zt mod W)%Z in
  let b := (a mod W)%Z in
  let seg := (lane - lane mod w)%Z in
  let j := match k with
           | KIdx => (seg + a mod w)%Z | KUp => (lane - b)%Z
           | KDown => (lane + b)%Z | KXor => Z.lxor lane b
           end in
  let ok := match k with KUp => (seg <=? j)%Z | _ => (j <? seg + w)%Z end in
  if ok && (0 <? w)%Z && (0 <=? j)%Z && (j <? W)%Z then Some (Z.to_nat (zt - lane + j)) else None.

Definition memb (t : nat) (T : list nat) : bool := existsb (Nat.eqb t) T.

Definition shfl_fam (W : Z) (k : shflk) (w : nat) (V L : nat -> val) (T : list nat) : nat -> val :=
  fun t => match shfl_src W (Z.of_nat w) k t (int_of (L t)) with
           | Some j => if memb j T then V j else V t
           | None => V t
           end.

Definition vtrue (v : val) : bool := match v with VBool true => true | _ => false end.

Definition vote_val (W : Z) (k : votek) (P : nat -> val) (T : list nat) : val :=
  match k with
  | KBallot => VInt (fold_right Z.add 0%Z
                       (map (fun t => if vtrue (P t) then (2 ^ (Z.of_nat t mod W))%Z else 0%Z) T))
  | KAny => VInt (if existsb (fun t => vtrue (P t)) T then 1%Z else 0%Z)
  | KAll => VInt (if forallb (fun t => vtrue (P t)) T then 1%Z else 0%Z)
  end.

Lemma vote_val_ext : forall W k P1 P2 T, (forall t, P1 t = P2 t) ->
  vote_val W k P1 T = vote_val W k P2 T.
Proof.
  intros W k P1 P2 T H.
  assert (Ex : existsb (fun t => vtrue (P1 t)) T = existsb (fun t => vtrue (P2 t)) T)
    by (induction T as [|a T IH]; simpl; [reflexivity|rewrite H, IH; reflexivity]).
  assert (Fa : forallb (fun t => vtrue (P1 t)) T = forallb (fun t => vtrue (P2 t)) T)
    by (clear Ex; induction T as [|a T IH]; simpl; [reflexivity|rewrite H, IH; reflexivity]).
  clear -H Ex Fa.
  assert (Ba : map (fun t => if vtrue (P1 t) then (2 ^ (Z.of_nat t mod W))%Z else 0%Z) T =
               map (fun t => if vtrue (P2 t) then (2 ^ (Z.of_nat t mod W))%Z else 0%Z) T)
    by (apply map_ext; intros t; rewrite H; reflexivity).
  destruct k; unfold vote_val; rewrite ?Ex, ?Fa, ?Ba; reflexivity.
Qed.

Lemma shfl_fam_ext : forall W k w V1 V2 L1 L2 T, (forall t, V1 t = V2 t) ->
  (forall t, L1 t = L2 t) -> forall t, shfl_fam W k w V1 L1 T t = shfl_fam W k w V2 L2 T t.
Proof.
  intros W k w V1 V2 L1 L2 T HV HL t. unfold shfl_fam. rewrite HL.
  destruct (shfl_src _ _ _ _ _); [destruct (memb _ _)|]; apply HV.
Qed.

Section Sem.
Variable G : ctx.
Variable F : fmodel.
Variable ps : nat -> val.   (** parameter values (warp-uniform, read-only) *)
Let M := c_metric G.

Definition oval (s : store) (o : opd) (t : nat) : val :=
  match o with
  | OVar x => sl s x t | OParam p => ps p | OConst v => v | OTid d => VInt (tid G d t)
  end.

Inductive oeval : store -> opd -> list nat -> Q -> Prop :=
  | OC_VAR : forall s x T, oeval s (OVar x) T (m_var M)
  | OC_CONST : forall s v T, oeval s (OConst v) T (m_const M)
  | OC_PARAM : forall s p T, oeval s (OParam p) T (m_param M)
  | OC_TID : forall s d T, oeval s (OTid d) T (m_var M).

(** [eeval s e T R C]: [σ; e ⇓^𝒯 R; C] ([R] is only meaningful on [T]).
    [EC_OPD] is the coercion "a plain operand used as an expression is judged
    by its OC rule". *)
Inductive eeval : store -> expr -> list nat -> fam -> Q -> Prop :=
  | EC_OPD : forall s o T C, oeval s o T C -> eeval s (EOpd o) T (oval s o) C
  | EC_OP : forall s op a b T C1 C2 (R : fam),
      oeval s a T C1 -> oeval s b T C2 ->
      (forall t, In t T -> bop_eval F op (oval s a t) (oval s b t) = Some (R t)) ->
      eeval s (EBin op a b) T R (C1 + C2 + m_op M)
  | EC_UOP : forall s op a T C (R : fam),
      oeval s a T C ->
      (forall t, In t T -> uop_eval F op (oval s a t) = Some (R t)) ->
      eeval s (EUn op a) T R (C + m_op M)
  | EC_GARR : forall s A i T C es,
      c_arr G A = Some (Global, es) -> oeval s i T C ->
      (forall t, In t T -> has_type (oval s i t) TInt = true) ->
      eeval s (ERead A i) T (fun t => sa s A (int_of (oval s i t)))
            (C + m_gread M (memreads G es T (oval s i)))
  | EC_SARR : forall s A i T C es,
      c_arr G A = Some (Shared, es) -> oeval s i T C ->
      (forall t, In t T -> has_type (oval s i t) TInt = true) ->
      eeval s (ERead A i) T (fun t => sa s A (int_of (oval s i t)))
            (C + m_sread M (conflicts_of G es T (oval s i)))
  | EC_LARR : forall s A i T C es,
      c_arr G A = Some (Local, es) -> oeval s i T C ->
      (forall t, In t T -> has_type (oval s i t) TInt = true) ->
      eeval s (ERead A i) T (fun t => sa s A (int_of (oval s i t))) (C + m_var M).

Definition set_local (s : store) (x : nat) (T : list nat) (R : fam) : store :=
  {| sl := fun y t => if (y =? x) && memb t T then R t else sl s y t; sa := sa s |}.

(** The array write: cell [i] gets the value of the first active thread writing it. *)
Definition set_array (s : store) (A : nat) (T : list nat) (I : fam) (R : fam) : store :=
  {| sl := sl s;
     sa := fun B i =>
       if B =? A then
         match find (fun t => Z.eqb (int_of (I t)) i) T with
         | Some t => R t | None => sa s B i end
       else sa s B i |}.

Definition no_race (T : list nat) (I R : fam) : Prop :=
  forall t1 t2, In t1 T -> In t2 T -> int_of (I t1) = int_of (I t2) -> R t1 = R t2.

Definition is_true_v (v : val) : bool := match v with VBool true => true | _ => false end.
Definition is_false_v (v : val) : bool := match v with VBool false => true | _ => false end.
Definition is_bool_v (v : val) : bool := match v with VBool _ => true | _ => false end.

Inductive seval : store -> stmt -> list nat -> store -> Q -> Prop :=
  | SC_SKIP : forall s T, seval s SSkip T s 0
  | SC_SEQ : forall s s1 s2 T st1 st2 C1 C2,
      seval s s1 T st1 C1 -> seval st1 s2 T st2 C2 -> seval s (SSeq s1 s2) T st2 (C1 + C2)
  | SC_VWRITE : forall s x e T R C ty,
      eeval s e T R C -> c_lty G x = Some ty ->
      (forall t, In t T -> has_type (R t) ty = true) ->
      seval s (SAssign x e) T (set_local s x T R) (C + m_vwrite M)
  | SC_GWRITE : forall s A i e T C1 C2 R es,
      c_arr G A = Some (Global, es) -> oeval s i T C1 -> eeval s e T R C2 ->
      (forall t, In t T -> has_type (oval s i t) TInt = true) -> no_race T (oval s i) R ->
      seval s (SWrite A i e) T (set_array s A T (oval s i) R)
            (C1 + C2 + m_gwrite M (memreads G es T (oval s i)))
  | SC_SWRITE : forall s A i e T C1 C2 R es,
      c_arr G A = Some (Shared, es) -> oeval s i T C1 -> eeval s e T R C2 ->
      (forall t, In t T -> has_type (oval s i t) TInt = true) -> no_race T (oval s i) R ->
      seval s (SWrite A i e) T (set_array s A T (oval s i) R)
            (C1 + C2 + m_swrite M (conflicts_of G es T (oval s i)))
  | SC_LWRITE : forall s A i e T C1 C2 R es,
      c_arr G A = Some (Local, es) -> oeval s i T C1 -> eeval s e T R C2 ->
      (forall t, In t T -> has_type (oval s i t) TInt = true) -> no_race T (oval s i) R ->
      seval s (SWrite A i e) T (set_array s A T (oval s i) R) (C1 + C2 + m_vwrite M)
  | SC_IFT : forall s e s1 s2 T R C1 st1 C2,
      eeval s e T R C1 -> (forall t, In t T -> is_true_v (R t) = true) ->
      seval s s1 T st1 C2 -> seval s (SIf e s1 s2) T st1 (C1 + m_if M + C2)
  | SC_IFF : forall s e s1 s2 T R C1 st1 C2,
      eeval s e T R C1 -> (forall t, In t T -> is_false_v (R t) = true) ->
      seval s s2 T st1 C2 -> seval s (SIf e s1 s2) T st1 (C1 + m_if M + C2)
  | SC_IFD : forall s e s1 s2 T R C1 st1 st2 C2 C3,
      eeval s e T R C1 -> (forall t, In t T -> is_bool_v (R t) = true) ->
      filter (fun t => is_true_v (R t)) T <> [] ->
      filter (fun t => is_false_v (R t)) T <> [] ->
      seval s s1 (filter (fun t => is_true_v (R t)) T) st1 C2 ->
      seval st1 s2 (filter (fun t => is_false_v (R t)) T) st2 C3 ->
      seval s (SIf e s1 s2) T st2 (C1 + m_if M + C2 + C3 + m_div M)
  | SC_WHILEALL : forall s e b T R C1 st1 C2 st2 C3,
      eeval s e T R C1 -> (forall t, In t T -> is_true_v (R t) = true) ->
      seval s b T st1 C2 -> seval st1 (SWhile e b) T st2 C3 ->
      seval s (SWhile e b) T st2 (C1 + C2 + m_if M + C3)
  | SC_WHILESOME : forall s e b T R C1 st1 C2 st2 C3,
      eeval s e T R C1 -> (forall t, In t T -> is_bool_v (R t) = true) ->
      filter (fun t => is_true_v (R t)) T <> [] ->
      filter (fun t => is_false_v (R t)) T <> [] ->
      seval s b (filter (fun t => is_true_v (R t)) T) st1 C2 ->
      seval st1 (SWhile e b) (filter (fun t => is_true_v (R t)) T) st2 C3 ->
      seval s (SWhile e b) T st2 (C1 + C2 + m_if M + m_div M + C3)
  | SC_WHILENONE : forall s e b T R C,
      eeval s e T R C -> (forall t, In t T -> is_false_v (R t) = true) ->
      seval s (SWhile e b) T s (C + m_if M)
  | SC_SYNC : forall s T, seval s SSync T s (m_sync M)
  | SC_SHFL : forall s x k w v l T C1 C2 ty,
      oeval s v T C1 -> oeval s l T C2 -> c_lty G x = Some ty ->
      (forall t, In t T -> has_type (oval s v t) ty = true) ->
      (forall t, In t T -> has_type (oval s l t) TInt = true) ->
      seval s (SWarp x (WShfl k w v l)) T
            (set_local s x T (shfl_fam (Z.of_nat (c_warp G)) k w (oval s v) (oval s l) T))
            (C1 + C2 + m_op M + m_vwrite M)
  | SC_VOTE : forall s x k p T C,
      oeval s p T C -> c_lty G x = Some TInt ->
      (forall t, In t T -> is_bool_v (oval s p t) = true) ->
      seval s (SWarp x (WVote k p)) T
            (set_local s x T (fun _ => vote_val (Z.of_nat (c_warp G)) k (oval s p) T))
            (C + m_op M + m_vwrite M).

End Sem.

(** The initial store of a warp: every local at its type's default, arrays given. *)
Definition init_store (G : ctx) (arrays : nat -> Z -> val) : store :=
  {| sl := fun x _ => match c_lty G x with Some t => default_val t | None => VInt 0 end;
     sa := arrays |}.

(** * A concrete float model: IEEE-754 binary64, as in warpcert's executable semantics

    Every theorem of the theories holds for all float models ([Semantics.fmodel]).  To
    run a program under [Exec.exec] one model must be chosen; [f64] below is the one of
    warpcert's executable semantics ([src/semantics/value.rs], Rust's [f64]): values
    are bit patterns ([VFloat z], [z] the pattern read as a signed 64-bit integer, as the
    exporter prints constants), the arithmetic is [SpecFloat]'s ([Coq.Floats.SpecFloat]:
    plain definitions, round to nearest even, no primitive floats and no axioms) at
    precision 53 and maximal exponent 1024.

    As Rust: [+ − * /] are IEEE operations; [%] is C's [fmod] (exact, the sign of the
    dividend); comparisons are false on NaN ([!=] true); [min]/[max] return the other
    operand when one is NaN; negation flips the sign bit; [(int) x] truncates toward
    zero and fails outside [[−2^63, 2^63)] or on NaN; [(float) n] rounds to nearest even;
    [(bool) x] is [x != 0.0].  Differences, all in NaN payloads (no cost depends on
    them): an operation producing NaN gives the quiet NaN [0x7ff8000000000000] (x86 gives
    [0xfff8000000000000] for [0.0 / 0.0]); [min]/[max] of [+0.0] and [−0.0] return the
    first operand. *)
From Coq Require Import ZArith Bool.
From Coq Require Import Floats.SpecFloat.
From WarpCert Require Import Syntax Semantics.
Open Scope Z_scope.

Definition prec : Z := 53.
Definition emax : Z := 1024.

(** Decoding a bit pattern (read modulo [2^64]). *)
Definition of_bits (b : Z) : spec_float :=
  let u := b mod 2 ^ 64 in
  let s := 2 ^ 63 <=? u in
  let e := (u / 2 ^ 52) mod 2 ^ 11 in
  let m := u mod 2 ^ 52 in
  if e =? 2047 then (if m =? 0 then S754_infinity s else S754_nan)
  else if e =? 0 then (if m =? 0 then S754_zero s else S754_finite s (Z.to_pos m) (-1074))
  else S754_finite s (Z.to_pos (m + 2 ^ 52)) (e - 1075).

(** Encoding as a signed 64-bit pattern (Rust's [x.to_bits() as i64]). *)
Definition to_bits (f : spec_float) : Z :=
  let sgn (s : bool) := if s then - 2 ^ 63 else 0 in
  match f with
  | S754_zero s => sgn s
  | S754_infinity s => sgn s + 2047 * 2 ^ 52
  | S754_nan => 2047 * 2 ^ 52 + 2 ^ 51
  | S754_finite s m e =>
      if Zpos m <? 2 ^ 52 then sgn s + Zpos m
      else sgn s + (e + 1075) * 2 ^ 52 + (Zpos m - 2 ^ 52)
  end.

Definition is_nan (f : spec_float) : bool :=
  match f with S754_nan => true | _ => false end.

(** C's [fmod]: [x − trunc(x / y)·y], exact. *)
Definition fmod (x y : spec_float) : spec_float :=
  match x, y with
  | S754_nan, _ | _, S754_nan | S754_infinity _, _ | _, S754_zero _ => S754_nan
  | S754_zero s, _ => S754_zero s
  | S754_finite _ _ _, S754_infinity _ => x
  | S754_finite sx mx ex, S754_finite _ my ey =>
      let e := Z.min ex ey in
      let r := Z.rem (Zpos mx * 2 ^ (ex - e)) (Zpos my * 2 ^ (ey - e)) in
      if r =? 0 then S754_zero sx
      else binary_normalize prec emax (if sx then - r else r) e sx
  end.

(** Truncation toward zero, inside [[−2^63, 2^63)]. *)
Definition ftrunc (f : spec_float) : option Z :=
  match f with
  | S754_zero _ => Some 0
  | S754_finite s m e =>
      let v := if 0 <=? e then Zpos m * 2 ^ e else Zpos m / 2 ^ (- e) in
      let v := if s then - v else v in
      if (- 2 ^ 63 <=? v) && (v <? 2 ^ 63) then Some v else None
  | _ => None
  end.

Definition fl (f : spec_float) : option val := Some (VFloat (to_bits f)).

Definition f64_bin (op : binop) (a b : val) : option val :=
  match a, b with
  | VFloat x, VFloat y =>
      let fx := of_bits x in
      let fy := of_bits y in
      match op with
      | OAdd => fl (SFadd prec emax fx fy)
      | OSub => fl (SFsub prec emax fx fy)
      | OMul => fl (SFmul prec emax fx fy)
      | ODiv => fl (SFdiv prec emax fx fy)
      | OMod => fl (fmod fx fy)
      | OLt => Some (VBool (SFltb fx fy))
      | OLe => Some (VBool (SFleb fx fy))
      | OGt => Some (VBool (SFltb fy fx))
      | OGe => Some (VBool (SFleb fy fx))
      | OEq => Some (VBool (SFeqb fx fy))
      | ONe => Some (VBool (negb (SFeqb fx fy)))
      | OMin => Some (VFloat (if is_nan fx then y else if is_nan fy then x
                              else if SFltb fy fx then y else x))
      | OMax => Some (VFloat (if is_nan fx then y else if is_nan fy then x
                              else if SFltb fx fy then y else x))
      | _ => None
      end
  | _, _ => None
  end.

Definition f64_un (op : unop) (a : val) : option val :=
  match op, a with
  | UNeg, VFloat x => Some (VFloat (if x <? 0 then x + 2 ^ 63 else x - 2 ^ 63))
  | UToInt, VFloat x => option_map VInt (ftrunc (of_bits x))
  | UToBool, VFloat x => Some (VBool (negb (SFeqb (of_bits x) (S754_zero false))))
  | UToFloat, VInt n => fl (binary_normalize prec emax n 0 false)
  | UToFloat, VBool b => fl (binary_normalize prec emax (b2z b) 0 false)
  | _, _ => None
  end.

Definition f64 : fmodel := {| f_bin := f64_bin; f_un := f64_un |}.

(** Sanity checks of the encoding, by computation. *)
Example f64_one_plus_half :
  f64_bin OAdd (VFloat 4607182418800017408) (VFloat 4602678819172646912)
  = Some (VFloat 4609434218613702656).            (* 1.0 + 0.5 = 1.5 *)
Proof. vm_compute. reflexivity. Qed.

Example f64_neg_one :
  f64_un UToFloat (VInt (-1)) = Some (VFloat (-4616189618054758400)).   (* -1.0 *)
Proof. vm_compute. reflexivity. Qed.

Example f64_trunc :
  f64_un UToInt (VFloat (-4610560118520545280)) = Some (VInt (-2)).     (* (int) -2.5 *)
Proof. vm_compute. reflexivity. Qed.

(** * Resource metrics (RaCUDA §3, Table 1; warpcert spec/metrics.md)

    A metric gives a rational cost to each resource constant.  The four access
    costs take the access count [n] ([MemReads] or [Conflicts]).  The record
    carries the metric assumptions of RaCUDA as fields (non-negativity of the
    constant costs and monotonicity of the access costs) and the non-negativity of
    an access of count 1 (with monotonicity: of every access of a non-empty thread
    set, so that every run's cost is non-negative, Lower.v's [seval_nonneg], which the
    lower rule L:IFD uses): they are hypotheses discharged once per concrete metric
    below, never axioms. *)
From Coq Require Import ZArith QArith Lqa Lia.
Open Scope Q_scope.

Record metric := {
  m_var : Q; m_const : Q; m_param : Q; m_op : Q;
  m_if : Q; m_div : Q; m_vwrite : Q; m_sync : Q;
  m_gread : Z -> Q; m_sread : Z -> Q; m_gwrite : Z -> Q; m_swrite : Z -> Q;
  m_nonneg : 0 <= m_var /\ 0 <= m_const /\ 0 <= m_param /\ 0 <= m_op /\
             0 <= m_if /\ 0 <= m_div /\ 0 <= m_vwrite /\ 0 <= m_sync;
  m_mono : forall n1 n2 : Z, (n1 <= n2)%Z ->
             m_gread n1 <= m_gread n2 /\ m_sread n1 <= m_sread n2 /\
             m_gwrite n1 <= m_gwrite n2 /\ m_swrite n1 <= m_swrite n2;
  m_acc1 : 0 <= m_gread 1 /\ 0 <= m_sread 1 /\ 0 <= m_gwrite 1 /\ 0 <= m_swrite 1;
  (* the global access costs are linear in the count (the row rules Q:GWRITEROWS /
     Q:VWRITEROWS charge [M^g(1)] times a potential, spec/logic.md §4 "Rows") *)
  m_glin : forall n : Z, m_gread n == m_gread 1 * inject_Z n /\ m_gwrite n == m_gwrite 1 * inject_Z n
}.

Lemma inject_Z_mono : forall a b : Z, (a <= b)%Z -> inject_Z a <= inject_Z b.
Proof. intros a b H. unfold Qle; simpl; lia. Qed.

Local Ltac nonneg := repeat split; unfold Qle; simpl; lia.

(** [sectors]: global-memory sectors read or written. *)
Definition sectors : metric.
Proof.
  refine {| m_var := 0; m_const := 0; m_param := 0; m_op := 0; m_if := 0; m_div := 0;
            m_vwrite := 0; m_sync := 0;
            m_gread := fun n => inject_Z n; m_sread := fun _ => 0;
            m_gwrite := fun n => inject_Z n; m_swrite := fun _ => 0 |}.
  - nonneg.
  - intros n1 n2 H; cbn; repeat split; try (apply inject_Z_mono; lia); lra.
  - nonneg.
  - intros n; cbn; split; ring.
Defined.

(** [conflicts]: shared-memory bank conflicts, [n - 1] per shared access. *)
Definition conflicts : metric.
Proof.
  refine {| m_var := 0; m_const := 0; m_param := 0; m_op := 0; m_if := 0; m_div := 0;
            m_vwrite := 0; m_sync := 0;
            m_gread := fun _ => 0; m_sread := fun n => inject_Z (n - 1);
            m_gwrite := fun _ => 0; m_swrite := fun n => inject_Z (n - 1) |}.
  - nonneg.
  - intros n1 n2 H; cbn; repeat split; try (apply inject_Z_mono; lia); lra.
  - nonneg.
  - intros n; cbn; split; ring.
Defined.

(** [divwarps]: divergent warps, one per [M^div]. *)
Definition divwarps : metric.
Proof.
  refine {| m_var := 0; m_const := 0; m_param := 0; m_op := 0; m_if := 0; m_div := 1;
            m_vwrite := 0; m_sync := 0;
            m_gread := fun _ => 0; m_sread := fun _ => 0;
            m_gwrite := fun _ => 0; m_swrite := fun _ => 0 |}.
  - nonneg.
  - intros n1 n2 H; cbn; repeat split; lra.
  - nonneg.
  - intros n; cbn; split; ring.
Defined.

(** [steps]: evaluation steps; an access costs its [n] (spec/metrics.md, typo #1). *)
Definition steps : metric.
Proof.
  refine {| m_var := 1; m_const := 1; m_param := 1; m_op := 1; m_if := 1; m_div := 1;
            m_vwrite := 1; m_sync := 1;
            m_gread := fun n => inject_Z n; m_sread := fun n => inject_Z n;
            m_gwrite := fun n => inject_Z n; m_swrite := fun n => inject_Z n |}.
  - nonneg.
  - intros n1 n2 H; cbn; repeat split; apply inject_Z_mono; auto.
  - nonneg.
  - intros n; cbn; split; ring.
Defined.

(** * The lane-count cap (spec/logic.md §4a, Q:WHILEGUARDCAP / Q:WHILEEXITCAP), part (1)

    The runs of the lock-step semantics do not depend on the metric's [m_div]: a run under
    the context [G] is a run under [ctx_nodiv G] (the same context with [m_div := 0]) with
    the same final store, and its cost is the [ctx_nodiv G] cost plus [m_div] times a
    non-negative count (its splits, SC:IFD and SC:WHILESOME). This is step (1) of the
    rules' soundness argument; step (2), the bound on the number of splits of a capped
    loop, is not formalized yet, so the two rules have no constructor (tests/coq_export.rs
    [NOT_IN_COQ]). *)
From Coq Require Import ZArith QArith Lqa Lia List.
From WarpCert Require Import Metric Syntax Semantics.
Open Scope Q_scope.

(** [M] with [m_div := 0]. *)
Definition nodiv (M : metric) : metric.
Proof.
  refine {| m_var := m_var M; m_const := m_const M; m_param := m_param M; m_op := m_op M;
            m_if := m_if M; m_div := 0; m_vwrite := m_vwrite M; m_sync := m_sync M;
            m_gread := m_gread M; m_sread := m_sread M;
            m_gwrite := m_gwrite M; m_swrite := m_swrite M |}.
  - destruct (m_nonneg M) as (?&?&?&?&?&?&?&?). repeat split; auto; lra.
  - exact (m_mono M).
  - exact (m_acc1 M).
  - exact (m_glin M).
Defined.

(** [G] with its metric's [m_div := 0]. *)
Definition ctx_nodiv (G : ctx) : ctx :=
  {| c_metric := nodiv (c_metric G); c_warp := c_warp G; c_banks := c_banks G;
     c_bank_bytes := c_bank_bytes G; c_sector_bytes := c_sector_bytes G;
     c_bx := c_bx G; c_by := c_by G; c_bz := c_bz G;
     c_lty := c_lty G; c_pty := c_pty G; c_arr := c_arr G; c_blockidx := c_blockidx G;
     c_griddim := c_griddim G; c_bgrid := c_bgrid G; c_wu := c_wu G |}.

Lemma oeval_nodiv : forall G s o T C, oeval G s o T C -> oeval (ctx_nodiv G) s o T C.
Proof.
  intros G s o T C H; destruct H.
  - exact (OC_VAR (ctx_nodiv G) s x T).
  - exact (OC_CONST (ctx_nodiv G) s v T).
  - exact (OC_PARAM (ctx_nodiv G) s p T).
  - exact (OC_TID (ctx_nodiv G) s d T).
Qed.

Lemma eeval_nodiv : forall G F ps s e T R C,
  eeval G F ps s e T R C -> eeval (ctx_nodiv G) F ps s e T R C.
Proof.
  intros G F ps s e T R C H; destruct H.
  - apply (EC_OPD (ctx_nodiv G)); apply oeval_nodiv; auto.
  - eapply (EC_OP (ctx_nodiv G)); eauto using oeval_nodiv.
  - eapply (EC_UOP (ctx_nodiv G)); eauto using oeval_nodiv.
  - eapply (EC_GARR (ctx_nodiv G)); eauto using oeval_nodiv.
  - eapply (EC_SARR (ctx_nodiv G)); eauto using oeval_nodiv.
  - eapply (EC_LARR (ctx_nodiv G)); eauto using oeval_nodiv.
Qed.

(** Step (1): the cost under [G] is the cost under [ctx_nodiv G] plus [m_div] times a
    non-negative count, with the same final store. *)
Ltac nd := cbn [ctx_nodiv nodiv c_metric m_var m_const m_param m_op m_if m_div m_vwrite
                 m_sync m_gread m_sread m_gwrite m_swrite].

Theorem seval_nodiv : forall G F ps s st T s' C,
  seval G F ps s st T s' C ->
  exists C' d, seval (ctx_nodiv G) F ps s st T s' C' /\
               C == C' + m_div (c_metric G) * d /\ 0 <= d.
Proof.
  intros G F ps s st T s' C H.
  induction H.
  - exists 0, 0. split; [constructor | split; [ring | lra]].
  - destruct IHseval1 as (A & x & Ha & Ea & Pa); destruct IHseval2 as (B & y & Hb & Eb & Pb).
    exists (A + B), (x + y). split; [eapply SC_SEQ; eauto | split; [rewrite Ea, Eb; ring | lra]].
  - eexists _, 0. split; [eapply SC_VWRITE; eauto using eeval_nodiv | split; [nd; ring | lra]].
  - change (oval G ps s i) with (oval (ctx_nodiv G) ps s i).
    eexists _, 0. split.
    + eapply SC_GWRITE; [exact H | exact (oeval_nodiv _ _ _ _ _ H0)
                   | exact (eeval_nodiv _ _ _ _ _ _ _ _ H1) | exact H2 | exact H3].
    + split; [nd; change (memreads (ctx_nodiv G)) with (memreads G); change (oval (ctx_nodiv G)) with (oval G); ring | lra].
  - change (oval G ps s i) with (oval (ctx_nodiv G) ps s i).
    eexists _, 0. split.
    + eapply SC_SWRITE; [exact H | exact (oeval_nodiv _ _ _ _ _ H0)
                   | exact (eeval_nodiv _ _ _ _ _ _ _ _ H1) | exact H2 | exact H3].
    + split; [nd; change (conflicts_of (ctx_nodiv G)) with (conflicts_of G); change (oval (ctx_nodiv G)) with (oval G); ring | lra].
  - change (oval G ps s i) with (oval (ctx_nodiv G) ps s i).
    eexists _, 0. split.
    + eapply SC_LWRITE; [exact H | exact (oeval_nodiv _ _ _ _ _ H0)
                   | exact (eeval_nodiv _ _ _ _ _ _ _ _ H1) | exact H2 | exact H3].
    + split; [nd; change (oval (ctx_nodiv G)) with (oval G); ring | lra].
  - destruct IHseval as (B & y & Hb & Eb & Pb). eexists _, y.
    split; [eapply SC_IFT; eauto using eeval_nodiv | split; [nd; rewrite Eb; ring | lra]].
  - destruct IHseval as (B & y & Hb & Eb & Pb). eexists _, y.
    split; [eapply SC_IFF; eauto using eeval_nodiv | split; [nd; rewrite Eb; ring | lra]].
  - destruct IHseval1 as (A & x & Ha & Ea & Pa); destruct IHseval2 as (B & y & Hb & Eb & Pb).
    eexists _, (x + y + 1).
    split; [eapply SC_IFD; eauto using eeval_nodiv | split; [nd; rewrite Ea, Eb; ring | lra]].
  - destruct IHseval1 as (A & x & Ha & Ea & Pa); destruct IHseval2 as (B & y & Hb & Eb & Pb).
    eexists _, (x + y).
    split; [eapply SC_WHILEALL; eauto using eeval_nodiv | split; [nd; rewrite Ea, Eb; ring | lra]].
  - destruct IHseval1 as (A & x & Ha & Ea & Pa); destruct IHseval2 as (B & y & Hb & Eb & Pb).
    eexists _, (x + y + 1).
    split; [eapply SC_WHILESOME; eauto using eeval_nodiv | split; [nd; rewrite Ea, Eb; ring | lra]].
  - eexists _, 0. split; [eapply SC_WHILENONE; eauto using eeval_nodiv | split; [nd; ring | lra]].
  - eexists _, 0. split; [eapply SC_SYNC | split; [nd; ring | lra]].
  - change (c_warp G) with (c_warp (ctx_nodiv G)).
    change (oval G ps s v) with (oval (ctx_nodiv G) ps s v).
    change (oval G ps s l) with (oval (ctx_nodiv G) ps s l).
    eexists _, 0. split.
    + eapply SC_SHFL; [exact (oeval_nodiv _ _ _ _ _ H) | exact (oeval_nodiv _ _ _ _ _ H0)
                       | exact H1 | exact H2 | exact H3].
    + split; [nd; ring | lra].
  - change (c_warp G) with (c_warp (ctx_nodiv G)).
    change (oval G ps s p) with (oval (ctx_nodiv G) ps s p).
    eexists _, 0. split.
    + eapply SC_VOTE; [exact (oeval_nodiv _ _ _ _ _ H) | exact H0 | exact H1].
    + split; [nd; ring | lra].
Qed.

(** * Row charges (spec/logic.md §4 "Rows": Q:GWRITEROWS / Q:VWRITEROWS, issue 15)

    The row theory lives with the rest of the logic, so that the soundness theorem covers
    the row rules:
    - Logic.v: the row multiplier of scaled entries ([DScl … (Some (p, a, b))], its
      candidates [row_cands]), the enumeration [row_f] of the kernel's
      [access::row_table], the side condition [rows_ok_w], the charge [rcharge] and its
      potential [pcharge], the access check [rows_acc], and the constructors
      [Q_GWRITEROWS] / [Q_VWRITEROWS];
    - Soundness.v: [rows_mem], [rows_sound] (MemReads ≤ [N₀ + Σ_j C_j·[M_j ∤ U]], at
      least 1, for every integer [U]), [rows_acc_sound] ([U] is the value of the row
      multiplier) and the cases [sound_Q_GWRITEROWS] / [sound_Q_VWRITEROWS];
    - Check.v: the nodes [DWriteRows] / [DVwriteRows].
    This file keeps the name [WarpCert.Rows] for the files that import it
    (tests/coq_rows.rs). *)
From WarpCert Require Export Logic Soundness.

#!/usr/bin/env sh
# Compiles the Coq theories in dependency order (the same order as _CoqProject).
# Usage: coq-export/build.sh   (from anywhere; needs coqc, e.g. Debian's `coq` 8.16)
set -eu
cd "$(dirname "$0")"
for f in Metric Syntax Semantics Exec Float64 Lin Shift Floor Log Guard Logic IntRw Soundness Stride Rows Check Refute Lower Split LowerCheck Cap CapSound CapSound2 CapCheck; do
  coqc -Q theories WarpCert "theories/$f.v"
done

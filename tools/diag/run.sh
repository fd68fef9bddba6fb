#!/usr/bin/env bash
# tools/diag/run.sh: one device call (carry build/diag, built here by
# tools/diag/build.sh): oneshot and, where it was built, ablate, each three
# times, into $OUT.
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-out}; mkdir -p "$OUT"
for i in 1 2 3; do timeout 120 build/diag/oneshot "${REPS:-300}"; done > "$OUT/oneshot.txt" 2>&1
if [ -x build/diag/ablate ]; then
	for i in 1 2 3; do timeout 120 build/diag/ablate "${REPS:-300}"; done > "$OUT/ablate.txt" 2>&1
else
	echo "build/diag/ablate was not built (tools/diag/build.sh)" > "$OUT/ablate.txt"
fi
cat "$OUT/oneshot.txt" "$OUT/ablate.txt"

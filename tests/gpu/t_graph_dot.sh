# GPU: GEMMTAB_GRAPH_DOT writes every graph the tuner captures as a dot
# file: a sweep of the router's committed M = 32 plan (tests/spaces/
# diag_router32.yaml: a zero-fill kernel, then the hi/lo product with
# programmatic dependent launch) leaves graphs of the baseline and of that
# plan, the plan's two kernels joined by one edge.
. "$(dirname "$0")/lib.sh"

mkdir -p "$TMP/dots"
expect_exit "sweep diag_router32.yaml with GEMMTAB_GRAPH_DOT: exit 0" 0 \
	env GEMMTAB_GRAPH_DOT="$TMP/dots/g" "$GEMMTAB" sweep --space tests/spaces/diag_router32.yaml --db "$TMP/d.db" --no-retest
n=$(ls "$TMP/dots" | grep -c '^g\.[0-9]*\.[0-9]*\.dot$')
check "dot files written, one per captured graph ($n)" test "$n" -gt 2
plan=$(grep -l 'mma_hilo_kernel' "$TMP"/dots/*.dot | head -n 1)
check "a graph holds the hi/lo product" test -n "$plan"
if [ -n "$plan" ]; then
	check "... after the zero-fill kernel" grep -q 'mma_zero_f32' "$plan"
	check "... joined by one edge" test "$(grep -c -- '->' "$plan")" = 1
fi
check "the baseline's graphs are there too (a cuBLAS kernel)" \
	sh -c "grep -L 'mma_' '$TMP'/dots/*.dot | grep -q ."
finish

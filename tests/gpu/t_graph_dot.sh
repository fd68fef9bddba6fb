# GPU: GEMMTAB_GRAPH_DOT writes the graphs the tuner captures as dot
# files: a sweep of one router plan at M = 32 (tests/spaces/graph_dot.yaml:
# a zero-fill kernel, then the hi/lo product with programmatic dependent
# launch) leaves graphs of the cuBLAS baseline and of that plan, the
# plan's two kernels joined by one edge.
. "$(dirname "$0")/lib.sh"

mkdir -p "$TMP/dots"
expect_exit "sweep graph_dot.yaml with GEMMTAB_GRAPH_DOT: exit 0" 0 \
	env GEMMTAB_GRAPH_DOT="$TMP/dots/g" "$GEMMTAB" sweep --space tests/spaces/graph_dot.yaml --db "$TMP/d.db" --no-retest
n=$(ls "$TMP/dots" | grep -c '^g\.[0-9]*\.[0-9]*\.dot$')
check "dot files written ($n: baseline, candidate and overhead graphs)" test "$n" -gt 2
plan=$(grep -l 'mma_hilo_kernel' "$TMP"/dots/*.dot | head -n 1)
check "a graph holds the hi/lo product" test -n "$plan"
if [ -n "$plan" ]; then
	check "... after the zero-fill kernel" grep -q 'mma_zero_f32' "$plan"
	check "... joined by one edge" test "$(grep -c -- '->' "$plan")" = 1
fi
check "the baseline's graphs are there too (a cuBLAS kernel)" \
	sh -c "grep -lE 'nvjet|gemm|cutlass|sm90_xmma' '$TMP'/dots/*.dot | xargs grep -L 'mma_hilo' | grep -q ."
finish

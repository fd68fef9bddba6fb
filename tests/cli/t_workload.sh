# CLI: the workload lives in the space. report and bench take the loads
# and the shapes each runs (with counts and `when` rules) from a space's
# workload: section; report without --space uses the reference workload
# of docs/workload.md. Pinned: the committed database's per-load figures
# and score (as before the workload moved into the space), the same with
# --space search_spaces/h200.yaml; a model of our own (counts of layers)
# reports a score and the all-M figure; a bad workload is one LINE:COL.
. "$(dirname "$0")/lib.sh"

# per-load rows and the score line of a report in $TMP/out
loads_of() { awk '/^Per load/ { p = 1 } p && /^ *[0-9]+ +[0-9]+ +[0-9]+ / { print }
	/^score: / { print }' "$TMP/out"; }
cat >"$TMP/h200.want" <<'WANT'
  1         5         5    49.87   36.40    1.370        0.95          0.79  
  8         5         5    66.21   37.95    1.745        0.91          0.76  
 16         5         5    77.15   51.78    1.490        0.92          0.80  
 32         5         5    72.00   53.97    1.334        0.88          0.77  
128         5         5    88.74   61.34    1.447        0.78          0.72  
256         5         5   116.30   76.70    1.516        0.62          0.67  
score: 1.478, the geometric mean of the speedups of 6 of 6 loads (M = 1, 8, 16, 32, 128, 256)
WANT
expect_exit "report of db/h200.db: exit 0" 0 "$GEMMTAB" report --db db/h200.db
check "it compiled nothing (the database knows this build's code)" bash -c "! grep -q compil '$TMP/err'"
loads_of >"$TMP/h200.got"
test_cmp "the committed per-load figures and score" "$TMP/h200.want" "$TMP/h200.got"
check "and the all-M figure beside the score" grep -qE '^all-M: [0-9.]+, the geometric mean over M = 1\.\.256 ' "$TMP/out"
expect_exit "the same with --space search_spaces/h200.yaml" 0 "$GEMMTAB" report --db db/h200.db --space search_spaces/h200.yaml
loads_of >"$TMP/h200.space"
test_cmp "the same per-load figures and score" "$TMP/h200.want" "$TMP/h200.space"
check "naming where the workload comes from" grep -q "Workload (the space's workload: section)" "$TMP/out"

# a model of our own: 32 layers of three projections, the head once
export GEMMTAB_WORKER=$PWD/build/tests/fake_worker
cat >"$TMP/model.yaml" <<'SPACE'
sweep: {screen_pairs: 4, retest_pairs: 100, retest_top: 1, deadline_s: 5}
workload:
  loads: [1, 8]
  shapes:
    - {family: qkv, count: 32}
    - {family: down, count: 32}
    - {family: head}
shapes:
  - {family: qkv, n: 3072, k: 4096, w: bf16, x: bf16, y: bf16, tol: 1e-2, m: [1, 8]}
  - {family: down, n: 4096, k: 14336, w: bf16, x: bf16, y: bf16, tol: 1e-2, m: [1, 8]}
  - {family: head, n: 2048, k: 4096, w: bf16, x: bf16, y: bf16, tol: 1e-2, m: [1, 8]}
templates:
  gemv:
    params: {warps: [4, 8], rows: [1, 2], tokens: [1, 8], unroll: [1], split: [1], cache: [default]}
    constraints: ["tokens >= m || tokens == 8", "tokens < 2 * m || tokens == 1"]
SPACE
db=$TMP/model.db
expect_exit "a sweep of the model" 0 "$GEMMTAB" sweep --space "$TMP/model.yaml" --db "$db" --cache "$TMP/c"
expect_exit "its report over the space's workload" 0 "$GEMMTAB" report --db "$db" --space "$TMP/model.yaml"
cp "$TMP/out" "$TMP/model.report"
check "a score of its 2 loads" grep -qE '^score: [0-9.]+, the geometric mean of the speedups of 2 of 2 loads \(M = 1, 8\)' "$TMP/out"
check "and the all-M figure over 1..8" grep -qE '^all-M: [0-9.]+, the geometric mean over M = 1\.\.8 of the load speedup at each M \(every shape measured at 2 of the 8 Ms' "$TMP/out"
# the M = 1 load recomputed from the per-shape rows: 32 qkv + 32 down + head
awk '/^Per family and M/ { s = 1 } /^Per load/ { s = 0; l = 1 }
	s && $2 == 1 && ($1 == "qkv" || $1 == "down" || $1 == "head") {
		c = $1 == "head" ? 1 : 32; b += c * $5; r += c * $6 }
	l && $1 == 1 && $2 ~ /^[0-9]+$/ { lb = $4; lr = $5 }
	END { d = b - lb; e = r - lr; if (d < 0) d = -d; if (e < 0) e = -e
		printf "recomputed %.2f %.2f, printed %s %s\n", b, r, lb, lr; exit !(d < 0.5 && e < 0.5) }' \
	"$TMP/model.report" >"$TMP/recompute"
check "the M = 1 load is 32 x qkv + 32 x down + head" test $? -eq 0
sed 's/^/    /' "$TMP/recompute"
expect_exit "without --space the reference workload: exit 0" 0 "$GEMMTAB" report --db "$db"
check "which this model does not complete" grep -q "^score: - (none of the 6 loads is complete)" "$TMP/out"

# bad workloads: one FILE:LINE:COL line, exit 2
bad() {   # WHAT YAML-LINES WANT
	{ printf 'shapes:\n  - {family: qkv, n: 256, k: 1024, w: bf16, x: bf16, y: bf16, tol: 1e-2, m: [1]}\n'
	  printf '%s\n' "$2"
	  printf 'templates:\n  blas_hilo: {params: {}}\n'; } >"$TMP/bad.yaml"
	expect_exit "$1: exit 2" 2 "$GEMMTAB" sweep --space "$TMP/bad.yaml" --dry-run
	check "$1: $3" grep -q "^$TMP/bad.yaml:$3" "$TMP/err"
}
bad "a family that is not a shape" $'workload:\n  loads: [1]\n  shapes:\n    - {family: qvk}' "6:16: workload family 'qvk' is not a shape of this space"
bad "a family twice" $'workload:\n  loads: [1]\n  shapes:\n    - {family: qkv}\n    - {family: qkv}' "7:16: workload family 'qkv' is listed twice"
bad "a when that does not parse" $'workload:\n  loads: [1]\n  shapes:\n    - {family: qkv, when: "m >"}' "6:31: when: expected a number"
bad "a load no shape runs" $'workload:\n  loads: [1, 16]\n  shapes:\n    - {family: qkv, when: "m < 8"}' "4:10: load 16 runs none of the workload's shapes"
bad "a count of 0" $'workload:\n  loads: [1]\n  shapes:\n    - {family: qkv, count: 0}' "6:28: count must be in \[1, 1000000\], not 0"
finish

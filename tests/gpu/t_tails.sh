# GPU: gemv_tail_kernel against the FP64 reference (tests/spaces/gpu_tails.yaml):
# N not whole blocks of rows, K not whole passes of a split (N = 1000,
# K = 3000; K = 4736; an fp32 N = 60, K = 1000), split and unsplit, at
# Ms that part-fill and repeat token passes: every candidate that runs must
# validate (status ok).
. "$(dirname "$0")/lib.sh"

db=$TMP/tails.db
expect_exit "sweep gpu_tails.yaml: exit 0" 0 "$GEMMTAB" sweep --space tests/spaces/gpu_tails.yaml --db "$db" --no-retest
"$GEMMTAB" sweep --space tests/spaces/gpu_tails.yaml --dry-run >"$TMP/plan"
want=$(sed -n 's/^total: \([0-9]*\) candidates.*/\1/p' "$TMP/plan")
check "the dry run plans candidates (${want:-none})" test -n "$want"
# ptxas may give a candidate local memory (the sweep prunes it, before
# any GPU work): that is no validation result
okc=$(q "SELECT count(*) FROM result WHERE phase='screen' AND (status='ok' OR
	(status='pruned' AND reason LIKE '%bytes of local memory%'))")
check "all $want candidates validated ok or pruned for local memory (got $okc)" test "$okc" = "$want"
check "most of them ran" test "$(q "SELECT count(*) FROM result WHERE status='ok'")" -ge $((want * 9 / 10))
q "SELECT s.family, r.m, c.params, r.status, r.err_global, r.err_row, r.reason FROM result r JOIN shape s ON s.id=r.shape_id JOIN candidate c ON c.id=r.candidate_id WHERE r.status NOT IN ('ok', 'pruned')" >"$TMP/bad"
check "no candidate failed validation" test ! -s "$TMP/bad"
sed 's/^/    /' "$TMP/bad" | head -n 20
worst=$(q "SELECT max(err_global / s.tol) FROM result r JOIN shape s ON s.id=r.shape_id WHERE status='ok'")
echo "    worst global error / tolerance: $worst"
check "errors were measured (not null)" test -n "$worst"
finish

# GPU: the gemv template against the FP64 reference for every family at
# M = 1..16, 31, 32, 33, split and unsplit (tests/spaces/gpu_ref.yaml):
# every candidate must validate (status ok), none may fail.
. "$(dirname "$0")/lib.sh"

db=$TMP/ref.db
expect_exit "sweep gpu_ref.yaml: exit 0" 0 "$GEMMTAB" sweep --space tests/spaces/gpu_ref.yaml --db "$db" --no-retest
"$GEMMTAB" sweep --space tests/spaces/gpu_ref.yaml --dry-run >"$TMP/plan"
want=$(sed -n 's/^total: \([0-9]*\) candidates.*/\1/p' "$TMP/plan")
check "the dry run plans candidates (${want:-none})" test -n "$want"
okc=$(q "SELECT count(*) FROM result WHERE phase='screen' AND status='ok'")
pruned=$(sed -n 's/^total: [0-9]* candidates (\([0-9]*\) pruned.*/\1/p' "$TMP/plan")
check "the space prunes nothing statically ($pruned)" test "$pruned" = 0
check "all $want candidates validated ok (got $okc)" test "$okc" = "$want"
q "SELECT s.family, r.m, c.params, r.status, r.err_global, r.err_row, r.reason FROM result r JOIN shape s ON s.id=r.shape_id JOIN candidate c ON c.id=r.candidate_id WHERE r.status!='ok'" >"$TMP/bad"
check "no candidate failed validation" test ! -s "$TMP/bad"
sed 's/^/    /' "$TMP/bad" | head -n 20
worst=$(q "SELECT max(err_global / s.tol) FROM result r JOIN shape s ON s.id=r.shape_id WHERE status='ok'")
echo "    worst global error / tolerance: $worst"
check "errors were measured (not null)" test -n "$worst"
finish

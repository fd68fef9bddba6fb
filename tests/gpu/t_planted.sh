# GPU: a planted faulting kernel and a planted hang are recorded as fault
# and timeout, the worker is restarted each time, and the sweep goes on to
# measure the candidates after them (tests/spaces/planted.yaml).
# the tests' gemmtab: it also registers the test-only template planted
GEMMTAB=${GEMMTAB:-$(cd "$(dirname "$0")/../.." && pwd)/build/tests/gemmtab}
. "$(dirname "$0")/lib.sh"

db=$TMP/planted.db
expect_exit "sweep planted.yaml: exit 0" 0 "$GEMMTAB" sweep --space tests/spaces/planted.yaml --db "$db" --no-retest
cat "$TMP/err" | tail -n 3 | sed 's/^/    /'
st() { q "SELECT r.status FROM result r JOIN candidate c ON c.id=r.candidate_id WHERE c.template='$1' AND c.params='$2' AND r.phase='screen'"; }
check "planted ok: status ok" test "$(st planted mode=ok)" = ok
check "planted fault: status fault" test "$(st planted mode=fault)" = fault
check "planted hang: status timeout" test "$(st planted mode=hang)" = timeout
check "gemv after them: measured ok (default)" test "$(st gemv warps=4,rows=1,tokens=1,unroll=1,split=1,cache=default)" = ok
check "gemv after them: measured ok (cg)" test "$(st gemv warps=4,rows=1,tokens=1,unroll=1,split=1,cache=cg)" = ok
check "summary: 2 worker restarts" grep -q ' 2 worker restarts' "$TMP/err"
q "SELECT status, count(*) FROM result GROUP BY status ORDER BY status" | sed 's/^/    counts: /'
finish

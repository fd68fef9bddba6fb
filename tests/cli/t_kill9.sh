# CLI: kill -9 loses nothing and blames no one. Against the fake worker,
# whose figures are a function of each request:
# - a worker killed from outside with a candidate in flight: the candidate
#   is asked once more on a fresh worker, and the sweep ends with the
#   uninterrupted sweep's result set; a candidate that ends two workers is
#   recorded fault with both causes;
# - the harness: 20 kill -9s of the supervisor at random points (each
#   resumed by rerunning the same command), then 20 kill -9s of its worker
#   in one sweep, each ending with the uninterrupted sweep's result set.
# GT_KILLS overrides the number of kills (default 20).
. "$(dirname "$0")/lib.sh"
export GEMMTAB_WORKER=$PWD/build/tests/fake_worker
# tests/spaces/fake.yaml with more Ms and candidates, for room between 20
# kills (about 70 worker kills fit in its sweep)
SPACE=$TMP/space.yaml
sed -e 's/m: \[1, 8\], neighbours: \[2, 7\]/m: [1, 8, 16, 32, 64], neighbours: [2, 7, 24, 48]/' \
	-e 's/m: \[1, 8\], neighbours: \[2\]/m: [1, 8, 16, 32], neighbours: [2, 12, 24]/' \
	-e 's/unroll: \[1\]/unroll: [1, 2]/' \
	tests/spaces/fake.yaml >"$SPACE"
KILLS=${GT_KILLS:-20}
RANDOM=29   # the kill points are random, and the same on every run

if ! command -v sqlite3 >/dev/null 2>&1; then
	skip "kill -9" "no sqlite3 command to read result sets with"
	finish
fi

# The result set: what each (shape, candidate, M, phase) measured,
# without row ids, runs, times of day or reasons.
results() {
	sqlite3 -separator ' ' "$1" "SELECT s.family, s.n, s.k, c.template, c.params, r.m, r.phase,
		r.status, r.ratio, r.ratio_lo, r.ratio_hi, r.base_us, r.cand_us, r.pairs, r.err_global
		FROM result r JOIN shape s ON s.id = r.shape_id JOIN candidate c ON c.id = r.candidate_id
		ORDER BY 1, 2, 3, 4, 5, 6, 7"
}
# sweep DB [VAR=VALUE...]: the sweep of $SPACE into DB, with those variables
sweep() { env "${@:2}" "$GEMMTAB" sweep --space "$SPACE" --db "$1" --cache "$TMP/cache"; }

expect_exit "an uninterrupted sweep" 0 sweep "$TMP/ref.db"
results "$TMP/ref.db" >"$TMP/ref.txt"
check "it measured something" test "$(wc -l <"$TMP/ref.txt")" -gt 20

# --- one outside kill, then one candidate that ends two workers ---
expect_exit "a worker killed once in a candidate: exit 0" 0 \
	sweep "$TMP/once.db" FAKE_WORKER_DIE_ON="warps=8,rows=2" FAKE_WORKER_DIE_ONCE="$TMP/died"
check "the worker did die" test -f "$TMP/died"
check "the sweep said it tries once more" grep -q "the worker died (killed by signal 9) with it in flight; trying it once more" "$TMP/err"
results "$TMP/once.db" >"$TMP/once.txt"
test_cmp "the result set equals the uninterrupted one" "$TMP/ref.txt" "$TMP/once.txt"

expect_exit "a candidate that ends every worker: exit 0" 0 \
	sweep "$TMP/twice.db" FAKE_WORKER_DIE_ON="warps=8,rows=2"
db=$TMP/twice.db
check "it is recorded fault, with both causes" test "$(sqlite3 "$db" "SELECT DISTINCT r.status || ': ' || r.reason FROM result r JOIN candidate c ON c.id = r.candidate_id WHERE c.params LIKE '%warps=8,rows=2%'")" = \
	"fault: it ended two workers: killed by signal 9, then killed by signal 9"
check "and no other candidate is" test "$(q "SELECT count(*) FROM result r JOIN candidate c ON c.id = r.candidate_id WHERE r.status <> 'ok' AND c.params NOT LIKE '%warps=8,rows=2%'")" = 0

# --- the harness: kill -9 after a random number of requests ---
# wait_requests LOG N PID: until LOG has N more lines, or PID is gone
wait_requests() {
	local want=$(( $(wc -l <"$1") + $2 ))
	while [ "$(wc -l <"$1")" -lt "$want" ] && kill -0 "$3" 2>/dev/null; do
		sleep 0.01
	done
}

export FAKE_WORKER_DELAY_MS=40 FAKE_WORKER_LOG=$TMP/requests
: >"$TMP/requests"
kills=0 runs=0
while [ "$kills" -lt "$KILLS" ] && [ "$runs" -lt $((KILLS * 3)) ]; do
	runs=$((runs + 1))
	"$GEMMTAB" sweep --space "$SPACE" --db "$TMP/sup.db" --cache "$TMP/cache" >>"$TMP/sup.log" 2>&1 &
	pid=$!
	wait_requests "$TMP/requests" $((1 + RANDOM % 4)) "$pid"
	sleep "0.0$((RANDOM % 10))"
	if kill -0 "$pid" 2>/dev/null; then
		kill_tree "$pid"
		kills=$((kills + 1))
	else
		wait "$pid"
		break   # finished before the kill: nothing left to interrupt
	fi
done
check "$kills kill -9s of the supervisor landed in $runs runs" test "$kills" -eq "$KILLS"
expect_exit "the rerun after the last kill completes" 0 sweep "$TMP/sup.db"
results "$TMP/sup.db" >"$TMP/sup.txt"
test_cmp "after $kills supervisor kills: the uninterrupted result set" "$TMP/ref.txt" "$TMP/sup.txt"

"$GEMMTAB" sweep --space "$SPACE" --db "$TMP/wk.db" --cache "$TMP/cache" >"$TMP/wk.log" 2>&1 &
pid=$!
kills=0
while [ "$kills" -lt "$KILLS" ] && kill -0 "$pid" 2>/dev/null; do
	# at least two requests between kills, so that no candidate is the
	# one in flight at two kills running
	wait_requests "$TMP/requests" $((2 + RANDOM % 3)) "$pid"
	sleep "0.0$((RANDOM % 4))"
	w=$(pgrep -P "$pid" -f fake_worker | head -n 1)
	[ -n "$w" ] && kill -9 "$w" 2>/dev/null && kills=$((kills + 1))
done
wait "$pid"
rc=$?
check "$kills kill -9s of the worker, the sweep exits 0" test "$rc" = 0 -a "$kills" -eq "$KILLS"
results "$TMP/wk.db" >"$TMP/wk.txt"
test_cmp "after $kills worker kills: the uninterrupted result set" "$TMP/ref.txt" "$TMP/wk.txt"
n=$(grep -c "trying it once more" "$TMP/wk.log")
check "candidates in flight were asked again ($n of the kills)" test "$n" -ge 1
finish

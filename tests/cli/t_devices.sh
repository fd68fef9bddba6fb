# CLI: sweep --devices: one worker per GPU under the one supervisor (the
# fake worker presents 4 alike). Over 4 GPUs the sweep records the same
# results as over 1 (every row's figures, compared with sqlite3), each row
# with the GPU it ran on, and every GPU takes a share; a fault planted on
# one GPU is recorded and only that GPU's worker restarts while the others
# go on; the device lists are checked.
. "$(dirname "$0")/lib.sh"
# each eval takes 3 ms, as a GPU's take milliseconds: with instant replies
# one thread could take every point before the others are scheduled
export GEMMTAB_WORKER=$PWD/build/tests/fake_worker FAKE_WORKER_DEVICES=4 FAKE_WORKER_EVAL_US=3000
cache=$TMP/cache
rows() {   # DB: the results as a set, ids, times, runs and devices left out
	sqlite3 "$1" "SELECT s.family, s.n, s.k, c.template, c.params, r.m, r.phase, r.status,
		r.ratio, r.pairs FROM result r JOIN shape s ON s.id = r.shape_id
		JOIN candidate c ON c.id = r.candidate_id ORDER BY 1, 2, 3, 4, 5, 6, 7" >"$2"
	sqlite3 "$1" "SELECT s.family, b.m, b.cublas_us FROM baseline b JOIN shape s
		ON s.id = b.shape_id ORDER BY 1, 2" >>"$2"
}
for space in fake range; do
	expect_exit "$space: sweep on GPU 0" 0 "$GEMMTAB" sweep --space tests/spaces/$space.yaml \
		--db "$TMP/$space-1.db" --cache "$cache"
	expect_exit "$space: sweep --devices all" 0 "$GEMMTAB" sweep --space tests/spaces/$space.yaml \
		--db "$TMP/$space-4.db" --cache "$cache" --devices all
	check "$space: says it runs on 4 GPUs" grep -q "on 4 x Fake GPU (132 SMs; GPUs 0,1,2,3)" "$TMP/err"
	rows "$TMP/$space-1.db" "$TMP/$space-1.rows"
	rows "$TMP/$space-4.db" "$TMP/$space-4.rows"
	check "$space: rows recorded ($(wc -l <"$TMP/$space-1.rows"))" test "$(wc -l <"$TMP/$space-1.rows")" -gt 20
	test_cmp "$space: the same results over 4 GPUs as over 1" "$TMP/$space-1.rows" "$TMP/$space-4.rows"
	check "$space: every GPU took a share" test "$(sqlite3 "$TMP/$space-4.db" \
		"SELECT count(DISTINCT device) FROM result WHERE device IS NOT NULL")" = 4
	check "$space: every row and baseline records its GPU" test "$(sqlite3 "$TMP/$space-4.db" \
		"SELECT (SELECT count(*) FROM result WHERE device IS NULL) +
			(SELECT count(*) FROM baseline WHERE device IS NULL)")" = 0
done

# a fault planted on GPU 2: recorded, its worker restarted, the others go on
rm -f "$TMP/once"
FAKE_WORKER_EVAL_US=20000 FAKE_WORKER_FAULT_DEVICE=2 FAKE_WORKER_FAULT_ONCE=$TMP/once expect_exit "a fault on GPU 2: exit 0" 0 \
	"$GEMMTAB" sweep --space tests/spaces/fake.yaml --db "$TMP/fault.db" --cache "$cache" --devices 0-3
check "the fault is recorded on GPU 2" test "$(sqlite3 "$TMP/fault.db" \
	"SELECT count(*) || ' ' || max(device) FROM result WHERE status = 'fault'")" = "1 2"
check "only GPU 2's worker restarted" bash -c "grep -q '^sweep: GPU 2: [0-9]* evals and baselines, 1 worker restarts' '$TMP/err' &&
	test \$(grep -c '^sweep: GPU [013]: [0-9]* evals and baselines, 0 worker restarts' '$TMP/err') = 3"
check "the others went on after it" test "$(sqlite3 "$TMP/fault.db" "SELECT count(*) FROM result
	WHERE device <> 2 AND recorded_at > (SELECT recorded_at FROM result WHERE status = 'fault')")" -gt 10
rows "$TMP/fault.db" "$TMP/fault.rows"
# (which candidate faults depends on which GPU 2 took first; what is
# retested after it may differ, as the faulted one may have been a finalist)
check "every other screen as over 1 GPU" test "$(diff <(grep '|screen|' "$TMP/fake-1.rows") \
	<(grep '|screen|' "$TMP/fault.rows") | grep -c '^[<>]')" = 2

# a worker restarted in a phase thread outlives that thread (the death
# signal follows the forking thread, so the main thread starts workers):
# the fault on GPU 1 comes in phase 1, and the later phases still have
# its new worker, so no baseline is lost and it restarts once
rm -f "$TMP/once1"
FAKE_WORKER_DEVICES=2 FAKE_WORKER_FAULT_DEVICE=1 FAKE_WORKER_FAULT_ONCE=$TMP/once1 expect_exit \
	"range, a fault on GPU 1 of 2: exit 0" 0 "$GEMMTAB" sweep --space tests/spaces/range.yaml \
	--db "$TMP/restart.db" --cache "$cache" --devices all
check "every baseline, as over 1 GPU" test "$(sqlite3 "$TMP/restart.db" "SELECT count(*) FROM baseline")" = \
	"$(sqlite3 "$TMP/range-1.db" "SELECT count(*) FROM baseline")"
check "GPU 1's worker restarted once" grep -q '^sweep: GPU 1: [0-9]* evals and baselines, 1 worker restarts$' "$TMP/err"
check "no request went unanswered" bash -c "! grep -q 'no reply from the worker' '$TMP/err'"

# device lists
expect_exit "--devices 0,4 of 4: exit 2" 2 "$GEMMTAB" sweep --space tests/spaces/fake.yaml --db "$TMP/x.db" --devices 0,4
check "names the GPU that is not there" grep -q "there is no GPU 4 (4 visible: 0..3)" "$TMP/err"
expect_exit "--devices 1,1: exit 2" 2 "$GEMMTAB" sweep --space tests/spaces/fake.yaml --db "$TMP/x.db" --devices 1,1
expect_exit "--devices 1-x: exit 2" 2 "$GEMMTAB" sweep --space tests/spaces/fake.yaml --db "$TMP/x.db" --devices 1-x
expect_exit "--device with --devices: exit 2" 2 "$GEMMTAB" sweep --space tests/spaces/fake.yaml --db "$TMP/x.db" --device 1 --devices all
FAKE_WORKER_EVAL_US=20000 expect_exit "--devices 1,3: exit 0" 0 "$GEMMTAB" sweep --space tests/spaces/fake.yaml --db "$TMP/two.db" --cache "$cache" --devices 1,3 --no-retest
check "ran on GPUs 1 and 3" test "$(sqlite3 "$TMP/two.db" "SELECT group_concat(d) FROM (SELECT DISTINCT device AS d FROM result ORDER BY 1)")" = "1,3"
finish

# CLI: gemmtab prune drops the results of superseded code (here: candidates
# whose code key was made foreign, as an edited template would leave them)
# and of environments named, keeps the rows emit reads, compacts the file
# in WAL mode (its -wal file folded in), and says what it did; --dry-run changes
# nothing. One sweep or prune of a database at a time: the second is
# refused with who holds it, and a kill -9 leaves no stale lock.
. "$(dirname "$0")/lib.sh"

export GEMMTAB_WORKER=$PWD/build/tests/fake_worker
db=$TMP/p.db
cache=$TMP/cache

expect_exit "sweep: exit 0" 0 "$GEMMTAB" sweep --space tests/spaces/fake.yaml --db "$db" --cache "$cache"
expect_exit "emit: exit 0" 0 "$GEMMTAB" emit --db "$db" --out "$TMP/before.h" --cache "$cache"
all=$(q "SELECT count(*) FROM result")
# every (candidate, shape) the sweep measured has a variant under this
# build's text, cuBLASLt's too (their keys, plans at ~2,000 Ms, cost more
# to compute than to look up)
unvaried="SELECT count(*) FROM (SELECT DISTINCT candidate_id, shape_id FROM result) r WHERE NOT EXISTS (SELECT 1 FROM variant v WHERE v.candidate_id = r.candidate_id AND v.shape_id = r.shape_id)"
check "every measured (candidate, shape) has a variant" test "$(q "$unvaried")" = 0
expect_exit "sweep of a cuBLASLt space: exit 0" 0 "$GEMMTAB" sweep --space tests/spaces/fake_lt.yaml --db "$TMP/lt.db" --cache "$cache"
check "it ran blas_lt candidates" test "$(q "SELECT count(*) FROM result r JOIN candidate c ON c.id = r.candidate_id WHERE c.template = 'blas_lt'" "$TMP/lt.db")" -gt 0
check "each with a variant" test "$(q "$unvaried" "$TMP/lt.db")" = 0
# the screens of router candidates made superseded: another code key (z:
# not hex), no variant under this build's text; and made to look like
# retests 100x better than anything, so that a reader that took them
# would show it
if command -v sqlite3 >/dev/null 2>&1; then
	sqlite3 "$db" "UPDATE candidate SET code = printf('z%015d', id) WHERE id IN (SELECT r.candidate_id FROM result r JOIN shape s ON s.id = r.shape_id WHERE s.family = 'router' AND r.phase = 'screen' AND r.candidate_id NOT IN (SELECT candidate_id FROM result WHERE phase = 'retest')); DELETE FROM variant WHERE candidate_id IN (SELECT id FROM candidate WHERE code LIKE 'z%'); UPDATE result SET phase = 'retest', pairs = 200, ratio = ratio * 100 WHERE candidate_id IN (SELECT id FROM candidate WHERE code LIKE 'z%')"
	stale=$(q "SELECT count(*) FROM result r JOIN candidate c ON c.id = r.candidate_id WHERE c.code LIKE 'z%'")
	check "some rows made superseded ($stale)" test "$stale" -gt 0

	# report follows emit's current-code filter: it reads the same before
	# the superseded rows go as after (report compiles what the variant map
	# lacks into ./.cache/gemmtab: run it in $TMP, not in the tree)
	(cd "$TMP" && "$GEMMTAB" report --db "$db") 2>/dev/null | tail -n +2 >"$TMP/report_before"
	expect_exit "prune --dry-run: exit 0" 0 "$GEMMTAB" prune --db "$db" --dry-run --cache "$cache"
	check "says what would go" grep -q "^would drop $stale results of [0-9]* superseded (candidate, shape)s" "$TMP/out"
	check "and dropped nothing" test "$(q "SELECT count(*) FROM result")" = "$all"

	expect_exit "prune: exit 0" 0 "$GEMMTAB" prune --db "$db" --cache "$cache"
	check "says what went" grep -q "^dropped $stale results of" "$TMP/out"
	check "and what was kept" grep -q "; $((all - stale)) results of current code kept" "$TMP/out"
	check "those rows are gone" test "$(q "SELECT count(*) FROM result")" = "$((all - stale))"
	check "no candidate left without a result or variant" test "$(q "SELECT count(*) FROM candidate WHERE id NOT IN (SELECT candidate_id FROM result) AND id NOT IN (SELECT candidate_id FROM variant)")" = 0
	check "WAL mode" test "$(sqlite3 "$db" "PRAGMA journal_mode")" = wal
	check "no -wal file beside it" test ! -s "$db-wal"
	(cd "$TMP" && "$GEMMTAB" report --db "$db") 2>/dev/null | tail -n +2 >"$TMP/report_after"
	check "report is the same before prune as after" test -s "$TMP/report_before"
	check "and names no 100x speedup" bash -c "! grep -qE ' [0-9]{3,}\.[0-9]+ ' '$TMP/report_before'"
	test_cmp "report, row for row" "$TMP/report_before" "$TMP/report_after"
	expect_exit "emit after prune: exit 0" 0 "$GEMMTAB" emit --db "$db" --out "$TMP/after.h" --cache "$cache" --strict
	check "the same entries" test "$(grep '^	{' "$TMP/after.h")" = "$(grep '^	{' "$TMP/before.h")"
	expect_exit "prune again: exit 0" 0 "$GEMMTAB" prune --db "$db" --cache "$cache"
	check "drops nothing more" grep -q "^dropped 0 results" "$TMP/out"
else
	skip "prune of superseded rows" "no sqlite3 command to age a database with"
fi

cp "$db" "$TMP/e.db"
expect_exit "prune --env 1: exit 0" 0 "$GEMMTAB" prune --db "$TMP/e.db" --env 1 --cache "$cache"
check "names the environment dropped" grep -q "and 1 environments with [0-9]* baselines" "$TMP/out"
check "its rows are gone" test "$(db=$TMP/e.db q "SELECT (SELECT count(*) FROM result) + (SELECT count(*) FROM env) + (SELECT count(*) FROM baseline)")" = 0
expect_exit "prune --env 9: exit 1" 1 "$GEMMTAB" prune --db "$TMP/e.db" --env 9
check "names it" grep -q "env: .* has no environment 9" "$TMP/err"
expect_exit "prune --env x: exit 2" 2 "$GEMMTAB" prune --db "$db" --env 1,x
check "names the option" grep -q "prune: --env: '1,x' is not a list of environment ids" "$TMP/err"
expect_exit "prune of no file: exit 1" 1 "$GEMMTAB" prune --db "$TMP/none.db"
check "creates nothing" test ! -e "$TMP/none.db"

# the lock: a slow sweep holds it
db=$TMP/l.db
FAKE_WORKER_DELAY_MS=200 "$GEMMTAB" sweep --space tests/spaces/fake.yaml --db "$db" --cache "$cache" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 300); do
	[ -s "$db.lock" ] && break
	sleep 0.1
done
check "the sweep wrote who holds the lock" grep -q "^swept by pid $pid since 20" "$db.lock"
expect_exit "a second sweep: exit 1" 1 "$GEMMTAB" sweep --space tests/spaces/fake.yaml --db "$db" --cache "$cache"
check "is told who holds it" grep -q "DB $db is being swept by pid $pid since 20.*Z; wait for it to end or stop it" "$TMP/err"
expect_exit "prune meanwhile: exit 1" 1 "$GEMMTAB" prune --db "$db" --cache "$cache"
check "is told the same" grep -q "is being swept by pid $pid" "$TMP/err"
kill_tree "$pid"
expect_exit "after a kill -9, prune: exit 0" 0 "$GEMMTAB" prune --db "$db" --cache "$cache"
expect_exit "and a sweep resumes: exit 0" 0 "$GEMMTAB" sweep --space tests/spaces/fake.yaml --db "$db" --cache "$cache"

finish

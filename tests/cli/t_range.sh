# CLI: a space that names a range (m: LO..HI) with the fake worker: the
# dry run's plan and estimate, a sweep that screens at the anchors and
# then times the anchors' finalists at every M of the range and its check
# points (one window per M), an emitted table that serves every M with a
# kernel that won there or the baseline, its boundaries at measured
# crossovers (tests/cli/range_check.py reads the table against the
# database), report --regret, bench's all-M at a --range-step (over the
# Ms it measured), a rerun that measures nothing, and the
# loader's messages for ranges; --time-limit's stop and resume.
GEMMTAB=${GEMMTAB:-$(cd "$(dirname "$0")/../.." && pwd)/build/tests/gemmtab}
. "$(dirname "$0")/lib.sh"

export GEMMTAB_WORKER=$PWD/build/tests/fake_worker
space=tests/spaces/range.yaml
db=$TMP/range.db

expect_exit "dry run: exit 0" 0 "$GEMMTAB" sweep --space $space --dry-run
check "the dry run screens qkv at its 4 anchors" test "$(grep -c '^qkv ' "$TMP/out")" = 4
check "the router at its default anchors 1, 2, 4, ..., 64" \
	test "$(awk '$1 == "router" { printf "%s ", $2 }' "$TMP/out")" = "1 2 4 8 16 32 64 "
check "the estimate counts the range's retests and baselines" \
	grep -qE 'up to [0-9]+ retests of 100 pairs across the ranges and 580 baselines there' "$TMP/out"

FAKE_WORKER_LOG=$TMP/requests expect_exit "sweep: exit 0" 0 \
	"$GEMMTAB" sweep --space $space --db "$db" --cache "$TMP/cache"
check "qkv retested at every M of 1..512 and at 1024 and 2048" \
	test "$(q "SELECT count(DISTINCT r.m) || '/' || min(r.m) || '/' || max(r.m) FROM result r JOIN shape s ON s.id = r.shape_id WHERE s.family = 'qkv' AND r.phase = 'retest' AND r.m <= 512")" = "512/1/512"
check "qkv's check points timed" \
	test "$(q "SELECT group_concat(m, ' ') FROM (SELECT DISTINCT r.m FROM result r JOIN shape s ON s.id = r.shape_id WHERE s.family = 'qkv' AND r.m > 512 ORDER BY r.m)")" = "1024 2048"
check "a baseline at every M of both ranges and the check points" \
	test "$(q "SELECT count(*) FROM baseline")" = 580
check "screens only at the anchors" \
	test "$(q "SELECT group_concat(m, ' ') FROM (SELECT DISTINCT m FROM result WHERE phase = 'screen' ORDER BY m)")" = "1 2 4 8 16 32 64 256"
# between anchors 8 and 64 the finalists of both are timed: at most 2 + 2
check "M 30 is timed by the finalists of the anchors on both sides (2 + 2, some shared)" \
	test "$(q "SELECT count(*) BETWEEN 2 AND 4 FROM result r JOIN shape s ON s.id = r.shape_id WHERE s.family = 'qkv' AND r.m = 30")" = 1
# one window per M: from the first eval at M = 2 (no anchor, so the range
# phase's first), qkv's evals run M by M and never go back to an M
grep '^eval qkv' "$TMP/requests" | awk '{ print $3 }' | uniq | sed -n '/^2$/,$p' > "$TMP/order"
check "the range phase times qkv M by M, each M's evals together (2, 3, ..., 512, 1024, 2048)" \
	sh -c "sort -n -c -u '$TMP/order' && test \$(wc -l < '$TMP/order') -ge 500"

expect_exit "emit: exit 0" 0 "$GEMMTAB" emit --db "$db" --out "$TMP/t/range.h"
python3 tests/cli/range_check.py "$db" "$TMP/t/range.h" qkv 1 512 >"$TMP/findings" 2>"$TMP/served"
check "qkv: every M served by a kernel that won there or the baseline, every boundary a measured crossover" \
	test ! -s "$TMP/findings"
cat "$TMP/findings" | head -n 5
check "qkv: the checker read the table (entries, Ms served)" \
	grep -qE '^qkv: [1-9][0-9]* entries, [1-9][0-9]* of 512 Ms served by a kernel, 0 findings$' "$TMP/served"
python3 tests/cli/range_check.py "$db" "$TMP/t/range.h" router 1 64 >"$TMP/findings" 2>"$TMP/served"
check "router: the same over 1..64" test ! -s "$TMP/findings"
check "the table reaches past 512 only to a check point" \
	sh -c "! grep -E '^\\s\\{ 2304, 8192, [0-9, ]*' '$TMP/t/range.h' | awk -F', ' '\$7 > 512 && \$7 != 1024 && \$7 != 2048 { bad = 1 } END { exit !bad }'"

expect_exit "report --regret: exit 0" 0 "$GEMMTAB" report --db "$db" --regret "$TMP/t/range.h"
check "regret: a row per measured (family, M) (514 + 66)" \
	test "$(grep -cE '^(qkv|router) +[0-9]+ +(cublas|[a-z_]+ M [0-9])' "$TMP/out")" = 580
check "regret: the total and its loss line" \
	grep -qE '^loss: the table takes [0-9.]+ us over the 580 measured Ms where the best candidate measured at each takes [0-9.]+ \([0-9.]+% more; [0-9.]+x the baseline' "$TMP/out"
# the table is chosen from the same retests: where an entry serves, its
# candidate is the best measured there, so the loss is the baseline Ms'
# and the extensions' only
check "regret: M 30 loses nothing (served by the best measured there)" \
	grep -qE '^qkv +30 +[a-z_]+ M [0-9]+\.\.[0-9]+ +([0-9.]+) +\1 ' "$TMP/out"
check "regret: every served M measured (a range phase times every M)" \
	grep -qE '^served: [0-9]+ entries serve ([0-9]+) family-Ms with a tuned kernel, \1 of them measured; 0 served Ms were not measured' "$TMP/out"
expect_exit "report --regret --format csv: exit 0" 0 "$GEMMTAB" report --db "$db" --regret "$TMP/t/range.h" --format csv
check "regret csv: its header" grep -qx 'family,M,table,table_us,best_us,base_us,loss_pct,vs_base,best' "$TMP/out"
expect_exit "report --regret of a missing table: exit 1" 1 "$GEMMTAB" report --db "$db" --regret "$TMP/none.h"
check "... naming it" grep -q -- "--regret: cannot open $TMP/none.h" "$TMP/err"
expect_exit "report with the range's workload: exit 0" 0 "$GEMMTAB" report --db "$db" --space $space
check "the all-M figure runs to the range's end" grep -qE '^all-M: [0-9.]+, the geometric mean over M = 1\.\.512 ' "$TMP/out"


# the same sweep as a grid sweep would leave it: above 64 only the grid
# Ms (16t, 16t + 1) and one held-out M between (16t + 8). emit serves the
# unmeasured Ms of a segment only where its candidate, chosen at the grid
# ends, also wins at the held-out M; report --regret counts them all as
# certified, and every entry serving unmeasured Ms names its held-out M
if command -v sqlite3 >/dev/null 2>&1; then
	thin="m > 64 AND m <= 512 AND m % 16 NOT IN (0, 1, 8)"
	cp "$db" "$TMP/thin.db"
	sqlite3 "$TMP/thin.db" "DELETE FROM result WHERE $thin; DELETE FROM baseline WHERE $thin"
	expect_exit "emit of the grid sweep: exit 0" 0 "$GEMMTAB" emit --db "$TMP/thin.db" --out "$TMP/thin/t.h"
	check "some entries serve certified spans" grep -qE '^	/\* qkv, M [0-9]+\.\.[0-9]+: [a-z_]+ [^ ]* \(held out: M [0-9]+\)$' "$TMP/thin/t.h"
	check "each names a measured held-out M (16t + 8)" sh -c "grep -o 'held out: M [0-9]*' '$TMP/thin/t.h' | awk '\$4 % 16 != 8 { bad = 1 } END { exit bad }'"
	check "no entry reaches across an unmeasured grid M or past 512 but to a check point" \
		sh -c "! grep -E '^	\{ 2304, 8192, ' '$TMP/thin/t.h' | awk -F', ' '\$7 > 512 && \$6 != 1024 && \$6 != 2048 { bad = 1 } END { exit !bad }'"
	expect_exit "report --regret of it: exit 0" 0 "$GEMMTAB" report --db "$TMP/thin.db" --regret "$TMP/thin/t.h"
	check "every served M not measured is inside a certified span" \
		grep -qE '; ([1-9][0-9]*) served Ms were not measured \(\1 of them inside spans certified by a held-out M\)$' "$TMP/out"
else
	skip "a grid sweep's certified spans" "no sqlite3"
fi

# bench at a range step: all-M over the Ms it timed (every M up to 64,
# then every 16th: 64 + 28 of the 512), the ones it skipped left out
expect_exit "bench --range-step 16: exit 0" 0 "$GEMMTAB" bench --space $space --range-step 16 --pairs 10
check "its all-M is over the 92 Ms it measured, and says so" grep -qE '^all-M: [0-9.]+, the geometric mean over M = 1\.\.512 of the load speedup at each M \(every shape measured at 92 of the 512 Ms; the Ms not measured are left out, not counted as cuBLAS\)$' "$TMP/out"
expect_exit "bench --range-step 16 --format json: exit 0" 0 "$GEMMTAB" bench --space $space --range-step 16 --pairs 10 --format json
check "json: all_m_measured 92 of all_m_of 512" \
	python3 -c "import json, sys; d = json.load(open(sys.argv[1])); sys.exit(not (d['all_m_measured'] == 92 and d['all_m_of'] == 512))" "$TMP/out"

FAKE_WORKER_LOG=$TMP/requests2 expect_exit "rerun: exit 0" 0 \
	"$GEMMTAB" sweep --space $space --db "$db" --cache "$TMP/cache"
check "the rerun measured nothing" grep -qE '^sweep: 0 worker restarts' "$TMP/err"
check "... and asked the worker for no eval" sh -c "! grep -q '^eval ' '$TMP/requests2'"

# --time-limit: a sweep stopped by it keeps what it recorded, emits, and
# the same command resumes to the uninterrupted sweep's result set
tl=$TMP/limited.db
FAKE_WORKER_LOG=$TMP/limited.log FAKE_WORKER_DELAY_MS=2 expect_exit "a sweep stopped by --time-limit 2s: exit 3" 3 \
	"$GEMMTAB" sweep --space $space --db "$tl" --cache "$TMP/cache" --time-limit 2s
check "it says the limit passed and how far it got" \
	grep -qE '^sweep: the time limit passed with [0-9]+ of up to [0-9]+ evals done; what is recorded stands' "$TMP/err"
check "it stopped part way" test "$(db=$tl q "SELECT count(*) FROM result")" -lt "$(q "SELECT count(*) FROM result")"
check "every screen was done before the time ran out" \
	test "$(db=$tl q "SELECT count(*) FROM result WHERE phase = 'screen'")" = "$(q "SELECT count(*) FROM result WHERE phase = 'screen'")"
# qkv's anchors are 1, 8, 64 and 256: an eval at another M is its range phase
first_range=$(grep -nE '^eval qkv ' "$TMP/limited.log" | awk -F'[: ]' '$4 != 1 && $4 != 8 && $4 != 64 && $4 != 256 { print $1; exit }')
first_router=$(grep -n '^eval router ' "$TMP/limited.log" | head -n 1 | cut -d: -f1)
check "every shape's anchors came first: the router's before qkv's range (lines $first_router, $first_range)" \
	test "${first_router:-0}" -gt 0 -a "${first_range:-0}" -gt "${first_router:-0}"
expect_exit "emit of the stopped sweep: exit 0" 0 "$GEMMTAB" emit --db "$tl" --out "$TMP/tl/t.h"
expect_exit "the same command resumes: exit 0" 0 \
	"$GEMMTAB" sweep --space $space --db "$tl" --cache "$TMP/cache" --time-limit 1h
rows() { db=$1 q "SELECT s.family, c.template, c.params, r.m, r.phase, r.status FROM result r JOIN shape s ON s.id = r.shape_id JOIN candidate c ON c.id = r.candidate_id ORDER BY 1, 2, 3, 4, 5"; }
rows "$db" >"$TMP/full.rows"
rows "$tl" >"$TMP/resumed.rows"
test_cmp "the resumed sweep holds the uninterrupted one's results" "$TMP/full.rows" "$TMP/resumed.rows"
expect_exit "--time-limit 1x: exit 2" 2 "$GEMMTAB" sweep --space $space --db "$tl" --time-limit 1x
check "... naming it" grep -q -- "--time-limit: '1x' is not a duration (90, 90s, 45m, 8h or 2d)" "$TMP/err"

# the loader
bad() {
	printf 'shapes:\n  - {family: a, n: 256, k: 256, w: bf16, x: bf16, y: bf16, tol: 1e-2,\n     %s}\n' "$1" >"$TMP/bad.yaml"
	expect_exit "$2: exit 2" 2 "$GEMMTAB" sweep --space "$TMP/bad.yaml" --dry-run
	check "$2: '$3'" grep -qF -- "$3" "$TMP/err"
}
bad "m: 1.." "a range without an end" "bad.yaml:3:9: m must be a list of Ms ([1, 8, 16]) or a range (1..512), not '1..'"
bad "m: 8..3" "a range that falls" "bad.yaml:3:9: m range 8..3 must be LO..HI with 1 <= LO < HI <= 65536"
bad "m: 1..100000" "a range past the largest M" "m range 1..100000 must be LO..HI"
bad "m: 1..64, anchors: [1, 128]" "an anchor outside the range" "bad.yaml:3:29: anchors must be in [1, 64], not 128"
bad "m: 1..64, anchors: [8, 1]" "anchors that fall" "bad.yaml:3:29: anchors must ascend"
bad "m: [1, 8], anchors: [1]" "anchors of a list" "anchors belong to a range (m: LO..HI)"
bad "m: 1..64, neighbours: [3]" "neighbours of a range" "a range (m: 1..64) times every M of it: it takes no neighbours"
finish

# CLI: the whole supervisor without a GPU, against tests/fake/fake_worker.c
# (GEMMTAB_WORKER): planted fault and hang recorded as fault and timeout
# with the worker restarted; a sweep with retests whose database emit and
# report accept; a rerun that measures nothing; a resume over the screens
# of changed template code; kill -9 and resume; every candidate keyed by
# its template's code hash.
# the tests' gemmtab: it also registers the test-only template planted
GEMMTAB=${GEMMTAB:-$(cd "$(dirname "$0")/../.." && pwd)/build/tests/gemmtab}
. "$(dirname "$0")/lib.sh"

export GEMMTAB_WORKER=$PWD/build/tests/fake_worker
cache=$TMP/cache

# planted fault and hang
db=$TMP/planted.db
expect_exit "planted sweep: exit 0" 0 "$GEMMTAB" sweep --space tests/spaces/planted.yaml --db "$db" --no-retest --deadline 2 --cache "$cache"
st() { q "SELECT r.status FROM result r JOIN candidate c ON c.id = r.candidate_id WHERE c.template = '$1' AND c.params = '$2'"; }
check "planted ok: ok" test "$(st planted mode=ok)" = ok
check "planted fault: fault" test "$(st planted mode=fault)" = fault
check "planted hang: timeout" test "$(st planted mode=hang)" = timeout
check "the gemv after them: ok" test "$(st gemv warps=4,rows=1,tokens=1,unroll=1,split=1,cache=cg)" = ok
check "2 worker restarts" grep -q ' 2 worker restarts' "$TMP/err"

# a fault outside any candidate (the router's baseline breaks the context):
# the worker is replaced before the next request, so no candidate is blamed
db=$TMP/basefault.db
FAKE_WORKER_BASELINE_FAULT=router expect_exit "baseline-fault sweep: exit 0" 0 \
	"$GEMMTAB" sweep --space tests/spaces/fake.yaml --db "$db" --no-retest --cache "$cache"
check "the baseline's fault is reported" grep -q 'illegal address in the baseline' "$TMP/err"
check "no candidate recorded as a fault" test "$(q "SELECT count(*) FROM result WHERE status <> 'ok'")" = 0
check "every router candidate measured" \
	test "$(q "SELECT count(*) FROM result r JOIN shape s ON s.id = r.shape_id WHERE s.family = 'router' AND r.status = 'ok'")" -gt 0

# a sweep with retests, then emit and report
db=$TMP/fake.db
want=$(planned tests/spaces/fake.yaml)
FAKE_WORKER_LOG=$TMP/requests expect_exit "fake sweep: exit 0" 0 \
	"$GEMMTAB" sweep --space tests/spaces/fake.yaml --db "$db" --cache "$cache"
check "every candidate screened once ($want)" test "$(q "SELECT count(*) FROM result WHERE phase = 'screen'")" = "$want"
check "finalists retested with 100 pairs" test "$(q "SELECT count(*) FROM result WHERE phase = 'retest' AND pairs = 100")" -gt 0
check "neighbour Ms retested" test "$(q "SELECT count(*) FROM result WHERE phase = 'retest' AND m IN (2, 7)")" -gt 0
check "the worker's waves recorded (1 below M = 8, 2 from 8)" \
	test "$(q "SELECT group_concat(w, ' ') FROM (SELECT DISTINCT m || ':' || waves AS w FROM result WHERE status = 'ok' ORDER BY m)")" = "1:1 2:1 7:1 8:2"
check "query waves: screens counted by waves" \
	test "$("$GEMMTAB" query --db "$db" --format csv waves | awk -F, 'NR > 1 && $5 == 8 { print $6 }' | sort -u)" = 2
check "the environment carries no source hash" test "$(q "SELECT count(*) FROM env WHERE source_hash = ''")" = 1
check "every candidate carries a 16-digit code key" test "$(q "SELECT count(*) FROM candidate WHERE length(code) != 16")" = 0
check "every candidate is in the variant map" test "$(q "SELECT count(*) FROM candidate WHERE id NOT IN (SELECT candidate_id FROM variant)")" = 0
check "blas_hilo's (no kernel of ours: keyed by its plans) too" test "$(q "SELECT count(*) FROM variant v JOIN candidate c ON c.id = v.candidate_id WHERE c.template = 'blas_hilo'")" -gt 0
check "one text hash per template in the variant map" test "$(q "SELECT count(DISTINCT source_hash) FROM variant")" = "$(q "SELECT count(DISTINCT c.template) FROM variant v JOIN candidate c ON c.id = v.candidate_id")"
FAKE_WORKER_LOG=$TMP/requests expect_exit "rerun: exit 0" 0 \
	"$GEMMTAB" sweep --space tests/spaces/fake.yaml --db "$db" --cache "$cache"
# qkv's neighbour 2 lies between the tuned 1 and 8: both retests reach it
twice=$(grep '^baseline ' "$TMP/requests" | sort | uniq -d | tr '\n' ' ')
check "each baseline timed once over the sweep and the rerun (${twice:-none twice})" test -z "$twice"
check "the neighbours' baselines were timed" grep -q '^baseline qkv 2$' "$TMP/requests"
check "the rerun measured nothing" grep -qE '^sweep: 0 worker restarts' "$TMP/err"
# --retest-since: every finalist's retest older than the time is measured
# again (rows replaced, none added), and a rerun with the same time resumes
retests=$(q "SELECT count(*) FROM result WHERE phase = 'retest'")
expect_exit "--retest-since a bad time: exit 2" 2 "$GEMMTAB" sweep --space tests/spaces/fake.yaml --db "$db" --cache "$cache" --retest-since 2026-11-29T2
check "names the argument" grep -q -- "--retest-since: '2026-11-29T2' is not a UTC time" "$TMP/err"
sleep 1         # every row recorded before the time, to the second
since=$(date -u +%Y-%m-%dT%H:%M:%S)
: >"$TMP/requests"
FAKE_WORKER_LOG=$TMP/requests expect_exit "--retest-since the newest row: exit 0" 0 \
	"$GEMMTAB" sweep --space tests/spaces/fake.yaml --db "$db" --cache "$cache" --retest-since "$since"
check "says how to resume" grep -q -- "rerun with --retest-since $since" "$TMP/err"
check "every retest measured again ($retests), no row added" \
	test "$(grep -c '^eval ' "$TMP/requests")/$(q "SELECT count(*) FROM result WHERE phase = 'retest'")" = "$retests/$retests"
check "none left older than the time" \
	test "$(q "SELECT count(*) FROM result WHERE phase = 'retest' AND recorded_at < '$since'")" = 0
: >"$TMP/requests"
FAKE_WORKER_LOG=$TMP/requests expect_exit "the same time again: exit 0" 0 \
	"$GEMMTAB" sweep --space tests/spaces/fake.yaml --db "$db" --cache "$cache" --retest-since "$since"
check "measures nothing" test "$(grep -c '^eval ' "$TMP/requests")" = 0
# retests are compared within one run (cmd_sweep.c settle(): retests of
# two runs on two machines chose the slower kernel): every row a
# sweep records carries its run; in a copy, every retest made an earlier
# run's and one never retested screen made qkv 1's best: at each M its
# retests reach (1, 2, 7, 8) the best two are measured again, the router
# is left alone; then a stopped sweep's leftover (two runs among qkv 2's
# best) is settled by a rerun that has nothing new to measure
if command -v sqlite3 >/dev/null 2>&1; then
	fdb=$db db=$TMP/rematch.db
	cp "$fdb" "$db"
	check "the sweep's retests all carry one run" \
		test "$(q "SELECT count(DISTINCT run) || '/' || sum(run IS NULL) FROM result WHERE phase = 'retest'")" = 1/0
	qkv="shape_id = (SELECT id FROM shape WHERE family = 'qkv')"
	at1="r.$qkv AND r.m = 1"
	newbie=$(q "SELECT r.candidate_id FROM result r WHERE $at1 AND r.phase = 'screen' AND r.status = 'ok' AND r.candidate_id NOT IN (SELECT candidate_id FROM result r WHERE $at1 AND r.phase = 'retest') ORDER BY r.candidate_id LIMIT 1")
	check "qkv 1 has a screen never retested ($newbie)" test -n "$newbie"
	check "the copy aged, the newcomer made the best screen" sqlite3 "$db" \
		"UPDATE result SET run = 'old' WHERE phase = 'retest'; UPDATE result AS r SET ratio = 100 WHERE $at1 AND r.phase = 'screen' AND r.candidate_id = $newbie"
	# the runs of the best two retests of qkv at M: "distinct runs:old ones"
	best2() { q "SELECT count(DISTINCT run) || ':' || sum(run = 'old') FROM (SELECT run FROM result WHERE phase = 'retest' AND status = 'ok' AND $qkv AND m = $1 ORDER BY ratio DESC, candidate_id LIMIT 2)"; }
	: >"$TMP/requests"
	FAKE_WORKER_LOG=$TMP/requests expect_exit "sweep over the newcomer: exit 0" 0 \
		"$GEMMTAB" sweep --space tests/spaces/fake.yaml --db "$db" --cache "$cache"
	check "the newcomer retested at 1, 2, 7 and 8" test "$(q "SELECT group_concat(m, ' ') FROM (SELECT m FROM result WHERE phase = 'retest' AND candidate_id = $newbie AND $qkv AND run <> 'old' ORDER BY m)")" = "1 2 7 8"
	for m in 1 2 7 8; do
		check "qkv at $m: its best two retests from this run" test "$(best2 $m)" = 1:0
	done
	check "more measured than the newcomer, all of it qkv's" \
		test "$(grep -c '^eval ' "$TMP/requests")" -gt 4 -a \
		"$(grep -c '^eval ' "$TMP/requests")" = "$(grep -c '^eval qkv ' "$TMP/requests")"
	check "the router's retests left as they were" \
		test "$(q "SELECT count(*) FROM result WHERE phase = 'retest' AND run <> 'old' AND shape_id = (SELECT id FROM shape WHERE family = 'router')")" = 0
	: >"$TMP/requests"
	FAKE_WORKER_LOG=$TMP/requests expect_exit "rerun: exit 0" 0 \
		"$GEMMTAB" sweep --space tests/spaces/fake.yaml --db "$db" --cache "$cache"
	check "the rerun measures nothing" test "$(grep -c '^eval ' "$TMP/requests")" = 0
	check "qkv 2's best retest made a stopped run's" sqlite3 "$db" \
		"UPDATE result SET run = 'stopped' WHERE rowid = (SELECT rowid FROM result WHERE phase = 'retest' AND status = 'ok' AND $qkv AND m = 2 ORDER BY ratio DESC, candidate_id LIMIT 1)"
	check "so its best two come from two runs" test "$(best2 2)" = 2:0
	: >"$TMP/requests"
	FAKE_WORKER_LOG=$TMP/requests expect_exit "rerun over it: exit 0" 0 \
		"$GEMMTAB" sweep --space tests/spaces/fake.yaml --db "$db" --cache "$cache"
	check "it retests qkv at 2 only ($(grep -c '^eval ' "$TMP/requests") evals)" \
		test "$(grep -c '^eval ' "$TMP/requests")" -gt 0 -a "$(grep -c '^eval ' "$TMP/requests")" = "$(grep -c '^eval qkv 2$' "$TMP/requests")"
	check "and settles it" test "$(best2 2)/$(q "SELECT count(*) FROM result WHERE run = 'stopped'")" = 1:0/0
	db=$fdb
else
	skip "sweep over stale code" "no sqlite3 command to age a database with"
fi
expect_exit "emit from it: exit 0" 0 "$GEMMTAB" emit --db "$db" --out "$TMP/fake.h"
check "the table has entries" grep -q '"gemv", {' "$TMP/fake.h"
check "the router's hi/lo screened at both Ms" test "$(q "SELECT count(*) FROM result r JOIN candidate c ON c.id = r.candidate_id WHERE c.template = 'blas_hilo' AND r.phase = 'screen' AND r.status = 'ok'")" = 2
expect_exit "probe: exit 0" 0 "$GEMMTAB" probe --db "$db" --space tests/spaces/fake.yaml --pairs 5
check "probe recorded the overhead and a floor per family" test "$(q "SELECT count(*) FROM probe")" = 3
expect_exit "report: exit 0" 0 "$GEMMTAB" report --db "$db"
check "report names the families" grep -q '^router ' "$TMP/out"
check "report marks a winner of two waves (the fake's M = 8), and only those" \
	test "$(awk '/\(2 waves\)$/ { print $1 ":" $2 }' "$TMP/out" | tr '\n' ' ')" = "qkv:8 router:8 "
# the fake floor of the router is 8388608 B / 4 TB/s = 2.097 us: its
# fraction of what runs at M = 1 is 2.097 / run_us (columns 6 and 9)
frac=$(awk '$1 == "router" && $2 == 1 { d = 2.097152 / $6 - $9; print (d < 0.006 && d > -0.006) ? "ok" : $6 " " $9 }' "$TMP/out")
check "report's floor fraction is the probed floor over run_us ($frac)" test "$frac" = ok

# a database resumed after the templates changed: the old code's screens
# (here made to look 100x better) must not crowd out the current code's
# finalists (run 91 retested almost nothing and lost entries)
if command -v sqlite3 >/dev/null 2>&1; then
	db=$TMP/stale.db
	cp "$TMP/fake.db" "$db"
	# (z: not a hex digit, so no code key of this build's)
	check "the copy's code made stale" sqlite3 "$db" "UPDATE candidate SET code = printf('z%015d', id); DELETE FROM variant; UPDATE result SET ratio = ratio * 100 WHERE phase = 'screen'"
	check "no current code left in it" test "$(q "SELECT count(*) FROM candidate WHERE code NOT LIKE 'z%'")" = 0
	expect_exit "sweep over stale code: exit 0" 0 "$GEMMTAB" sweep --space tests/spaces/fake.yaml --db "$db" --cache "$cache"
	current="FROM result r JOIN candidate c ON c.id = r.candidate_id WHERE c.code NOT LIKE 'z%'"
	check "the current code is screened again ($want)" test "$(q "SELECT count(*) $current AND r.phase = 'screen'")" = "$want"
	fresh=$(db=$TMP/fake.db; q "SELECT count(*) FROM result WHERE phase = 'retest'")
	check "and retested as often as in a fresh sweep ($fresh)" test "$(q "SELECT count(*) $current AND r.phase = 'retest'")" = "$fresh"
	expect_exit "emit over stale code: exit 0" 0 "$GEMMTAB" emit --db "$db" --out "$TMP/stale.h"
	check "the fresh sweep's table, entry for entry" \
		test "$(grep '^	{' "$TMP/stale.h")" = "$(grep '^	{' "$TMP/fake.h")"
	# fake.yaml retests each point's 2 best screens: query unretested --top 2
	finalists() { "$GEMMTAB" query --db "$db" --format csv --top 2 unretested 2>/dev/null | tail -n +2; }
	# without --top it reads the best 8 per point: the ranks past the 2
	# fake.yaml retested, and only those
	check "query unretested without --top lists ranks past 2, none of the retested" \
		test "$(q unretested | awk -F, '{ n++; if ($6 <= 2 || $6 > 8) bad++ } END { print (n > 0 && !bad) }')" = 1
	expect_exit "query --top with another name: exit 2" 2 "$GEMMTAB" query --db "$db" --top 2 best
	check "and says only unretested takes it" grep -q -- "--top: only unretested takes a count" "$TMP/err"
	check "no finalist left unretested" test -z "$(finalists)"
	# a finalist's retests lost: query names it, a rerun retests it
	check "a finalist's retests removed" sqlite3 "$db" "DELETE FROM result WHERE phase = 'retest' AND candidate_id = (SELECT candidate_id FROM result WHERE phase = 'retest' AND candidate_id IN (SELECT id FROM candidate WHERE code NOT LIKE 'z%') LIMIT 1)"
	check "query unretested names it" test -n "$(finalists)"
	expect_exit "rerun: exit 0" 0 "$GEMMTAB" sweep --space tests/spaces/fake.yaml --db "$db" --cache "$cache"
	check "the rerun retested it" test -z "$(finalists)"
else
	skip "sweep over stale code" "no sqlite3 command to age a database with"
fi

# kill -9 mid-sweep, then resume
db=$TMP/resume.db
FAKE_WORKER_DELAY_MS=100 "$GEMMTAB" sweep --space tests/spaces/fake.yaml --db "$db" --no-retest --cache "$cache" >/dev/null 2>&1 &
pid=$!
# up to 60 s for the first 4 screens (the sweep compiles first: a loaded
# 2-core machine took more than 10 s once)
for _ in $(seq 1 1200); do
	n=$(q "SELECT count(*) FROM result WHERE phase = 'screen'")
	[ "${n:-0}" -ge 4 ] && break
	sleep 0.05
done
kill_tree $pid
before=$(q "SELECT count(*) FROM result WHERE phase = 'screen'")
q "SELECT shape_id, candidate_id, m, status, cand_us FROM result" | LC_ALL=C sort >"$TMP/before"
check "killed mid-sweep (0 < $before < $want)" test "$before" -gt 0 -a "$before" -lt "$want"
expect_exit "resume: exit 0" 0 "$GEMMTAB" sweep --space tests/spaces/fake.yaml --db "$db" --no-retest --cache "$cache"
check "every candidate once after the resume" test "$(q "SELECT count(*) FROM result WHERE phase = 'screen'")" = "$want"
q "SELECT shape_id, candidate_id, m, status, cand_us FROM result" | LC_ALL=C sort >"$TMP/after"
lost=$(LC_ALL=C comm -23 "$TMP/before" "$TMP/after" | wc -l)
check "nothing recorded before the kill was lost ($lost)" test "$lost" -eq 0
measured=$(grep -oE '^sweep: [0-9]+ ok' "$TMP/err" | grep -oE '[0-9]+')
check "the resume measured only the missing ones (${measured:-?} <= $((want - before)))" \
	test -n "$measured" -a "${measured:-0}" -le $((want - before))
# the cuBLASLt search: the worker names the algorithms, each becomes a
# blas_lt candidate keyed by its attributes; a malformed record (the
# fake's row orientation with FAKE_WORKER_LT_MALFORMED) is refused with a
# warning, not padded; a rerun without it names the same, measures nothing
# and warns of nothing
db=$TMP/lt.db
FAKE_WORKER_LT_MALFORMED=1 FAKE_WORKER_LOG=$TMP/lt.log expect_exit "cublaslt sweep: exit 0" 0 \
	"$GEMMTAB" sweep --space tests/spaces/fake_lt.yaml --db "$db" --cache "$cache"
check "the sweep names 6 blas_lt candidates (3 at each of 2 Ms)" \
	grep -q "cuBLASLt's heuristic named 6 blas_lt candidates (top 8 per orientation)" "$TMP/err"
check "the row orientation's short record is refused" \
	grep -q "cublaslt qkv m=8: cannot read '66,13,35,3,2,0,1,0'" "$TMP/err"
lt="FROM result r JOIN candidate c ON c.id = r.candidate_id WHERE c.template = 'blas_lt'"
check "6 screens, all ok" test "$(q "SELECT count(*) $lt AND r.phase = 'screen' AND r.status = 'ok'")" = 6
check "keyed by orientation and attributes" test "$(q "SELECT count(*) $lt AND c.params = \
	'orient=t,algo=66,tile=11,stages=35,splitk=3,reduction=2,swizzle=0,custom=1,inner=0,cluster=1'")" -ge 1
check "nothing from the row orientation" test "$(q "SELECT count(*) $lt AND c.params LIKE 'orient=row%'")" = 0
check "the router was never asked" bash -c "! grep -q '^lt_algos router' '$TMP/lt.log'"
check "asked at each tuned M and orientation (4 requests)" test "$(grep -c '^lt_algos qkv' "$TMP/lt.log")" = 4
before=$(q "SELECT count(*) FROM result")
expect_exit "cublaslt sweep again, no malformed record: exit 0" 0 "$GEMMTAB" sweep --space tests/spaces/fake_lt.yaml --db "$db" --cache "$cache"
check "the rerun names the same 6" grep -q "named 6 blas_lt candidates" "$TMP/err"
check "and warns of nothing it cannot read" bash -c "! grep -q 'cannot read' '$TMP/err'"
check "the rerun measures nothing" test "$(q "SELECT count(*) FROM result")" = "$before"
# with a splitk list, each algorithm also at the listed counts it does not
# have (the fake's three run split-K 3 at m = 8: two more each); with a
# vary list, 150 made-up cluster variants each: a reply line of ~11 KB,
# past what one kv_out holds
db=$TMP/lt_splitk.db
FAKE_WORKER_LOG=$TMP/lt_splitk.log expect_exit "cublaslt splitk sweep: exit 0" 0 \
	"$GEMMTAB" sweep --space tests/spaces/fake_lt_splitk.yaml --db "$db" --cache "$cache" --no-retest
check "the sweep names 459 blas_lt candidates" \
	grep -q "named 459 blas_lt candidates (top 8 per orientation, with the variants cuBLASLt" "$TMP/err"
check "the request carries the list" grep -q "^lt_algos qkv .*splitk=1,2,3" "$TMP/lt_splitk.log"
check "and the attributes to vary" grep -q "^lt_algos qkv .* vary=cluster,stages" "$TMP/lt_splitk.log"
check "split-K 1 without a reduction" test "$(q "SELECT count(*) $lt AND c.params LIKE \
	'%splitk=1,reduction=0,%'")" = 3
check "split-K 2 with the compute-type reduction" test "$(q "SELECT count(*) $lt AND \
	c.params LIKE '%splitk=2,reduction=2,%'")" = 3
check "the long reply's last variant arrived" test "$(q "SELECT count(*) $lt AND \
	c.params LIKE '%tile=12,%cluster=249'")" = 1
check "459 screens, all ok" test "$(q "SELECT count(*) $lt AND r.phase = 'screen' AND \
	r.status = 'ok'")" = 459
# vary_min_m 8: at m = 1 the request carries neither list (the fake's
# three alone), at m = 8 both (459, as above)
db=$TMP/lt_min_m.db
FAKE_WORKER_LOG=$TMP/lt_min_m.log expect_exit "cublaslt vary_min_m sweep: exit 0" 0 \
	"$GEMMTAB" sweep --space tests/spaces/fake_lt_vary_min_m.yaml --db "$db" --cache "$cache" --no-retest
check "the sweep names 462 blas_lt candidates (3 + 459)" \
	grep -q "named 462 blas_lt candidates" "$TMP/err"
expect_line "m=1's request has no lists" "$TMP/lt_min_m.log" "lt_algos qkv 1"
expect_line "m=8's has both" "$TMP/lt_min_m.log" "lt_algos qkv 8 splitk=1,2,3 vary=cluster,stages"
check "m=1 has only the split-K 2 proposals" test "$(q "SELECT count(*) $lt AND r.m = 1")" = 3
check "m=8 has its variants" test "$(q "SELECT count(*) $lt AND r.m = 8")" = 459
expect_exit "dry run: exit 0" 0 "$GEMMTAB" sweep --space tests/spaces/fake_lt_vary_min_m.yaml --dry-run
check "the dry run says from which m" grep -q "each with its variants from m=8 on" "$TMP/out"
# vary_seeds 2: the first sweep has nothing to send, the second sends the
# 2 best blas_lt candidates of the first (retested first), which the fake
# names again with one new variant each
db=$TMP/lt_seeds.db
FAKE_WORKER_LOG=$TMP/lt_seeds.log expect_exit "cublaslt vary_seeds sweep: exit 0" 0 \
	"$GEMMTAB" sweep --space tests/spaces/fake_lt_vary_seeds.yaml --db "$db" --cache "$cache"
# the whole line: no seeds= after the lists
expect_line "no seeds in an empty database" "$TMP/lt_seeds.log" \
	"lt_algos qkv 8 splitk=1,2,3 vary=cluster,stages"
check "and the sweep says so" grep -q "; 0 seeds from the database varied too)" "$TMP/err"
# the fake's retests read as their screens: the 2 retested ones, best first
# (the fake's figures are fixed by each candidate's fields; test_db's
# lt_seeds_rank checks the ranking itself)
FAKE_WORKER_LOG=$TMP/lt_seeds2.log expect_exit "again: exit 0" 0 \
	"$GEMMTAB" sweep --space tests/spaces/fake_lt_vary_seeds.yaml --db "$db" --cache "$cache"
expect_line "the request carries the 2 best as seeds" "$TMP/lt_seeds2.log" \
	"lt_algos qkv 8 splitk=1,2,3 vary=cluster,stages seeds=66,11,35,3,2,0,1,0,201;66,11,35,3,2,0,1,0,249"
check "the seeds' 2 variants are named too (459 + 2)" grep -q "named 461 blas_lt candidates" "$TMP/err"
check "from 2 seeds" grep -q "; 2 seeds from the database varied too)" "$TMP/err"
check "and screened" test "$(q "SELECT count(*) $lt AND r.phase = 'screen' AND \
	c.params LIKE '%cluster=1___'")" = 2
# vary_steps 6: one sweep climbs the steps four sweeps of one step each
# take (two more on $db above), to the same screens and retests; the
# fake's seed variants win at steps 2 and 3 (each retested, then the next
# step's seed), lose at 4, and step 5 names nothing
for i in 3 4; do
	FAKE_WORKER_LOG=$TMP/lt_seeds$i.log expect_exit "one-step sweep $i: exit 0" 0 \
		"$GEMMTAB" sweep --space tests/spaces/fake_lt_vary_seeds.yaml --db "$db" --cache "$cache"
done
check "four one-step sweeps leave 459 + 3 x 2 screens" \
	test "$(q "SELECT count(*) $lt AND r.phase = 'screen'")" = 465
cands() { q "SELECT c.params || ' ' || r.phase $lt ORDER BY 1" >"$1"; }
cands "$TMP/four.txt"
check "the four sweeps' screens and retests listed (465 + 6 retests)" test "$(wc -l <"$TMP/four.txt")" = 471
db=$TMP/lt_steps.db
FAKE_WORKER_LOG=$TMP/lt_steps.log expect_exit "cublaslt vary_steps 6 sweep: exit 0" 0 \
	"$GEMMTAB" sweep --space tests/spaces/fake_lt_vary_steps.yaml --db "$db" --cache "$cache"
for s in "2 of 6: 2 seeds named 2" "3 of 6: 2 seeds named 2" "4 of 6: 2 seeds named 2" \
	"5 of 6: 0 seeds named 0"; do
	check "step $s new" grep -q "cuBLASLt step $s new blas_lt candidates" "$TMP/err"
done
# step 5's seeds were step 4's: its request would repeat step 4's, so it
# asks nothing (and sends no seed: "0 seeds" above)
check "step 5 asked nothing: 4 requests" test "$(grep -c '^lt_algos' "$TMP/lt_steps.log")" = 4
# steps 2-4 ask for their seeds' variants alone: step 1 named the
# proposals' (and the fake then names no proposal's variant again)
check "step 1 varied everything" bash -c "head -n 1 <(grep '^lt_algos' '$TMP/lt_steps.log') |
	grep -qv seeds_only"
check "steps 2-4 varied their seeds alone" \
	test "$(grep -c '^lt_algos .* seeds_only=1$' "$TMP/lt_steps.log")" = 3
check "qkv 8's baseline timed once over the steps" test "$(grep -c '^baseline qkv 8$' "$TMP/lt_steps.log")" = 1
check "and the climb stopped there (no step 6)" bash -c "! grep -q 'cuBLASLt step 6' '$TMP/err'"
check "step 3's seeds were step 2's winners" grep -q "seeds=66,11,35,3,2,0,1,0,1201;" "$TMP/lt_steps.log"
cands "$TMP/steps.txt"
test_cmp "the same screens and retests as four sweeps of one step" "$TMP/four.txt" "$TMP/steps.txt"
check "every step's screens (459 + 3 x 2)" \
	test "$(q "SELECT count(*) $lt AND r.phase = 'screen'")" = 465
check "the winners of steps 2 and 3 retested" test "$(q "SELECT count(*) $lt AND \
	r.phase = 'retest' AND c.params LIKE '%cluster=_2__'")" = 4
expect_exit "dry run: exit 0" 0 "$GEMMTAB" sweep --space tests/spaces/fake_lt_vary_steps.yaml --dry-run
check "the dry run names the seeds and steps" \
	grep -q "the database's best 2 also varied, in up to 6 steps (the variants are in the estimate" "$TMP/out"
# a later step varies its seeds alone only after a whole reply: with
# every list truncated, each step asks for the proposals' variants again
FAKE_WORKER_LT_TRUNCATED=1 FAKE_WORKER_LOG=$TMP/lt_trunc.log expect_exit \
	"vary_steps 6 with truncated lists: exit 0" 0 "$GEMMTAB" sweep \
	--space tests/spaces/fake_lt_vary_steps.yaml --db "$TMP/lt_trunc.db" --cache "$cache"
check "it says the lists were full" grep -q "the worker's list of variants is full" "$TMP/err"
check "4 requests again" test "$(grep -c '^lt_algos' "$TMP/lt_trunc.log")" = 4
check "none of them seeds_only" bash -c "! grep -q seeds_only '$TMP/lt_trunc.log'"
# a file-size limit (ulimit -f): the write that passes it fails and is
# reported, naming the database and the limit (SIGXFSZ ended the sweep
# without a word); what was committed stands, and the same command then
# resumes to the table an unlimited sweep gives
db=$TMP/fsize.db
expect_exit "range under ulimit -f 420: exit 1" 1 bash -c 'ulimit -f 420 && exec "$@"' limited \
	"$GEMMTAB" sweep --space tests/spaces/range.yaml --db "$db" --cache "$cache"
check "the write error names the file and the limit" grep -q "^gemmtab: fatal: cannot record .* in $db (a file may grow to 430080 bytes here: ulimit -f); stopping" "$TMP/err"
check "the database is whole" test "$(sqlite3 "$db" "PRAGMA integrity_check")" = ok
# (screens: a retest the stopped run recorded is measured again by the
# resumed one, which compares a point's finalists within one run)
sqlite3 "$db" "SELECT id, recorded_at, ratio FROM result WHERE phase = 'screen'" >"$TMP/fsize.before"
check "some results were committed" test -s "$TMP/fsize.before"
expect_exit "the same sweep without the limit: exit 0" 0 "$GEMMTAB" sweep --space tests/spaces/range.yaml --db "$db" --cache "$cache"
sqlite3 "$db" "SELECT id, recorded_at, ratio FROM result WHERE phase = 'screen' AND
	id <= $(tail -n 1 "$TMP/fsize.before" | cut -d'|' -f1)" >"$TMP/fsize.after"
test_cmp "the committed screens are still there" "$TMP/fsize.before" "$TMP/fsize.after"
expect_exit "an unlimited sweep: exit 0" 0 "$GEMMTAB" sweep --space tests/spaces/range.yaml --db "$TMP/fsize-ref.db" --cache "$cache"
for d in fsize fsize-ref; do
	"$GEMMTAB" emit --db "$TMP/$d.db" --out "$TMP/$d.h" --cache "$cache" 2>/dev/null
	grep -v -e "$d" -e "/\* kernels_hash \*/" "$TMP/$d.h" >"$TMP/$d.entries"
done
check "its table has entries" test "$(grep -c '^	{' "$TMP/fsize.entries")" -gt 100
test_cmp "and is the unlimited sweep's" "$TMP/fsize-ref.entries" "$TMP/fsize.entries"
finish

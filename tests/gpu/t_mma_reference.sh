# GPU: every mma_skinny combine mode (mma.sync and wgmma), mma_frag (no
# split-K: tests/spaces/gpu_frag.yaml) and the router's
# hi/lo kernel (direct, partials + reduce, atomics
# into a workspace zeroed inside the call, a cluster) under both weight
# layouts, with and without programmatic dependent launch (pdl: the
# zero-fill a kernel, the next kernel started under the one before), at
# every bf16 family and M = 1 .. 257 around each token-tile edge
# (tests/spaces/gpu_mma.yaml), against the FP64 reference; each
# output is judged after VALIDATE_REPLAYS (10) graph replays from one
# poisoning and one more replay from a fresh one, so a counter or
# zero-fill that is not reset fails, and so does a kernel that reads the
# workspace before the step that writes it is done.
. "$(dirname "$0")/lib.sh"

db=$TMP/mma.db
expect_exit "sweep gpu_mma.yaml: exit 0" 0 "$GEMMTAB" sweep --space tests/spaces/gpu_mma.yaml --db "$db" --no-retest --deadline 10
tail -n 2 "$TMP/err" | sed 's/^/    /'
check "4760 results" test "$(q "SELECT count(*) FROM result")" = 4760
check "every one validated ok" test "$(q "SELECT count(*) FROM result WHERE status = 'ok'")" = 4760
for mode in partials atomic cluster; do
	check "combine $mode: validated under both layouts" \
		test "$(q "SELECT count(DISTINCT c.params LIKE '%layout=tiles%') FROM result r JOIN candidate c ON c.id = r.candidate_id WHERE r.status = 'ok' AND c.params LIKE '%combine=$mode%' AND c.params NOT LIKE '%split=1,%'")" = 2
done
for mode in partials atomic; do
	check "combine $mode: validated with pdl" \
		test "$(q "SELECT count(*) > 0 FROM result r JOIN candidate c ON c.id = r.candidate_id WHERE r.status = 'ok' AND c.params LIKE '%combine=$mode%' AND c.params LIKE '%pdl=1%'")" = 1
done
q "SELECT status, count(*), max(err_global) FROM result GROUP BY status" | sed 's/^/    status, count, worst error: /'
q "SELECT r.status, c.params, r.m, r.reason FROM result r JOIN candidate c ON c.id = r.candidate_id WHERE r.status <> 'ok' LIMIT 5" | sed 's/^/    /'

# wgmma (tests/spaces/gpu_wgmma.yaml): each combine, both layouts
db=$TMP/wgmma.db
expect_exit "sweep gpu_wgmma.yaml: exit 0" 0 "$GEMMTAB" sweep --space tests/spaces/gpu_wgmma.yaml --db "$db" --no-retest --deadline 10
check "wgmma: 765 results, all validated ok" test "$(q "SELECT count(*) FROM result WHERE status = 'ok'")/$(q "SELECT count(*) FROM result")" = 765/765
check "wgmma: uneven splits (7 and 3) among them" test "$(q "SELECT count(*) FROM result r JOIN candidate c ON c.id = r.candidate_id WHERE r.status = 'ok' AND (c.params LIKE '%split=7,%' OR c.params LIKE '%split=3,%')")" = 255
q "SELECT status, count(*), max(err_global) FROM result GROUP BY status" | sed 's/^/    wgmma status, count, worst error: /'

# the wgmma cluster tiles that push their accumulators as they are
# (tests/spaces/gpu_push.yaml: mma_push_direct, 4 and 2 tokens a rank)
db=$TMP/push.db
expect_exit "sweep gpu_push.yaml: exit 0" 0 "$GEMMTAB" sweep --space tests/spaces/gpu_push.yaml --db "$db" --no-retest --deadline 10
check "push: 170 results (85 of split 8), all validated ok" test "$(q "SELECT count(*) FROM result WHERE status = 'ok'")/$(q "SELECT count(*) FROM result")/$(q "SELECT count(*) FROM result r JOIN candidate c ON c.id = r.candidate_id WHERE c.params LIKE '%split=8,%'")" = 170/170/85
q "SELECT status, count(*), max(err_global), max(err_row) FROM result GROUP BY status" | sed 's/^/    push status, count, worst global and row error: /'

# warps on K first (tests/spaces/gpu_wk.yaml): wk 2 and 4, every combine
db=$TMP/wk.db
expect_exit "sweep gpu_wk.yaml: exit 0" 0 "$GEMMTAB" sweep --space tests/spaces/gpu_wk.yaml --db "$db" --no-retest --deadline 10
check "wk: 336 results (168 with wk 4), all validated ok" test "$(q "SELECT count(*) FROM result WHERE status = 'ok'")/$(q "SELECT count(*) FROM result")/$(q "SELECT count(*) FROM result r JOIN candidate c ON c.id = r.candidate_id WHERE c.params LIKE '%wk=4'")" = 336/336/168
q "SELECT status, count(*), max(err_global), max(err_row) FROM result GROUP BY status" | sed 's/^/    wk status, count, worst global and row error: /'

# the router's hi/lo kernels (tests/spaces/gpu_hilo.yaml): 1e-4 bounds,
# atomics (memset or pdl zero-fill) and the cluster combine
db=$TMP/hilo.db
expect_exit "sweep gpu_hilo.yaml: exit 0" 0 "$GEMMTAB" sweep --space tests/spaces/gpu_hilo.yaml --db "$db" --no-retest --deadline 10
check "hi/lo: 612 results (153 with pdl, 153 cluster, 34 of 16 blocks, 153 zero-block), all validated ok" test "$(q "SELECT count(*) FROM result WHERE status = 'ok'")/$(q "SELECT count(*) FROM result")/$(q "SELECT count(*) FROM result r JOIN candidate c ON c.id = r.candidate_id WHERE c.params LIKE '%pdl=1%'")/$(q "SELECT count(*) FROM result r JOIN candidate c ON c.id = r.candidate_id WHERE c.params LIKE '%combine=cluster%'")/$(q "SELECT count(*) FROM result r JOIN candidate c ON c.id = r.candidate_id WHERE c.params LIKE '%split=16,%combine=cluster%'")/$(q "SELECT count(*) FROM result r JOIN candidate c ON c.id = r.candidate_id WHERE c.params LIKE '%combine=zblock%'")" = 612/612/153/153/34/153
q "SELECT status, count(*), max(err_global), max(err_row) FROM result GROUP BY status" | sed 's/^/    hi\/lo status, count, worst global and row error: /'

# mma_frag (tests/spaces/gpu_frag.yaml): no split-K, W packed in 8 x 32
# tiles, both token tiles, both cache policies, one and many batches
db=$TMP/frag.db
expect_exit "sweep gpu_frag.yaml: exit 0" 0 "$GEMMTAB" sweep --space tests/spaces/gpu_frag.yaml --db "$db" --no-retest --deadline 10
check "frag: 135 results (45 with 16 tokens, 9 on 24 rows), all validated ok" test "$(q "SELECT count(*) FROM result WHERE status = 'ok'")/$(q "SELECT count(*) FROM result")/$(q "SELECT count(*) FROM result r JOIN candidate c ON c.id = r.candidate_id WHERE c.params LIKE '%tok=16%'")/$(q "SELECT count(*) FROM result r JOIN candidate c ON c.id = r.candidate_id WHERE c.params LIKE '%nt=3%'")" = 135/135/45/9
q "SELECT status, count(*), max(err_global), max(err_row) FROM result GROUP BY status" | sed 's/^/    frag status, count, worst global and row error: /'
q "SELECT r.status, c.params, r.m, r.reason FROM result r JOIN candidate c ON c.id = r.candidate_id WHERE r.status <> 'ok' LIMIT 5" | sed 's/^/    /'
finish

# CLI: sweep --search new on the fake worker's modelled GPU
# (tests/spaces/search.yaml, M = 1..160): its options; floor pruning of a
# GEMV that cannot beat cuBLAS; 3-pair screens; a race that retests fewer
# finalists than it ran; every grid M measured and every span between
# grid neighbours certified by a held-out M, so emit serves Ms it did not
# measure only inside certified spans; less modelled GPU time than
# --search dense for a table of the same regret within 0.5%; the carry
# part's lower regret where an anchor's cuBLASLt algorithm wins far
# beyond its window; the bridge part's cheaper segments; the thin part's
# fewer screens.
. "$(dirname "$0")/lib.sh"

export GEMMTAB_WORKER=$PWD/build/tests/fake_worker
TRUTH=$PWD/build/tests/fake_truth
NVRTC=$PWD/build/tests/fake_nvrtc.so
space=tests/spaces/search.yaml

expect_exit "--search sparse: usage error" 2 "$GEMMTAB" sweep --space "$space" --search sparse --dry-run
check "names it" grep -q "'sparse' is not dense or new" "$TMP/err"
expect_exit "--search-opts without --search new: usage error" 2 \
	"$GEMMTAB" sweep --space "$space" --search-opts race --dry-run
expect_exit "--search-opts fast: usage error" 2 \
	"$GEMMTAB" sweep --space "$space" --search new --search-opts race,fast --dry-run
check "names the part" grep -q "'fast' is not prune, early, race, grid, carry, cross, bridge, thin or none" "$TMP/err"

# sweep NAME ARGS: a sweep of the space with --search ARGS into
# $TMP/NAME.db, its GPU log, its table and its regret line in
# $TMP/NAME.regret
sweep() {
	local name=$1
	shift
	LD_PRELOAD=$NVRTC FAKE_WORKER_MODEL=h200 FAKE_WORKER_GPU_LOG=$TMP/$name.log expect_exit \
		"sweep --search $*: exit 0" 0 "$GEMMTAB" sweep --space "$space" --db "$TMP/$name.db" \
		--cache "$TMP/cache" --search "$@"
	LD_PRELOAD=$NVRTC expect_exit "emit ($name): exit 0" 0 "$GEMMTAB" emit --db "$TMP/$name.db" \
		--out "$TMP/$name.h" --cache "$TMP/cache"
	"$TRUTH" --space "$space" --table "$TMP/$name.h" | tail -n 1 >"$TMP/$name.regret"
}
gpu_s() { awk '{ s += $5 } END { print s }' "$TMP/$1.log"; }
geo() { sed -n 's/^regret geo=\([0-9.]*\)%.*/\1/p' "$TMP/$1.regret"; }
sweep dense dense
sweep new new
db=$TMP/new.db

check "a GEMV pruned at 128 by its read floor" test "$(q "SELECT count(*) FROM result r JOIN candidate c \
	ON c.id = r.candidate_id WHERE c.template = 'gemv' AND r.m = 128 AND r.status = 'pruned' \
	AND r.reason LIKE 'its read floor%cannot beat cuBLAS%'")" -gt 0
check "no mma_skinny pruned" test "$(q "SELECT count(*) FROM result r JOIN candidate c \
	ON c.id = r.candidate_id WHERE c.template = 'mma_skinny' AND r.reason LIKE 'its read floor%'")" = 0
check "screens of 3 pairs at the anchors, and no screen of other pairs than 3 or a round's 10" \
	test "$(q "SELECT count(*) FROM result WHERE phase = 'screen' AND pairs = 3 \
	AND m IN (1, 8, 32, 128)")" -ge 5 -a "$(q "SELECT count(*) FROM result WHERE phase = 'screen' \
	AND pairs NOT IN (3, 10)")" = 0
raced=$(q "SELECT count(*) FROM result WHERE phase = 'screen' AND pairs = 10 AND m = 32")
retested=$(q "SELECT count(*) FROM result WHERE phase = 'retest' AND m = 32")
check "the race at 32 retests fewer than it ran ($retested of $raced)" \
	test "$retested" -ge 1 -a "$retested" -lt "$raced"
grid="$(seq 1 64) 65 80 81 96 97 112 113 128 129 144 145 160"
missing=$(for m in $grid; do
	test "$(q "SELECT count(*) FROM result WHERE phase = 'retest' AND pairs = 100 AND m = $m")" -gt 0 ||
		echo "$m"; done)
check "every grid M retested (${missing:-none missing})" test -z "$missing"
check "held out: 72 between 65 and 80" test "$(q "SELECT count(*) FROM result WHERE phase = 'retest' AND m = 72")" -gt 0
"$GEMMTAB" report --db "$db" --regret "$TMP/new.h" >"$TMP/served" 2>&1
check "every served M measured or certified" grep -qE \
	'^served: .* ([0-9]+) served Ms were not measured \(\1 of them inside spans certified' "$TMP/served"
check "and some certified" grep -qE 'not measured \([1-9][0-9]* of them' "$TMP/served"
check "nowhere slower than the baseline" grep -q ' slower=0 ' "$TMP/new.regret"
check "under half of dense's GPU time ($(gpu_s new) s against $(gpu_s dense) s)" \
	awk -v a="$(gpu_s new)" -v b="$(gpu_s dense)" 'BEGIN { exit !(a < b / 2) }'
check "regret within 0.5% of dense's ($(geo new)% against $(geo dense)%)" \
	awk -v a="$(geo new)" -v b="$(geo dense)" 'BEGIN { exit !(a <= b + 0.5) }'

# the dry run's estimate (priced with costmodel.h, rounded to the second)
# within 20% of the modelled GPU seconds of each method
for m in dense new; do
	est=$("$GEMMTAB" sweep --space "$space" --dry-run --search $m 2>/dev/null |
		sed -n 's/^estimate: .*GPU \([0-9]*\) s.*/\1/p' | tail -n 1)
	check "the $m estimate ($est s) within 20% of the model's $(gpu_s $m) s" \
		awk -v e="$est" -v g="$(gpu_s $m)" 'BEGIN { d = e - g; if (d < 0) d = -d; exit !(e > 0 && d <= 0.2 * g + 0.5) }'
done

# gemmtab compile remembers this machine's rate in the cache folder, and
# the dry run prices the compile at it
LD_PRELOAD=$NVRTC expect_exit "compile: exit 0" 0 "$GEMMTAB" compile --space "$space" \
	--cache "$TMP/cc" --quiet
check "its rate recorded" grep -qE '^[0-9.]+ instantiations/s \(gemmtab compile: 19 in ' \
	"$TMP/cc/compile-rate"
expect_exit "dry run with that cache: exit 0" 0 "$GEMMTAB" sweep --space "$space" --dry-run \
	--cache "$TMP/cc"
check "prices the compile at it" grep -qE '^estimate: compile [0-9]+ s at [0-9]+/s \(measured\)' "$TMP/out"

# carry (tests/spaces/search_carry.yaml, Llama-3-8B's down over 1..512):
# a cuBLASLt algorithm named at one anchor reaches the grid Ms beyond
# that anchor's window only when carried; the table with carry has the
# lower regret, and runs nowhere slower than the baseline
space=tests/spaces/search_carry.yaml
sweep carry new
sweep nocarry new --search-opts prune,early,race,grid
check "carry: regret below no carry's ($(geo carry)% against $(geo nocarry)%)" \
	awk -v a="$(geo carry)" -v b="$(geo nocarry)" 'BEGIN { exit !(a < b) }'
check "carry: nowhere slower than the baseline" grep -q ' slower=0 ' "$TMP/carry.regret"
# cross (tests/spaces/search_cross.yaml, Llama-3-8B's lm_head over 1..512):
# the table with cross has the lower regret
space=tests/spaces/search_cross.yaml
sweep cross new
sweep nocross new --search-opts prune,early,race,grid,carry
check "cross: regret below no cross's ($(geo cross)% against $(geo nocross)%)" \
	awk -v a="$(geo cross)" -v b="$(geo nocross)" 'BEGIN { exit !(a < b) }'
# from M = 256 on, an anchor screens its neighbour anchors' cuBLASLt
# algorithms too (the cuBLASLt screens at 128 or 512 not at 256)
unwide() { q "SELECT count(DISTINCT r.candidate_id) FROM result r JOIN candidate c \
	ON c.id = r.candidate_id WHERE c.template = 'blas_lt' AND r.phase = 'screen' \
	AND r.m IN (128, 512) AND NOT EXISTS (SELECT 1 FROM result x WHERE x.phase = 'screen' \
	AND x.m = 256 AND x.candidate_id = r.candidate_id)" "$TMP/$1.db"; }
check "cross: every cuBLASLt screen of 128 and 512 screened at 256 ($(unwide cross) left, \
without cross $(unwide nocross))" test "$(unwide cross)" = 0 -a "$(unwide nocross)" -gt 0
# bridge (tests/spaces/search_bridge.yaml, Llama-3-8B's gate_up over
# 1..512): segments whose ends have different winners are retested across
# instead of raced M by M: fewer Ms raced off the grid and its held-out
# Ms (16t + 8), less modelled GPU, the regret within 0.1%
space=tests/spaces/search_bridge.yaml
sweep bridge new
sweep nobridge new --search-opts prune,early,race,grid,carry,cross
filled() { q "SELECT count(DISTINCT m) FROM result WHERE phase = 'retest' AND m > 64 \
	AND m % 16 NOT IN (0, 1, 8) AND m < 512" "$TMP/$1.db"; }
check "bridge: fewer Ms raced between grid Ms ($(filled bridge) against $(filled nobridge))" \
	test "$(filled bridge)" -lt "$(filled nobridge)"
check "bridge: less modelled GPU ($(gpu_s bridge) s against $(gpu_s nobridge) s)" \
	awk -v a="$(gpu_s bridge)" -v b="$(gpu_s nobridge)" 'BEGIN { exit !(a < b) }'
check "bridge: regret within 0.1% of no bridge's ($(geo bridge)% against $(geo nobridge)%)" \
	awk -v a="$(geo bridge)" -v b="$(geo nobridge)" 'BEGIN { exit !(a <= b + 0.1) }'
check "bridge: nowhere slower than the baseline" grep -q ' slower=0 ' "$TMP/bridge.regret"
space=tests/spaces/search.yaml

# thin (tests/spaces/search.yaml, anchors 1, 8, 32, 128): the anchors 8
# and 128 screen their neighbours' best and leave the rest out: fewer
# screens there, the regret within 0.1% of no thin's
sweep nothin new --search-opts prune,early,race,grid,carry,cross,bridge
at8() { q "SELECT count(*) FROM result WHERE phase = 'screen' AND pairs = 3 AND m = 8" "$TMP/$1.db"; }
check "thin: fewer screens at 8 ($(at8 new) against $(at8 nothin))" test "$(at8 new)" -lt "$(at8 nothin)"
check "thin: regret within 0.1% of no thin's ($(geo new)% against $(geo nothin)%)" \
	awk -v a="$(geo new)" -v b="$(geo nothin)" 'BEGIN { exit !(a <= b + 0.1) }'

# each part off: --search-opts none screens with screen_pairs, retests
# without a race and times every M of the range (ranges.c)
sweep bare new --search-opts none
db=$TMP/bare.db
check "none: no 3-pair screen, no pruning" test "$(q "SELECT count(*) FROM result WHERE pairs = 3 \
	OR reason LIKE 'its read floor%'")" = 0
check "none: every M of the range timed" test "$(q "SELECT count(DISTINCT m) FROM result \
	WHERE phase = 'retest' AND m <= 160")" = 160
finish

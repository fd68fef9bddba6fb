# CLI: gemmtab sweep --seed-from (tuner/sweep/seed.c), a table moved to a
# new card, on the fake worker's modelled GPU: a full sweep on the H200
# profile seeds one on the H100 profile, from its database and from its
# table. The seeded sweep screens, at each anchor, only the source's
# finalists there and their neighbours in the grid, and emits a table;
# a bad source is refused naming the file.
. "$(dirname "$0")/lib.sh"

export GEMMTAB_WORKER=$PWD/build/tests/fake_worker
NVRTC=$PWD/build/tests/fake_nvrtc.so
TRUTH=$PWD/build/tests/fake_truth
space=$TMP/seed.yaml
# qkv over M = 1..128 from four anchors: enough candidates that a
# transfer has something to leave out, and Ms past emit's dense grid
cat >"$space" <<'EOF'
sweep: {screen_pairs: 10, retest_pairs: 100, retest_top: 4, range_top: 2, range_pairs: 100,
        deadline_s: 5}
shapes:
  - {family: qkv, n: 2304, k: 8192, w: bf16, x: bf16, y: bf16, tol: 1e-2,
     m: 1..128, anchors: [1, 8, 32, 128]}
cublaslt: {orient: [t], top: 2, splitk: [1, 2]}
templates:
  gemv:
    params: {warps: [2, 4, 8, 16], rows: [1, 2, 4], tokens: [1, 2, 8], unroll: [2, 4],
             split: [1], cache: [cg, nc_na]}
    constraints: ["tokens < 2 * m || tokens == 1", "m <= 16", "rows * unroll <= 8"]
  mma_skinny:
    params: {bm: [64], bn: [8, 16, 32, 64, 128], bk: [64], warps: [4], stages: [3, 4, 5],
             split: [1, 2, 4], cache: [cg], mma: [wgmma], pdl: [0],
             combine: [partials], layout: [rows], wk: [0]}
    constraints: ["m >= 2", "bn >= m && (bn < 2 * m || bn == 8)"]
EOF
src=$TMP/h200.db
sweep() {   # sweep PROFILE DB [ARGS...]
	local profile=$1 out=$2; shift 2
	LD_PRELOAD=$NVRTC FAKE_WORKER_MODEL=$profile "$GEMMTAB" sweep --space "$space" --db "$out" \
		--cache "$TMP/cache" "$@"
}
# screened DB: "m template params" of every screen, sorted
screened() {
	"$GEMMTAB" query --db "$1" --format csv "SELECT r.m, c.template, c.params FROM result r \
		JOIN candidate c ON c.id = r.candidate_id WHERE r.phase = 'screen'" |
		tail -n +2 | tr -d '"' | tr , ' ' | sed 's/ /,/3g' | sort
}

expect_exit "a full sweep on the H200 profile: exit 0" 0 sweep h200 "$src"
LD_PRELOAD=$NVRTC expect_exit "its table: exit 0" 0 "$GEMMTAB" emit --db "$src" --out "$TMP/h200.h" --cache "$TMP/cache"
expect_exit "a full sweep on the H100 profile: exit 0" 0 sweep h100 "$TMP/full.db"
full=$(screened "$TMP/full.db" | wc -l)

# seeded from the database
db=$TMP/seeded.db
expect_exit "seeded from the H200 database: exit 0" 0 sweep h100 "$db" --seed-from "$src"
cp "$TMP/err" "$TMP/seeded.err"
kept=$(sed -n 's/.*--seed-from .*: \([0-9]*\) of \([0-9]*\) candidates kept at 4 anchors.*/\1 \2/p' \
	"$TMP/seeded.err")
check "it says what it kept ($kept)" test -n "$kept"
screened "$db" >"$TMP/screens"
n=$(wc -l <"$TMP/screens")
check "it screens what it kept, once each ($n)" test "$n" = "${kept%% *}"
check "under a third of the full sweep's screens ($n of $full)" test $((3 * n)) -lt "$full"
# the finalists, as seed.c picks them: the 4 best retests at the anchor
# (the source's Ms are this space's) and the best at every M of the
# window between the anchors on either side; every one is screened here
"$GEMMTAB" query --db "$src" --format csv "WITH r AS (SELECT r.m, c.template AS t, c.params \
	AS p, r.ratio, row_number() OVER (PARTITION BY r.m ORDER BY r.ratio DESC) AS rank \
	FROM result r JOIN candidate c ON c.id = r.candidate_id WHERE r.phase = 'retest' AND \
	r.status = 'ok'), a(m, lo, hi) AS (VALUES (1, 1, 8), (8, 1, 32), (32, 8, 128), \
	(128, 32, 1073741824)) SELECT DISTINCT a.m, r.t, r.p FROM a JOIN r ON (r.m = a.m AND \
	r.rank <= 4) OR (r.m BETWEEN a.lo AND a.hi AND r.rank = 1)" |
	tail -n +2 | tr -d '"' | tr , ' ' | sed 's/ /,/3g' | sort >"$TMP/finalists"
# (those the anchor's constraints admit: the full sweep screened them)
comm -12 "$TMP/finalists" <(screened "$TMP/full.db") >"$TMP/admitted"
check "the source's finalists the anchors admit: $(wc -l <"$TMP/admitted") of $(wc -l \
	<"$TMP/finalists")" test -s "$TMP/admitted"
check "each is screened at its anchor" test -z "$(comm -23 "$TMP/admitted" "$TMP/screens")"
# every other screen is a neighbour of a finalist at its anchor: the same
# template, one parameter one step away among the space's values
# (blas_lt has no grid: its neighbours are the heuristic's variants)
check "every other screen is a finalist's grid neighbour" python3 - "$TMP/finalists" "$TMP/screens" <<'EOF'
import sys
grid = {'warps': '2 4 8 16', 'rows': '1 2 4', 'tokens': '1 2 8', 'unroll': '2 4',
        'cache': 'cg nc_na', 'bn': '8 16 32 64 128', 'stages': '3 4 5', 'split': '1 2 4'}
def rows(path):
    out = []
    for line in open(path):
        m, t, p = line.split()
        out.append((int(m), t, dict(kv.split('=') for kv in p.split(','))))
    return out
fin = rows(sys.argv[1])
def near(a, b):
    diff = [k for k in a if a[k] != b[k]]
    if len(diff) != 1:
        return not diff
    k = diff[0]
    if k not in grid:
        return False
    vals = grid[k].split()
    return abs(vals.index(a[k]) - vals.index(b[k])) == 1
bad = [(m, t, p) for m, t, p in rows(sys.argv[2])
       if t != 'blas_lt' and not any(fm == m and ft == t and near(fp, p) for fm, ft, fp in fin)]
for b in bad:
    print('    not a neighbour:', b)
sys.exit(1 if bad else 0)
EOF
check "the climb's later steps are the source's: no step 2" \
	test "$(grep -c 'cuBLASLt step 2' "$TMP/seeded.err")" = 0
# the ranges: every M up to 64, then emit's grid (16t, 16t + 1, the
# range's end) and the held-out middle of each span, and the check points
check "its ranges are timed at every M up to 64" \
	test "$(q "SELECT count(DISTINCT m) FROM result WHERE phase = 'retest' AND m <= 64")" = 64
check "then on emit's grid with the held-out Ms, and the check points" test \
	"$(q "SELECT group_concat(m, ' ') FROM (SELECT DISTINCT m FROM result WHERE phase = \
	'retest' AND m > 64 ORDER BY m)")" = "65 72 80 81 88 96 97 104 112 113 120 128 256 512"
check "where the full sweep times every M of 65..128" \
	test "$(q "SELECT count(DISTINCT m) FROM result WHERE phase = 'retest' AND m BETWEEN 65 \
	AND 128" "$TMP/full.db")" = 64
LD_PRELOAD=$NVRTC expect_exit "its table is emitted: exit 0" 0 \
	"$GEMMTAB" emit --db "$db" --out "$TMP/seeded.h" --cache "$TMP/cache"
entries=$(grep -cE '^	/\* qkv, M [0-9]+' "$TMP/seeded.h")
check "with entries ($entries), for the H100" sh -c "test $entries -gt 0 && grep -q 'H100' '$TMP/seeded.h'"
LD_PRELOAD=$NVRTC "$GEMMTAB" emit --db "$TMP/full.db" \
	--out "$TMP/full.h" --cache "$TMP/cache" >/dev/null 2>&1
geo() { "$TRUTH" --space "$space" --model h100 --table "$1" | sed -n 's/^regret geo=\([0-9.]*\)%.*/\1/p'; }
g_full=$(geo "$TMP/full.h") g_seeded=$(geo "$TMP/seeded.h")
check "its regret on the H100 profile is the full sweep's within 0.5% ($g_seeded% against \
$g_full%)" awk -v s="$g_seeded" -v f="$g_full" 'BEGIN { exit !(s != "" && f != "" && s <= f + 0.5) }'
# the same command again resumes: nothing is screened twice
expect_exit "rerun: exit 0" 0 sweep h100 "$db" --seed-from "$src"
check "screens nothing again" test "$(screened "$db" | wc -l)" = "$n"

# seeded from the table
db=$TMP/from_table.db
expect_exit "seeded from the H200 table: exit 0" 0 sweep h100 "$db" --seed-from "$TMP/h200.h"
check "it reads its entries" grep -q "seed-from $TMP/h200.h: [0-9]* table entries" "$TMP/err"
nt=$(screened "$db" | wc -l)
check "under half the full sweep's screens ($nt of $full)" test $((2 * nt)) -lt "$full"
LD_PRELOAD=$NVRTC expect_exit "its table is emitted: exit 0" 0 \
	"$GEMMTAB" emit --db "$db" --out "$TMP/from_table.h" --cache "$TMP/cache"

# bad sources, each named
expect_exit "a missing source: exit 2" 2 sweep h100 "$TMP/x.db" --seed-from "$TMP/none.db"
check "names it" grep -q -- "--seed-from $TMP/none.db: cannot open it" "$TMP/err"
echo 'not a table' >"$TMP/junk.h"
expect_exit "a file that is neither: exit 2" 2 sweep h100 "$TMP/x.db" --seed-from "$TMP/junk.h"
check "names it" grep -q -- "--seed-from: $TMP/junk.h has no entry gemmtab emit wrote" "$TMP/err"
expect_exit "a database without retests" 0 sweep h100 "$TMP/screens.db" --no-retest
expect_exit "as a source: exit 2" 2 sweep h100 "$TMP/x.db" --seed-from "$TMP/screens.db"
check "names it" grep -q -- "--seed-from $TMP/screens.db: the database holds no retest" "$TMP/err"
expect_exit "with --dry-run: exit 2" 2 "$GEMMTAB" sweep --space "$space" --dry-run --seed-from "$src"
check "says why" grep -q -- '--seed-from picks its candidates from what the GPU names' "$TMP/err"
finish

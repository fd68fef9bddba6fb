# CLI: lab/ab_points.sh pairs two bench reports point by point, tells
# the points that run the same kernel from those that do not, and takes
# the median ratio over the same-kernel ones; refuses a missing file.
. "$(dirname "$0")/../tests/cli/lib.sh"

# two made-up reports in gemmtab bench's md layout (with a floor_frac
# column in the first, none in the second: both layouts are read)
row() { # family m lib dispatch [floor [check]]
	echo "| $1 | $2 | 10.00 | $3 | 1.000 | 0.9..1.1 |${5:+ $5 |} 0.1 | ${6:-ok} | m=$2: $4; calls with x or y not 16-byte aligned run the baseline |"
}
k1="entry 3 (mma_skinny bm=64,bn=8,split=4, m 8-8, retest ratio >= 1.2 over >= 200 pairs)"
k2="entry 4 (gemv warps=8,rows=2, m 1-1, retest ratio >= 1.1 over >= 200 pairs)"
k3="entry 9 (gemv warps=4,rows=2, m 1-1, retest ratio >= 1.1 over >= 200 pairs)"
base="baseline (cublasGemmEx bf16, compute 32F): no table entry covers m=2"
{
	echo "| family | M | base_us | lib_us | speedup | spread | floor_frac | err/tol | check | dispatch |"
	row qkv 8 4.40 "$k1" 0.9
	row qkv 1 2.20 "$k2" 0.9
	row qkv 2 3.60 "$base" 0.9
	row qkv 16 9.00 "$k1" 0.9 FAIL
	row qkv2 12 1.00 "$k1" 0.9
	row oproj 8 9.90 "$k1" 0.9
	echo "| 8 | 65.49 | 38.53 | 1.700 | 0.93 |  |"
} >"$TMP/a.md"
{
	echo "| family | M | base_us | lib_us | speedup | spread | err/tol | check | dispatch |"
	row qkv 8 4.00 "$k1"
	row qkv 1 2.00 "$k3"
	row qkv 2 3.00 "$base"
	row qkv 16 3.00 "$k1"
	row qkv2 12 1.00 "$k1"
	row pooler 8 5.00 "$k1"
} >"$TMP/b.md"
expect_exit "two reports: exit 0" 0 bash lab/ab_points.sh "$TMP/a.md" "$TMP/b.md"
check "a point only one report has is left out" bash -c "! grep -q '^oproj\|^pooler' '$TMP/out'"
check "qkv 8: the same kernel, a/b 1.100" grep -qE '^qkv +8 +a +4.40 +b +4.00 +a/b 1.100 +same ' "$TMP/out"
check "qkv 2: both the baseline's own call count as the same" \
	grep -qE '^qkv +2 .* a/b 1.200 +same +baseline$' "$TMP/out"
check "qkv 1: each its own kernel, both named" \
	grep -qE '^qkv +1 .* own +gemv_warps=8,rows=2 \| gemv_warps=4,rows=2$' "$TMP/out"
check "a point that failed its FP64 check is left out" bash -c "! grep -q '^qkv  *16 ' '$TMP/out'"
check "qkv2 12 paired too (keys sorted as join reads them)" grep -qE '^qkv2 +12 .* a/b 1.000 +same ' "$TMP/out"
# 1.000 (qkv2 12), 1.200 (qkv 2), 1.100 (qkv 8) in the order join reads
# them: the median is neither the middle one unsorted nor the largest
expect_line "the median over the 3 same-kernel points" "$TMP/out" \
	"same kernel at 3 points: median a/b 1.100 ($TMP/a.md against $TMP/b.md)"
expect_exit "a missing report: exit 1" 1 bash lab/ab_points.sh "$TMP/a.md" "$TMP/none.md"
expect_line "it names the file" "$TMP/err" "lab/ab_points.sh: cannot read $TMP/none.md"
echo "score: 1.5" >"$TMP/none.txt"
expect_exit "a report with no point row: exit 1" 1 bash lab/ab_points.sh "$TMP/a.md" "$TMP/none.txt"
expect_line "it names the file" "$TMP/err" \
	"lab/ab_points.sh: no row of $TMP/none.txt reads as a bench report's point"
expect_exit "one argument: exit 2" 2 bash lab/ab_points.sh "$TMP/a.md"
finish

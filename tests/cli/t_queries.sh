# CLI: docs/queries.md's example queries, each run by sqlite3 alone
# (read-only) on the committed database it names, and its answer checked
# against the same figure found another way (string matching on params,
# the table's own comment, plain counts).
. "$(dirname "$0")/lib.sh"
if ! command -v sqlite3 >/dev/null; then
	skip "docs/queries.md's queries" "no sqlite3 here"
	finish
fi
# block TITLE: the sql block whose first line is "-- TITLE"
block() {
	python3 - "$1" <<'PY'
import re, sys
text = open("docs/queries.md").read()
for b in re.findall(r"```sql\n(.*?)```", text, re.S):
    if b.splitlines()[0] == "-- " + sys.argv[1]:
        print(b, end="")
PY
}
# run TITLE [DB]: the block's rows, csv without header, in $TMP/rows
run() {
	block "$1" >"$TMP/q.sql"
	sqlite3 -readonly -csv "${2:-db/h200.db}" <"$TMP/q.sql" >"$TMP/rows" 2>"$TMP/qerr"
	local rc=$?
	check "'$1' runs (rc $rc, $(wc -l <"$TMP/rows") rows)" test $rc -eq 0 -a -s "$TMP/q.sql" -a ! -s "$TMP/qerr" -a -s "$TMP/rows"
}
n=$(python3 -c "import re; print(len(re.findall(r'\`\`\`sql', open('docs/queries.md').read())))")
check "docs/queries.md has its 7 queries ($n)" test "$n" = 7
h() { sqlite3 -readonly "${2:-db/h200.db}" "$1"; }

run "best per point"
want=$(h "SELECT count(DISTINCT r.m) FROM result r JOIN shape s ON s.id = r.shape_id WHERE r.env_id = 1 AND s.family = 'qkv' AND r.status = 'ok' AND r.ratio IS NOT NULL")
check "one row per measured qkv M ($want)" test "$(wc -l <"$TMP/rows")" = "$want"

run "a parameter's effect"
got=$(awk -F, '{ s += $2 } END { print s }' "$TMP/rows")
want=$(h "SELECT count(*) FROM result r JOIN shape s ON s.id = r.shape_id JOIN candidate c ON c.id = r.candidate_id WHERE r.env_id = 1 AND s.family = 'qkv' AND r.m = 32 AND r.phase = 'screen' AND r.status = 'ok' AND c.template = 'mma_skinny' AND ',' || c.params || ',' LIKE '%,split=%'")
check "its screens are every mma_skinny qkv 32 screen with a split ($got, by string matching $want)" test "$got" = "$want"

run "two parameters by json_extract"
got=$(head -1 "$TMP/rows" | cut -d, -f4)
want=$(h "SELECT round(max(r.ratio), 3) FROM result r JOIN shape s ON s.id = r.shape_id JOIN candidate c ON c.id = r.candidate_id WHERE r.env_id = 1 AND s.family = 'router' AND r.m = 128 AND c.template = 'mma_hilo' AND r.phase = 'screen' AND r.status = 'ok'")
check "its top row is the best mma_hilo router 128 screen ($got, $want)" test "$got" = "$want"
want=$(h "SELECT count(*) FROM result r JOIN shape s ON s.id = r.shape_id JOIN candidate c ON c.id = r.candidate_id WHERE r.env_id = 1 AND s.family = 'router' AND r.m = 128 AND c.template = 'mma_hilo' AND r.phase = 'screen' AND r.status = 'ok'")
check "and its groups hold all $want of them" test "$(awk -F, '{ s += $3 } END { print s }' "$TMP/rows")" = "$want"

run "failures by reason (db/quick.db)" db/quick.db
want=$(h "SELECT count(*) FROM result WHERE env_id = 1 AND status <> 'ok'" db/quick.db)
check "it counts every failure ($want)" test "$(awk -F, '{ s += $3 } END { print s }' "$TMP/rows")" = "$want" -a "$want" -gt 0

run "what a table entry rests on"
got=$(awk -F, 'NR == 1 || $3 < min { min = $3 } END { printf "%.3f", min }' "$TMP/rows")
want=$(grep -A6 'router, M 4..8: mma_hilo bm=32,bn=8,bk=128,warps=4,stages=4,split=16,cache=cg,combine=zblock,mma=sync,pdl=0' runtime/tables/h200.h |
	sed -n 's/.*}, \([0-9.]*\), \([0-9]*\) },$/\1/p' | head -1)
check "its smallest ratio is the entry's ratio_min in runtime/tables/h200.h ($got, $want)" test -n "$want" -a "$got" = "$want"
check "and every retest has >= 100 pairs" bash -c "awk -F, '\$2 < 100 { bad++ } END { exit bad }' '$TMP/rows'"

run "the baseline itself"
want=$(h "SELECT count(*) FROM baseline WHERE env_id = 1 AND m IN (1, 32, 256)")
check "one row per baseline at M 1, 32, 256 ($want)" test "$(wc -l <"$TMP/rows")" = "$want"

run "screens never retested"
check "at most 8 per point, the best rank 1 or more" bash -c "awk -F, '\$3 > 8 || \$4 < 1 { bad++ } END { exit bad }' '$TMP/rows'"
want=$("$GEMMTAB" query --db db/h200.db --format csv unretested | tail -n +2 | wc -l)
check "the view's rank <= 8 is gemmtab query unretested ($want rows)" \
	test "$(awk -F, '{ s += $3 } END { print s }' "$TMP/rows")" = "$want"
finish

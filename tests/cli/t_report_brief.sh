# CLI: a report of many (family, M) rows is given in brief in text and md:
# a line per family and run of Ms with one winner (db/h100.db: 2,572
# rows, every M of 1..512 measured); --full lists every row; a small
# report lists every row as before; csv and json stay whole.
. "$(dirname "$0")/lib.sh"

db=db/h100.db
if [ ! -f "$db" ]; then
	skip "report in brief" "no $db (make unpacks db/h100.db.gz)"
	finish
fi
cp "$db" "$TMP/r.db"
expect_exit "report: exit 0" 0 "$GEMMTAB" report --db "$TMP/r.db"
cp "$TMP/out" "$TMP/brief"
check "its family section is in brief" grep -q '^Per family and M range$' "$TMP/brief"
check "... and says how many rows it summarises" grep -q '^2572 rows in brief' "$TMP/brief"
check "... in under 400 lines ($(wc -l <"$TMP/brief"))" test "$(wc -l <"$TMP/brief")" -lt 400
check "a run of Ms with one winner is one line (oproj 49..2048: 466 rows, cuBLAS)" \
	grep -qE '^oproj +49\.\.2048 +466 +1\.000 +1\.000\.\.1\.000 +cublas$' "$TMP/brief"
check "a single M is a line of its own" grep -qE '^oproj +1 +1 +1\.[0-9]{3} ' "$TMP/brief"
check "the loads and the score follow" grep -q '^score: ' "$TMP/brief"
# the runs cover every row: their counts add up to 2572
n=$(awk '/^--------------/ {on = 1; next} on && NF == 0 {on = 0} on {s += $3} END {print s}' "$TMP/brief")
check "the runs' rows add up to every row ($n)" test "$n" = 2572
expect_exit "report --full: exit 0" 0 "$GEMMTAB" report --db "$TMP/r.db" --full
check "--full lists every (family, M) row" test "$(grep -cE '^(qkv|oproj|pooler|unpooler|unpooler_slice|router) +[0-9]+ +(retest|screen|-)' "$TMP/out")" = 2572
check "... under its usual heading" grep -q '^Per family and M$' "$TMP/out"
expect_exit "report --format md: exit 0" 0 "$GEMMTAB" report --db "$TMP/r.db" --format md
check "md is in brief too" grep -q 'Per family and M range' "$TMP/out"
expect_exit "report --format csv: exit 0" 0 "$GEMMTAB" report --db "$TMP/r.db" --format csv
check "csv stays whole (2572 rows and a header)" test "$(wc -l <"$TMP/out")" = 2573

# a small report: every row, as before
export GEMMTAB_WORKER=$PWD/build/tests/fake_worker
expect_exit "a fake sweep: exit 0" 0 "$GEMMTAB" sweep --space tests/spaces/fake.yaml \
	--db "$TMP/small.db" --cache "$TMP/cache"
expect_exit "its report: exit 0" 0 "$GEMMTAB" report --db "$TMP/small.db"
check "a report of few rows lists each" grep -q '^Per family and M$' "$TMP/out"
finish

# CLI: emit, report and bench trust a database only after PRAGMA
# integrity_check, and emit and report only
# rows the tuner can write: a damaged file is refused with the check's
# finding, a row with an M outside 1..65536 or a figure that is not a
# finite number above 0 (an infinity, text) is refused naming the row;
# nothing is written, and the clean database still emits.
. "$(dirname "$0")/lib.sh"

if ! command -v sqlite3 >/dev/null 2>&1; then
	skip "corrupt databases" "no sqlite3 shell to damage one with"
	finish
fi
export GEMMTAB_WORKER=$PWD/build/tests/fake_worker
db=$TMP/t.db
expect_exit "sweep: exit 0" 0 "$GEMMTAB" sweep --space tests/spaces/fake.yaml --db "$db" --cache "$TMP/c"
expect_exit "emit of the clean database: exit 0" 0 "$GEMMTAB" emit --db "$db" --out "$TMP/clean.h" --cache "$TMP/c"

# damage CASE SQL: a copy of the database changed by SQL, at $TMP/CASE.db
damage() {
	cp "$db" "$TMP/$1.db"
	sqlite3 "$TMP/$1.db" "$2"
}

# an index's pages left behind without its schema row: the file no longer
# adds up (what a flipped byte in a b-tree does)
damage orphan "PRAGMA writable_schema = ON; DELETE FROM sqlite_schema WHERE name = 'result_by_slice'; PRAGMA writable_schema = OFF;"
expect_exit "a damaged file: exit 1" 1 "$GEMMTAB" emit --db "$TMP/orphan.db" --out "$TMP/orphan.h" --cache "$TMP/c"
check "names integrity_check and its finding" grep -qE "fails PRAGMA integrity_check \((.*never used|[0-9]+ pages are in no table, index or freelist)" "$TMP/err"
check "writes nothing" test ! -e "$TMP/orphan.h"

# a result row whose M changed under its index (what one flipped byte of
# the M in a row's record does: the issue's "measured M 15"). The index's
# schema row is taken out while the row changes, so the index keeps the
# old M; quick_check does not compare them, integrity_check does.
damage flip "PRAGMA writable_schema = ON; CREATE TABLE keep AS SELECT * FROM sqlite_schema WHERE name = 'result_by_slice'; DELETE FROM sqlite_schema WHERE name = 'result_by_slice';"
sqlite3 "$TMP/flip.db" "UPDATE result SET m = 15 WHERE id = (SELECT min(id) FROM result WHERE m = 2 AND phase = 'retest')"
sqlite3 "$TMP/flip.db" "PRAGMA writable_schema = ON; INSERT INTO sqlite_schema SELECT * FROM keep; DROP TABLE keep;"
check "the flipped M is in the table" test "$(sqlite3 "$TMP/flip.db" "SELECT count(*) FROM result NOT INDEXED WHERE m = 15")" = 1
check "quick_check misses it" test "$(sqlite3 "$TMP/flip.db" "PRAGMA quick_check")" = ok
expect_exit "emit refuses it: exit 1" 1 "$GEMMTAB" emit --db "$TMP/flip.db" --out "$TMP/flip.h" --cache "$TMP/c"
check "naming integrity_check and the index" grep -q "fails PRAGMA integrity_check (.*result_by_slice" "$TMP/err"
check "writes nothing" test ! -e "$TMP/flip.h"
expect_exit "report refuses it: exit 1" 1 "$GEMMTAB" report --db "$TMP/flip.db"
check "naming integrity_check" grep -q "fails PRAGMA integrity_check" "$TMP/err"
expect_exit "bench refuses it as --floors: exit 2 (its input errors)" 2 "$GEMMTAB" bench --space tests/spaces/fake.yaml --floors "$TMP/flip.db" --pairs 2
check "naming integrity_check" grep -q "fails PRAGMA integrity_check" "$TMP/err"

damage negm "UPDATE result SET m = -8 WHERE id = (SELECT min(id) FROM result WHERE phase = 'retest' AND status = 'ok')"
expect_exit "a negative M: exit 1" 1 "$GEMMTAB" emit --db "$TMP/negm.db" --out "$TMP/negm.h" --cache "$TMP/c"
check "names the row and the check" grep -q "has M '-8', not 1..65536" "$TMP/err"
damage bigm "UPDATE result SET m = 100000000 WHERE id = (SELECT min(id) FROM result WHERE phase = 'retest' AND status = 'ok')"
expect_exit "M = 1e8: exit 1" 1 "$GEMMTAB" emit --db "$TMP/bigm.db" --out "$TMP/bigm.h" --cache "$TMP/c"
check "names it" grep -q "has M '100000000', not 1..65536" "$TMP/err"
damage inf "UPDATE result SET ratio = 1e999 WHERE id = (SELECT min(id) FROM result WHERE phase = 'retest' AND status = 'ok')"
expect_exit "an infinite ratio: exit 1" 1 "$GEMMTAB" emit --db "$TMP/inf.db" --out "$TMP/inf.h" --cache "$TMP/c"
check "names the figure" grep -q "has ratio 'Inf', not a finite number above 0" "$TMP/err"
damage text "UPDATE result SET ratio = 'fast' WHERE id = (SELECT min(id) FROM result WHERE phase = 'retest' AND status = 'ok')"
expect_exit "a text ratio: exit 1" 1 "$GEMMTAB" emit --db "$TMP/text.db" --out "$TMP/text.h" --cache "$TMP/c"
check "names it" grep -q "has ratio 'fast', not a finite number above 0" "$TMP/err"
expect_exit "report refuses it too: exit 1" 1 "$GEMMTAB" report --db "$TMP/text.db"
expect_exit "the clean database still emits: exit 0" 0 "$GEMMTAB" emit --db "$db" --out "$TMP/again.h" --cache "$TMP/c"
check "the same entries" test "$(grep '^	{' "$TMP/again.h")" = "$(grep '^	{' "$TMP/clean.h")"

finish

# CLI: hardening, round two (issue 45). Each block is the reproducer of one
# defect, on copies of a fake sweep's database:
#   D1  a reader waits out a writer's lock and reads only what was
#       committed; a hot journal a killed writer left is refused by the
#       readers, naming the journal and `gemmtab migrate`, which rolls it
#       back; every database gemmtab writes is left in WAL mode
#   D2  merge checks every input as emit does and refuses a damaged one by
#       name, merging nothing
#   D3  one lock per file: a symlink or a hard link to a database being
#       swept meets the sweep's lock, for sweep, probe, merge, prune and
#       migrate
#   D7  a file with CR-only line endings: reader errors at the right line
#   D8  query refuses a database that fails integrity_check
#   D9  the integrity check of a read-only reader sees CHECK constraints
#   D12 a shape with n = 0 in a database is refused where it is read
. "$(dirname "$0")/lib.sh"
if ! command -v sqlite3 >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1; then
	skip "hardening" "no sqlite3 shell or python3 to damage a database with"
	finish
fi
export GEMMTAB_WORKER=$PWD/build/tests/fake_worker
cache=$TMP/c
db=$TMP/t.db
"$GEMMTAB" sweep --space tests/spaces/fake.yaml --db "$db" --cache "$cache" >/dev/null 2>&1
check "a sweep leaves WAL mode" test "$(sqlite3 "$db" "PRAGMA journal_mode")" = wal
"$GEMMTAB" emit --db "$db" --out "$TMP/clean.h" --cache "$cache" >/dev/null 2>&1
n99() { q "SELECT count(*) FROM result WHERE ratio = 99" "$1"; }
# a copy in rollback-journal mode, as db/h200.db and prune's output were
rb=$TMP/rb.db
cp "$db" "$rb"
sqlite3 "$rb" "PRAGMA journal_mode = delete" >/dev/null

# --- D1: a writer holds its lock for 3 s over an uncommitted update that
# spilled to the file (a cache of 2 pages), then rolls it back
python3 - "$rb" "$TMP/held" <<'EOF' &
import os, sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("pragma cache_size = 2")
c.execute("begin exclusive")
c.execute("update result set ratio = 99 where id % 2 = 0")
open(sys.argv[2], "w").close()
time.sleep(3)
c.execute("rollback")
EOF
writer=$!
for _ in $(seq 1 100); do [ -e "$TMP/held" ] && break; sleep 0.1; done
expect_exit "D1: query under a held write lock waits, then reads: exit 0" 0 \
	"$GEMMTAB" query --db "$rb" --format csv "SELECT count(*) FROM result WHERE ratio = 99"
check "D1: it read 0 uncommitted rows" test "$(tail -n 1 "$TMP/out")" = 0
wait "$writer"
expect_exit "D1: emit of it afterwards: exit 0" 0 "$GEMMTAB" emit --db "$rb" --out "$TMP/rb.h" --cache "$cache"
# the table less its comments (which name the database and the output)
entries() { grep -v -e '^/\*' -e '^ \*' -e 'kernels.cu' -e 'generated_by' -e 'kernels_hash' "$1"; }
check "D1: the committed table" cmp -s <(entries "$TMP/clean.h") <(entries "$TMP/rb.h")

# --- D1: a hot journal: a writer killed in an uncommitted update
hot=$TMP/hot.db
cp "$rb" "$hot"
python3 - "$hot" <<'EOF'
import os, sqlite3, sys
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("pragma cache_size = 2")
c.execute("begin exclusive")
c.execute("update result set ratio = 99.0, cand_us = 0.001")
os._exit(0)
EOF
check "D1: the journal is there" test -s "$hot-journal"
for cmd in query emit report; do
	case $cmd in
	query) args=(best) ;;
	emit) args=(--out "$TMP/hot.h" --cache "$cache") ;;
	report) args=() ;;
	esac
	expect_exit "D1: $cmd of a database with a hot journal: exit 1" 1 "$GEMMTAB" $cmd --db "$hot" "${args[@]}"
	check "D1: $cmd names the journal and the recovering command" grep -q \
		"its hot journal $hot-journal holds a write that never committed .*run \`gemmtab migrate --db $hot\`" "$TMP/err"
done
check "D1: emit wrote nothing" test ! -e "$TMP/hot.h"
check "D1: the journal is left for its recovery" test -s "$hot-journal"
expect_exit "D1: gemmtab migrate rolls it back: exit 0" 0 "$GEMMTAB" migrate --db "$hot"
expect_line "D1: and says so" "$TMP/out" "$hot: rolled back its hot journal (a killed writer's uncommitted write); schema 6, current"
check "D1: 0 uncommitted rows read after it" test "$(n99 "$hot")" = 0
check "D1: and the database in WAL mode" test "$(sqlite3 "$hot" "PRAGMA journal_mode")" = wal
# the same hot journal on a folder the reader may not write
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1 && command -v runuser >/dev/null 2>&1; then
	R=$TMP/ro
	mkdir -p "$R"
	cp "$rb" "$R/t.db"
	python3 - "$R/t.db" <<'EOF'
import os, sqlite3, sys
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("pragma cache_size = 2")
c.execute("begin exclusive")
c.execute("update result set ratio = 99.0")
os._exit(0)
EOF
	cp "$GEMMTAB" "$R/gemmtab"
	chmod 755 "$TMP"
	chmod 555 "$R"
	chmod 444 "$R/t.db" "$R/t.db-journal"
	expect_exit "D1: query as nobody of a read-only folder with a hot journal: exit 1" 1 \
		runuser -u nobody -- env GEMMTAB_WORKER= "$R/gemmtab" query --db "$R/t.db" best
	check "D1: names the journal" grep -q "hot journal $R/t.db-journal" "$TMP/err"
	chmod 755 "$R"
else
	skip "D1: a hot journal in a read-only folder" "not root, or no user nobody or runuser"
fi
# every writer leaves WAL mode
cp "$rb" "$TMP/m.db"
"$GEMMTAB" migrate --db "$TMP/m.db" >/dev/null 2>&1
check "D1: migrate leaves WAL mode" test "$(sqlite3 "$TMP/m.db" "PRAGMA journal_mode")" = wal
cp "$rb" "$TMP/p.db"
"$GEMMTAB" prune --db "$TMP/p.db" --cache "$cache" >/dev/null 2>&1
check "D1: prune leaves WAL mode" test "$(sqlite3 "$TMP/p.db" "PRAGMA journal_mode")" = wal
check "D1: its -wal file folded in" test ! -s "$TMP/p.db-wal"
"$GEMMTAB" merge --db "$TMP/mo.db" "$rb" >/dev/null 2>&1
check "D1: merge leaves WAL mode" test "$(sqlite3 "$TMP/mo.db" "PRAGMA journal_mode")" = wal

# the committed databases: bytes 18 and 19 of the header are 2 in WAL mode
check "D1: db/h200.db.gz is in WAL mode" test "$(gzip -dc db/h200.db.gz | head -c 20 | tail -c 2 | od -An -tu1 | tr -d ' ')" = 22
check "D1: db/quick.db is in WAL mode" test "$(head -c 20 db/quick.db | tail -c 2 | od -An -tu1 | tr -d ' ')" = 22

# --- D2: merge refuses a damaged input by name and merges nothing
damage() {   # NAME SQL: a copy of the database changed by SQL, at $TMP/NAME.db
	cp "$db" "$TMP/$1.db"
	sqlite3 "$TMP/$1.db" "PRAGMA journal_mode = delete; $2" >/dev/null
}
# an index that disagrees with its table (one flipped M)
damage flip "PRAGMA writable_schema = ON; CREATE TABLE keep AS SELECT * FROM sqlite_schema WHERE name = 'result_by_slice'; DELETE FROM sqlite_schema WHERE name = 'result_by_slice';"
sqlite3 "$TMP/flip.db" "UPDATE result SET m = 15 WHERE id = (SELECT min(id) FROM result WHERE m = 2 AND phase = 'retest')"
sqlite3 "$TMP/flip.db" "PRAGMA writable_schema = ON; INSERT INTO sqlite_schema SELECT * FROM keep; DROP TABLE keep;"
damage negm "UPDATE result SET m = -8 WHERE id = (SELECT min(id) FROM result WHERE phase = 'retest' AND status = 'ok')"
for bad in flip negm; do
	rm -f "$TMP/out.db"
	expect_exit "D2: merge of a clean input and the damaged $bad: exit 1" 1 \
		"$GEMMTAB" merge --db "$TMP/out.db" "$rb" "$TMP/$bad.db"
	check "D2: names the input" grep -q "merge: $TMP/$bad.db refused: nothing merged" "$TMP/err"
	check "D2: creates no output" test ! -s "$TMP/out.db"
done
expect_exit "D2: merge of the flip alone: exit 1" 1 "$GEMMTAB" merge --db "$TMP/o2.db" "$TMP/flip.db"
check "D2: names integrity_check's finding" grep -q "flip.db fails PRAGMA integrity_check" "$TMP/err"
cp "$db" "$TMP/into.db"
sum=$(md5sum <"$TMP/into.db")
expect_exit "D2: merge of a damaged input into a database: exit 1" 1 \
	"$GEMMTAB" merge --db "$TMP/into.db" "$TMP/negm.db"
check "D2: the database is left as it was" test "$(md5sum <"$TMP/into.db")" = "$sum"

# --- D8: query checks the database first
expect_exit "D8: query of the flipped database: exit 1" 1 "$GEMMTAB" query --db "$TMP/flip.db" best
check "D8: names integrity_check" grep -q "fails PRAGMA integrity_check (.*result_by_slice" "$TMP/err"
check "D8: and prints no answer" test ! -s "$TMP/out"

# --- D9: a row that breaks a CHECK constraint, read by a read-only reader
damage chk "PRAGMA ignore_check_constraints = 1; UPDATE result SET phase = 'guess' WHERE id = (SELECT min(id) FROM result WHERE phase = 'screen')"
check "D9: the row is there" test "$(sqlite3 "$TMP/chk.db" "SELECT count(*) FROM result WHERE phase = 'guess'")" = 1
expect_exit "D9: emit refuses it: exit 1" 1 "$GEMMTAB" emit --db "$TMP/chk.db" --out "$TMP/chk.h" --cache "$cache"
check "D9: names the CHECK constraint" grep -q "fails PRAGMA integrity_check (CHECK constraint failed in result)" "$TMP/err"
check "D9: writes nothing" test ! -e "$TMP/chk.h"
expect_exit "D9: query refuses it too: exit 1" 1 "$GEMMTAB" query --db "$TMP/chk.db" best

# --- D12: a shape with n = 0
damage n0 "UPDATE shape SET n = 0 WHERE family = 'qkv'"
expect_exit "D12: emit of a shape with n = 0: exit 1" 1 "$GEMMTAB" emit --db "$TMP/n0.db" --out "$TMP/n0.h" --cache "$cache"
check "D12: names the shape and the check" grep -q "shape qkv has n '0' and k '8192', not integers above 0" "$TMP/err"
check "D12: writes nothing" test ! -e "$TMP/n0.h"
expect_exit "D12: report refuses it: exit 1" 1 "$GEMMTAB" report --db "$TMP/n0.db"
expect_exit "D12: merge refuses it: exit 1" 1 "$GEMMTAB" merge --db "$TMP/o3.db" "$TMP/n0.db"
sed 's/n: 2304/n: 0/' tests/spaces/fake.yaml >"$TMP/n0.yaml"
expect_exit "D12: a space with n = 0: exit 2" 2 "$GEMMTAB" sweep --space "$TMP/n0.yaml" --dry-run
expect_line "D12: names the place and the range" "$TMP/err" "$TMP/n0.yaml:10:22: n must be in [1, 1048576], not 0"

# --- D7: CR-only line endings
printf 'shapes:\r  - family: a\r    n: 1\r    k: "\001"\r' >"$TMP/cr.yaml"
printf 'shapes:\r\n  - family: a\r\n    n: 1\r\n    k: "\001"\r\n' >"$TMP/crlf.yaml"
for f in cr crlf; do
	expect_exit "D7: a control character in a $f file: exit 2" 2 "$GEMMTAB" sweep --space "$TMP/$f.yaml" --dry-run
	expect_line "D7: the error at 4:9" "$TMP/err" "$TMP/$f.yaml:4:9: invalid input: control characters are not allowed"
done

# --- D3: a sweep held through one name locks every name of the file
l=$TMP/l.db
FAKE_WORKER_DELAY_MS=200 "$GEMMTAB" sweep --space tests/spaces/fake.yaml --db "$l" --cache "$cache" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 300); do [ -s "$l.lock" ] && break; sleep 0.1; done
ln -s "$l" "$TMP/sym.db"
mkdir -p "$TMP/other"
ln "$l" "$TMP/other/hard.db"
expect_exit "D3: a sweep through the symlink: exit 1" 1 "$GEMMTAB" sweep --space tests/spaces/fake.yaml --db "$TMP/sym.db" --cache "$cache"
check "D3: is told who holds it" grep -q "is being swept by pid $pid since 20" "$TMP/err"
# the holder's line is beside the name it took: through a hard link, its pid
by_pid="is being written by pid $pid, through another name of the file"
expect_exit "D3: a sweep through the hard link: exit 1" 1 "$GEMMTAB" sweep --space tests/spaces/fake.yaml --db "$TMP/other/hard.db" --cache "$cache"
check "D3: is told the holder's pid" grep -q "$by_pid" "$TMP/err"
expect_exit "D3: probe through the hard link: exit 1" 1 "$GEMMTAB" probe --db "$TMP/other/hard.db" --space tests/spaces/fake.yaml
check "D3: is told the holder's pid" grep -q "$by_pid" "$TMP/err"
expect_exit "D3: merge into the symlink: exit 1" 1 "$GEMMTAB" merge --db "$TMP/sym.db" "$rb"
check "D3: is told who holds it" grep -q "is being swept by pid $pid" "$TMP/err"
expect_exit "D3: prune through the hard link: exit 1" 1 "$GEMMTAB" prune --db "$TMP/other/hard.db" --cache "$cache"
check "D3: is told the holder's pid" grep -q "$by_pid" "$TMP/err"
expect_exit "D3: migrate through the symlink: exit 1" 1 "$GEMMTAB" migrate --db "$TMP/sym.db"
check "D3: is told who holds it" grep -q "is being swept by pid $pid" "$TMP/err"
kill_tree "$pid"
expect_exit "D3: after a kill -9, a sweep through the symlink: exit 0" 0 \
	"$GEMMTAB" sweep --space tests/spaces/fake.yaml --db "$TMP/sym.db" --cache "$cache"

finish

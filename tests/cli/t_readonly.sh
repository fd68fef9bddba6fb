# CLI: the read commands (report, query, emit) read only. They never
# create, convert or migrate: an empty file, another program's SQLite
# file and a database of an older schema are refused with the reason and
# left byte for byte as they were. They read what the user may only read:
# a file of mode 0444 as the unprivileged user nobody (root ignores file
# modes, so a mode test as root proves nothing), and a database on a
# read-only bind mount, in rollback-journal and in WAL mode; a WAL database
# whose -wal file holds committed results there is refused, since an
# immutable reader would miss them.
. "$(dirname "$0")/lib.sh"
if ! command -v sqlite3 >/dev/null 2>&1; then
	skip "read-only databases" "no sqlite3 shell to make them with"
	finish
fi
export GEMMTAB_WORKER=$PWD/build/tests/fake_worker
"$GEMMTAB" sweep --space tests/spaces/fake.yaml --db "$TMP/t.db" --cache "$TMP/c" >/dev/null 2>&1
sqlite3 "$TMP/t.db" "PRAGMA journal_mode = delete" >/dev/null
# the report less its first line (the database's path)
"$GEMMTAB" report --db "$TMP/t.db" | tail -n +2 >"$TMP/report.want"
same_report() { tail -n +2 "$TMP/out" >"$TMP/report.got"; test_cmp "$1" "$TMP/report.want" "$TMP/report.got"; }

# reads CASE DB: report, query and emit of DB all exit 1, DB unchanged
refused() {
	local what=$1 db=$2 sum
	sum=$(md5sum <"$db")
	expect_exit "report of $what: exit 1" 1 "$GEMMTAB" report --db "$db"
	cp "$TMP/err" "$TMP/err.report"
	expect_exit "query of $what: exit 1" 1 "$GEMMTAB" query --db "$db" best
	expect_exit "emit of $what: exit 1" 1 "$GEMMTAB" emit --db "$db" --out "$TMP/o.h" --cache "$TMP/c"
	check "$what is left as it was" test "$(md5sum <"$db")" = "$sum"
	check "and nothing beside it" test ! -e "$db-wal" -a ! -e "$db-journal" -a ! -e "$TMP/o.h"
}
: >"$TMP/empty.db"
refused "an empty file" "$TMP/empty.db"
expect_line "says it is empty" "$TMP/err.report" "gemmtab: error: DB: $TMP/empty.db is empty, not a gemmtab database"
sqlite3 "$TMP/other.db" "CREATE TABLE notes (text); INSERT INTO notes VALUES ('mine')"
refused "another program's database" "$TMP/other.db"
check "says it is not gemmtab's" grep -q "other.db: not a gemmtab database" "$TMP/err.report"
check "still in its own journal mode" test "$(sqlite3 "$TMP/other.db" "PRAGMA journal_mode")" = delete
cp "$TMP/t.db" "$TMP/old.db"
sqlite3 "$TMP/old.db" "PRAGMA user_version = 3"
refused "an older schema" "$TMP/old.db"
check "says run gemmtab migrate" grep -q "has schema 3, older than this gemmtab's 6: run \`gemmtab migrate --db $TMP/old.db\` to upgrade it" "$TMP/err.report"
cp "$TMP/t.db" "$TMP/neg.db"
sqlite3 "$TMP/neg.db" "PRAGMA user_version = -5"
refused "a negative schema version" "$TMP/neg.db"
check "says why" grep -q "neg.db: schema version -5 is none gemmtab ever wrote" "$TMP/err.report"

# as nobody, of a file nobody may only read
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1 && command -v runuser >/dev/null 2>&1; then
	R=$TMP/ro
	mkdir -p "$R/out"
	cp "$GEMMTAB" "$R/gemmtab"
	cp "$TMP/t.db" "$R/t.db"
	chmod 755 "$TMP" "$R"
	chmod 444 "$R/t.db"
	chmod 555 "$R"
	chown nobody "$R/out"
	as_nobody() { runuser -u nobody -- env GEMMTAB_WORKER= "$@"; }
	check "nobody cannot write it" as_nobody bash -c "! : 2>/dev/null >>'$R/t.db'"
	expect_exit "report as nobody: exit 0" 0 as_nobody "$R/gemmtab" report --db "$R/t.db"
	same_report "the same report"
	expect_exit "query as nobody: exit 0" 0 as_nobody "$R/gemmtab" query --db "$R/t.db" best
	expect_exit "emit as nobody: exit 0" 0 as_nobody "$R/gemmtab" emit --db "$R/t.db" \
		--out "$R/out/t.h" --cache "$R/out/c"
	check "its table written" test -s "$R/out/t.h"
	chmod 755 "$R"
else
	skip "a database nobody may only read" "not root, or no user nobody or runuser, to read one as"
fi

# on a read-only bind mount: rollback journal, WAL, WAL with results in -wal
M=$TMP/mnt
mkdir -p "$M"
cp "$TMP/t.db" "$M/journal.db"
cp "$TMP/t.db" "$M/wal.db"
sqlite3 "$M/wal.db" "PRAGMA journal_mode = wal" >/dev/null
if unshare -m true 2>/dev/null; then
	ro() {   # COMMAND...: run with $M mounted read-only
		unshare -m sh -c 'mount --bind "$0" "$0" && mount -o remount,ro,bind "$0" "$0" && shift && exec "$@"' \
			"$M" _ "$@"
	}
	check "the mount is read-only" ro sh -c "! touch '$M/x' 2>/dev/null"
	for db in journal wal; do
		expect_exit "report of a $db-mode database on a read-only mount: exit 0" 0 ro "$GEMMTAB" report --db "$M/$db.db"
		same_report "the same report"
		expect_exit "emit of it: exit 0" 0 ro "$GEMMTAB" emit --db "$M/$db.db" --out "$TMP/$db.h" --cache "$TMP/c"
	done
	# results committed to a -wal file and not yet checkpointed: the
	# files of a writer that is still open (a sweep), copied as they are
	cp "$TMP/t.db" "$TMP/w.db"
	(echo "PRAGMA journal_mode = wal; PRAGMA wal_autocheckpoint = 0; UPDATE result SET reason = 'pending' WHERE id = 1;"; sleep 3) |
		sqlite3 "$TMP/w.db" >/dev/null &
	writer=$!
	for _ in $(seq 1 100); do
		[ -s "$TMP/w.db-wal" ] && break
		sleep 0.05
	done
	sleep 0.2
	cp "$TMP/w.db" "$M/pending.db"
	cp "$TMP/w.db-wal" "$M/pending.db-wal"
	wait "$writer"
	check "a -wal file with results sits beside it" test -s "$M/pending.db-wal"
	expect_exit "report of it on a read-only mount: exit 1" 1 ro "$GEMMTAB" report --db "$M/pending.db"
	check "says why it cannot read it there" grep -q "pending.db cannot be read here (.*): committed results wait in its -wal file" "$TMP/err"
	sed 's/^/    /' "$TMP/err" | head -n 2
else
	skip "read-only mounts" "no private mount namespace here to bind-mount one in"
fi
finish

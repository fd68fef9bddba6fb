# CLI: the whole schema in one place. A new database is made from
# db/gemmtab.sql; a database of schema 1 (db/schema.sql) brought forward by
# every migration step has the same tables, columns, indexes, unique keys
# and views (tests/cli/schema_compare.py); the comparison does catch a
# difference; the committed databases are current, with every candidate's
# parameters by name.
. "$(dirname "$0")/lib.sh"
compare() { python3 tests/cli/schema_compare.py "$@"; }
latest=$(sed -n 's/^-- gemmtab.sql: .*schema version \([0-9]*\).*/\1/p' db/gemmtab.sql)
check "db/gemmtab.sql names its version ($latest)" test -n "$latest"

sqlite3 "$TMP/v1.db" <db/schema.sql && sqlite3 "$TMP/v1.db" "PRAGMA user_version = 1; PRAGMA application_id = 1196250178"
cp "$TMP/v1.db" "$TMP/v1-copy.db"
expect_exit "migrate a schema-1 database" 0 "$GEMMTAB" migrate --db "$TMP/v1.db"
check "it went 1 -> $latest" grep -qx "$TMP/v1.db: schema 1 -> $latest" "$TMP/out"
# merge into a new file: a database made fresh by this gemmtab
expect_exit "a fresh database (merge into a new file)" 0 "$GEMMTAB" merge --db "$TMP/fresh.db" "$TMP/v1.db"
check "the fresh one is made from db/gemmtab.sql (its comments are in sqlite_master)" \
	bash -c "sqlite3 '$TMP/fresh.db' \"SELECT sql FROM sqlite_master WHERE name = 'candidate'\" | grep -q 'the key.s text'"
check "and is at schema $latest" test "$(sqlite3 "$TMP/fresh.db" 'PRAGMA user_version')" = "$latest"
compare "$TMP/v1.db" "$TMP/fresh.db" >"$TMP/cmp" 2>&1
check "migrated and fresh have the same structure ($(tail -1 "$TMP/cmp"))" test "$(tail -1 "$TMP/cmp")" = same
sed 's/^/    /' "$TMP/cmp" | head -20
compare "$TMP/v1-copy.db" "$TMP/fresh.db" >"$TMP/cmp" 2>&1
check "the comparison sees schema 1's differences ($(tail -1 "$TMP/cmp"))" \
	bash -c "tail -1 '$TMP/cmp' | grep -q differences && grep -q candidate_param '$TMP/cmp' && grep -q \"'table', 'variant'\" '$TMP/cmp'"
for db in db/h200.db db/quick.db; do
	check "$db is at schema $latest" test "$(sqlite3 "$db" 'PRAGMA user_version')" = "$latest"
	check "$db: every candidate has params_json" \
		test "$(sqlite3 "$db" 'SELECT count(*) FROM candidate WHERE params_json IS NULL OR json_valid(params_json) = 0')" = 0
done
# new candidates get params_json at insert (a fake-worker sweep, no compile)
if GEMMTAB_WORKER=$PWD/build/tests/fake_worker "$GEMMTAB" sweep --space tests/spaces/fake_lt.yaml \
	--db "$TMP/s.db" >"$TMP/sweep.out" 2>&1; then
	got=$(sqlite3 "$TMP/s.db" "SELECT count(*), sum(params_json IS NOT NULL AND json_valid(params_json)) FROM candidate")
	check "a sweep's new candidates carry params_json ($got)" bash -c "[ '${got%|*}' -gt 0 ] && [ '${got%|*}' = '${got#*|}' ]"
	got=$(sqlite3 "$TMP/s.db" "SELECT count(*) FROM candidate_param p JOIN candidate c ON c.id = p.candidate_id \
		WHERE instr(',' || c.params || ',', ',' || p.name || '=' || p.value || ',') = 0")
	check "candidate_param gives back every name=value of params ($got off)" test "$got" = 0
else
	not_ok "a fake-worker sweep of tests/spaces/fake_lt.yaml ran"; sed 's/^/    /' "$TMP/sweep.out" | tail -5
fi
finish

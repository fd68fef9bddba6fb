# CLI: gemmtab merge folds databases into one. The merged shards of a
# sweep emit the same table as the unsharded sweep; rerunning a merge
# changes nothing; merge A B holds what merge B A holds (two sweeps of
# the same points: every key in conflict, the later row kept); inputs are
# never written, an older schema is read through a migrated copy;
# identical probes are added once; bad arguments are refused.
. "$(dirname "$0")/lib.sh"
export GEMMTAB_WORKER=$PWD/build/tests/fake_worker
cache=$TMP/cache
cp tests/spaces/five.yaml "$TMP/s.yaml"   # five shapes
dump() {   # DB: every result, baseline and probe by content, sorted
	sqlite3 "$1" "SELECT s.family, c.template, c.params, c.code, r.m, r.phase, r.status,
		r.ratio, r.pairs, r.recorded_at, r.run, e.gpu_name FROM result r
		JOIN shape s ON s.id = r.shape_id JOIN candidate c ON c.id = r.candidate_id
		JOIN env e ON e.id = r.env_id;
		SELECT 'b', s.family, b.m, b.cublas_us, b.recorded_at FROM baseline b JOIN shape s ON s.id = b.shape_id;
		SELECT 'p', p.what, p.family, p.us, p.recorded_at FROM probe p" | sort
}
mkdir -p "$TMP/one" "$TMP/merged"
expect_exit "the unsharded sweep" 0 "$GEMMTAB" sweep --space "$TMP/s.yaml" --db "$TMP/one/x.db" --cache "$cache"
for i in 0 1 2; do
	"$GEMMTAB" sweep --space "$TMP/s.yaml" --db "$TMP/s$i.db" --cache "$cache" --shard $i/3 2>/dev/null
done
sha() { sha256sum "$TMP"/s?.db | cut -c1-64; }
before=$(sha)
expect_exit "merge of the three shards" 0 "$GEMMTAB" merge --db "$TMP/merged/x.db" "$TMP/s0.db" "$TMP/s1.db" "$TMP/s2.db"
check "a summary line per input" test "$(grep -c 'results: [0-9]* added, 0 already there, 0 in conflict' "$TMP/out")" = 3
check "the inputs are left as they were" test "$(sha)" = "$before"
(cd "$TMP/one" && "$GEMMTAB" emit --db x.db --out t.h --cache "$cache" >/dev/null 2>&1)
(cd "$TMP/merged" && "$GEMMTAB" emit --db x.db --out t.h --cache "$cache" >/dev/null 2>&1)
check "the unsharded table has entries" grep -q 'GT_ENTRY\|{ [0-9]' "$TMP/one/t.h"
test_cmp "emit over the merged shards writes the unsharded sweep's table" "$TMP/one/t.h" "$TMP/merged/t.h"
test_cmp "and the same kernels" "$TMP/one/t_kernels.cu" "$TMP/merged/t_kernels.cu"
dump "$TMP/merged/x.db" >"$TMP/m1"
expect_exit "the same merge again" 0 "$GEMMTAB" merge --db "$TMP/merged/x.db" "$TMP/s0.db" "$TMP/s1.db" "$TMP/s2.db"
check "says nothing was added" test "$(grep -c ': [0-9]* results: 0 added, [0-9]* already there, 0 in conflict' "$TMP/out")" = 3
dump "$TMP/merged/x.db" >"$TMP/m2"
test_cmp "and changes nothing" "$TMP/m1" "$TMP/m2"

# two sweeps of the same points: every key in conflict
"$GEMMTAB" sweep --space tests/spaces/fake.yaml --db "$TMP/a.db" --cache "$cache" 2>/dev/null
sleep 0.01
"$GEMMTAB" sweep --space tests/spaces/fake.yaml --db "$TMP/b.db" --cache "$cache" 2>/dev/null
expect_exit "merge A B" 0 "$GEMMTAB" merge --db "$TMP/ab.db" "$TMP/a.db" "$TMP/b.db"
check "B's rows are in conflict with A's, the later (B's) kept" \
	grep -qE "b.db: ([0-9]+) results: 0 added, 0 already there, \1 in conflict \(\1 replaced by the later, 0 kept\)" "$TMP/out"
expect_exit "merge B A" 0 "$GEMMTAB" merge --db "$TMP/ba.db" "$TMP/b.db" "$TMP/a.db"
check "A's rows kept out" grep -qE "a.db: ([0-9]+) results: 0 added, 0 already there, \1 in conflict \(0 replaced by the later, \1 kept\)" "$TMP/out"
dump "$TMP/ab.db" >"$TMP/ab"; dump "$TMP/ba.db" >"$TMP/ba"; dump "$TMP/b.db" >"$TMP/bb"
test_cmp "merge A B holds what merge B A holds" "$TMP/ab" "$TMP/ba"
test_cmp "which is B's rows" "$TMP/bb" "$TMP/ab"

# an older schema, read through a migrated copy
cp "$TMP/s0.db" "$TMP/old.db"
sqlite3 "$TMP/old.db" "DROP VIEW candidate_param; DROP VIEW baselines; DROP VIEW envs; DROP VIEW waves; DROP VIEW unretested; CREATE TABLE c4 (id INTEGER PRIMARY KEY, template TEXT NOT NULL, params TEXT NOT NULL, code TEXT NOT NULL, pkey INTEGER NOT NULL); INSERT INTO c4 SELECT id, template, params, code, pkey FROM candidate; DROP TABLE candidate; PRAGMA legacy_alter_table = ON; ALTER TABLE c4 RENAME TO candidate; CREATE INDEX candidate_by_pkey ON candidate (pkey); ALTER TABLE result DROP COLUMN device; ALTER TABLE baseline DROP COLUMN device; PRAGMA user_version = 4"
old=$(sha256sum "$TMP/old.db")
expect_exit "merge of a schema-4 input" 0 "$GEMMTAB" merge --db "$TMP/o.db" "$TMP/old.db"
check "says it read it migrated" grep -q "read as migrated from an older schema" "$TMP/out"
check "and left it at schema 4" bash -c "test \"\$(sha256sum '$TMP/old.db')\" = '$old'"

# probes: identical ones once
expect_exit "a fake probe" 0 "$GEMMTAB" probe --db "$TMP/p.db" --space tests/spaces/fake.yaml
"$GEMMTAB" merge --db "$TMP/pm.db" "$TMP/p.db" >/dev/null 2>&1
expect_exit "its merge again" 0 "$GEMMTAB" merge --db "$TMP/pm.db" "$TMP/p.db"
check "adds no probe twice" grep -qE "0 of [1-9][0-9]* probes added" "$TMP/out"
check "the probes are there once" test "$(sqlite3 "$TMP/pm.db" "SELECT count(*) FROM probe")" = "$(sqlite3 "$TMP/p.db" "SELECT count(*) FROM probe")"

expect_exit "merge without inputs: exit 2" 2 "$GEMMTAB" merge --db "$TMP/z.db"
expect_exit "an input that is not there: exit 1" 1 "$GEMMTAB" merge --db "$TMP/z.db" "$TMP/nope.db"
check "names it" grep -q "nope.db" "$TMP/err"
echo junk >"$TMP/junk.db"
expect_exit "an input that is no database: exit 1" 1 "$GEMMTAB" merge --db "$TMP/z.db" "$TMP/junk.db"
check "says so, naming it" grep -q "junk.db: file is not a database" "$TMP/err"
expect_exit "the output as an input: exit 2" 2 "$GEMMTAB" merge --db "$TMP/a.db" "$TMP/a.db"
finish

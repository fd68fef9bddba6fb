# CLI: sweep --shard I/N: N runs split a space's shapes with no
# coordination. Every shape falls in exactly one shard, the shards' results
# together are the unsharded sweep's (compared with sqlite3), a shape added
# to the space moves no other, an empty share exits 0, and a bad I/N is a
# usage error.
. "$(dirname "$0")/lib.sh"
export GEMMTAB_WORKER=$PWD/build/tests/fake_worker
cache=$TMP/cache
cp tests/spaces/five.yaml "$TMP/s.yaml"   # five shapes
rows() {   # the results of the databases named, as one sorted set
	for db in "$@"; do
		[ -f "$db" ] || continue
		sqlite3 "$db" "SELECT s.family, c.template, c.params, r.m, r.phase, r.status, r.ratio,
			r.pairs FROM result r JOIN shape s ON s.id = r.shape_id
			JOIN candidate c ON c.id = r.candidate_id"
	done | sort
}
families() { sed -n 's/^\([a-z_]*\) *[0-9]* *[0-9]* *[0-9]*$/\1/p' "$1" | sort -u; }

expect_exit "the unsharded sweep" 0 "$GEMMTAB" sweep --space "$TMP/s.yaml" --db "$TMP/all.db" --cache "$cache"
: >"$TMP/owners"
for i in 0 1 2; do
	expect_exit "shard $i/3" 0 "$GEMMTAB" sweep --space "$TMP/s.yaml" --db "$TMP/s$i.db" --cache "$cache" --shard $i/3
	grep '^sweep: shard' "$TMP/err" >>"$TMP/shards.txt"
	"$GEMMTAB" sweep --space "$TMP/s.yaml" --shard $i/3 --dry-run >"$TMP/dry$i" 2>/dev/null
	families "$TMP/dry$i" | sed "s/\$/ $i/" >>"$TMP/owners"
done
check "every shape in exactly one shard ($(tr '\n' ' ' <"$TMP/owners"))" bash -c \
	"test \$(wc -l <'$TMP/owners') = 5 && test \$(cut -d' ' -f1 '$TMP/owners' | sort -u | wc -l) = 5"
check "the shards say their share" grep -q '^sweep: shard 0/3: [0-5] of the space.s 5 shapes' "$TMP/shards.txt"
rows "$TMP/all.db" >"$TMP/all.rows"
rows "$TMP/s0.db" "$TMP/s1.db" "$TMP/s2.db" >"$TMP/sharded.rows"
check "rows recorded ($(wc -l <"$TMP/all.rows"))" test "$(wc -l <"$TMP/all.rows")" -gt 40
test_cmp "the shards' results together are the unsharded sweep's" "$TMP/all.rows" "$TMP/sharded.rows"

# a shape added: the others stay where they were
sed 's/^templates:/  - {family: lm_head, n: 8192, k: 2048, w: bf16, x: bf16, y: bf16, tol: 1e-2, m: [1]}\ntemplates:/' \
	"$TMP/s.yaml" >"$TMP/s6.yaml"
: >"$TMP/owners6"
for i in 0 1 2; do
	"$GEMMTAB" sweep --space "$TMP/s6.yaml" --shard $i/3 --dry-run >"$TMP/dry$i" 2>/dev/null
	families "$TMP/dry$i" | sed "s/\$/ $i/" >>"$TMP/owners6"
done
check "a shape added moves no other" bash -c "grep -v '^lm_head ' '$TMP/owners6' | sort | cmp -s - <(sort '$TMP/owners')"

# an empty share, bad shards
for i in 0 1 2 3 4 5 6 7; do
	"$GEMMTAB" sweep --space tests/spaces/fake.yaml --shard $i/8 --dry-run >/dev/null 2>"$TMP/e$i" || true
done
empty=$(grep -l 'shard [0-7]/8: 0 of' "$TMP"/e? | head -n 1 | sed 's/.*e//')
if [ -n "$empty" ]; then
	expect_exit "an empty share ($empty/8 of fake.yaml's 2 shapes): exit 0" 0 \
		"$GEMMTAB" sweep --space tests/spaces/fake.yaml --db "$TMP/empty.db" --shard "$empty/8"
else
	not_ok "no empty share among 8 of 2 shapes"
fi
expect_exit "--shard 3/3: exit 2" 2 "$GEMMTAB" sweep --space tests/spaces/fake.yaml --shard 3/3
check "says what I/N is" grep -q -- "--shard: '3/3' is not I/N with 0 <= I < N" "$TMP/err"
expect_exit "--shard 1: exit 2" 2 "$GEMMTAB" sweep --space tests/spaces/fake.yaml --shard 1
expect_exit "--shard 0/0: exit 2" 2 "$GEMMTAB" sweep --space tests/spaces/fake.yaml --shard 0/0
finish

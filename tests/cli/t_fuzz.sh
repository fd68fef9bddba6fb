# CLI: the libFuzzer targets (tests/fuzz/, built by `make tests` when a
# clang with libFuzzer is here) run every seed once under ASan and UBSan:
# the search spaces of search_spaces/ and tests/spaces/ through the loader
# and the task builder, the seed database through report's and emit's
# readers. `make fuzz FUZZ_S=N` fuzzes each for N seconds.
. "$(dirname "$0")/lib.sh"
F=build/fuzz
if [ ! -x "$F/fuzz_space" ] || [ ! -x "$F/fuzz_db" ]; then
	skip "the fuzz targets' seeds" "not built: no clang with libFuzzer (apt-get install clang-14 libclang-rt-14-dev)"
	finish
fi
seeds() {   # TARGET DIR...: run every seed once, into $TMP/TARGET.log
	local t=$1; shift
	mkdir -p "$TMP/scratch_$t"
	# -artifact_prefix: a seed libFuzzer finds slow is written as
	# slow-unit-<sha1> into $TMP, not into the tree
	TMPDIR=$TMP/scratch_$t "$F/fuzz_$t" -runs=0 -timeout=60 -artifact_prefix="$TMP/$t-" "$@" \
		>"$TMP/$t.log" 2>&1
}
touch "$TMP/start"
# the seed the build made (tests/fuzz/seed_db.sh) opens as the readers
# open it, at this schema, with results: else fuzz_db never gets past the
# version check
seed=$F/seeds_db/fake.db
expect_exit "fuzz_db's seed: report of it exits 0" 0 "$GEMMTAB" report --db "$seed"
expect_exit "its schema is this build's" 0 "$GEMMTAB" query --db "$seed" --format csv \
	"SELECT user_version FROM pragma_user_version"
want=$(sed -n '1s/.*schema version \([0-9]*\),.*/\1/p' db/gemmtab.sql)
check "(schema $want, db/gemmtab.sql's)" test "$(tail -n 1 "$TMP/out")" = "$want"
check "it holds results" test "$(q "SELECT count(*) FROM result" "$seed")" -gt 0
for t in space db; do
	case $t in
	space) dirs="search_spaces tests/spaces"; n=$(find search_spaces tests/spaces -type f | wc -l) ;;
	db) dirs=$F/seeds_db; n=$(find "$F/seeds_db" -type f | wc -l) ;;
	esac
	# shellcheck disable=SC2086
	check "fuzz_$t: every seed runs, exit 0" seeds $t $dirs
	check "fuzz_$t: no sanitizer report" bash -c "! grep -qE '^==[0-9]+==ERROR|runtime error:' '$TMP/$t.log'"
	check "fuzz_$t: it read the $n seeds" grep -qE "INFO: +$n files found|seed corpus: files: $n " "$TMP/$t.log"
	check "fuzz_$t: it left nothing in its TMPDIR" test -z "$(ls -A "$TMP/scratch_$t")"
	grep -E '^#[0-9]+.*(INITED|DONE)' "$TMP/$t.log" | tail -n 1 | sed 's/^/    /'
done
check "nothing written into the tree (no new slow-unit-* or crash-* file here)" \
	test -z "$(find . -maxdepth 1 -newer "$TMP/start" -name '*-unit-*' -o -maxdepth 1 -newer "$TMP/start" -name 'crash-*')"
finish

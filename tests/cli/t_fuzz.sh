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
	# -artifact_prefix: a seed libFuzzer finds slow is written as
	# slow-unit-<sha1> into $TMP, not into the tree
	"$F/fuzz_$t" -runs=0 -timeout=60 -artifact_prefix="$TMP/$t-" "$@" >"$TMP/$t.log" 2>&1
}
touch "$TMP/start"
for t in space db; do
	case $t in
	space) dirs="search_spaces tests/spaces"; n=$(find search_spaces tests/spaces -type f | wc -l) ;;
	db) dirs=tests/fuzz/seeds/db; n=$(find tests/fuzz/seeds/db -type f | wc -l) ;;
	esac
	# shellcheck disable=SC2086
	check "fuzz_$t: every seed runs, exit 0" seeds $t $dirs
	check "fuzz_$t: no sanitizer report" bash -c "! grep -qE '^==[0-9]+==ERROR|runtime error:' '$TMP/$t.log'"
	check "fuzz_$t: it read the $n seeds" grep -qE "INFO: +$n files found|seed corpus: files: $n " "$TMP/$t.log"
	grep -E '^#[0-9]+.*(INITED|DONE)' "$TMP/$t.log" | tail -n 1 | sed 's/^/    /'
done
check "nothing written into the tree (no new slow-unit-* or crash-* file here)" \
	test -z "$(find . -maxdepth 1 -newer "$TMP/start" -name '*-unit-*' -o -maxdepth 1 -newer "$TMP/start" -name 'crash-*')"
finish

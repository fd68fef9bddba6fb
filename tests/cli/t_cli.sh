# CLI details a user trips on: --version; --opt=value as well as --opt
# value; dates and the deadline range-checked; a forgotten value is not
# taken from the next option (write
# --opt=--odd for one that starts with --); an unknown canned query is
# named as such; without a GPU, probe, sweep and bench stop at once with
# one line and create no database (runs through the fake worker go on);
# the test-only template planted is registered in the tests' gemmtab only.
. "$(dirname "$0")/lib.sh"

expect_exit "--version: exit 0" 0 "$GEMMTAB" --version
check "names the version" grep -qE '^gemmtab [0-9]+\.[0-9]+' "$TMP/out"
check "and what it was built against" grep -qE '^built against CUDA runtime [0-9]+\.[0-9]+, NVRTC [0-9.]+, cuBLAS/cuBLASLt [0-9]+\.[0-9]+\.[0-9]+, for sm_' "$TMP/out"

expect_exit "--space=FILE: exit 0" 0 "$GEMMTAB" sweep --space=search_spaces/tiny.yaml --dry-run
check "the same plan as --space FILE" test "$(grep '^total:' "$TMP/out")" = "$("$GEMMTAB" sweep --space search_spaces/tiny.yaml --dry-run | grep '^total:')"
expect_exit "a flag with a value: exit 2" 2 "$GEMMTAB" sweep --space search_spaces/tiny.yaml --dry-run=1
expect_line "names it" "$TMP/err" "gemmtab sweep: --dry-run takes no value"
expect_exit "--opt=value of an unknown option: exit 2" 2 "$GEMMTAB" sweep --bogus=1
expect_line "names the option alone" "$TMP/err" "gemmtab sweep: unknown option '--bogus'"

(cd "$TMP" && "$GEMMTAB" sweep --space "$OLDPWD/search_spaces/tiny.yaml" --db --dry-run >out 2>err)
check "--db --dry-run: exit 2" test $? -eq 2
expect_line "says --db lost its value" "$TMP/err" "gemmtab sweep: --db needs a value ('--dry-run' is an option; write --db=--dry-run for a value that starts with --)"
check "and creates no file named --dry-run" test ! -e "$TMP/--dry-run"
expect_exit "--db=--odd is a value: exit 0" 0 "$GEMMTAB" sweep --space search_spaces/tiny.yaml --db=--odd --dry-run

expect_exit "--deadline 1e-9: exit 2" 2 "$GEMMTAB" sweep --space search_spaces/tiny.yaml --dry-run --deadline 1e-9
expect_line "names the minimum" "$TMP/err" "gemmtab sweep: --deadline: '1e-9' is less than 1"
for t in 2026-13-45 2026-02-29 2026-04-31 2026-12-01T24 2026-12-01T12:60; do
	expect_exit "--retest-since $t: exit 2" 2 "$GEMMTAB" sweep --space search_spaces/tiny.yaml --dry-run --retest-since "$t"
done
expect_exit "--retest-since 2028-02-29T23:59:59 (a leap day): exit 0" 0 "$GEMMTAB" sweep --space search_spaces/tiny.yaml --dry-run --retest-since 2028-02-29T23:59:59

expect_exit "an unknown query name: exit 2" 2 "$GEMMTAB" query --db db/quick.db bset
expect_line "is named as a query" "$TMP/err" "gemmtab query: unknown query 'bset' (see gemmtab query --help)"
expect_exit "SQL still runs: exit 0" 0 "$GEMMTAB" query --db db/quick.db "SELECT count(*) FROM env"

expect_exit "the product gemmtab does not know planted: exit 2" 2 "$GEMMTAB" sweep --space tests/spaces/planted.yaml --dry-run
check "it names the template" grep -q "planted" "$TMP/err"
expect_exit "the tests' gemmtab does" 0 build/tests/gemmtab sweep --space tests/spaces/planted.yaml --dry-run

if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
	skip "probe, sweep and bench without a GPU" "this machine has one"
else
	(unset GEMMTAB_WORKER
	 cd "$TMP" || exit 1
	 for cmd in "probe --db p.db --space $OLDPWD/search_spaces/tiny.yaml" "sweep --space $OLDPWD/search_spaces/tiny.yaml --db s.db" \
		    "bench --space $OLDPWD/search_spaces/tiny.yaml"; do
		name=${cmd%% *}
		"$GEMMTAB" $cmd >out 2>err
		echo "$name $? $(wc -l <err) $(head -n 1 err)"
	 done) >"$TMP/nogpu"
	for name in probe sweep bench; do
		line=$(grep "^$name " "$TMP/nogpu")
		check "$name without a GPU: exit 1, one line ($line)" \
			bash -c "echo '$line' | grep -qE '^$name 1 1 gemmtab $name: no CUDA device: '"
	done
	check "no database created" test ! -e "$TMP/p.db" -a ! -e "$TMP/s.db"
	check "nor a lock" test ! -e "$TMP/s.db.lock"
	check "bench never says the FP64 check failed" bash -c "! grep -q 'FP64' '$TMP/nogpu'"
fi
GEMMTAB_WORKER=$PWD/build/tests/fake_worker expect_exit "the fake worker still sweeps: exit 0" 0 \
	"$GEMMTAB" sweep --space tests/spaces/fake.yaml --db "$TMP/f.db" --cache "$TMP/c"

finish

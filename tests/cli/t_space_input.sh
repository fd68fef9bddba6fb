# CLI: search spaces a careless user writes: the error is one
# FILE:LINE:COL line and the exit status 2, at once. A space of shapes
# alone is refused by sweep at its top level; a constraint undefined for
# every candidate (1/0 == 0) at its own position instead of pruning all
# silently; a space of more than a million candidates before it is
# built; a FIFO, a directory as --space without blocking; a file with
# CR-only line ends counts its lines right. And a database another
# program holds locked: the sweep waits, then says so and exits 1.
. "$(dirname "$0")/lib.sh"
shape='  - {family: q, n: 256, k: 1024, w: bf16, x: bf16, y: bf16, tol: 1e-2, m: [1]}'
gemv='    params: {warps: [4], rows: [1], tokens: [1], unroll: [1], split: [1], cache: [default]}'

printf '# shapes alone\nshapes:\n%s\n' "$shape" >"$TMP/shapes.yaml"
expect_exit "a space of shapes alone: exit 2" 2 "$GEMMTAB" sweep --space "$TMP/shapes.yaml" --dry-run
expect_line "at the top level's LINE:COL" "$TMP/err" \
	"$TMP/shapes.yaml:2:1: no templates or cublaslt section: nothing to sweep (a space of shapes alone serves gemmtab bench and probe)"

printf 'shapes:\n%s\ntemplates:\n  gemv:\n%s\n    constraints: ["k > 0", "1/0 == 0"]\n' "$shape" "$gemv" >"$TMP/undef.yaml"
expect_exit "a constraint undefined for every candidate: exit 2" 2 "$GEMMTAB" sweep --space "$TMP/undef.yaml" --dry-run
check "named at its LINE:COL" grep -q "^$TMP/undef.yaml:6:28: constraint '1/0 == 0' of gemv is undefined" "$TMP/err"
printf 'shapes:\n%s\ntemplates:\n  gemv:\n%s\n    constraints: ["k / (warps - 4) > 0"]\n' "$shape" "${gemv/\[4\]/[4, 8]}" >"$TMP/some.yaml"
expect_exit "one undefined at some points only: exit 0" 0 "$GEMMTAB" sweep --space "$TMP/some.yaml" --dry-run

# tests/spaces/gpu_mma.yaml without its constraints: 3.5 million
# candidates, refused before they are built (the fuzzer found a space
# like it taking 5.6 GB)
sed '/^    constraints:/,$d' tests/spaces/gpu_mma.yaml >"$TMP/huge.yaml"
expect_exit "a space of 3.5 million candidates: exit 2" 2 "$GEMMTAB" sweep --space "$TMP/huge.yaml" --dry-run
check "says how many and the limit" grep -q "the space enumerates 3525120 candidates over its shapes and Ms, more than 1000000: narrow a grid or add constraints" "$TMP/err"

# a shape no template takes (N = 1000, K = 3000): the dry run names it and
# the constraints that reject it; --strict makes that an error
{ printf 'shapes:\n  - {family: odd, n: 1000, k: 3000, w: bf16, x: bf16, y: bf16, tol: 1e-2, m: [1, 8]}\n'
  printf '  - {family: fine, n: 2048, k: 4096, w: bf16, x: bf16, y: bf16, tol: 1e-2, m: [1]}\n'
  printf 'templates:\n  gemv:\n%s\n    constraints: ["k %% (split * warps * 32 * unroll * (16 / w_bytes)) == 0"]\n' "$gemv"; } >"$TMP/odd.yaml"
expect_exit "a shape no template takes: the dry run exits 0" 0 "$GEMMTAB" sweep --space "$TMP/odd.yaml" --dry-run
check "and names it with the constraint that rejects it" grep -q "^gemmtab sweep: odd (n 1000, k 3000) gets no candidate of a template at any M: gemv (2 points): 'k % (split \* warps \* 32 \* unroll \* (16 / w_bytes)) == 0' rejects 2$" "$TMP/err"
check "not the shape that gets some" bash -c "! grep -q 'fine (n' '$TMP/err'"
expect_exit "with --strict: exit 1" 1 "$GEMMTAB" sweep --space "$TMP/odd.yaml" --dry-run --strict
check "saying how many" grep -q "^gemmtab sweep: --strict: 1 shapes get no candidate" "$TMP/err"

mkfifo "$TMP/fifo"
expect_exit "a FIFO as --space: exit 2, at once" 2 timeout 10 "$GEMMTAB" sweep --space "$TMP/fifo" --dry-run
expect_line "says what it is" "$TMP/err" "$TMP/fifo:1:1: not a regular file (a FIFO)"
expect_exit "a directory: exit 2" 2 "$GEMMTAB" sweep --space "$TMP" --dry-run
expect_line "says so" "$TMP/err" "$TMP:1:1: not a regular file (a directory)"

printf 'sweep:\r  screen_pairs: 4\r\rshapes:\r  - {family: q, n: 256, k: 1024, w: bf16, x: bf16, y: bf16, m: [1], bogus: 3}\r' >"$TMP/cr.yaml"
expect_exit "CR-only line ends: exit 2" 2 "$GEMMTAB" sweep --space "$TMP/cr.yaml" --dry-run
check "the error's line and column count CRs as line ends" grep -q "^$TMP/cr.yaml:5:69: unknown key 'bogus'" "$TMP/err"

if command -v sqlite3 >/dev/null 2>&1; then
	export GEMMTAB_WORKER=$PWD/build/tests/fake_worker
	db=$TMP/t.db
	"$GEMMTAB" sweep --space tests/spaces/fake.yaml --db "$db" --cache "$TMP/c" >/dev/null 2>&1
	n=$(q "SELECT count(*) FROM result")
	# another program's write transaction, open for 12 s
	(echo "BEGIN EXCLUSIVE; SELECT 1;"; sleep 12; echo "COMMIT;") | sqlite3 "$db" >/dev/null &
	holder=$!
	sleep 0.5
	expect_exit "a sweep of a database another program holds: exit 1" 1 \
		"$GEMMTAB" sweep --space tests/spaces/fake.yaml --db "$db" --cache "$TMP/c"
	check "says another program holds it locked, and for how long it waited" \
		grep -q "another program holds $db locked (an open write transaction: waited 10 s for it)" "$TMP/err"
	wait "$holder"
	check "nothing recorded was lost" test "$(q "SELECT count(*) FROM result")" = "$n"
else
	skip "a locked database" "no sqlite3 shell to hold one locked"
fi
finish

# tests/cli/lib.sh: helpers for CLI test scripts (sourced). Each check
# prints "ok - what" or "not ok - what"; finish prints the summary line
# "N passed, N failed" (", N skipped" when a check could not run, each
# skip printed with its reason) and exits 1 on any failure.
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
GEMMTAB=${GEMMTAB:-$PWD/build/bin/gemmtab}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/gemmtab-test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
_pass=0 _fail=0 _skip=0

ok() { echo "ok - $1"; _pass=$((_pass + 1)); }
# skip WHAT WHY: a check that could not run here, and why
skip() { echo "skip - $1: $2"; _skip=$((_skip + 1)); }
not_ok() { echo "not ok - $1"; _fail=$((_fail + 1)); }

# check WHAT COMMAND...: passes when the command succeeds.
check() {
	local what=$1; shift
	if "$@"; then ok "$what"; else not_ok "$what"; fi
}

# test_cmp WHAT EXPECTED_FILE ACTUAL_FILE
test_cmp() {
	if diff -u "$2" "$3" >"$TMP/diff"; then ok "$1"; else not_ok "$1"; cat "$TMP/diff"; fi
}

# expect_exit WHAT CODE COMMAND...: runs COMMAND with output in $TMP/out
# and $TMP/err, and passes when it exits with CODE.
expect_exit() {
	local what=$1 code=$2; shift 2
	"$@" >"$TMP/out" 2>"$TMP/err"
	local rc=$?
	if [ "$rc" -eq "$code" ]; then ok "$what"; else
		not_ok "$what (exit $rc, wanted $code)"; sed 's/^/    /' "$TMP/err" | head -n 10
	fi
}

# expect_line WHAT FILE LINE: passes when FILE holds exactly LINE as a line.
expect_line() {
	if grep -qxF -- "$3" "$2"; then ok "$1"; else
		not_ok "$1"; echo "    wanted: $3"; sed 's/^/    got:    /' "$2" | head -n 5
	fi
}

# q SQL: the rows of a query of the database "$db" (csv, no header; empty
# when the query fails).
# py_tests FILE.py LIB SITE: run a Python test script that prints "ok -",
# "not ok -" and "skip -" lines and a summary line, from $TMP, with
# GEMMTAB_LIB=LIB and PYTHONPATH=SITE, by $PY (python3); its lines count
# as this test's.
py_tests() {
	local file=$1 lib=$2 site=$3 rc out=$TMP/py_$(basename "$1" .py).out
	(cd "$TMP" && GEMMTAB_LIB=$lib PYTHONPATH=$site "${PY:-python3}" "$file") >"$out" 2>&1
	rc=$?
	grep -v -E '^[0-9]+ passed, [0-9]+ failed' "$out"
	_pass=$((_pass + $(grep -c '^ok - ' "$out")))
	_fail=$((_fail + $(grep -c '^not ok - ' "$out")))
	_skip=$((_skip + $(grep -c '^skip - ' "$out")))
	grep -qE '^[0-9]+ passed, [0-9]+ failed' "$out" || not_ok "$(basename "$file") ran to its end (exit $rc)"
}

# q SQL [DB]: the rows of a query of DB (default $db) as CSV, no header
q() { "$GEMMTAB" query --db "${2:-$db}" --format csv "$1" 2>/dev/null | tail -n +2; }

# planned SPACE: the candidate total that `gemmtab sweep --dry-run` gives
# (empty when it fails).
planned() {
	"$GEMMTAB" sweep --space "$1" --dry-run 2>/dev/null |
		sed -n 's/^total: \([0-9]*\) candidates.*/\1/p'
}

# kill_tree PID: kill -9 a background process of this script and the
# processes it started (a sweep and its worker), nothing else.
kill_tree() {
	local kids
	kids=$(pgrep -P "$1")
	kill -9 "$1" $kids 2>/dev/null
	wait "$1" 2>/dev/null
}

finish() {
	if [ "$_skip" -gt 0 ]; then
		echo "$_pass passed, $_fail failed, $_skip skipped"
	else
		echo "$_pass passed, $_fail failed"
	fi
	[ "$_fail" -eq 0 ]
	exit $?
}

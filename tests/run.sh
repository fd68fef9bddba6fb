#!/usr/bin/env bash
# tests/run.sh: run one suite and print the summary CI reads.
#   bash tests/run.sh cpu   unit test binaries (build/tests/test_*) and CLI
#                           scripts (tests/cli/t_*.sh): no GPU needed
#   bash tests/run.sh gpu   GPU test binaries (build/tests/gpu_*) and GPU
#                           scripts (tests/gpu/t_*.sh): needs an H200
# Each program prints "N passed, N failed" (", N skipped" when a check
# could not run here; it says why on a "skip - WHAT: WHY" line) as its
# last summary line; a program that ends without one counts as one
# failure. The last line of this script is the sum: "N passed, N failed"
# and ", N skipped" when any was.
set -u
cd "$(dirname "$0")/.."
suite=${1:-cpu}
pass=0 fail=0 skipped=0
log=build/tests/logs
mkdir -p "$log"

run_one() {   # name, command...
	local name=$1; shift
	local out="$log/$name.log"
	local t0=$SECONDS
	"$@" >"$out" 2>&1
	local rc=$?
	local line
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' "$out" | tail -n 1)
	if [ -z "$line" ]; then
		echo "not ok - $name (exit $rc, no summary line; see $out)"
		tail -n 20 "$out" | sed 's/^/    /'
		fail=$((fail + 1))
		return
	fi
	local p f s=0
	p=${line%% passed*}
	f=${line#*, }; f=${f%% failed*}
	case $line in *skipped) s=${line##*failed, }; s=${s%% skipped} ;; esac
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1   # a nonzero exit with no failure counted is still a failure
	fi
	pass=$((pass + p)); fail=$((fail + f)); skipped=$((skipped + s))
	if [ "$f" -eq 0 ]; then
		if [ "$s" -gt 0 ]; then
			echo "ok - $name ($p passed, $s skipped, $((SECONDS - t0)) s)"
			grep '^skip - ' "$out" | sed 's/^/    /'
		else
			echo "ok - $name ($p passed, $((SECONDS - t0)) s)"
		fi
	else
		echo "not ok - $name ($p passed, $f failed; see $out)"
		grep -E '^not ok|check failed|expected' "$out" | head -n 20 | sed 's/^/    /'
	fi
}

# A prebuilt GPU test program older than a library it links would test
# stale code (make test-gpu PREBUILT=1 rebuilds nothing): name the newer
# library, or nothing when the program is up to date. The runtime's test
# and the example link libgemmtab only (runtime/runtime.mk), the worker
# tests the tuner's library too (Makefile).
newer_lib() {
	local lib libs=build/lib/libgemmtab.a
	case $(basename "$1") in
	gpu_test_runtime_gpu|linear) ;;
	*) libs="$libs build/libtuner.a" ;;
	esac
	for lib in $libs; do
		if [ "$lib" -nt "$1" ]; then
			echo "$lib"
			return
		fi
	done
}

# The paths git sees untracked or ignored outside build/: the tests write
# into their own temp folders, so the cpu suite leaves this list as it was.
# (SQLite's -wal and -shm files beside a committed database are not
# counted: a read-only reader of a WAL database in a folder it may write
# makes them and cannot remove them; they hold no data once it closes.)
leftovers() {
	git status --porcelain --ignored 2>/dev/null | grep -v ' build/$' |
		grep -vE '^!! db/[a-z0-9_]+\.db-(wal|shm)$' | sort
}

case "$suite" in
cpu)
	before=$(leftovers)
	# the programs of today's sources (not a leftover of a removed one);
	# one that was not built is a failure
	for src in tests/unit/test_*.c; do
		t=build/tests/$(basename "$src" .c)
		run_one "$(basename "$t")" "$t"
	done
	for t in tests/cli/t_*.sh; do
		[ -f "$t" ] && run_one "$(basename "$t" .sh)" bash "$t"
	done
	while IFS= read -r left; do
		[ -n "$left" ] || continue
		echo "not ok - the tests left ${left#?? } in the tree"
		fail=$((fail + 1))
	done < <(comm -13 <(echo "$before") <(leftovers))
	;;
gpu)
	gpu_bins=
	for src in tests/gpu/test_*.c; do
		gpu_bins="$gpu_bins build/tests/gpu_$(basename "$src" .c)"
	done
	for t in $gpu_bins build/examples/linear; do
		[ -x "$t" ] || continue
		lib=$(newer_lib "$t")
		if [ -n "$lib" ]; then
			echo "not ok - $(basename "$t") (older than $lib: stale; run make tests)"
			fail=$((fail + 1))
		fi
	done
	for t in $gpu_bins; do
		run_one "$(basename "$t")" "$t" build/tests/test_kernels.cubin
	done
	for t in tests/gpu/t_*.sh; do
		[ -f "$t" ] && run_one "$(basename "$t" .sh)" bash "$t"
	done
	;;
*)
	echo "usage: tests/run.sh cpu|gpu" >&2
	exit 2
	;;
esac
if [ "$skipped" -gt 0 ]; then
	echo "$pass passed, $fail failed, $skipped skipped"
else
	echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]

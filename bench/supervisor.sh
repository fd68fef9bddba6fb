#!/usr/bin/env bash
# bench/supervisor.sh (make bench-supervisor): the sweep supervisor's own
# throughput, on the fake worker (tests/fake), no GPU. Two figures, each
# against its target, from warm cubin caches so that NVRTC does not count:
#   1. tests/spaces/range.yaml with every eval taking EVAL_MS (10 ms, as a
#      GPU's take milliseconds) on 1 fake GPU and on 4 (--devices all):
#      the speed-up (target >= 3.5x);
#   2. a generated space of 10 and of 50 range shapes (1..512) with instant
#      evals on one GPU: the supervisor's CPU (getrusage of the sweep
#      process, as its summary line prints it) and wall time per result
#      (target: under 1 ms at 100,000 results).
# Prints a Markdown report; exits 1 when a target is missed.
set -u
cd "$(dirname "$0")/.."
GEMMTAB=${GEMMTAB:-build/bin/gemmtab}
EVAL_MS=${EVAL_MS:-10}
export GEMMTAB_WORKER=${GEMMTAB_WORKER:-$PWD/build/tests/fake_worker}
for f in "$GEMMTAB" "$GEMMTAB_WORKER"; do
	[ -x "$f" ] || { echo "bench-supervisor: $f is not built (make all tests)" >&2; exit 2; }
done
T=$(mktemp -d "${TMPDIR:-/tmp}/gemmtab-bench.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail=0
# (parenthesized: awk reads "print a >= b" as a redirection to a file)
calc() { awk "BEGIN { print ($1) }"; }

# sweep SPACE DB ARGS...: runs a sweep from a fresh database; sets wall
# (s), cpu (the supervisor's s) and results
sweep() {
	local space=$1 db=$2; shift 2
	rm -f "$db" "$db-wal" "$db-shm"
	local t0; t0=$(date +%s.%N)
	"$GEMMTAB" sweep --space "$space" --db "$db" --cache "$T/cache" "$@" 2>"$T/err" ||
		{ echo "bench-supervisor: the sweep failed:" >&2; tail -n 5 "$T/err" >&2; exit 1; }
	wall=$(awk -v a="$(date +%s.%N)" -v b="$t0" 'BEGIN { print a - b }')
	cpu=$(sed -n 's/.*(supervisor CPU \([0-9.]*\) s).*/\1/p' "$T/err")
	results=$(sqlite3 "$db" "SELECT count(*) FROM result")
	baselines=$(sqlite3 "$db" "SELECT count(*) FROM baseline")
}
space() {   # space N: N shapes of one range each, 8 gemv candidates a shape
	printf 'sweep: {screen_pairs: 4, retest_pairs: 100, retest_top: 2, range_top: 4, range_pairs: 100, deadline_s: 5}\nshapes:\n'
	for i in $(seq 1 "$1"); do
		echo "  - {family: s$i, n: $((1024 + 256 * i)), k: 4096, w: bf16, x: bf16, y: bf16, tol: 1e-2, m: 1..512, anchors: [1, 8, 64, 256]}"
	done
	printf 'templates:\n  gemv:\n    params: {warps: [4, 8], rows: [1, 2], tokens: [1, 8], unroll: [1], split: [1], cache: [default]}\n'
}

echo "# make bench-supervisor"
echo
echo "$(nproc) CPUs; fake worker: $GEMMTAB_WORKER; $(date -u +%F)."
echo
"$GEMMTAB" compile --space tests/spaces/range.yaml --cache "$T/cache" --quiet >/dev/null || exit 1
echo "## Devices: tests/spaces/range.yaml, every eval $EVAL_MS ms"
echo
echo "| GPUs | results | baselines | wall s | speed-up |"
echo "|---|---|---|---|---|"
export FAKE_WORKER_DEVICES=4 FAKE_WORKER_EVAL_US=$((EVAL_MS * 1000))
sweep tests/spaces/range.yaml "$T/one.db" --device 0
w1=$wall
printf '| 1 | %s | %s | %.1f | 1.00x |\n' "$results" "$baselines" "$wall"
r1=$results
sweep tests/spaces/range.yaml "$T/four.db" --devices all
speedup=$(calc "$w1 / $wall")
printf '| 4 | %s | %s | %.1f | %.2fx |\n' "$results" "$baselines" "$wall" "$speedup"
echo
[ "$results" = "$r1" ] || { echo "**the 4-GPU sweep recorded $results results, the 1-GPU one $r1**"; fail=1; }
if [ "$(calc "$speedup >= 3.5")" = 1 ]; then echo "4 GPUs >= 3.5x: met."
else echo "4 GPUs >= 3.5x: **missed** ($(printf %.2f "$speedup")x)."; fail=1; fi
echo

echo "## Cost per result: generated range spaces, instant evals, one GPU"
echo
echo "| shapes | results | baselines | wall s | supervisor CPU s | CPU ms / result | wall ms / result |"
echo "|---|---|---|---|---|---|---|"
export FAKE_WORKER_EVAL_US=0
for n in 10 50; do
	space "$n" >"$T/s$n.yaml"
	"$GEMMTAB" compile --space "$T/s$n.yaml" --cache "$T/cache" --quiet >/dev/null || exit 1
	sweep "$T/s$n.yaml" "$T/s$n.db" --device 0
	per_cpu=$(calc "1000 * $cpu / $results")
	per_wall=$(calc "1000 * $wall / $results")
	printf '| %s | %s | %s | %.1f | %.2f | %.3f | %.3f |\n' "$n" "$results" "$baselines" "$wall" "$cpu" "$per_cpu" "$per_wall"
done
echo
if [ "$results" -lt 100000 ]; then echo "**the big space recorded $results results, under 100,000**"; fail=1
elif [ "$(calc "$per_wall < 1")" = 1 ]; then echo "under 1 ms a result at $results results (wall, fake worker included): met."
else echo "under 1 ms a result: **missed** ($(printf %.3f "$per_wall") ms)."; fail=1; fi
exit $fail

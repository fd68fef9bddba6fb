#!/usr/bin/env bash
# tools/device_run.sh: everything one device call does, in order, on the
# H200 machine, over a tree built here (build/ carried). Steps:
#   test-gpu        make test-gpu PREBUILT=1
#   probe           gemmtab probe into $DB
#   sweep SPACE     gemmtab sweep SPACE into $DB (resumable; bounded by $SWEEP_S)
#   report          gemmtab report of $DB (text and md)
#   bench           gemmtab bench of the compiled-in table (runtime/tables/h200.h)
#                   as bench/h200.md is made: $ROUNDS rounds (3), floor
#                   fractions from a probe of this machine ($FLOORS, probed
#                   on first use) and --paired
#   ab              tools/ab_bench.sh run $AB_ROUNDS (4): this tree's table
#                   against the one `tools/ab_bench.sh prep REF` put in
#                   build/ab (carry build/ab), packed into ab.tgz
# Logs and the database come back under $OUT (the device brings back 8
# files at most: test-gpu's logs come packed).
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-out}; mkdir -p "$OUT"
DB=${DB:-db/quick.db}
export PATH=/usr/local/cuda/bin:$PATH CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
G=build/bin/gemmtab
FLOORS=${FLOORS:-/tmp/gemmtab-floors.db}
# the floors the bench step reports against: one probe a call
floors() {
	[ -s "$FLOORS" ] || $G probe --db "$FLOORS" >"$OUT/floors.txt" 2>&1
}
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv >"$OUT/gpu.txt" 2>&1
cat "$OUT/gpu.txt"
while [ $# -gt 0 ]; do
	step=$1; shift
	t0=$SECONDS
	case $step in
	test-gpu) make test-gpu PREBUILT=1 2>&1 | tee "$OUT/test-gpu.log" | tail -n 40
		tar czf "$OUT/gpu-logs.tgz" build/tests/logs 2>/dev/null ;;
	probe) wrote_db=1
		$G probe --db "$DB" --space "${SPACE:-search_spaces/quick.yaml}" 2>&1 | tee "$OUT/probe.txt" ;;
	sweep) space=$1; shift; wrote_db=1
		timeout -s INT "${SWEEP_S:-420}" $G sweep --space "$space" --db "$DB" 2>&1 | tail -n 30 | tee "$OUT/sweep.txt" ;;
	report) $G report --db "$DB" 2>&1 | tee "$OUT/report.txt"
		$G report --db "$DB" --format md >"$OUT/report.md" 2>&1 ;;
	bench) floors
		$G bench --table runtime/tables/h200.h --rounds "${ROUNDS:-3}" --floors "$FLOORS" \
			--paired --format md --out "$OUT/h200.md" >"$OUT/bench.txt" 2>&1
		tail -n 12 "$OUT/h200.md" ;;
	ab) ab=$(mktemp -d)
		OUT=$ab bash tools/ab_bench.sh run "${AB_ROUNDS:-4}" && cat "$ab/scores.txt"
		tar czf "$OUT/ab.tgz" -C "$ab" . ;;
	*) echo "device_run: unknown step $step" >&2 ;;
	esac
	echo "== $step took $((SECONDS - t0)) s"
done
# the database when a step wrote it
if [ -n "${wrote_db:-}" ]; then
	for f in "$DB" "$DB-wal"; do [ -f "$f" ] && cp "$f" "$OUT/"; done
fi
exit 0

#!/usr/bin/env bash
# tools/ab_sweep.sh: one search space swept by two builds of gemmtab on one
# machine, alternately, so that a template change is judged against the
# code it replaces under the same lease (session 11 did this by hand in
# runs 155-162: a and b in one call, then a again).
#
#   bash tools/ab_bench.sh prep REF     (here) builds this tree's gemmtab
#       into build/ab/a and REF's into build/ab/b
#   bash tools/ab_sweep.sh SPACE [N]    (on the device, carry build/ab)
#       N rounds (default 2) of a sweep of SPACE by a and by b,
#       alternating which goes first, each into a fresh database; under
#       $OUT: sweeps.txt (each round's retests side by side: family, m,
#       candidate, a's and b's us) and ab_sweeps.tgz with the
#       databases and logs
# Each build compiles its own cubins (the template hash keys the cache),
# and every candidate is checked against FP64 before it is timed, as in
# any sweep.
set -eu
cd "$(dirname "$0")/.."

space=${1:?usage: tools/ab_sweep.sh SPACE [N] (after tools/ab_bench.sh prep REF)}
n=${2:-2}
OUT=${OUT:-out}
mkdir -p "$OUT"
W=$(mktemp -d)
export PATH=/usr/local/cuda/bin:$PATH CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
q="SELECT s.family, r.m, c.template || ' ' || c.params, round(r.cand_us, 2) FROM result r
   JOIN candidate c ON c.id = r.candidate_id JOIN shape s ON s.id = r.shape_id
   WHERE r.phase = 'retest' AND r.status = 'ok'"
# "family,m,candidate|us", sorted as join reads it
keyed() { sed 's/,\([^,]*\)$/|\1/' "$1" | sort -t '|' -k1,1; }
for i in $(seq 1 "$n"); do
	if [ $((i % 2)) = 1 ]; then order="a b"; else order="b a"; fi
	for side in $order; do
		build/ab/$side/gemmtab sweep --space "$space" --db "$W/${side}_$i.db" \
			>"$W/${side}_$i.log" 2>&1 || echo "ab_sweep: $side's sweep $i failed" >&2
		{ build/ab/$side/gemmtab query --db "$W/${side}_$i.db" --format csv "$q" ||
			echo "ab_sweep: $side's query $i failed" >&2; } | tail -n +2 >"$W/${side}_$i.csv"
	done
	# side by side where both retested the same (family, m, candidate)
	echo "== round $i ($order): family,m,candidate|a_us|b_us" >>"$W/sweeps.txt"
	join -t '|' <(keyed "$W/a_$i.csv") <(keyed "$W/b_$i.csv") >>"$W/sweeps.txt" || true
	tail -n 1 "$W/a_$i.log" "$W/b_$i.log" >>"$W/sweeps.txt"
done
cp "$W/sweeps.txt" "$OUT/"
tar czf "$OUT/ab_sweeps.tgz" -C "$W" .
cat "$OUT/sweeps.txt"

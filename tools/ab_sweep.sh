#!/usr/bin/env bash
# tools/ab_sweep.sh: one search space swept by two builds of gemmtab on one
# machine, alternately, so that a template change is judged against the
# code it replaces under the same lease (session 11 did this by hand in
# runs 155-162: a and b in one call, then a again).
#
#   bash tools/ab_sweep.sh prep REF     (here) build REF (a branch or
#       commit) in a git worktree; this tree's gemmtab goes to
#       build/abs/a, REF's to build/abs/b
#   bash tools/ab_sweep.sh run SPACE [N]    (on the device, carry
#       build/abs) N rounds (default 2) of a sweep of SPACE by a and by b,
#       alternating which goes first, each into a fresh database; under
#       $OUT: sweeps.txt (each round's retests side by side: family, m,
#       candidate, a's and b's us) and abs_runs.tgz with the
#       databases and logs
# Each build compiles its own cubins (the template hash keys the cache),
# and every candidate is checked against FP64 before it is timed, as in
# any sweep.
set -eu
cd "$(dirname "$0")/.."

case "${1:-}" in
prep)
	ref=${2:?usage: tools/ab_sweep.sh prep REF}
	tmp=$(mktemp -d)
	wt=$tmp/tree
	trap 'git worktree remove --force "$wt" 2>/dev/null; rm -rf "$tmp"' EXIT
	git worktree add --detach "$wt" "$ref" >/dev/null
	make -C "$wt" -j"$(nproc)" build/bin/gemmtab >/dev/null
	make -j"$(nproc)" build/bin/gemmtab >/dev/null
	mkdir -p build/abs/a build/abs/b
	cp build/bin/gemmtab build/abs/a/
	cp "$wt/build/bin/gemmtab" build/abs/b/
	dirty=$(git status --porcelain --untracked-files=no | head -c 1)
	echo "build/abs/a: this tree ($(git rev-parse --short HEAD)${dirty:+ with uncommitted changes})," \
		"build/abs/b: $ref ($(git rev-parse --short "$ref"))"
	;;
run)
	space=${2:?usage: tools/ab_sweep.sh run SPACE [N]}
	n=${3:-2}
	OUT=${OUT:-out}
	mkdir -p "$OUT"
	W=$(mktemp -d)
	export PATH=/usr/local/cuda/bin:$PATH CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
	q="SELECT s.family, r.m, c.template || ' ' || c.params, round(r.cand_us, 2) FROM result r
	   JOIN candidate c ON c.id = r.candidate_id JOIN shape s ON s.id = r.shape_id
	   WHERE r.phase = 'retest' AND r.status = 'ok' ORDER BY 1, 2, 3"
	for i in $(seq 1 "$n"); do
		if [ $((i % 2)) = 1 ]; then order="a b"; else order="b a"; fi
		for side in $order; do
			build/abs/$side/gemmtab sweep --space "$space" --db "$W/${side}_$i.db" \
				>"$W/${side}_$i.log" 2>&1 || echo "ab_sweep: $side's sweep $i failed" >&2
			build/abs/$side/gemmtab query --db "$W/${side}_$i.db" --format csv "$q" |
				tail -n +2 | sort >"$W/${side}_$i.csv"
		done
		# side by side where both retested the same (family, m, params)
		echo "== round $i ($order): family,m,candidate|a_us|b_us" >>"$W/sweeps.txt"
		join -t '|' <(sed 's/,\([^,]*\)$/|\1/' "$W/a_$i.csv" | sort -t '|' -k1,1) \
			<(sed 's/,\([^,]*\)$/|\1/' "$W/b_$i.csv" | sort -t '|' -k1,1) >>"$W/sweeps.txt" || true
		tail -n 1 "$W/a_$i.log" "$W/b_$i.log" >>"$W/sweeps.txt"
	done
	cp "$W/sweeps.txt" "$OUT/"
	tar czf "$OUT/abs_runs.tgz" -C "$W" .
	cat "$OUT/sweeps.txt"
	;;
*)
	echo "usage: tools/ab_sweep.sh prep REF | run SPACE [N]" >&2
	exit 2
	;;
esac

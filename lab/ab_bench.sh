#!/usr/bin/env bash
# lab/ab_bench.sh: two dispatch tables benched against each other on one
# machine, alternately, so that what differs between leases (one table's
# score moves about 1% from one lent machine to the next) does not decide
# between them.
#
#   bash lab/ab_bench.sh prep REF     (here) build REF (a branch or
#       commit) in a git worktree and put both gemmtab binaries, each with
#       its own table compiled into its library, with their table headers
#       and search spaces under build/ab/a (this tree) and build/ab/b (REF)
#   bash lab/ab_bench.sh run [N [SPACE]]  (on the device, carry build/ab)
#       one probe into a scratch database, then N rounds (default 3) of one
#       bench of a and one of b, in alternating order, each with floor
#       fractions; under $OUT: scores.txt (a line per round), probe.txt,
#       the last round's a_N.md and b_N.md, and ab_runs.tgz with all of it.
#       SPACE (a file of shapes, as gemmtab bench --space reads, its path
#       from the repository root; REF's gemmtab must read it too) benches
#       only those families and Ms, on both sides (a bisection of what a
#       table's process does to the others);
#       lab/ab_points.sh then compares two reports point by point.
#       BENCH_ARGS (e.g. "--range-step 4 --rounds 2") goes to every bench
#       of both sides
set -eu
cd "$(dirname "$0")/.."

case "${1:-}" in
prep)
	ref=${2:?usage: lab/ab_bench.sh prep REF}
	tmp=$(mktemp -d)
	wt=$tmp/tree
	# the worktree goes whatever happens to the builds
	trap 'git worktree remove --force "$wt" 2>/dev/null; rm -rf "$tmp"' EXIT
	git worktree add --detach "$wt" "$ref" >/dev/null
	make -C "$wt" -j"$(nproc)" build/bin/gemmtab >/dev/null
	mkdir -p build/ab/a build/ab/b
	make -j"$(nproc)" build/bin/gemmtab >/dev/null
	cp build/bin/gemmtab runtime/tables/h200.h search_spaces/h200.yaml build/ab/a/
	cp "$wt/build/bin/gemmtab" "$wt/runtime/tables/h200.h" "$wt/search_spaces/h200.yaml" \
		build/ab/b/
	dirty=$(git status --porcelain --untracked-files=no | head -c 1)
	echo "build/ab/a: this tree ($(git rev-parse --short HEAD)${dirty:+ with uncommitted changes})," \
		"build/ab/b: $ref ($(git rev-parse --short "$ref"))"
	;;
run)
	n=${2:-3}
	# a space of shapes alone benches (and prepares) only those: both
	# sides then read the same families and Ms
	space=${3:-}
	if [ -n "$space" ] && [ ! -r "$space" ]; then
		echo "ab_bench: cannot read the space $space" >&2
		exit 2
	fi
	OUT=${OUT:-out}
	mkdir -p "$OUT"
	# every output in W; $OUT gets the scores, the probe, the last
	# round's two reports and a tarball of the rest (the device brings
	# back 8 files at most)
	W=$(mktemp -d)
	export PATH=/usr/local/cuda/bin:$PATH CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
	if ! build/ab/a/gemmtab probe --db "$W/floors.db" --space "${space:-build/ab/a/h200.yaml}" \
		>"$W/probe.txt" 2>&1; then
		echo "ab_bench: the probe failed:" >&2
		tail -n 5 "$W/probe.txt" >&2
		exit 1
	fi
	for i in $(seq 1 "$n"); do
		# a then b in odd rounds, b then a in even ones
		if [ $((i % 2)) = 1 ]; then order="a b"; else order="b a"; fi
		line="round $i:"
		for side in a b; do eval "rc_$side=-"; done
		for side in $order; do
			# bench exits 1 when a point fails its FP64 check: say so
			rc=0
			build/ab/$side/gemmtab bench --table build/ab/$side/h200.h \
				--space "${space:-build/ab/$side/h200.yaml}" --floors "$W/floors.db" --format md \
				${BENCH_ARGS:-} \
				--out "$W/${side}_$i.md" >"$W/${side}_$i.log" 2>&1 || rc=$?
			eval "rc_$side=$rc"
		done
		for side in a b; do
			eval "rc=\$rc_$side"
			line="$line $side $(tail -n 1 "$W/${side}_$i.md" 2>/dev/null || true)"
			line="$line $(grep -m 1 -o '^all-M: [0-9.]*' "$W/${side}_$i.md" 2>/dev/null || true) (exit $rc)"
		done
		echo "$line" | tee -a "$W/scores.txt"
		# each round's line reaches $OUT at once: a timeout keeps what ran
		cp "$W/scores.txt" "$OUT/"
	done
	cp "$W/scores.txt" "$W/probe.txt" "$W/a_$n.md" "$W/b_$n.md" "$OUT/"
	tar czf "$OUT/ab_runs.tgz" -C "$W" .
	;;
*)
	echo "usage: lab/ab_bench.sh prep REF | run [N [SPACE]]" >&2
	exit 2
	;;
esac

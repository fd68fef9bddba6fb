#!/usr/bin/env bash
# lab/harden/kill9.sh [SUP_KILLS] [WORKER_KILLS] [DEVICES]: issue 45's kill
# figure, tests/cli/t_kill9.sh's harness with its counts and devices as
# arguments: SUP_KILLS [20] kill -9s of the supervisor at random points
# (each resumed by rerunning the same sweep), then WORKER_KILLS [15] kill
# -9s of a worker in one sweep; with DEVICES (e.g. 0-3) every sweep runs
# `--devices DEVICES` against 4 fake GPUs (FAKE_WORKER_DEVICES=4) and a
# worker kill takes any one of them. Each final result set (what each
# shape, candidate, M and phase measured) is compared with one
# uninterrupted sweep's, and the rows are counted.
set -u
cd "$(dirname "$0")/../.."
SUPK=${1:-20} WKK=${2:-15} DEV=${3:-}
# the fewest requests between two worker kills (then 0-2 more at random)
GAP=${GAP:-2}
G=${GEMMTAB:-$PWD/build/bin/gemmtab}
export GEMMTAB_WORKER=${GEMMTAB_WORKER:-$PWD/build/tests/fake_worker}
W=$(mktemp -d "${TMPDIR:-/tmp}/harden-kill9.XXXXXX")
trap 'rm -rf "$W"' EXIT
SPACE=$W/space.yaml
sed -e 's/m: \[1, 8\], neighbours: \[2, 7\]/m: [1, 8, 16, 32, 64], neighbours: [2, 7, 24, 48]/' \
	-e 's/m: \[1, 8\], neighbours: \[2\]/m: [1, 8, 16, 32], neighbours: [2, 12, 24]/' \
	-e 's/unroll: \[1\]/unroll: [1, 2]/' \
	tests/spaces/fake.yaml >"$SPACE"
devargs=()
if [ -n "$DEV" ]; then
	devargs=(--devices "$DEV")
	export FAKE_WORKER_DEVICES=4
fi
RANDOM=45
results() {
	sqlite3 -separator ' ' "$1" "SELECT s.family, s.n, s.k, c.template, c.params, r.m, r.phase,
		r.status, r.ratio, r.ratio_lo, r.ratio_hi, r.base_us, r.cand_us, r.pairs, r.err_global
		FROM result r JOIN shape s ON s.id = r.shape_id JOIN candidate c ON c.id = r.candidate_id
		ORDER BY 1, 2, 3, 4, 5, 6, 7"
}
sweep() { "$G" sweep --space "$SPACE" --db "$1" --cache "$W/cache" "${devargs[@]}"; }
sweep "$W/ref.db" >/dev/null 2>&1 || { echo "the uninterrupted sweep failed"; exit 1; }
results "$W/ref.db" >"$W/ref.txt"
wait_requests() {
	local want=$(( $(wc -l <"$1") + $2 ))
	while [ "$(wc -l <"$1")" -lt "$want" ] && kill -0 "$3" 2>/dev/null; do sleep 0.01; done
}
kill_tree() { local kids; kids=$(pgrep -P "$1"); kill -9 "$1" $kids 2>/dev/null; wait "$1" 2>/dev/null; }
export FAKE_WORKER_DELAY_MS=40 FAKE_WORKER_LOG=$W/requests
: >"$W/requests"
kills=0 runs=0
while [ "$kills" -lt "$SUPK" ] && [ "$runs" -lt $((SUPK * 3)) ]; do
	runs=$((runs + 1))
	"$G" sweep --space "$SPACE" --db "$W/sup.db" --cache "$W/cache" "${devargs[@]}" >>"$W/sup.log" 2>&1 &
	pid=$!
	wait_requests "$W/requests" $((1 + RANDOM % 4)) "$pid"
	sleep "0.0$((RANDOM % 10))"
	if kill -0 "$pid" 2>/dev/null; then kill_tree "$pid"; kills=$((kills + 1)); else wait "$pid"; break; fi
done
sweep "$W/sup.db" >>"$W/sup.log" 2>&1
rc=$?
results "$W/sup.db" >"$W/sup.txt"
same=no; cmp -s "$W/ref.txt" "$W/sup.txt" && same=yes
echo "supervisor${DEV:+ (--devices $DEV)}: $kills kill -9s in $runs runs, rerun exit $rc; rows $(wc -l <"$W/sup.txt") of $(wc -l <"$W/ref.txt"); the final set equals the uninterrupted one: $same"

"$G" sweep --space "$SPACE" --db "$W/wk.db" --cache "$W/cache" "${devargs[@]}" >"$W/wk.log" 2>&1 &
pid=$!
kills=0
while [ "$kills" -lt "$WKK" ] && kill -0 "$pid" 2>/dev/null; do
	wait_requests "$W/requests" $((GAP + RANDOM % 3)) "$pid"
	sleep "0.0$((RANDOM % 4))"
	# with several workers, each kill takes the next GPU's in turn, so that
	# no worker is killed twice running with one candidate in flight
	if [ -n "$DEV" ]; then
		w=$(pgrep -a -P "$pid" -f fake_worker | awk -v d="--device $((kills % 4))" 'index($0, d) { print $1; exit }')
	else
		w=$(pgrep -P "$pid" -f fake_worker | head -n 1)
	fi
	[ -n "$w" ] && kill -9 "$w" 2>/dev/null && kills=$((kills + 1))
done
wait "$pid"
rc=$?
results "$W/wk.db" >"$W/wk.txt"
same=no; cmp -s "$W/ref.txt" "$W/wk.txt" && same=yes
if [ "$same" = no ]; then
	echo "  differs: $(diff "$W/ref.txt" "$W/wk.txt" | grep -c '^<') rows of the uninterrupted set missing or changed, $(diff "$W/ref.txt" "$W/wk.txt" | grep -c '^>') in their place:"
	diff "$W/ref.txt" "$W/wk.txt" | grep '^[<>]' | head -n 6 | sed 's/^/    /'
	grep -E "restart|died|fault|error" "$W/wk.log" | sort | uniq -c | sort -rn | head -n 5 | sed 's/^/    /'
fi
echo "worker${DEV:+ (--devices $DEV)}: $kills kill -9s, sweep exit $rc; rows $(wc -l <"$W/wk.txt") of $(wc -l <"$W/ref.txt"); the final set equals the uninterrupted one: $same; $(grep -c 'trying it once more' "$W/wk.log") candidates asked again"

#!/usr/bin/env bash
# bench/search.sh (make bench-search): what a search costs and what its
# table is worth, on the modelled GPU (tests/fake/gpumodel.c), no GPU.
# Three spaces:
#   reference  search_spaces/h200.yaml: the reference workload's shapes
#              over M = 1..512, its templates and its cuBLASLt section
#   llama      gemmtab init --model tests/models/llama-3-8b.json --tp 1 --max-m 512
#   odd        gemmtab init --model bench/search_odd.json --tp 1 --max-m 512
#              (hidden 3000, intermediate 1000, 24 heads of 125)
# Each is swept from an empty database by the fake worker with
# FAKE_WORKER_MODEL (default h200), emitted, and judged against the
# model's truth (build/tests/fake_truth) at every M of 1..512 of its
# workload. Per space and method it prints the modelled GPU seconds
# (with the dry run's estimate of the same sweep and its error), the
# evals and their pairs, the regret's geomean, its worst M and how many
# Ms the table runs slower than the baseline; then one line per space:
#   bench-search SPACE: gpu_s old=X new=Y (Zx) regret geo=G% max=W% slower=K
# (the regret of the new search's table where one ran, else the old's).
# Then, with transfer among the spaces (the default), a table moved to a
# new card (gemmtab sweep --seed-from): the reference space swept in full
# on the H200 profile (the reference line's sweep, when it ran on it) and
# on the H100 profile, then on the H100 profile seeded from the H200
# sweep's database; both H100 tables judged per M by fake_truth, the
# seeded one's regret taken against the full one's over M = 1..512:
#   bench-search transfer h200->h100: gpu_s full=X seeded=Y (Zx) regret geo=G% max=W%
#
# Options: --search dense|new|both [both]: new is passed to the sweep as
# `--search new` and runs only where the sweep has that option (else
# new=-); --search-opts PARTS passes sweep's --search-opts to the new
# search (what a part buys: e.g. prune,early,race,grid without carry
# and cross);
# --spaces LIST [reference,llama,odd,transfer]; --model h200|h100 (the
# transfer is always H200 to H100).
# Kernels are "compiled" by tests/fake/fake_nvrtc.c (LD_PRELOAD): no
# NVRTC time, no cubin that could run. Work files: build/bench-search/.
set -u
cd "$(dirname "$0")/.."
GEMMTAB=${GEMMTAB:-build/bin/gemmtab}
TRUTH=build/tests/fake_truth
NVRTC=$PWD/build/tests/fake_nvrtc.so
export GEMMTAB_WORKER=${GEMMTAB_WORKER:-$PWD/build/tests/fake_worker}
search=both spaces=reference,llama,odd,transfer model=h200 opts=
while [ $# -gt 0 ]; do
	case $1 in
	--search) search=$2; shift 2 ;;
	--spaces) spaces=$2; shift 2 ;;
	--model) model=$2; shift 2 ;;
	--search-opts) opts=$2; shift 2 ;;
	*) echo "usage: bench/search.sh [--search dense|new|both] [--search-opts PARTS] [--spaces LIST] [--model h200|h100]" >&2
	   exit 2 ;;
	esac
done
case $search in dense|new|both) ;; *) echo "bench-search: --search $search: not dense, new or both" >&2; exit 2 ;; esac
for f in "$GEMMTAB" "$GEMMTAB_WORKER" "$TRUTH" "$NVRTC"; do
	[ -e "$f" ] || { echo "bench-search: $f is not built (make all tests)" >&2; exit 2; }
done
W=build/bench-search
mkdir -p "$W"
has_new=0
"$GEMMTAB" sweep --help 2>&1 | grep -q -- '--search' && has_new=1

space_file() {   # space_file NAME: the YAML of a space, written under $W
	case $1 in
	reference) echo search_spaces/h200.yaml ;;
	llama) "$GEMMTAB" init --model tests/models/llama-3-8b.json --tp 1 --max-m 512 \
		--out "$W/llama.yaml" 2>/dev/null && echo "$W/llama.yaml" ;;
	odd) "$GEMMTAB" init --model bench/search_odd.json --tp 1 --max-m 512 \
		--out "$W/odd.yaml" 2>/dev/null && echo "$W/odd.yaml" ;;
	*) echo "bench-search: no space $1 (reference, llama, odd)" >&2; return 1 ;;
	esac
}

# run SPACE NAME METHOD: sweep, emit, judge; sets gpu_s and regret (the
# fake_truth line), prints the space's figures
run() {
	local file=$1 name=$2 method=$3 args=()
	local d=$W/$name-$method
	rm -rf "$d" && mkdir -p "$d"
	[ "$has_new" = 1 ] && args=(--search "$method")
	[ "$method" = new ] && [ -n "$opts" ] && args+=(--search-opts "$opts")
	local t0=$SECONDS
	LD_PRELOAD=$NVRTC FAKE_WORKER_MODEL=$model FAKE_WORKER_GPU_LOG=$d/gpu.log \
		"$GEMMTAB" sweep --space "$file" --db "$d/sweep.db" --cache "$W/cache" "${args[@]}" \
		>"$d/sweep.out" 2>"$d/sweep.err" ||
		{ echo "bench-search: the $method sweep of $name failed:" >&2; tail -n 5 "$d/sweep.err" >&2; return 1; }
	LD_PRELOAD=$NVRTC "$GEMMTAB" emit --db "$d/sweep.db" --out "$d/table.h" --cache "$W/cache" \
		>"$d/emit.out" 2>"$d/emit.err" ||
		{ echo "bench-search: emit of $name ($method) failed:" >&2; tail -n 5 "$d/emit.err" >&2; return 1; }
	"$TRUTH" --space "$file" --model "$model" --table "$d/table.h" --per-m >"$d/regret.txt" ||
		{ echo "bench-search: fake_truth failed on $name ($method)" >&2; return 1; }
	read -r gpu_s evals pairs < <(awk '{ s += $5 } $1 == "eval" { e++; p += $4 }
		END { printf "%.1f %d %d\n", s, e, p }' "$d/gpu.log")
	regret=$(tail -n 1 "$d/regret.txt")
	# the dry run's GPU estimate of the same sweep (price.c) against the model
	local est
	est=$("$GEMMTAB" sweep --space "$file" "${args[@]}" --dry-run 2>/dev/null |
		sed -n 's/^estimate: .*GPU \([0-9]*\) s.*/\1/p' | tail -n 1)
	est="estimate ${est:-?} s ($(awk -v e="${est:-0}" -v g="$gpu_s" \
		'BEGIN { printf "%+.1f%%", (g > 0 ? 100 * (e - g) / g : 0) }'))"
	local entries
	entries=$(grep -cE '^	/\* .*, M [0-9]+\.\.[0-9]+: ' "$d/table.h")
	echo "$name ($method): modelled GPU $gpu_s s ($est), $evals evals, $pairs pairs, $entries entries;" \
		"${regret#regret }; sweep and judge $((SECONDS - t0)) s on this CPU"
}

# transfer_sweep DIR PROFILE [ARGS...]: the reference space swept on the
# model's PROFILE into DIR (ARGS passed to the sweep), emitted and judged
# per M; sets gpu_s
transfer_sweep() {
	local d=$1 profile=$2 file=search_spaces/h200.yaml
	shift 2
	rm -rf "$d" && mkdir -p "$d"
	LD_PRELOAD=$NVRTC FAKE_WORKER_MODEL=$profile FAKE_WORKER_GPU_LOG=$d/gpu.log \
		"$GEMMTAB" sweep --space "$file" --db "$d/sweep.db" --cache "$W/cache" "$@" \
		>"$d/sweep.out" 2>"$d/sweep.err" ||
		{ echo "bench-search: the transfer's sweep in $d failed:" >&2; tail -n 5 "$d/sweep.err" >&2; return 1; }
	LD_PRELOAD=$NVRTC "$GEMMTAB" emit --db "$d/sweep.db" --out "$d/table.h" --cache "$W/cache" \
		>"$d/emit.out" 2>"$d/emit.err" ||
		{ echo "bench-search: emit in $d failed:" >&2; tail -n 5 "$d/emit.err" >&2; return 1; }
	"$TRUTH" --space "$file" --model "$profile" --table "$d/table.h" --per-m >"$d/regret.txt" ||
		{ echo "bench-search: fake_truth failed in $d" >&2; return 1; }
	gpu_s=$(awk '{ s += $5 } END { printf "%.1f", s }' "$d/gpu.log")
}

# transfer: the seeded H100 sweep against the full one (the H200 source
# is the reference line's dense sweep when it ran on the H200 profile)
transfer() {
	local src=$W/reference-dense full seeded vs t0=$SECONDS
	if [ "$model" != h200 ] || [ "$search" = new ] || [[ ",$spaces," != *,reference,* ]]; then
		src=$W/transfer-h200
		transfer_sweep "$src" h200 || return 1
	fi
	transfer_sweep "$W/transfer-h100" h100 || return 1
	full=$gpu_s
	transfer_sweep "$W/transfer-seeded" h100 --seed-from "$src/sweep.db" || return 1
	seeded=$gpu_s
	# per M, the workload's time with the seeded table over the full one's
	vs=$(paste -d ' ' <(grep '^m=' "$W/transfer-h100/regret.txt") \
		<(grep '^m=' "$W/transfer-seeded/regret.txt") |
		awk '{ split($2, f, "="); split($7, s, "="); r = s[2] / f[2]; g += log(r); n++
		       if (r > w) w = r }
		     END { if (n) printf "geo=%.2f%% max=%.2f%%", 100 * (exp(g / n) - 1), 100 * (w - 1) }')
	[ -n "$vs" ] || { echo "bench-search: the transfer's tables were judged at no M" >&2; return 1; }
	echo "transfer h200->h100: full $full s, seeded $seeded s ($(grep -o '[0-9]* of [0-9]* candidates kept' \
		"$W/transfer-seeded/sweep.err")); against the truth: full $(tail -n 1 "$W/transfer-h100/regret.txt" |
		cut -d ' ' -f 2-3), seeded $(tail -n 1 "$W/transfer-seeded/regret.txt" | cut -d ' ' -f 2-3);" \
		"$((SECONDS - t0)) s on this CPU"
	summary+=("bench-search transfer h200->h100: gpu_s full=$full seeded=$seeded ($(awk -v a="$full" \
		-v b="$seeded" 'BEGIN { printf "%.1fx", a / b }')) regret $vs")
}

summary=()
IFS=, read -r -a names <<<"$spaces"
for name in "${names[@]}"; do
	[ "$name" = transfer ] && continue
	file=$(space_file "$name") || exit 2
	old=- new=- gain=- geo=- max=- slower=-
	if [ "$search" != new ]; then
		run "$file" "$name" dense || exit 1
		old=$gpu_s
	fi
	if [ "$search" != dense ]; then
		if [ "$has_new" = 1 ]; then
			run "$file" "$name" new || exit 1
			new=$gpu_s
			gain=$(awk -v a="$old" -v b="$new" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.1fx", a / b; else print "-" }')
		fi
	fi
	if [ -n "${regret:-}" ]; then
		geo=$(sed -n 's/.*geo=\([^ ]*\).*/\1/p' <<<"$regret")
		max=$(sed -n 's/.*max=\([^ ]*\).*/\1/p' <<<"$regret")
		slower=$(sed -n 's/.*slower=\([^ ]*\).*/\1/p' <<<"$regret")
	fi
	summary+=("bench-search $name: gpu_s old=$old new=$new ($gain) regret geo=$geo max=$max slower=$slower")
	regret=
done
if [[ ",$spaces," == *,transfer,* ]]; then
	transfer || exit 1
fi
printf '%s\n' "${summary[@]}"

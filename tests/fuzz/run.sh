#!/usr/bin/env bash
# tests/fuzz/run.sh DIR SECONDS JOBS: run each libFuzzer target of DIR
# (make fuzz) for SECONDS on JOBS processes, from its seeds and the inputs
# earlier runs kept (DIR/corpus_*), and print per target the executions,
# the coverage (edges and features), the corpus size and the crashes and
# sanitizer reports (their inputs are kept as DIR/artifacts/<target>-*).
# The targets' scratch files go to a folder of DIR, removed at the end,
# and the line says how many of their files were left in it (0).
# Exit status 1 when any target crashed or reported.
set -u
dir=$1 secs=$2 jobs=${3:-1}
cd "$(dirname "$0")/../.."
bad=0
for t in space db; do
	case $t in
	space) seeds="search_spaces tests/spaces" ;;
	db) seeds="$dir/seeds_db" ;;
	esac
	corpus=$dir/corpus_$t
	art=$dir/artifacts
	mkdir -p "$corpus" "$art"
	log=$dir/fuzz_$t.log
	rm -f "$dir"/fuzz_$t.*.log
	stamp=$dir/.start_$t
	touch "$stamp"
	# -max_len: the largest seed (the database is 34 KB); -timeout: a valid
	# space of 200,000 candidates takes 30 s under the sanitizers; -rss_limit: a
	# space that asks for a huge grid is refused before it allocates
	args=(-max_total_time="$secs" -print_final_stats=1 -max_len=65536 -timeout=120
	      -rss_limit_mb=4096 -artifact_prefix="$art/$t-")
	if [ "$jobs" -gt 1 ]; then
		args+=(-fork="$jobs" -ignore_crashes=1)
	fi
	scratch=$dir/tmp_$t
	rm -rf "$scratch"
	mkdir -p "$scratch"
	# shellcheck disable=SC2086
	TMPDIR=$scratch "$dir/fuzz_$t" "${args[@]}" "$corpus" $seeds >"$log" 2>&1
	rc=$?
	left=$(find "$scratch" -mindepth 1 | wc -l)
	rm -rf "$scratch"
	runs=$(grep -ao 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -n 1)
	[ -n "$runs" ] || runs=$(grep -aoE '^#[0-9]+' "$log" | tail -n 1 | tr -d '#')
	cov=$(grep -aoE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -n 1)
	reports=$(grep -acE '^==[0-9]+==ERROR|runtime error:|^SUMMARY: ' "$log")
	crashes=$(find "$art" -newer "$stamp" \( -name "$t-crash-*" -o -name "$t-leak-*" -o \
		-name "$t-timeout-*" -o -name "$t-oom-*" \) 2>/dev/null | wc -l)
	printf 'fuzz_%s: %s s, %s executions, %s, corpus %s files, %s crashes, %s sanitizer reports, %s scratch files left (exit %d; %s)\n' \
		"$t" "$secs" "${runs:-?}" "${cov:-cov: ?}" "$(ls "$corpus" | wc -l)" "$crashes" "$reports" "$left" "$rc" "$log"
	if [ "$rc" -ne 0 ] || [ "$reports" -ne 0 ] || [ "$crashes" -ne 0 ] || [ "$left" -ne 0 ]; then
		bad=1
		grep -aE -A12 '^==[0-9]+==ERROR|runtime error:' "$log" | head -n 30
	fi
done
exit $bad

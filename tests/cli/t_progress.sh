# CLI: a sweep whose stderr is not a terminal (a log, a batch job) prints a
# plain progress line every GEMMTAB_PROGRESS_S seconds [60] (done / total,
# rate, ETA), and no terminal bar. The ETA counts from the first request
# to a worker, not from the start (a compile first is not the evals'
# rate): the first line's ETA is within 2x of the time the sweep then took.
. "$(dirname "$0")/lib.sh"
export GEMMTAB_WORKER=$PWD/build/tests/fake_worker
GEMMTAB_PROGRESS_S=0.2 FAKE_WORKER_DELAY_MS=30 "$GEMMTAB" sweep --space tests/spaces/fake.yaml \
	--db "$TMP/t.db" --cache "$TMP/c" 2>"$TMP/log" >/dev/null
check "the sweep ran" test $? -eq 0
grep '^gemmtab: progress: ' "$TMP/log" >"$TMP/lines"
check "progress lines, every 0.2 s of a 2 s sweep ($(wc -l <"$TMP/lines"))" test "$(wc -l <"$TMP/lines")" -ge 4
check "each says done/total, percent, rate and ETA" bash -c \
	"! grep -vE '^gemmtab: progress: [a-z]+( [a-z_]+ m=[0-9]+)?: [0-9]+/[0-9]+ \([0-9]+%\), [0-9.]+/s, ETA [0-9]+m[0-9]{2}s$' '$TMP/lines'"
check "the sweep's done only grows" bash -c "grep '/46 ' '$TMP/lines' | sed -E 's|.*: ([0-9]+)/46 .*|\1|' | sort -n -c"
check "no terminal bar in the log" bash -c "! grep -q \$'\r' '$TMP/log'"
"$GEMMTAB" sweep --space tests/spaces/fake.yaml --db "$TMP/u.db" --cache "$TMP/c" 2>"$TMP/log60" >/dev/null
check "at the default 60 s, a 2 s sweep prints none" bash -c "! grep -q '^gemmtab: progress: ' '$TMP/log60'"
# the first line's ETA against the time left: each line stamped as it
# comes, with a cold cache so the compile comes first (about 7 s here)
GEMMTAB_PROGRESS_S=0.2 FAKE_WORKER_DELAY_MS=100 "$GEMMTAB" sweep --space tests/spaces/fake.yaml \
	--db "$TMP/e.db" --cache "$TMP/ce" 2>&1 >/dev/null |
	while IFS= read -r l; do printf '%s %s\n' "$(date +%s.%N)" "$l"; done >"$TMP/elog"
end=$(date +%s.%N)
first=$(grep 'progress: [a-z]* [a-z_]* m=' "$TMP/elog" | head -n 1)
eta=$(echo "$first" | sed -nE 's/.*ETA ([0-9]+)m([0-9]{2})s$/\1 \2/p' | awk '{ print $1 * 60 + $2 }')
left=$(echo "$first" | awk -v end="$end" '{ printf "%.1f", end - $1 }')
# (the ETA is printed in whole seconds, so 1 s of slack below)
check "the first line's ETA (${eta:-none} s) is within 2x of the time left (${left} s)" \
	awk -v e="${eta:--1}" -v l="$left" 'BEGIN { exit !(e >= 0 && e + 1 >= l / 2 && e <= 2 * l) }'
finish

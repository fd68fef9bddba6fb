# CLI: a sweep whose stderr is not a terminal (a log, a batch job) prints a
# plain progress line every GEMMTAB_PROGRESS_S seconds [60] (done / total,
# rate, ETA), and no terminal bar.
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
finish

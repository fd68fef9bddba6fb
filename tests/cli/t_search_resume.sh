# CLI: a --search new sweep stopped by --time-limit and run again (the
# same command, as a GPU call of 10 minutes at most does) goes on where
# it stopped: on the fake worker's modelled GPU (tests/spaces/search.yaml,
# M = 1..160), the stopped and resumed runs together repeat at most two
# requests a resume (the anchor's baseline and the floor probe where a
# stop left screens) of one uninterrupted run's, and emit the same
# table; the dry run's resume: lines count the screens, the anchors'
# races and the grid Ms still to do, down to none.
. "$(dirname "$0")/lib.sh"

export GEMMTAB_WORKER=$PWD/build/tests/fake_worker
NVRTC=$PWD/build/tests/fake_nvrtc.so
space=tests/spaces/search.yaml

# sweep NAME ARGS: the space swept with --search new into $TMP/NAME/t.db,
# its modelled GPU log $TMP/NAME.log; its exit status returned
sweep() {
	local name=$1
	shift
	mkdir -p "$TMP/$name"
	LD_PRELOAD=$NVRTC FAKE_WORKER_MODEL=h200 FAKE_WORKER_GPU_LOG=$TMP/$name.log \
		"$GEMMTAB" sweep --space "$space" --db "$TMP/$name/t.db" --cache "$TMP/cache" \
		--search new "$@" >"$TMP/out" 2>"$TMP/err"
}
# table NAME: its table, emitted into $TMP/NAME/t.h, without the lines
# that name the database or hash the kernels
table() {
	LD_PRELOAD=$NVRTC "$GEMMTAB" emit --db "$TMP/$1/t.db" --out "$TMP/$1/t.h" \
		--cache "$TMP/cache" >/dev/null 2>&1 &&
		grep -v -e "$TMP/$1" -e "/\* kernels_hash \*/" "$TMP/$1/t.h" >"$TMP/$1.entries"
}
# resume_line NAME: the dry run's resume: line for the new search
resume_line() {
	"$GEMMTAB" sweep --space "$space" --db "$TMP/$1/t.db" --search new --dry-run 2>/dev/null |
		grep '^resume: ' | tr '\n' ' '
}

sweep whole
check "uninterrupted: exit 0" test $? = 0
check "its table" table whole

# the same command with --time-limit 0.4 s (0.2 s the first time, to
# stop inside the screens), 5 ms an eval, run until it finishes; what
# each stop left, by the dry run's resume: lines
stops=0 rc=3 limit=0.2
: >"$TMP/left"
while [ "$rc" = 3 ] && [ "$stops" -lt 40 ]; do
	FAKE_WORKER_DELAY_MS=5 sweep parts --time-limit $limit
	rc=$? limit=0.4
	[ "$rc" = 3 ] && stops=$((stops + 1))
	resume_line parts >>"$TMP/left"
	echo >>"$TMP/left"
done
check "stopped $stops times by --time-limit, then exit 0" test "$rc" = 0 -a "$stops" -ge 3
# the counts of one resume: line: screens to do, anchors and grid Ms to race
counts() { sed -n 's/.*; \([0-9]*\) to screen there .*: \([0-9]*\) anchors still to race and \([0-9]*\) grid Ms.*/\1 \2 \3/p'; }
check "a stop in the screens (some screened, some not)" \
	awk 'match($0, / holds [0-9]+ of the [0-9]+ screens/) {
		split(substr($0, RSTART, RLENGTH), a, " "); if (a[2] > 0 && a[2] < a[5]) f = 1 }
		END { exit !f }' "$TMP/left"
first=$(head -n 1 "$TMP/left" | counts)
check "the first stop left screens, races and grid Ms ($first)" \
	awk -v c="$first" 'BEGIN { split(c, a, " "); exit !(a[1] > 0 && a[2] > 0 && a[3] > 0) }'
check "a stop in the grid races (some grid Ms raced, some not)" \
	awk '/; 0 to screen there/ && /new: 0 anchors still to race and [1-9][0-9]* grid Ms/ { f = 1 } END { exit !f }' "$TMP/left"
last=$(tail -n 1 "$TMP/left" | counts)
check "the resume: line counts nothing left at the end ($last)" test "$last" = "0 0 0"
check "its table" table parts
check "the same table as the uninterrupted run's" cmp -s "$TMP/whole.entries" "$TMP/parts.entries"

# requests by (op, family, M, pairs): those of the stopped runs that
# match none of the uninterrupted run's
extra=$(awk 'NR == FNR { n[$1 " " $2 " " $3 " " $4]++; next }
	{ k = $1 " " $2 " " $3 " " $4; if (n[k] > 0) n[k]--; else e++ } END { print e + 0 }' \
	"$TMP/whole.log" "$TMP/parts.log")
check "$extra requests repeated over $stops resumes (at most 2 a resume)" test "$extra" -le $((2 * stops))
gpu() { awk '{ s += $5 } END { printf "%.2f", s }' "$TMP/$1.log"; }
check "modelled GPU $(gpu parts) s against the uninterrupted $(gpu whole) s (within 5%)" \
	awk -v a="$(gpu parts)" -v b="$(gpu whole)" 'BEGIN { exit !(a <= 1.05 * b) }'
finish

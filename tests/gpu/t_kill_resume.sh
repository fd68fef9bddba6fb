# GPU: kill -9 of a sweep mid-run, then the same command again: every row
# recorded before the kill is still there, the rerun measures only what is
# missing, and the end state holds each candidate exactly once.
. "$(dirname "$0")/lib.sh"

db=$TMP/resume.db
space=tests/spaces/resume.yaml
want=$(planned $space)
count() { q "SELECT count(*) FROM result WHERE phase='screen'"; }

"$GEMMTAB" sweep --space $space --db "$db" --no-retest >"$TMP/run1.out" 2>"$TMP/run1.err" &
pid=$!
for _ in $(seq 1 600); do
	n=$(count); [ "${n:-0}" -ge $((want / 3)) ] && break
	sleep 0.1
done
kill_tree $pid         # the sweep and its worker
before=$(count)
q "SELECT shape_id, candidate_id, m, status, cand_us FROM result WHERE phase='screen'" | LC_ALL=C sort >"$TMP/before"
echo "    killed after $before of $want screens"
check "killed mid-sweep (0 < $before < $want)" test "$before" -gt 0 -a "$before" -lt "$want"

expect_exit "rerun: exit 0" 0 "$GEMMTAB" sweep --space $space --db "$db" --no-retest
after=$(count)
check "every candidate recorded exactly once ($after == $want)" test "$after" = "$want"
q "SELECT shape_id, candidate_id, m, status, cand_us FROM result WHERE phase='screen'" | LC_ALL=C sort >"$TMP/after"
lost=$(LC_ALL=C comm -23 "$TMP/before" "$TMP/after" | wc -l)
check "nothing recorded before the kill was lost or changed ($lost rows)" test "$lost" -eq 0
dup=$(q "SELECT count(*) FROM (SELECT 1 FROM result GROUP BY env_id, shape_id, candidate_id, m, phase HAVING count(*) > 1)")
check "no duplicate rows" test "$dup" = 0
measured=$(grep -oE '^sweep: [0-9]+ ok' "$TMP/err" | grep -oE '[0-9]+' | head -n 1)
echo "    the rerun measured ${measured:-?} candidates"
check "the rerun measured only the missing ones" test -n "$measured" -a "${measured:-0}" -le $((want - before))
finish

# GPU: the cuBLASLt search (tests/spaces/gpu_lt.yaml). The sweep asks the
# heuristic for its first four algorithms per orientation at each bf16
# shape and tuned M; every blas_lt candidate it names is validated against
# the FP64 reference before it is timed (none may fail), and the router
# (FP32 weights) gets none. A resumed sweep names the same candidates and
# measures nothing again.
. "$(dirname "$0")/lib.sh"

# how many blas_lt candidates the last sweep says cuBLASLt named
named_count() {
	sed -n "s/.*cuBLASLt's heuristic named \([0-9]*\) blas_lt candidates.*/\1/p" "$TMP/err"
}

db=$TMP/lt.db
expect_exit "sweep gpu_lt.yaml: exit 0" 0 "$GEMMTAB" sweep --space tests/spaces/gpu_lt.yaml --db "$db"
named=$(named_count)
check "the sweep says how many the heuristic named (${named:-none})" test "${named:-0}" -gt 0
lt="FROM result r JOIN candidate c ON c.id=r.candidate_id JOIN shape s ON s.id=r.shape_id
    WHERE c.template='blas_lt' AND r.phase='screen'"
n=$(q "SELECT count(*) $lt")
okc=$(q "SELECT count(*) $lt AND r.status='ok'")
check "every named candidate was screened ($n of $named)" test "$n" = "$named"
check "every one validated ok ($okc of $n)" test "$okc" = "$n"
q "SELECT s.family, r.m, c.params, r.status, r.reason $lt AND r.status!='ok'" | head -n 10 |
	sed 's/^/    /'
for o in t row n; do
	echo "    orient=$o: $(q "SELECT count(*) $lt AND c.params LIKE 'orient=$o,%'") screened"
done
check "the t orientation (the baseline's own) has candidates" \
	test "$(q "SELECT count(*) $lt AND c.params LIKE 'orient=t,%'")" -gt 0
check "the router has none" test "$(q "SELECT count(*) $lt AND s.family='router'")" = 0
worst=$(q "SELECT max(r.err_global / s.tol) $lt AND r.status='ok'")
echo "    worst global error / tolerance: $worst"
check "errors were measured (not null)" test -n "$worst"
q "SELECT s.family, r.m, round(r.ratio, 3), c.params $lt AND r.status='ok' ORDER BY r.ratio DESC LIMIT 6" |
	sed 's/^/    best: /'
before=$(q "SELECT count(*) FROM result")
expect_exit "the sweep again: exit 0" 0 "$GEMMTAB" sweep --space tests/spaces/gpu_lt.yaml --db "$db"
again=$(named_count)
check "a resumed sweep names the same candidates (${again:-none} of $named)" test "$again" = "$named"
check "a resumed sweep measures nothing again" test "$(q "SELECT count(*) FROM result")" = "$before"

# split-K variants (tests/spaces/gpu_lt_splitk.yaml): each of the
# heuristic's algorithms again at the listed counts cuBLASLt takes
db=$TMP/lt_splitk.db
expect_exit "sweep gpu_lt_splitk.yaml: exit 0" 0 "$GEMMTAB" sweep --space tests/spaces/gpu_lt_splitk.yaml \
	--db "$db"
named=$(named_count)
n=$(q "SELECT count(*) $lt")
okc=$(q "SELECT count(*) $lt AND r.status='ok'")
echo "    named $named: $(q "SELECT group_concat(k || ' x' || c, ', ') AS g FROM (SELECT
	substr(c.params, instr(c.params, 'splitk='), 8) AS k, count(*) AS c $lt GROUP BY 1)")"
check "more than the heuristic's 2 per orientation and point (${named:-none} > 12)" \
	test "${named:-0}" -gt 12
check "every named candidate was screened ($n of $named)" test "$n" = "$named"
check "every one validated ok ($okc of $n)" test "$okc" = "$n"
one="c.params LIKE '%splitk=1,%'"
check "split-K 1 and above 1 both among them" test "$(q "SELECT count(DISTINCT $one) AS n $lt")" = 2
# two proposals per orientation and point hold at most two cluster shapes
# and two custom options; more come only from vary (most NAME: the most
# distinct "NAME=value" texts at one point and orientation; 10 characters
# hold "cluster=16" and "custom=9,i")
most() { q "SELECT max(n) AS most FROM (SELECT count(DISTINCT substr(c.params,
	instr(c.params, '$1='), 10)) AS n $lt GROUP BY r.shape_id, r.m, substr(c.params, 1, 9))"; }
for a in cluster custom; do
	check "vary: more than 2 $a values at a point and orientation ($(most $a))" \
		test "$(most $a)" -gt 2
done
# vary_seeds 1: the second sweep also varies the best candidate of each
# point and orientation the first measured (the ones the proposals'
# variants already named are not new): one seed per point and
# orientation with a validated screen
want=$(q "SELECT count(*) FROM (SELECT DISTINCT r.shape_id, r.m, substr(c.params, 1,
	instr(c.params, ',')) $lt AND r.status='ok')")
expect_exit "gpu_lt_splitk.yaml again, with seeds: exit 0" 0 "$GEMMTAB" sweep \
	--space tests/spaces/gpu_lt_splitk.yaml --db "$db"
again=$(named_count)
n=$(q "SELECT count(*) $lt")
okc=$(q "SELECT count(*) $lt AND r.status='ok'")
seeds=$(sed -n "s/.*; \([0-9]*\) seeds from the database varied too.*/\1/p" "$TMP/err")
check "it sent the first's best as seeds (${seeds:-none}: one per point and orientation, $want)" \
	test "${seeds:-0}" = "$want" -a "$want" -ge 1
check "the seeded sweep names the first's and more or as many (${again:-none} >= $named)" \
	test "${again:-0}" -ge "$named"
check "every one screened ($n of $again) and validated ok ($okc)" \
	test "$n" = "$again" -a "$okc" = "$n"
finish

# GPU: compute-sanitizer memcheck over the tails of every template
# (tests/spaces/gpu_tails_sanitize.yaml): gemv at K = 4096 with splits
# shorter than one block pass (unroll 1 and 2, split 8 on 4 warps), at
# N = 1000, K = 3000 and K = 4736 (the tail kernel, split 3 uneven), an
# fp32 router-like shape; mma_skinny with each combine and both layouts
# at 21 k tiles over split 5; mma_frag with token tiles past M; mma_hilo's
# three combines at split 5; Ms that part-fill token tiles. Run through
# the real sweep (worker process included) with a worker that validates
# only (GEMMTAB_CHECK_ONLY=1: cuBLAS's kernels are not ours to check, see
# t_sanitizer.sh): no memcheck error, no fault, and every candidate the
# dry run plans validated ok (or pruned for local memory before any GPU
# work).
. "$(dirname "$0")/lib.sh"

CS=${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer
SPACE=tests/spaces/gpu_tails_sanitize.yaml
if [ ! -x "$CS" ]; then
	check "compute-sanitizer at $CS" false
	finish
fi
db=$TMP/tails.db
GEMMTAB_CHECK_ONLY=1 "$CS" --tool memcheck --target-processes all --error-exitcode 9 \
	--report-api-errors no "$GEMMTAB" sweep --space "$SPACE" --db "$db" --no-retest \
	>"$TMP/memcheck.log" 2>&1
rc=$?
check "memcheck: exit 0 (no error reported)" test $rc = 0
check "memcheck: a summary says 0 errors" grep -q "ERROR SUMMARY: 0 errors" "$TMP/memcheck.log"
check "memcheck: no summary counts an error" bash -c "! grep -qE 'ERROR SUMMARY: [1-9]' '$TMP/memcheck.log'"
"$GEMMTAB" sweep --space "$SPACE" --dry-run >"$TMP/plan"
want=$(sed -n 's/^total: \([0-9]*\) candidates (\([0-9]*\) pruned.*/\1 \2/p' "$TMP/plan")
want=$(( ${want% *} - ${want#* } ))
okc=$(q "SELECT count(*) FROM result WHERE phase='screen' AND (status='ok' OR
	(status='pruned' AND reason LIKE '%bytes of local memory%'))")
check "all $want planned candidates validated ok or pruned for local memory (got $okc)" test "$okc" = "$want"
for t in gemv mma_skinny mma_frag mma_hilo; do
	n=$(q "SELECT count(*) FROM result r JOIN candidate c ON c.id = r.candidate_id
		WHERE r.status = 'ok' AND c.template = '$t'")
	check "$t: candidates validated under memcheck ($n)" test "$n" -gt 0
done
q "SELECT c.template, s.family, r.m, c.params, r.status, r.reason FROM result r
	JOIN shape s ON s.id = r.shape_id JOIN candidate c ON c.id = r.candidate_id
	WHERE r.status NOT IN ('ok', 'pruned')" >"$TMP/bad"
check "no candidate failed, faulted or hung" test ! -s "$TMP/bad"
sed 's/^/    /' "$TMP/bad" | head -n 20
if [ $rc != 0 ]; then
	grep -E "Invalid|out of bounds|Program hit" "$TMP/memcheck.log" | sort | uniq -c | head -n 10 | sed 's/^/    /'
	tail -n 25 "$TMP/memcheck.log" | cut -c1-200 | sed 's/^/    | /'
fi
finish

# GPU: compute-sanitizer memcheck and racecheck over one representative
# mma_skinny configuration of each split-K combine (tests/spaces/
# sanitize.yaml: direct, partials + reduce, atomics, cluster; partials,
# atomics and hi/lo also with programmatic dependent launch) and the
# router's hi/lo kernels (atomics into the zeroed output, the cluster
# that stores it, and atomics into an output an extra block of the
# kernel zeroes behind a flag) and mma_frag (no split-K), run through the real sweep (worker process included):
# no error reported, and every candidate validated against the FP64
# reference under the tool. The
# tools watch our kernels only (mma_*): cuBLAS's baseline kernels are not
# ours to check (racecheck reports hazards inside nvjet kernels, run 12,
# and then fails on a hardware exception it cannot handle, run 17: its
# run uses GEMMTAB_CHECK_ONLY=1, a worker that validates and times nothing),
# and API errors are not reported: the worker counts a kernel's parameters
# by probing cuFuncGetParamInfo until it answers CUDA_ERROR_INVALID_VALUE.
. "$(dirname "$0")/lib.sh"

CS=${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer
if [ ! -x "$CS" ]; then
	check "compute-sanitizer at $CS" false
	finish
fi
for tool in memcheck racecheck; do
	db=$TMP/$tool.db
	# racecheck fails inside cuBLAS's own kernels (an internal sanitizer
	# error, run 17), so its worker validates only and never runs cuBLAS
	only=0
	[ $tool = racecheck ] && only=1
	GEMMTAB_CHECK_ONLY=$only "$CS" --tool $tool --target-processes all --error-exitcode 9 --report-api-errors no \
		--kernel-name kns=mma_ \
		"$GEMMTAB" sweep --space tests/spaces/sanitize.yaml --db "$db" --no-retest \
		>"$TMP/$tool.log" 2>&1
	rc=$?
	check "$tool: exit 0 (no error reported)" test $rc = 0
	# memcheck ends "ERROR SUMMARY: 0 errors", racecheck "RACECHECK SUMMARY:
	# 0 hazards displayed (0 errors, 0 warnings)"
	# (every process the tool followed prints its own summary: one clean
	# one must not hide another's errors)
	check "$tool: a summary says 0 errors" grep -qE \
		"ERROR SUMMARY: 0 errors|SUMMARY: 0 hazards displayed \(0 errors, 0 warnings\)" "$TMP/$tool.log"
	check "$tool: no summary counts an error or hazard" bash -c "! grep -qE \
		'ERROR SUMMARY: [1-9]|SUMMARY: [1-9][0-9]* hazards|\([1-9][0-9]* errors|, [1-9][0-9]* warnings\)' '$TMP/$tool.log'"
	n=$(q "SELECT count(*) FROM result WHERE status = 'ok'")
	check "$tool: 12 configurations validated ok ($n)" test "$n" = 12
	check "$tool: one of them mma_frag's" test "$(q "SELECT count(*) FROM result r JOIN candidate c ON c.id = r.candidate_id WHERE r.status = 'ok' AND c.template = 'mma_frag'")" = 1
	check "$tool: 3 of them with pdl" test "$(q "SELECT count(*) FROM result r JOIN candidate c ON c.id = r.candidate_id WHERE r.status = 'ok' AND c.params LIKE '%pdl=1%'")" = 3
	grep -E "SUMMARY|Program hit|Race|Invalid" "$TMP/$tool.log" | sort | uniq -c | head -n 5 | sed 's/^/    /'
	if [ $rc != 0 ] || [ "$n" != 12 ]; then
		echo "    $tool log (last 25 lines):"
		tail -n 25 "$TMP/$tool.log" | cut -c1-200 | sed 's/^/    | /'
		q "SELECT r.status, c.params, r.reason FROM result r JOIN candidate c ON c.id = r.candidate_id WHERE r.status <> 'ok'" | cut -c1-200 | sed 's/^/    | /'
	fi
done
finish

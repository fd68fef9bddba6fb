# CLI: the include graph keeps the layout's boundaries (runtime/ includes
# nothing of tuner/, tuner/ only runtime/gemmtab.h of runtime/, plan/ and
# templates/ only their own files) and has no circle, and no .c file calls
# round back to itself through others, and tuner/'s stages keep their
# order: cli -> bench, sweep -> db, emit -> db, nothing below calls up, the
# sweep and the bench reach the worker only through its process
# (tests/cli/includes.py).
. "$(dirname "$0")/lib.sh"

if ! command -v python3 >/dev/null 2>&1; then
	skip "the include graph" "no python3 to read it with"
	finish
fi
expect_exit "includes.py: exit 0" 0 python3 tests/cli/includes.py
check "no finding" grep -qx ok "$TMP/out"
sed 's/^/    /' "$TMP/out"
# the check can fail: a circle planted in a copy is found
mkdir -p "$TMP/tree"
cp -r tuner runtime plan blas templates "$TMP/tree/"
echo '#include "tmpl.h"' >>"$TMP/tree/plan/types.h"
(cd "$TMP/tree" && python3 "$OLDPWD/tests/cli/includes.py" >out 2>&1)
check "a planted circle is found" grep -q "^circle: plan/tmpl <-> plan/types" "$TMP/tree/out"
echo '#include "db.h"' >>"$TMP/tree/runtime/rt.h"
(cd "$TMP/tree" && python3 "$OLDPWD/tests/cli/includes.py" >out 2>&1)
check "and a runtime -> tuner include" grep -q "^runtime/rt.h includes tuner/db/db.h" "$TMP/tree/out"
# and a call circle: status.c calling back into context.c
mkdir -p "$TMP/tree2" && cp -r tuner runtime plan blas templates "$TMP/tree2/"
printf 'int rt_planted(void) { return rt_device_leave(0); }\n' >>"$TMP/tree2/runtime/status.c"
(cd "$TMP/tree2" && python3 "$OLDPWD/tests/cli/includes.py" >out 2>&1)
check "and a planted call circle" grep -q "^call circle: runtime/context.c <-> .*runtime/status.c calls rt_device_leave" "$TMP/tree2/out"
# and a stage crossing: space/ including db/ (up), the worker calling the
# sweep, the supervisor calling the worker's CUDA code
mkdir -p "$TMP/tree3" && cp -r tuner runtime plan blas templates "$TMP/tree3/"
echo '#include "db.h"' >>"$TMP/tree3/tuner/space/expr.c"
printf 'int planted_up(void) { return sweep_keep_shard(0, 0, 1); }\n' >>"$TMP/tree3/tuner/worker/worker_rt.c"
printf 'int planted_cuda(void) { char w[8]; return gpu_available(w, 8); }\n' \
	>>"$TMP/tree3/tuner/sweep/shard.c"
(cd "$TMP/tree3" && python3 "$OLDPWD/tests/cli/includes.py" >out 2>&1)
rc=$?
check "a planted crossing fails the check" test "$rc" = 1
check "an include up is found" grep -qx "tuner/space/expr.c includes tuner/db/db.h: space/ may not reach db/ (stage order: tests/cli/includes.py)" "$TMP/tree3/out"
check "a call up is found" grep -qx "tuner/worker/worker_rt.c calls sweep_keep_shard of tuner/sweep/shard.c: worker/ may not reach sweep/ (stage order: tests/cli/includes.py)" "$TMP/tree3/out"
check "the supervisor calling CUDA code is found" grep -qx "tuner/sweep/shard.c calls gpu_available of tuner/worker/gpu.c: sweep/ may not reach worker/ (stage order: tests/cli/includes.py)" "$TMP/tree3/out"
check "three crossings, no more" grep -qx "3 findings" "$TMP/tree3/out"
# a new stage folder must be placed in the order
mkdir -p "$TMP/tree3/tuner/extra"
printf '#include "db.h"\n' >"$TMP/tree3/tuner/extra/extra.c"
(cd "$TMP/tree3" && python3 "$OLDPWD/tests/cli/includes.py" >out 2>&1)
check "a stage not in the order is named" grep -q "^tuner/extra/extra.c includes tuner/db/db.h: tuner/extra/ is no stage" "$TMP/tree3/out"

finish

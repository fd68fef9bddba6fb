# CLI: the include graph keeps the layout's boundaries (runtime/ includes
# nothing of tuner/, tuner/ only runtime/gemmtab.h of runtime/, plan/ and
# templates/ only their own files) and has no circle, and no .c file calls
# round back to itself through others (tests/cli/includes.py).
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

finish

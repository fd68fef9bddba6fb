# GPU: the Python package's tensor layer (python/tests/test_gpu.py) against
# FP64 products, installed with pip --no-build-isolation (the GPU machine
# reaches no registry) and loading this build's libgemmtab.so. Skipped,
# saying why, where torch is missing.
. "$(dirname "$0")/lib.sh"
if ! python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
	skip "the Python package's GPU tests" "no torch with CUDA here"
	finish
fi
site=$TMP/site
expect_exit "pip install --no-build-isolation ./python" 0 \
	python3 -m pip install --no-build-isolation --no-deps --no-compile -q --target "$site" ./python
root=$PWD
(cd "$TMP" && GEMMTAB_LIB=$root/build/lib/libgemmtab.so PYTHONPATH=$site \
	python3 "$root/python/tests/test_gpu.py") >"$TMP/py.out" 2>&1
rc=$?
grep -v -E '^[0-9]+ passed, [0-9]+ failed' "$TMP/py.out"
_pass=$((_pass + $(grep -c '^ok - ' "$TMP/py.out")))
_fail=$((_fail + $(grep -c '^not ok - ' "$TMP/py.out")))
_skip=$((_skip + $(grep -c '^skip - ' "$TMP/py.out")))
grep -qE '^[0-9]+ passed, [0-9]+ failed' "$TMP/py.out" || not_ok "test_gpu.py ran to its end (exit $rc)"
# and the torch layer's CPU tests (CI may lack torch; this machine has it)
(cd "$TMP" && GEMMTAB_LIB=$root/build/lib/libgemmtab.so PYTHONPATH=$site \
	python3 "$root/python/tests/test_cpu.py") >"$TMP/cpu.out" 2>&1
rc=$?
grep -v -E '^[0-9]+ passed, [0-9]+ failed' "$TMP/cpu.out"
_pass=$((_pass + $(grep -c '^ok - ' "$TMP/cpu.out")))
_fail=$((_fail + $(grep -c '^not ok - ' "$TMP/cpu.out")))
grep -qE '^[0-9]+ passed, [0-9]+ failed' "$TMP/cpu.out" || not_ok "test_cpu.py ran to its end (exit $rc)"
finish

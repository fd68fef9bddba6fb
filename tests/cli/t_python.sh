# CLI: the Python package (python/) without torch or a GPU: pip installs
# it (no compiler), it finds libgemmtab through GEMMTAB_LIB, GEMMTAB_PREFIX
# and pkg-config, and refuses a wrong path naming it; the C calls answer
# (status strings, the table's description); a context on a machine
# without a GPU is a GemmtabError carrying the status; the tensor layer
# says it needs torch. tests/gpu/t_python.sh tests the tensor layer.
. "$(dirname "$0")/lib.sh"
lib=$PWD/build/lib/libgemmtab.so
soname=libgemmtab.so.$(cut -d. -f1 VERSION)
site=$TMP/site
if ! python3 -m pip --version >/dev/null 2>&1; then
	skip "the Python package" "python3 has no pip"
	finish
fi
expect_exit "pip install ./python (no compiler, no registry needed)" 0 \
	python3 -m pip install --no-deps --no-compile -q --target "$site" ./python
py() { (cd "$TMP" && PYTHONPATH=$site python3 -c "$1" 2>&1); }

check "GEMMTAB_LIB: loaded from it" test "$(GEMMTAB_LIB=$lib py 'import gemmtab; print(gemmtab.library_path())')" = "$lib"
out=$(GEMMTAB_LIB=$lib py 'import gemmtab
for s in range(7): print(s, gemmtab.status_string(s))')
check "every status has its string ($(echo "$out" | sed -n 2p))" \
	bash -c "test \$(echo '$out' | grep -c '^[0-6] [a-z]') = 7 && ! echo '$out' | grep -qi unknown"
check "status 99 is unknown" bash -c "GEMMTAB_LIB=$lib PYTHONPATH=$site python3 -c 'import gemmtab; print(gemmtab.status_string(99))' | grep -qi unknown"
desc=$(GEMMTAB_LIB=$lib py 'import gemmtab; print(gemmtab.table_description())')
check "the table's description is the library's ('${desc:0:60}...')" bash -c "echo '$desc' | grep -q 'tuned on .* SMs, CUDA '"
out=$(GEMMTAB_LIB=$TMP/none.so py 'import gemmtab; gemmtab.table_description()')
check "a wrong GEMMTAB_LIB: an error naming the path and how it was chosen" \
	bash -c "echo '$out' | grep -q 'GemmtabError: gemmtab: $soname not found; tried:' && echo '$out' | grep -qF '$TMP/none.so (GEMMTAB_LIB): no such file'"
check "GEMMTAB_PREFIX: loaded from PREFIX/lib" test "$(GEMMTAB_PREFIX=$PWD/build/rt-prefix py 'import gemmtab; print(gemmtab.library_path())')" = "$PWD/build/rt-prefix/lib/$soname"
if command -v pkg-config >/dev/null; then
	check "pkg-config: loaded from its libdir" test "$(PKG_CONFIG_PATH=$PWD/build/rt-prefix/lib/pkgconfig \
		py 'import gemmtab; print(gemmtab.library_path())')" = "$PWD/build/rt-prefix/lib/$soname"
else
	skip "pkg-config lookup" "no pkg-config"
fi
out=$(GEMMTAB_LIB=$lib py 'import gemmtab, gemmtab._lib as L
try:
    L.context(0)
    print("made")
except gemmtab.GemmtabError as e:
    print("status", e.status, "argument", e.argument, "|", e)')
if nvidia-smi -L >/dev/null 2>&1; then
	skip "a context without a GPU" "this machine has a GPU"
else
	check "a context without a GPU: a GemmtabError with the CUDA status ($(echo "$out" | cut -c1-70))" \
		bash -c "echo '$out' | grep -q '^status 4 argument device | gemmtab: gt_context_create on device 0 (device): '"
fi
if PYTHONPATH=$site python3 -c 'import torch' 2>/dev/null; then
	skip "gemmtab.Linear without torch" "torch is installed here"
else
	out=$(GEMMTAB_LIB=$lib py 'import gemmtab; gemmtab.Linear')
	check "gemmtab.Linear without torch: an ImportError saying it needs torch" \
		bash -c "echo '$out' | grep -q 'ImportError: gemmtab.Linear needs torch'"
fi
out=$(GEMMTAB_LIB=$lib py "import gemmtab
gemmtab.record_untuned(True)
print(gemmtab.stats())
gemmtab.write_untuned('$TMP/u.yaml')
try:
    gemmtab.write_untuned('$TMP/no/such/dir/u.yaml')
except gemmtab.GemmtabError as e:
    print('refused', e.argument)")
check "record_untuned, stats (none yet), write_untuned and its refusal of a bad path" \
	bash -c "echo '$out' | grep -qx '\[\]' && echo '$out' | grep -qx 'refused path' && grep -q '^shapes: \[\]' '$TMP/u.yaml'"
# the torch layer's CPU tests (python/tests/test_cpu.py): the custom op's
# fake implementation, the weight checks, patch on a CPU model; by
# GEMMTAB_TORCH_PYTHON (a python with torch, as .ci/run makes) or python3
tpy=${GEMMTAB_TORCH_PYTHON:-python3}
if PYTHONPATH=$site "$tpy" -c 'import torch, sys; sys.exit(tuple(map(int, torch.__version__.split(".")[:2])) < (2, 4))' 2>/dev/null; then
	PY=$tpy py_tests "$PWD/python/tests/test_cpu.py" "$lib" "$site"
else
	skip "the torch layer's CPU tests (python/tests/test_cpu.py: the custom op's fake, bad weights, patch)" \
		"no torch >= 2.4 for ${GEMMTAB_TORCH_PYTHON:-python3} (GEMMTAB_TORCH_PYTHON names a python that has it; .ci/run installs one from PyPI; tests/gpu/t_python.sh runs them on the GPU machine)"
fi
check "import gemmtab loads no library until a call needs it" \
	test "$(GEMMTAB_LIB=$TMP/none.so py 'import gemmtab; print(gemmtab.__all__[0])')" = GemmtabError
finish

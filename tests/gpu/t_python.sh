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
py_tests "$root/python/tests/test_gpu.py" "$root/build/lib/libgemmtab.so" "$site"
# and the torch layer's CPU tests (CI may lack torch; this machine has it)
py_tests "$root/python/tests/test_cpu.py" "$root/build/lib/libgemmtab.so" "$site"
finish

# CLI: the Python package reports the table in use without a GPU: before
# any context gemmtab.table_description() says no table is chosen yet and
# names each table compiled in with where it was tuned, and
# gemmtab.table_in_use() is None; asked for device 0, where no device is,
# both raise GemmtabError naming the device. (python/tests/test_gpu.py
# checks the choice on a GPU: the card's table, or none.)
. "$(dirname "$0")/lib.sh"

lib=$PWD/build/lib/libgemmtab.so
table=$(cat build/obj/rt/table-names 2>/dev/null)
py() { GEMMTAB_LIB=$lib PYTHONPATH=$PWD/python "${PY:-python3}" -c "$1"; }
if ! command -v "${PY:-python3}" >/dev/null 2>&1; then
	skip "the package's table report" "no python3"
	finish
fi
if py 'import ctypes; ctypes.CDLL("libcuda.so.1").cuInit(0) == 0 or exit(1)' 2>/dev/null; then
	skip "the package's table report without a device" "a CUDA driver answers here"
	finish
fi
desc=$(py 'import gemmtab; print(gemmtab.table_description())')
echo "    $desc"
check "no table is chosen before a context" bash -c "echo '$desc' | grep -q '^no table chosen yet (no context created); '"
for t in $table; do
	check "$t is named as compiled in, with where it was tuned" \
		bash -c "echo '$desc' | grep -q '; table $t compiled in: tuned on .*, [0-9]* SMs, CUDA '"
done
check "table_in_use() is None" test "$(py 'import gemmtab; print(gemmtab.table_in_use())')" = None
check "table_in_use(0) without a device raises, naming the device" test "$(py '
import gemmtab
try:
    gemmtab.table_in_use(0)
except gemmtab.GemmtabError as e:
    print(e.argument)')" = device
check "table_in_use is exported" test "$(py 'import gemmtab; print("table_in_use" in gemmtab.__all__)')" = True
finish

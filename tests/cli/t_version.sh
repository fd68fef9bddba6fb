# CLI: one version, from VERSION: the CLI's --version, the C library's
# gt_version(), its SONAME (libgemmtab.so.MAJOR) and file name, gemmtab.pc
# and the Python package (installed by pip, and from the source tree) agree.
. "$(dirname "$0")/lib.sh"
V=$(cat VERSION)
MAJOR=${V%%.*}
check "VERSION is MAJOR.MINOR.PATCH ($V)" bash -c "grep -qxE '[0-9]+\.[0-9]+\.[0-9]+' VERSION"
check "gemmtab --version says $V" bash -c "build/bin/gemmtab --version | head -1 | grep -qx 'gemmtab $V'"
check "build/lib/libgemmtab.so.$V is the library" test -f "build/lib/libgemmtab.so.$V" -a ! -L "build/lib/libgemmtab.so.$V"
check "its SONAME is libgemmtab.so.$MAJOR" \
	bash -c "readelf -d build/lib/libgemmtab.so.$V | grep -q 'SONAME.*\[libgemmtab.so.$MAJOR\]'"
check "libgemmtab.so and libgemmtab.so.$MAJOR lead to it" \
	test "$(readlink -f build/lib/libgemmtab.so)" = "$(readlink -f build/lib/libgemmtab.so.$V)" -a \
	"$(readlink -f build/lib/libgemmtab.so.$MAJOR)" = "$(readlink -f build/lib/libgemmtab.so.$V)"
# gt_version() through ctypes: no compiler or torch needed
got=$(python3 -c "import ctypes; l = ctypes.CDLL('$PWD/build/lib/libgemmtab.so.$MAJOR'); \
l.gt_version.restype = ctypes.c_char_p; print(l.gt_version().decode())" 2>&1)
check "gt_version() says $V (got '$got')" test "$got" = "$V"
check "nm: the library exports gt_version" bash -c "nm -D --defined-only build/lib/libgemmtab.so.$V | grep -q ' T gt_version$'"
check "gemmtab.pc says Version: $V" grep -qx "Version: $V" build/rt-prefix/lib/pkgconfig/gemmtab.pc
got=$(cd "$TMP" && PYTHONPATH=$OLDPWD/python python3 -c 'import gemmtab; print(gemmtab.__version__)' 2>&1)
check "the source tree's package says $V (got '$got')" test "$got" = "$V"
if python3 -m pip --version >/dev/null 2>&1; then
	expect_exit "pip install ./python" 0 \
		python3 -m pip install --no-deps --no-compile -q --target "$TMP/site" ./python
	got=$(cd "$TMP" && GEMMTAB_LIB=$OLDPWD/build/lib/libgemmtab.so PYTHONPATH=$TMP/site python3 -c \
		'import gemmtab; print(gemmtab.__version__, gemmtab.library_version())' 2>&1)
	check "the installed package and the library it loads say $V (got '$got')" test "$got" = "$V $V"
	check "pip's metadata says $V" bash -c "grep -qx 'Version: $V' '$TMP'/site/gemmtab-$V.dist-info/METADATA"
else
	skip "the installed package's version" "python3 has no pip"
fi
finish

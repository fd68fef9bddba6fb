# CLI: `make install-runtime PREFIX=...` lays out the libraries, the header
# and a pkg-config file with the prefix substituted, and examples/linear.c
# builds against that install through pkg-config, shared and static. No
# GPU needed (the example is built, not run; make test-gpu runs it).
# GT_MAKE overrides the make command (default: make).
. "$(dirname "$0")/lib.sh"

P=$TMP/prefix
# a make of its own, not a sub-make of `make test` (no inherited jobserver)
expect_exit "install into a temp prefix" 0 env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
	${GT_MAKE:-make} --no-print-directory -s install-runtime PREFIX="$P"
V=$(cat VERSION)
for f in lib/libgemmtab.a lib/libgemmtab.so.$V include/gemmtab.h lib/pkgconfig/gemmtab.pc; do
	check "installed $f" test -f "$P/$f"
done
# libgemmtab.so -> libgemmtab.so.MAJOR -> libgemmtab.so.VERSION, relative links
check "lib/libgemmtab.so.${V%%.*} links to libgemmtab.so.$V" test "$(readlink "$P/lib/libgemmtab.so.${V%%.*}")" = "libgemmtab.so.$V"
check "lib/libgemmtab.so links to libgemmtab.so.${V%%.*}" test "$(readlink "$P/lib/libgemmtab.so")" = "libgemmtab.so.${V%%.*}"
check "the installed library's SONAME is libgemmtab.so.${V%%.*}" \
	bash -c "readelf -d '$P/lib/libgemmtab.so.$V' | grep -q 'SONAME.*\[libgemmtab.so.${V%%.*}\]'"
check "installed header is runtime/gemmtab.h" cmp -s runtime/gemmtab.h "$P/include/gemmtab.h"
expect_line "pkg-config prefix substituted" "$P/lib/pkgconfig/gemmtab.pc" "prefix=$P"
check "no placeholder left" bash -c "! grep -q @ '$P/lib/pkgconfig/gemmtab.pc'"

export PKG_CONFIG_PATH=$P/lib/pkgconfig
expect_exit "pkg-config knows gemmtab" 0 pkg-config --exists gemmtab
check "cflags name the include dir" grep -q -- "-I$P/include" <<<"$(pkg-config --cflags gemmtab)"

# shared: -lgemmtab finds the .so first; the rpath lets it run from $P
expect_exit "example builds against the shared library" 0 \
	${CC:-cc} -std=c11 -Wall -Wextra -Werror -o "$TMP/linear" examples/linear.c \
	$(pkg-config --cflags --libs gemmtab) -lm
readelf -d "$TMP/linear" >"$TMP/dyn" 2>&1
check "example needs libgemmtab.so.${V%%.*} (the SONAME)" grep -q "NEEDED.*\[libgemmtab.so.${V%%.*}\]" "$TMP/dyn"
check "example finds it under the prefix" grep -q "RUNPATH.*$P/lib" "$TMP/dyn"

# static: the archive and its private dependencies
expect_exit "example builds against the static library" 0 \
	${CC:-cc} -std=c11 -Wall -Wextra -Werror -o "$TMP/linear_static" examples/linear.c \
	$(pkg-config --cflags gemmtab) -L"$P/lib" -Wl,-Bstatic -lgemmtab -Wl,-Bdynamic \
	$(pkg-config --libs --static gemmtab | sed 's/-lgemmtab//')
readelf -d "$TMP/linear_static" >"$TMP/dyn_static" 2>&1
check "static example does not need libgemmtab.so" \
	bash -c "! grep -q 'libgemmtab' '$TMP/dyn_static'"
check "static example defines the API" bash -c "nm '$TMP/linear_static' | grep -q ' T gt_linear$'"
finish

# CLI: libgemmtab's symbol boundary (nm). Both libraries define exactly
# the gt_ functions runtime/gemmtab.h declares as globals (everything else
# is local), and neither defines nor references SQLite, libyaml or NVRTC.
# Needs build/lib/libgemmtab.a and .so (`make runtime`).
. "$(dirname "$0")/lib.sh"

LIB_A=build/lib/libgemmtab.a
LIB_SO=build/lib/libgemmtab.so
check "static library built" test -f "$LIB_A"
check "shared library built" test -f "$LIB_SO"
[ -f "$LIB_A" ] && [ -f "$LIB_SO" ] || finish

# The API: every function runtime/gemmtab.h declares, sorted.
grep -oE '\bgt_[a-z_]+\(' runtime/gemmtab.h | tr -d '(' | sort -u >"$TMP/api"
check "header declares the API" test "$(wc -l <"$TMP/api")" -ge 8
grep -v '^#' runtime/gemmtab.sym >"$TMP/sym"
test_cmp "export list matches the header" "$TMP/api" "$TMP/sym"

# Defined global symbols (any type, weak included): the last field of
# nm's three-column lines.
nm -g --defined-only "$LIB_A" | awk 'NF == 3 { print $3 }' | sort -u >"$TMP/a_defined"
nm -D --defined-only "$LIB_SO" | awk 'NF == 3 { print $3 }' | sort -u >"$TMP/so_exported"
nm -g --defined-only "$LIB_SO" | awk 'NF == 3 { print $3 }' | sort -u >"$TMP/so_defined"
for f in a_defined so_exported so_defined; do
	grep -v '^gt_' "$TMP/$f" >"$TMP/$f.stray"
	if [ -s "$TMP/$f.stray" ]; then
		not_ok "$f: every global symbol starts with gt_"
		head -n 10 "$TMP/$f.stray" | sed 's/^/    /'
	else
		ok "$f: every global symbol starts with gt_"
	fi
	test_cmp "$f: exactly the API" "$TMP/api" "$TMP/$f"
done

# No SQLite, libyaml or NVRTC: neither defined nor referenced, in any
# symbol table, nor as a needed library.
{ nm -a "$LIB_A"; nm -a "$LIB_SO"; nm -D "$LIB_SO"; } >"$TMP/all_symbols" 2>&1
for pat in 'sqlite3' 'yaml_' 'nvrtc'; do
	if grep -qi -- "$pat" "$TMP/all_symbols"; then
		not_ok "no $pat symbol"
		grep -i -- "$pat" "$TMP/all_symbols" | head -n 5 | sed 's/^/    /'
	else
		ok "no $pat symbol"
	fi
done
# one name per line, without readelf's brackets
readelf -d "$LIB_SO" | awk '/NEEDED/ { print $NF }' | tr -d '[]' >"$TMP/needed"
for lib in libcudart libcublas libcublasLt; do
	check "shared library needs $lib" grep -q "^$lib\.so" "$TMP/needed"
done
if grep -qiE 'sqlite|yaml|nvrtc' "$TMP/needed"; then
	not_ok "no SQLite, libyaml or NVRTC library needed"
	sed 's/^/    /' "$TMP/needed"
else
	ok "no SQLite, libyaml or NVRTC library needed"
fi
finish

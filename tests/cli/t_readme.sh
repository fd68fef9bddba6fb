# CLI: README.md's "Tune your own model" walk-through, as a user without
# a GPU follows it: its search space and its commands, taken from the
# README itself, run in order through the fake worker. Only the paths move
# into a temp folder (my.yaml, my.db, runtime/tables/my.h, the install
# prefix, and BUILD for `make TABLE=...`, so the tree's own build is left
# as it is); `./linear` needs a real device and is built, not run.
. "$(dirname "$0")/lib.sh"

export GEMMTAB_WORKER=$PWD/build/tests/fake_worker
R=README.md
section() { awk '/^## Tune your own model/ { s = 1; next } s && /^## / { exit } s' "$R"; }

section | awk '/^```yaml/ { y = 1; next } y && /^```/ { exit } y' >"$TMP/my.yaml"
check "the README's walk-through has a space" test -s "$TMP/my.yaml"
# the indented command lines, in order: gemmtab, make, export, cc
section | grep -E '^    (build/bin/gemmtab|make|export|cc) ' | sed 's/^    //' >"$TMP/cmds"
check "and its commands (sweep, report, emit, make, bench, install, cc)" \
	test "$(grep -cE '^(build/bin/gemmtab (sweep|report|emit|bench)|make|cc) ' "$TMP/cmds")" -ge 8

# The same commands with the paths moved into $TMP. After `make TABLE=`,
# the gemmtab the README runs is the one that make built.
sed -e "s|runtime/tables/my\.h|$TMP/my.h|g" -e "s|my\.yaml|$TMP/my.yaml|g" \
	-e "s|my\.db|$TMP/my.db|g" -e "s|\$HOME/opt/gemmtab|$TMP/prefix|g" \
	-e "s|^make \(.*\)|env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory \1 BUILD=$TMP/build|" \
	-e "s|-o linear |-o $TMP/linear |" "$TMP/cmds" >"$TMP/run"
made=0
: >"$TMP/seen"
while IFS= read -r cmd; do
	[ $made = 1 ] && cmd=${cmd//build\/bin\/gemmtab/$TMP/build/bin/gemmtab}
	case $cmd in *"make -s"*TABLE=*) made=1 ;; esac
	short=$(sed "s|$TMP/|\$TMP/|g" <<<"$cmd")
	case $cmd in
	export\ *) eval "$cmd"; ok "$short" ;;   # for the commands after it
	*) expect_exit "$short" 0 bash -c "$cmd" ;;
	esac
	[ -f "$TMP/out" ] && cp "$TMP/out" "$TMP/out.$(wc -l <"$TMP/seen")"
	echo "$cmd" >>"$TMP/seen"
done <"$TMP/run"

check "the report scores the space's loads, with the all-M figure" \
	bash -c "grep -q '^score: [0-9.]*, the geometric mean of the speedups of 2 of 2 loads' '$TMP/out.2' &&
		grep -q '^all-M: [0-9.]*' '$TMP/out.2'"
check "the table has entries for the space's shape" grep -qE '^\s+/\* down, M 1: gemv ' "$TMP/my.h"
check "its kernels file was written beside it" test -s "$TMP/my_kernels.cu"
check "the library built with it describes that table" \
	bash -c "strings '$TMP/build/lib/libgemmtab.a' | grep -q 'Fake GPU'"
check "bench times the library with that table" grep -qE '^[0-9]+ points, 0 failed the FP64 check' $TMP/out.*
check "the example links against the install" test -x "$TMP/linear"
finish

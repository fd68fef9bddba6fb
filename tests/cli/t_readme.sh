# CLI: README.md's "Tune your own model" walk-through, as a user without
# a GPU follows it: its search space and its commands, taken from the
# README itself, run in order through the fake worker. Only the paths move
# into a temp folder (my.yaml, my.db, runtime/tables/my.h, the install
# prefix, the cubin cache of sweep and emit, and BUILD for `make
# TABLE=...`, so the tree's own build and .cache are left as they are); `./linear` needs a real device and is built, not run. Then
# its init command on a test model's config, its queries on the
# walk-through's database, and its sweep-time table against the dry runs
# it cites. The README is at most 200 lines, puts the no-GPU path before
# the walk-through, and spells every command build/bin/gemmtab.
. "$(dirname "$0")/lib.sh"

export GEMMTAB_WORKER=$PWD/build/tests/fake_worker
R=README.md
had_cache=0
[ -e .cache ] && had_cache=1
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
	-e "s|-o linear |-o $TMP/linear |" \
	-e "s#^build/bin/gemmtab \(sweep\|emit\) #build/bin/gemmtab \1 --cache $TMP/cache #" "$TMP/cmds" >"$TMP/run"
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

# the init command of the walk-through's prose, on a test model's config
init=$(grep -o 'build/bin/gemmtab init --model config.json[^`]*' "$R" | head -n 1)
check "the walk-through names an init command ($init)" test -n "$init"
init=$(sed -e "s|config.json|tests/models/llama-3-8b.json|" -e "s|my\.yaml|$TMP/init.yaml|" <<<"$init")
expect_exit "its init command on tests/models/llama-3-8b.json: exit 0" 0 bash -c "$init"
expect_exit "and the space it writes dry-runs: exit 0" 0 "$GEMMTAB" sweep --space "$TMP/init.yaml" --dry-run

# "Query the results": its commands on the walk-through's database
qsec() { awk '/^## Query the results/ { s = 1; next } s && /^## / { exit } s' "$R"; }
qsec | grep -E '^    build/bin/gemmtab ' | sed -e 's/^    //' -e "s|my\.db|$TMP/my.db|g" >"$TMP/queries"
check "the query section has commands" test "$(wc -l <"$TMP/queries")" -ge 2
while IFS= read -r cmd; do
	expect_exit "$(sed "s|$TMP/|\$TMP/|g" <<<"$cmd")" 0 bash -c "$cmd"
	check "and it prints rows" test -s "$TMP/out"
done <"$TMP/queries"

# "How long a sweep takes": each row's figures are what --dry-run prints
# (the walk-through's my.yaml, a shipped space, or init's of a test model)
tsec() { awk '/^## How long a sweep takes/ { s = 1; next } s && /^## / { exit } s' "$R"; }
tsec | grep -E '^\| `' >"$TMP/rows"
check "the sweep-time table has 4 rows" test "$(wc -l <"$TMP/rows")" = 4
while IFS='|' read -r _ space cands kernels gpu _; do
	case $space in
	*my.yaml*) sp=$TMP/my.yaml ;;
	*init*) sp=$TMP/init1.yaml
		"$GEMMTAB" init --model tests/models/llama-3-8b.json --tp 1 --out "$sp" 2>/dev/null ;;
	*) sp=$(grep -o 'search_spaces/[a-z0-9_]*\.yaml' <<<"$space") ;;
	esac
	"$GEMMTAB" sweep --space "$sp" --dry-run >"$TMP/dry" 2>&1
	got=$(sed -n 's/^total: \([0-9]*\) candidates (.*), \([0-9]*\) instantiations to compile$/\1 \2/p' "$TMP/dry")
	got="$got $(sed -n 's/^estimate: .*; GPU \([0-9]*\) s .*/\1/p' "$TMP/dry")"
	want="$(tr -d ', ' <<<"$cands") $(tr -d ', ' <<<"$kernels") $(tr -d ' s' <<<"$gpu")"
	check "the dry run of $(echo $space) gives its row ($want; got $got)" test "$got" = "$want"
done <"$TMP/rows"

check "README.md is at most 200 lines ($(wc -l <"$R"))" test "$(wc -l <"$R")" -le 200
nogpu=$(grep -n '^## Try it without a GPU' "$R" | cut -d: -f1)
walk=$(grep -n '^## Tune your own model' "$R" | cut -d: -f1)
check "the no-GPU path comes before the walk-through" test "${nogpu:-999}" -lt "${walk:-0}"
check "its fake worker is the one make tests builds" \
	bash -c "grep -q '^    export GEMMTAB_WORKER=\$PWD/build/tests/fake_worker$' '$R' && test -x build/tests/fake_worker"
check "every command is spelled build/bin/gemmtab" bash -c "! grep -nE '(^    |\`)gemmtab ' '$R'"
check "no overnight runs or 8-hour limits" bash -c "! grep -nE 'overnight|--time-limit 8h' '$R'"
[ $had_cache = 1 ] || check "no cubin cache left in the tree (.cache)" test ! -e .cache
finish

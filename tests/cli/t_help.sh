# CLI: gemmtab help CMD prints what CMD --help prints, for every command
# the list names, and exits 0; help alone lists the commands; an unknown
# command or a second word is refused (exit 2), naming it.
. "$(dirname "$0")/lib.sh"
expect_exit "help: exit 0" 0 "$GEMMTAB" help
check "help lists the commands" grep -q '^  sweep ' "$TMP/out"
"$GEMMTAB" help | awk '/^commands:/ { p = 1; next } p && /^  [a-z]/ { print $1 }' >"$TMP/commands"
check "13 commands listed" test "$(wc -l <"$TMP/commands")" = 13
while read -r cmd; do
	"$GEMMTAB" "$cmd" --help >"$TMP/want" 2>&1
	expect_exit "help $cmd: exit 0" 0 "$GEMMTAB" help "$cmd"
	check "help $cmd prints its own usage" grep -q "^usage: gemmtab $cmd" "$TMP/out"
	test_cmp "help $cmd is $cmd --help" "$TMP/want" "$TMP/out"
done <"$TMP/commands"
expect_exit "help nosuch: exit 2" 2 "$GEMMTAB" help nosuch
check "names it" grep -qx "gemmtab help: 'nosuch' is not a gemmtab command" "$TMP/err"
expect_exit "help sweep init: exit 2" 2 "$GEMMTAB" help sweep init
check "one command at a time" grep -qx "gemmtab help: one command at a time" "$TMP/err"
finish

# CLI: usage errors exit 2 and name the offending argument.
. "$(dirname "$0")/lib.sh"

expect_exit "no command: exit 2" 2 "$GEMMTAB"
expect_exit "unknown command: exit 2" 2 "$GEMMTAB" frobnicate
expect_line "unknown command named" "$TMP/err" "gemmtab: 'frobnicate' is not a gemmtab command"
expect_exit "help: exit 0" 0 "$GEMMTAB" --help
check "help lists sweep" grep -q '^  sweep ' "$TMP/out"
expect_exit "sweep without --space: exit 2" 2 "$GEMMTAB" sweep
expect_line "sweep names the missing option" "$TMP/err" "gemmtab sweep: --space is required"
expect_exit "sweep unknown option: exit 2" 2 "$GEMMTAB" sweep --space x.yaml --bogus
expect_line "sweep names the unknown option" "$TMP/err" "gemmtab sweep: unknown option '--bogus'"
expect_exit "sweep bad --jobs value: exit 2" 2 "$GEMMTAB" sweep --space x.yaml --jobs many
expect_line "sweep names the bad value" "$TMP/err" "gemmtab sweep: --jobs: 'many' is not a valid number"
expect_exit "sweep missing space file: exit 2" 2 "$GEMMTAB" sweep --space "$TMP/none.yaml" --dry-run
check "missing file is named" grep -q "$TMP/none.yaml" "$TMP/err"
expect_exit "compile bad --jobs: exit 2" 2 "$GEMMTAB" compile --space x.yaml --jobs 0
expect_exit "probe unknown option: exit 2" 2 "$GEMMTAB" probe --frob 1
# the internal worker too says how it is called, without a GPU
expect_exit "worker --help: exit 0" 0 "$GEMMTAB" worker --help
check "worker --help prints its usage" grep -q '^usage: gemmtab worker \[--device N | --count\]' "$TMP/out"
finish

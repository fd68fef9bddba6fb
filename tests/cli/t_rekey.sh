# CLI: measurements are keyed by the code they ran (tuner/jit/codekey.h), not
# by how the template's files read. A gemmtab built with a comment added
# to templates/gemv.cuh emits the same table from a database the tree's
# gemmtab swept, with --strict, and its sweep measures nothing again; one
# built with one instruction changed finds those rows stale: emit --strict
# refuses, plain emit leaves them out with a warning. The variant builds
# embed an edited copy of the tree (make variant).
. "$(dirname "$0")/lib.sh"

export GEMMTAB_WORKER=$PWD/build/tests/fake_worker
db=$TMP/t.db
cache=$TMP/cache

# variant NAME SED: a gemmtab embedding the tree's files with SED applied
# to templates/gemv.cuh, at $TMP/NAME/gemmtab
variant() {
	local root=$TMP/$1
	mkdir -p "$root"
	cp -r templates plan tuner runtime db "$root/"
	sed -i "$2" "$root/templates/gemv.cuh"
	make -s variant VARIANT_ROOT="$root" VARIANT_OUT="$root/gemmtab" >"$TMP/make.log" 2>&1
}

expect_exit "sweep with the tree's gemmtab: exit 0" 0 "$GEMMTAB" sweep --space tests/spaces/fake.yaml --db "$db" --cache "$cache"
# emit OUTDIR GEMMTAB [ARG...]: emit inside OUTDIR with relative paths (the
# header records the command line)
emit_in() {
	local dir=$1 g=$2; shift 2
	mkdir -p "$TMP/$dir"
	(cd "$TMP/$dir" && "$g" emit --db ../t.db --out t.h --cache ../cache "$@")
}
expect_exit "emit --strict: exit 0" 0 emit_in a "$GEMMTAB" --strict
rows=$(q "SELECT count(*) FROM result")

check "a comment in gemv.cuh: built" variant comment '1i // a comment that changes no instruction'
check "its text differs" bash -c "! cmp -s templates/gemv.cuh '$TMP/comment/templates/gemv.cuh'"
G=$TMP/comment/gemmtab
expect_exit "its emit --strict: exit 0" 0 emit_in b "$G" --strict
check "it compiled what the database had not seen under its text" grep -q "^gemmtab emit: compiled [1-9][0-9]* candidates" "$TMP/err"
check "and found no stale row" bash -c "! grep -q 'no longer compile to' '$TMP/err'"
test_cmp "the same table, byte for byte" "$TMP/a/t.h" "$TMP/b/t.h"
expect_exit "its sweep: exit 0" 0 "$G" sweep --space tests/spaces/fake.yaml --db "$db" --cache "$cache"
check "measured nothing again" grep -q "^sweep: .*[0-9]* worker restarts" "$TMP/err"
check "no result added ($rows)" test "$(q "SELECT count(*) FROM result")" = "$rows"
check "the variant map knows both texts" test "$(q "SELECT count(DISTINCT v.source_hash) FROM variant v JOIN candidate c ON c.id = v.candidate_id WHERE c.template = 'gemv'")" = 2

check "one instruction changed in gemv.cuh: built" variant instruction 's/acc\[i\] = 0.0f;/acc[i] = 1.0f;/'
check "the edit took" grep -q 'acc\[i\] = 1.0f;' "$TMP/instruction/templates/gemv.cuh"
G=$TMP/instruction/gemmtab
expect_exit "its emit --strict: exit 1" 1 emit_in c "$G" --strict
check "names the stale rows and the way out" grep -q "retest rows of environment 1 measured code this build's templates no longer compile to (--strict" "$TMP/err"
check "and writes nothing" test ! -e "$TMP/c/t.h"
emit_in d "$G" >"$TMP/out" 2>"$TMP/err"
check "without --strict it warns" grep -q "warning: [1-9][0-9]* retest rows .* no longer compile to; left out" "$TMP/err"
check "and its table has no gemv entry" bash -c "test ! -e '$TMP/d/t.h' || ! grep -q '\"gemv\"' '$TMP/d/t.h'"
check "the tree's table had one" grep -q '"gemv"' "$TMP/a/t.h"

finish

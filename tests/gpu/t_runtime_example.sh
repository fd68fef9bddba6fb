# GPU: examples/linear, built through pkg-config against an install of
# libgemmtab (make runtime-example: build/examples/linear over
# build/rt-prefix), runs one qkv projection on GPU 0 within docs/workload.md's
# bound and names the dispatch entry it used.
. "$(dirname "$0")/lib.sh"

EXAMPLE=build/examples/linear
check "example built" test -x "$EXAMPLE"
[ -x "$EXAMPLE" ] || finish
# the install's rpath is the build machine's absolute path; this tree may
# sit elsewhere (a GPU machine the build folder was carried to)
expect_exit "example runs" 0 env LD_LIBRARY_PATH="$PWD/build/rt-prefix/lib" "$EXAMPLE"
sed 's/^/    /' "$TMP/out"
check "error within the bound" grep -qE '^qkv m=1: relative L2 error .*: ok$' "$TMP/out"
check "dispatch line printed" grep -qE '^dispatch: m=1: ' "$TMP/out"
check "table described" grep -qE '^table: .*tuned on ' "$TMP/out"
finish

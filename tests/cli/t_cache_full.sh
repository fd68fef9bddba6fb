# CLI: a kernel cache that cannot be written (here a full disk: a 16 KiB
# tmpfs in a private mount namespace) is the sweep's error, not its
# candidates': the sweep stops with the reason and records no
# compile_error; with room again, the same command measures everything.
. "$(dirname "$0")/lib.sh"
export GEMMTAB_WORKER=$PWD/build/tests/fake_worker
db=$TMP/t.db
mkdir -p "$TMP/full"
if ! unshare -m sh -c "mount -t tmpfs -o size=16k none '$TMP/full'" 2>/dev/null; then
	skip "a full cache disk" "no private mount namespace here to mount a small tmpfs in"
	finish
fi
expect_exit "a sweep whose cache disk is full: exit 1" 1 unshare -m sh -c \
	"mount -t tmpfs -o size=16k none '$TMP/full' && exec '$GEMMTAB' sweep --space tests/spaces/fake.yaml --db '$db' --cache '$TMP/full/c'"
check "says the cache cannot be written, and why" \
	grep -q "the kernel cache cannot be written (cannot write $TMP/full/c/.*: No space left on device)" "$TMP/err"
sed 's/^/    /' "$TMP/err" | grep -v '^    compile' | head -n 3
check "records no compile_error" test "$(q "SELECT count(*) FROM result WHERE status = 'compile_error'")" = 0
expect_exit "the same sweep with room: exit 0" 0 "$GEMMTAB" sweep --space tests/spaces/fake.yaml --db "$db" --cache "$TMP/c"
check "measures every candidate" test "$(q "SELECT count(*) FROM result WHERE status <> 'ok'")" = 0
n=$(q "SELECT count(*) FROM result")
"$GEMMTAB" sweep --space tests/spaces/fake.yaml --db "$TMP/ref.db" --cache "$TMP/c" >/dev/null 2>&1
db=$TMP/ref.db
check "as many results as a sweep that never met a full disk ($n)" test "$n" = "$(q "SELECT count(*) FROM result")"
finish

# CLI: a table header and its kernels file are one unit (#45 D5). emit
# writes both to temporaries and renames them only once both are complete:
# a write that fails (here the header, past a file-size limit, as on a full
# disk) leaves the old pair as it was, where emit used to leave the new
# kernels file beside the old header. The header names its kernels file's
# hash, and the library build's check (build/tools/gt_table_check, run by
# runtime/runtime.mk before it compiles a table) refuses a pair that does
# not match.
. "$(dirname "$0")/lib.sh"

export GEMMTAB_WORKER=$PWD/build/tests/fake_worker
CHECKER=$PWD/build/tools/gt_table_check
W=$TMP/w
mkdir -p "$W/out"
cp db/quick.db "$W/quick.db"
expect_exit "a fake sweep: exit 0" 0 "$GEMMTAB" sweep --space tests/spaces/fake_tables.yaml \
	--db "$W/fake.db" --cache "$TMP/cache"
expect_exit "the old table: emit from the fake sweep" 0 \
	"$GEMMTAB" emit --db "$W/fake.db" --out "$W/out/t.h"
cp "$W/out/t.h" "$TMP/old.h"
cp "$W/out/t_kernels.cu" "$TMP/old_kernels.cu"
expect_exit "the pair emit wrote passes the build's check" 0 "$CHECKER" "$W/out/t.h" "$W/out/t_kernels.cu"

# db/quick.db's table: a kernels file of ~1.3 KB, a header of ~4.3 KB; a
# limit of 2 KiB lets the kernels file be written and stops the header
# (SIGXFSZ ignored, so the write fails with EFBIG as on a full disk)
expect_exit "emit past a 2 KiB file-size limit: exit 1" 1 bash -c \
	"trap '' XFSZ; ulimit -f 2; exec '$GEMMTAB' emit --db '$W/quick.db' --out '$W/out/t.h'"
check "the message names the header" grep -q "cannot write $W/out/t.h" "$TMP/err"
test_cmp "the old header is as it was" "$TMP/old.h" "$W/out/t.h"
test_cmp "the old kernels file is as it was" "$TMP/old_kernels.cu" "$W/out/t_kernels.cu"
check "no temporary left" test "$(ls "$W/out" | tr '\n' ' ')" = "t.h t_kernels.cu "
expect_exit "the old pair still passes the build's check" 0 "$CHECKER" "$W/out/t.h" "$W/out/t_kernels.cu"

# without the limit: the new pair, which matches
expect_exit "emit again without the limit: exit 0" 0 \
	"$GEMMTAB" emit --db "$W/quick.db" --out "$W/out/t.h"
check "the header changed" bash -c "! cmp -s '$TMP/old.h' '$W/out/t.h'"
expect_exit "the new pair passes the build's check" 0 "$CHECKER" "$W/out/t.h" "$W/out/t_kernels.cu"

# a header beside another table's kernels file: refused, naming both
expect_exit "the build's check refuses the new header with the old kernels file: exit 1" 1 \
	"$CHECKER" "$W/out/t.h" "$TMP/old_kernels.cu"
check "... saying the two were not written together" \
	grep -q "^$W/out/t.h:1:1: error: the table names kernels file hash [0-9a-f]\{16\}, but $TMP/old_kernels.cu hashes to [0-9a-f]\{16\}: the two were not written together" "$TMP/err"
# the library build runs the check before it compiles a table
mkdir -p "$TMP/pair"
cp "$W/out/t.h" "$TMP/pair/t.h"
cp "$TMP/old_kernels.cu" "$TMP/pair/t_kernels.cu"
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory BUILD="$TMP/b" "$@"; }
expect_exit "make TABLES= with that pair stops: exit 2" 2 mk TABLES="$TMP/pair/t.h" "$TMP/b/obj/rt/table_1.checked"
check "... at the check, naming the header" grep -q "^$TMP/pair/t.h:1:1: error: the table names kernels file hash" "$TMP/err"
cp "$W/out/t_kernels.cu" "$TMP/pair/t_kernels.cu"
expect_exit "with its own kernels file it goes on: exit 0" 0 mk TABLES="$TMP/pair/t.h" "$TMP/b/obj/rt/table_1.checked"
sed '/kernels_hash/d' "$W/out/t.h" >"$TMP/nohash.h"
expect_exit "a header that names no kernels hash: exit 1" 1 \
	"$CHECKER" "$TMP/nohash.h" "$W/out/t_kernels.cu"
check "... saying to emit it again" grep -q "declares no kernels_hash" "$TMP/err"
finish

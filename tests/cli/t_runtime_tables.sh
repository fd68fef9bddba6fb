# CLI: a table per GPU kind. Two fake sweeps on two GPU names
# (FAKE_WORKER_GPU_NAME) emit two tables that declare their device; a
# program with both compiled in (tests/cli/runtime_tables.c, built here as
# runtime/runtime.mk builds TABLES) picks each card's table, none on a
# third card with the reasons, keeps every entry across a driver and CUDA
# change, and turns off the cuBLASLt entries alone, each with its reason,
# across a cuBLASLt change.
. "$(dirname "$0")/lib.sh"

export GEMMTAB_WORKER=$PWD/build/tests/fake_worker
space=tests/spaces/fake_tables.yaml
for card in "Fake H100" "Fake H200"; do
	stem=$(echo "${card#Fake }" | tr 'A-Z' 'a-z')
	FAKE_WORKER_GPU_NAME=$card expect_exit "sweep on $card: exit 0" 0 \
		"$GEMMTAB" sweep --space $space --db "$TMP/$stem.db" --cache "$TMP/cache"
	expect_exit "emit the $card table: exit 0" 0 \
		"$GEMMTAB" emit --db "$TMP/$stem.db" --out "$TMP/$stem.h"
	expect_line "the $card table declares its GPU" "$TMP/$stem.h" "	\"$card\",	/* gpu_name */"
done
h=$TMP/h100.h
expect_line "... its kernels' arch" "$h" '	"sm_90a",	/* arch */'
expect_line "... its SM count" "$h" '	132,	/* sm_count */'
expect_line "... its driver" "$h" '	"13.0",	/* driver */'
expect_line "... its cuBLASLt" "$h" '	"13.1.0",	/* cublaslt */'
check "... and its kernels file's hash" grep -qE '^	"[0-9a-f]{16}",	/\* kernels_hash \*/$' "$h"
n_lt=$(grep -c '^	/\* qkv, M [0-9.]*: blas_lt ' "$h")
n_tmpl=$(grep -c '^	/\* qkv, M [0-9.]*: gemv ' "$h")
check "the table holds cuBLASLt entries ($n_lt) and template entries ($n_tmpl)" \
	test "$n_lt" -ge 2 -a "$n_tmpl" -ge 1

if ! command -v cc >/dev/null 2>&1; then
	skip "the two-table program" "no cc"
	finish
fi
cuda=${CUDA_HOME:-/usr/local/cuda}
flags=(-std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -I. -Iruntime -Iplan -Iblas -Itests/unit
       -I"$cuda/include")
slot=1
for stem in h100 h200; do
	check "table $slot ($stem.h) compiles as runtime/table.c" cc "${flags[@]}" \
		-DGT_TABLE_HEADER="\"$TMP/$stem.h\"" -DGT_TABLE_SLOT=$slot -c -o "$TMP/table_$slot.o" \
		runtime/table.c
	slot=$((slot + 1))
done
rt=build/obj/rt
check "the program links the runtime's choice and dispatch" cc "${flags[@]}" \
	-DCARD_A='"Fake H100"' -DCARD_B='"Fake H200"' -DTABLE_A="\"$TMP/h100.h\"" \
	-DTABLE_B="\"$TMP/h200.h\"" -DCUBLASLT='"13.1.0"' -DN_LT="$n_lt" -DN_TEMPLATE="$n_tmpl" \
	-o "$TMP/tables" tests/cli/runtime_tables.c "$TMP/table_1.o" "$TMP/table_2.o" \
	$rt/choose.o $rt/dispatch.o $rt/plan_*.o -lm
"$TMP/tables" >"$TMP/tables.out" 2>&1
rc=$?
sed 's/^/    /' "$TMP/tables.out"
check "the two-table program passes (exit $rc)" grep -qx '4 passed, 0 failed' "$TMP/tables.out"
finish

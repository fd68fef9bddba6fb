# CLI: sweep --shapes takes the runtime's untuned-shape fragment (written
# by gt_untuned_write in build/tests/test_runtime_untuned) beside a base
# space: a new shape is added and swept, a range the base has is widened,
# a shape whose Ms the base has is left, and a fragment the base cannot
# take (a range asked of a list, a family name of another shape, a missing
# file) is refused naming the fragment and the shape.
. "$(dirname "$0")/lib.sh"
export GEMMTAB_WORKER=$PWD/build/tests/fake_worker
frag=$TMP/untuned.yaml
check "the runtime's records write a fragment" sh -c "UNTUNED_FRAGMENT='$frag' build/tests/test_runtime_untuned >'$TMP/unit.out'"
check "... of shapes: a new one, the router's refused bucket, qkv's" \
	test "$(grep -c '^  - {family: ' "$frag")" = 3

expect_exit "beside range.yaml: a dry run" 0 "$GEMMTAB" sweep --space tests/spaces/range.yaml --shapes "$frag" --dry-run
check "the new shape is added" grep -q "^sweep: $frag: shape n4096_k1024_bf16 (4096 x 1024) added$" "$TMP/err"
check "the router's range is widened to its refused bucket" \
	grep -q "^sweep: $frag: shape n256_k8192_fp32 (256 x 8192): the base space's router now ranges over 1..1024$" "$TMP/err"
check "qkv, whose Ms the base times, is left" \
	grep -q "every M is already the base space's qkv$" "$TMP/err"
check "the dry run plans the new shape at 5 and 17" \
	bash -c "grep -qE '^n4096_k1024_bf16 +5 ' '$TMP/out' && grep -qE '^n4096_k1024_bf16 +17 ' '$TMP/out'"

db=$TMP/u.db
expect_exit "the sweep with the fragment" 0 "$GEMMTAB" sweep --space tests/spaces/range.yaml --shapes "$frag" \
	--db "$db" --cache "$TMP/cache"
check "it measured the new shape at M = 5 and 17" test "$(sqlite3 "$db" "SELECT DISTINCT r.m FROM result r
	JOIN shape s ON s.id = r.shape_id WHERE s.family = 'n4096_k1024_bf16' AND r.status = 'ok'
	ORDER BY r.m" | tr '\n' ' ')" = "5 17 "
check "... and the router past 64, up to 1024" test "$(q "SELECT max(r.m) FROM result r JOIN shape s
	ON s.id = r.shape_id WHERE s.family = 'router' AND r.m <= 1024")" = 1024

expect_exit "beside five.yaml, whose router is a list: exit 2" 2 \
	"$GEMMTAB" sweep --space tests/spaces/five.yaml --shapes "$frag" --dry-run
check "... naming the fragment, the shape and what to do" grep -q \
	"^$frag: shape n256_k8192_fp32 (256 x 8192) asks for the range 513..1024; the base space's router is a list of Ms: make it a range there$" "$TMP/err"
printf 'shapes:\n  - {family: qkv, n: 1024, k: 1024, w: bf16, x: bf16, y: bf16, tol: 1e-2, m: [1]}\n' >"$TMP/clash.yaml"
expect_exit "a family name of another shape: exit 2" 2 \
	"$GEMMTAB" sweep --space tests/spaces/range.yaml --shapes "$TMP/clash.yaml" --dry-run
check "... saying so" grep -q "shape qkv (1024 x 1024): the base space tests/spaces/range.yaml has a family qkv of another shape; rename one" "$TMP/err"
printf 'shapes:\n  - {family: qkv2, n: 2304, k: 8192, w: bf16, x: bf16, y: bf16, tol: 1e-2, m: [600]}\n' >"$TMP/wide.yaml"
expect_exit "a list M past a range: the range widens" 0 \
	"$GEMMTAB" sweep --space tests/spaces/range.yaml --shapes "$TMP/wide.yaml" --dry-run
check "... to 1..600" grep -q "the base space's qkv now ranges over 1..600" "$TMP/err"
printf 'shapes: []\n' >"$TMP/empty.yaml"
expect_exit "a fragment with no shape (all was tuned): exit 0" 0 \
	"$GEMMTAB" sweep --space tests/spaces/range.yaml --shapes "$TMP/empty.yaml" --dry-run
expect_exit "a missing fragment: exit 2" 2 "$GEMMTAB" sweep --space tests/spaces/range.yaml --shapes "$TMP/none.yaml"
check "... naming it" grep -q "$TMP/none.yaml" "$TMP/err"
finish

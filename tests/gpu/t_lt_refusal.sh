# GPU: a cuBLASLt algorithm its check declines at the point asked (split-K
# 8 with reduction 2 at o_proj's 4096 x 4096, m = 256, a neighbour
# anchor's algorithm: examples/llama-3-8b/h100.db, recorded before this
# rule, holds it as launch_error "cuBLASLt refuses the algorithm at
# m=256") is answered pruned with cuBLASLt's words, not launch_error, by
# the worker the sweep runs (the full template registry).
. "$(dirname "$0")/lib.sh"

req='eval id=r1 phase=screen pairs=3 seed=42 family=o_proj n=4096 k=4096 w=bf16 x=bf16 y=bf16 tol=1e-2 m=256 tmpl=blas_lt orient=t algo=66 tile=27 stages=35 splitk=8 reduction=2 swizzle=0 custom=2 inner=0 cluster=7 nk=0'
printf '%s\n' "$req" | timeout 120 "$GEMMTAB" worker --device 0 >"$TMP/reply" 2>"$TMP/err"
sed 's/^/    /' "$TMP/reply"
check "the worker answers r1" grep -q "^result id=r1 " "$TMP/reply"
check "pruned, not launch_error" grep -q "^result id=r1 .*status=pruned" "$TMP/reply"
check "in cuBLASLt's words" grep -q "reason=plan%20step%200:%20cuBLASLt%20refuses%20the%20algorithm%20at%20m%3D256" "$TMP/reply"
check "and prints no error for it (a refusal is not one)" bash -c "! grep -q refuses '$TMP/err'"
finish

# CLI: gemv_tail_kernel issues no weight load ahead of the test that
# guards it. Its weight loads are inline asm; a non-volatile asm is free
# of side effects to the compiler, which then hoisted an UNROLL = 1 tail
# kernel's first loads above the K loop's test and out of the token
# loop: a thread past its split's last chunk read past W's end (the
# illegal-address faults of gemv unroll=1, split >= 2 at K = 4096, split
# 8). nvcc compiles tail kernels of several layouts to PTX here (no GPU
# needed); in each, the code before its first label (the straight-line
# start every thread runs) holds no global load.
. "$(dirname "$0")/lib.sh"

NVCC=${CUDA_HOME:-/usr/local/cuda}/bin/nvcc
SRC=${GEMV_CUH:-templates/gemv.cuh}
if [ ! -x "$NVCC" ]; then
	skip "the tail kernel's PTX" "no nvcc at $NVCC"
	finish
fi
{
	echo "#include \"$PWD/$SRC\""
	for w in "__nv_bfloat16 __nv_bfloat16" "float float"; do
		set -- $w
		for u in 1 2; do for rows in 1 3; do for tokens in 1 4; do for cache in 0 2 4; do
			echo "template __global__ void gemv_tail_kernel<$1, $2, 4, $rows, $tokens, $u, 8, $cache>(const $1 *, const __nv_bfloat16 *, $2 *, float *, int, int, int);"
		done; done; done; done
	done
} >"$TMP/tails.cu"
n=$(grep -c '^template' "$TMP/tails.cu")
check "nvcc compiles $n tail kernels to PTX" \
	"$NVCC" -std=c++17 -arch=sm_90a -ptx -o "$TMP/tails.ptx" "$TMP/tails.cu"
# per kernel: its name and the global loads before its first label
awk '/^\.visible \.entry/ { name = $3; sub(/\(.*/, "", name); pre = 1; kernels++; next }
	pre && /^\$L__BB/ { pre = 0 }
	pre && /ld\.global/ { print name; early++ }
	END { print kernels " kernels" > "/dev/stderr" }' "$TMP/tails.ptx" >"$TMP/early" 2>"$TMP/count"
check "all $n are in the PTX ($(cat "$TMP/count"))" test "$(cat "$TMP/count")" = "$n kernels"
check "no tail kernel loads before its first test" test ! -s "$TMP/early"
sort "$TMP/early" | uniq -c | head -n 5 | sed 's/^/    /'
finish

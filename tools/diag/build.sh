#!/usr/bin/env bash
# tools/diag/build.sh: builds the diagnostics of tools/diag into build/diag
# (nvcc, sm_90a; not part of `make`): oneshot (one-shot reads of 8.4 MB
# in several shapes), clusters (how many clusters of each size this unit
# holds at once), dsmem (the cycles of a hand-over between a cluster's
# blocks: distributed shared memory, the cluster barrier), twokernel (the two-kernel slowdown after side work,
# docs/notes.md run 159), frag32 (qkv at M = 32 through mma_frag's register
# loads, beside the library's call: session 16), tail (qkv at M = 32 with
# its split-K push in the middle of the stream: session 17), partner (does
# the candidate a baseline is paired with change the baseline's time:
# session 17), clock (the SM clock a batch of one kernel runs at: session
# 17), ring (qkv's 37.7 MB through cp.async rings alone: session 17), cut
# (qkv 32's committed kernel with parts cut out: session 18) and
# ablate (the committed kernels with parts switched
# off; its kernels are templates/mma_skinny.cuh patched with
# mma_ablate.patch, which no longer applies to the current template: the
# script then says so on stderr and exits 3 after building the others
# (an ablate, ktconst or cut an earlier build left is removed first); TEMPLATE_REF=REV patches the
# template as of git revision REV instead: 6d56109, the one before warp-k's
# wk parameter, takes the patch).
set -eu
cd "$(dirname "$0")/../.."
NVCC=${NVCC:-nvcc}
ARCH="-gencode arch=compute_90a,code=sm_90a"
mkdir -p build/diag
# ktconst, cut and ablate come from sed and patch edits of the template: when
# an edit no longer applies, a binary an earlier build left must not pass
# for this tree's
rm -f build/diag/ktconst build/diag/cut build/diag/ablate
if [ -n "${TEMPLATE_REF:-}" ]; then
	git show "$TEMPLATE_REF:templates/mma_skinny.cuh" >build/diag/mma_ablate.cuh
else
	cp templates/mma_skinny.cuh build/diag/mma_ablate.cuh
fi
# these link the tuner's own device kernels (flush, fills, streaming read)
$NVCC -O3 -std=c++17 $ARCH -Ituner -Itemplates -o build/diag/oneshot tools/diag/oneshot.cu tuner/harness.cu
$NVCC -O2 -std=c++17 $ARCH -Ituner -o build/diag/clusters tools/diag/clusters.cu
$NVCC -O2 -std=c++17 $ARCH -Ituner -o build/diag/dsmem tools/diag/dsmem.cu
$NVCC -O3 -std=c++17 $ARCH -Ituner -o build/diag/twokernel tools/diag/twokernel.cu tuner/harness.cu
$NVCC -O3 -std=c++17 $ARCH -Ituner -o build/diag/ring tools/diag/ring.cu tuner/harness.cu
# these time the library's committed calls beside their forms: they link
# the runtime library (make build/lib/libgemmtab.a first)
for d in frag32 skew2 tail partner clock; do
	$NVCC -O3 -std=c++17 $ARCH -Ituner -Itemplates -Iruntime -o build/diag/$d tools/diag/$d.cu \
		tuner/harness.cu build/lib/libgemmtab.a -lcublasLt -lcublas
done
# template_copy OUT N MARK REV SED-ARGS...: templates/mma_skinny.cuh (as of
# git revision REV; the tree's when REV is -) edited by sed into OUT, which
# must then hold N lines with MARK (else the lines the edits look for have
# moved: stop)
template_copy() {
	local out=$1 want=$2 mark=$3 rev=$4
	shift 4
	if [ "$rev" = - ]; then
		sed "$@" templates/mma_skinny.cuh >"$out"
	else
		git show "$rev:templates/mma_skinny.cuh" | sed "$@" >"$out"
	fi
	if [ "$(grep -c "$mark" "$out")" != "$want" ]; then
		echo "$out: the lines its edits look for moved in templates/mma_skinny.cuh" >&2
		exit 3
	fi
}
# ktconst: mma_skinny as it is and with K a constant where a block
# counts its k tiles (DIAG_K), each copy in a namespace of its own
template_copy build/diag/skinny_kt.cuh 2 DIAG_K - \
	-e 's|const int ktotal = K / BK;|const int ktotal = DIAG_K / BK;|' \
	-e 's|const int ktiles = (int)((long long)(split + 1) \* ktotal / SPLIT) - kt_first;|const int ktiles = (DIAG_K / BK) % SPLIT ? (int)((long long)(split + 1) * ktotal / SPLIT) - kt_first : DIAG_K / BK / SPLIT;|'
$NVCC -O3 -std=c++17 $ARCH -Ituner -Itemplates -Ibuild/diag -Iruntime -o build/diag/ktconst tools/diag/ktconst.cu \
	tuner/harness.cu build/lib/libgemmtab.a -lcublasLt -lcublas
# cut: qkv 32's kernel with its parts cut out, one namespace per DIAG_CUT
# value (tools/diag/cut.cu says which bit cuts what). The template as of
# 35541d8 (CUT_REF), the last before its wgmma cluster tiles took the
# direct push (cut's bit 256, run 261): the copy still holds the epilogue
# tile's push that the bits cut apart
template_copy build/diag/skinny_cut.cuh 8 DIAG_ "${CUT_REF:-35541d8}" \
	-e '/^#pragma once/d' \
	-e 's|^\t/\* accumulators to the epilogue tile E\[wk\]\[token\]\[row\] \*/|\tif constexpr ((DIAG_CUT \& DIAG_DIRECT_BITS) \&\& CLUSTER \&\& !HILO \&\& MMA == MMA_WGMMA) { DIAG_DIRECT_PUSH return; }\n&|' \
	-e 's|E\[(wk \* BN + token) \* LD + row\] = acc\[i\]\[j\]\[c\];|if (!(DIAG_CUT \& 64)) E[(wk * BN + token) * LD + row] = acc[i][j][c];|' \
	-e 's|for (int r = 0; r < BN; r += ROWS_PER_PASS) {|for (int r = 0; r < ((DIAG_CUT \& 2) ? 0 : BN); r += ROWS_PER_PASS) {|' \
	-e 's|for (int ks = 0; ks < BK / 16; ks++)|for (int ks = 0; ks < ((DIAG_CUT \& 1) ? 0 : BK / 16); ks++)|' \
	-e 's|^\(\t*\)mma_store_peer(recv + (rank \* PER_RANK + u - owner \* PER_RANK) \* 16, owner,|\1if (!(DIAG_CUT \& 4)) DIAG_PUSH(recv, (rank * PER_RANK + u - owner * PER_RANK), owner,|' \
	-e 's|mma_cluster_sync();     /\* every slot of every owner is written \*/|if (!(DIAG_CUT \& 8)) mma_cluster_sync();|' \
	-e 's|sum = mma_add4(sum, slots\[r \* PER_RANK + u - first\]);|sum = mma_add4(sum, DIAG_SLOT(slots, r * PER_RANK + u - first));|' \
	-e '/mma_cluster_wait();     \/\* every peer has started \*\//{n;s|for (int u = tid; u < UNITS; u += THREADS) {|for (int i_ = tid; i_ < UNITS; i_ += THREADS) { const int u = DIAG_ROT(i_);|}'
$NVCC -O3 -std=c++17 $ARCH -Ituner -Itemplates -Ibuild/diag -Iruntime -o build/diag/cut tools/diag/cut.cu \
	tuner/harness.cu build/lib/libgemmtab.a -lcublasLt -lcublas
echo "built build/diag/oneshot, build/diag/clusters, build/diag/dsmem, build/diag/twokernel," \
	"build/diag/ring, build/diag/frag32, build/diag/skew2, build/diag/tail, build/diag/partner," \
	"build/diag/clock, build/diag/ktconst and build/diag/cut"
# ablate last: its patch fails on any template it was not written for
if patch --quiet --forward --no-backup-if-mismatch --reject-file=- build/diag/mma_ablate.cuh tools/diag/mma_ablate.patch \
	>build/diag/mma_ablate.log 2>&1; then
	$NVCC -O3 -std=c++17 $ARCH -Ibuild/diag -Ituner -o build/diag/ablate tools/diag/ablate.cu \
		tuner/harness.cu
	echo "built build/diag/ablate"
else
	echo "build/diag/ablate not built: mma_ablate.patch does not apply" \
		"(build/diag/mma_ablate.log; try TEMPLATE_REF=6d56109)" >&2
	exit 3
fi

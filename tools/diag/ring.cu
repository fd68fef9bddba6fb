/*
 * tools/diag/ring.cu: can a cp.async ring read qkv's 37.7 MB as fast as
 * the probe's stream? (session 17). A diagnostic, not part of gemmtab.
 *
 * qkv at M = 32 runs ~2 us over the stream (11.2-11.6 against 9.2 us),
 * and tail.cu's forms with no MMA and no push read the same 11.2-11.6
 * (run 240). Here nothing but the ring: B blocks of T threads, each
 * reading its contiguous share of W through S stages of WB bytes (plus XB
 * bytes of a 512 KiB token buffer that stays in L2, as the activations
 * do), each stage waited for (cp.async.wait_group S - 2), then released
 * and refilled; one word of each stage is summed so the data is used.
 * If some (B, S, WB) reads near the stream, the library's gap is its
 * compute and combine around the ring; if none does, it is the ring.
 *
 * Build: bash tools/diag/build.sh (after make); run: build/diag/ring [reps]
 */
#include "diag.cuh"

#include <cuda.h>
#include <cudaTypedefs.h>

namespace {

constexpr size_t WBYTES = (size_t)2304 * 8192 * 2, XBYTES = (size_t)32 * 8192 * 2;
constexpr int COPIES = 4;

/* How a stage's XB bytes of X are read: X_FLAT a contiguous piece by
 * cp.async (16 bytes a thread); X_ROWS the library's token tile, 32 rows
 * of 128 bytes (the 64 k of a stage) 16 KiB apart, by cp.async; X_BULK
 * the same rows as 32 cp.async.bulk copies of 128 bytes (a lane each of
 * warp 0), completing on the slot's mbarrier instead of a commit group;
 * X_TMA the same rows as one cp.async.bulk.tensor.2d copy (thread 0, a
 * box of 64 k by the 32 rows through the tensor map xmap), completing on
 * the slot's mbarrier too. */
enum { X_FLAT, X_ROWS, X_BULK, X_TMA };

/* Block b reads W bytes [b * share, (b + 1) * share) of total in stages
 * of WB (the last one short), and XB bytes of X per stage (XMODE). */
template <int S, int WB, int XB, int T, int XMODE = X_FLAT>
__global__ void __launch_bounds__(T) k_ring(const unsigned char *W, const unsigned char *X,
					    const __grid_constant__ CUtensorMap xmap, unsigned *sink,
					    size_t share, size_t total)
{
	constexpr bool MBAR = XMODE == X_BULK || XMODE == X_TMA;
	static_assert(XMODE == X_FLAT || XB == 4096, "the token tile is 32 rows of 128 bytes");
	extern __shared__ __align__(128) unsigned char ring[];
	__shared__ __align__(8) unsigned long long bars[MBAR ? S : 1];
	constexpr int SB = WB + XB;
	const unsigned base = smem_u32(ring);
	const unsigned char *w = W + blockIdx.x * share;
	const size_t left = total - blockIdx.x * share;
	const size_t mine = left < share ? left : share;
	const int stages = (int)((mine + WB - 1) / WB);
	if constexpr (MBAR) {
		if (threadIdx.x == 0) {
			for (int i = 0; i < S; i++)
				asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(
						     smem_u32(&bars[i]))
					     : "memory");
			asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
		}
		__syncthreads();
	}
	auto load = [&](int s, int slot) {
		const unsigned st = base + slot * SB;
		const size_t off = (size_t)s * WB;
#pragma unroll
		for (int i = threadIdx.x * 16; i < WB; i += T * 16)
			if (off + i < mine)
				cp16(st + i, w + off + i);
		/* the stage's 64 k of the 32 token rows (8192 k, 16 KiB each) */
		const unsigned char *xk = X + (size_t)((blockIdx.x * 7 + s) % 128) * 128;
		if constexpr (XMODE == X_FLAT) {
#pragma unroll
			for (int i = threadIdx.x * 16; i < XB; i += T * 16)
				cp16(st + WB + i, X + ((blockIdx.x * 7 + s) * (size_t)XB + i) % XBYTES);
		} else if constexpr (XMODE == X_ROWS) {
#pragma unroll
			for (int i = threadIdx.x * 16; i < XB; i += T * 16)
				cp16(st + WB + i, xk + (size_t)(i / 128) * 16384 + i % 128);
		} else if constexpr (XMODE == X_TMA) {
			if (threadIdx.x == 0) {
				const unsigned bar = smem_u32(&bars[slot]);
				const int k0 = (int)((blockIdx.x * 7 + s) % 128) * 64;
				asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar),
					     "n"(XB)
					     : "memory");
				asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx"
					     "::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(st + WB),
					     "l"(reinterpret_cast<unsigned long long>(&xmap)), "r"(k0),
					     "r"(0), "r"(bar)
					     : "memory");
			}
		} else if (threadIdx.x < 32) {
			const unsigned bar = smem_u32(&bars[slot]);
			if (threadIdx.x == 0)
				asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar),
					     "n"(XB)
					     : "memory");
			__syncwarp();
			asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
				     " [%0], [%1], 128, [%2];" ::"r"(st + WB + threadIdx.x * 128),
				     "l"(xk + (size_t)threadIdx.x * 16384), "r"(bar)
				     : "memory");
		}
	};
#pragma unroll
	for (int s = 0; s < S - 1; s++) {
		if (s < stages)
			load(s, s);
		asm volatile("cp.async.commit_group;" ::: "memory");
	}
	unsigned acc = 0;
	for (int s = 0; s < stages; s++) {
		asm volatile("cp.async.wait_group %0;" ::"n"(S - 2) : "memory");
		if constexpr (MBAR)
			diag_mbar_wait<false>(smem_u32(&bars[s % S]), (unsigned)(s / S) & 1);
		__syncthreads();
		const int nx = s + S - 1;
		if (nx < stages)
			load(nx, nx % S);
		asm volatile("cp.async.commit_group;" ::: "memory");
		acc ^= reinterpret_cast<const unsigned *>(ring + (s % S) * SB)[threadIdx.x];
	}
	if (acc == DIAG_MAGIC)
		*sink = acc;
}


/* The tensor map of X (32 token rows of 8192 bf16) in boxes of 64 k by
 * the 32 rows, with no swizzle. */
CUtensorMap x_tensor_map(const void *x)
{
	PFN_cuTensorMapEncodeTiled_v12000 encode = nullptr;
	cudaDriverEntryPointQueryResult q;
	CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", (void **)&encode, 12000,
					       cudaEnableDefault, &q));
	if (!encode || q != cudaDriverEntryPointSuccess) {
		fprintf(stderr, "ring: no cuTensorMapEncodeTiled\n");
		exit(1);
	}
	CUtensorMap m;
	const cuuint64_t dims[2] = { 8192, 32 }, strides[1] = { 8192 * 2 };
	const cuuint32_t box[2] = { 64, 32 }, estr[2] = { 1, 1 };
	const CUresult r = encode(&m, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, const_cast<void *>(x), dims,
				  strides, box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE,
				  CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
				  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
	if (r != CUDA_SUCCESS) {
		fprintf(stderr, "ring: cuTensorMapEncodeTiled failed (%d)\n", (int)r);
		exit(1);
	}
	return m;
}

struct form {
	const char *name;
	const void *fn;
	int blocks, threads;
	size_t smem;
};

template <int S, int WB, int XB, int T, int XMODE = X_FLAT>
form make_form(const char *name, int blocks)
{
	form f{ name, (const void *)k_ring<S, WB, XB, T, XMODE>, blocks, T, (size_t)S * (WB + XB) };
	CHECK(cudaFuncSetAttribute(f.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)f.smem));
	int per_sm = 0;
	CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, f.fn, T, f.smem));
	printf("form %-34s %d blocks, smem %zu, %d blocks an SM\n", name, blocks, f.smem, per_sm);
	return f;
}

} /* namespace */

int main(int argc, char **argv)
{
	const int reps = argc > 1 ? atoi(argv[1]) : 200;
	const cudaStream_t s = diag_stream();
	unsigned char *w[COPIES], *x;
	for (int c = 0; c < COPIES; c++) {
		CHECK(cudaMalloc(&w[c], WBYTES));
		CHECK(harness_fill_random_bytes(w[c], WBYTES, 100 + c, s));
	}
	CHECK(cudaMalloc(&x, XBYTES));
	CHECK(harness_fill_random_bytes(x, XBYTES, 7, s));
	unsigned *sink;
	const CUtensorMap xmap = x_tensor_map(x);       /* X_TMA's */
	CHECK(cudaMalloc(&sink, 64));
	/* the library's qkv 32 ring: 288 blocks, 4 stages of 8 KiB of W and
	 * 4 of X; then more in flight, fewer or more blocks */
	const std::vector<form> forms = {
		make_form<4, 8192, 4096, 128>("288 x s4 w8k x4k (the library's)", 288),
		make_form<4, 8192, 0, 128>("288 x s4 w8k", 288),
		make_form<6, 8192, 4096, 128>("288 x s6 w8k x4k", 288),
		make_form<8, 8192, 0, 128>("288 x s8 w8k", 288),
		make_form<4, 16384, 0, 256>("288 x s4 w16k t256", 288),
		make_form<4, 8192, 0, 128>("264 x s4 w8k", 264),
		make_form<8, 8192, 0, 128>("264 x s8 w8k", 264),
		make_form<8, 16384, 0, 256>("132 x s8 w16k t256", 132),
		make_form<12, 16384, 0, 256>("132 x s12 w16k t256", 132),
		make_form<4, 8192, 0, 128>("528 x s4 w8k", 528),
		/* session 18: X's share of the gap, by its bytes (what a
		 * multicast of X over 2 or 4 row blocks could recover at best),
		 * and the wgmma ring's depth (STAGES - 2 in flight) */
		make_form<4, 8192, 2048, 128>("288 x s4 w8k x2k (X halved)", 288),
		make_form<4, 8192, 1024, 128>("288 x s4 w8k x1k (X quartered)", 288),
		make_form<3, 8192, 4096, 128>("288 x s3 w8k x4k (2 in flight)", 288),
		make_form<5, 8192, 4096, 128>("288 x s5 w8k x4k (4 in flight)", 288),
		/* X as the library reads it (32 rows of 128 bytes a stage), by
		 * cp.async or by bulk copies: does taking X off the threads'
		 * copies (a copy engine's 32 requests a stage) recover its cost?
		 * (run 257: rows 9.60-9.66 us as the flat piece; bulk 19.2) */
		make_form<4, 8192, 4096, 128, X_ROWS>("288 x s4 w8k x4k rows", 288),
		make_form<4, 8192, 4096, 128, X_BULK>("288 x s4 w8k x4k rows bulk", 288),
		/* run 258: by one TMA copy a stage 10.02-10.11 us against
		 * 9.76-9.89 by cp.async */
		make_form<4, 8192, 4096, 128, X_TMA>("288 x s4 w8k x4k rows tma", 288),
	};
	std::vector<diag_case> cs = { diag_stream_case("stream 37.7 MB", w, WBYTES, sink) };
	for (const form &f : forms)
		cs.push_back({ f.name, [&, f](int c, cudaStream_t st) {
			size_t share = (WBYTES / f.blocks + 15) / 16 * 16, total = WBYTES;
			void *args[] = { (void *)&w[c], (void *)&x, (void *)&xmap, (void *)&sink, &share,
					 &total };
			CHECK(cudaLaunchKernel(f.fn, dim3(f.blocks), dim3(f.threads), args, f.smem, st));
		}, nullptr, (double)WBYTES });
	for (int i = 0; i < 3; i++)
		diag_time("ring (qkv's 37.7 MB)", cs, COPIES, reps, s);
	return 0;
}

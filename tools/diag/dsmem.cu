/*
 * dsmem.cu: what a hand-over between the blocks of a cluster costs on an
 * idle GPU, timed inside the kernel (clock64, SM cycles), so that launch
 * and replay overheads stay out of it. Runs 196-198 (docs/notes.md) found
 * that the slice at 8's push combine costs ~0.55 us over the read however
 * the data's arrival is signalled; this says how much of that is the bare
 * latency of distributed shared memory and of the cluster barrier.
 *
 *   pingpong   rank 0 stores a word into rank 1's shared memory, rank 1
 *              polls for it and stores it back into rank 0's: cycles per
 *              round trip (two hops), ITERS round trips
 *   barrier    barrier.cluster.arrive.release + wait.acquire, every thread
 *              of every block, ITERS times: cycles per barrier
 *   relaxed    barrier.cluster.arrive.relaxed + wait, ITERS times
 *   push       mma_skinny's push in miniature: every thread stores 16 bytes
 *              into its owner's slots, then one release/acquire barrier,
 *              then the owner reads them: cycles per push
 *
 * Each for clusters of 2 and 8 (128 threads a block, one cluster launched
 * alone, then as many clusters as fill the GPU at two blocks per SM).
 * Usage: build/diag/dsmem (no arguments). Build: bash tools/diag/build.sh
 */
#include "diag.cuh"     /* CHECK, smem_u32, mapa, ctarank */

static const int ITERS = 1000;

__device__ __forceinline__ unsigned ctasize()
{
	unsigned r;
	asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(r));
	return r;
}

__device__ __forceinline__ void cluster_sync()
{
	asm volatile("barrier.cluster.arrive.release.aligned;\n\t"
		     "barrier.cluster.wait.acquire.aligned;" ::: "memory");
}

/* out[blockIdx.x]: the cycles of the timed loop, per iteration */
template <int MODE>
__global__ void k_dsmem(double *out)
{
	__shared__ volatile unsigned flag;
	__shared__ float4 slots[128];
	const unsigned rank = ctarank(), size = ctasize();
	if (threadIdx.x == 0)
		flag = 0;
	cluster_sync();         /* every flag is initialized */
	long long t0 = clock64();
	if (MODE == 0) {        /* pingpong between ranks 0 and 1 */
		if (threadIdx.x == 0 && rank < 2) {
			const unsigned peer = mapa(smem_u32((const void *)&flag), rank ^ 1);
			for (unsigned i = 1; i <= ITERS; i++) {
				if (rank == 0)
					asm volatile("st.shared::cluster.u32 [%0], %1;" ::"r"(peer), "r"(i)
						     : "memory");
				while (flag != i)
					;
				if (rank == 1)
					asm volatile("st.shared::cluster.u32 [%0], %1;" ::"r"(peer), "r"(i)
						     : "memory");
			}
		}
	} else if (MODE == 1) {
		for (int i = 0; i < ITERS; i++)
			cluster_sync();
	} else if (MODE == 2) {
		for (int i = 0; i < ITERS; i++)
			asm volatile("barrier.cluster.arrive.relaxed.aligned;\n\t"
				     "barrier.cluster.wait.aligned;" ::: "memory");
	} else {                /* push: 128 float4 per block, owner u / per */
		const unsigned per = 128 / size;
		float acc = 0;
		for (int i = 0; i < ITERS; i++) {
			const unsigned owner = threadIdx.x / per;
			const unsigned dst = mapa(smem_u32(&slots[rank * per + threadIdx.x % per]), owner);
			asm volatile("st.shared::cluster.v4.f32 [%0], {%1, %1, %1, %1};" ::"r"(dst),
				     "f"((float)i) : "memory");
			cluster_sync();
			if (threadIdx.x < per)
				for (unsigned r = 0; r < size; r++)
					acc += slots[r * per + threadIdx.x].x;
			cluster_sync(); /* the slots are read before the next push */
		}
		if (acc == -1.0f)
			out[gridDim.x] = acc;
	}
	long long t1 = clock64();
	if (threadIdx.x == 0)
		out[blockIdx.x] = (double)(t1 - t0) / ITERS;
	cluster_sync();         /* no block leaves while a peer may touch it */
}

template <int MODE>
static void run(const char *name, int cluster, int clusters, double *d_out, double *h_out)
{
	cudaLaunchConfig_t cfg = {};
	cudaLaunchAttribute attr;
	cfg.gridDim = dim3(cluster * clusters);
	cfg.blockDim = dim3(128);
	diag_cluster_dims(cfg, attr, cluster);
	const int blocks = cluster * clusters;
	for (int rep = 0; rep < 2; rep++)       /* the first warms up */
		CHECK(cudaLaunchKernelEx(&cfg, k_dsmem<MODE>, d_out));
	CHECK(cudaDeviceSynchronize());
	CHECK(cudaMemcpy(h_out, d_out, sizeof(double) * blocks, cudaMemcpyDeviceToHost));
	double lo = 1e30, hi = 0, sum = 0;
	for (int b = 0; b < blocks; b++) {
		if (MODE == 0 && b % cluster > 1)
			continue;       /* only ranks 0 and 1 ping-pong */
		lo = h_out[b] < lo ? h_out[b] : lo;
		hi = h_out[b] > hi ? h_out[b] : hi;
		sum += h_out[b];
	}
	const int counted = MODE == 0 ? 2 * clusters : blocks;
	int mhz;
	CHECK(cudaDeviceGetAttribute(&mhz, cudaDevAttrClockRate, 0));
	mhz /= 1000;
	printf("%-9s cluster %d x %3d: %7.1f cycles (%.3f us at %d MHz), blocks %.1f..%.1f\n", name,
	       cluster, clusters, sum / counted, sum / counted / mhz, mhz, lo, hi);
}

int main()
{
	cudaDeviceProp prop;
	CHECK(cudaGetDeviceProperties(&prop, 0));
	printf("device %s, %d SMs\n", prop.name, prop.multiProcessorCount);
	double *d_out, h_out[1024 + 1];
	CHECK(cudaMalloc(&d_out, sizeof(h_out)));
	const int sizes[] = { 2, 8 };
	for (int c : sizes)
		for (int full = 0; full < 2; full++) {
			/* alone, or 2 blocks per SM's worth of clusters (256 blocks
			 * on 132 SMs: the slice at 8's grid) */
			const int clusters = full ? 256 / c : 1;
			run<0>("pingpong", c, clusters, d_out, h_out);
			run<1>("barrier", c, clusters, d_out, h_out);
			run<2>("relaxed", c, clusters, d_out, h_out);
			run<3>("push", c, clusters, d_out, h_out);
		}
	CHECK(cudaFree(d_out));
	return 0;
}

/*
 * clusters.cu: how many thread-block clusters of a given size and shared
 * memory this GPU holds at once (cudaOccupancyMaxActiveClusters), against
 * how many a grid of the tuner's cluster kernels needs. A cluster's blocks
 * must share one GPC, so the answer depends on the GPU's SMs per GPC and
 * on the blocks per SM the shared memory allows (session 9, runs 120-121:
 * qkv 32's split-7 cluster tile needs 36 clusters of 7, the GPU holds 32
 * at two blocks per SM, and it reads 15.6 us against 11.1 for an earlier
 * version of the tile that fit three per SM). Usage: build/diag/clusters
 * (no arguments).
 */
#include "diag.cuh"     /* CHECK, diag_cluster_dims */

__global__ void k_cluster(int *p)
{
	extern __shared__ int s[];
	if (threadIdx.x == 0 && p)
		p[blockIdx.x] = s[0];
}

int main()
{
	cudaDeviceProp prop;
	CHECK(cudaGetDeviceProperties(&prop, 0));
	printf("device %s, %d SMs, %zu bytes of shared memory per SM\n", prop.name,
	       prop.multiProcessorCount, prop.sharedMemPerMultiprocessor);
	CHECK(cudaFuncSetAttribute(k_cluster, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
	CHECK(cudaFuncSetAttribute(k_cluster, cudaFuncAttributeMaxDynamicSharedMemorySize,
				   200 * 1024));
	/* dynamic shared memory of the tuner's tiles: the slice at 8 (40 KiB
	 * + slots), qkv 32 split 8 (48 + 8), qkv 32 split 7 wgmma (72 + 1 +
	 * 8), and the largest two-per-SM and one-per-SM rings */
	static const int smem_kib[] = { 41, 57, 82, 112, 200 };
	static const int sizes[] = { 1, 2, 4, 7, 8, 16 };
	printf("%-9s", "smem KiB");
	for (int c : sizes)
		printf(" %9s%-2d", "cluster ", c);
	printf("   blocks/SM\n");
	for (int kib : smem_kib) {
		printf("%-9d", kib);
		int per_sm = 0;
		CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k_cluster, 128,
								    kib * 1024));
		for (int c : sizes) {
			cudaLaunchConfig_t cfg = {};
			cudaLaunchAttribute attr;
			cfg.gridDim = dim3(c * 64, 1, 1);
			cfg.blockDim = dim3(128, 1, 1);
			cfg.dynamicSmemBytes = kib * 1024;
			diag_cluster_dims(cfg, attr, c);
			int n = -1;
			cudaError_t e = cudaOccupancyMaxActiveClusters(&n, k_cluster, &cfg);
			if (e != cudaSuccess) {
				cudaGetLastError();
				n = -1;
			}
			printf(" %11d", n);
		}
		printf("   %d\n", per_sm);
	}
	return 0;
}

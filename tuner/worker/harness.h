/*
 * harness.h: the worker's own device kernels, compiled by nvcc into the
 * gemmtab binary (harness.cu) and reached from C only through these
 * launchers: seeded random fills, the conversion to FP64, a naive FP64
 * reference product, the error metrics, the L2 flush, the streaming-read
 * floor kernel and an empty kernel. Every launcher enqueues on stream
 * and returns the result of cudaGetLastError() right after its launch, so
 * each caller checks each launch. Element types are passed as enum dtype
 * values (types.h).
 */
#ifndef GT_HARNESS_H
#define GT_HARNESS_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * count elements of dtype at p drawn from N(0, stddev^2) (FP32 Box-Muller,
 * two draws per hash), a pure function of (seed, index): the same seed
 * always gives the same buffer.
 */
cudaError_t harness_fill_normal(void *p, int dtype, size_t count, float stddev,
				uint64_t seed, cudaStream_t stream);

/*
 * Activations X (m x k row-major, dtype) for validation: N(0, 1) entries,
 * except that about one row in eight (never row 0) is a sparse probe row
 * holding one power of two (+-2^j, j in [-2, 2]) at a random column and
 * zeros elsewhere.
 */
cudaError_t harness_fill_activations(void *x, int dtype, int m, int k, uint64_t seed,
				     cudaStream_t stream);

/* bytes of random bits at p (never a constant pattern). */
cudaError_t harness_fill_random_bytes(void *p, size_t bytes, uint64_t seed,
				      cudaStream_t stream);

/* dst[i] = float(src[i]) for count bf16 values (exact). */
cudaError_t harness_bf16_to_fp32(const void *src, float *dst, size_t count,
				 cudaStream_t stream);

/* The router's hi/lo split of count fp32 weights into out: count bf16 hi
 * values, then count bf16 lo values (templates/hilo.cuh). */
cudaError_t harness_split_hilo(const float *w, void *out, size_t count, cudaStream_t stream);

/* W (bf16, n x k) transposed into out (k x n, RELAYOUT_TRANSPOSE). */
cudaError_t harness_transpose(const void *w, void *out, int n, int k, cudaStream_t stream);
/* W (bf16, n x k row-major) packed into rows x cols tiles, as
 * RELAYOUT_TILES lays them out (templates/pack.cuh); n % rows == 0,
 * k % cols == 0, cols a multiple of 8. */
cudaError_t harness_pack_tiles(const void *w, void *out, int n, int k, int rows, int cols,
			       cudaStream_t stream);

/* dst[i] = double(src[i]) for count values of dtype (exact): the FP64
 * copies of W and X that the DGEMM reference reads (reference.c). */
cudaError_t harness_to_double(const void *src, int dtype, double *dst, size_t count,
			      cudaStream_t stream);

/* dst[i] = src[i] rounded to nearest in dtype (tests plant outputs with it). */
cudaError_t harness_from_double(const double *src, void *dst, int dtype, size_t count,
				cudaStream_t stream);

/*
 * r[i*n + j] = sum over c of double(x[i*k + c]) * double(w[j*k + c]):
 * the FP64 reference of Y = X W^T over the exact inputs, one warp per
 * output: the naive kernel, which the GPU tests hold the worker's DGEMM
 * reference (reference.h) to. r holds m*n doubles.
 */
cudaError_t harness_reference(const void *w, int w_dtype, const void *x, int x_dtype,
			      double *r, int m, int n, int k, cudaStream_t stream);

/*
 * Per row i of y (m x n, dtype) against r: err2[i] = sum (y - r)^2 and
 * ref2[i] = sum r^2 over the finite elements, nonfinite[i] = how many
 * elements of the row are NaN or Inf. Writes every entry of the three
 * arrays (no zeroing needed).
 */
cudaError_t harness_row_errors(const void *y, int y_dtype, const double *r, int m, int n,
			       double *err2, double *ref2, unsigned *nonfinite,
			       cudaStream_t stream);

/* *count = the number of the bytes at p that differ from expect. */
cudaError_t harness_count_mismatch(const void *p, size_t bytes, unsigned char expect,
				   unsigned *count, cudaStream_t stream);

/*
 * Evict L2 by reading bytes at buf (16-byte loads that allocate in L2,
 * bytes a multiple of 16) on blocks blocks; one word may be written to
 * *sink so the read cannot be optimized away.
 */
cudaError_t harness_flush(const void *buf, size_t bytes, unsigned *sink, int blocks,
			  cudaStream_t stream);

/*
 * The practical streaming-read floor: read bytes at buf with 16-byte
 * ld.global.nc.L1::no_allocate loads, unroll (4 or 8) independent loads
 * in flight per thread, on blocks blocks of HARNESS_READ_THREADS threads.
 * buf must be 16-byte aligned; any byte count is read completely.
 */
#define HARNESS_READ_THREADS 256
cudaError_t harness_stream_read(const void *buf, size_t bytes, unsigned *sink, int blocks,
				int unroll, cudaStream_t stream);

/* One block of one thread doing nothing: the replay-overhead probe. */
cudaError_t harness_empty(cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif

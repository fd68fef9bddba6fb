/*
 * linear.c: the smallest complete use of libgemmtab. One projection of the
 * qkv family (Y = X * W^T, N = 2304, K = 8192, bf16, one token) on GPU 0,
 * checked against a CPU product in double precision, with the dispatch
 * entry it used.
 *
 * Build against an installed libgemmtab:
 *   cc -std=c11 -O2 -o linear linear.c $(pkg-config --cflags --libs gemmtab) -lm
 * Run: ./linear   (exit status 0 when the error is within docs/workload.md's bound)
 */
#include <gemmtab.h>

#include <cuda_runtime_api.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 2304
#define K 8192
#define M 1
/* docs/workload.md's relative L2 bound for bf16 outputs */
#define BOUND 1e-2

/* bf16 is the top half of a float: round to nearest even. */
static uint16_t to_bf16(float f)
{
	uint32_t u;
	memcpy(&u, &f, sizeof(u));
	u += 0x7fff + ((u >> 16) & 1);
	return (uint16_t)(u >> 16);
}

static double from_bf16(uint16_t h)
{
	uint32_t u = (uint32_t)h << 16;
	float f;
	memcpy(&f, &u, sizeof(f));
	return f;
}

/* A reproducible N(0, stddev^2) sample (xorshift and Box-Muller). */
static float normal(uint64_t *state, float stddev)
{
	double u[2];
	for (int i = 0; i < 2; i++) {
		*state ^= *state << 13;
		*state ^= *state >> 7;
		*state ^= *state << 17;
		u[i] = ((*state >> 11) + 0.5) / 9007199254740992.0;   /* (0, 1) */
	}
	return (float)(stddev * sqrt(-2.0 * log(u[0])) * cos(6.283185307179586 * u[1]));
}

int main(void)
{
	uint16_t *w = malloc(sizeof(*w) * N * K), *x = malloc(sizeof(*x) * M * K);
	uint16_t *y = malloc(sizeof(*y) * M * N);
	void *dw = NULL, *dx = NULL, *dy = NULL;
	gt_context *ctx = NULL;
	gt_weight *wt = NULL;
	char line[1024];
	int rc = 1, st;
	uint64_t seed = 0x9e3779b97f4a7c15ULL;

	if (!w || !x || !y) {
		fprintf(stderr, "linear: out of memory\n");
		goto cleanup;
	}
	for (size_t i = 0; i < (size_t)N * K; i++)
		w[i] = to_bf16(normal(&seed, 0.02f));
	for (size_t i = 0; i < (size_t)M * K; i++)
		x[i] = to_bf16(normal(&seed, 1.0f));

	if ((st = gt_context_create(0, &ctx)) != GT_OK) {
		fprintf(stderr, "linear: gt_context_create: %s\n", gt_status_string(st));
		goto cleanup;
	}
	if (cudaMalloc(&dw, sizeof(*w) * N * K) != cudaSuccess ||
	    cudaMalloc(&dx, sizeof(*x) * M * K) != cudaSuccess ||
	    cudaMalloc(&dy, sizeof(*y) * M * N) != cudaSuccess ||
	    cudaMemcpy(dw, w, sizeof(*w) * N * K, cudaMemcpyHostToDevice) != cudaSuccess ||
	    cudaMemcpy(dx, x, sizeof(*x) * M * K, cudaMemcpyHostToDevice) != cudaSuccess) {
		fprintf(stderr, "linear: cuda: %s\n", cudaGetErrorString(cudaGetLastError()));
		goto cleanup;
	}

	/* once per weight: finds its table entries, allocates what gt_linear needs */
	if ((st = gt_weight_prepare(ctx, dw, N, K, GT_BF16, GT_BF16, GT_BF16, &wt)) != GT_OK) {
		fprintf(stderr, "linear: gt_weight_prepare: %s\n", gt_status_string(st));
		goto cleanup;
	}
	/* per call: no allocation, no synchronization (NULL: the default stream) */
	if ((st = gt_linear(wt, dx, M, dy, NULL)) != GT_OK) {
		fprintf(stderr, "linear: gt_linear: %s\n", gt_status_string(st));
		goto cleanup;
	}
	if (cudaMemcpy(y, dy, sizeof(*y) * M * N, cudaMemcpyDeviceToHost) != cudaSuccess) {
		fprintf(stderr, "linear: cuda: %s\n", cudaGetErrorString(cudaGetLastError()));
		goto cleanup;
	}

	double err2 = 0, ref2 = 0;
	for (int i = 0; i < M; i++)
		for (int j = 0; j < N; j++) {
			double r = 0;
			for (int c = 0; c < K; c++)
				r += from_bf16(x[(size_t)i * K + c]) * from_bf16(w[(size_t)j * K + c]);
			double d = from_bf16(y[(size_t)i * N + j]) - r;
			err2 += d * d;
			ref2 += r * r;
		}
	double rel = sqrt(err2 / ref2);
	gt_weight_explain(wt, M, line, sizeof(line));
	printf("table: %s\n", gt_table_description());
	printf("dispatch: %s\n", line);
	printf("qkv m=%d: relative L2 error %.3e (bound %.0e): %s\n", M, rel, BOUND,
	       rel <= BOUND ? "ok" : "FAILED");
	rc = rel <= BOUND ? 0 : 1;

cleanup:
	gt_weight_destroy(wt);
	gt_context_destroy(ctx);
	cudaFree(dw);
	cudaFree(dx);
	cudaFree(dy);
	free(w);
	free(x);
	free(y);
	return rc;
}

/*
 * weight.c: preparing a weight: its arguments checked, the table entries
 * of its (N, K, dtypes) found and checked against the table's tuning
 * environment, the weight pointer and the device (each kernel's attributes
 * and shared-memory limit set here, so gt_linear only launches, even under
 * capture), the prepared weights its routes read, and everything
 * gt_linear will need allocated once: the routes' workspace, the cuBLAS
 * handle and its workspace. Also the handle's teardown and its explain.
 */
#include "rt.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Dynamic shared memory a kernel may use without opting in. */
#define RT_SMEM_DEFAULT_LIMIT (48 << 10)

static int dtype_ok(gt_dtype t)
{
	return t == GT_BF16 || t == GT_FP32;
}

/* (bf16, bf16, bf16) and (fp32, bf16, fp32): the combinations the
 * baseline serves (tuner/worker/baseline.c) and the workload names. */
static int combo_supported(gt_dtype w, gt_dtype x, gt_dtype y)
{
	return x == GT_BF16 && w == y;
}

/* r->note: whether a cluster kernel of r's plan at its largest m (plan)
 * launches more clusters than this device holds at once. Call with the
 * weight's device current and the kernels' attributes set; a failing
 * occupancy query leaves no note (it only informs). */
static void note_cluster_waves(struct rt_route *r, const struct launch_plan *plan,
			       const struct cudaFuncAttributes *attr, const void *const *kernels)
{
	for (int i = 0; i < plan->nsteps && !r->note[0]; i++) {
		const struct launch_step *st = &plan->steps[i];
		if (st->kind != STEP_KERNEL)
			continue;
		const struct cudaFuncAttributes *a = &attr[st->kernel];
		const int size = a->requiredClusterWidth * a->requiredClusterHeight *
				 a->requiredClusterDepth;
		if (size <= 1)
			continue;
		cudaLaunchConfig_t cfg = { 0 };
		cfg.gridDim = (dim3){ st->grid[0], st->grid[1], st->grid[2] };
		cfg.blockDim = (dim3){ st->block[0], st->block[1], st->block[2] };
		cfg.dynamicSmemBytes = st->smem;
		int fit = 0;
		if (cudaOccupancyMaxActiveClusters(&fit, kernels[r->e->kernel[st->kernel]],
						   &cfg) != cudaSuccess) {
			(void)cudaGetLastError();       /* not sticky: clear it */
			continue;
		}
		const long blocks = (long)st->grid[0] * st->grid[1] * st->grid[2];
		rt_cluster_note(blocks / size, size, fit, r->e->m_hi, r->note, sizeof(r->note));
	}
}

/* Check what the device says about one usable route's kernels and plan:
 * every kernel loads, blocks fit, shared memory fits (opting in above the
 * default limit). A route that fails is disabled, not an error; only a
 * failing attribute update is. Returns a gt_status. */
static int route_on_device(const gt_context *ctx, const struct shape *s, struct rt_route *r)
{
	const struct gt_table_entry *e = r->e;
	struct cudaFuncAttributes attr[GT_TABLE_MAX_KERNELS];
	unsigned dyn[GT_TABLE_MAX_KERNELS] = { 0 };
	for (int i = 0; i < e->nkernels; i++) {
		cudaError_t err = cudaFuncGetAttributes(&attr[i], ctx->kernels[e->kernel[i]]);
		if (err != cudaSuccess) {
			(void)cudaGetLastError();       /* not sticky: clear it */
			rt_route_disable(r, "kernel %d does not load on this device: %s",
					 e->kernel[i], cudaGetErrorString(err));
			return GT_OK;
		}
	}
	/* gemv's blocks and shared memory do not depend on m; a template
	 * whose do would still be checked at both ends of the range */
	const int ms[2] = { e->m_lo, e->m_hi };
	struct launch_plan plan;        /* left at m_hi: the most token tiles */
	for (int j = 0; j < 2; j++) {
		if (rt_plan(r, s, ms[j], ctx->nkernels, SIZE_MAX, &plan)) {
			rt_route_disable(r, "no well-formed launch plan at m=%d", ms[j]);
			return GT_OK;
		}
		for (int i = 0; i < plan.nsteps; i++) {
			const struct launch_step *st = &plan.steps[i];
			if (st->kind != STEP_KERNEL)
				continue;
			const struct cudaFuncAttributes *a = &attr[st->kernel];
			long long threads = (long long)st->block[0] * st->block[1] * st->block[2];
			if (threads > a->maxThreadsPerBlock) {
				rt_route_disable(r, "a block of %lld threads exceeds kernel %d's "
						 "limit of %d", threads, e->kernel[st->kernel],
						 a->maxThreadsPerBlock);
				return GT_OK;
			}
			if (a->sharedSizeBytes + st->smem > ctx->smem_optin) {
				rt_route_disable(r, "needs %zu bytes of shared memory, the device "
						 "allows %zu", a->sharedSizeBytes + st->smem,
						 ctx->smem_optin);
				return GT_OK;
			}
			if (st->smem > dyn[st->kernel])
				dyn[st->kernel] = st->smem;
		}
	}
	for (int i = 0; i < e->nkernels; i++) {
		const cudaKernel_t kernel = (cudaKernel_t)ctx->kernels[e->kernel[i]];
		/* a compiled-in cluster of more than 8 blocks (the router's
		 * hi/lo cluster at split 16) launches only with this allowed */
		int status = GT_OK;
		if ((long)attr[i].requiredClusterWidth * attr[i].requiredClusterHeight *
			    attr[i].requiredClusterDepth > 8)
			status = rt_cuda_status(cudaKernelSetAttributeForDevice(
				kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1,
				ctx->device));
		if (status != GT_OK)
			return status;
		if (attr[i].sharedSizeBytes + dyn[i] <= RT_SMEM_DEFAULT_LIMIT)
			continue;
		status = rt_cuda_status(cudaKernelSetAttributeForDevice(
			kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)dyn[i], ctx->device));
		if (status != GT_OK)
			return status;
	}
	note_cluster_waves(r, &plan, attr, ctx->kernels);
	return GT_OK;
}

/* The prepared weights the usable routes read (the router's hi/lo split,
 * W packed in tiles): each made once here on stream, shared by the routes
 * that read the same one, so gt_linear only reads them. Returns a
 * gt_status. */
static int prepare_relayouts(gt_weight *wt, cudaStream_t stream)
{
	int made = 0;   /* a re-layout ran (after the device was waited for) */
	for (int i = 0; i < wt->nroutes; i++) {
		struct rt_route *r = &wt->routes[i];
		size_t bytes = r->usable ? relayout_bytes(&r->relayout, &wt->shape) : 0;
		if (!bytes)
			continue;
		for (int j = 0; j < i && !r->prep; j++)
			if (wt->routes[j].prep && relayout_same(&wt->routes[j].relayout, &r->relayout))
				r->prep = wt->routes[j].prep;
		if (r->prep)
			continue;
		/* w_dev may still be filling on another stream, which the legacy
		 * stream does not wait for (the runtime's GPU test fills W on a
		 * non-blocking stream; without this wait its tiled copy is partly
		 * stale) */
		int status = made ? GT_OK : rt_cuda_status(cudaDeviceSynchronize());
		if (status == GT_OK)
			status = rt_cuda_status(cudaMalloc(&r->prep, bytes));
		if (status != GT_OK)
			return status;
		r->owns_prep = 1;
		/* the templates' checks demand fp32 w for hi/lo and bf16 w otherwise */
		if (r->relayout.kind == RELAYOUT_HILO)
			status = rt_cuda_status(rt_split_hilo(wt->w, r->prep,
							      (size_t)wt->shape.n * wt->shape.k, stream));
		else if (r->relayout.kind == RELAYOUT_TRANSPOSE)
			status = rt_cuda_status(rt_transpose(wt->w, r->prep, wt->shape.n,
							     wt->shape.k, stream));
		else
			status = rt_cuda_status(rt_pack_tiles(wt->w, r->prep, wt->shape.n,
							      wt->shape.k, r->relayout.rows,
							      r->relayout.cols, stream));
		made = 1;
		if (status != GT_OK)
			return status;
	}
	/* done before prepare returns */
	return made ? rt_cuda_status(cudaStreamSynchronize(stream)) : GT_OK;
}

/* cudaFree(p) when p is set, keeping the first failure in *status. */
static void free_keep_first(void *p, int *status)
{
	int st = p ? rt_cuda_status(cudaFree(p)) : GT_OK;
	if (*status == GT_OK)
		*status = st;
}

/* Free everything a (possibly half-built) weight holds, on its device:
 * every allocation is attempted, a failure does not leak the rest;
 * returns the first failure's status. */
static int weight_free(gt_weight *wt)
{
	int status = GT_OK, saved = 0;
	int entered = rt_device_enter(wt->device, &saved) == GT_OK;
	rt_blas_free(wt);
	rt_untuned_close(wt->rec);
	free_keep_first(wt->ws, &status);
	free_keep_first(wt->sync, &status);
	for (int i = 0; i < wt->nroutes; i++)
		if (wt->routes[i].owns_prep)
			free_keep_first(wt->routes[i].prep, &status);
	if (entered && rt_device_leave(saved) != GT_OK && status == GT_OK)
		status = GT_ERR_CUDA;
	free(wt->routes);
	free(wt);
	return status;
}

/* Routes, device checks and allocations of a weight whose fields are set;
 * runs on the weight's device. Returns a gt_status. */
static int weight_build(const gt_context *ctx, gt_weight *wt, cudaStream_t stream)
{
	size_t ws = 0, sync = 0;
	int n = 0;
	wt->kernels = ctx->kernels;
	wt->nkernels = ctx->nkernels;
	if (ctx->tc && (n = rt_routes_collect(ctx->tc->table, &wt->shape, ctx->nkernels,
					      &wt->routes)) < 0)
		return GT_ERR_NO_MEMORY;
	wt->nroutes = n;
	for (int i = 0; i < n; i++) {
		struct rt_route *r = &wt->routes[i];
		rt_route_env_check(r, ctx->tc->table, &ctx->env);
		if ((uintptr_t)wt->w % RT_VECTOR_ALIGN)
			rt_route_disable(r, "w is not %d-byte aligned", RT_VECTOR_ALIGN);
		if (!r->usable)
			continue;
		int status = route_on_device(ctx, &wt->shape, r);
		if (status != GT_OK)
			return status;
		/* the workspace of the routes that survived, over every M */
		if (r->usable && r->ws_bytes > ws)
			ws = r->ws_bytes;
		if (r->usable && r->sync_bytes > sync)
			sync = r->sync_bytes;
	}
	if (ws) {
		int status = rt_cuda_status(cudaMalloc(&wt->ws, ws));
		if (status != GT_OK)
			return status;
		wt->ws_bytes = ws;
	}
	if (sync) {
		/* counters a call leaves at 0: zeroed once, here, and done
		 * before any stream (a non-blocking one too) can call */
		int status = rt_cuda_status(cudaMalloc((void **)&wt->sync, sync));
		if (status == GT_OK)
			status = rt_cuda_status(cudaMemsetAsync(wt->sync, 0, sync, stream));
		if (status == GT_OK)
			status = rt_cuda_status(cudaStreamSynchronize(stream));
		if (status != GT_OK)
			return status;
		wt->sync_bytes = sync;
	}
	int status = prepare_relayouts(wt, stream);
	if (status == GT_OK)
		status = rt_blas_init(wt);
	return status != GT_OK ? status : rt_lt_check(wt);
}

/* Why the weight's entries are off, for its untuned-shape records. */
static void note_off(gt_weight *wt)
{
	char text[RT_WHY_MAX + 64];
	if (!wt->rec)
		return;
	if (wt->no_table[0])
		rt_untuned_note_off(wt->rec, wt->no_table);
	for (int i = 0; i < wt->nroutes; i++) {
		const struct rt_route *r = &wt->routes[i];
		if (r->usable)
			continue;
		snprintf(text, sizeof(text), "entry %d (%s, m %d-%d): %s", r->index,
			 r->e->tmpl ? r->e->tmpl : "(null)", r->e->m_lo, r->e->m_hi, r->why);
		rt_untuned_note_off(wt->rec, text);
	}
}

int gt_weight_prepare(gt_context *ctx, const void *w_dev, int n, int k, gt_dtype w,
		      gt_dtype x, gt_dtype y, gt_weight **out)
{
	return gt_weight_prepare_on(ctx, w_dev, n, k, w, x, y, NULL, out);
}

int gt_weight_prepare_on(gt_context *ctx, const void *w_dev, int n, int k, gt_dtype w,
			 gt_dtype x, gt_dtype y, void *stream, gt_weight **out)
{
	if (!ctx || !w_dev || !out || n <= 0 || k <= 0)
		return GT_ERR_INVALID;
	if (!dtype_ok(w) || !dtype_ok(x) || !dtype_ok(y))
		return GT_ERR_INVALID;
	if (!combo_supported(w, x, y))
		return GT_ERR_UNSUPPORTED;
	if ((uintptr_t)w_dev % (w == GT_FP32 ? 4 : 2))
		return GT_ERR_MISALIGNED;

	gt_weight *wt = calloc(1, sizeof(*wt));
	if (!wt)
		return GT_ERR_NO_MEMORY;
	wt->device = ctx->device;
	wt->w = w_dev;
	if (!ctx->tc)
		snprintf(wt->no_table, sizeof(wt->no_table), "%s", ctx->no_table);
	rt_shape_init(&wt->shape, n, k, w, x, y);

	int saved = 0;
	int status = rt_device_enter(ctx->device, &saved);
	if (status != GT_OK) {
		free(wt);
		return status;
	}
	status = weight_build(ctx, wt, (cudaStream_t)stream);
	int left = rt_device_leave(saved);
	if (status == GT_OK)
		status = left;
	if (status != GT_OK) {
		(void)weight_free(wt);
		return status;
	}
	wt->rec = rt_untuned_open(&wt->shape);     /* NULL unless recording */
	note_off(wt);
	*out = wt;
	return GT_OK;
}

int gt_weight_destroy(gt_weight *wt)
{
	return wt ? weight_free(wt) : GT_OK;
}

int gt_weight_device_bytes(const gt_weight *wt, size_t *bytes)
{
	if (!wt || !bytes)
		return GT_ERR_INVALID;
	size_t sum = wt->ws_bytes + wt->sync_bytes;
	for (int i = 0; i < wt->nroutes; i++)
		if (wt->routes[i].owns_prep)
			sum += relayout_bytes(&wt->routes[i].relayout, &wt->shape);
	if (wt->blas_ws)
		sum += RT_BLAS_WS_BYTES;
	if (wt->x32)
		sum += (size_t)RT_X32_CHUNK_ROWS * (size_t)wt->shape.k * sizeof(float);
	*bytes = sum;
	return GT_OK;
}

int gt_weight_explain(const gt_weight *wt, int m, char *buf, size_t len)
{
	if (buf && len)
		buf[0] = '\0';
	if (!wt || !buf || !len || m <= 0)
		return GT_ERR_INVALID;
	if (wt->no_table[0]) {
		snprintf(buf, len, "m=%d: baseline: %s", m, wt->no_table);
		return GT_OK;
	}
	const struct rt_route *r = rt_route_find(wt->routes, wt->nroutes, m);
	int live = r && r->usable;
	rt_explain(&wt->shape, r, m, live ? wt->misaligned_calls : 0, live ? wt->refused_calls : 0,
		   buf, len);
	return GT_OK;
}

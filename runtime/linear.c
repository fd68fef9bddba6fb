/*
 * linear.c: gt_linear, the call an engine makes per projection: check the
 * arguments (before any CUDA call), pick the route for m, and either
 * launch its template's plan (tmpl.h: the same launch sequence the tuner
 * timed, kernels compiled in from the same source) or run the baseline.
 * Allocates nothing and never synchronizes, so it can be captured.
 */
#include "rt.h"

#include <stdint.h>

/* Launch one kernel step of an entry's plan. Parameter values are copied
 * by cudaLaunchKernel, so they may live on this stack frame. */
static cudaError_t launch_step(const struct gt_weight *wt, const struct rt_route *r,
			       const struct launch_step *st, const void *x, void *y, int m,
			       cudaStream_t stream)
{
	void *ptr[PLAN_MAX_ARGS];
	int val[PLAN_MAX_ARGS];
	void *params[PLAN_MAX_ARGS];
	const struct step_operands o = {
		.w = wt->w, .prep = r->prep, .x = x, .y = y, .ws = wt->ws, .sync = wt->sync,
		.m = m, .n = wt->shape.n, .k = wt->shape.k,
	};
	if (plan_step_params(st, &o, ptr, val, params))
		return cudaErrorInvalidValue;       /* prepare made every re-layout */
	const dim3 grid = { st->grid[0], st->grid[1], st->grid[2] };
	const dim3 block = { st->block[0], st->block[1], st->block[2] };
	const void *fn = wt->kernels[r->e->kernel[st->kernel]];
	if (!st->pdl)
		return cudaLaunchKernel(fn, grid, block, params, st->smem, stream);
	/* programmatic dependent launch (tmpl.h, struct launch_step) */
	cudaLaunchAttribute attr;
	attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
	attr.val.programmaticStreamSerializationAllowed = 1;
	cudaLaunchConfig_t cfg = { 0 };
	cfg.gridDim = grid;
	cfg.blockDim = block;
	cfg.dynamicSmemBytes = st->smem;
	cfg.stream = stream;
	cfg.attrs = &attr;
	cfg.numAttrs = 1;
	return cudaLaunchKernelExC(&cfg, fn, params);
}

/* Enqueue a checked plan's steps in order; stops at the first failure. */
static int run_plan(const struct gt_weight *wt, const struct rt_route *r,
		    const struct launch_plan *plan, const void *x, void *y, int m,
		    cudaStream_t stream)
{
	int blas_on_stream = 0;
	for (int i = 0; i < plan->nsteps; i++) {
		const struct launch_step *st = &plan->steps[i];
		cudaError_t e;
		if (st->kind == STEP_GEMM_BF16) {
			/* the handle is pointed at stream once, before the first GEMM */
			int status = blas_on_stream ? GT_OK
					 : rt_blas_use_stream((struct gt_weight *)wt, stream);
			blas_on_stream = 1;
			if (status == GT_OK)
				status = rt_blas_gemm_bf16((struct gt_weight *)wt, r, st, x, m, y);
			if (status != GT_OK)
				return status;
			continue;
		}
		if (st->kind == STEP_LT) {
			/* a plan of one cuBLASLt step: should the library refuse it
			 * at this m (prepare checked the ends of the range), the
			 * baseline writes all of y instead */
			int status = rt_lt_run((struct gt_weight *)wt, r, st, x, m, y, stream);
			if (status == GT_OK)
				continue;
			((struct gt_weight *)wt)->refused_calls++;
			rt_untuned_count(wt->rec, RT_WHY_REFUSED, m);
			return rt_blas_run((struct gt_weight *)wt, x, m, y, stream);
		}
		if (st->kind == STEP_KERNEL)
			e = launch_step(wt, r, st, x, y, m, stream);
		else if (!st->bytes)
			continue;
		else
			e = cudaMemsetAsync(st->kind == STEP_MEMSET_Y ? y : wt->ws, 0, st->bytes,
					    stream);
		if (e == cudaSuccess)
			e = cudaGetLastError();
		if (e != cudaSuccess)
			return rt_cuda_status(e);
	}
	return GT_OK;
}

int gt_linear(gt_weight *wt, const void *x_dev, int m, void *y_dev, void *stream)
{
	if (!wt || !x_dev || !y_dev || m <= 0)
		return GT_ERR_INVALID;
	if ((uintptr_t)x_dev % dtype_size(wt->shape.x) ||
	    (uintptr_t)y_dev % dtype_size(wt->shape.y))
		return GT_ERR_MISALIGNED;

	struct launch_plan plan;
	const struct rt_route *r = rt_route_find(wt->routes, wt->nroutes, m);
	int routed = r && r->usable;
	if (wt->rec && !routed)
		rt_untuned_count(wt->rec, r ? RT_WHY_UNUSABLE : RT_WHY_NO_ENTRY, m);
	if (routed && ((uintptr_t)x_dev % RT_VECTOR_ALIGN || (uintptr_t)y_dev % RT_VECTOR_ALIGN)) {
		routed = 0;
		wt->misaligned_calls++;
		rt_untuned_count(wt->rec, RT_WHY_MISALIGNED, m);
	}
	/* prepare checked every M of the range; this only guards the launcher */
	if (routed && (rt_plan(r, &wt->shape, m, wt->nkernels, wt->ws_bytes, &plan) ||
		       plan.sync_bytes > wt->sync_bytes))
		routed = 0;

	int saved = 0;
	int status = rt_device_enter(wt->device, &saved);
	if (status != GT_OK)
		return status;
	if (routed)
		status = run_plan(wt, r, &plan, x_dev, y_dev, m, (cudaStream_t)stream);
	else
		status = rt_blas_run(wt, x_dev, m, y_dev, (cudaStream_t)stream);
	int left = rt_device_leave(saved);
	return status != GT_OK ? status : left;
}

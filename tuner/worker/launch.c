/*
 * launch.c: a candidate on the device: its kernels loaded from cubins
 * through the driver API (modules cached by path, least recently used
 * evicted), its launch plan checked against the kernels and the device
 * (static limits prune it, a malformed plan is an error), and the plan
 * captured into a CUDA graph over given buffers.
 */
#include "gpu.h"
#include "launch.h"
#include "drv.h"
#include "lt.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Modules kept loaded; the supervisor sends a batch's candidates in a row,
 * so a small cache hits almost always and bounds device memory. */
#define MODULE_CACHE_MAX 32

struct module_entry {
	char *path;
	CUmodule mod;
	unsigned long used;
};

void gpu_modules_free(struct gpu *g)
{
	for (int i = 0; i < g->nmodules; i++) {
		(void)CU_CHECK(drv.ModuleUnload(g->modules[i].mod));
		free(g->modules[i].path);
	}
	free(g->modules);
	g->modules = NULL;
	g->nmodules = 0;
}

/* The loaded module of a cubin path, loading it (and evicting the least
 * recently used module when the cache is full) if needed. Safe between
 * evals: no live graph references a candidate's module then. */
static int module_get(struct gpu *g, const char *path, CUmodule *out)
{
	int slot = -1;
	for (int i = 0; i < g->nmodules; i++)
		if (!strcmp(g->modules[i].path, path)) {
			g->modules[i].used = ++g->use_clock;
			*out = g->modules[i].mod;
			return 0;
		}

	size_t len;
	if (!g->modules)
		g->modules = xcalloc(MODULE_CACHE_MAX, sizeof(*g->modules));
	char *image = read_file(path, &len);
	if (!image)
		return gpu_fail("cannot read cubin %s: %s", path, strerror(errno));
	CUmodule mod = NULL;
	int rc = CU_CHECK(drv.ModuleLoadData(&mod, image));
	free(image);
	if (rc)
		return -1;

	if (g->nmodules < MODULE_CACHE_MAX) {
		slot = g->nmodules++;
	} else {
		slot = 0;
		for (int i = 1; i < g->nmodules; i++)
			if (g->modules[i].used < g->modules[slot].used)
				slot = i;
		(void)CU_CHECK(drv.ModuleUnload(g->modules[slot].mod));
		free(g->modules[slot].path);
	}
	g->modules[slot].path = xstrdup(path);
	g->modules[slot].mod = mod;
	g->modules[slot].used = ++g->use_clock;
	*out = mod;
	return 0;
}

int gpu_load_kernel(struct gpu *g, const char *cubin, const char *name,
		    struct kernel_info *out)
{
	CUmodule mod = NULL;
	memset(out, 0, sizeof(*out));
	if (module_get(g, cubin, &mod) ||
	    CU_CHECK(drv.ModuleGetFunction(&out->fn, mod, name)) ||
	    CU_CHECK(drv.FuncGetAttribute(&out->regs, CU_FUNC_ATTRIBUTE_NUM_REGS, out->fn)) ||
	    CU_CHECK(drv.FuncGetAttribute(&out->local_bytes, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES,
					out->fn)) ||
	    CU_CHECK(drv.FuncGetAttribute(&out->static_smem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
					out->fn)) ||
	    CU_CHECK(drv.FuncGetAttribute(&out->max_threads,
					CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, out->fn)))
		return -1;
	out->cluster = 1;
	static const CUfunction_attribute dims[] = { CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH,
						    CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT,
						    CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH };
	for (size_t i = 0; i < ARRAY_SIZE(dims); i++) {
		int d;
		if (CU_CHECK(drv.FuncGetAttribute(&d, dims[i], out->fn)))
			return -1;
		if (d > 0)
			out->cluster *= d;
	}
	/* count the parameters: the query fails (by design) one past the last */
	for (;;) {
		size_t offset, size;
		CUresult e = drv.FuncGetParamInfo(out->fn, (size_t)out->nparams, &offset, &size);
		if (e == CUDA_ERROR_INVALID_VALUE)
			break;
		if (CU_CHECK(e))
			return -1;
		if (out->nparams == PLAN_MAX_ARGS)
			return gpu_fail("kernel %s takes more than %d parameters", name,
					PLAN_MAX_ARGS);
		out->param_size[out->nparams++] = size;
	}
	return 0;
}

/* Size in bytes of the kernel parameter an argument kind becomes. */
static size_t arg_size(enum arg_kind kind)
{
	switch (kind) {
	case ARG_W: case ARG_PREP: case ARG_X: case ARG_Y: case ARG_WS: case ARG_SYNC:
		return sizeof(void *);
	case ARG_M: case ARG_N: case ARG_K: case ARG_INT:
		return sizeof(int);
	}
	return 0;
}

/* Structural checks of one kernel step; -1 (recorded) when malformed. */
static int check_kernel_step(const struct kernel_info *k, int nk, const struct launch_step *s,
			     int i)
{
	if (s->kernel < 0 || s->kernel >= nk)
		return gpu_fail("plan step %d names kernel %d of %d", i, s->kernel, nk);
	for (int d = 0; d < 3; d++)
		if (!s->grid[d] || !s->block[d])
			return gpu_fail("plan step %d has an empty grid or block", i);
	const struct kernel_info *ki = &k[s->kernel];
	if (s->nargs != ki->nparams)
		return gpu_fail("plan step %d passes %d arguments; the kernel takes %d", i,
				s->nargs, ki->nparams);
	for (int a = 0; a < s->nargs; a++) {
		size_t want = arg_size(s->args[a].kind);
		if (!want || want != ki->param_size[a])
			return gpu_fail("plan step %d argument %d: kind %d does not fit a "
					"%zu-byte parameter", i, a, (int)s->args[a].kind,
					ki->param_size[a]);
		if (s->args[a].kind == ARG_INT &&
		    (s->args[a].value < -2147483647L - 1 || s->args[a].value > 2147483647L))
			return gpu_fail("plan step %d argument %d: %ld does not fit an int", i, a,
					s->args[a].value);
	}
	return 0;
}

/* Default dynamic shared memory a kernel may use without opting in. */
#define SMEM_DEFAULT_LIMIT (48 << 10)

int plan_prepare(struct gpu *g, const struct kernel_info *k, int nk,
		 const struct launch_plan *p, int *smem, char *reason, size_t len)
{
	unsigned dyn[TMPL_MAX_KERNELS] = { 0 };
	*smem = 0;
	if (nk < 0 || nk > TMPL_MAX_KERNELS)
		return gpu_fail("%d kernels (0 to %d allowed)", nk, TMPL_MAX_KERNELS);
	for (int i = 0; i < nk; i++)
		if (k[i].local_bytes > 0) {
			snprintf(reason, len, "kernel %d uses %d bytes of local memory "
				 "(spills or stack)", i, k[i].local_bytes);
			return 1;
		}
	if (p->nsteps < 1 || p->nsteps > PLAN_MAX_STEPS)
		return gpu_fail("plan has %d steps (1 to %d allowed)", p->nsteps, PLAN_MAX_STEPS);
	int bad = plan_pdl_misplaced(p);
	if (bad >= 0)
		return gpu_fail("plan step %d asks for a programmatic launch but does not follow "
				"a kernel step", bad);
	for (int i = 0; i < p->nsteps; i++) {
		const struct launch_step *s = &p->steps[i];
		if (s->kind == STEP_MEMSET_Y || s->kind == STEP_MEMSET_WS) {
			if (s->kind == STEP_MEMSET_WS && s->bytes > p->ws_bytes)
				return gpu_fail("plan step %d zeroes %zu bytes of a %zu-byte "
						"workspace", i, s->bytes, p->ws_bytes);
			continue;
		}
		if (s->kind == STEP_GEMM_BF16 || s->kind == STEP_LT)
			continue;       /* checked where they are enqueued (gemm_step, lt_step) */
		if (s->kind != STEP_KERNEL)
			return gpu_fail("plan step %d has unknown kind %d", i, (int)s->kind);
		if (check_kernel_step(k, nk, s, i))
			return -1;
		const struct kernel_info *ki = &k[s->kernel];
		long long threads = (long long)s->block[0] * s->block[1] * s->block[2];
		if (threads > ki->max_threads) {
			snprintf(reason, len, "block of %lld threads exceeds kernel %d's limit "
				 "of %d", threads, s->kernel, ki->max_threads);
			return 1;
		}
		size_t total = (size_t)ki->static_smem + s->smem;
		if (total > g->smem_optin) {
			snprintf(reason, len, "shared memory %d + %u bytes exceeds the opt-in "
				 "limit of %zu", ki->static_smem, s->smem, g->smem_optin);
			return 1;
		}
		if ((int)total > *smem)
			*smem = (int)total;
		if (s->smem > dyn[s->kernel])
			dyn[s->kernel] = s->smem;
	}
	for (int i = 0; i < nk; i++) {
		if ((size_t)k[i].static_smem + dyn[i] > SMEM_DEFAULT_LIMIT &&
		    CU_CHECK(drv.FuncSetAttribute(k[i].fn,
						CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
						(int)dyn[i])))
			return -1;
		/* a compiled-in cluster of more than 8 blocks (mma_hilo's
		 * cluster at split 16) launches only with this allowed; it
		 * changes nothing for any other kernel (the library sets it
		 * only where a kernel's compiled-in cluster needs it) */
		if (CU_CHECK(drv.FuncSetAttribute(k[i].fn,
						CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1)))
			return -1;
	}
	return 0;
}

int plan_waves(const struct gpu *g, const struct kernel_info *k, const struct launch_plan *p)
{
	int most = 0;
	for (int i = 0; i < p->nsteps; i++) {
		const struct launch_step *s = &p->steps[i];
		if (s->kind != STEP_KERNEL)
			continue;
		const struct kernel_info *ki = &k[s->kernel];
		const long long blocks = (long long)s->grid[0] * s->grid[1] * s->grid[2];
		const int threads = (int)(s->block[0] * s->block[1] * s->block[2]);
		long long units = blocks, held;
		int fit = 0;
		if (ki->cluster > 1) {
			/* the cluster shape is compiled in: the config names none */
			CUlaunchConfig cfg = {
				.gridDimX = s->grid[0], .gridDimY = s->grid[1], .gridDimZ = s->grid[2],
				.blockDimX = s->block[0], .blockDimY = s->block[1],
				.blockDimZ = s->block[2], .sharedMemBytes = s->smem,
			};
			if (drv.OccupancyMaxActiveClusters(&fit, ki->fn, &cfg) != CUDA_SUCCESS)
				return -1;
			units = blocks / ki->cluster;
			held = fit;
		} else {
			if (drv.OccupancyMaxActiveBlocks(&fit, ki->fn, threads, s->smem) !=
			    CUDA_SUCCESS)
				return -1;
			held = (long long)fit * g->sm_count;
		}
		if (held < 1)
			return -1;
		const long long waves = (units + held - 1) / held;
		if (waves > most)
			most = waves > INT_MAX ? INT_MAX : (int)waves;
	}
	return most;
}

/* Enqueue one kernel step on the capturing stream. Parameter values are
 * copied by cuLaunchKernel, so they may live on this stack frame. */
static int launch_step(struct gpu *g, const struct kernel_info *k, const struct launch_step *s,
		       const struct plan_args *a)
{
	void *ptr[PLAN_MAX_ARGS];
	int val[PLAN_MAX_ARGS];
	void *params[PLAN_MAX_ARGS];
	if (plan_step_params(s, &a->op, ptr, val, params))
		return gpu_fail("plan step: a kernel takes the prepared weight and there is none");
	if (!s->pdl)
		return CU_CHECK(drv.LaunchKernel(k[s->kernel].fn, s->grid[0], s->grid[1],
					       s->grid[2], s->block[0], s->block[1], s->block[2],
					       s->smem, (CUstream)g->stream, params, NULL));
	CUlaunchAttribute attr = { .id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION };
	attr.value.programmaticStreamSerializationAllowed = 1;
	CUlaunchConfig cfg = {
		.gridDimX = s->grid[0], .gridDimY = s->grid[1], .gridDimZ = s->grid[2],
		.blockDimX = s->block[0], .blockDimY = s->block[1], .blockDimZ = s->block[2],
		.sharedMemBytes = s->smem, .hStream = (CUstream)g->stream,
		.attrs = &attr, .numAttrs = 1,
	};
	return CU_CHECK(drv.LaunchKernelEx(&cfg, k[s->kernel].fn, params, NULL));
}

/* Enqueue one cuBLAS step: Y (+)= X * P^T with P the bf16 N x K matrix at
 * s->w_offset of the prepared weight, FP32 compute and output. */
static int gemm_step(struct gpu *g, const struct launch_step *s, const struct plan_args *a,
		     int i)
{
	const float one = 1.0f, beta = s->beta ? 1.0f : 0.0f;
	const struct step_operands *o = &a->op;
	if (!o->prep || !plan_gemm_fits(s, o->n, o->k, a->prep_bytes))
		return gpu_fail("plan step %d reads past the %zu-byte prepared weight", i,
				a->prep_bytes);
	const unsigned short *p = (const unsigned short *)o->prep + s->w_offset;
	return CUBLAS_CHECK(cublasGemmEx(g->blas, CUBLAS_OP_T, CUBLAS_OP_N, o->n, o->m, o->k,
					 &one, p, CUDA_R_16BF, o->k, o->x, CUDA_R_16BF, o->k,
					 &beta, o->y, CUDA_R_32F, o->n, CUBLAS_COMPUTE_32F,
					 CUBLAS_GEMM_DEFAULT));
}

/* Enqueue one cuBLASLt step: the algorithm its attributes name, checked
 * (cublasLtMatmulAlgoCheck) at this m against the plan's workspace. */
static int lt_step(struct gpu *g, const struct launch_step *s, const struct plan_args *a, int i)
{
	const struct step_operands *o = &a->op;
	struct lt_call c;
	if (CUBLAS_CHECK(lt_describe(&c, (int)s->lt[0], o->n, o->k, o->m)))
		return -1;
	cublasStatus_t st = lt_algo_init(g->lt, &c, &s->lt[1]);
	if (st == CUBLAS_STATUS_SUCCESS)
		st = lt_algo_check(g->lt, &c, a->ws_bytes);
	if (st != CUBLAS_STATUS_SUCCESS)
		return gpu_refuse("plan step %d: cuBLASLt refuses the algorithm at m=%d (%s)", i, o->m,
				cublasGetStatusString(st));
	const void *w = s->lt[0] == LT_ORIENT_N ? o->prep : o->w;
	if (!w)
		return gpu_fail("plan step %d: orientation n needs the prepared W^T", i);
	return CUBLAS_CHECK(lt_run(g->lt, &c, w, o->x, o->y, o->ws, a->ws_bytes, g->stream));
}

int plan_capture(struct gpu *g, const struct kernel_info *k, const struct launch_plan *p,
		 const struct plan_args *a, cudaGraphExec_t *out)
{
	*out = NULL;
	if (gpu_capture_begin(g))
		return -1;
	int failed = 0;
	for (int i = 0; i < p->nsteps && !failed; i++) {
		const struct launch_step *s = &p->steps[i];
		if (s->kind == STEP_KERNEL) {
			failed = launch_step(g, k, s, a) != 0;
		} else if (s->kind == STEP_GEMM_BF16) {
			failed = gemm_step(g, s, a, i) != 0;
		} else if (s->kind == STEP_LT) {
			failed = lt_step(g, s, a, i) != 0;
		} else if (s->kind == STEP_MEMSET_Y && s->bytes > a->y_bytes) {
			failed = gpu_fail("plan step %d zeroes %zu bytes of a %zu-byte output", i,
					  s->bytes, a->y_bytes);
		} else if (s->bytes) {  /* plan_prepare bounded STEP_MEMSET_WS */
			void *dst = s->kind == STEP_MEMSET_Y ? a->op.y : a->op.ws;
			failed = CUDA_CHECK(cudaMemsetAsync(dst, 0, s->bytes, g->stream)) != 0;
		}
	}
	return gpu_capture_end(g, failed, out);
}

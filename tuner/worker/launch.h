/*
 * launch.h: candidate kernels loaded from cubins, and launch plans
 * (tmpl.h) checked and captured into CUDA graphs (launch.c).
 */
#ifndef GT_LAUNCH_H
#define GT_LAUNCH_H

#include "gpu.h"

/* A candidate's kernel, loaded from its cubin (modules cached by path). */
struct kernel_info {
	CUfunction fn;
	int regs;
	int local_bytes;        /* per-thread local memory: spills or stack */
	int static_smem;
	int max_threads;        /* largest block the kernel can launch */
	int cluster;            /* blocks of its compiled-in cluster (1: none) */
	int nparams;            /* the kernel's parameters and their sizes */
	size_t param_size[PLAN_MAX_ARGS];
};
/* Load kernel `name` (the lowered name) from the cubin at path cubin and
 * read its attributes. Returns 0, or -1 recorded as gpu_error(). */
int gpu_load_kernel(struct gpu *g, const char *cubin, const char *name,
		    struct kernel_info *out);
/* Unload every cached module (gpu_close does). */
void gpu_modules_free(struct gpu *g);

/*
 * Check a plan against its kernels and the device. Returns 0 when it can
 * run (and raises each kernel's dynamic shared memory limit as its steps
 * need), 1 when a static limit prunes it (reason, len bytes, says why),
 * -1 when the plan is malformed (a kernel index out of range, arguments
 * that do not match the kernel's parameters) or a call failed, recorded
 * as gpu_error(). *smem gets the largest static + dynamic shared memory
 * of any step.
 */
int plan_prepare(struct gpu *g, const struct kernel_info *k, int nk,
		 const struct launch_plan *p, int *smem, char *reason, size_t len);

/*
 * How many waves the plan's kernel steps take on this device: for each
 * step, its blocks (or, for a kernel with a compiled-in cluster, its
 * clusters) over how many the device holds at once at that step's block
 * and shared memory (cuOccupancy*), rounded up; the most over the steps.
 * Call after plan_prepare. A tile whose shared memory crosses a
 * blocks-per-SM step, or whose clusters no longer fit in one wave, reads
 * much slower (measured on an H200); this puts the cause beside the
 * reading. Returns waves >= 1, 0 for a plan with no kernel step, -1 when
 * an occupancy query fails (not recorded as an error: it only informs).
 */
int plan_waves(const struct gpu *g, const struct kernel_info *k, const struct launch_plan *p);

/* The buffers a plan's arguments name. */
struct plan_args {
	/* what the steps read and write; op.prep is the prepared weight
	 * (tmpl.relayout), NULL when there is none (prep_bytes 0) */
	struct step_operands op;
	size_t y_bytes, ws_bytes, prep_bytes;
};
/* Capture the plan's steps (kernels, memsets) into a graph over a's
 * buffers; plan_prepare must have passed it (it bounds the workspace
 * memsets). Returns 0, or -1 recorded (a memset larger than the output
 * among the reasons). */
int plan_capture(struct gpu *g, const struct kernel_info *k, const struct launch_plan *p,
		 const struct plan_args *a, cudaGraphExec_t *out);

#endif

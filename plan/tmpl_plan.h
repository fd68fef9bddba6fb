/*
 * tmpl_plan.h: what the kernel adapters (tmpl_gemv.c, tmpl_mma.c,
 * tmpl_mma_frag.c, tmpl_mma_hilo.c) share: a launch
 * step's arguments and dimensions, and the H100/H200 limits a candidate
 * must fit. Each of them lists this file among its shared files, so an
 * edit here re-measures them (tuner/jit/sources.c).
 */
#ifndef GEMMTAB_TMPL_PLAN_H
#define GEMMTAB_TMPL_PLAN_H

#include "tmpl.h"

/* 64 K 32-bit registers an SM, at most 255 a thread. */
#define HW_REGS_PER_SM 65536
#define HW_MAX_REGS_PER_THREAD 255
/* Dynamic shared memory a block may opt in to (227 KiB), and the most
 * static shared memory a kernel may declare (48 KiB). */
#define HW_MAX_DYN_SMEM (227 * 1024)
#define HW_MAX_STATIC_SMEM (48 * 1024)

/* The most registers a thread may hold with a block of `threads`
 * resident on one SM. */
static inline long hw_regs_per_thread(long threads)
{
	const long limit = HW_REGS_PER_SM / threads;
	return limit < HW_MAX_REGS_PER_THREAD ? limit : HW_MAX_REGS_PER_THREAD;
}

/* The next argument of st (PLAN_MAX_ARGS at most: the plans add seven). */
static inline void plan_arg(struct launch_step *st, enum arg_kind kind, long value)
{
	st->args[st->nargs++] = (struct launch_arg){ kind, value };
}

static inline void plan_dims(unsigned v[3], unsigned x, unsigned y, unsigned z)
{
	v[0] = x;
	v[1] = y;
	v[2] = z;
}

#endif

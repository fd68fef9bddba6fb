/*
 * model_mode.h: the fake worker's replies on the modelled GPU
 * (FAKE_WORKER_MODEL; model_mode.c).
 */
#ifndef GT_MODEL_MODE_H
#define GT_MODEL_MODE_H

#include "proto.h"

/* Set the profile (h200 or h100) and open FAKE_WORKER_GPU_LOG. Returns 0,
 * or -1 for an unknown profile or a log that cannot be opened. */
int model_init(const char *profile);
/* An eval's figures into o (status ok): returns 0, or -1 when the request
 * names no shape or candidate the model can read. */
int model_eval_figures(const struct kv *r, struct kv_out *o);
/* Answer env, lt_algos, baseline, overhead and floor requests on the
 * model: 1 when it answered r, 0 for any other op (eval, rt: the
 * caller's). */
int model_reply(const struct kv *r);

#endif

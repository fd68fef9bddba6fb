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
void model_reply_env(void);
/* An eval's figures into o (status ok): returns 0, or -1 when the request
 * names no shape or candidate the model can read. */
int model_eval_figures(const struct kv *r, struct kv_out *o);
void model_reply_baseline(const struct kv *r);
void model_reply_overhead(const struct kv *r);
void model_reply_floor(const struct kv *r);
void model_reply_lt_algos(const struct kv *r);

#endif

/*
 * init.h: gemmtab init's engine, from a Hugging Face config.json to a
 * search space for the model's dense decode projections on one
 * tensor-parallel rank, in three steps:
 *   init_model.c   read the config into struct init_model (JSON is YAML:
 *                  ytree.c reads it), warning about each key that could
 *                  change a shape and that init does not read;
 *   init_shapes.c  the projections one rank runs, each with the number of
 *                  layers that run it, and the routed experts left out;
 *   init_space.c   the search space for them (shapes, workload, templates).
 *
 * What a model runs, per layer kind: attention (a fused q, k, v or MLA's
 * q / q_a, q_b, kv_a, kv_b; then o), and an MLP: a dense one (gate and
 * up fused, then down; or fc1, fc2 where the MLP is not gated), or a
 * mixture of experts (the router, shared experts, and routed experts,
 * which are grouped GEMMs that gemmtab does not tune). The head runs once.
 */
#ifndef GT_INIT_H
#define GT_INIT_H

#include <stdio.h>

/* The most projections one model gives (MLA with q_a and q_b, dense and
 * MoE layers with shared experts, the head: 12). */
#define INIT_MAX_PROJ 16

/* The keys of a config.json that init reads. A size is 0 when the config
 * leaves it out. */
struct init_model {
	char path[4096];        /* the config.json read */
	char type[64];          /* model_type, "" when absent */
	char dtype[32];         /* the checkpoint's dtype as the config names it
				 * (torch_dtype or dtype, at the top or beside
				 * the text model's keys), "" when absent */
	int known_type;         /* model_type is one whose layers init knows */
	long hidden, heads, kv_heads, head_dim, vocab, layers;
	long inter;             /* a dense MLP's intermediate size */
	int gated;              /* gate and up (1), or fc1 and fc2 (0) */
	int tied;               /* the head shares the embedding's weights */
	int qkv_bias, o_bias, mlp_bias, head_bias;
	/* MLA, where kv_lora_rank > 0: q_lora_rank 0 projects q at once */
	long q_lora_rank, kv_lora_rank, qk_nope, qk_rope, v_head_dim;
	/* a mixture of experts, where experts > 0 */
	long experts;           /* routed experts of a MoE layer */
	long moe_inter;         /* a routed expert's intermediate size */
	long shared_inter;      /* the shared experts' intermediate size, all together */
	int shared_gate;        /* a sigmoid gate (N = 1) scales the shared expert */
	long moe_layers;        /* layers with experts; the others are dense */
};

struct init_proj {
	const char *family;     /* the space's family name */
	const char *what;       /* a line for the space's comment */
	long n, k;
	int fp32;               /* FP32 weights (an FP32 router) */
	int count;              /* layers that run it (the head: 1) */
	int bias;               /* the model adds a bias after it */
};

/* A model's projections on one rank, and the routed experts left out. */
struct init_plan {
	int tp;
	int nproj;
	struct init_proj proj[INIT_MAX_PROJ];
	double routed_share;    /* of a MoE layer's weight bytes, 0..1 */
};

/* What `gemmtab init` was asked, for the space's first line. */
struct init_opts {
	const char *model_arg;  /* --model as given */
	int tp, max_m;
	const char *dtype;      /* the serving dtype: "bf16" */
	int router_fp32;
	const char *templates;  /* a comma-separated list, NULL for all */
};

/* Read path (a config.json, or a folder holding one) into *m, warning on
 * stderr once about each key of the text model that could change a shape
 * and that init does not read. Returns 0, or -1 after one FILE:LINE:COL
 * line (an unreadable file, a key of the wrong kind, a required key
 * absent). */
int init_model_read(const char *path, struct init_model *m);

/* The projections of m on one of tp ranks into *p: column-parallel
 * layers split N, row-parallel ones K, replicated ones (MLA's q_a and
 * kv_a, the router) neither. Returns 0, or -1 after an error naming the
 * size tp does not divide. */
int init_shapes(const struct init_model *m, int tp, int router_fp32, struct init_plan *p);

/* Print to stderr what the space leaves out and the config's dtype. */
void init_summary(const struct init_model *m, const struct init_plan *p, const char *dtype);

/* The comma-separated template list's first unknown name, or NULL when
 * every name is one init writes (gemv, mma_skinny, blas_hilo, cublaslt). */
const char *init_templates_unknown(const char *list, char *buf, size_t len);

/* Write the search space for p to f. Returns 0, or -1 on a write error
 * (errno set). */
int init_space_write(FILE *f, const struct init_model *m, const struct init_plan *p,
		     const struct init_opts *o);

#endif

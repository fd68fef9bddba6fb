/*
 * tmpl.h: the registry of kernel templates the tuner knows. Each template
 * (one file templates/<stem>.cuh) has a C adapter here that names its
 * parameters, says which combinations are legal, gives the NVRTC name
 * expressions of the kernels a candidate launches, and lays out the launch
 * sequence for a given M. The adapters are pure functions: no CUDA, no I/O,
 * so the supervisor, the worker and the tests share them.
 */
#ifndef GT_TMPL_H
#define GT_TMPL_H

#include "types.h"

#define TMPL_NAME_MAX 256
#define TMPL_MAX_KERNELS 4
#define PLAN_MAX_STEPS 4
#define PLAN_MAX_ARGS 12

/* One tunable parameter. Integer parameters take values in [min, max];
 * symbolic ones (symbols != NULL, NULL-terminated) take the index of a name. */
struct tmpl_param {
	const char *name;
	long min, max;
	const char *const *symbols;
};

/* Kernel argument sources, resolved by the worker at launch time. */
enum arg_kind {
	ARG_W,          /* const void *: the weights as given, N x K row-major */
	ARG_PREP,       /* const void *: the prepared weight (see struct relayout) */
	ARG_X,          /* const void *: activations, M x K row-major */
	ARG_Y,          /* void *: output, M x N row-major */
	ARG_WS,         /* void *: candidate workspace, plan.ws_bytes, 256-B aligned */
	ARG_SYNC,       /* unsigned *: plan.sync_bytes of counters that are 0 before
			 * the plan's first call and that every call leaves at 0
			 * (the owner zeroes them once; the tuner checks they
			 * come back to 0) */
	ARG_M, ARG_N, ARG_K,    /* int */
	ARG_INT,        /* int: the constant in .value */
};

struct launch_arg {
	enum arg_kind kind;
	long value;
};

/*
 * STEP_GEMM_BF16: Y[m, n] (+)= X[m, k] * P^T with cuBLAS (cublasGemmEx, BF16
 * operands, FP32 compute and output), where P is the bf16 N x K matrix at
 * element offset w_offset of the prepared weight (see enum relayout) and
 * beta is 0 (overwrite) or 1 (accumulate into Y).
 */
enum step_kind { STEP_KERNEL, STEP_MEMSET_Y, STEP_MEMSET_WS, STEP_GEMM_BF16, STEP_LT };

/*
 * STEP_LT: Y[m, n] = X[m, k] * W[n, k]^T with one cuBLASLt algorithm (bf16
 * operands and output, FP32 compute; tuner/worker/lt.h), in the workspace ARG_WS
 * (plan.ws_bytes): lt[0] is the orientation (enum lt_orient), lt[1..9]
 * the algorithm's attributes in lt_attr_names order. Orientation N reads
 * the prepared W^T (ARG_PREP's RELAYOUT_TRANSPOSE) instead of W.
 */
#define STEP_LT_VALUES 10
#define STEP_LT_ORIENTS 3       /* enum lt_orient's count */
/* The workspace a STEP_LT plan asks for (the baseline's 32 MiB). */
#define STEP_LT_WS_BYTES ((size_t)32 << 20)

/*
 * How a candidate's weights are prepared once from the original W before
 * any call (docs/workload.md allows lossless re-layouts and the router's split):
 * RELAYOUT_NONE uses W as given. RELAYOUT_HILO (fp32 W only) prepares
 * 2 x N x K bf16: hi = bf16(w) at offset 0 and lo = bf16(w - float(hi)) at
 * offset N*K, so that X*hi^T + X*lo^T accumulated in FP32 is the product.
 * RELAYOUT_TILES (bf16 W, N % rows == 0, K % cols == 0) packs W into
 * rows x cols tiles, each one contiguous block of rows*cols bf16 in the
 * image shared memory holds (templates/pack.cuh: the 16-byte chunks of a
 * tile row XOR-swizzled as mma_skinny's ldmatrix expects); tile (nt, kt)
 * starts at element (nt * K/cols + kt) * rows*cols, so the tiles of one
 * row block follow each other along K. Same bytes as W, every value kept.
 * RELAYOUT_TRANSPOSE (bf16 W) prepares W^T, K x N row-major
 * (templates/transpose.cuh), for cuBLASLt's LT_ORIENT_N.
 */
enum relayout_kind {
	RELAYOUT_NONE = 0, RELAYOUT_HILO = 1, RELAYOUT_TILES = 2, RELAYOUT_TRANSPOSE = 3
};

struct relayout {
	enum relayout_kind kind;
	int rows, cols;         /* RELAYOUT_TILES: the tile; 0 otherwise */
};

/* Bytes of the prepared weight of shape s under r (0 for RELAYOUT_NONE). */
size_t relayout_bytes(const struct relayout *r, const struct shape *s);
/* 1 when a and b prepare the same bytes from the same W. */
int relayout_same(const struct relayout *a, const struct relayout *b);

struct launch_step {
	enum step_kind kind;
	int kernel;             /* STEP_KERNEL: index into the names from tmpl.kernels */
	unsigned grid[3], block[3];
	unsigned smem;          /* dynamic shared memory, bytes */
	int nargs;
	struct launch_arg args[PLAN_MAX_ARGS];
	size_t bytes;           /* STEP_MEMSET_*: bytes set to zero from the start */
	size_t w_offset;        /* STEP_GEMM_BF16: elements into the prepared weight */
	int beta;               /* STEP_GEMM_BF16: 0 overwrites Y, 1 adds to it */
	long lt[STEP_LT_VALUES];        /* STEP_LT: orientation, then the attributes */
	/* STEP_KERNEL after a STEP_KERNEL only: launched with programmatic
	 * stream serialization (PDL), so it may start before the step before
	 * it completes; the kernel waits (griddepcontrol.wait) before it
	 * touches what that step writes. Never on a plan's first step. */
	int pdl;
};

struct launch_plan {
	size_t ws_bytes;
	size_t sync_bytes;      /* ARG_SYNC's counters, a multiple of 4 */
	int nsteps;
	struct launch_step steps[PLAN_MAX_STEPS];
};

struct tmpl {
	const char *stem;               /* "gemv": templates/gemv.cuh, yaml section "gemv" */
	const char *source;             /* path relative to the repository root;
					 * NULL when the plan launches no kernel */
	const char *adapter;            /* this adapter's own file, plan/tmpl_<stem>.c:
					 * hashed with the source (tmpl_source_hash) */
	/* Other files its plans and checks come from (NULL-terminated, or
	 * NULL): hashed too, so editing them re-measures this template. */
	const char *const *shared;
	const struct tmpl_param *params;
	int nparams;
	/* The prepared weight candidate p reads (see struct relayout); NULL
	 * when every candidate of the template uses W as given. */
	struct relayout (*relayout)(const long *p);
	/* Static legality beyond the space's constraints (divisibility, dtype
	 * support, register arrays that cannot fit). NULL if legal, else a
	 * short static reason ("k not a multiple of split*chunk"). */
	const char *(*check)(const struct shape *s, const long *p);
	/* NVRTC name expressions of the kernels this candidate launches, e.g.
	 * "gemv_kernel<__nv_bfloat16, __nv_bfloat16, 8, 1, 4, 4, 1, 1>".
	 * Returns the count (0..TMPL_MAX_KERNELS). */
	int (*kernels)(const struct shape *s, const long *p,
		       char names[][TMPL_NAME_MAX], int max);
	/* The launch sequence for m tokens (any m >= 1). Returns 0 or -1. */
	int (*plan)(const struct shape *s, const long *p, int m, struct launch_plan *out);
};

/* The operands a kernel step's arguments (enum arg_kind) resolve to. */
struct step_operands {
	const void *w, *prep, *x;       /* prep: the prepared weight, or NULL */
	void *y, *ws;
	unsigned *sync;         /* ARG_SYNC */
	int m, n, k;
};

/* The kernel parameter array of step st for cuLaunchKernel or
 * cudaLaunchKernel: params[i] points at ptr[i] (pointer arguments) or
 * val[i] (int arguments), so all three must outlive the launch call.
 * Returns -1 when an argument is the prepared weight and there is none. */
int plan_step_params(const struct launch_step *st, const struct step_operands *o,
		     void *ptr[PLAN_MAX_ARGS], int val[PLAN_MAX_ARGS],
		     void *params[PLAN_MAX_ARGS]);

/* 1 when STEP_GEMM_BF16 step st's N x K bf16 matrix (n, k) at st->w_offset
 * lies inside a prepared weight of prep_bytes, else 0. */
int plan_gemm_fits(const struct launch_step *st, int n, int k, size_t prep_bytes);

/* One algorithm of the worker's lt_algos reply ("a,b,...,i" then ';' or
 * the end of the text): exactly n integers into out, *p moved past it and
 * its ';'. Returns 0, or -1 (nothing to trust) when the text is not that. */
int lt_attrs_read(const char **p, long *out, int n);

/* The first step whose pdl flag breaks its rule (a kernel step right after
 * a kernel step), or -1 when none does. */
int plan_pdl_misplaced(const struct launch_plan *p);

/* Canonical text of a candidate's parameters, "warps=8,rows=1,cache=cg",
 * in the template's parameter order, symbols by name. Writes into buf
 * (always NUL-terminated) and returns buf. */
char *candidate_key(const struct candidate *c, char *buf, size_t len);

/* NULL-terminated list of every template, and lookup by stem. */
extern const struct tmpl *const tmpl_all[];
const struct tmpl *tmpl_find(const char *stem);
/* Index of a parameter by name, or -1. */
int tmpl_param_index(const struct tmpl *t, const char *name);
/* The prepared weight candidate p of t reads. */
struct relayout tmpl_relayout(const struct tmpl *t, const long *p);
/* "parameter out of range" when some p[i] lies outside params[i]'s
 * [min, max], else NULL: the first test of every adapter's check. */
const char *tmpl_params_in_range(const struct tmpl_param *params, int n, const long *p);

#endif

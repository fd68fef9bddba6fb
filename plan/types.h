/*
 * types.h: the tuner's shared vocabulary: element types, shapes (one
 * projection family: N, K, dtypes, the Ms to tune), candidates (a template
 * and its parameter values).
 */
#ifndef GT_TYPES_H
#define GT_TYPES_H

#include <stddef.h>

enum dtype { DT_BF16 = 0, DT_FP32 = 1 };

/* "bf16" / "fp32". */
const char *dtype_name(enum dtype t);
/* Parse "bf16" or "fp32"; returns 0 or -1. */
int dtype_parse(const char *s, enum dtype *out);
size_t dtype_size(enum dtype t);

#define MAX_MS 32
#define MAX_PARAMS 12
#define FAMILY_MAX 32

/* One projection: Y[M,N] = X[M,K] * W[N,K]^T. */
struct shape {
	char family[FAMILY_MAX];
	int n, k;
	enum dtype w, x, y;
	double tol;                 /* global relative L2 bound; per row 2x */
	int ms[MAX_MS];             /* Ms tuned (screened and retested) */
	int n_ms;
	int neighbours[MAX_MS];     /* Ms checked, not scored (must not regress) */
	int n_neighbours;
};

struct tmpl;

/* One point of a template's parameter grid. params[] follows tmpl->params. */
struct candidate {
	const struct tmpl *tmpl;
	long params[MAX_PARAMS];
};


/* A cuBLAS-style version number (major*10000 + minor*100 + patch) as
 * "major.minor.patch": the text tables and environments compare. */
void version_text(size_t v, char *out, size_t len);

#endif

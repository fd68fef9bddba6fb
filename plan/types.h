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
	int ms[MAX_MS];             /* Ms tuned (screened and retested): a
				     * list's Ms, or a range's anchors */
	int n_ms;
	int neighbours[MAX_MS];     /* Ms checked, not scored (must not regress) */
	int n_neighbours;
	int m_lo, m_hi;             /* a range (`m: LO..HI`): every M of it is
				     * timed; 0, 0 for a list */
};

/* The check points past a range's end (shape_checks): the sweep times the
 * last anchor's finalists there too, so a table may extend the last entry
 * as far as one of them still won. */
#define SHAPE_CHECKS 2

/* Whether s names a range. */
static inline int shape_is_range(const struct shape *s)
{
	return s->m_hi > 0;
}

/* s's check points past its range (2 and 4 times its end, at most
 * max_m) into out[SHAPE_CHECKS]; returns how many (0 for a list). */
int shape_checks(const struct shape *s, int max_m, int *out);

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

/*
 * seed.h: `gemmtab sweep --seed-from DB_OR_TABLE`, a table moved to a
 * new card: the sweep screens, at each anchor, only the source's
 * finalists there and their neighbours in the parameter grid (and the
 * baseline), then retests as usual and times the ranges on emit's grid.
 */
#ifndef GT_SWEEP_SEED_H
#define GT_SWEEP_SEED_H

/* The source's finalists (seed.c): a database's retests or a table's
 * entries, each with its shape key and Ms. */
struct seed;
struct sweep;
struct shape;

/* Read the finalists of path: a gemmtab database (its newest
 * environment's retests) or a dispatch table gemmtab emit wrote (its
 * entries), told apart by the file's first bytes. Returns 0 and *out
 * (free with seed_free), or -1 after a message naming the file. */
int seed_load(const char *path, struct seed **out);
void seed_free(struct seed *s);

/* Keep, of sw's tasks (of family only, when given), those at each anchor
 * that are the seed's finalists there or their grid neighbours; a
 * blas_lt finalist this GPU's heuristic did not name is added. Prints
 * what it kept. Returns 0 or -1. */
int seed_keep(struct sweep *sw, const struct seed *s, const char *family);

/* Whether a seeded sweep's range phase times range shape s at m: emit's
 * grid Ms (grid.h) and the held-out M of each span between them, and the
 * check points past the range: what emit serves a whole range from. The
 * Ms between are left out, so that the transfer's ranges cost a third of
 * a full sweep's. */
int seed_times_m(const struct shape *s, int m);

#endif

/*
 * shard.c: --shard I/N, a share of a space's shapes for one of N hosts.
 */
#include "sweep.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The shard (of n) shape s belongs to: a hash of what the shape is (its
 * family, n, k, dtypes and bound), not of its place in the space, so that
 * every host computes the same split and a shape added to the space
 * moves no other. */
static int shape_shard(const struct shape *s, int n)
{
	char key[160];
	snprintf(key, sizeof(key), "%s,%d,%d,%d,%d,%d,%.9g", s->family, s->n, s->k, (int)s->w,
		 (int)s->x, (int)s->y, s->tol);
	return (int)(hash_str(HASH_INIT, key) % (uint64_t)n);
}

/* Keep only shard i of n of sp's shapes (--shard I/N), saying so on
 * stderr; returns how many are left. */
int sweep_keep_shard(struct space *sp, int i, int n)
{
	int kept = 0;
	const int all = sp->nshapes;
	for (int si = 0; si < sp->nshapes; si++)
		if (shape_shard(&sp->shapes[si], n) == i)
			sp->shapes[kept++] = sp->shapes[si];
	sp->nshapes = kept;
	fprintf(stderr, "sweep: shard %d/%d: %d of the space's %d shapes\n", i, n, kept, all);
	return kept;
}

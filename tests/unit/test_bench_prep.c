/*
 * test_bench_prep.c: the worker's cache of prepared timing copies
 * (tuner/worker/bench.c, bench_prep_slot and bench_prep_clear): a re-layout it
 * holds is found again, a new one takes a free slot, then the least
 * recently used; tiles of another size are another re-layout. No GPU: a
 * bench of no copies (nothing to free) is enough.
 */
#include "check.h"
#include "gpu.h"
#include "bench.h"

#include <stdlib.h>

static const struct relayout hilo = { RELAYOUT_HILO, 0, 0 };
static const struct relayout t64 = { RELAYOUT_TILES, 64, 64 };
static const struct relayout t64x128 = { RELAYOUT_TILES, 64, 128 };
static const struct relayout t128 = { RELAYOUT_TILES, 128, 64 };
static const struct relayout wt = { RELAYOUT_TRANSPOSE, 0, 0 };

/* What the worker does (timing_preps): find, or take and fill, then use. */
static struct bench_prep *use(struct bench *b, const struct relayout *r, int *hit)
{
	struct bench_prep *s = bench_prep_slot(b, r, hit);
	if (!*hit) {
		bench_prep_clear(b, s);
		s->r = *r;
	}
	s->used = ++b->prep_clock;
	return s;
}

TEST(found_again_free_slots_first_then_least_recently_used)
{
	struct bench *b = calloc(1, sizeof(*b));
	int hit;
	CHECK_INT(BENCH_PREP_KEEP, 4);
	struct bench_prep *a = use(b, &t64, &hit);
	CHECK_INT(hit, 0);
	CHECK(a == &b->prep[0]);
	CHECK(use(b, &t64, &hit) == a);
	CHECK_INT(hit, 1);
	/* another tile size is another re-layout: the next free slot */
	struct bench_prep *c = use(b, &t64x128, &hit);
	CHECK_INT(hit, 0);
	CHECK(c == &b->prep[1]);
	CHECK(use(b, &t128, &hit) == &b->prep[2]);
	CHECK_INT(hit, 0);
	CHECK(use(b, &hilo, &hit) == &b->prep[3]);
	CHECK_INT(hit, 0);
	/* full: t64 was used last at tick 2, t64x128 at 3: a fifth re-layout
	 * replaces t64; t64 used again replaces t64x128 */
	CHECK(use(b, &wt, &hit) == a);
	CHECK_INT(hit, 0);
	CHECK_INT(a->r.kind, RELAYOUT_TRANSPOSE);
	CHECK(use(b, &t64, &hit) == c);
	CHECK_INT(hit, 0);
	CHECK_INT(c->r.rows, 64);
	CHECK_INT(c->r.cols, 64);
	/* a use makes a slot recent: t128 (tick 4) is kept, hilo (5) goes */
	CHECK(use(b, &t128, &hit) == &b->prep[2]);
	CHECK_INT(hit, 1);
	CHECK(use(b, &t64x128, &hit) == &b->prep[3]);
	CHECK_INT(hit, 0);
	/* a cleared slot is free again and taken before any used one */
	bench_prep_clear(b, &b->prep[2]);
	CHECK_INT(b->prep[2].r.kind, RELAYOUT_NONE);
	CHECK(use(b, &hilo, &hit) == &b->prep[2]);
	CHECK_INT(hit, 0);
	bench_free(b);
}

TESTS(T(found_again_free_slots_first_then_least_recently_used))

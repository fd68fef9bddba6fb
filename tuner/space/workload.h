/*
 * workload.h: what a load is: the token counts (loads) a score is taken
 * over and, per load, the shapes it runs, each some number of times (a
 * model's layers) and perhaps only at some loads ("unpooler_slice for
 * M <= 8"). A space states it in its `workload:` section (space.c reads
 * it); the reference workload of docs/workload.md is built in. report and
 * bench sum each load's times over it and take the score and the all-M
 * figure from those sums (report.c).
 */
#ifndef GT_WORKLOAD_H
#define GT_WORKLOAD_H

#include "types.h"

#define WORKLOAD_MAX_LOADS 32
#define WORKLOAD_MAX_PARTS 32

struct expr;

/* One shape of a load, by its family. */
struct workload_part {
	char family[FAMILY_MAX];
	int count;              /* times a load runs it (1..1000000) */
	struct expr *when;      /* over m: the loads it is part of; NULL: all */
	char *when_text;        /* as written, or NULL */
};

struct workload {
	int nloads;
	int loads[WORKLOAD_MAX_LOADS];          /* token counts, ascending */
	int nparts;
	struct workload_part parts[WORKLOAD_MAX_PARTS];
	const char *source;     /* where it comes from, for the report */
	int all_m_max;          /* the all-M figure's last M: the largest range
				 * end of a space's shapes where it passes the
				 * largest load; 0: the largest load */
};

/* The reference workload (docs/workload.md): loads M = 1, 8, 16, 32, 128,
 * 256 of qkv, oproj, pooler, router once each and unpooler, the
 * unpooler_slice in its place for M <= 8. */
void workload_reference(struct workload *w);

/* Add a part; when_text may be NULL. Returns 0, or -1 with a one-line
 * reason in why (the parts are full, or when_text does not parse: *offset
 * gets the byte at fault, else -1). */
int workload_add(struct workload *w, const char *family, int count, const char *when_text,
		 char *why, size_t len, int *offset);

/* 1 when part p runs in a load of m tokens (an undefined `when` is 0). */
int workload_part_in(const struct workload_part *p, int m);

/* The largest load (0 when there is none). */
int workload_max_m(const struct workload *w);

void workload_free(struct workload *w);

#endif

/*
 * progress.c: what a sweep tells its user as it ends: the results per
 * status, worker restarts, its time and the supervisor's own CPU.
 */
#include "engine.h"
#include "util.h"

#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sweep_summary(const struct sweep *sw)
{
	fprintf(stderr, "sweep: ");
	for (size_t i = 0; i < ARRAY_SIZE(sweep_status_names); i++)
		if (sw->counts[i])
			fprintf(stderr, "%ld %s, ", sw->counts[i], sweep_status_names[i]);
	int restarts = 0;
	for (int d = 0; d < sw->ndev; d++)
		restarts += sw->devs[d].w.restarts;
	/* the supervisor's own CPU: every thread of this process, not the
	 * workers or compile processes (make bench-supervisor reads it) */
	struct rusage ru;
	double cpu = 0;
	if (!getrusage(RUSAGE_SELF, &ru))
		cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
		      ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) / 1e6;
	fprintf(stderr, "%d worker restarts, %.0f s (supervisor CPU %.2f s); gemmtab report --db %s\n",
		restarts, now_seconds() - sw->started, cpu, sw->db_path);
	for (int d = 0; d < sw->ndev && sw->ndev > 1; d++)
		fprintf(stderr, "sweep: GPU %d: %ld evals and baselines, %d worker restarts\n",
			sw->devs[d].device, sw->devs[d].evals, sw->devs[d].w.restarts);
}

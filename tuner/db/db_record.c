/*
 * db_record.c: what the sweep records as it measures (environments,
 * shapes, candidates and their variants, results, baselines, probes),
 * each committed before its call returns, and the lookups it resumes by.
 */
#include "db_internal.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void result_row_clear(struct result_row *r)
{
	memset(r, 0, sizeof(*r));
	r->err_global = r->err_row = NAN;
	r->base_us = r->cand_us = NAN;
	r->ratio = r->ratio_lo = r->ratio_hi = NAN;
	r->pairs = r->regs = r->local_bytes = r->smem = r->waves = r->device = -1;
}

/* Insert-or-get: run the bound insert (a no-op when the row exists), then
 * the bound select for its id. */
static int insert_or_get(struct db *db, sqlite3_stmt *ins, sqlite3_stmt *sel,
			 const char *what, long long *id)
{
	if (step_done(db, ins, what))
		return -1;
	int found = step_int64(db, sel, what, id);
	if (found < 0)
		return -1;
	if (!found)
		return error("DB: %s: row not found after insert", what);
	return 0;
}

static void bind_env(sqlite3_stmt *st, const struct env_info *e)
{
	bind_text(st, 1, e->gpu_name);
	bind_text(st, 2, e->gpu_uuid);
	sqlite3_bind_int(st, 3, e->sm_count);
	sqlite3_bind_int(st, 4, e->sm_clock_mhz);
	sqlite3_bind_int(st, 5, e->mem_clock_mhz);
	sqlite3_bind_int64(st, 6, e->l2_bytes);
	bind_text(st, 7, e->driver);
	bind_text(st, 8, e->cuda);
	bind_text(st, 9, e->nvrtc);
	bind_text(st, 10, e->cublas);
	bind_text(st, 11, e->cublaslt);
	bind_text(st, 12, e->source_hash);
}

/* Another unit of the same GPU model, clocks, driver and libraries is the
 * same environment: a sweep resumed on another card of the same model (a
 * different gpu_uuid) skips what the last one measured, and its
 * rows join that env (the newest such, as report and emit read by
 * default). Only a new combination adds a row. */
int db_env_id(struct db *db, const struct env_info *e, long long *id)
{
	sqlite3_stmt *ins = db_stmt(db, ST_ENV_INSERT), *sel = db_stmt(db, ST_ENV_SELECT);
	if (!ins || !sel)
		return -1;
	bind_env(sel, e);               /* bindings outlive the reset */
	int found = step_int64(db, sel, "env", id);
	if (found)
		return found < 0 ? -1 : 0;
	bind_env(ins, e);
	return insert_or_get(db, ins, sel, "env", id);
}

static void bind_shape(sqlite3_stmt *st, const struct shape *s)
{
	bind_text(st, 1, s->family);
	sqlite3_bind_int(st, 2, s->n);
	sqlite3_bind_int(st, 3, s->k);
	bind_text(st, 4, dtype_name(s->w));
	bind_text(st, 5, dtype_name(s->x));
	bind_text(st, 6, dtype_name(s->y));
	sqlite3_bind_double(st, 7, s->tol);
}

int db_shape_id(struct db *db, const struct shape *s, long long *id)
{
	sqlite3_stmt *ins = db_stmt(db, ST_SHAPE_INSERT), *sel = db_stmt(db, ST_SHAPE_SELECT);
	if (!ins || !sel)
		return -1;
	bind_shape(ins, s);
	bind_shape(sel, s);
	return insert_or_get(db, ins, sel, "shape", id);
}

int db_shape_find(struct db *db, const struct shape *s, long long *id)
{
	sqlite3_stmt *sel = db_stmt(db, ST_SHAPE_SELECT);
	if (!sel)
		return -1;
	bind_shape(sel, s);
	return step_int64(db, sel, "shape", id);
}

int db_variant(struct db *db, const char *tmpl, const char *params, long long shape,
	       const char *source_hash, long long *id, char code[17])
{
	sqlite3_stmt *st = db_stmt(db, ST_VARIANT_GET);
	if (!st)
		return -1;
	bind_text(st, 1, tmpl);
	bind_text(st, 2, params);
	sqlite3_bind_int64(st, 3, shape);
	bind_text(st, 4, source_hash);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*id = sqlite3_column_int64(st, 0);
		if (code)
			col_text(st, 1, code, 17);
	}
	sqlite3_reset(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_error(db, "variant");
	return rc == SQLITE_ROW;
}

int db_record_variant(struct db *db, const char *tmpl, const char *params, long long shape,
		      const char *source_hash, long long cand)
{
	sqlite3_stmt *st = db_stmt(db, ST_VARIANT_PUT);
	if (!st)
		return -1;
	bind_text(st, 1, tmpl);
	bind_text(st, 2, params);
	sqlite3_bind_int64(st, 3, shape);
	bind_text(st, 4, source_hash);
	sqlite3_bind_int64(st, 5, cand);
	return step_done(db, st, "record variant");
}

int db_candidate_id(struct db *db, const char *tmpl, const char *params,
		    const char *code, long long *id)
{
	sqlite3_stmt *ins = db_stmt(db, ST_CAND_INSERT), *sel = db_stmt(db, ST_CAND_SELECT);
	if (!ins || !sel)
		return -1;
	sqlite3_stmt *both[] = { ins, sel };
	for (int i = 0; i < 2; i++) {
		bind_text(both[i], 1, tmpl);
		bind_text(both[i], 2, params);
		bind_text(both[i], 3, code);
	}
	return insert_or_get(db, ins, sel, "candidate", id);
}

int db_record_result(struct db *db, long long env, long long shape,
		     long long cand, const struct result_row *r)
{
	sqlite3_stmt *st = db_stmt(db, ST_RESULT_RECORD);
	if (!st)
		return -1;
	/* a candidate that did not pass has no timing, whatever r holds */
	int timed = r->status && !strcmp(r->status, "ok");
	sqlite3_bind_int64(st, 1, env);
	sqlite3_bind_int64(st, 2, shape);
	sqlite3_bind_int64(st, 3, cand);
	sqlite3_bind_int(st, 4, r->m);
	bind_text(st, 5, r->phase);
	bind_text(st, 6, r->status);
	bind_text(st, 7, r->reason);
	bind_figure(st, 8, r->err_global);
	bind_figure(st, 9, r->err_row);
	bind_figure(st, 10, timed ? r->base_us : NAN);
	bind_figure(st, 11, timed ? r->cand_us : NAN);
	bind_figure(st, 12, timed ? r->ratio : NAN);
	bind_figure(st, 13, timed ? r->ratio_lo : NAN);
	bind_figure(st, 14, timed ? r->ratio_hi : NAN);
	bind_count(st, 15, timed ? r->pairs : -1);
	bind_count(st, 16, r->regs);
	bind_count(st, 17, r->local_bytes);
	bind_count(st, 18, r->smem);
	bind_count(st, 19, r->waves);
	bind_text(st, 20, r->run);
	bind_count(st, 21, r->device);
	return step_done(db, st, "record result");
}

/* A result's key and the run it must be newer than ("" for any), as
 * ST_RESULT_HAS and ST_RESULT_FIGURE bind them */
static void bind_result_key(sqlite3_stmt *st, long long env, long long shape, long long cand,
			    int m, const char *phase, const char *since)
{
	sqlite3_bind_int64(st, 1, env);
	sqlite3_bind_int64(st, 2, shape);
	sqlite3_bind_int64(st, 3, cand);
	sqlite3_bind_int(st, 4, m);
	bind_text(st, 5, phase);
	bind_text(st, 6, since ? since : "");
}

int db_has_result(struct db *db, long long env, long long shape,
		  long long cand, int m, const char *phase, const char *since)
{
	sqlite3_stmt *st = db_stmt(db, ST_RESULT_HAS);
	long long one;
	if (!st)
		return -1;
	bind_result_key(st, env, shape, cand, m, phase, since);
	return step_int64(db, st, "has result", &one);
}

int db_result_figure(struct db *db, long long env, long long shape, long long cand, int m,
		     const char *phase, const char *since, int *pairs, double *ratio)
{
	sqlite3_stmt *st = db_stmt(db, ST_RESULT_FIGURE);
	*pairs = -1;
	*ratio = -1;
	if (!st)
		return -1;
	bind_result_key(st, env, shape, cand, m, phase, since);
	const int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_int(st, 0)) {
		*pairs = col_count(st, 1);
		*ratio = col_figure(st, 2);
		if (!(*ratio > 0))
			*ratio = -1;
	}
	sqlite3_reset(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_error(db, "result figure");
	return rc == SQLITE_ROW;
}

int db_has_baseline(struct db *db, long long env, long long shape, int m)
{
	sqlite3_stmt *st = db_stmt(db, ST_BASELINE_HAS);
	long long one;
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, env);
	sqlite3_bind_int64(st, 2, shape);
	sqlite3_bind_int(st, 3, m);
	return step_int64(db, st, "has baseline", &one);
}

int db_record_probe(struct db *db, long long env, const char *what,
		    const char *family, double bytes, double us, const char *config)
{
	sqlite3_stmt *st = db_stmt(db, ST_PROBE_RECORD);
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, env);
	bind_text(st, 2, what);
	bind_text(st, 3, family);
	bind_figure(st, 4, bytes);
	bind_figure(st, 5, us);
	bind_text(st, 6, config);
	return step_done(db, st, "record probe");
}

int db_record_baseline(struct db *db, long long env, long long shape, int m,
		       double cublas_us, double cublaslt_us, double ratio,
		       const char *lt_algo, int device)
{
	sqlite3_stmt *st = db_stmt(db, ST_BASELINE_RECORD);
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, env);
	sqlite3_bind_int64(st, 2, shape);
	sqlite3_bind_int(st, 3, m);
	bind_figure(st, 4, cublas_us);
	bind_figure(st, 5, cublaslt_us);
	bind_figure(st, 6, ratio);
	bind_text(st, 7, lt_algo);
	bind_count(st, 8, device);
	return step_done(db, st, "record baseline");
}

/*
 * db.h: the results database. Only db.c includes sqlite3.h. The schema
 * lives in db/schema.sql (compiled in), is versioned, and is migrated on
 * open. WAL mode; every record call commits before it returns, so a kill
 * at any moment loses at most what was not yet recorded.
 */
#ifndef GT_DB_H
#define GT_DB_H

#include "types.h"

struct db;

/* The environment every measurement row references. */
struct env_info {
	char gpu_name[128];
	char gpu_uuid[64];
	int sm_count;
	int sm_clock_mhz;        /* max SM clock */
	int mem_clock_mhz;
	long long l2_bytes;
	char driver[32];
	char cuda[32];           /* runtime version */
	char nvrtc[32];
	char cublas[32];
	char cublaslt[32];
	char source_hash[17];    /* hash of every template source */
};

/* One candidate's outcome at (env, shape, m, phase). */
struct result_row {
	int m;
	const char *phase;       /* "screen" or "retest" */
	const char *status;      /* ok fail compile_error pruned launch_error fault timeout */
	const char *reason;      /* NULL or text */
	double err_global, err_row;
	double base_us, cand_us;
	double ratio, ratio_lo, ratio_hi;
	int pairs;
	int regs, local_bytes, smem;
};

/* Open (creating and migrating as needed). Returns 0 or -1 (message printed). */
int db_open(const char *path, struct db **out);
void db_close(struct db *db);

/* Insert-or-get ids. Each returns 0 or -1. */
int db_env_id(struct db *db, const struct env_info *e, long long *id);
int db_shape_id(struct db *db, const struct shape *s, long long *id);
int db_candidate_id(struct db *db, const char *tmpl, const char *params,
		    const char *source_hash, long long *id);

/* Record one result (replacing an earlier row of the same key). */
int db_record_result(struct db *db, long long env, long long shape,
		     long long cand, const struct result_row *r);
/* 1 if a row exists for (env, shape, cand, m, phase), 0 if not, -1 on error. */
int db_has_result(struct db *db, long long env, long long shape,
		  long long cand, int m, const char *phase);

/* Finalists: up to max candidate ids with status ok in the screen phase at
 * (env, shape, m), best median ratio first. Returns the count or -1. */
int db_screen_best(struct db *db, long long env, long long shape, int m,
		   long long *cand_ids, int max);
/* The template and params of a candidate id (caller frees both). */
int db_candidate_get(struct db *db, long long cand, char **tmpl, char **params);

int db_record_probe(struct db *db, long long env, const char *what,
		    const char *family, double bytes, double us, const char *config);
int db_record_baseline(struct db *db, long long env, long long shape, int m,
		       double cublas_us, double cublaslt_us, double ratio,
		       const char *lt_algo);

/* The newest environment id in the database (for report), or -1 if none. */
long long db_latest_env(struct db *db);

/* Run SQL and print rows as text (for `gemmtab query`). Returns 0 or -1. */
int db_query_print(struct db *db, const char *sql, const char *format);

#endif

/*
 * db.h: the results database. Only the files of tuner/db/ include
 * sqlite3.h (and tests/unit/test_db.c, to write a database as an older
 * schema did): db_open.c (opening), db_migrate.c (the schema's versions),
 * db_record.c (what the sweep records), db_read.c (what report, emit and
 * bench read), db_integrity.c (whether a file may be trusted), db_prune.c,
 * db_merge.c and db_query.c, over db_stmt.c's cached statements. The
 * schema is db/gemmtab.sql (compiled in), versioned, and migrated when a
 * writer opens the file. WAL mode; every record call commits before it
 * returns, so a kill at any moment loses at most what was not yet
 * recorded. The module calls nothing above it: sweep, emit and report
 * call it.
 */
#ifndef GT_DB_H
#define GT_DB_H

#include <stdio.h>

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
	/* shared memory, bytes: per block opted in, per SM, reserved per block
	 * (0 where the worker does not say; not stored) */
	long long smem_optin, smem_sm, smem_reserved;
	char driver[32];
	char cuda[32];           /* runtime version */
	char nvrtc[32];
	char cublas[32];
	char cublaslt[32];
	char source_hash[17];    /* legacy: hash of every template source; empty
				  * since candidates carry their own */
};

/* One candidate's outcome at (env, shape, m, phase). A figure that does
 * not exist is NaN or negative and is stored as NULL (every figure here
 * is a time, ratio, error or count, never below 0); start from
 * result_row_clear() or set -1 so nothing unset is stored as 0. */
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
	int waves;               /* plan_waves (gpu.h): most over the kernel steps; -1: not known */
	const char *run;         /* the sweep run that measured it (NULL: none) */
	int device;              /* the GPU it ran on (-1: not known) */
};

/* A sweep run's id as stored: its start, "2026-11-30T04:20:01.123Z". */
#define DB_RUN_MAX 32

/* Every figure of r absent (NaN, -1), every string NULL. */
void result_row_clear(struct result_row *r);

/* Open (creating and migrating as needed). Returns 0 or -1 (message printed
 * as "gemmtab: error: DB: ..."). Refuses a file that is not a gemmtab
 * database and one whose schema is newer than this binary knows. */
int db_open(const char *path, struct db **out);
/* The same, but a missing file is an error instead of a new database
 * (prune, migrate). Both roll back a hot journal a killed writer left and
 * leave the file in WAL mode. */
int db_open_existing(const char *path, struct db **out);
/* For readers (report, query, emit, bench): read only, never created,
 * never migrated: an older schema is refused with "run gemmtab migrate".
 * The busy timeout is set before the first read, so a writer's lock is
 * waited out, never read through; a hot journal (a killed writer's
 * uncommitted write) is refused, naming the command that rolls it back.
 * A WAL file on a read-only folder or mount is read immutable, only when
 * no -wal or -journal file beside it holds what the file lacks. */
int db_open_read(const char *path, struct db **out);
/* db_open_read, but an older schema is opened too (to be copied). */
int db_open_read_any(const char *path, struct db **out);
void db_close(struct db *db);
/* The schema version this gemmtab writes, and that of the file at path
 * (-1 when it cannot be read; -2 when a hot journal beside it, a killed
 * writer's, must be rolled back first: a writer's open does it). */
int db_schema_latest(void);
int db_file_version(const char *path);
/* The schema version of an open database (PRAGMA user_version). */
int db_schema_version(struct db *db);

/* Insert-or-get ids. Each returns 0 or -1. */
int db_env_id(struct db *db, const struct env_info *e, long long *id);
int db_shape_id(struct db *db, const struct shape *s, long long *id);
/* The id of a shape the database holds, without inserting: 1 (*id set),
 * 0 (not there) or -1 (for readers). */
int db_shape_find(struct db *db, const struct shape *s, long long *id);
/* A candidate is a template, its parameter text and the code key of what
 * it runs at a shape (codekey.h): the key its results are recorded under. */
int db_candidate_id(struct db *db, const char *tmpl, const char *params,
		    const char *code, long long *id);
/* Which candidate (and code key) template text source_hash compiles
 * (tmpl, params) to at shape, as a sweep or `gemmtab compile --db`
 * recorded it. Returns 1 (found: *id, code), 0 (not known) or -1. */
int db_variant(struct db *db, const char *tmpl, const char *params, long long shape,
	       const char *source_hash, long long *id, char code[17]);
/* The key db/rekey-4.map lists a (candidate, shape) of schema 3 under:
 * FNV-1a over template, its source hash, "n k", the dtypes and params. */
unsigned long long db_rekey4_key(const char *tmpl, const char *old, int n, int k,
				 const char *w, const char *x, const char *y, const char *params);
/* One (candidate, shape) that has results, for prune. */
struct db_pair {
	long long candidate_id, shape_id;
	char tmpl[64];
	char params[512];
	char code[17];
	struct shape s;             /* family, n, k and dtypes */
	long rows;                  /* its results */
};
/* Every such pair, ordered by candidate and shape, into a heap array
 * (caller frees). Returns the count or -1. */
long db_pairs(struct db *db, struct db_pair **out);

/* What db_prune drops. */
struct prune_counts {
	long results, candidates, variants, baselines, probes, envs;
};
/* In one transaction: the results of pairs drop[0..ndrop), every row of
 * the environments envs[0..nenv), then the candidates left with neither a
 * result nor a variant and the variants of candidates gone. With dry_run,
 * counts what would go and rolls back. Returns 0 or -1. */
int db_prune(struct db *db, const struct db_pair *drop, long ndrop, const long long *envs,
	     int nenv, int dry_run, struct prune_counts *c);
/* The best rows (db_best_rows) over the results of the pairs cur[0..n)
 * only: what report reads when it follows emit's current-code filter.
 * Returns the count or -1; *out is a heap array. */
struct best_row;
int db_best_rows_current(struct db *db, long long env, const struct db_pair *cur, long n,
			 struct best_row **out);
/* PRAGMA integrity_check: 0, or -1 with a message naming the check and
 * its first finding. On a read-only connection it checks a private
 * writable copy, since SQLite leaves CHECK constraints out of a read-only
 * schema. */
int db_integrity(struct db *db);
/* The checks emit's and report's reads make of every row they trust (an M
 * of 1..65536, figures finite and above 0, known dtypes, N and K above
 * 0), run over every environment's best and retest rows and floors.
 * Returns 0 or -1 (message naming the row and the check). */
int db_check_content(struct db *db);
/* VACUUM, then fold the -wal file into the database (the file alone holds
 * every row: what a copy or a read-only clone needs). Returns 0 or -1. */
int db_compact(struct db *db);

int db_record_variant(struct db *db, const char *tmpl, const char *params, long long shape,
		      const char *source_hash, long long cand);
/* A variant row for each pair whose hashes[i] (its template's text hash)
 * is not NULL, in one transaction; *added gets how many were new. */
int db_record_variants(struct db *db, const struct db_pair *pairs, const char *const *hashes,
		       long n, long *added);

/* Record one result (replacing an earlier row of the same key). Timing
 * figures (base_us .. pairs) are stored only when status is "ok"; absent
 * figures (NaN, negative) are stored as NULL. */
int db_record_result(struct db *db, long long env, long long shape,
		     long long cand, const struct result_row *r);
/* 1 if a row exists for (env, shape, cand, m, phase), whatever its status
 * (a crash is a result too), recorded at or after since (a UTC time as
 * recorded_at writes it, or a prefix of one: "2026-11-29T21:00"; NULL:
 * any time), 0 if not, -1 on error. */
int db_has_result(struct db *db, long long env, long long shape,
		  long long cand, int m, const char *phase, const char *since);

/* The row of (env, shape, cand, m, phase) recorded at or after since (as
 * db_has_result): its pairs into *pairs and its ratio into *ratio, both
 * -1 unless its status is ok. Returns 1, 0 when there is none, or -1. */
int db_result_figure(struct db *db, long long env, long long shape, long long cand, int m,
		     const char *phase, const char *since, int *pairs, double *ratio);

/* Up to max candidate ids with status ok in phase ("screen": the
 * finalists; "retest": the leaders) at (env, shape, m), best median ratio
 * first, after the skip best ones (a page of the ranking), and, when runs
 * is not NULL, the run that measured each ("" where none is recorded).
 * Returns the count or -1. */
int db_best(struct db *db, long long env, long long shape, int m, const char *phase, int skip,
	    long long *cand_ids, char (*runs)[DB_RUN_MAX], int max);
/* How many ok retests at (env, shape, m) run measured, or -1. */
int db_run_retests(struct db *db, long long env, long long shape, int m, const char *run);
/* The distinct params of up to max blas_lt candidates in orientation
 * orient (its symbol: t, row, n) measured ok at (env, shape, m), best
 * first (as the best view ranks them: the retested with >= 100 pairs
 * before the rest, each by that retest, else its best figure), into
 * params (caller frees each): what a space's cublaslt vary_seeds varies.
 * Returns the count or -1. */
int db_lt_seeds(struct db *db, long long env, long long shape, int m, const char *orient,
		char **params, int max);
/* The template and params of a candidate id (caller frees both). Returns
 * 0, or -1 if there is none or on error (message printed). */
int db_candidate_get(struct db *db, long long cand, char **tmpl, char **params);

/* Append a probe row (history is kept). family and config may be NULL,
 * bytes absent (NaN or negative). Returns 0 or -1. */
int db_record_probe(struct db *db, long long env, const char *what,
		    const char *family, double bytes, double us, const char *config);
/* 1 if the baselines at (env, shape, m) are recorded, 0 if not, -1 on
 * error. */
int db_has_baseline(struct db *db, long long env, long long shape, int m);
/* Record the baselines at (env, shape, m), measured on GPU device (-1:
 * not known), replacing an earlier row. Figures may be absent (NaN or
 * negative), lt_algo NULL. Returns 0 or -1. */
int db_record_baseline(struct db *db, long long env, long long shape, int m,
		       double cublas_us, double cublaslt_us, double ratio,
		       const char *lt_algo, int device);

/* The newest environment id in the database (for report): the one
 * inserted last. -1 if none (or on error, with a message). */
long long db_latest_env(struct db *db);
/* The environment with this id into *e. Returns 0, 1 if there is none
 * (nothing printed: the caller knows what the id meant), or -1 on error. */
int db_env_get(struct db *db, long long id, struct env_info *e);
/* The environment a reader command (report, emit) works on, into *id and
 * *e: the one its --env option named (arg > 0), else the newest. Returns
 * 0; 2 when arg names none ("gemmtab CMD: --env: ..." printed: bad
 * usage); 1 when the database holds none yet, or on error (message
 * printed). */
int db_env_pick(struct db *db, const char *cmd, int arg, long long *id,
		struct env_info *e);

/* What a (shape, m) runs under one env, as the report reads it: the `best`
 * view's row (see db/schema.sql), or, where no candidate has a timing but
 * a baseline row exists, that baseline alone (has_candidate 0). */
struct best_row {
	char family[FAMILY_MAX];
	int n, k;
	enum dtype w, x, y;
	int m;
	int has_candidate;          /* 0: baseline only, no candidate figures */
	char phase[8];              /* "screen" or "retest"; "" without candidate */
	int retested;               /* phase retest with >= 100 pairs */
	int pairs;                  /* -1 if absent */
	double base_us;             /* the chosen row's median baseline time */
	double cand_us, ratio, ratio_lo, ratio_hi;   /* NaN if absent */
	char tmpl[64];
	char params[512];
	int waves;                  /* the chosen result's waves; -1 if not known */
};
/* Every (shape, m) of env with a best row or a baseline, ordered by family,
 * n, k, m, into a heap array *out (caller frees). Returns the count or -1. */
int db_best_rows(struct db *db, long long env, struct best_row **out);

/* One timed retest (phase retest, status ok, a median ratio): what
 * `gemmtab emit` builds dispatch entries from. Whether its pairs are
 * enough is the caller's rule, not the query's. */
struct retest_row {
	char family[FAMILY_MAX];
	int n, k;
	enum dtype w, x, y;
	int m;
	char tmpl[64];
	char params[512];
	double ratio;               /* median paired base/cand */
	int pairs;                  /* -1 if absent */
	char code[17];              /* the candidate's code key (codekey.h) */
	long long shape_id, candidate_id;
};
/* Every such row of env, ordered by n, k, w, x, y, m, template, params,
 * family, into a heap array *out (caller frees). Returns the count or -1. */
int db_retest_rows(struct db *db, long long env, struct retest_row **out);

/* The newest practical floor probe of a family (the `floors` view). */
struct floor_row {
	char family[FAMILY_MAX];
	double bytes;               /* NaN if absent */
	double us;
	char config[128];           /* how the probe read it ("" if absent) */
};
/* Every family's floor under env, ordered by family, into a heap array
 * *out (caller frees). Returns the count or -1. */
int db_floors(struct db *db, long long env, struct floor_row **out);

/* A value of a query's row, typed as SQLite stores it; text is its text
 * (NULL for DB_NULL), valid until the sink's call returns. */
enum db_type { DB_NULL, DB_INTEGER, DB_REAL, DB_TEXT };
struct db_cell {
	enum db_type type;
	long long i;
	double r;
	const char *text;
};
/* Where db_query hands its rows: begin once per statement that has
 * columns, row per row, end after its last row. A nonzero return from any
 * stops the query and is returned. */
struct db_query_sink {
	void *ctx;
	int (*begin)(void *ctx, const char *sql, int ncols, const char *const *names);
	int (*row)(void *ctx, int ncols, const struct db_cell *cells);
	int (*end)(void *ctx);
};
/* Run the statements of sql in order, each one's rows into sink. Only
 * statements that do not write are run; `gemmtab query` is for reading.
 * Returns 0, a sink's nonzero return, or -1 (message printed). */
int db_query(struct db *db, const char *sql, const struct db_query_sink *sink);
/* The path db was opened by. */
const char *db_path(const struct db *db);

/* What db_merge folded in from one input. */
struct merge_counts {
	long long results;       /* the input's results */
	long long added;         /* of them, at a key the output did not have */
	long long same;          /* identical to the output's row there */
	long long replaced;      /* in conflict, and kept (the greater by the rule) */
	long long kept;          /* in conflict, the output's row kept */
	long long baselines;     /* the input's baselines (the same rule) */
	long long probes, probes_added;
};

/* Fold the database at src (the current schema; it is only read) into db,
 * in one transaction: environments matched by fingerprint (all but the
 * GPU's uuid), shapes by their fields, candidates by (template, params,
 * code); a result or baseline at a key db has already is kept once, the
 * greater of the two by (recorded_at, run, every figure), so that the
 * order of the inputs does not matter; a probe identical to one of db's
 * is not added again. Returns 0 or -1 (nothing written). */
int db_merge(struct db *db, const char *src, struct merge_counts *c);
/* Write a copy of db to path (VACUUM INTO: a read-only db too). */
int db_copy_to(struct db *db, const char *path);

#endif

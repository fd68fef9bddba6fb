/*
 * test_db.c: the results database: creation and migration, refusing files
 * it must not touch, insert-or-get ids, recording and resuming, replace
 * semantics, finalist order, NULL for absent figures, the views the
 * report reads, and query output.
 */
#include "check.h"
#include "db.h"
#include "embedded.h"
#include "fixture_db.h"
#include "query_print.h"
#include "util.h"

#include <dirent.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <unistd.h>

#include "scratch.h"

/* The output of a query in format (caller frees); NULL if it failed. */
static char *query(struct db *db, const char *sql, const char *format)
{
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);
	int r = query_fprint(db, sql, format, f);
	fclose(f);
	if (r) {
		free(buf);
		return NULL;
	}
	return buf;
}

#define CHECK_QUERY(db, sql, expect) do { \
	char *out_ = query(db, sql, "csv"); \
	CHECK_STR(out_, expect); \
	free(out_); \
	} while (0)

static const struct shape qkv = { .family = "qkv", .n = 2304, .k = 8192, .tol = 1e-2 };

/* A database with one env, the qkv shape and candidates c[0..n). */
static struct db *open_with(const char *name, long long *env, long long *shape,
			    long long *c, int n)
{
	struct db *db;
	struct env_info e;
	char *path = scratch(name);
	if (db_open(path, &db))
		die("cannot open %s", path);
	free(path);
	fixture_env(&e, "580.82.07");
	if (db_env_id(db, &e, env) || db_shape_id(db, &qkv, shape))
		die("cannot make ids");
	for (int i = 0; i < n; i++) {
		char params[32];
		snprintf(params, sizeof(params), "warps=%d", 1 << i);
		if (db_candidate_id(db, "gemv", params, "0123456789abcdef", &c[i]))
			die("cannot make candidate");
	}
	return db;
}

/* An ok row: times and ratio; spread +-0.05. */
static struct result_row ok_row(int m, const char *phase, double base, double cand,
				double ratio, int pairs)
{
	struct result_row r;
	result_row_clear(&r);
	r.m = m;
	r.phase = phase;
	r.status = "ok";
	r.err_global = 1e-3;
	r.err_row = 2e-3;
	r.base_us = base;
	r.cand_us = cand;
	r.ratio = ratio;
	r.ratio_lo = ratio - 0.05;
	r.ratio_hi = ratio + 0.05;
	r.pairs = pairs;
	r.regs = 40;
	r.local_bytes = 0;
	r.smem = 1024;
	r.waves = 1;
	return r;
}

TEST(open_creates_schema)
{
	struct db *db;
	char *path = scratch("create.db");
	CHECK_INT(access(path, F_OK), -1);
	CHECK_INT(db_open(path, &db), 0);
	CHECK_INT(db_schema_version(db), 6);
	CHECK_QUERY(db, "SELECT name FROM sqlite_master WHERE type = 'view' ORDER BY name",
		    "name\nbaselines\nbest\ncandidate_param\ncompile_errors\nenvs\nfailures\nfloors\n"
		    "progress\nunretested\nwaves\n");
	CHECK_QUERY(db, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name",
		    "name\nbaseline\ncandidate\nenv\nprobe\nresult\nshape\nvariant\n");
	CHECK_QUERY(db, "PRAGMA foreign_keys", "foreign_keys\n1\n");
	CHECK_QUERY(db, "PRAGMA application_id", "application_id\n1196250178\n");
	/* WAL mode: a write goes to path-wal while the database is open */
	struct env_info e;
	long long id;
	char *wal = xasprintf("%s-wal", path);
	fixture_env(&e, "580.82.07");
	CHECK_INT(db_env_id(db, &e, &id), 0);
	CHECK_INT(access(wal, F_OK), 0);
	db_close(db);
	free(wal);
	free(path);
}

TEST(reopen_is_idempotent)
{
	struct db *db;
	struct env_info e;
	long long id1, id2;
	char *path = scratch("reopen.db");
	fixture_env(&e, "580.82.07");
	CHECK_INT(db_open(path, &db), 0);
	CHECK_INT(db_env_id(db, &e, &id1), 0);
	db_close(db);
	CHECK_INT(db_open(path, &db), 0);
	CHECK_INT(db_schema_version(db), 6);
	CHECK_INT(db_env_id(db, &e, &id2), 0);
	CHECK_INT(id2, id1);
	CHECK_QUERY(db, "SELECT count(*) AS n FROM sqlite_master", "n\n24\n");
	db_close(db);
	CHECK_INT(db_open_existing(path, &db), 0);
	CHECK_INT(db_latest_env(db), id1);
	db_close(db);
	free(path);
}

/* A sweep resumed on another unit of the same GPU (another H200)
 * keeps its env, so nothing is measured twice; other software does not. */
TEST(env_ignores_the_unit)
{
	struct db *db;
	struct env_info e;
	long long id1, id2, id3;
	char *path = scratch("units.db");
	fixture_env(&e, "580.82.07");
	CHECK_INT(db_open(path, &db), 0);
	strcpy(e.gpu_uuid, "GPU-unit-one");
	CHECK_INT(db_env_id(db, &e, &id1), 0);
	strcpy(e.gpu_uuid, "GPU-unit-two");
	CHECK_INT(db_env_id(db, &e, &id2), 0);
	CHECK_INT(id2, id1);
	CHECK_QUERY(db, "SELECT count(*) AS n, min(gpu_uuid) AS u FROM env",
		    "n,u\n1,GPU-unit-one\n");
	strcpy(e.driver, "580.99.99");
	CHECK_INT(db_env_id(db, &e, &id3), 0);
	CHECK(id3 != id1);
	CHECK_QUERY(db, "SELECT count(*) AS n FROM env", "n\n2\n");
	db_close(db);
	free(path);
}

TEST(ids_are_stable)
{
	struct db *db;
	struct env_info e;
	long long env, env_again, env2, s1, s1_again, s2, c1, c1_again, c2;
	struct shape tighter = qkv;
	tighter.tol = 1e-3;
	char *path = scratch("ids.db");
	CHECK_INT(db_open(path, &db), 0);
	fixture_env(&e, "580.82.07");
	CHECK_INT(db_env_id(db, &e, &env), 0);
	CHECK_INT(db_env_id(db, &e, &env_again), 0);
	fixture_env(&e, "570.86.15");
	CHECK_INT(db_env_id(db, &e, &env2), 0);
	CHECK_INT(env_again, env);
	CHECK(env2 != env);
	CHECK_INT(db_latest_env(db), env2);
	CHECK_INT(db_shape_id(db, &qkv, &s1), 0);
	CHECK_INT(db_shape_id(db, &tighter, &s2), 0);
	CHECK_INT(db_shape_id(db, &qkv, &s1_again), 0);
	CHECK_INT(s1_again, s1);
	CHECK(s2 != s1);
	CHECK_INT(db_candidate_id(db, "gemv", "warps=8", "aaaa", &c1), 0);
	CHECK_INT(db_candidate_id(db, "gemv", "warps=8", "bbbb", &c2), 0);
	CHECK_INT(db_candidate_id(db, "gemv", "warps=8", "aaaa", &c1_again), 0);
	CHECK_INT(c1_again, c1);
	CHECK(c2 != c1);
	CHECK_QUERY(db, "SELECT count(*) AS n FROM candidate", "n\n2\n");

	struct env_info got;
	CHECK_INT(db_env_get(db, env2, &got), 0);
	CHECK_STR(got.driver, "570.86.15");
	CHECK_STR(got.source_hash, "0123456789abcdef");
	CHECK_INT(got.l2_bytes, 62914560);
	CHECK_INT(db_env_get(db, env2 + 100, &got), 1);

	char *tmpl, *params;
	CHECK_INT(db_candidate_get(db, c2, &tmpl, &params), 0);
	CHECK_STR(tmpl, "gemv");
	CHECK_STR(params, "warps=8");
	free(tmpl);
	free(params);
	fprintf(stderr, "  (one error expected)\n");
	CHECK_INT(db_candidate_get(db, c2 + 100, &tmpl, &params), -1);
	db_close(db);
	free(path);
}

TEST(record_and_resume)
{
	long long env, shape, c[2];
	struct db *db = open_with("resume.db", &env, &shape, c, 2);
	struct result_row r = ok_row(1, "screen", 13.4, 10.0, 1.34, 10);
	CHECK_INT(db_has_result(db, env, shape, c[0], 1, "screen", NULL), 0);
	CHECK_INT(db_record_result(db, env, shape, c[0], &r), 0);
	CHECK_INT(db_has_result(db, env, shape, c[0], 1, "screen", NULL), 1);
	/* since: a row counts only if recorded at or after the time */
	CHECK_INT(db_has_result(db, env, shape, c[0], 1, "screen", "2000-01-01"), 1);
	CHECK_INT(db_has_result(db, env, shape, c[0], 1, "screen", "2999-01-01T00:00"), 0);
	CHECK_INT(db_has_result(db, env, shape, c[0], 1, "retest", NULL), 0);
	CHECK_INT(db_has_result(db, env, shape, c[0], 8, "screen", NULL), 0);
	CHECK_INT(db_has_result(db, env, shape, c[1], 1, "screen", NULL), 0);
	/* a crash is a result: a resumed sweep does not retry it */
	result_row_clear(&r);
	r.m = 1;
	r.phase = "screen";
	r.status = "fault";
	r.reason = "illegal memory access";
	CHECK_INT(db_record_result(db, env, shape, c[1], &r), 0);
	CHECK_INT(db_has_result(db, env, shape, c[1], 1, "screen", NULL), 1);
	/* an unknown phase and a dangling id are refused */
	fprintf(stderr, "  (two errors expected)\n");
	r.phase = "final";
	CHECK_INT(db_record_result(db, env, shape, c[1], &r), -1);
	r.phase = "screen";
	CHECK_INT(db_record_result(db, env, shape, c[1] + 100, &r), -1);
	db_close(db);
}

TEST(records_are_visible_at_once)
{
	struct db *writer, *reader;
	struct env_info e;
	long long env, shape, cand;
	char *path = scratch("two.db");
	fixture_env(&e, "580.82.07");
	CHECK_INT(db_open(path, &writer), 0);
	CHECK_INT(db_open_existing(path, &reader), 0);
	CHECK_INT(db_env_id(writer, &e, &env), 0);
	CHECK_INT(db_shape_id(writer, &qkv, &shape), 0);
	CHECK_INT(db_candidate_id(writer, "gemv", "warps=8", "x", &cand), 0);
	CHECK_INT(db_has_result(reader, env, shape, cand, 1, "screen", NULL), 0);
	struct result_row r = ok_row(1, "screen", 13.4, 10.0, 1.34, 10);
	CHECK_INT(db_record_result(writer, env, shape, cand, &r), 0);
	CHECK_INT(db_has_result(reader, env, shape, cand, 1, "screen", NULL), 1);
	db_close(reader);
	db_close(writer);
	free(path);
}

TEST(record_replaces)
{
	long long env, shape, c[1];
	struct db *db = open_with("replace.db", &env, &shape, c, 1);
	struct result_row r = ok_row(1, "screen", 13.4, 10.0, 1.34, 10);
	CHECK_INT(db_record_result(db, env, shape, c[0], &r), 0);
	r = ok_row(1, "screen", 13.5, 9.0, 1.5, 20);
	CHECK_INT(db_record_result(db, env, shape, c[0], &r), 0);
	r = ok_row(1, "retest", 13.6, 9.5, 1.43, 200);
	CHECK_INT(db_record_result(db, env, shape, c[0], &r), 0);
	CHECK_QUERY(db, "SELECT phase, base_us, cand_us, ratio, pairs FROM result "
		    "ORDER BY phase", "phase,base_us,cand_us,ratio,pairs\n"
		    "retest,13.6,9.5,1.43,200\nscreen,13.5,9.0,1.5,20\n");
	CHECK_INT(db_record_baseline(db, env, shape, 1, 13.4, 13.3, 1.01, "algo=1", -1), 0);
	CHECK_INT(db_record_baseline(db, env, shape, 1, 13.2, NAN, NAN, NULL, -1), 0);
	CHECK_QUERY(db, "SELECT m, cublas_us, cublaslt_us, ratio, lt_algo FROM baseline",
		    "m,cublas_us,cublaslt_us,ratio,lt_algo\n1,13.2,,,\n");
	db_close(db);
}

TEST(phase_best_order)
{
	long long env, shape, c[6], got[8];
	struct db *db = open_with("finalists.db", &env, &shape, c, 6);
	static const double ratio[] = { 1.1, 1.5, 0.9, 2.0, 1.3, 3.0 };
	for (int i = 0; i < 6; i++) {
		struct result_row r = ok_row(1, "screen", 10, 10 / ratio[i], ratio[i], 10);
		if (i == 3) {
			r.status = "fail";          /* never a finalist */
			r.reason = "row error";
		}
		if (i == 5)
			r.m = 8;                    /* another M */
		CHECK_INT(db_record_result(db, env, shape, c[i], &r), 0);
	}
	struct result_row retest = ok_row(1, "retest", 10, 2.5, 4.0, 200);
	CHECK_INT(db_record_result(db, env, shape, c[0], &retest), 0);

	CHECK_INT(db_best(db, env, shape, 1, "screen", 0, got, NULL, 3), 3);
	CHECK_INT(got[0], c[1]);
	CHECK_INT(got[1], c[4]);
	CHECK_INT(got[2], c[0]);
	CHECK_INT(db_best(db, env, shape, 1, "screen", 0, got, NULL, 8), 4);
	CHECK_INT(got[3], c[2]);
	/* a page further down the ranking */
	CHECK_INT(db_best(db, env, shape, 1, "screen", 2, got, NULL, 8), 2);
	CHECK_INT(got[0], c[0]);
	CHECK_INT(got[1], c[2]);
	CHECK_INT(db_best(db, env, shape, 1, "screen", 4, got, NULL, 8), 0);
	CHECK_INT(db_best(db, env, shape, 8, "screen", 0, got, NULL, 8), 1);
	CHECK_INT(got[0], c[5]);
	CHECK_INT(db_best(db, env, shape, 16, "screen", 0, got, NULL, 8), 0);
	/* the retests ranked alone: c[0]'s, then c[4]'s below it */
	struct result_row second = ok_row(1, "retest", 10, 5.0, 2.0, 200);
	CHECK_INT(db_record_result(db, env, shape, c[4], &second), 0);
	CHECK_INT(db_best(db, env, shape, 1, "retest", 0, got, NULL, 8), 2);
	CHECK_INT(got[0], c[0]);
	CHECK_INT(got[1], c[4]);
	CHECK_INT(db_best(db, env, shape, 1, "retest", 1, got, NULL, 8), 1);
	CHECK_INT(got[0], c[4]);
	db_close(db);
}

/* Each retest's run comes back with it, best ratio first ("" where none
 * was recorded), and a run's retests at an M are counted. */
TEST(retest_runs)
{
	long long env, shape, c[4], got[4];
	char runs[4][DB_RUN_MAX];
	struct db *db = open_with("runs.db", &env, &shape, c, 4);
	static const double ratio[] = { 1.2, 1.5, 1.1, 1.3 };
	static const char *const run[] = { "2026-11-30T04:00:00.000Z", "2026-11-30T05:00:00.000Z",
					   NULL, "2026-11-30T05:00:00.000Z" };
	for (int i = 0; i < 4; i++) {
		struct result_row r = ok_row(8, "retest", 10, 10 / ratio[i], ratio[i], 200);
		r.run = run[i];
		CHECK_INT(db_record_result(db, env, shape, c[i], &r), 0);
	}
	struct result_row scr = ok_row(8, "screen", 10, 5, 2.0, 10);   /* not a retest */
	scr.run = run[1];
	CHECK_INT(db_record_result(db, env, shape, c[2], &scr), 0);
	CHECK_INT(db_best(db, env, shape, 8, "retest", 0, got, runs, 4), 4);
	CHECK_INT(got[0], c[1]);
	CHECK_STR(runs[0], run[1]);
	CHECK_INT(got[1], c[3]);
	CHECK_INT(got[2], c[0]);
	CHECK_STR(runs[2], run[0]);
	CHECK_INT(got[3], c[2]);
	CHECK_STR(runs[3], "");
	CHECK_INT(db_best(db, env, shape, 8, "retest", 3, got, runs, 4), 1);
	CHECK_INT(got[0], c[2]);
	CHECK_INT(db_best(db, env, shape, 1, "retest", 0, got, runs, 4), 0);
	CHECK_INT(db_run_retests(db, env, shape, 8, run[1]), 2);
	CHECK_INT(db_run_retests(db, env, shape, 8, run[0]), 1);
	CHECK_INT(db_run_retests(db, env, shape, 8, "2026-11-30T06:00:00.000Z"), 0);
	CHECK_INT(db_run_retests(db, env, shape, 1, run[1]), 0);
	db_close(db);
}

TEST(absent_figures_are_null)
{
	long long env, shape, c[2];
	struct db *db = open_with("nulls.db", &env, &shape, c, 2);
	/* a failed candidate whose row still holds stray timings: not stored */
	struct result_row r = ok_row(1, "screen", 13.4, 0, 0, 0);
	r.status = "fail";
	r.reason = "row 3";
	r.err_row = -1;                 /* absent, as a negative figure */
	r.regs = -1;
	CHECK_INT(db_record_result(db, env, shape, c[0], &r), 0);
	/* a pruned one starts from result_row_clear: no figure at all */
	result_row_clear(&r);
	r.m = 1;
	r.phase = "screen";
	r.status = "pruned";
	CHECK_INT(db_record_result(db, env, shape, c[1], &r), 0);
	CHECK_QUERY(db, "SELECT status, reason, err_global, err_row, base_us, cand_us, "
		    "ratio, ratio_lo, ratio_hi, pairs, regs, local_bytes, smem, waves FROM "
		    "result ORDER BY id",
		    "status,reason,err_global,err_row,base_us,cand_us,ratio,ratio_lo,"
		    "ratio_hi,pairs,regs,local_bytes,smem,waves\n"
		    "fail,row 3,0.001,,,,,,,,,0,1024,1\n"
		    "pruned,,,,,,,,,,,,,\n");
	CHECK_QUERY(db, "SELECT count(*) AS n FROM result WHERE cand_us = 0 OR pairs = 0",
		    "n\n0\n");
	CHECK_INT(db_record_probe(db, env, "overhead", NULL, NAN, 2.9, NULL), 0);
	CHECK_QUERY(db, "SELECT what, family IS NULL AS f, bytes IS NULL AS b, us, "
		    "config IS NULL AS c FROM probe", "what,f,b,us,c\noverhead,1,1,2.9,1\n");
	db_close(db);
}

/* A database as schema version 1 wrote it (db/schema.sql alone), one ok
 * result in it: step 2 adds result.waves, NULL for what was there. */
/* Schema 3 -> 4 re-keys the (candidate, shape)s of the template texts
 * db/rekey-4.map lists: their results move to the candidate of the code
 * key the map gives, with a variant row for the text; other rows keep
 * their text's hash; a candidate left without results goes. */
TEST(migrates_version_3_rekeys)
{
	sqlite3 *h;
	char *path = scratch("v3.db");
	const char *old = "a8d5f2ca73f409d1";   /* blas_hilo's text when the map was made */
	char key[17], want[40] = "";
	hash_hex(db_rekey4_key("blas_hilo", old, 256, 8192, "fp32", "bf16", "fp32", ""), key);
	const char *map = embedded_text("db/rekey-4.map");
	const char *line = map ? strstr(map, key) : NULL;
	CHECK(line != NULL);
	if (line)
		snprintf(want, sizeof(want), "code\n%.16s\n", line + 17);
	CHECK_INT(sqlite3_open(path, &h), SQLITE_OK);
	CHECK_INT(sqlite3_exec(h, embedded_text("db/schema.sql"), NULL, NULL, NULL), SQLITE_OK);
	CHECK_INT(sqlite3_exec(h, "ALTER TABLE result ADD COLUMN waves INTEGER;"
			       "ALTER TABLE result ADD COLUMN run TEXT;"
			       "PRAGMA application_id = 1196250178; PRAGMA user_version = 3;"
			       "INSERT INTO env (gpu_name, gpu_uuid, sm_count, sm_clock_mhz, "
			       "mem_clock_mhz, l2_bytes, driver, cuda, nvrtc, cublas, cublaslt, "
			       "source_hash) VALUES ('H', 'u', 132, 1980, 3201, 1, 'd', 'c', 'n', "
			       "'b', 'l', '');"
			       "INSERT INTO shape (family, n, k, w, x, y, tol) VALUES "
			       "('router', 256, 8192, 'fp32', 'bf16', 'fp32', 0.0001);"
			       "INSERT INTO candidate (template, params, source_hash) VALUES "
			       "('blas_hilo', '', 'a8d5f2ca73f409d1'), ('gemv', 'warps=1', 's');"
			       "INSERT INTO result (env_id, shape_id, candidate_id, m, phase, status, "
			       "cand_us) VALUES (1, 1, 1, 1, 'screen', 'ok', 9.5), "
			       "(1, 1, 1, 8, 'retest', 'ok', 9.0), (1, 1, 2, 1, 'screen', 'ok', 7.0);",
			       NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);

	struct db *db;
	CHECK_INT(db_open_existing(path, &db), 0);
	CHECK_INT(db_schema_version(db), 6);
	CHECK_QUERY(db, "SELECT c.code FROM result r JOIN candidate c ON c.id = r.candidate_id "
		    "WHERE c.template = 'blas_hilo' GROUP BY c.code", want);
	CHECK_QUERY(db, "SELECT count(*) AS n FROM result r JOIN candidate c ON "
		    "c.id = r.candidate_id WHERE c.template = 'blas_hilo'", "n\n2\n");
	/* blas_hilo launches no kernel of ours: its key needs no compile, so
	 * the variant map does not hold it */
	CHECK_QUERY(db, "SELECT count(*) AS n FROM variant", "n\n0\n");
	/* the old blas_hilo row went with its last result */
	CHECK_QUERY(db, "SELECT template, code = 's' AS kept FROM candidate ORDER BY template",
		    "template,kept\nblas_hilo,0\ngemv,1\n");
	db_close(db);
	free(path);
}

TEST(migrates_version_1)
{
	sqlite3 *h;
	char *path = scratch("v1.db");
	CHECK_INT(sqlite3_open(path, &h), SQLITE_OK);
	CHECK_INT(sqlite3_exec(h, embedded_text("db/schema.sql"), NULL, NULL, NULL), SQLITE_OK);
	CHECK_INT(sqlite3_exec(h, "PRAGMA application_id = 1196250178; PRAGMA user_version = 1;"
			       "INSERT INTO env (gpu_name, gpu_uuid, sm_count, sm_clock_mhz, "
			       "mem_clock_mhz, l2_bytes, driver, cuda, nvrtc, cublas, cublaslt, "
			       "source_hash) VALUES ('H', 'u', 132, 1980, 3201, 1, 'd', 'c', 'n', "
			       "'b', 'l', 's');"
			       "INSERT INTO shape (family, n, k, w, x, y, tol) VALUES "
			       "('qkv', 2304, 8192, 'bf16', 'bf16', 'bf16', 0.01);"
			       "INSERT INTO candidate (template, params, source_hash) VALUES "
			       "('gemv', 'warps=1', 's');"
			       "INSERT INTO result (env_id, shape_id, candidate_id, m, phase, status, "
			       "cand_us) VALUES (1, 1, 1, 1, 'screen', 'ok', 9.5);",
			       NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);

	struct db *db;
	CHECK_INT(db_open_existing(path, &db), 0);
	CHECK_INT(db_schema_version(db), 6);
	CHECK_QUERY(db, "SELECT cand_us, waves IS NULL AS w, run IS NULL AS r FROM result",
		    "cand_us,w,r\n9.5,1,1\n");
	/* a text db/rekey-4.map does not know keeps its hash as its key */
	CHECK_QUERY(db, "SELECT code FROM candidate", "code\ns\n");
	/* step 6: its parameters by name */
	CHECK_QUERY(db, "SELECT json_extract(params_json, '$.warps') AS w, json_valid(params_json) "
		    "AS v FROM candidate", "w,v\n1,1\n");
	CHECK_QUERY(db, "SELECT name, value, typeof(value) AS t FROM candidate_param",
		    "name,value,t\nwarps,1,integer\n");
	struct result_row r = ok_row(8, "screen", 13.6, 12.0, 1.13, 10);
	r.waves = 2;
	CHECK_INT(db_record_result(db, 1, 1, 1, &r), 0);
	CHECK_QUERY(db, "SELECT m, waves FROM result ORDER BY m", "m,waves\n1,\n8,2\n");
	db_close(db);
	/* opened again: nothing left to migrate */
	CHECK_INT(db_open_existing(path, &db), 0);
	CHECK_INT(db_schema_version(db), 6);
	db_close(db);
	free(path);
}

/* Set the 4-byte big-endian user_version (offset 60 of the header). */
static void poke_user_version(const char *path, unsigned v)
{
	unsigned char b[4] = { v >> 24, v >> 16, v >> 8, v };
	FILE *f = fopen(path, "r+b");
	if (!f || fseek(f, 60, SEEK_SET) || fwrite(b, 1, 4, f) != 4)
		die("cannot patch %s", path);
	fclose(f);
}

TEST(refuses_what_it_must_not_touch)
{
	struct db *db;
	char *path = scratch("newer.db");
	CHECK_INT(db_open(path, &db), 0);
	db_close(db);
	poke_user_version(path, 99);
	fprintf(stderr, "  (three errors expected)\n");
	CHECK_INT(db_open(path, &db), -1);
	CHECK(db == NULL);
	/* tables but no schema version: someone else's database */
	poke_user_version(path, 0);
	CHECK_INT(db_open(path, &db), -1);
	free(path);

	/* text longer than a database header, not a database */
	char garbage[512];
	memset(garbage, 'x', sizeof(garbage));
	path = scratch("garbage.db");
	CHECK_INT(write_file_atomic(path, garbage, sizeof(garbage)), 0);
	CHECK_INT(db_open(path, &db), -1);
	free(path);

	path = scratch("missing.db");
	fprintf(stderr, "  (one more)\n");
	CHECK_INT(db_open_existing(path, &db), -1);
	CHECK_INT(access(path, F_OK), -1);
	free(path);
}

/* The seeds of a cuBLASLt search: blas_lt only, one orientation, one row
 * per params whatever its source hash, the retested first */
TEST(lt_seeds_rank)
{
	long long env, shape, c[8];
	struct db *db = open_with("seeds.db", &env, &shape, c, 0);
	static const struct {
		const char *tmpl, *params, *hash;
		int m;
		double screen, retest;
		int pairs;
	} rows[] = {
		{ "blas_lt", "orient=t,algo=66,tile=1", "h1", 1, 1.5, NAN, 0 },
		{ "blas_lt", "orient=t,algo=66,tile=2", "h1", 1, 1.2, 1.3, 200 },
		{ "blas_lt", "orient=t,algo=66,tile=3", "h1", 1, 1.4, 1.1, 200 },
		/* tile 2 again under another source hash: one seed */
		{ "blas_lt", "orient=t,algo=66,tile=2", "h2", 1, 1.25, NAN, 0 },
		{ "blas_lt", "orient=row,algo=66,tile=5", "h1", 1, 2.0, NAN, 0 },
		/* a short retest ranks with the screens, by its best figure */
		{ "blas_lt", "orient=t,algo=66,tile=4", "h1", 1, 1.9, 1.8, 50 },
		{ "blas_lt", "orient=t,algo=66,tile=6", "h1", 8, 3.0, NAN, 0 },
		{ "gemv", "orient=t,warps=4", "h1", 1, 4.0, NAN, 0 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct result_row r = ok_row(rows[i].m, "screen", 10, 10 / rows[i].screen,
					     rows[i].screen, 10);
		CHECK_INT(db_candidate_id(db, rows[i].tmpl, rows[i].params, rows[i].hash, &c[i]), 0);
		CHECK_INT(db_record_result(db, env, shape, c[i], &r), 0);
		if (!isnan(rows[i].retest)) {
			r = ok_row(rows[i].m, "retest", 10, 10 / rows[i].retest, rows[i].retest,
				   rows[i].pairs);
			CHECK_INT(db_record_result(db, env, shape, c[i], &r), 0);
		}
	}
	char *got[8];
	int n = db_lt_seeds(db, env, shape, 1, "t", got, 8);
	CHECK_INT(n, 4);
	static const char *const want[] = { "orient=t,algo=66,tile=2", "orient=t,algo=66,tile=3",
					    "orient=t,algo=66,tile=4", "orient=t,algo=66,tile=1" };
	for (int i = 0; i < n && i < 4; i++)
		CHECK_STR(got[i], want[i]);
	for (int i = 0; i < n; i++)
		free(got[i]);
	n = db_lt_seeds(db, env, shape, 1, "t", got, 2);
	CHECK_INT(n, 2);
	for (int i = 0; i < n && i < 2; i++)
		CHECK_STR(got[i], want[i]);
	for (int i = 0; i < n; i++)
		free(got[i]);
	n = db_lt_seeds(db, env, shape, 1, "row", got, 8);
	CHECK_INT(n, 1);
	if (n == 1) {
		CHECK_STR(got[0], "orient=row,algo=66,tile=5");
		free(got[0]);
	}
	CHECK_INT(db_lt_seeds(db, env, shape, 1, "n", got, 8), 0);
	n = db_lt_seeds(db, env, shape, 8, "t", got, 8);
	CHECK_INT(n, 1);
	if (n == 1) {
		CHECK_STR(got[0], "orient=t,algo=66,tile=6");
		free(got[0]);
	}
	CHECK_INT(db_lt_seeds(db, env + 1, shape, 1, "t", got, 8), 0);
	db_close(db);
}

TEST(best_view_prefers_retest)
{
	long long env, shape, c[4];
	struct db *db = open_with("best.db", &env, &shape, c, 4);
	struct result_row r;
	r = ok_row(1, "screen", 13.4, 8.0, 1.675, 10);      /* best screen */
	CHECK_INT(db_record_result(db, env, shape, c[0], &r), 0);
	r = ok_row(1, "retest", 13.4, 7.0, 1.9, 50);        /* too few pairs */
	CHECK_INT(db_record_result(db, env, shape, c[1], &r), 0);
	r = ok_row(1, "retest", 13.4, 10.0, 1.34, 100);     /* the chosen one */
	CHECK_INT(db_record_result(db, env, shape, c[2], &r), 0);
	r = ok_row(8, "screen", 13.6, 12.0, 1.13, 10);      /* screen only at 8 */
	CHECK_INT(db_record_result(db, env, shape, c[3], &r), 0);
	r = ok_row(8, "retest", 13.6, 12.0, 1.05, 60);
	CHECK_INT(db_record_result(db, env, shape, c[2], &r), 0);
	/* baselines: shadowed at M=1, alone at M=16 */
	CHECK_INT(db_record_baseline(db, env, shape, 1, 13.0, NAN, NAN, NULL, -1), 0);
	CHECK_INT(db_record_baseline(db, env, shape, 16, 13.7, 13.5, 1.01, "algo=3", -1), 0);

	struct best_row *rows;
	int n = db_best_rows(db, env, &rows);
	CHECK_INT(n, 3);
	if (n == 3) {
		CHECK_STR(rows[0].family, "qkv");
		CHECK_INT(rows[0].m, 1);
		CHECK_INT(rows[0].has_candidate, 1);
		CHECK_INT(rows[0].retested, 1);
		CHECK_STR(rows[0].phase, "retest");
		CHECK_INT(rows[0].pairs, 100);
		CHECK_NEAR(rows[0].base_us, 13.4, 0);
		CHECK_NEAR(rows[0].ratio, 1.34, 0);
		CHECK_STR(rows[0].params, "warps=4");
		CHECK_INT(rows[1].m, 8);
		CHECK_INT(rows[1].retested, 0);
		CHECK_STR(rows[1].phase, "screen");
		CHECK_NEAR(rows[1].ratio, 1.13, 0);
		CHECK_STR(rows[1].params, "warps=8");
		CHECK_INT(rows[0].waves, 1);    /* the chosen result's, as recorded */
		CHECK_INT(rows[2].m, 16);
		CHECK_INT(rows[2].has_candidate, 0);
		CHECK_INT(rows[2].pairs, -1);
		CHECK_INT(rows[2].waves, -1);
		CHECK_NEAR(rows[2].base_us, 13.7, 0);
		CHECK(isnan(rows[2].ratio) && isnan(rows[2].cand_us));
		CHECK_INT(rows[2].n, 2304);
		CHECK_INT(rows[2].w, DT_BF16);
	}
	free(rows);
	CHECK_INT(db_best_rows(db, env + 1, &rows), 0);
	free(rows);
	db_close(db);
}

TEST(fixture_views)
{
	struct db *db;
	struct floor_row *floors;
	char *path = scratch("fixture.db");
	CHECK_INT(fixture_db_build(path), 0);
	CHECK_INT(db_open_existing(path, &db), 0);
	CHECK_INT(db_latest_env(db), FIXTURE_ENV);
	int n = db_floors(db, FIXTURE_ENV, &floors);
	CHECK_INT(n, 6);
	if (n == 6) {
		CHECK_STR(floors[2].family, "qkv");
		CHECK_NEAR(floors[2].us, 9.2, 0);       /* the newer probe */
		CHECK_NEAR(floors[2].bytes, 37748736, 0);
		CHECK_STR(floors[5].family, "unpooler_slice");
	}
	free(floors);
	CHECK_QUERY(db, "SELECT status, count FROM failures",
		    "status,count\ncompile_error,1\nfail,1\nfail,1\npruned,1\ntimeout,1\n");
	CHECK_QUERY(db, "SELECT template, params FROM compile_errors",
		    "template,params\ngemv,\"warps=32,rows=8\"\n");
	CHECK_QUERY(db, "SELECT total, ok, fail, pruned, compile_error, other FROM progress "
		    "WHERE env_id = 2 AND family = 'qkv' AND m = 1 AND phase = 'screen'",
		    "total,ok,fail,pruned,compile_error,other\n5,2,1,1,1,0\n");
	db_close(db);
	free(path);
}

TEST(query_formats)
{
	struct db *db;
	char *path = scratch("query.db"), *out;
	static const char sql[] = "SELECT 1 AS n, 'a,b' AS text, NULL AS none "
		"UNION ALL SELECT 22, 'p|q \"r\"', 3.5";
	CHECK_INT(db_open(path, &db), 0);
	out = query(db, sql, "text");
	CHECK_STR(out, " n  text     none\n"
		       "--  -------  ----\n"
		       " 1  a,b      NULL\n"
		       "22  p|q \"r\"   3.5\n");
	free(out);
	out = query(db, sql, "csv");
	CHECK_STR(out, "n,text,none\n1,\"a,b\",\n22,\"p|q \"\"r\"\"\",3.5\n");
	free(out);
	out = query(db, sql, "md");
	CHECK_STR(out, "| n | text | none |\n|---:|---|---:|\n"
		       "| 1 | a,b | NULL |\n| 22 | p\\|q \"r\" | 3.5 |\n");
	free(out);
	out = query(db, "SELECT 1 AS a; -- two statements\n SELECT 2 AS b;", "csv");
	CHECK_STR(out, "a\n1\n\nb\n2\n");
	free(out);
	fprintf(stderr, "  (three errors expected)\n");
	CHECK(query(db, "DELETE FROM env", "csv") == NULL);
	CHECK(query(db, "SELECT nonsense FROM nowhere", "csv") == NULL);
	CHECK(query(db, "SELECT 1", "xml") == NULL);
	db_close(db);
	free(path);
}

TESTS(T(open_creates_schema), T(reopen_is_idempotent), T(env_ignores_the_unit), T(ids_are_stable),
      T(record_and_resume), T(records_are_visible_at_once), T(record_replaces),
      T(phase_best_order), T(retest_runs), T(lt_seeds_rank), T(absent_figures_are_null),
      T(migrates_version_1), T(migrates_version_3_rekeys), T(refuses_what_it_must_not_touch), T(best_view_prefers_retest),
      T(fixture_views), T(query_formats))

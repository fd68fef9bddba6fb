/*
 * db_merge.c: folding one database into another in one transaction, by
 * keys that do not depend on either file's row ids, so that the order of
 * the inputs does not matter.
 */
#include "db_internal.h"
#include "util.h"

#include <string.h>

/* The columns that tell two environments apart (all but the GPU's uuid:
 * identical GPUs share one, as db_env_id matches them). */
#define ENV_FP(a, b) \
	a ".gpu_name = " b ".gpu_name AND " a ".sm_count = " b ".sm_count AND " \
	a ".sm_clock_mhz = " b ".sm_clock_mhz AND " a ".mem_clock_mhz = " b ".mem_clock_mhz AND " \
	a ".l2_bytes = " b ".l2_bytes AND " a ".driver = " b ".driver AND " a ".cuda = " b ".cuda AND " \
	a ".nvrtc = " b ".nvrtc AND " a ".cublas = " b ".cublas AND " a ".cublaslt = " b \
	".cublaslt AND " a ".source_hash = " b ".source_hash"
#define RES_COLS "status, reason, err_global, err_row, base_us, cand_us, ratio, ratio_lo, " \
	"ratio_hi, pairs, regs, local_bytes, smem, recorded_at, waves, run, device"
/* The order two rows of one key are kept by (the greater stays): when it
 * was recorded, then by which run, then every figure, so that the rule
 * is total and merge A B keeps what merge B A keeps. */
#define RES_KEY(t) \
	"(" t ".recorded_at || '|' || coalesce(" t ".run, '') || '|' || quote(" t ".status) || " \
	"quote(" t ".reason) || quote(" t ".ratio) || quote(" t ".cand_us) || quote(" t ".base_us) || " \
	"quote(" t ".pairs) || quote(" t ".err_global) || quote(" t ".err_row) || quote(" t \
	".ratio_lo) || quote(" t ".ratio_hi) || quote(" t ".regs) || quote(" t ".local_bytes) || " \
	"quote(" t ".smem) || quote(" t ".waves) || quote(" t ".device))"
#define BASE_COLS "cublas_us, cublaslt_us, ratio, lt_algo, recorded_at, device"
#define BASE_KEY(t) \
	"(" t ".recorded_at || '|' || quote(" t ".cublas_us) || quote(" t ".cublaslt_us) || " \
	"quote(" t ".ratio) || quote(" t ".lt_algo) || quote(" t ".device))"

static long long count_of(struct db *db, const char *sql)
{
	sqlite3_stmt *st;
	long long n = -1;
	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK)
		return db_error(db, "merge");
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

int db_merge(struct db *db, const char *src, struct merge_counts *c)
{
	memset(c, 0, sizeof(*c));
	char *attach = sqlite3_mprintf("ATTACH %Q AS src", src);
	int rc = db_exec(db, attach, src);
	sqlite3_free(attach);
	if (rc)
		return -1;
	static const char *const steps[] = {
		"BEGIN",
		/* environments by fingerprint */
		"INSERT INTO main.env (" ENV_COLS ", first_seen) SELECT gpu_name, min(gpu_uuid), "
		"sm_count, sm_clock_mhz, mem_clock_mhz, l2_bytes, driver, cuda, nvrtc, cublas, "
		"cublaslt, source_hash, min(first_seen) FROM src.env e WHERE NOT EXISTS (SELECT 1 "
		"FROM main.env d WHERE " ENV_FP("d", "e") ") GROUP BY gpu_name, sm_count, "
		"sm_clock_mhz, mem_clock_mhz, l2_bytes, driver, cuda, nvrtc, cublas, cublaslt, "
		"source_hash",
		"CREATE TEMP TABLE menv AS SELECT e.id AS s, (SELECT max(d.id) FROM main.env d "
		"WHERE " ENV_FP("d", "e") ") AS d FROM src.env e",
		"INSERT OR IGNORE INTO main.shape (family, n, k, w, x, y, tol) SELECT family, n, "
		"k, w, x, y, tol FROM src.shape",
		"CREATE TEMP TABLE mshape AS SELECT s.id AS s, d.id AS d FROM src.shape s JOIN "
		"main.shape d USING (family, n, k, w, x, y, tol)",
		/* candidates by their key */
		"INSERT INTO main.candidate (template, params, code, pkey) SELECT template, params, "
		"code, pkey FROM src.candidate c WHERE NOT EXISTS (SELECT 1 FROM main.candidate d "
		"WHERE d.pkey = c.pkey AND d.template = c.template AND d.params = c.params AND "
		"d.code = c.code)",
		"CREATE TEMP TABLE mcand AS SELECT c.id AS s, (SELECT min(d.id) FROM main.candidate d "
		"WHERE d.pkey = c.pkey AND d.template = c.template AND d.params = c.params AND "
		"d.code = c.code) AS d FROM src.candidate c",
		"CREATE INDEX temp.mcand_s ON mcand (s)",
		"INSERT OR IGNORE INTO main.variant (candidate_id, shape_id, source_hash) SELECT "
		"mc.d, ms.d, v.source_hash FROM src.variant v JOIN mcand mc ON mc.s = v.candidate_id "
		"JOIN mshape ms ON ms.s = v.shape_id",
		"CREATE TEMP TABLE mres AS SELECT me.d AS env_id, ms.d AS shape_id, mc.d AS "
		"candidate_id, r.m, r.phase, " RES_COLS " FROM src.result r JOIN menv me ON me.s = "
		"r.env_id JOIN mshape ms ON ms.s = r.shape_id JOIN mcand mc ON mc.s = r.candidate_id",
		"CREATE TEMP TABLE mbase AS SELECT me.d AS env_id, ms.d AS shape_id, b.m, " BASE_COLS
		" FROM src.baseline b JOIN menv me ON me.s = b.env_id JOIN mshape ms ON ms.s = "
		"b.shape_id",
	};
	for (size_t i = 0; i < ARRAY_SIZE(steps); i++)
		if (db_exec(db, steps[i], src))
			goto fail;
	c->results = count_of(db, "SELECT count(*) FROM mres");
	c->added = count_of(db, "SELECT count(*) FROM mres t WHERE NOT EXISTS (SELECT 1 FROM "
			   "main.result r WHERE r.env_id = t.env_id AND r.shape_id = t.shape_id AND "
			   "r.candidate_id = t.candidate_id AND r.m = t.m AND r.phase = t.phase)");
	c->same = count_of(db, "SELECT count(*) FROM mres t JOIN main.result r ON r.env_id = "
			  "t.env_id AND r.shape_id = t.shape_id AND r.candidate_id = t.candidate_id "
			  "AND r.m = t.m AND r.phase = t.phase WHERE " RES_KEY("r") " = " RES_KEY("t"));
	c->replaced = count_of(db, "SELECT count(*) FROM mres t JOIN main.result r ON r.env_id = "
			      "t.env_id AND r.shape_id = t.shape_id AND r.candidate_id = "
			      "t.candidate_id AND r.m = t.m AND r.phase = t.phase WHERE "
			      RES_KEY("t") " > " RES_KEY("r"));
	c->baselines = count_of(db, "SELECT count(*) FROM mbase");
	c->probes = count_of(db, "SELECT count(*) FROM src.probe");
	if (c->results < 0 || c->added < 0 || c->same < 0 || c->replaced < 0 || c->baselines < 0 ||
	    c->probes < 0)
		goto fail;
	c->kept = c->results - c->added - c->same - c->replaced;
	static const char *const writes[] = {
		"INSERT INTO main.result (env_id, shape_id, candidate_id, m, phase, " RES_COLS ") "
		"SELECT env_id, shape_id, candidate_id, m, phase, " RES_COLS " FROM mres WHERE true "
		"ON CONFLICT (env_id, shape_id, candidate_id, m, phase) DO UPDATE SET "
		"status = excluded.status, reason = excluded.reason, err_global = excluded.err_global, "
		"err_row = excluded.err_row, base_us = excluded.base_us, cand_us = excluded.cand_us, "
		"ratio = excluded.ratio, ratio_lo = excluded.ratio_lo, ratio_hi = excluded.ratio_hi, "
		"pairs = excluded.pairs, regs = excluded.regs, local_bytes = excluded.local_bytes, "
		"smem = excluded.smem, recorded_at = excluded.recorded_at, waves = excluded.waves, "
		"run = excluded.run, device = excluded.device WHERE " RES_KEY("excluded") " > "
		RES_KEY("result"),
		"INSERT INTO main.baseline (env_id, shape_id, m, " BASE_COLS ") SELECT env_id, "
		"shape_id, m, " BASE_COLS " FROM mbase WHERE true ON CONFLICT (env_id, shape_id, m) "
		"DO UPDATE SET cublas_us = excluded.cublas_us, cublaslt_us = excluded.cublaslt_us, "
		"ratio = excluded.ratio, lt_algo = excluded.lt_algo, recorded_at = "
		"excluded.recorded_at, device = excluded.device WHERE " BASE_KEY("excluded") " > "
		BASE_KEY("baseline"),
		/* probes have no key: an identical row is the same probe */
		"INSERT INTO main.probe (env_id, what, family, bytes, us, config, recorded_at) "
		"SELECT me.d, p.what, p.family, p.bytes, p.us, p.config, p.recorded_at FROM "
		"src.probe p JOIN menv me ON me.s = p.env_id WHERE NOT EXISTS (SELECT 1 FROM "
		"main.probe q WHERE q.env_id = me.d AND q.what = p.what AND q.family IS p.family "
		"AND q.bytes IS p.bytes AND q.us = p.us AND q.config IS p.config AND "
		"q.recorded_at = p.recorded_at)",
		"DROP TABLE menv", "DROP TABLE mshape", "DROP TABLE mcand", "DROP TABLE mres",
		"DROP TABLE mbase",
		"COMMIT",
	};
	long long probes_before = count_of(db, "SELECT count(*) FROM main.probe");
	for (size_t i = 0; i < ARRAY_SIZE(writes); i++)
		if (db_exec(db, writes[i], src))
			goto fail;
	c->probes_added = count_of(db, "SELECT count(*) FROM main.probe") - probes_before;
	return db_exec(db, "DETACH src", src);
fail:
	sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_exec(db->h, "DETACH src", NULL, NULL, NULL);
	return -1;
}

-- gemmtab.sql: the whole gemmtab results database, schema version 6, in
-- one place. A new database is made from this file (db_migrate.c runs it in one
-- transaction, then sets PRAGMA user_version = 6 and application_id =
-- 0x474d5442, 'GMTB'); an older database is brought here by the migration
-- steps instead (db/schema.sql is step 1, later steps are in db_migrate.c's
-- migrations[]; db/6.sql is step 6). tests/cli/t_schema.sh checks that
-- this file and the steps build the same tables, columns, indexes and
-- views. A schema change adds a step and edits this file to match.
--
-- Conventions: ids are INTEGER PRIMARY KEY; times are microseconds per call
-- with the graph-replay overhead already subtracted; a figure that does not
-- exist is NULL, never 0 (a candidate that failed validation has no timing,
-- a pruned one has no error figures, an unknown register count is NULL);
-- recorded_at is UTC, ISO 8601 with milliseconds.
--
-- Tables
--   env        one row per measuring environment (GPU, clocks, versions);
--              every measurement references one.
--   shape      one projection family: Y[M,N] = X[M,K] W[N,K]^T with dtypes
--              and the global relative L2 bound.
--   candidate  a template, its canonical parameter text and the code key
--              of what it compiles to (tuner/jit/codekey.h); params_json
--              is the same parameters as a JSON object (virtual).
--   variant    that a template text (source_hash) compiles a candidate's
--              (template, params) at a shape to that candidate's code.
--   result     one candidate's outcome at (env, shape, candidate, m, phase);
--              rerecording the same key replaces the row.
--   probe      floor and overhead measurements (`gemmtab probe`); history
--              is kept, readers use the newest row.
--   baseline   cuBLAS (F.linear's path) and the cuBLASLt heuristic's top
--              algorithm at (env, shape, m); rerecording replaces the row.
--
-- Views (`gemmtab query --db DB NAME` runs the canned ones by name)
--   best            the chosen result per (env, shape, m): a retest row
--                   (phase 'retest' with >= 100 pairs) if any, else the
--                   screen; among those the highest median ratio.
--   failures        non-ok results counted by env, status and reason.
--   compile_errors  every candidate that did not compile, with the reason.
--   floors          the newest practical floor probe per (env, family).
--   progress        result counts per (env, family, m, phase) by outcome.
--   candidate_param one row per candidate and parameter: name, value
--                   (integers as numbers, the rest text).
--   baselines       the baseline rows with their shapes.
--   envs            the environments with their result counts.
--   waves           screens per (env, shape, m) by the most waves of blocks
--                   or clusters their kernels took, with the best time.
--   unretested      per (env, shape, m), the screens of the newest code
--                   that no retest measured, ranked (rank 1 the best);
--                   "newest" is the template text a sweep last recorded
--                   (variant's newest row per template), so after editing
--                   a template a sweep of the new build must run first.
--                   `gemmtab query unretested` is this view with rank <=
--                   --top (8).

CREATE TABLE env (
	id            INTEGER PRIMARY KEY,
	gpu_name      TEXT NOT NULL,
	gpu_uuid      TEXT NOT NULL,
	sm_count      INTEGER NOT NULL,
	sm_clock_mhz  INTEGER NOT NULL,   -- max SM clock
	mem_clock_mhz INTEGER NOT NULL,
	l2_bytes      INTEGER NOT NULL,
	driver        TEXT NOT NULL,
	cuda          TEXT NOT NULL,      -- CUDA runtime version
	nvrtc         TEXT NOT NULL,
	cublas        TEXT NOT NULL,
	cublaslt      TEXT NOT NULL,
	source_hash   TEXT NOT NULL,      -- legacy: hash of every template source ('' now)
	first_seen    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
	UNIQUE (gpu_name, gpu_uuid, sm_count, sm_clock_mhz, mem_clock_mhz,
		l2_bytes, driver, cuda, nvrtc, cublas, cublaslt, source_hash)
);

CREATE TABLE shape (
	id     INTEGER PRIMARY KEY,
	family TEXT NOT NULL,             -- qkv, oproj, pooler, unpooler, ...
	n      INTEGER NOT NULL,
	k      INTEGER NOT NULL,
	w      TEXT NOT NULL,             -- dtype names: bf16 | fp32
	x      TEXT NOT NULL,
	y      TEXT NOT NULL,
	tol    REAL NOT NULL,             -- global bound; per row 2 x tol
	UNIQUE (family, n, k, w, x, y, tol)
);

CREATE TABLE candidate (
	id          INTEGER PRIMARY KEY,
	template    TEXT NOT NULL,        -- template stem (templates/<stem>.cuh)
	params      TEXT NOT NULL,        -- "warps=8,rows=1,cache=cg": the key's text
	code        TEXT NOT NULL,        -- the code key (tuner/jit/codekey.h)
	pkey        INTEGER NOT NULL,     -- gemmtab_pkey(template, params), for the index
	-- {"warps":"8","rows":"1","cache":"cg"}: params by name (values as
	-- text; candidate_param gives integers as numbers), computed on read
	params_json TEXT GENERATED ALWAYS AS (CASE params WHEN '' THEN '{}'
	ELSE '{"' || replace(replace(params, '=', '":"'), ',', '","') || '"}' END) VIRTUAL
);
-- (template, params, code) is unique; db_record.c keeps it (the index is on the
-- 64-bit pkey, a sixth of the size of one on the text)
CREATE INDEX candidate_by_pkey ON candidate (pkey);

CREATE TABLE variant (
	id           INTEGER PRIMARY KEY,
	candidate_id INTEGER NOT NULL REFERENCES candidate(id),
	shape_id     INTEGER NOT NULL REFERENCES shape(id),
	source_hash  TEXT NOT NULL,       -- the template text's hash
	UNIQUE (candidate_id, shape_id, source_hash)
);

CREATE TABLE result (
	id           INTEGER PRIMARY KEY,
	env_id       INTEGER NOT NULL REFERENCES env(id),
	shape_id     INTEGER NOT NULL REFERENCES shape(id),
	candidate_id INTEGER NOT NULL REFERENCES candidate(id),
	m            INTEGER NOT NULL,
	phase        TEXT NOT NULL CHECK (phase IN ('screen', 'retest')),
	status       TEXT NOT NULL,       -- ok fail compile_error pruned launch_error fault timeout
	reason       TEXT,
	err_global   REAL,                -- relative L2 error against the FP64 reference
	err_row      REAL,                -- worst row's relative L2 error
	base_us      REAL,                -- median baseline time of the pairs
	cand_us      REAL,                -- median candidate time of the pairs
	ratio        REAL,                -- median of per-pair base/cand
	ratio_lo     REAL,                -- its 10th percentile
	ratio_hi     REAL,                -- its 90th percentile
	pairs        INTEGER,
	regs         INTEGER,             -- per thread, from ptxas
	local_bytes  INTEGER,             -- local memory (spills), per thread
	smem         INTEGER,             -- shared memory per block, bytes
	recorded_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
	waves        INTEGER,             -- most waves of blocks or clusters of a step
	run          TEXT,                -- the sweep run that recorded it (its start)
	device       INTEGER,             -- the GPU's index on its host
	UNIQUE (env_id, shape_id, candidate_id, m, phase)
);
-- finalist selection and the best view read (env, shape, m) slices
CREATE INDEX result_by_slice ON result (env_id, shape_id, m, phase);

CREATE TABLE probe (
	id          INTEGER PRIMARY KEY,
	env_id      INTEGER NOT NULL REFERENCES env(id),
	what        TEXT NOT NULL,        -- 'floor' (streaming read) or 'overhead' (empty graph)
	family      TEXT,                 -- the family whose bytes a floor read; NULL for overhead
	bytes       REAL,
	us          REAL NOT NULL,
	config      TEXT,                 -- how it was measured (blocks, loads)
	recorded_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

CREATE TABLE baseline (
	id          INTEGER PRIMARY KEY,
	env_id      INTEGER NOT NULL REFERENCES env(id),
	shape_id    INTEGER NOT NULL REFERENCES shape(id),
	m           INTEGER NOT NULL,
	cublas_us   REAL,                 -- cublasGemmEx, default algorithm
	cublaslt_us REAL,                 -- cuBLASLt heuristic's top algorithm
	ratio       REAL,                 -- median paired cublas/cublaslt
	lt_algo     TEXT,                 -- the cuBLASLt algorithm's attributes
	recorded_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
	device      INTEGER,              -- the GPU's index on its host
	UNIQUE (env_id, shape_id, m)
);

-- A retest needs >= 100 pairs before a table may use it (WORKLOAD.md,
-- timing method step 5); a retest with fewer ranks with the screen.
CREATE VIEW best AS
SELECT env_id, shape_id, family, n, k, m, phase, retested, pairs,
       base_us, cand_us, ratio, ratio_lo, ratio_hi,
       candidate_id, template, params, result_id
FROM (
	SELECT r.env_id, r.shape_id, s.family, s.n, s.k, r.m, r.phase,
	       (r.phase = 'retest' AND coalesce(r.pairs, 0) >= 100) AS retested,
	       r.pairs, r.base_us, r.cand_us, r.ratio, r.ratio_lo, r.ratio_hi,
	       r.candidate_id, c.template, c.params, r.id AS result_id,
	       row_number() OVER (
			PARTITION BY r.env_id, r.shape_id, r.m
			ORDER BY (r.phase = 'retest' AND coalesce(r.pairs, 0) >= 100) DESC,
				 r.ratio DESC, r.candidate_id
	       ) AS rank
	FROM result r
	JOIN shape s ON s.id = r.shape_id
	JOIN candidate c ON c.id = r.candidate_id
	WHERE r.status = 'ok' AND r.ratio IS NOT NULL
)
WHERE rank = 1;

CREATE VIEW failures AS
SELECT env_id, status, reason, count(*) AS count
FROM result
WHERE status <> 'ok'
GROUP BY env_id, status, reason
ORDER BY env_id, count DESC, status, reason;

CREATE VIEW compile_errors AS
SELECT r.env_id, s.family, r.m, c.template, c.params, r.reason
FROM result r
JOIN shape s ON s.id = r.shape_id
JOIN candidate c ON c.id = r.candidate_id
WHERE r.status = 'compile_error'
ORDER BY r.env_id, c.template, c.params, s.family, r.m;

CREATE VIEW floors AS
SELECT p.env_id, p.family, p.bytes, p.us, p.config, p.recorded_at
FROM probe p
WHERE p.what = 'floor'
  AND p.id = (SELECT max(q.id) FROM probe q
	      WHERE q.env_id = p.env_id AND q.what = 'floor' AND q.family IS p.family);

CREATE VIEW progress AS
SELECT r.env_id, s.family, r.m, r.phase,
       count(*) AS total,
       sum(r.status = 'ok') AS ok,
       sum(r.status = 'fail') AS fail,
       sum(r.status = 'pruned') AS pruned,
       sum(r.status = 'compile_error') AS compile_error,
       sum(r.status NOT IN ('ok', 'fail', 'pruned', 'compile_error')) AS other
FROM result r
JOIN shape s ON s.id = r.shape_id
GROUP BY r.env_id, s.family, r.m, r.phase
ORDER BY r.env_id, s.family, r.m, r.phase;

CREATE VIEW candidate_param AS
SELECT c.id AS candidate_id, c.template, p.key AS name,
       CASE WHEN p.value GLOB '[0-9]*' AND p.value NOT GLOB '*[^0-9]*'
	    THEN CAST(p.value AS INTEGER) ELSE p.value END AS value
FROM candidate c, json_each(c.params_json) p;

CREATE VIEW baselines AS
SELECT b.env_id, s.family, s.n, s.k, b.m, b.cublas_us, b.cublaslt_us, b.ratio, b.lt_algo,
       b.device, b.recorded_at
FROM baseline b
JOIN shape s ON s.id = b.shape_id
ORDER BY b.env_id, s.family, s.n, s.k, b.m;

CREATE VIEW envs AS
SELECT e.id, e.gpu_name, e.sm_count, e.sm_clock_mhz, e.mem_clock_mhz, e.driver, e.cuda,
       e.nvrtc, e.cublas, e.cublaslt, e.source_hash, e.first_seen,
       (SELECT count(*) FROM result r WHERE r.env_id = e.id) AS results
FROM env e
ORDER BY e.id;

CREATE VIEW waves AS
SELECT r.env_id, s.family, s.n, s.k, r.m, r.waves, count(*) AS screens,
       min(r.cand_us) AS best_us
FROM result r
JOIN shape s ON s.id = r.shape_id
WHERE r.phase = 'screen' AND r.status = 'ok' AND r.waves IS NOT NULL
GROUP BY r.env_id, s.family, s.n, s.k, r.m, r.waves
ORDER BY r.env_id, s.family, s.n, s.k, r.m, r.waves;

CREATE VIEW unretested AS
WITH vt AS MATERIALIZED (
	SELECT v.id, v.candidate_id, v.source_hash, c.template
	FROM variant v JOIN candidate c ON c.id = v.candidate_id),
newest AS (
	SELECT template, source_hash FROM vt
	WHERE id IN (SELECT max(id) FROM vt GROUP BY template)),
cur AS MATERIALIZED (
	SELECT DISTINCT vt.candidate_id AS id FROM vt
	JOIN newest w ON w.template = vt.template AND w.source_hash = vt.source_hash),
ranked AS MATERIALIZED (
	SELECT env_id, shape_id, m, candidate_id, ratio,
	       row_number() OVER (PARTITION BY env_id, shape_id, m
				  ORDER BY ratio DESC, candidate_id) AS rank
	FROM result
	WHERE phase = 'screen' AND status = 'ok' AND ratio IS NOT NULL
	  AND candidate_id IN cur)
SELECT k.env_id, s.family, s.n, s.k, k.m, k.rank, k.ratio, c.template, c.params
FROM ranked k
JOIN shape s ON s.id = k.shape_id
JOIN candidate c ON c.id = k.candidate_id
WHERE NOT EXISTS (SELECT 1 FROM result t
		  WHERE t.env_id = k.env_id AND t.shape_id = k.shape_id
		    AND t.candidate_id = k.candidate_id AND t.m = k.m AND t.phase = 'retest')
ORDER BY k.env_id, s.family, s.n, s.k, k.m, k.rank;

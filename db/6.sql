-- 6.sql: migration step 6 (schema 5 -> 6), run by db.c in the
-- migration's transaction. Parameters by name: candidate.params_json is
-- the canonical params text as a JSON object of text values (a virtual
-- column of SQLite's own functions: sqlite3 reads it, nothing is stored),
-- and candidate_param has one row per parameter, integers as numbers. The canned queries that
-- can be views become views. db/gemmtab.sql is the whole schema after
-- this step; shipped steps are never edited.

-- a virtual column: computed when read, nothing stored
ALTER TABLE candidate ADD COLUMN params_json TEXT
	GENERATED ALWAYS AS (CASE params WHEN '' THEN '{}'
	ELSE '{"' || replace(replace(params, '=', '":"'), ',', '","') || '"}' END) VIRTUAL;

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

#!/usr/bin/env python3
"""lab/analysis/thin_keep.py: does SEARCH_THIN's rule (tuner/sweep/search.c,
thin_keep) keep the best screen of each thin anchor? Reads make
bench-search's dense sweeps (build/bench-search/SPACE-dense/sweep.db, every
candidate screened at every anchor) and, per shape and thin anchor (the
odd-indexed powers of two), checks that the best screen is cuBLASLt's, or
a candidate (template and parameters) among the 64 best screens of a
neighbour anchor, or, absent from both neighbours, one parameter away
from one of those. Run from the repository root after make bench-search."""
import sqlite3
import sys
from collections import defaultdict

TOP = 64


def parse(p):
    return dict(kv.split('=') for kv in p.split(',')) if p else {}


def check(space):
    db = sqlite3.connect(f'build/bench-search/{space}-dense/sweep.db')
    by = defaultdict(list)
    for f, m, t, p, ra in db.execute(
            """select s.family, r.m, c.template, c.params, r.ratio from result r
               join shape s on s.id = r.shape_id join candidate c on c.id = r.candidate_id
               where r.phase = 'screen' and r.status = 'ok' and r.ratio > 0"""):
        by[(f, m)].append((ra, t, p))
    kept = missed = 0
    for f in sorted({f for f, _ in by}):
        anchors = sorted(m for (g, m) in by if g == f and m & (m - 1) == 0)
        if len(anchors) < 3:
            continue
        for j in range(1, len(anchors), 2):
            best = max(by[(f, anchors[j])])
            if best[1] == 'blas_lt':
                kept += 1
                continue
            lead, seen = [], set()
            for jq in (j - 1, j + 1):
                if jq < len(anchors):
                    here = by[(f, anchors[jq])]
                    lead += [(t, parse(p)) for _, t, p in sorted(here, reverse=True)[:TOP]]
                    seen |= {(t, p) for _, t, p in here}
            bp = parse(best[2])
            within = 0 if (best[1], best[2]) in seen else 1
            if any(t == best[1] and sum(bp[k] != lp.get(k) for k in bp) <= within
                   for t, lp in lead):
                kept += 1
            else:
                missed += 1
                print(f'  {space} {f} m={anchors[j]}: best {best[1]} {best[2]} ({best[0]:.3f}) not kept')
    print(f'{space}: the rule keeps the best screen at {kept} of {kept + missed} thin anchors')


for space in sys.argv[1:] or ['llama', 'odd', 'reference']:
    check(space)

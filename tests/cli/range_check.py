#!/usr/bin/env python3
"""range_check.py DB TABLE.h FAMILY LO HI: read a table `gemmtab emit` wrote
against the database it came from, for one range shape, and print one line
per finding (nothing when the table keeps the rules):
- every M of LO..HI is measured (a baseline row) and served by an entry
  whose candidate won there (a retest of >= 100 pairs, ratio > 1), or by
  no entry where no measured candidate won;
- every boundary between two entries, or between an entry and the
  baseline, lies between two measured Ms, and the candidate that serves
  each side measured at least as fast there as the one of the other side
  (a measured crossover);
  except where the side's entry runs on past HI (emit covers first);
- an entry past HI ends at an M where its candidate was measured winning.
"""
import re
import sqlite3
import sys


def entries(path, n, k):
    out = []
    comment = None
    for line in open(path):
        m = re.match(r"\t/\* (.*?), M (\d+)(?:\.\.(\d+))?: (\S+) ?(\S*)$", line)
        if m:
            comment = (m.group(4), m.group(5))
            continue
        m = re.match(r"\t\{ (\d+), (\d+), \d+, \d+, \d+, (\d+), (\d+), ", line)
        if m:
            if comment and int(m.group(1)) == n and int(m.group(2)) == k:
                out.append((int(m.group(3)), int(m.group(4))) + comment)
            comment = None
    return sorted(out)


def main():
    db, table, family, lo, hi = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
    con = sqlite3.connect(db)
    sid, n, k = con.execute("SELECT id, n, k FROM shape WHERE family = ?", (family,)).fetchone()
    measured = {m for (m,) in con.execute("SELECT m FROM baseline WHERE shape_id = ?", (sid,))}
    ratio = {}
    for m, t, p, r in con.execute(
            "SELECT r.m, c.template, c.params, r.ratio FROM result r JOIN candidate c "
            "ON c.id = r.candidate_id WHERE r.shape_id = ? AND r.phase = 'retest' AND "
            "r.status = 'ok' AND r.pairs >= 100", (sid,)):
        ratio[(m, t, p)] = r
    ent = entries(table, n, k)
    bad = []

    def served(m):
        for e in ent:
            if e[0] <= m <= e[1]:
                return e
        return None

    def r_of(m, e):
        """the ratio of what serves m under e (1 for the baseline), or None"""
        if e is None:
            return 1.0
        return ratio.get((m, e[2], e[3]))

    for m in range(lo, hi + 1):
        if m not in measured:
            bad.append(f"M {m} has no baseline row")
            continue
        e = served(m)
        if e is not None and not (r_of(m, e) or 0) > 1:
            bad.append(f"M {m}: {e[2]} {e[3]} serves it without a measured win")
        if e is None:
            won = [key for key, r in ratio.items() if key[0] == m and r > 1]
            if won:
                bad.append(f"M {m}: the baseline serves it though {won[0][1]} {won[0][2]} won")
    for m in range(lo, hi):
        a, b = served(m), served(m + 1)
        if a == b:
            continue
        # a crossover between m and m + 1: each side's own is no slower there
        for side, mine, other in ((m, a, b), (m + 1, b, a)):
            rm, ro = r_of(side, mine), r_of(side, other)
            if rm is None:
                bad.append(f"M {side}: its candidate has no retest")
            # (an entry that runs on past HI may keep its first M for the
            # Ms it covers beyond: emit puts coverage first)
            elif ro is not None and ro > rm and not (mine and mine[1] > hi):
                bad.append(f"boundary {m}/{m + 1}: at {side} the other side's candidate "
                           f"measured {ro:.3f} against {rm:.3f}")
    for e in ent:
        if e[1] > hi and (e[1] not in measured or not (r_of(e[1], e) or 0) > 1):
            bad.append(f"entry {e[0]}..{e[1]} extends past {hi} to an M where it did not win")
    for line in bad:
        print(line)
    print(f"{family}: {len(ent)} entries, {sum(1 for m in range(lo, hi + 1) if served(m))} of "
          f"{hi - lo + 1} Ms served by a kernel, {len(bad)} findings", file=sys.stderr)


main()

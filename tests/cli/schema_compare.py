"""schema_compare.py A.db B.db: print the structure of two SQLite databases
where it differs (tables' and views' columns with their types, NOT NULL,
defaults and keys; indexes' columns and uniqueness; triggers' names; the
schema version) and exit 1, or print 'same' and exit 0."""
import sqlite3
import sys


def structure(path):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    out = {"user_version": db.execute("PRAGMA user_version").fetchone()[0],
           "application_id": db.execute("PRAGMA application_id").fetchone()[0]}
    objs = db.execute("SELECT type, name, tbl_name FROM sqlite_master "
                      "WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name").fetchall()
    for kind, name, table in objs:
        if kind in ("table", "view"):
            cols = db.execute(f"PRAGMA table_xinfo('{name}')").fetchall()
            out[(kind, name)] = [c[1:] for c in cols]
        elif kind == "index":
            cols = db.execute(f"PRAGMA index_xinfo('{name}')").fetchall()
            unique = [r[2] for r in db.execute(f"PRAGMA index_list('{table}')") if r[1] == name]
            out[(kind, name)] = (table, unique, [c[2] for c in cols if c[5]])
        else:
            out[(kind, name)] = table
    # a table's UNIQUE constraints (its autoindexes) by their columns
    for table in [n for k, n, _ in objs if k == "table"]:
        uniques = []
        for r in db.execute(f"PRAGMA index_list('{table}')"):
            if r[3] == "u":
                uniques.append([c[2] for c in db.execute(f"PRAGMA index_info('{r[1]}')")])
        out[("unique", table)] = sorted(uniques)
    # every view runs
    for kind, name, _ in objs:
        if kind == "view":
            db.execute(f"SELECT * FROM \"{name}\" LIMIT 0").fetchall()
    return out


a, b = structure(sys.argv[1]), structure(sys.argv[2])
diff = [k for k in sorted(set(a) | set(b), key=str) if a.get(k) != b.get(k)]
for k in diff:
    print(f"{k}:\n  {sys.argv[1]}: {a.get(k)}\n  {sys.argv[2]}: {b.get(k)}")
print("same" if not diff else f"{len(diff)} differences")
sys.exit(1 if diff else 0)

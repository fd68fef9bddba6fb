#!/usr/bin/env bash
# lab/harden/uncommitted.sh [TRIALS]: issue 45's uncommitted-data figure.
# On copies of db/h200.db in rollback-journal mode (where a writer's
# uncommitted pages reach the file once its cache spills), TRIALS [20]
# trials of each:
#   lock: another process holds BEGIN EXCLUSIVE over an uncommitted UPDATE
#         of a random share of the ratios to 99 for 3 s; query and emit run
#         meanwhile. Counted: rows with ratio 99 that query read, and
#         whether emit's table differs from the committed one's entries.
#   hot:  the writer is killed mid-update (os._exit), leaving a hot
#         journal; query and emit run. Counted the same; then `gemmtab
#         migrate` rolls it back and query counts again.
set -u
cd "$(dirname "$0")/../.."
T=${1:-20}
G=${GEMMTAB:-$PWD/build/bin/gemmtab}
W=$(mktemp -d "${TMPDIR:-/tmp}/harden-uncommitted.XXXXXX")
trap 'rm -rf "$W"' EXIT
cp db/h200.db "$W/base.db"
sqlite3 "$W/base.db" "PRAGMA journal_mode = delete" >/dev/null
entries() { grep -v -e '^/\*' -e '^ \*' -e 'kernels.cu' -e 'generated_by' -e 'kernels_hash' "$1"; }
"$G" emit --db "$W/base.db" --out "$W/ref.h" >/dev/null 2>&1
ref_n=$(grep -c '^	{' "$W/ref.h")
count99() { "$G" query --db "$1" --format csv "SELECT count(*) FROM result WHERE ratio = 99" 2>/dev/null | tail -n 1; }
for mode in lock hot; do
	read99=0 tables_diff=0 refused=0 after=0
	for i in $(seq 1 "$T"); do
		db=$W/t.db
		rm -f "$db"* "$W/t.h" "$W/t_kernels.cu" "$W/held"
		cp "$W/base.db" "$db"
		share=$((2 + i % 5))   # every 2nd .. 6th row
		if [ "$mode" = lock ]; then
			python3 - "$db" "$W/held" "$share" <<'PY' &
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("pragma cache_size = 2")
c.execute("begin exclusive")
c.execute("update result set ratio = 99 where id %% %s = 0" % sys.argv[3])
open(sys.argv[2], "w").close()
time.sleep(3)
c.execute("rollback")
PY
			w=$!
			while [ ! -e "$W/held" ]; do sleep 0.05; done
			count99 "$db" >"$W/n" &
			q=$!
			"$G" emit --db "$db" --out "$W/t.h" >/dev/null 2>&1
			wait "$q" "$w"
			n=$(cat "$W/n")
		else
			python3 - "$db" "$share" <<'PY'
import os, sqlite3, sys
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("pragma cache_size = 2")
c.execute("begin exclusive")
c.execute("update result set ratio = 99.0, cand_us = 0.001 where id %% %s = 0" % sys.argv[2])
os._exit(0)
PY
			[ -s "$db-journal" ] || echo "  trial $i: no journal left"
			n=$(count99 "$db")
			"$G" query --db "$db" best >/dev/null 2>&1 || refused=$((refused + 1))
			"$G" emit --db "$db" --out "$W/t.h" >/dev/null 2>&1
		fi
		read99=$((read99 + ${n:-0}))
		if [ -s "$W/t.h" ] && ! cmp -s <(entries "$W/ref.h") <(entries "$W/t.h"); then
			tables_diff=$((tables_diff + 1))
		fi
		if [ "$mode" = hot ]; then
			"$G" migrate --db "$db" >/dev/null 2>&1
			after=$((after + $(count99 "$db")))
		fi
	done
	case $mode in
	lock) echo "lock: $T trials: $read99 uncommitted rows read by query, $tables_diff tables differing from the committed one ($ref_n entries)" ;;
	hot) echo "hot journal: $T trials: $read99 uncommitted rows read by query ($refused of $T queries refused), $tables_diff tables differing from the committed one; after gemmtab migrate: $after" ;;
	esac
done

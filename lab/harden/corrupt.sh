#!/usr/bin/env bash
# lab/harden/corrupt.sh [N] [SEED]: issue 45's corruption figure. N
# corrupted variants [200] of each of two databases, a fake sweep's
# (tests/spaces/fake.yaml) and db/h200.db, each through `gemmtab emit`;
# a table written from a variant that fails PRAGMA integrity_check (run
# by the sqlite3 shell on a read-write copy, so CHECK constraints count)
# is a defect. The damage (lab/harden/corrupt.py): random byte flips
# anywhere, in the first pages (schema, roots), in one b-tree page, a
# page zeroed, a page swapped with another, and an index left stale under
# one changed row. Prints one line per base and the sum.
set -u
cd "$(dirname "$0")/../.."
N=${1:-200} SEED=${2:-45}
G=${GEMMTAB:-$PWD/build/bin/gemmtab}
W=$(mktemp -d "${TMPDIR:-/tmp}/harden-corrupt.XXXXXX")
trap 'rm -rf "$W"' EXIT
export GEMMTAB_WORKER=${GEMMTAB_WORKER:-$PWD/build/tests/fake_worker}
"$G" sweep --space tests/spaces/fake.yaml --db "$W/fake.db" --cache "$W/c" >/dev/null 2>&1
sqlite3 "$W/fake.db" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
cp db/h200.db "$W/h200.db"
total_bad=0
for base in fake h200; do
	written=0 failing=0 bad=0 crashed=0
	for i in $(seq 1 "$N"); do
		v=$W/v.db
		rm -f "$v" "$v-wal" "$v-shm" "$v-journal" "$W/v.h" "$W/v_kernels.cu"
		python3 lab/harden/corrupt.py "$W/$base.db" "$v" "$((SEED * 1000 + i))" "$W/c"
		# the verdict first, on a copy (the shell opens it read-write)
		cp "$v" "$W/chk.db"
		ic=$(sqlite3 "$W/chk.db" "PRAGMA integrity_check" 2>&1 | head -n 1)
		rm -f "$W/chk.db"*
		timeout 120 "$G" emit --db "$v" --out "$W/v.h" --cache "$W/c" >/dev/null 2>"$W/err"
		rc=$?
		[ "$rc" -gt 1 ] && crashed=$((crashed + 1)) && echo "  $base #$i: exit $rc: $(tail -n 1 "$W/err")"
		[ "$ic" != ok ] && failing=$((failing + 1))
		if [ -s "$W/v.h" ]; then
			written=$((written + 1))
			[ "$ic" != ok ] && bad=$((bad + 1)) && echo "  $base #$i: table written, integrity_check: $ic"
		fi
	done
	echo "$base: $N variants, $failing fail integrity_check, $written tables written, $bad written from a failing one, $crashed exits above 1"
	total_bad=$((total_bad + bad))
done
echo "total: $total_bad tables written from a database that fails integrity_check"

#!/usr/bin/env bash
# tests/fuzz/seed_db.sh GEMMTAB FAKE_WORKER OUT: make fuzz_db's seed, OUT:
# a fake sweep's database (tests/spaces/fake.yaml against the fake
# worker), so it is always of the schema this build writes (db/gemmtab.sql,
# compiled in), then compacted into rollback-journal mode with 512-byte
# pages (python3's sqlite3), so that the whole file fits the fuzzer's
# -max_len and needs no -wal. The seed is checked before it is kept: report
# and emit of it must exit 0, and emit must write a table with entries; a
# seed that does not open fails the build here, never the fuzzing later.
set -u
gemmtab=$1 worker=$2 out=$3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gemmtab-seed.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "fuzz seed: $*" >&2; exit 1; }
GEMMTAB_WORKER=$worker "$gemmtab" sweep --space tests/spaces/fake.yaml --db "$tmp/s.db" \
	--cache "$tmp/c" >"$tmp/log" 2>&1 || fail "the fake sweep failed (see below)" "$(cat "$tmp/log")"
python3 - "$tmp/s.db" <<'PY' || fail "python3's sqlite3 could not compact $tmp/s.db"
import sqlite3, sys
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("pragma journal_mode = delete")
c.execute("pragma page_size = 512")
c.execute("vacuum")
c.close()
PY
"$gemmtab" report --db "$tmp/s.db" >/dev/null 2>"$tmp/err" || fail "report of the seed: $(cat "$tmp/err")"
"$gemmtab" emit --db "$tmp/s.db" --out "$tmp/s.h" --cache "$tmp/c" >"$tmp/out" 2>&1 ||
	fail "emit of the seed: $(cat "$tmp/out")"
grep -qE "wrote .* \([1-9][0-9]* entries\)" "$tmp/out" || fail "emit of the seed wrote no entries"
mkdir -p "$(dirname "$out")"
cp "$tmp/s.db" "$out.tmp" && mv "$out.tmp" "$out"
echo "  SEED    $out ($(wc -c <"$out") bytes, $("$gemmtab" query --db "$out" --format csv "SELECT count(*) FROM result" | tail -n 1) results)"

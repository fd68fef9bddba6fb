#!/usr/bin/env bash
# lab/device_retune.sh DEPS [CACHE.tgz]: one device call that re-tunes the
# default table end to end on the H200: sweep search_spaces/h200.yaml into
# a fresh db/h200.db, emit runtime/tables/h200.h, rebuild libgemmtab and
# gemmtab there, and bench the library. With VALIDATE_MMA=1 it first runs
# the tensor-core reference test (tests/gpu/t_mma_reference.sh) and stops
# when it fails. RESUME=1 keeps the db/h200.db of the tree and sweeps
# only what it has not measured (a widened space; another H200 unit is
# the same environment, db_env_id); RETEST_SINCE=T (with RESUME=1) retests
# again every finalist retested before T (gemmtab sweep --retest-since,
# e.g. now: every finalist on this machine); INCUMBENT=1 emits with the
# tree's runtime/tables/h200.h as the incumbent (copied to
# h200_incumbent.h first: gemmtab emit --incumbent, near ties stay as
# they were). DEPS holds lib/libsqlite3.a, lib/libyaml.a and
# include/{sqlite3,yaml}.h, carried from the build machine (the GPU machine
# has neither library); build/ is carried too. CACHE.tgz, if given, is a
# cubin cache made here with `gemmtab compile --space search_spaces/h200.yaml
# --cache DIR` and packed with tar (same NVRTC version and flags: its keys
# match), which saves the sweep's compile time. Results come back under
# $OUT: log.txt, h200.db.gz (the device brings back no file over 16 MiB,
# and the database is larger: gunzip it into db/h200.db),
# report.txt, h200.h, h200_kernels.cu, h200.md (and h200_incumbent.h
# with INCUMBENT=1).
# The GPU machine cannot link libgemmtab.so (its libstdc++.a is not PIC):
# to test the new table, copy it back, `make test` here (which builds every
# GPU test program) and run `make test-gpu PREBUILT=1` in another call.
# DB_GZ=FILE (with RESUME=1): the database to resume, gzipped, unpacked
# into db/h200.db first and then removed. The device takes at most 64 MiB
# of tree and carried folders: a database past ~40 MB travels so, inside
# a carried folder, with db/h200.db moved out of the tree
# (`gzip -c db/h200.db > build/tools/h200.db.gz`, then
# DB_GZ=build/tools/h200.db.gz). A pruned database (gemmtab prune) fits
# the tree as it is.
set -u
cd "$(dirname "$0")/.."
DEPS=$(cd "${1:?usage: lab/device_retune.sh DEPS [CACHE.tgz]}" && pwd) || exit 2
OUT=${OUT:-out}; mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
export C_INCLUDE_PATH=$DEPS/include
G=build/bin/gemmtab
log=$OUT/log.txt
step() { echo "== $* ($SECONDS s)" | tee -a "$log"; }

CACHE=.cache/gemmtab
if [ -n "${2:-}" ]; then
	mkdir -p "$CACHE" && tar xzf "$2" -C "$CACHE" && step "cubin cache unpacked from $2"
fi

if [ "${VALIDATE_MMA:-0}" = 1 ]; then
	step "tests/gpu/t_mma_reference.sh"
	if ! bash tests/gpu/t_mma_reference.sh >>"$log" 2>&1; then
		step "stop: the tensor-core reference test failed"
		exit 0
	fi
fi

step "sweep search_spaces/h200.yaml"
if [ "${RESUME:-0}" = 1 ]; then
	if [ -n "${DB_GZ:-}" ]; then
		if ! gunzip -c "$DB_GZ" >db/h200.db.tmp || ! mv db/h200.db.tmp db/h200.db; then
			rm -f db/h200.db.tmp
			step "stop: cannot unpack DB_GZ=$DB_GZ into db/h200.db"
			exit 2
		fi
		rm -f "$DB_GZ"
		step "db/h200.db unpacked from $DB_GZ"
	fi
	[ -f db/h200.db ] || gzip -dc db/h200.db.gz >db/h200.db   # the tracked copy
	step "resuming the carried db/h200.db (only what it lacks is measured)"
else
	rm -f db/h200.db db/h200.db-wal db/h200.db-shm
	$G probe --db db/h200.db --space search_spaces/h200.yaml >>"$log" 2>&1
fi
timeout -s INT "${SWEEP_S:-420}" $G sweep --space search_spaces/h200.yaml --db db/h200.db --deadline 10 --cache "$CACHE" \
	${RETEST_SINCE:+--retest-since "$RETEST_SINCE"} 2>&1 | tail -n 4 >>"$log"
# 124: stopped at SWEEP_S (resumable; what it recorded is emitted below)
step "sweep exit status ${PIPESTATUS[0]}"
$G report --db db/h200.db >"$OUT/report.txt" 2>&1
gzip -c db/h200.db >"$OUT/h200.db.gz"

step "emit, rebuild, bench"
incumbent=
if [ "${INCUMBENT:-0}" = 1 ]; then
	cp runtime/tables/h200.h runtime/tables/h200_incumbent.h
	cp runtime/tables/h200_incumbent.h "$OUT/"
	incumbent="--incumbent runtime/tables/h200_incumbent.h"
fi
# shellcheck disable=SC2086 # incumbent is two words or none
$G emit --db db/h200.db --out runtime/tables/h200.h $incumbent >>"$log" 2>&1 &&
	cp runtime/tables/h200.h runtime/tables/h200_kernels.cu "$OUT/" &&
	make -j16 STATIC_LIBS="$DEPS/lib/libsqlite3.a $DEPS/lib/libyaml.a" build/bin/gemmtab >>"$log" 2>&1 &&
	$G bench --table runtime/tables/h200.h --format md --out "$OUT/h200.md" >>"$log" 2>&1
step "done"
tail -n 12 "$OUT/h200.md" 2>/dev/null
tail -n 25 "$log"

#!/usr/bin/env bash
# lab/gpu/proof.sh: one device call over a tree built here (carry build/bin,
# build/lib, build/gpu (pack.tgz: the GPU test programs), build/bench,
# build/tools, build/rt-prefix,
# build/examples): verify of the H200 table on this card, the bench of the
# card's table at every M of 1..512 (2 rounds) and at the contract's 90
# points (3 rounds, paired floors; BENCH=0 skips both), make test-gpu (the
# tails under compute-sanitizer with it), python_graph, host cost.
# Each step is bounded so the whole stays under LIMIT_S.
set -u
OUT=${OUT:-out}; mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
G=build/bin/gemmtab T0=$SECONDS LIMIT_S=${LIMIT_S:-570}
# this card's table, and the other card's for verify
case $(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1) in
*H200*) TABLE=runtime/tables/h200.h OTHER=runtime/tables/h100.h ;;
*) TABLE=runtime/tables/h100.h OTHER=runtime/tables/h200.h ;;
esac
LOG=$OUT/log.txt
left() { local l=$((LIMIT_S - (SECONDS - T0))); [ "$l" -lt "$1" ] && echo "$l" || echo "$1"; }
step() { echo "== $1 at $((SECONDS - T0)) s" | tee -a "$LOG"; }
tar xzf build/gpu/pack.tgz
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,memory.total --format=csv | tee -a "$LOG"
step probe; $G probe --db /tmp/fl.db >>"$LOG" 2>&1
step verify
timeout "$(left 120)" $G verify --table "$OTHER" >"$OUT/verify.txt" 2>&1
echo "verify exit $?" | tee -a "$OUT/verify.txt"; tail -n 3 "$OUT/verify.txt"
if [ "${BENCH:-1}" = 1 ]; then
step bench-every-m
timeout "$(left 300)" $G bench --table "$TABLE" --space search_spaces/h200.yaml --rounds 2 \
	--floors /tmp/fl.db --format md --out "$OUT/everym.md" >>"$LOG" 2>&1
echo "bench exit $?" | tee -a "$LOG"; tail -n 6 "$OUT/everym.md"
step bench-contract
timeout "$(left 90)" $G bench --table "$TABLE" --space search_spaces/h200_loads.yaml --rounds 3 \
	--floors /tmp/fl.db --paired --format md --out "$OUT/contract.md" >>"$LOG" 2>&1
echo "bench exit $?" | tee -a "$LOG"; tail -n 4 "$OUT/contract.md"
fi
step test-gpu
timeout "$(left 200)" make test-gpu PREBUILT=1 >"$OUT/test-gpu.log" 2>&1
echo "test-gpu exit $?" | tee -a "$LOG"; tail -n 2 "$OUT/test-gpu.log"; grep -E "^not ok" "$OUT/test-gpu.log" | head
step pygraph
site=/tmp/gt-site
timeout 60 python3 -m pip install --no-build-isolation --no-deps --no-compile -q \
	--disable-pip-version-check --target "$site" ./python >>"$LOG" 2>&1
GEMMTAB_LIB=$PWD/build/lib/libgemmtab.so PYTHONPATH=$site timeout "$(left 60)" \
	python3 bench/python_graph.py qkv 1 8 32 128 >"$OUT/pygraph.md" 2>&1
echo "pygraph exit $?" >>"$OUT/pygraph.md"
step host
timeout "$(left 40)" build/bench/host_cost >>"$OUT/pygraph.md" 2>&1
step done

#!/usr/bin/env bash
# tools/dev_mma.sh: one device call for mma_skinny work: the SASS of the
# layout ptxas mis-compiles (tests/spaces/mma_fault.yaml; its cubin must be
# in the carried cache), the GPU reference test of every mma mode
# (tests/gpu/t_mma_reference.sh), and a speed screen (SPEED=, default
# tests/spaces/mma_speed.yaml). Carry build/ and a cubin cache in
# .h200build/mmacache (CACHE_DIR= another). SASS=0, VALIDATE=0 skip those
# steps.
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-out}; mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH CUDA_HOME=/usr/local/cuda
G=build/bin/gemmtab
C=${CACHE_DIR:-.h200build/mmacache}
log=$OUT/log.txt
step() { echo "== $* ($SECONDS s)" | tee -a "$log"; }

if [ "${SASS:-1}" = 1 ]; then
step "sass of the faulting layout"
f=$(grep -h "ILi32ELi8ELi64ELi8ELi4ELi2ELi1ELi0ELi0ELi0EE" $C/i/* | head -1 | cut -d' ' -f1)
cuobjdump -sass $C/b/$f.cubin > "$OUT/fault.sass" 2>&1
awk '/mma_skinny_kernelILi32ELi8ELi64ELi8ELi4ELi2ELi1ELi0ELi0ELi0EE/{p=1} p' "$OUT/fault.sass" | sed -n 1,90p >>"$log"
fi

if [ "${VALIDATE:-1}" = 1 ]; then
step "tests/gpu/t_mma_reference.sh"
bash tests/gpu/t_mma_reference.sh >>"$log" 2>&1
fi

SPEED=${SPEED:-tests/spaces/mma_speed.yaml}
step "speed screen $SPEED"
rm -f /tmp/speed.db /tmp/speed.db-wal /tmp/speed.db-shm   # a sweep resumes: start empty
timeout -s INT ${SPEED_S:-300} $G sweep --space $SPEED --db /tmp/speed.db --no-retest --cache $C 2>&1 | tail -n 3 >>"$log"
$G query --db /tmp/speed.db "SELECT status, count(*) FROM result GROUP BY status" >>"$log" 2>&1
$G query --db /tmp/speed.db "SELECT s.family, r.m, r.status, c.params, r.reason FROM result r JOIN candidate c ON c.id = r.candidate_id JOIN shape s ON s.id = r.shape_id WHERE r.status <> 'ok' LIMIT 12" >>"$log" 2>&1
$G query --db /tmp/speed.db "SELECT s.family, r.m, (c.params LIKE '%layout=tiles%') tiles, round(max(r.ratio), 3) best, round(min(r.cand_us), 2) us, round(avg(r.base_us), 2) base FROM result r JOIN candidate c ON c.id = r.candidate_id JOIN shape s ON s.id = r.shape_id WHERE r.status = 'ok' GROUP BY 1, 2, 3 ORDER BY 1, 2, 3" >>"$log" 2>&1
$G query --db /tmp/speed.db "SELECT s.family, r.m, c.params, round(r.ratio, 3), round(r.cand_us, 2) FROM result r JOIN candidate c ON c.id = r.candidate_id JOIN shape s ON s.id = r.shape_id WHERE r.status = 'ok' AND r.ratio = (SELECT max(r2.ratio) FROM result r2 WHERE r2.shape_id = r.shape_id AND r2.m = r.m AND r2.status = 'ok') ORDER BY 1, 2" >>"$log" 2>&1
cp /tmp/speed.db "$OUT/" 2>/dev/null
step done
cat "$log"

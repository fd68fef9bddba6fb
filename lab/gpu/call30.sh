#!/usr/bin/env bash
# lab/gpu/call30.sh: session 30's call for whichever card comes: on an
# H200 the A/B of its every-M table against the 67-entry one
# (lab/gpu/ab.sh; carry build/ab), on an H100 the reference space swept
# with the new search, emitted and benched (lab/gpu/tune.sh; carry
# build/gpu).
case $(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1) in
*H200*) ROUNDS=${ROUNDS:-2} exec bash lab/gpu/ab.sh ;;
esac
SPACE=search_spaces/h200.yaml DB=db/CARD_new.db CACHE_TGZ=build/gpu/cc-ref.tgz CONTRACT=${CONTRACT:-0} \
	SWEEP_S=${SWEEP_S:-300} STEP=1 ROUNDS=2 LIMIT_S=${LIMIT_S:-585} exec bash lab/gpu/tune.sh

#!/usr/bin/env bash
# lab/gpu/call.sh: the next step for whichever card comes: on an H200 the
# A/B of its table (lab/gpu/ab.sh), on an H100 every M of db/h100.db with
# the cuBLASLt search (lab/gpu/everym.sh).
case $(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1) in
*H200*) exec bash lab/gpu/ab.sh ;;
*) exec bash lab/gpu/everym.sh ;;
esac

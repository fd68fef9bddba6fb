# tests/gpu/lib.sh: tests/cli/lib.sh for the GPU scripts, which must run
# the real worker on the real GPU: a GEMMTAB_WORKER (the CPU tests' fake
# worker) or GEMMTAB_CHECK_ONLY left in the caller's environment would
# otherwise let them pass without timing anything on the device.
. "$(dirname "${BASH_SOURCE[0]}")/../cli/lib.sh"
unset GEMMTAB_WORKER GEMMTAB_CHECK_ONLY

# CLI: usage errors exit 2 and name the offending argument.
. "$(dirname "$0")/lib.sh"

expect_exit "no command: exit 2" 2 "$GEMMTAB"
expect_exit "unknown command: exit 2" 2 "$GEMMTAB" frobnicate
expect_line "unknown command named" "$TMP/err" "gemmtab: 'frobnicate' is not a gemmtab command"
expect_exit "help: exit 0" 0 "$GEMMTAB" --help
check "help lists sweep" grep -q '^  sweep ' "$TMP/out"
expect_exit "sweep without --space: exit 2" 2 "$GEMMTAB" sweep
expect_line "sweep names the missing option" "$TMP/err" "gemmtab sweep: --space is required"
expect_exit "sweep unknown option: exit 2" 2 "$GEMMTAB" sweep --space x.yaml --bogus
expect_line "sweep names the unknown option" "$TMP/err" "gemmtab sweep: unknown option '--bogus'"
expect_exit "sweep bad --jobs value: exit 2" 2 "$GEMMTAB" sweep --space x.yaml --jobs many
expect_line "sweep names the bad value" "$TMP/err" "gemmtab sweep: --jobs: 'many' is not a valid number"
expect_exit "sweep missing space file: exit 2" 2 "$GEMMTAB" sweep --space "$TMP/none.yaml" --dry-run
check "missing file is named" grep -q "$TMP/none.yaml" "$TMP/err"
expect_exit "compile bad --jobs: exit 2" 2 "$GEMMTAB" compile --space x.yaml --jobs 0
expect_exit "probe unknown option: exit 2" 2 "$GEMMTAB" probe --frob 1
# numbers are plain decimals: strtod alone would take hex, blanks and signs
for bad in 0x10 0x1p4 ' 5' +5 inf nan 5s 1e 1e+ . -; do
	expect_exit "sweep --deadline '$bad': exit 2" 2 "$GEMMTAB" sweep --space tests/spaces/fake.yaml --dry-run --deadline "$bad"
	expect_line "--deadline '$bad' is named" "$TMP/err" "gemmtab sweep: --deadline: '$bad' is not a valid number"
done
for good in 2.5 16 1e1 2.5E+1; do
	expect_exit "sweep --deadline $good: exit 0" 0 "$GEMMTAB" sweep --space tests/spaces/fake.yaml --dry-run --deadline "$good"
done
expect_exit "sweep --jobs 0x2: exit 2" 2 "$GEMMTAB" sweep --space tests/spaces/fake.yaml --dry-run --jobs 0x2
# --strict judges a plan: without --dry-run it is refused before anything runs
expect_exit "sweep --strict without --dry-run: exit 2" 2 "$GEMMTAB" sweep --space tests/spaces/fake.yaml --db "$TMP/strict.db" --strict
expect_line "it says --strict needs --dry-run" "$TMP/err" "gemmtab sweep: --strict checks a plan: it needs --dry-run"
check "and creates no database" test ! -e "$TMP/strict.db"
# --devices under --dry-run: checked against the GPUs a worker sees (the
# fake worker's 4), or for its form alone where there is no GPU
export GEMMTAB_WORKER=$PWD/build/tests/fake_worker
FAKE_WORKER_DEVICES=4 expect_exit "dry run --devices 0,4 of 4: exit 2" 2 "$GEMMTAB" sweep --space tests/spaces/fake.yaml --dry-run --devices 0,4
check "names the GPU that is not there" grep -q "there is no GPU 4 (4 visible: 0..3)" "$TMP/err"
FAKE_WORKER_DEVICES=4 expect_exit "dry run --devices 0-3: exit 0" 0 "$GEMMTAB" sweep --space tests/spaces/fake.yaml --dry-run --devices 0-3
FAKE_WORKER_DEVICES=0 expect_exit "dry run, no GPU, --devices 1-x: exit 2" 2 "$GEMMTAB" sweep --space tests/spaces/fake.yaml --dry-run --devices 1-x
FAKE_WORKER_DEVICES=0 expect_exit "dry run, no GPU, --devices 1,1: exit 2" 2 "$GEMMTAB" sweep --space tests/spaces/fake.yaml --dry-run --devices 1,1
FAKE_WORKER_DEVICES=0 expect_exit "dry run, no GPU, --devices 0,5: exit 0 (its form)" 0 "$GEMMTAB" sweep --space tests/spaces/fake.yaml --dry-run --devices 0,5
expect_exit "dry run --device with --devices: exit 2" 2 "$GEMMTAB" sweep --space tests/spaces/fake.yaml --dry-run --device 1 --devices all
unset GEMMTAB_WORKER
# the internal worker too says how it is called, without a GPU
expect_exit "worker --help: exit 0" 0 "$GEMMTAB" worker --help
check "worker --help prints its usage" grep -q '^usage: gemmtab worker \[--device N | --count\]' "$TMP/out"
finish

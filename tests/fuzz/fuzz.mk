# tests/fuzz/fuzz.mk: the libFuzzer targets, included by the top Makefile
# (after it defines BUILD, OBJ, CPPFLAGS, LDLIBS, TUNER_C, PLAN_C, BLAS_C).
#   fuzz_space  the search-space loader and the task builder (seeds:
#               search_spaces/ and tests/spaces/)
#   fuzz_db     the database readers of report, emit and query (seed:
#               $(FUZZ_DIR)/seeds_db/fake.db, a fake sweep's database that
#               tests/fuzz/seed_db.sh makes and checks with this build, so it
#               is always of the current schema), NVRTC kept out
#               (tests/fuzz/nojit.c)
# Both are built with clang under AddressSanitizer and UBSan from the
# tuner's own sources (instrumented, into $(FUZZ_DIR)).
#
# Targets:
#   fuzz-build   the two targets; nothing (a note) when no clang with
#                libFuzzer is found (apt-get install clang-14 libclang-rt-14-dev)
#   fuzz         each target for FUZZ_S seconds [60] on FUZZ_JOBS processes
#                [1], new inputs kept in $(FUZZ_DIR)/corpus_*; ends with one
#                line per target: executions, coverage, crashes
# `make test` runs each seed once (tests/cli/t_fuzz.sh).

FUZZ_CC ?= $(firstword $(foreach c,clang-14 clang,$(shell command -v $(c) 2>/dev/null)))
FUZZ_S ?= 60
FUZZ_JOBS ?= 1
FUZZ_DIR := $(BUILD)/fuzz
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
# does FUZZ_CC link a libFuzzer program? (clang without libclang-rt does not)
FUZZ_OK := $(if $(FUZZ_CC),$(shell printf 'int LLVMFuzzerTestOneInput(const char *d, long n) { return 0; }\n' | \
	$(FUZZ_CC) -x c -fsanitize=fuzzer -o /dev/null - >/dev/null 2>&1 && echo yes))
FUZZ_SRC := $(filter-out tuner/cli/main.c tuner/jit/jit.c,$(TUNER_C)) $(PLAN_C) $(BLAS_C) \
	tests/fuzz/nojit.c
FUZZ_OBJ := $(addprefix $(FUZZ_DIR)/obj/,$(notdir $(FUZZ_SRC:.c=.o)))
FUZZ_BIN := $(FUZZ_DIR)/fuzz_space $(FUZZ_DIR)/fuzz_db
FUZZ_SEED_DB := $(FUZZ_DIR)/seeds_db/fake.db

define FUZZ_RULE
$(FUZZ_DIR)/obj/$(notdir $(1:.c=.o)): $(1)
	@mkdir -p $$(@D)
	@echo "  FUZZCC  $$<"
	$(Q)$(FUZZ_CC) $(CPPFLAGS) -std=c11 -g -O1 $(FUZZ_SAN) -fsanitize=fuzzer-no-link \
		-MMD -MP -c -o $$@ $$<
endef
$(foreach s,$(FUZZ_SRC) tests/fuzz/fuzz_space.c tests/fuzz/fuzz_db.c,$(eval $(call FUZZ_RULE,$(s))))

$(FUZZ_DIR)/libtuner_fuzz.a: $(FUZZ_OBJ)
	@rm -f $@
	$(Q)ar rcs $@ $^

$(FUZZ_DIR)/fuzz_%: $(FUZZ_DIR)/obj/fuzz_%.o $(FUZZ_DIR)/libtuner_fuzz.a $(OBJ)/embedded_data.o
	@echo "  FUZZLD  $@"
	$(Q)$(FUZZ_CC) -fsanitize=fuzzer $(FUZZ_SAN) -o $@ $^ $(LDLIBS)

$(FUZZ_SEED_DB): $(BUILD)/bin/gemmtab $(BUILD)/tests/fake_worker db/gemmtab.sql \
		tests/spaces/fake.yaml tests/fuzz/seed_db.sh
	$(Q)bash tests/fuzz/seed_db.sh $(BUILD)/bin/gemmtab $(BUILD)/tests/fake_worker $@

ifeq ($(FUZZ_OK),yes)
fuzz-build: $(FUZZ_BIN) $(FUZZ_SEED_DB)
else
fuzz-build:
	@echo "fuzz: no clang with libFuzzer$(if $(FUZZ_CC), ($(FUZZ_CC) cannot link -fsanitize=fuzzer)); apt-get install clang-14 libclang-rt-14-dev"
endif

fuzz: fuzz-build
	@test "$(FUZZ_OK)" = yes || { echo "fuzz: nothing to run"; exit 1; }
	@bash tests/fuzz/run.sh $(FUZZ_DIR) $(FUZZ_S) $(FUZZ_JOBS)

.PHONY: fuzz fuzz-build
-include $(call deps,$(FUZZ_DIR)/obj)

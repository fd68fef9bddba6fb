# gemmtab: GEMM autotuner and dispatch-table generator for decode-time
# projections on NVIDIA Hopper.
#
# Knobs (set on the command line, e.g. `make V=1 CUDA_HOME=/opt/cuda`):
#   CUDA_HOME  CUDA toolkit root (nvcc, NVRTC, cuBLAS, headers)   [/usr/local/cuda]
#   GPU_ARCH   target for NVRTC (tuner) and nvcc (harness)          [sm_90a]
#   PREFIX     install root for `make install`                     [/usr/local]
#   V=1        print every command
#   CC         C compiler                                           [gcc]
#
# Targets:
#   make            build build/bin/gemmtab
#   make test       CPU-only tests (what CI runs); ends "N passed, N failed"
#   make test-gpu   GPU tests; needs a Hopper GPU (sm_90a)
#   make tune       build, sweep search_spaces/quick.yaml on GPU 0 (a Hopper card)
#                   into build/tune.db (untracked), report it
#   make install    gemmtab, libgemmtab.{a,so}, gemmtab.h, gemmtab.pc under PREFIX
#   make bench-host  libgemmtab's host cost per call and at prepare (needs a GPU)
#   make bench-search  the search's modelled GPU seconds and its table's regret
#                   against the modelled GPU's truth on three spaces (no GPU)
#   make db-pack     gzip db/h200.db and db/h100.db into their tracked .gz copies
#   TABLE=FILE      the dispatch table libgemmtab compiles in (runtime/runtime.mk)
#   TABLES="A.h B.h"  several, one per GPU kind: each card uses its own (docs/hopper.md)
#   make clean
#
# SQLite and libyaml are linked statically so a binary built on a CPU-only
# machine runs as is on a GPU machine that has neither; the CUDA libraries
# are linked dynamically.

CUDA_HOME ?= /usr/local/cuda
GPU_ARCH  ?= sm_90a
PREFIX    ?= /usr/local
V         ?= 0
CC        ?= gcc

NVCC      := $(CUDA_HOME)/bin/nvcc
BUILD     := build
GEN       := $(BUILD)/gen
OBJ       := $(BUILD)/obj

ifeq ($(V),1)
Q :=
else
Q := @
endif

# compute_90a,code=sm_90a: the -arch=sm_90a shorthand also runs a plain sm_90 pass.
GPU_NUM   := $(patsubst sm_%,%,$(GPU_ARCH))
NVCC_GENCODE := -gencode=arch=compute_$(GPU_NUM),code=$(GPU_ARCH)

# What the build needs besides the toolkit, installed first when missing
# (tools/deps.sh: apt-get as root, else the command to run), before
# pkg-config is asked below; not for `make clean`, and never with
# PREBUILT=1 (the GPU machine reaches no registry).
ifneq ($(PREBUILT),1)
ifneq ($(MAKECMDGOALS),clean)
DEPS_STATUS := $(shell bash tools/deps.sh >&2; echo $$?)
ifneq ($(DEPS_STATUS),0)
$(error the build dependencies are missing (see above))
endif
endif
endif

PKG_LIBDIR_SQLITE := $(shell pkg-config --variable=libdir sqlite3 2>/dev/null)
PKG_LIBDIR_YAML   := $(shell pkg-config --variable=libdir yaml-0.1 2>/dev/null)
STATIC_LIBS := $(PKG_LIBDIR_SQLITE)/libsqlite3.a $(PKG_LIBDIR_YAML)/libyaml.a

# the tuner, one folder per stage (cli, bench, space, jit, sweep, worker,
# db, emit, util); a header is included by its name from any of them
TUNER_DIRS := $(sort $(dir $(wildcard tuner/*/*.c tuner/*/*.h)))
TUNER_INC  := $(patsubst %/,-I%,$(TUNER_DIRS))

# The one version source: VERSION (the CLI's --version, gt_version(),
# the SONAME's major, gemmtab.pc and the Python package all read it).
GT_VERSION := $(shell cat VERSION)
GT_SOVERSION := $(firstword $(subst ., ,$(GT_VERSION)))

CPPFLAGS := -D_GNU_SOURCE $(TUNER_INC) -Iplan -Iblas -I$(CUDA_HOME)/include \
	-DGT_DEFAULT_CUDA_INCLUDE='"$(CUDA_HOME)/include"' -DGT_DEFAULT_ARCH='"$(GPU_ARCH)"' -DGT_VERSION='"$(GT_VERSION)"' \
	$(shell pkg-config --cflags sqlite3 yaml-0.1 2>/dev/null)
CFLAGS   ?= -O2 -g
CFLAGS   += -std=c11 -Wall -Wextra -MMD -MP
NVCCFLAGS := -std=c++17 -O3 $(NVCC_GENCODE) -Xcompiler -Wall,-Wextra $(TUNER_INC) -Iplan -Iblas
LDLIBS   := $(STATIC_LIBS) -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 \
	-lnvrtc -lcublasLt -lcublas -lcudart \
	-lstdc++ -lpthread -ldl -lm

TEMPLATES := $(sort $(wildcard templates/*.cuh))
TUNER_C   := $(sort $(wildcard tuner/*/*.c))
# the pure plan code the tuner and libgemmtab both build (types, the
# template registry and adapters: no CUDA, no I/O)
PLAN_C    := $(filter-out plan/tmpl_planted.c,$(sort $(wildcard plan/*.c)))
# the cuBLASLt call by algorithm attributes, which the worker and the
# library both make
BLAS_C    := $(sort $(wildcard blas/*.c))
TUNER_CU  := $(sort $(wildcard tuner/*/*.cu))
TUNER_OBJ := $(patsubst %.c,$(OBJ)/%.o,$(notdir $(TUNER_C))) $(PLAN_C:plan/%.c=$(OBJ)/%.o) \
	$(BLAS_C:blas/%.c=$(OBJ)/%.o) $(patsubst %.cu,$(OBJ)/%.cu.o,$(notdir $(TUNER_CU))) \
	$(OBJ)/embedded_data.o
# object files are named by their source's name alone: the folders'
# file names never repeat
vpath %.c $(TUNER_DIRS)
vpath %.cu $(TUNER_DIRS)
# The tests' tuner library and gemmtab also register the test-only
# template `planted` (plan/tmpl_planted.c; plan/registry.c with
# GT_TEST_TEMPLATES); build/bin/gemmtab and libgemmtab do not.
LIB_OBJ   := $(filter-out $(OBJ)/main.o $(OBJ)/registry.o,$(TUNER_OBJ)) \
	$(OBJ)/registry_test.o $(OBJ)/tmpl_planted.o

UNIT_SRC  := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BIN  := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
GPU_SRC   := $(sort $(wildcard tests/gpu/test_*.c))
GPU_BIN   := $(GPU_SRC:tests/gpu/%.c=$(BUILD)/tests/gpu_%)

# The committed databases, one per card a committed table was tuned on
COMMITTED_DBS := db/h200.db db/h100.db

all: $(BUILD)/bin/gemmtab runtime $(COMMITTED_DBS)

# The committed databases ship gzipped (db/NAME.db.gz, a quarter of their
# size, keeps the tracked tree small); make unpacks one when db/NAME.db is
# missing and never overwrites one. `make db-pack` packs them back
# (deterministically: gzip -n, no name or time stamp).
$(COMMITTED_DBS): db/%.db: | db/%.db.gz
	@echo "  GUNZIP  $@.gz"
	$(Q)gzip -dc $@.gz > $@.tmp && mv $@.tmp $@

db-pack:
	$(Q)for d in $(COMMITTED_DBS); do \
		test -f $$d || { echo "db-pack: no $$d" >&2; exit 2; }; \
		test ! -s $$d-wal || { echo "db-pack: $$d has a WAL; close its writers (or run gemmtab prune) first" >&2; exit 2; }; \
		gzip -9 -n -c $$d > $$d.gz.tmp && mv $$d.gz.tmp $$d.gz; \
		echo "  GZIP    $$d -> $$d.gz ($$(wc -c < $$d.gz) bytes)"; \
	done

# $(call deps,DIR): DIR's dependency files (-MMD) for -include. One whose
# source (the first prerequisite it names) is gone, moved since an
# earlier build (git mv), would stop make with "No rule to make target":
# it goes, with its object, which is then built anew from where its
# source is now.
define deps
$(foreach d,$(shell awk 'FNR == 1 { sub(/^[^:]*: */, ""); sub(/[ \\].*/, ""); \
	print FILENAME, $$0 }' $(wildcard $(1)/*.d) /dev/null | \
	while read -r d s; do [ -z "$$s" ] || [ -e "$$s" ] || { rm -f "$$d" "$${d%.d}.o"; \
	echo "$$d"; }; done),$(info make: $(d) named a source that is gone: rebuilding its object))\
$(wildcard $(1)/*.d)
endef

include runtime/runtime.mk
include tests/fuzz/fuzz.mk

# The tuner links libgemmtab (only its gt_ API is global) for `gemmtab bench`.
$(BUILD)/bin/gemmtab: $(TUNER_OBJ) $(RT_LIB_A)
	@mkdir -p $(@D)
	@echo "  LINK    $@"
	$(Q)$(CC) $(LDFLAGS) -o $@ $(TUNER_OBJ) $(RT_LIB_A) $(LDLIBS)

install: all install-runtime
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(BUILD)/bin/gemmtab $(DESTDIR)$(PREFIX)/bin/gemmtab

# a new version rebuilds what prints it
$(OBJ)/main.o: VERSION

$(OBJ)/registry_test.o: plan/registry.c
	@mkdir -p $(@D)
	@echo "  CC      $< (with the test templates)"
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -DGT_TEST_TEMPLATES -c -o $@ $<

# gemmtab with the test templates, for the tests that sweep `planted`
$(BUILD)/tests/gemmtab: $(LIB_OBJ) $(OBJ)/main.o $(RT_LIB_A)
	@mkdir -p $(@D)
	@echo "  LINK    $@"
	$(Q)$(CC) $(LDFLAGS) -o $@ $(OBJ)/main.o $(LIB_OBJ) $(RT_LIB_A) $(LDLIBS)

$(BUILD)/libtuner.a: $(LIB_OBJ)
	$(Q)rm -f $@ && ar rcs $@ $^

$(OBJ)/%.o: %.c
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(OBJ)/%.o: plan/%.c
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(OBJ)/%.o: blas/%.c
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(OBJ)/%.cu.o: %.cu
	@mkdir -p $(@D)
	@echo "  NVCC    $<"
	$(Q)$(NVCC) $(NVCCFLAGS) -Itemplates -c -o $@ $<

$(BUILD)/tools/embed: tools/embed.c
	@mkdir -p $(@D)
	$(Q)$(CC) -std=c11 -O2 -Wall -Wextra -o $@ $<

# The template adapters are embedded too: each template's hash covers its
# kernel source, its adapter and the adapter files it shares (tuner/jit/sources.c).
ADAPTERS := $(sort $(wildcard plan/tmpl_*.c plan/tmpl_*.h))
# (templates/ holds the weight re-layouts the kernels read too: pack.cuh,
# hilo.cuh, transpose.cuh, hashed with the templates that list them)
RELAYOUTS :=
# schema 4's re-keying of schema-3 rows (tuner/db/db_migrate.c rekey_step)
DB_FILES := db/schema.sql db/rekey-4.map db/6.sql db/gemmtab.sql
$(GEN)/embedded_data.c: $(BUILD)/tools/embed $(TEMPLATES) $(ADAPTERS) $(RELAYOUTS) $(DB_FILES)
	@mkdir -p $(@D)
	@echo "  EMBED   $(TEMPLATES) $(ADAPTERS) $(RELAYOUTS) $(DB_FILES)"
	$(Q)$(BUILD)/tools/embed $@.tmp $(TEMPLATES) $(ADAPTERS) $(RELAYOUTS) $(DB_FILES) && mv $@.tmp $@

# A gemmtab that embeds the files of VARIANT_ROOT (a copy of this tree's
# layout) instead of this tree's, written to VARIANT_OUT: what
# tests/cli/t_rekey.sh builds to edit a template without touching the tree.
variant: $(TUNER_OBJ) $(RT_LIB_A) $(BUILD)/tools/embed
	$(Q)test -n "$(VARIANT_ROOT)" -a -n "$(VARIANT_OUT)" || { echo "variant: set VARIANT_ROOT and VARIANT_OUT" >&2; exit 2; }
	$(Q)cd $(VARIANT_ROOT) && $(abspath $(BUILD)/tools/embed) $(abspath $(VARIANT_OUT)).c \
		$(TEMPLATES) $(ADAPTERS) $(RELAYOUTS) $(DB_FILES)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $(VARIANT_OUT).o $(VARIANT_OUT).c
	$(Q)$(CC) $(LDFLAGS) -o $(VARIANT_OUT) $(filter-out $(OBJ)/embedded_data.o,$(TUNER_OBJ)) \
		$(VARIANT_OUT).o $(RT_LIB_A) $(LDLIBS)

$(OBJ)/embedded_data.o: $(GEN)/embedded_data.c
	@mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libtuner.a $(RT_LIB_A)
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -Itests/unit -o $@ $< $(BUILD)/libtuner.a $(RT_LIB_A) $(LDLIBS)

$(BUILD)/tests/gpu_%: tests/gpu/%.c $(BUILD)/libtuner.a $(RT_LIB_A)
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -Itests/unit -o $@ $< $(BUILD)/libtuner.a $(RT_LIB_A) $(LDLIBS)

# A worker without a GPU for the CPU tests of the supervisor (GEMMTAB_WORKER),
# with its modelled GPU (tests/fake/gpumodel.c, FAKE_WORKER_MODEL), and the
# model's truth beside it (fake_truth: the best candidate and the baseline
# at every M, and a table's regret against them).
FAKE_MODEL_C := tests/fake/gpumodel.c tests/fake/gpumodel.h
$(BUILD)/tests/fake_worker: tests/fake/fake_worker.c tests/fake/model_mode.c \
		tests/fake/model_mode.h $(FAKE_MODEL_C) $(BUILD)/libtuner.a
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -Itests/fake -o $@ $(filter %.c,$^) $(BUILD)/libtuner.a -lm

# test_gpumodel compiles the model in
$(BUILD)/tests/test_gpumodel: $(FAKE_MODEL_C)

$(BUILD)/tests/fake_truth: tests/fake/truth.c $(FAKE_MODEL_C) $(BUILD)/libtuner.a $(RT_LIB_A)
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -Itests/fake -o $@ $(filter %.c,$^) $(BUILD)/libtuner.a \
		$(RT_LIB_A) $(LDLIBS)

# A stand-in for libnvrtc (LD_PRELOAD) that "compiles" every name at once
# into a small cubin of its own: make bench-search sweeps spaces of
# thousands of instantiations on the fake worker without NVRTC's minutes.
$(BUILD)/tests/fake_nvrtc.so: tests/fake/fake_nvrtc.c
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) -fPIC -shared -o $@ $<

$(BUILD)/tests/test_kernels.cubin: tests/gpu/test_kernels.cu templates/mma_frag.cuh
	@mkdir -p $(@D)
	@echo "  CUBIN   $<"
	$(Q)$(NVCC) -cubin $(NVCC_GENCODE) -o $@ $<

tests: $(UNIT_BIN) $(GPU_BIN) $(BUILD)/tests/test_kernels.cubin $(BUILD)/tests/fake_worker \
	$(BUILD)/tests/fake_truth $(BUILD)/tests/fake_nvrtc.so \
	$(BUILD)/tests/gemmtab runtime-tests runtime-tests-gpu \
	$(RT_EXAMPLE) fuzz-build $(BUILD)/bench/host_cost

# test builds the GPU tests too (without running them), so a GPU test that
# no longer compiles or links fails here, not first on the H200.
test: all tests
	@bash tests/run.sh cpu

# PREBUILT=1: run what the build folder holds without checking it is up to
# date (a GPU machine that lacks the SQLite and libyaml headers).
ifeq ($(PREBUILT),1)
test-gpu:
	@bash tests/run.sh gpu
else
test-gpu: all $(GPU_BIN) $(BUILD)/tests/test_kernels.cubin $(BUILD)/tests/gemmtab \
	runtime-tests-gpu $(RT_EXAMPLE)
	@bash tests/run.sh gpu
endif

# the sweep supervisor's throughput on the fake worker (a benchmark, not a
# test): 4 fake GPUs against 1, and the cost per result at 100,000 results
bench-supervisor: all tests
	@bash bench/supervisor.sh

# the search on the fake worker's modelled GPU (a benchmark, not a test; no
# GPU): per space its modelled GPU seconds, evals and pairs, and its table's
# regret against the model's truth at every M of 1..512 (bench/search.sh;
# SEARCH_ARGS passes --search dense|new|both, --spaces LIST, --model h100)
bench-search: all $(BUILD)/tests/fake_worker $(BUILD)/tests/fake_truth $(BUILD)/tests/fake_nvrtc.so
	@bash bench/search.sh $(SEARCH_ARGS)

# libgemmtab's host cost outside graphs (a benchmark; needs a GPU):
# gt_weight_prepare of the six reference weights, gt_linear's host time
# per call against cublasGemmEx's
$(BUILD)/bench/host_cost: bench/host_cost.c $(RT_LIB_A)
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(RT_CPPFLAGS) $(RT_CFLAGS) -o $@ $< $(RT_LIB_A) $(RT_LDLIBS)

bench-host: $(BUILD)/bench/host_cost
	@$(BUILD)/bench/host_cost

tune: all
	@bash tools/tune.sh

clean:
	rm -rf $(BUILD)

.PHONY: variant all test test-gpu tune clean tests install bench-supervisor bench-host bench-search db-pack
.DELETE_ON_ERROR:

-include $(call deps,$(OBJ))

# runtime/runtime.mk: libgemmtab, included by the top Makefile (after it
# defines CUDA_HOME, GPU_ARCH, NVCC, NVCC_GENCODE, BUILD, OBJ, Q, CC,
# CFLAGS and PREFIX). Builds the static and shared library from the
# runtime's sources, the pure plan code it shares with the tuner (plan/tmpl*.c,
# plan/registry.c, plan/types.c: the same launch plans the tuner timed)
# and the dispatch tables with their kernels, compiled by tools/gt_cubin
# with the tuner's own NVRTC path and embedded as cubins. Only the gt_ API
# stays global in the libraries.
#
# Knobs:
#   TABLES  the dispatch tables compiled in, one per GPU kind, in the order
#           gt_context_create tries them (runtime/choose.c: the first whose
#           GPU name, SM count and arch are the device's); each one's kernels
#           are the same stem + _kernels.cu, and the build refuses a header
#           whose kernels_hash is not its kernels file's
#           [runtime/tables/h200.h runtime/tables/h100.h, those that exist;
#           $(TABLE) when TABLE is given on the command line]
#   TABLE   one table, when TABLES is not given   [runtime/tables/h200.h if
#           it exists, else the test fixture runtime/tables/example.h]
#
# Targets:
#   runtime             $(RT_LIB_A) and $(RT_LIB_SO)
#   install-runtime     PREFIX/lib/libgemmtab.{a,so}, PREFIX/include/gemmtab.h,
#                       PREFIX/lib/pkgconfig/gemmtab.pc (DESTDIR honoured)
#   runtime-tests       the CPU test binaries ($(RT_UNIT_BIN))
#   runtime-tests-gpu   the GPU test binary ($(RT_GPU_BIN))
#   runtime-example     $(RT_EXAMPLE): examples/linear.c built through
#                       pkg-config against an install in $(RT_EXAMPLE_PREFIX)
#
# Explicit rules here build build/tests/test_runtime_*, build/tests/
# gpu_test_runtime_gpu against libgemmtab instead of the top Makefile's
# pattern rules (an explicit rule wins over a pattern rule).

# Keep the including Makefile's default goal whatever the include position.
RT_SAVED_GOAL := $(.DEFAULT_GOAL)

TABLE ?= $(if $(wildcard runtime/tables/h200.h),runtime/tables/h200.h,runtime/tables/example.h)
# The committed tables, one per card they were tuned on; TABLE= on the
# command line builds that one table alone.
RT_DEFAULT_TABLES := $(wildcard runtime/tables/h200.h runtime/tables/h100.h)
ifeq ($(origin TABLE),command line)
TABLES ?= $(TABLE)
else
TABLES ?= $(if $(RT_DEFAULT_TABLES),$(RT_DEFAULT_TABLES),$(TABLE))
endif
# Table i of TABLES is slot i (1-based): its objects are table_i.o and
# table_cubin_i.o, its symbols rt_compiled_i and gt_table_*_i.
RT_SLOTS := $(shell seq 1 $(words $(TABLES)))
rt_header = $(word $(1),$(TABLES))
rt_kernels = $(patsubst %.h,%_kernels.cu,$(word $(1),$(TABLES)))

LD      ?= ld
OBJCOPY ?= objcopy
AR      ?= ar

RT_OBJ     := $(BUILD)/obj/rt
RT_LIB_A   := $(BUILD)/lib/libgemmtab.a
# The shared library is libgemmtab.so.VERSION with the SONAME
# libgemmtab.so.MAJOR (what programs record and load) and the link
# libgemmtab.so (what -lgemmtab finds at link time), both relative links.
RT_SONAME    := libgemmtab.so.$(GT_SOVERSION)
RT_LIB_REAL  := $(BUILD)/lib/libgemmtab.so.$(GT_VERSION)
RT_LIB_SO    := $(BUILD)/lib/libgemmtab.so
RT_ALL_O   := $(RT_OBJ)/gemmtab_all.o
RT_SYMS    := runtime/gemmtab.sym

RT_C       := $(filter-out runtime/table.c,$(sort $(wildcard runtime/*.c)))
# The registry (plan/registry.c, its lookups in plan/tmpl.c) and every
# template adapter it lists: pure C by tmpl.h's contract; the shared
# library's --no-undefined link proves it.
RT_REGISTRY_C := $(filter-out plan/tmpl_planted.c,$(sort $(wildcard plan/tmpl*.c))) \
	plan/registry.c
RT_PURE_C  := $(RT_REGISTRY_C) plan/types.c plan/lt_attrs.c
# and the cuBLASLt call by algorithm attributes the tuner times (STEP_LT)
RT_BLAS_C  := blas/lt_call.c
RT_CU      := $(sort $(wildcard runtime/*.cu))
RT_TABLE_OBJS := $(RT_OBJ)/table_list.o $(foreach i,$(RT_SLOTS),$(RT_OBJ)/table_$(i).o \
	$(RT_OBJ)/table_cubin_$(i).o)
RT_OBJS    := $(RT_C:runtime/%.c=$(RT_OBJ)/%.o) \
	$(patsubst plan/%.c,$(RT_OBJ)/plan_%.o,$(RT_PURE_C)) \
	$(RT_BLAS_C:blas/%.c=$(RT_OBJ)/blas_%.o) \
	$(RT_CU:runtime/%.cu=$(RT_OBJ)/%.cu.o) $(RT_TABLE_OBJS)

RT_CPPFLAGS := -D_GNU_SOURCE -I. -Iruntime -Iplan -Iblas -I$(CUDA_HOME)/include \
	-DGT_VERSION='"$(GT_VERSION)"'
RT_CFLAGS   := $(CFLAGS) -std=c11 -fPIC -MMD -MP
# The runtime's own kernels (runtime/*.cu: conversions and re-layouts),
# built by nvcc for the tuner's arch with the same C++ standard; they also
# carry PTX of the base arch, so the baseline runs (and
# a table tuned elsewhere falls back) on other GPUs too.
RT_NVCCFLAGS := -std=c++17 -O3 -Xcompiler -fPIC,-Wall,-Wextra -Iruntime -Itemplates
RT_PTX_ARCH  := $(patsubst %a,%,$(GPU_NUM))
RT_CONVERT_GENCODE := $(NVCC_GENCODE) -gencode=arch=compute_$(RT_PTX_ARCH),code=compute_$(RT_PTX_ARCH)

RT_CUDA_LIBS := -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 \
	-lcublasLt -lcublas -lcudart
# What a program linking the static library adds (nvcc's host code needs
# the C++ runtime).
RT_LDLIBS := $(RT_CUDA_LIBS) -lstdc++ -lpthread -lm

RT_UNIT_BIN := $(BUILD)/tests/test_runtime_api $(BUILD)/tests/test_runtime_dispatch \
	       $(BUILD)/tests/test_runtime_untuned
RT_GPU_BIN  := $(BUILD)/tests/gpu_test_runtime_gpu $(BUILD)/tests/gpu_test_runtime_lt
RT_EXAMPLE  := $(BUILD)/examples/linear
RT_EXAMPLE_PREFIX := $(BUILD)/rt-prefix

runtime: $(RT_LIB_A) $(RT_LIB_SO)

# Rebuild the tables' objects when TABLES names other files: the stamp
# holds the names and changes only when they do.
RT_TABLE_STAMP := $(RT_OBJ)/table-names
$(RT_TABLE_STAMP): rt-force
	@mkdir -p $(@D)
	@echo '$(TABLES)' | cmp -s - $@ || echo '$(TABLES)' > $@

$(RT_OBJ)/%.o: runtime/%.c
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(RT_CPPFLAGS) $(RT_CFLAGS) -c -o $@ $<

# gt_version() says VERSION
$(RT_OBJ)/status.o: VERSION

$(RT_OBJ)/blas_%.o: blas/%.c
	@mkdir -p $(@D)
	@echo "  CC      $< (runtime)"
	$(Q)$(CC) $(RT_CPPFLAGS) $(RT_CFLAGS) -c -o $@ $<

$(RT_OBJ)/plan_%.o: plan/%.c
	@mkdir -p $(@D)
	@echo "  CC      $< (runtime)"
	$(Q)$(CC) $(RT_CPPFLAGS) $(RT_CFLAGS) -c -o $@ $<

$(RT_OBJ)/%.cu.o: runtime/%.cu
	@mkdir -p $(@D)
	@echo "  NVCC    $<"
	$(Q)$(NVCC) $(RT_NVCCFLAGS) $(RT_CONVERT_GENCODE) -c -o $@ $<

# The table's kernels, compiled by the tuner's own NVRTC path (tuner/jit/jit.c:
# same template text, NVRTC, flags and arch) and embedded as cubins: nvcc
# compiled the same source into slower code (tools/gt_cubin.c says how much).
RT_CUBIN_TOOL_OBJ := $(addprefix $(OBJ)/,jit.o sass.o util.o types.o sources.o embedded.o embedded_data.o) \
	$(patsubst plan/%.c,$(OBJ)/%.o,$(RT_REGISTRY_C))
$(BUILD)/tools/gt_cubin: tools/gt_cubin.c $(RT_CUBIN_TOOL_OBJ)
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(RT_CUBIN_TOOL_OBJ) \
		-L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lnvrtc -lm

# A header and its kernels file are one unit: the header names the
# kernels file's hash, and the build stops on a pair that differs (one
# file replaced without the other).
RT_TABLE_CHECK := $(BUILD)/tools/gt_table_check
$(RT_TABLE_CHECK): runtime/check/gt_table_check.c
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) -std=c11 -o $@ $<

# $(call rt_table_rules,SLOT): table SLOT's header object, checked pair,
# and kernels (the generated symbols renamed per slot).
define rt_table_rules
$(RT_OBJ)/table_$(1).checked: $(call rt_header,$(1)) $(call rt_kernels,$(1)) $(RT_TABLE_CHECK)
	@mkdir -p $$(@D)
	$(Q)$(RT_TABLE_CHECK) $(call rt_header,$(1)) $(call rt_kernels,$(1)) && touch $$@

$(RT_OBJ)/table_$(1).o: runtime/table.c $(call rt_header,$(1)) $(RT_OBJ)/table_$(1).checked \
		$(RT_TABLE_STAMP)
	@mkdir -p $$(@D)
	@echo "  CC      $$< ($(call rt_header,$(1)))"
	$(Q)$(CC) $(RT_CPPFLAGS) $(RT_CFLAGS) -DGT_TABLE_HEADER='"$(call rt_header,$(1))"' \
		-DGT_TABLE_SLOT=$(1) -c -o $$@ $$<

$(RT_OBJ)/table_cubin_$(1).c: $(BUILD)/tools/gt_cubin $(call rt_kernels,$(1)) $(TEMPLATES) \
		$(RT_OBJ)/table_$(1).checked $(RT_TABLE_STAMP)
	@mkdir -p $$(@D)
	@echo "  NVRTC   $(call rt_kernels,$(1))"
	$(Q)CUDA_HOME=$(CUDA_HOME) $(BUILD)/tools/gt_cubin $$@ $(call rt_kernels,$(1)) $(BUILD)/jit-cache

$(RT_OBJ)/table_cubin_$(1).o: $(RT_OBJ)/table_cubin_$(1).c
	$(Q)$(CC) $(RT_CPPFLAGS) $(RT_CFLAGS) -Dgt_table_cubins=gt_table_cubins_$(1) \
		-Dgt_table_kernel_names=gt_table_kernel_names_$(1) \
		-Dgt_table_nkernels=gt_table_nkernels_$(1) -c -o $$@ $$<
endef
$(foreach i,$(RT_SLOTS),$(eval $(call rt_table_rules,$(i))))

# The list of the tables, in TABLES order (rt_compiled_tables, rt.h).
$(RT_OBJ)/table_list.c: $(RT_TABLE_STAMP)
	@mkdir -p $(@D)
	$(Q){ echo '/* Generated by runtime/runtime.mk from TABLES="$(TABLES)"; DO NOT EDIT. */'; \
	  echo '#include "rt.h"'; \
	  $(foreach i,$(RT_SLOTS),echo 'extern const struct rt_compiled rt_compiled_$(i);';) \
	  echo 'const struct rt_compiled *const rt_compiled_tables[] = {'; \
	  $(foreach i,$(RT_SLOTS),echo '	&rt_compiled_$(i),';) \
	  echo '	0,'; echo '};'; } > $@.tmp && mv $@.tmp $@

$(RT_OBJ)/table_list.o: $(RT_OBJ)/table_list.c
	$(Q)$(CC) $(RT_CPPFLAGS) $(RT_CFLAGS) -c -o $@ $<

# One relocatable object with every symbol but the API made local, so
# the tuner's adapters and the runtime's helpers never clash with a
# program's own symbols; both libraries are made from it.
$(RT_ALL_O): $(RT_OBJS) $(RT_SYMS)
	@echo "  LD -r   $@"
	$(Q)$(LD) -r -o $@.tmp $(RT_OBJS)
	$(Q)$(OBJCOPY) --keep-global-symbols=$(RT_SYMS) $@.tmp $@ && rm -f $@.tmp

$(RT_LIB_A): $(RT_ALL_O)
	@mkdir -p $(@D)
	@echo "  AR      $@"
	$(Q)rm -f $@ && $(AR) rcs $@ $<

$(RT_LIB_REAL): $(RT_ALL_O)
	@mkdir -p $(@D)
	@echo "  LINK    $@ (SONAME $(RT_SONAME))"
	$(Q)$(CC) -shared -Wl,-soname,$(RT_SONAME) -Wl,--no-undefined -o $@ $< $(RT_LDLIBS)

$(RT_LIB_SO): $(RT_LIB_REAL)
	$(Q)rm -f $@ $(@D)/$(RT_SONAME)
	$(Q)ln -s $(notdir $<) $(@D)/$(RT_SONAME) && ln -s $(RT_SONAME) $@

# $(call rt_install,ROOT,PREFIX): install the libraries, the header and the
# pkg-config file (saying PREFIX) under ROOT.
define rt_install
	@echo "  INSTALL $(1)"
	$(Q)install -d $(1)/lib/pkgconfig $(1)/include
	$(Q)install -m 644 $(RT_LIB_A) $(1)/lib/libgemmtab.a
	$(Q)install -m 755 $(RT_LIB_REAL) $(1)/lib/$(notdir $(RT_LIB_REAL))
	$(Q)ln -sf $(notdir $(RT_LIB_REAL)) $(1)/lib/$(RT_SONAME)
	$(Q)ln -sf $(RT_SONAME) $(1)/lib/libgemmtab.so
	$(Q)install -m 644 runtime/gemmtab.h $(1)/include/gemmtab.h
	$(Q)sed -e 's|@PREFIX@|$(2)|g' -e 's|@VERSION@|$(GT_VERSION)|g' \
		-e 's|@CUDA_INCLUDEDIR@|$(CUDA_HOME)/include|g' \
		-e 's|@CUDA_LIBDIR@|$(CUDA_HOME)/lib64|g' \
		runtime/gemmtab.pc.in > $(1)/lib/pkgconfig/gemmtab.pc
endef

install-runtime: $(RT_LIB_A) $(RT_LIB_SO)
	$(call rt_install,$(DESTDIR)$(PREFIX),$(PREFIX))

# The example as a user builds it: against an install, through pkg-config.
$(RT_EXAMPLE): examples/linear.c $(RT_LIB_A) $(RT_LIB_SO) runtime/gemmtab.h runtime/gemmtab.pc.in
	$(Q)rm -rf $(RT_EXAMPLE_PREFIX)
	$(call rt_install,$(abspath $(RT_EXAMPLE_PREFIX)),$(abspath $(RT_EXAMPLE_PREFIX)))
	@mkdir -p $(@D)
	@echo "  CC      $< (pkg-config gemmtab)"
	$(Q)PKG_CONFIG_PATH=$(abspath $(RT_EXAMPLE_PREFIX))/lib/pkgconfig; export PKG_CONFIG_PATH; \
		$(CC) -std=c11 -O2 -Wall -Wextra -o $@ $< $$(pkg-config --cflags --libs gemmtab) -lm

runtime-example: $(RT_EXAMPLE)

$(BUILD)/tests/test_runtime_api: tests/unit/test_runtime_api.c $(RT_LIB_A)
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(RT_CPPFLAGS) $(RT_CFLAGS) -Itests/unit -o $@ $< $(RT_LIB_A) $(RT_LDLIBS)

# The dispatch logic is pure C: its test links the unlocalized objects.
RT_DISPATCH_OBJS := $(RT_OBJ)/dispatch.o $(RT_OBJ)/choose.o $(patsubst plan/%.c,$(RT_OBJ)/plan_%.o,$(RT_PURE_C))
$(BUILD)/tests/test_runtime_dispatch: tests/unit/test_runtime_dispatch.c $(RT_DISPATCH_OBJS)
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(RT_CPPFLAGS) $(RT_CFLAGS) -Itests/unit -o $@ $< $(RT_DISPATCH_OBJS)

# The untuned-shape records are pure host code: their test links untuned.o.
$(BUILD)/tests/test_runtime_untuned: tests/unit/test_runtime_untuned.c $(RT_OBJ)/untuned.o $(RT_DISPATCH_OBJS)
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(RT_CPPFLAGS) $(RT_CFLAGS) -Itests/unit -o $@ $< $(RT_OBJ)/untuned.o $(RT_DISPATCH_OBJS) -lpthread

# The GPU test checks against the tuner's FP64 reference kernels (harness.cu).
$(BUILD)/tests/gpu_test_runtime_gpu: tests/gpu/test_runtime_gpu.c $(RT_LIB_A) $(OBJ)/harness.cu.o
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(RT_CPPFLAGS) $(RT_CFLAGS) -Itests/unit $(TUNER_INC) -o $@ $< $(OBJ)/harness.cu.o \
		$(RT_LIB_A) $(RT_LDLIBS)

# A test with a table of its own: the runtime's objects without the
# tables, made local as in the libraries but for the API and version_text
# (the test defines rt_compiled_tables, left undefined here).
RT_OWN_TABLE_O := $(RT_OBJ)/own_table.o
RT_NO_TABLE_OBJS := $(filter-out $(RT_TABLE_OBJS),$(RT_OBJS))
$(RT_OWN_TABLE_O): $(RT_NO_TABLE_OBJS) $(RT_SYMS)
	@echo "  LD -r   $@"
	$(Q)$(LD) -r -o $@.tmp $(RT_NO_TABLE_OBJS)
	$(Q)$(OBJCOPY) --keep-global-symbols=$(RT_SYMS) --keep-global-symbol=version_text \
		$@.tmp $@ && rm -f $@.tmp
$(BUILD)/tests/gpu_test_runtime_lt: tests/gpu/test_runtime_lt.c $(RT_OWN_TABLE_O) $(OBJ)/harness.cu.o
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(RT_CPPFLAGS) $(RT_CFLAGS) -Itests/unit $(TUNER_INC) -o $@ $< $(OBJ)/harness.cu.o \
		$(RT_OWN_TABLE_O) $(RT_LDLIBS)

runtime-tests: $(RT_UNIT_BIN)
runtime-tests-gpu: $(RT_GPU_BIN) $(RT_EXAMPLE)

.PHONY: runtime install-runtime runtime-example runtime-tests runtime-tests-gpu rt-force

-include $(call deps,$(RT_OBJ))

.DEFAULT_GOAL := $(RT_SAVED_GOAL)

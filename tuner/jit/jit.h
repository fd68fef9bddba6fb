/*
 * jit.h: NVRTC behind one module (only jit.c includes nvrtc.h), a cubin
 * cache on disk, and a compile service that runs NVRTC in several
 * processes (NVRTC serializes inside one process) on batches of
 * instantiations (one program, many name expressions).
 *
 * Cache layout under opts->cache_dir:
 *   b/<batchhash>.cubin       one cubin holding every kernel of a batch
 *   i/<insthash>              "<batchhash> <lowered name> <regs> <local> <smem>\n"
 * insthash = hash(template source, name expression, NVRTC version, flags,
 * arch); both files are published by atomic rename, so a crashed compile
 * leaves no half file behind.
 */
#ifndef GT_JIT_H
#define GT_JIT_H

#include <limits.h>

#include "tmpl.h"

struct jit_options {
	const char *cuda_include;   /* e.g. /usr/local/cuda/include (passed as -I) */
	const char *arch;           /* "sm_90a" */
	const char *cache_dir;      /* e.g. .cache/gemmtab */
	int nproc;                  /* compile processes (0: online CPUs) */
	int batch;                  /* instantiations per NVRTC program (4-16; 0: 8) */
	double deadline_s;          /* per batch; a compile past it is an error (0: none) */
};

/* One instantiation to compile: inputs then outputs. */
struct jit_item {
	const char *source_name;    /* template file, e.g. "templates/gemv.cuh" */
	char name[TMPL_NAME_MAX];   /* name expression */
	/* outputs */
	int ok;                     /* 1 compiled, 0 failed */
	int cached;                 /* 1 if found in the cache */
	char cubin[PATH_MAX];       /* path of the cubin holding it */
	char lowered[512];          /* mangled kernel name inside the cubin */
	int regs, local_bytes, smem_bytes;   /* from ptxas -v; -1 unknown */
	char error[512];            /* first lines of the log when !ok */
	char code[17];              /* its code hash (sass.h); "" until
				     * jit_item_code asked for it */
};

/* The code hash of a compiled item (sass.h), read from its cubin on first
 * use and kept in it->code. Returns it->code, or NULL with the reason in
 * why when the item did not compile or its cubin cannot be read. */
const char *jit_item_code(struct jit_item *it, char *why, size_t len);

/* "13.0" etc. of the NVRTC linked in. */
const char *jit_nvrtc_version(void);

#define JIT_FLAGS_MAX 256
/* The NVRTC options that shape the code, as one space-separated string
 * ("--gpu-architecture=sm_90a --std=c++17 ..."): every option but the
 * include path. It is part of every cache key; record it with results.
 * Writes into buf (always NUL-terminated) and returns buf. */
char *jit_flags(const struct jit_options *opts, char *buf, size_t len);

/* Compile (or find in the cache) every item. Deterministic batching: items
 * are grouped by source and sorted by name before batching, so a rerun
 * finds the same batches. Calls progress(ctx, done, total) as batches
 * finish (may be NULL). Returns 0 when the service itself worked (items
 * may still have failed individually), -1 on a setup error. */
int jit_compile_all(const struct jit_options *opts, struct jit_item *items, int n,
		    void (*progress)(void *ctx, int done, int total), void *ctx);

/* The text of a template file embedded at build time, or NULL. */
const char *tmpl_source_text(const char *source_name);
/* The hash of one template's code: its kernel source (if any) and its
 * adapter, as embedded at build time. Candidates are keyed by it, so
 * editing one template re-measures that template's candidates only.
 * 16 hex digits; the string lives as long as the program. */
const char *tmpl_source_hash(const struct tmpl *t);

/* Fill opts with defaults: CUDA include from $CUDA_HOME or the build's
 * toolkit, arch from the build, cache under .cache/gemmtab, all CPUs,
 * batches of 16, 120 s per batch. */
void jit_options_default(struct jit_options *opts);

#endif

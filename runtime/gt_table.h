/*
 * gt_table.h: the data a generated dispatch table holds (runtime/tables/
 * *.h, written by `gemmtab emit`). Each entry covers an inclusive M range
 * of one (N, K, dtypes) with one template configuration that retests
 * (>= 100 paired repetitions) showed faster than cuBLAS at every measured M
 * of the range; everything else runs the cuBLAS baseline. Kernels are
 * named by index into the list of the generated runtime/tables/
 * <name>_kernels.cu, which the build compiles with the tuner's own NVRTC
 * path (tools/gt_cubin) into cubins that gt_context_create loads.
 */
#ifndef GT_RUNTIME_TABLE_H
#define GT_RUNTIME_TABLE_H

#define GT_TABLE_MAX_PARAMS 12
#define GT_TABLE_MAX_KERNELS 4

struct gt_table_entry {
	int n, k;
	int w, x, y;                          /* gt_dtype */
	int m_lo, m_hi;                       /* inclusive */
	const char *tmpl;                     /* template stem, e.g. "gemv" */
	long params[GT_TABLE_MAX_PARAMS];     /* in the template's parameter order */
	int nkernels;
	int kernel[GT_TABLE_MAX_KERNELS];     /* indices into gt_table_kernels[] */
	double ratio_min;                     /* smallest median paired ratio over its Ms */
	int pairs_min;                        /* fewest pairs behind any of its Ms */
};

/* The device and libraries a table was tuned with (the database's
 * environment, as `gemmtab emit` writes it), which gt_context_create
 * compares with the GPU it runs on (runtime/choose.c). */
struct gt_table {
	const char *generated_by;             /* the emit command line */
	const char *gpu_name;                 /* cudaDeviceProp.name */
	const char *arch;                     /* its kernels' arch, "sm_90a" */
	int sm_count;
	long long l2_bytes;
	int sm_clock_mhz, mem_clock_mhz;      /* max SM and memory clocks */
	const char *driver;                   /* "13.0" */
	const char *cuda;                     /* runtime version, "13.0" */
	const char *nvrtc;                    /* what compiled its kernels */
	const char *cublas;                   /* the baseline's library */
	const char *cublaslt;                 /* "13.1.0": its cuBLASLt entries' */
	const char *source_hash;              /* template sources it was tuned with */
	const char *kernels_hash;             /* of <name>_kernels.cu (the build checks it) */
	int nentries;
	const struct gt_table_entry *entries;
};

#endif

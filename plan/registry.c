/*
 * registry.c: the list of templates every module walks (tmpl_all), apart
 * from the lookups in tmpl.c so that a test can link its own list (one
 * probe template: tests/gpu/test_worker_proto.c) and keep the lookups.
 * Each template's adapter lives in its own plan/tmpl_<stem>.c.
 */
#include "tmpl.h"

#include <stddef.h>

/* The adapters, one per templates/<stem>.cuh (blas_hilo and blas_lt have
 * no file; mma_hilo shares mma_skinny.cuh). */
extern const struct tmpl tmpl_gemv;
extern const struct tmpl tmpl_hilo;
extern const struct tmpl tmpl_lt;
extern const struct tmpl tmpl_mma;
extern const struct tmpl tmpl_mma_hilo;
extern const struct tmpl tmpl_mma_frag;
#ifdef GT_TEST_TEMPLATES
/* a template whose kernels fail, hang or fault on purpose: the tests'
 * builds only (the Makefile's registry_test.o) */
extern const struct tmpl tmpl_planted;
#endif

const struct tmpl *const tmpl_all[] = {
	&tmpl_hilo,
	&tmpl_lt,
	&tmpl_gemv,
	&tmpl_mma,
	&tmpl_mma_hilo,
	&tmpl_mma_frag,
#ifdef GT_TEST_TEMPLATES
	&tmpl_planted,
#endif
	NULL,
};

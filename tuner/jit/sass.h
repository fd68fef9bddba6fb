/*
 * sass.h: the code identity of one compiled kernel, read from its cubin
 * on the CPU: a hash of its SASS, relocations, attributes and resources
 * with every symbol name and index taken out, so that it does not depend
 * on the kernel's name or on the other kernels of its NVRTC program.
 */
#ifndef GT_SASS_H
#define GT_SASS_H

#include <stddef.h>

/* The 16-hex-digit code hash of kernel `lowered` (its mangled name) in the
 * cubin at cubin_path (or in memory). Returns 0, or -1 with the reason in
 * err. */
int sass_kernel_hash(const char *cubin_path, const char *lowered, char hex[17], char *err,
		     size_t errlen);
int sass_kernel_hash_mem(const void *cubin, size_t len, const char *lowered, char hex[17],
			 char *err, size_t errlen);

#endif

/*
 * fake_nvrtc.c: a stand-in for libnvrtc, loaded with LD_PRELOAD before
 * the real one, for sweeps on the fake worker that would otherwise
 * compile thousands of instantiations for minutes (make bench-search).
 * A "compile" takes no time: each name expression becomes a kernel whose
 * lowered name and 16 bytes of "SASS" are hashes of the expression and
 * the program's source text, in a minimal ELF cubin that tuner/jit/sass.c
 * reads, so every instantiation keeps a code key of its own and a
 * template edit changes its keys. The ptxas log says 40 registers, no
 * spills, no static shared memory. nvrtcVersion says 99.0, so the cubin
 * cache never mixes these with real ones. Nothing here is runnable.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int nvrtcResult;
#define NVRTC_SUCCESS 0
#define NVRTC_ERROR_INVALID_INPUT 3
#define NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID 10

#define MAX_NAMES 64

struct prog {
	uint64_t source;
	int n;
	char *names[MAX_NAMES];
	char lowered[MAX_NAMES][40];
	char *log, *cubin;
	size_t log_len, cubin_len;
};
typedef struct prog *nvrtcProgram;

static uint64_t fnv(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

nvrtcResult nvrtcVersion(int *major, int *minor)
{
	*major = 99;
	*minor = 0;
	return NVRTC_SUCCESS;
}

const char *nvrtcGetErrorString(nvrtcResult r)
{
	return r ? "fake nvrtc: bad input" : "NVRTC_SUCCESS";
}

nvrtcResult nvrtcCreateProgram(nvrtcProgram *prog, const char *src, const char *name, int nh,
			       const char *const *headers, const char *const *include_names)
{
	(void)name, (void)nh, (void)headers, (void)include_names;
	struct prog *p = calloc(1, sizeof(*p));
	if (!p || !src)
		return NVRTC_ERROR_INVALID_INPUT;
	p->source = fnv(0xcbf29ce484222325ULL, src);
	*prog = p;
	return NVRTC_SUCCESS;
}

nvrtcResult nvrtcAddNameExpression(nvrtcProgram p, const char *expr)
{
	if (p->n == MAX_NAMES || !(p->names[p->n] = strdup(expr)))
		return NVRTC_ERROR_INVALID_INPUT;
	snprintf(p->lowered[p->n], sizeof(p->lowered[0]), "_Z4fake%016llx",
		 (unsigned long long)fnv(p->source, expr));
	p->n++;
	return NVRTC_SUCCESS;
}

/* ELF64 little-endian: header, .shstrtab, one .text.<lowered> of 16
 * bytes per name, then the section headers. */
struct ehdr {
	unsigned char ident[16];
	uint16_t type, machine;
	uint32_t version;
	uint64_t entry, phoff, shoff;
	uint32_t flags;
	uint16_t ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
};
struct shdr {
	uint32_t name, type;
	uint64_t flags, addr, offset, size;
	uint32_t link, info;
	uint64_t addralign, entsize;
};

static nvrtcResult build_cubin(struct prog *p)
{
	size_t strsz = 1 + sizeof(".shstrtab");
	for (int i = 0; i < p->n; i++)
		strsz += sizeof(".text.") + strlen(p->lowered[i]);
	const size_t text0 = sizeof(struct ehdr) + ((strsz + 7) & ~(size_t)7);
	const size_t shoff = text0 + 16 * (size_t)p->n;
	const int nsh = 2 + p->n;
	p->cubin_len = shoff + (size_t)nsh * sizeof(struct shdr);
	if (!(p->cubin = calloc(1, p->cubin_len)))
		return NVRTC_ERROR_INVALID_INPUT;
	struct ehdr *eh = (struct ehdr *)p->cubin;
	memcpy(eh->ident, "\177ELF\2\1\1", 7);
	eh->type = 2;
	eh->machine = 190;              /* EM_CUDA */
	eh->version = 1;
	eh->shoff = shoff;
	eh->ehsize = sizeof(*eh);
	eh->shentsize = sizeof(struct shdr);
	eh->shnum = (uint16_t)nsh;
	eh->shstrndx = 1;
	char *str = p->cubin + sizeof(*eh);
	struct shdr *sh = (struct shdr *)(p->cubin + shoff);
	size_t at = 1;
	sh[1] = (struct shdr){ .name = (uint32_t)at, .type = 3, .offset = sizeof(*eh),
			       .size = strsz, .addralign = 1 };
	at += (size_t)sprintf(str + at, ".shstrtab") + 1;
	for (int i = 0; i < p->n; i++) {
		uint64_t code[2] = { fnv(p->source, p->names[i]), fnv(~p->source, p->names[i]) };
		memcpy(p->cubin + text0 + 16 * (size_t)i, code, 16);
		sh[2 + i] = (struct shdr){ .name = (uint32_t)at, .type = 1, .flags = 6,
					   .offset = text0 + 16 * (size_t)i, .size = 16,
					   .info = 40u << 24, .addralign = 16 };
		at += (size_t)sprintf(str + at, ".text.%s", p->lowered[i]) + 1;
	}
	return NVRTC_SUCCESS;
}

nvrtcResult nvrtcCompileProgram(nvrtcProgram p, int nopt, const char *const *opts)
{
	(void)nopt, (void)opts;
	size_t cap = 256 * (size_t)(p->n + 1);
	if (!(p->log = calloc(1, cap)))
		return NVRTC_ERROR_INVALID_INPUT;
	for (int i = 0; i < p->n; i++)
		p->log_len += (size_t)snprintf(p->log + p->log_len, cap - p->log_len,
			"ptxas info    : Function properties for %s\n"
			"ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
			"ptxas info    : Used 40 registers, used 1 barriers\n", p->lowered[i]);
	return build_cubin(p);
}

nvrtcResult nvrtcGetProgramLogSize(nvrtcProgram p, size_t *size)
{
	*size = p->log_len + 1;
	return NVRTC_SUCCESS;
}

nvrtcResult nvrtcGetProgramLog(nvrtcProgram p, char *log)
{
	memcpy(log, p->log ? p->log : "", p->log_len + 1);
	return NVRTC_SUCCESS;
}

nvrtcResult nvrtcGetCUBINSize(nvrtcProgram p, size_t *size)
{
	*size = p->cubin_len;
	return p->cubin ? NVRTC_SUCCESS : NVRTC_ERROR_INVALID_INPUT;
}

nvrtcResult nvrtcGetCUBIN(nvrtcProgram p, char *cubin)
{
	memcpy(cubin, p->cubin, p->cubin_len);
	return NVRTC_SUCCESS;
}

nvrtcResult nvrtcGetLoweredName(nvrtcProgram p, const char *expr, const char **lowered)
{
	for (int i = 0; i < p->n; i++)
		if (!strcmp(p->names[i], expr)) {
			*lowered = p->lowered[i];
			return NVRTC_SUCCESS;
		}
	return NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID;
}

nvrtcResult nvrtcDestroyProgram(nvrtcProgram *prog)
{
	struct prog *p = *prog;
	for (int i = 0; p && i < p->n; i++)
		free(p->names[i]);
	if (p) {
		free(p->log);
		free(p->cubin);
		free(p);
	}
	*prog = NULL;
	return NVRTC_SUCCESS;
}

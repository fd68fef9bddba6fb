/*
 * sass.c: a kernel's code identity, read from the cubin (ELF) NVRTC wrote.
 *
 * The hash covers what the GPU runs and nothing that only names it: the
 * bytes of the kernel's .text section (its SASS), the register count and
 * flags in that section's header, its relocations (offset, type, addend,
 * and the target's name with the kernel's own name replaced by "@"), its
 * attribute section .nv.info.<kernel> with symbol indices zeroed, and the
 * sizes of its local and parameter sections. Symbol names and
 * indices depend on the program the kernel was compiled in (a batch of
 * 4-16 instantiations) and on the kernel's mangled name; the SASS does not.
 */
#include "sass.h"
#include "util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ELF64 little-endian, as every cubin for sm_90a is. */
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

struct sym {
	uint32_t name;
	unsigned char info, other;
	uint16_t shndx;
	uint64_t value, size;
};

struct rela {
	uint64_t offset, info;
	int64_t addend;
};

#define SHT_SYMTAB 2
#define SHT_RELA 4
#define SHT_NOBITS 8
#define SHT_REL 9
#define STT_SECTION 3

/* .nv.info record formats and the attributes whose payload starts with a
 * symbol index (the constant bank of the parameters; the externs list
 * holds indices only). */
#define EIFMT_NVAL 0x01
#define EIFMT_BVAL 0x02
#define EIFMT_HVAL 0x03
#define EIFMT_SVAL 0x04
#define EIATTR_PARAM_CBANK 0x0a
#define EIATTR_EXTERNS 0x0f

struct elf {
	const unsigned char *data;
	size_t len;
	const struct shdr *sh;
	int nsh;
	const char *shstr;
	size_t shstr_len;
};

static int fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static const char *section_name(const struct elf *e, const struct shdr *s)
{
	return s->name < e->shstr_len ? e->shstr + s->name : "";
}

/* The section's bytes, or NULL when they lie outside the file. */
static const unsigned char *section_data(const struct elf *e, const struct shdr *s)
{
	if (s->type == SHT_NOBITS || s->offset > e->len || s->size > e->len - s->offset)
		return NULL;
	return e->data + s->offset;
}

static int find_section(const struct elf *e, const char *prefix, const char *name)
{
	size_t np = strlen(prefix);
	for (int i = 1; i < e->nsh; i++) {
		const char *n = section_name(e, &e->sh[i]);
		if (!strncmp(n, prefix, np) && !strcmp(n + np, name))
			return i;
	}
	return -1;
}

/* Hash s with every occurrence of self replaced by "@". */
static uint64_t hash_renamed(uint64_t h, const char *s, const char *self)
{
	size_t ns = strlen(self);
	const char *p;
	while ((p = strstr(s, self))) {
		h = hash_bytes(h, s, (size_t)(p - s));
		h = hash_str(h, "@");
		s = p + ns;
	}
	return hash_str(h, s);
}

static int elf_open(struct elf *e, const unsigned char *data, size_t len, char *err,
		    size_t errlen)
{
	struct ehdr eh;
	if (len < sizeof(eh) || memcmp(data, "\177ELF", 4) || data[4] != 2 || data[5] != 1)
		return fail(err, errlen, "not a 64-bit little-endian ELF file");
	memcpy(&eh, data, sizeof(eh));
	if (eh.shentsize != sizeof(struct shdr) || eh.shoff > len ||
	    (uint64_t)eh.shnum * sizeof(struct shdr) > len - eh.shoff || eh.shstrndx >= eh.shnum)
		return fail(err, errlen, "bad section header table");
	e->data = data;
	e->len = len;
	e->sh = (const struct shdr *)(data + eh.shoff);
	e->nsh = eh.shnum;
	const struct shdr *ss = &e->sh[eh.shstrndx];
	e->shstr = (const char *)section_data(e, ss);
	if (!e->shstr || !ss->size || e->shstr[ss->size - 1])
		return fail(err, errlen, "bad section name table");
	e->shstr_len = ss->size;
	return 0;
}

/* The name a relocation's target goes by: its symbol's name, or for a
 * section symbol the section's name. */
static const char *target_name(const struct elf *e, const struct shdr *symtab, uint32_t si)
{
	const unsigned char *syms = section_data(e, symtab);
	if (!syms || symtab->link >= (uint32_t)e->nsh || si >= symtab->size / sizeof(struct sym))
		return "?";
	struct sym s;
	memcpy(&s, syms + (size_t)si * sizeof(s), sizeof(s));
	if ((s.info & 0xf) == STT_SECTION)
		return s.shndx < e->nsh ? section_name(e, &e->sh[s.shndx]) : "?";
	const struct shdr *strtab = &e->sh[symtab->link];
	const char *str = (const char *)section_data(e, strtab);
	if (!str || s.name >= strtab->size)
		return "?";
	return memchr(str + s.name, 0, strtab->size - s.name) ? str + s.name : "?";
}

static uint64_t hash_relocs(const struct elf *e, int text, const char *self, uint64_t h)
{
	for (int i = 1; i < e->nsh; i++) {
		const struct shdr *r = &e->sh[i];
		if ((r->type != SHT_RELA && r->type != SHT_REL) || r->info != (uint32_t)text)
			continue;
		const unsigned char *d = section_data(e, r);
		size_t esz = r->type == SHT_RELA ? 24 : 16;
		if (!d || r->link >= (uint32_t)e->nsh)
			continue;
		for (size_t off = 0; off + esz <= r->size; off += esz) {
			struct rela x = { 0 };
			memcpy(&x, d + off, esz);
			uint32_t type = (uint32_t)x.info, si = (uint32_t)(x.info >> 32);
			h = hash_bytes(h, &x.offset, sizeof(x.offset));
			h = hash_bytes(h, &type, sizeof(type));
			h = hash_bytes(h, &x.addend, sizeof(x.addend));
			h = hash_renamed(h, target_name(e, &e->sh[r->link], si), self);
		}
	}
	return h;
}

/* The attribute records, symbol indices zeroed. */
static uint64_t hash_info(const unsigned char *d, size_t n, uint64_t h)
{
	size_t p = 0;
	while (p + 2 <= n) {
		unsigned fmt = d[p], attr = d[p + 1];
		size_t len = 4;         /* NVAL, BVAL, HVAL: format, attribute, 2 bytes */
		if (fmt == EIFMT_SVAL) {
			if (p + 4 > n)
				break;
			len = 4 + (size_t)(d[p + 2] | d[p + 3] << 8);
		} else if (fmt != EIFMT_NVAL && fmt != EIFMT_BVAL && fmt != EIFMT_HVAL) {
			break;
		}
		if (p + len > n)
			break;
		/* hashed in pieces (FNV-1a runs byte by byte, so the same
		 * as over the record with those bytes zeroed) */
		static const unsigned char zeros[64];
		if (fmt == EIFMT_SVAL && attr == EIATTR_PARAM_CBANK && len >= 8) {
			h = hash_bytes(h, d + p, 4);
			h = hash_bytes(h, zeros, 4);
			h = hash_bytes(h, d + p + 8, len - 8);
		} else if (fmt == EIFMT_SVAL && attr == EIATTR_EXTERNS) {
			h = hash_bytes(h, d + p, 4);
			for (size_t z = 4; z < len; z += sizeof(zeros))
				h = hash_bytes(h, zeros, len - z < sizeof(zeros) ? len - z : sizeof(zeros));
		} else {
			h = hash_bytes(h, d + p, len);
		}
		p += len;
	}
	return hash_bytes(h, d + p, n - p);
}

int sass_kernel_hash_mem(const void *cubin, size_t len, const char *lowered, char hex[17],
			 char *err, size_t errlen)
{
	struct elf e;
	if (elf_open(&e, cubin, len, err, errlen))
		return -1;
	int text = find_section(&e, ".text.", lowered);
	if (text < 0)
		return fail(err, errlen, "no section .text.%s", lowered);
	const struct shdr *ts = &e.sh[text];
	const unsigned char *code = section_data(&e, ts);
	if (!code)
		return fail(err, errlen, "section .text.%s lies outside the file", lowered);
	uint64_t h = hash_str(HASH_INIT, "sass-1");
	uint32_t regs = ts->info >> 24;
	h = hash_bytes(h, &regs, sizeof(regs));
	h = hash_bytes(h, &ts->flags, sizeof(ts->flags));
	h = hash_bytes(h, &ts->size, sizeof(ts->size));
	h = hash_bytes(h, code, ts->size);
	h = hash_relocs(&e, text, lowered, h);
	int info = find_section(&e, ".nv.info.", lowered);
	if (info >= 0) {
		const unsigned char *d = section_data(&e, &e.sh[info]);
		if (!d)
			return fail(err, errlen, "section .nv.info.%s lies outside the file", lowered);
		h = hash_info(d, e.sh[info].size, hash_str(h, "info"));
	}
	/* the kernel's own data sections: their sizes (local is NOBITS; the
	 * parameter bank is zeros until launch). Not .nv.shared.<kernel>:
	 * ptxas gives every kernel of a program 1 KiB of reserved shared
	 * memory there when any kernel of it needs the reservation (seen on
	 * mma_zero_f32: 0x400 beside cluster kernels, absent otherwise), so
	 * its size depends on the batch; a kernel's own static arrays show in
	 * its SASS (their offsets and bounds). */
	static const char *const sized[] = { ".nv.local.", ".nv.constant0." };
	for (size_t i = 0; i < sizeof(sized) / sizeof(sized[0]); i++) {
		int s = find_section(&e, sized[i], lowered);
		uint64_t size = s < 0 ? UINT64_MAX : e.sh[s].size;
		h = hash_bytes(hash_str(h, sized[i]), &size, sizeof(size));
	}
	hash_hex(h, hex);
	return 0;
}

int sass_kernel_hash(const char *cubin_path, const char *lowered, char hex[17], char *err,
		     size_t errlen)
{
	size_t len;
	char *data = read_file(cubin_path, &len);
	if (!data)
		return fail(err, errlen, "%s: %s", cubin_path, strerror(errno));
	int r = sass_kernel_hash_mem(data, len, lowered, hex, err, errlen);
	if (r) {
		char why[256];
		snprintf(why, sizeof(why), "%s", err);
		fail(err, errlen, "%s: %s", cubin_path, why);
	}
	free(data);
	return r;
}

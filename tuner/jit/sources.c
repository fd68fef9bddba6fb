/*
 * sources.c: lookups over the files embedded at build time: template
 * sources for NVRTC and each template's hash (its kernel source and
 * adapter: the key its candidates are recorded under).
 */
#include "embedded.h"
#include "jit.h"
#include "tmpl.h"
#include "util.h"

#include <string.h>

const char *tmpl_source_text(const char *source_name)
{
	return embedded_text(source_name);
}

const char *tmpl_source_hash(const struct tmpl *t)
{
	/* one slot per registered template, filled on first use */
	static const struct tmpl *keys[64];
	static char hex[64][17];
	int i;
	for (i = 0; i < 64 && keys[i] && keys[i] != t; i++)
		;
	if (i == 64)
		die("more than 64 templates");
	if (!keys[i]) {
		const char *src = t->source ? embedded_text(t->source) : NULL;
		const char *adapter = t->adapter ? embedded_text(t->adapter) : NULL;
		if ((t->source && !src) || !adapter)
			die("template %s: its source or adapter was not embedded at build time",
			    t->stem);
		uint64_t h = hash_str(HASH_INIT, t->stem);
		h = hash_str(h, src ? src : "");
		h = hash_str(h, adapter);
		for (const char *const *f = t->shared; f && *f; f++) {
			const char *text = embedded_text(*f);
			if (!text)
				die("template %s: %s was not embedded at build time", t->stem, *f);
			h = hash_str(hash_str(h, *f), text);
		}
		hash_hex(h, hex[i]);
		keys[i] = t;
	}
	return hex[i];
}

/*
 * sources.c: lookups over the files embedded at build time: template
 * sources for NVRTC and the hash over all of them that every database row's
 * environment carries (a template edit is a new environment).
 */
#include "embedded.h"
#include "jit.h"
#include "util.h"

#include <string.h>

const char *embedded_text(const char *path)
{
	for (const struct gt_embedded *e = gt_embedded; e->path; e++)
		if (!strcmp(e->path, path))
			return e->text;
	return NULL;
}

const char *tmpl_source_text(const char *source_name)
{
	return embedded_text(source_name);
}

const char *tmpl_sources_hash(void)
{
	static char hex[17];
	if (!hex[0]) {
		uint64_t h = HASH_INIT;
		for (const struct gt_embedded *e = gt_embedded; e->path; e++) {
			if (strncmp(e->path, "templates/", 10))
				continue;
			h = hash_str(h, e->path);
			h = hash_str(h, e->text);
		}
		hash_hex(h, hex);
	}
	return hex;
}

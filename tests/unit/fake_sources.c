/*
 * fake_sources.c: TEST-ONLY stand-in for the generated build/gen/sources.c.
 * Instead of text embedded at build time, tmpl_source_text() reads the
 * template from disk relative to the working directory (tests run from the
 * repository root), once per name. Never link this into gemmtab.
 */
#include "jit.h"
#include "util.h"

#include <stdio.h>
#include <string.h>

#define MAX_SOURCES 16

static struct {
	char *name;
	char *text;
} sources[MAX_SOURCES];
static int nsources;

const char *tmpl_source_text(const char *source_name)
{
	for (int i = 0; i < nsources; i++)
		if (!strcmp(sources[i].name, source_name))
			return sources[i].text;
	if (nsources == MAX_SOURCES)
		return NULL;
	char *text = read_file(source_name, NULL);
	if (!text)
		return NULL;
	sources[nsources].name = xstrdup(source_name);
	sources[nsources].text = text;
	return sources[nsources++].text;
}

const char *tmpl_sources_hash(void)
{
	static char hex[17];
	uint64_t h = HASH_INIT;
	for (int i = 0; i < nsources; i++) {
		h = hash_str(h, sources[i].name);
		h = hash_str(h, sources[i].text);
	}
	hash_hex(h, hex);
	return hex;
}

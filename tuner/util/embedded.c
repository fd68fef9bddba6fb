/*
 * embedded.c: lookup over the files compiled into the binary (embedded.h),
 * below every stage: jit reads the template sources, db the schema.
 */
#include "embedded.h"

#include <string.h>

const char *embedded_text(const char *path)
{
	for (const struct gt_embedded *e = gt_embedded; e->path; e++)
		if (!strcmp(e->path, path))
			return e->text;
	return NULL;
}

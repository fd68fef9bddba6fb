/*
 * types.c: element-type names and sizes, a range's check points, and
 * version numbers as text.
 */
#include "types.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *dtype_name(enum dtype t)
{
	return t == DT_FP32 ? "fp32" : "bf16";
}

int dtype_parse(const char *s, enum dtype *out)
{
	if (!strcmp(s, "bf16"))
		*out = DT_BF16;
	else if (!strcmp(s, "fp32"))
		*out = DT_FP32;
	else
		return -1;
	return 0;
}

size_t dtype_size(enum dtype t)
{
	return t == DT_FP32 ? 4 : 2;
}

void version_text(size_t v, char *out, size_t len)
{
	snprintf(out, len, "%zu.%zu.%zu", v / 10000, v / 100 % 100, v % 100);
}

int shape_checks(const struct shape *s, int max_m, int *out)
{
	int n = 0;
	if (!shape_is_range(s))
		return 0;
	for (long f = 2; f <= 4 && n < SHAPE_CHECKS; f *= 2)
		if ((long)s->m_hi * f <= max_m)
			out[n++] = (int)((long)s->m_hi * f);
	return n;
}

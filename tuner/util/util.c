/*
 * util.c: error reporting, checked allocation, whole-file I/O with atomic
 * publication, FNV-1a hashing and a monotonic clock for the tuner.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void vreport(const char *prefix, const char *fmt, va_list ap)
{
	char msg[4096];
	vsnprintf(msg, sizeof(msg), fmt, ap);
	fprintf(stderr, "gemmtab: %s%s\n", prefix, msg);
}

void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("fatal: ", fmt, ap);
	va_end(ap);
	exit(1);
}

int error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("error: ", fmt, ap);
	va_end(ap);
	return -1;
}

void warning(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("warning: ", fmt, ap);
	va_end(ap);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		die("out of memory (%zu bytes)", n);
	return p;
}

void *xcalloc(size_t count, size_t size)
{
	void *p = calloc(count ? count : 1, size ? size : 1);
	if (!p)
		die("out of memory (%zu x %zu bytes)", count, size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die("out of memory (%zu bytes)", n);
	return p;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);
	if (!p)
		die("out of memory");
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	va_start(ap, fmt);
	int n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		die("out of memory");
	return s;
}

char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	char *buf = xmalloc(cap);
	for (;;) {
		if (n + 1 >= cap)
			buf = xrealloc(buf, cap *= 2);
		size_t got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (got == 0)
			break;
	}
	int err = ferror(f);
	fclose(f);
	if (err) {
		free(buf);
		errno = EIO;
		return NULL;
	}
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

int write_file_atomic(const char *path, const void *buf, size_t len)
{
	char *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	FILE *f = fopen(tmp, "wb");
	if (!f) {
		free(tmp);
		return -1;
	}
	int bad = fwrite(buf, 1, len, f) != len;
	bad |= fflush(f) != 0;
	bad |= fsync(fileno(f)) != 0;
	bad |= fclose(f) != 0;
	if (bad || rename(tmp, path)) {
		int e = errno;
		unlink(tmp);
		free(tmp);
		errno = e;
		return -1;
	}
	free(tmp);
	return 0;
}

int mkdir_p(const char *path)
{
	char *p = xstrdup(path);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0777) && errno != EEXIST) {
			free(p);
			return -1;
		}
		*s = '/';
	}
	int r = mkdir(p, 0777);
	free(p);
	return (r && errno != EEXIST) ? -1 : 0;
}

uint64_t hash_bytes(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

uint64_t hash_str(uint64_t h, const char *s)
{
	/* include the terminator so ("ab","c") and ("a","bc") differ */
	return hash_bytes(h, s, strlen(s) + 1);
}

void hash_hex(uint64_t h, char out[17])
{
	snprintf(out, 17, "%016llx", (unsigned long long)h);
}

double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* t as "2026-11-29T21:58:03" (UTC). */
static void utc_format(time_t t, char *out, size_t len)
{
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(out, len, "%Y-%m-%dT%H:%M:%S", &tm);
}

void utc_now(char *out, size_t len)
{
	utc_format(time(NULL), out, len);
}

void utc_now_ms(char *out, size_t len)
{
	struct timespec ts;
	char sec[24];
	clock_gettime(CLOCK_REALTIME, &ts);
	utc_format(ts.tv_sec, sec, sizeof(sec));
	snprintf(out, len, "%s.%03ldZ", sec, ts.tv_nsec / 1000000);
}

int utc_time_valid(const char *s)
{
	/* digits (d) and separators of the longest form, and the lengths the
	 * shorter forms may stop at */
	static const char form[] = "dddd-dd-ddTdd:dd:dd";
	size_t n = strlen(s);
	if (n != 10 && n != 13 && n != 16 && n != 19)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (form[i] == 'd' ? s[i] < '0' || s[i] > '9' : s[i] != form[i])
			return 0;
	/* and a real date and time of day */
	int y = atoi(s), mo = atoi(s + 5), d = atoi(s + 8);
	static const int days[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	if (mo < 1 || mo > 12 || d < 1 || d > days[mo - 1])
		return 0;
	if (mo == 2 && d == 29 && !(y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)))
		return 0;
	if ((n >= 13 && atoi(s + 11) > 23) || (n >= 16 && atoi(s + 14) > 59) ||
	    (n >= 19 && atoi(s + 17) > 59))
		return 0;
	return 1;
}

int duration_parse(const char *s, double *seconds)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || !isfinite(v) || v <= 0 || *s == '+' || *s == ' ')
		return -1;
	double unit = 1;
	if (*end) {
		switch (*end++) {
		case 's': unit = 1; break;
		case 'm': unit = 60; break;
		case 'h': unit = 3600; break;
		case 'd': unit = 86400; break;
		default: return -1;
		}
		if (*end)
			return -1;
	}
	*seconds = v * unit;
	return 0;
}

/*
 * proto.c: encoding and decoding of the one-line key=value messages that
 * cross the supervisor <-> worker pipes (see proto.h for the messages).
 */
#include "proto.h"
#include "util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static int needs_escape(int c)
{
	return c == ' ' || c == '%' || c == '=' || c == '\n' || c == '\t' || c == '\r';
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Decode %XX escapes in place. Returns 0 or -1 on a bad escape. */
static int unescape(char *s)
{
	char *w = s;
	for (char *r = s; *r; r++) {
		if (*r == '%') {
			int hi = hexval((unsigned char)r[1]);
			int lo = hi < 0 ? -1 : hexval((unsigned char)r[2]);
			if (lo < 0)
				return -1;
			*w++ = (char)(hi * 16 + lo);
			r += 2;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
	return 0;
}

int kv_parse(const char *line, struct kv *out)
{
	memset(out, 0, sizeof(*out));
	out->buf = xstrdup(line);
	size_t len = strlen(out->buf);
	while (len && (out->buf[len - 1] == '\n' || out->buf[len - 1] == '\r'))
		out->buf[--len] = '\0';

	char *save = NULL;
	char *tok = strtok_r(out->buf, " ", &save);
	if (!tok || strlen(tok) >= sizeof(out->op))
		goto bad;
	strcpy(out->op, tok);
	while ((tok = strtok_r(NULL, " ", &save))) {
		char *eq = strchr(tok, '=');
		if (!eq || out->n == KV_MAX)
			goto bad;
		*eq = '\0';
		if (unescape(tok) || unescape(eq + 1))
			goto bad;
		out->keys[out->n] = tok;
		out->vals[out->n] = eq + 1;
		out->n++;
	}
	return 0;
bad:
	kv_free(out);
	return -1;
}

void kv_free(struct kv *m)
{
	free(m->buf);
	m->buf = NULL;
	m->n = 0;
}

const char *kv_get(const struct kv *m, const char *key)
{
	for (int i = 0; i < m->n; i++)
		if (!strcmp(m->keys[i], key))
			return m->vals[i];
	return NULL;
}

long kv_get_long(const struct kv *m, const char *key, long def)
{
	const char *v = kv_get(m, key);
	if (!v || !*v)
		return def;
	char *end;
	long r = strtol(v, &end, 10);
	return *end ? def : r;
}

double kv_get_double(const struct kv *m, const char *key, double def)
{
	const char *v = kv_get(m, key);
	if (!v || !*v)
		return def;
	char *end;
	double r = strtod(v, &end);
	return *end ? def : r;
}

void kv_begin(struct kv_out *o, const char *op)
{
	o->len = 0;
	o->overflow = 0;
	o->buf[0] = '\0';
	size_t n = strlen(op);
	if (n + 1 >= sizeof(o->buf)) {
		o->overflow = 1;
		return;
	}
	memcpy(o->buf, op, n + 1);
	o->len = n;
}

static void put(struct kv_out *o, const char *s, int escape)
{
	static const char hex[] = "0123456789ABCDEF";
	for (; *s && !o->overflow; s++) {
		unsigned char c = (unsigned char)*s;
		if (o->len + 4 >= sizeof(o->buf)) {
			o->overflow = 1;
			break;
		}
		if (escape && needs_escape(c)) {
			o->buf[o->len++] = '%';
			o->buf[o->len++] = hex[c >> 4];
			o->buf[o->len++] = hex[c & 15];
		} else {
			o->buf[o->len++] = (char)c;
		}
	}
	o->buf[o->len] = '\0';
}

void kv_add(struct kv_out *o, const char *key, const char *val)
{
	put(o, " ", 0);
	put(o, key, 1);
	put(o, "=", 0);
	put(o, val ? val : "", 1);
}

void kv_addf(struct kv_out *o, const char *key, const char *fmt, ...)
{
	char tmp[4096];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(tmp)) {
		o->overflow = 1;
		return;
	}
	kv_add(o, key, tmp);
}

int kv_send(struct kv_out *o, FILE *f)
{
	if (o->overflow)
		return -1;
	if (fprintf(f, "%s\n", o->buf) < 0 || fflush(f))
		return -1;
	return 0;
}

/* Whether s holds a character kv_add would escape. */
static int any_escape(const char *s)
{
	for (; *s; s++)
		if (needs_escape((unsigned char)*s))
			return 1;
	return 0;
}

int kv_send_tail(struct kv_out *o, const char *key, const char *tail, FILE *f)
{
	errno = EINVAL;         /* what a refusal reports */
	if (o->overflow || !*key || any_escape(key) || any_escape(tail))
		return -1;
	errno = 0;
	if (fprintf(f, "%s %s=%s\n", o->buf, key, tail) < 0 || fflush(f))
		return -1;
	return 0;
}

char *kv_string(struct kv_out *o)
{
	if (o->overflow)
		return NULL;
	return xasprintf("%s\n", o->buf);
}

/*
 * test_proto.c: the worker protocol's lines (tuner/proto/proto.c): a request
 * built with kv_add round-trips through kv_parse with its escapes, and
 * kv_send_tail writes a field longer than a kv_out holds, which kv_parse
 * reads back whole, while refusing what it cannot write unescaped.
 */
#include "check.h"
#include "proto.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TEST(escapes_round_trip)
{
	struct kv_out o;
	struct kv r;
	kv_begin(&o, "eval");
	kv_add(&o, "id", "a b=c%d");
	kv_addf(&o, "m", "%d", 8);
	char *line = kv_string(&o);
	CHECK(line != NULL);
	CHECK_INT(kv_parse(line, &r), 0);
	CHECK_STR(r.op, "eval");
	CHECK_STR(kv_get(&r, "id"), "a b=c%d");
	CHECK_INT((int)kv_get_long(&r, "m", 0), 8);
	kv_free(&r);
	free(line);
}

TEST(a_tail_longer_than_a_kv_out)
{
	struct kv_out o;
	struct kv r;
	/* 3000 algorithms' worth of digits, ',' and ';': past the buffer */
	size_t n = 3 * sizeof(o.buf);
	char *tail = malloc(n + 1);
	for (size_t i = 0; i < n; i++)
		tail[i] = i % 10 == 9 ? ';' : i % 2 ? ',' : (char)('0' + i % 10);
	tail[n] = '\0';
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);
	CHECK(f != NULL);
	kv_begin(&o, "lt_algos");
	kv_add(&o, "id", "7");
	kv_add(&o, "count", "3000");
	CHECK_INT(kv_send_tail(&o, "algos", tail, f), 0);
	fclose(f);              /* s now holds what was written */
	CHECK(s && strlen(s) == strlen("lt_algos id=7 count=3000 algos=") + n + 1);
	CHECK(s && s[strlen(s) - 1] == '\n');
	CHECK_INT(kv_parse(s, &r), 0);
	CHECK_STR(r.op, "lt_algos");
	CHECK_STR(kv_get(&r, "count"), "3000");
	CHECK(kv_get(&r, "algos") && !strcmp(kv_get(&r, "algos"), tail));
	kv_free(&r);
	free(s);
	free(tail);
}

TEST(a_tail_that_needs_escaping_is_refused)
{
	static const char *const bad[] = { "1,2 3", "1=2", "50%", "1\n2" };
	struct kv_out o;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		FILE *f = tmpfile();
		kv_begin(&o, "lt_algos");
		CHECK_INT(kv_send_tail(&o, "algos", bad[i], f), -1);
		CHECK_INT(errno, EINVAL);
		CHECK(ftell(f) == 0);   /* nothing written */
		fclose(f);
	}
	FILE *f = tmpfile();
	kv_begin(&o, "lt_algos");
	CHECK_INT(kv_send_tail(&o, "al gos", "1", f), -1);
	CHECK_INT(kv_send_tail(&o, "", "1", f), -1);
	/* an overflowed line */
	char big[sizeof(o.buf)];
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	kv_add(&o, "k", big);
	CHECK_INT(o.overflow, 1);
	CHECK_INT(kv_send_tail(&o, "algos", "1", f), -1);
	CHECK(ftell(f) == 0);
	fclose(f);
}

TESTS(T(escapes_round_trip), T(a_tail_longer_than_a_kv_out), T(a_tail_that_needs_escaping_is_refused))

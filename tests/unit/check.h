/*
 * check.h: the unit-test harness. Each tests/unit/test_*.c defines its cases
 * with TEST(name) { ... } and lists them in a TESTS(...) table; CHECK
 * records a failure with file:line and the expression, and the runner
 * prints one "ok"/"not ok" line per case and a final "N passed, N failed".
 * Exit status is 1 when any case failed.
 */
#ifndef GT_CHECK_H
#define GT_CHECK_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int check_failed_;

#define CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "  %s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
		check_failed_ = 1; \
	} } while (0)

#define CHECK_STR(a, b) do { \
	const char *a_ = (a), *b_ = (b); \
	if (!a_ || !b_ || strcmp(a_, b_)) { \
		fprintf(stderr, "  %s:%d: expected \"%s\", got \"%s\"\n", __FILE__, __LINE__, \
			b_ ? b_ : "(null)", a_ ? a_ : "(null)"); \
		check_failed_ = 1; \
	} } while (0)

#define CHECK_INT(a, b) do { \
	long long a_ = (long long)(a), b_ = (long long)(b); \
	if (a_ != b_) { \
		fprintf(stderr, "  %s:%d: %s: expected %lld, got %lld\n", __FILE__, __LINE__, \
			#a, b_, a_); \
		check_failed_ = 1; \
	} } while (0)

#define CHECK_NEAR(a, b, tol) do { \
	double a_ = (a), b_ = (b); \
	if (!(fabs(a_ - b_) <= (tol))) { \
		fprintf(stderr, "  %s:%d: %s: expected %.9g, got %.9g\n", __FILE__, __LINE__, \
			#a, b_, a_); \
		check_failed_ = 1; \
	} } while (0)

#define TEST(name) static void name(void)

struct test_case { const char *name; void (*fn)(void); };
#define T(name) { #name, name }

/* Use as: TESTS(T(a), T(b)) at the end of the file; it defines main(). */
#define TESTS(...) \
	int main(void) { \
		static const struct test_case cases[] = { __VA_ARGS__ }; \
		int passed = 0, failed = 0; \
		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) { \
			check_failed_ = 0; \
			cases[i].fn(); \
			printf("%s - %s\n", check_failed_ ? "not ok" : "ok", cases[i].name); \
			if (check_failed_) failed++; else passed++; \
		} \
		printf("%d passed, %d failed\n", passed, failed); \
		return failed ? 1 : 0; \
	}

#endif

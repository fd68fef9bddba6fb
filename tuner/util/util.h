/*
 * util.h: small helpers shared by every tuner module: fatal and non-fatal
 * error reporting, checked allocation, hashing, monotonic time.
 * Nothing here includes a third-party header.
 */
#ifndef GT_UTIL_H
#define GT_UTIL_H

#include <stddef.h>
#include <stdint.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Print "gemmtab: fatal: ..." to stderr and exit(1). For errors after which
 * the command cannot go on (what it recorded before stays). */
_Noreturn void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print "gemmtab: error: ..." to stderr; always returns -1 so modules can `return error(...)`. */
int error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print "gemmtab: warning: ..." to stderr. */
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Allocation that dies on failure. xcalloc zeroes. */
void *xmalloc(size_t n);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
/* printf into a fresh heap string (caller frees). */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Read a whole file into a NUL-terminated heap buffer; *len gets its size.
 * Returns NULL and sets errno on failure. Caller frees. */
char *read_file(const char *path, size_t *len);
/* Write buf to path through path.tmp.<pid> and rename(2): readers never see a
 * partial file. Returns 0 or -1 (errno set). */
int write_file_atomic(const char *path, const void *buf, size_t len);
/* mkdir -p. Returns 0 or -1. */
int mkdir_p(const char *path);

/* 64-bit FNV-1a, chainable: start with HASH_INIT. */
#define HASH_INIT 0xcbf29ce484222325ULL
uint64_t hash_bytes(uint64_t h, const void *p, size_t n);
uint64_t hash_str(uint64_t h, const char *s);
/* 16 lowercase hex digits of h into out[17]. */
void hash_hex(uint64_t h, char out[17]);

/* Seconds since an arbitrary point, monotonic. */
double now_seconds(void);

/* The current UTC time as the database's recorded_at writes it, to the
 * second: "2026-11-29T21:58:03" (a prefix of every later stamp). */
void utc_now(char *out, size_t len);
/* The same with milliseconds and a Z, as SQLite's recorded_at:
 * "2026-11-30T04:20:01.123Z" (24 characters and the NUL). */
void utc_now_ms(char *out, size_t len);
/* Whether s is a UTC time YYYY-MM-DD[THH[:MM[:SS]]] (a prefix of a
 * recorded_at stamp, so that they compare as strings). */
int utc_time_valid(const char *s);
/* A duration "90", "90s", "45m", "8h" or "2d" (a positive number, seconds
 * without a unit) into *seconds; 0, or -1 when it is none. */
int duration_parse(const char *s, double *seconds);

#endif

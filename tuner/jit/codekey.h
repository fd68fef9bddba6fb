/*
 * codekey.h: the key a candidate's measurements are recorded under: what
 * decides the code it runs at one shape, not how its files read. It
 * hashes the template's stem, the code hash of every kernel the candidate
 * launches (sass.h) and the launch plan its adapter produces at every M
 * a space may name (each M of 1..CODE_KEY_DENSE_M, then every
 * CODE_KEY_STRIDE-th up to 65536). Moving a file, renaming an adapter or
 * editing a comment leaves the key as it is; a changed instruction, grid,
 * argument or workspace gives a new one.
 */
#ifndef GT_CODEKEY_H
#define GT_CODEKEY_H

#include "tmpl.h"

#define CODE_KEY_DENSE_M 1024
#define CODE_KEY_STRIDE 64
#define CODE_KEY_MAX_M 65536

/* The key of candidate p of t at shape s, given the code hash of each of
 * its nk kernels in the order t->kernels names them (16 hex digits each;
 * nk is 0 for a template that launches no kernel of ours). Writes 16 hex
 * digits into out. */
void code_key(const struct tmpl *t, const long *p, const struct shape *s,
	      const char (*kernel_hash)[17], int nk, char out[17]);

/* The hash of one launch plan (every field that reaches the device). */
unsigned long long plan_hash(unsigned long long h, const struct launch_plan *pl);

#endif

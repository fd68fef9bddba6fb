/*
 * grid.h: the Ms a dispatch entry is chosen on, and the held-out Ms that
 * certify the unmeasured Ms between them. emit chooses only from
 * measurements on the grid; a measured M off the grid takes no part in
 * choosing and so can check a choice (docs/guide.md, "gemmtab emit").
 * A sweep that measures every grid M of a range, and one M off the grid
 * inside each span, lets emit serve the whole range.
 */
#ifndef GT_GRID_H
#define GT_GRID_H

/* Every M up to this is on the grid: small Ms are measured one by one. */
#define GRID_DENSE_MAX 64
/* Above it, the grid holds M = 16t and M = 16t + 1: the last and the first
 * M of each count of 16-row tiles, so the Ms strictly between two grid Ms
 * 16t + 1 and 16t + 16 launch as many 16-row tiles as both ends. */
#define GRID_TILE 16

/* 1 when m is on the grid of the M range lo..hi (its ends are on it):
 * lo <= m <= hi and (m <= GRID_DENSE_MAX, m % GRID_TILE is 0 or 1, or m
 * is lo or hi); else 0. */
int grid_on(int m, int lo, int hi);

/* The grid M after m in lo..hi, or 0 when m >= hi. */
int grid_next(int m, int lo, int hi);

/* The held-out M a sweep measures between the grid Ms a < b (a's next
 * grid M is b): their middle, rounded down; 0 when nothing lies between
 * them. Off the grid by construction. */
int grid_holdout(int a, int b);

#endif

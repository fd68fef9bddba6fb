/*
 * grid.c: the grid of Ms emit chooses on. See grid.h.
 */
#include "grid.h"

int grid_on(int m, int lo, int hi)
{
	if (m < lo || m > hi)
		return 0;
	return m <= GRID_DENSE_MAX || m % GRID_TILE <= 1 || m == lo || m == hi;
}

int grid_next(int m, int lo, int hi)
{
	if (m >= hi)
		return 0;
	if (m < lo)
		return lo;
	for (int x = m + 1;; x++)
		if (grid_on(x, lo, hi))
			return x;
}

int grid_holdout(int a, int b)
{
	return b - a > 1 ? a + (b - a) / 2 : 0;
}

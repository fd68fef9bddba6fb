/*
 * expr.h: the constraint expressions of a search space: C-like integer
 * expressions (literals, names, parentheses, unary - and !, * / %, + -,
 * < <= > >=, == !=, && ||, with C's precedence and short-circuit) parsed
 * once when the space loads and evaluated once per grid point.
 * Knows nothing about YAML or templates: the caller says which names exist.
 */
#ifndef GT_EXPR_H
#define GT_EXPR_H

struct expr;

/* A name an expression may use: a variable read from slots[slot] when the
 * expression is evaluated (slot >= 0), or the constant value (slot < 0). */
struct expr_name {
	const char *name;
	int slot;
	long value;
};

/* Why a parse failed: offset is the 0-based byte offset in the text of the
 * character or token at fault; msg is one line, lowercase. */
struct expr_error {
	int offset;
	char msg[160];
};

/* Parse text. Every identifier must be one of names[0..nnames-1] (the
 * first match wins). Integer literals are decimal. Returns a new
 * expression the caller frees with expr_free, or NULL with *err filled. */
struct expr *expr_parse(const char *text, const struct expr_name *names,
			int nnames, struct expr_error *err);

/* Evaluate with the variables in slots[] (indexed by expr_name.slot).
 * Returns 0 with the value in *out, or -1 when the value is undefined:
 * division or modulo by zero, or signed overflow, on an evaluated branch. */
int expr_eval(const struct expr *e, const long *slots, long *out);

/* Free an expression; NULL is a no-op. */
void expr_free(struct expr *e);

#endif

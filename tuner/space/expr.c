/*
 * expr.c: recursive-descent parser and tree evaluator for the integer
 * constraint expressions of search spaces (grammar and semantics in
 * expr.h). A parsed expression is one array of nodes; children are
 * indices into it.
 */
#include "expr.h"
#include "util.h"

#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bounds that keep a hostile constraint from exhausting the stack: a
 * real constraint is one line of a few dozen tokens. */
#define EXPR_MAX_LEN 1024
#define EXPR_MAX_NODES 256
#define EXPR_MAX_DEPTH 64
/* Literals stay far below LONG_MAX so that a product of a few of them is
 * meaningful; anything larger is a typo in a search space. */
#define EXPR_MAX_LITERAL 2147483647L

enum op {
	OP_CONST, OP_VAR, OP_NEG, OP_NOT,
	OP_MUL, OP_DIV, OP_MOD, OP_ADD, OP_SUB,
	OP_LT, OP_LE, OP_GT, OP_GE, OP_EQ, OP_NE, OP_AND, OP_OR,
};

struct node {
	enum op op;
	int a, b;       /* operand node indices */
	long value;     /* OP_CONST: the value; OP_VAR: the slot */
};

struct expr {
	int root;
	int nnodes;
	struct node nodes[EXPR_MAX_NODES];
};

struct parser {
	const char *text;
	const char *pos;
	const struct expr_name *names;
	int nnames;
	int depth;
	struct expr *e;
	struct expr_error *err;
};

/* Binary operators by precedence level, loosest first; a level's
 * operators are listed longest spelling first so "<=" wins over "<". */
static const struct level {
	const char *spell[4];
	enum op op[4];
} levels[] = {
	{ { "||" }, { OP_OR } },
	{ { "&&" }, { OP_AND } },
	{ { "==", "!=" }, { OP_EQ, OP_NE } },
	{ { "<=", ">=", "<", ">" }, { OP_LE, OP_GE, OP_LT, OP_GT } },
	{ { "+", "-" }, { OP_ADD, OP_SUB } },
	{ { "*", "/", "%" }, { OP_MUL, OP_DIV, OP_MOD } },
};

static int fail_at(struct parser *P, const char *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Record the first error at position at; returns -1. */
static int fail_at(struct parser *P, const char *at, const char *fmt, ...)
{
	va_list ap;
	P->err->offset = (int)(at - P->text);
	va_start(ap, fmt);
	vsnprintf(P->err->msg, sizeof(P->err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

static void skip_space(struct parser *P)
{
	while (*P->pos && isspace((unsigned char)*P->pos))
		P->pos++;
}

/* Append a node; returns its index or -1 when the expression is too big. */
static int add_node(struct parser *P, enum op op, int a, int b, long value)
{
	if (P->e->nnodes == EXPR_MAX_NODES)
		return fail_at(P, P->pos, "expression has more than %d terms",
			       EXPR_MAX_NODES);
	struct node *n = &P->e->nodes[P->e->nnodes];
	n->op = op;
	n->a = a;
	n->b = b;
	n->value = value;
	return P->e->nnodes++;
}

/* Describe the token at p for a message: "')'" or "end of expression". */
static const char *describe(const char *p, char buf[8])
{
	if (!*p)
		return "end of expression";
	if (isprint((unsigned char)*p))
		snprintf(buf, 8, "'%c'", *p);
	else
		snprintf(buf, 8, "0x%02x", (unsigned char)*p);
	return buf;
}

static int parse_level(struct parser *P, size_t level);

static int parse_number(struct parser *P)
{
	const char *start = P->pos;
	long v = 0;
	while (isdigit((unsigned char)*P->pos)) {
		v = v * 10 + (*P->pos - '0');
		if (v > EXPR_MAX_LITERAL)
			return fail_at(P, start, "integer literal too large (at most %ld)",
				       EXPR_MAX_LITERAL);
		P->pos++;
	}
	if (isalpha((unsigned char)*P->pos) || *P->pos == '_')
		return fail_at(P, P->pos, "bad integer literal (decimal digits only)");
	return add_node(P, OP_CONST, -1, -1, v);
}

static int parse_name(struct parser *P)
{
	const char *start = P->pos;
	while (isalnum((unsigned char)*P->pos) || *P->pos == '_')
		P->pos++;
	size_t len = (size_t)(P->pos - start);
	for (int i = 0; i < P->nnames; i++) {
		const struct expr_name *n = &P->names[i];
		if (strlen(n->name) != len || memcmp(n->name, start, len))
			continue;
		if (n->slot >= 0)
			return add_node(P, OP_VAR, -1, -1, n->slot);
		return add_node(P, OP_CONST, -1, -1, n->value);
	}
	return fail_at(P, start, "unknown identifier '%.*s'",
		       len > 40 ? 40 : (int)len, start);
}

/* unary := ('-' | '!') unary | number | name | '(' expr ')' */
static int parse_unary(struct parser *P)
{
	char buf[8];
	int r;
	skip_space(P);
	if (++P->depth > EXPR_MAX_DEPTH)
		return fail_at(P, P->pos, "expression nested deeper than %d levels",
			       EXPR_MAX_DEPTH);
	if (*P->pos == '-' || (*P->pos == '!' && P->pos[1] != '=')) {
		enum op op = *P->pos == '-' ? OP_NEG : OP_NOT;
		P->pos++;
		int a = parse_unary(P);
		r = a < 0 ? -1 : add_node(P, op, a, -1, 0);
	} else if (isdigit((unsigned char)*P->pos)) {
		r = parse_number(P);
	} else if (isalpha((unsigned char)*P->pos) || *P->pos == '_') {
		r = parse_name(P);
	} else if (*P->pos == '(') {
		const char *open = P->pos++;
		r = parse_level(P, 0);
		skip_space(P);
		if (r >= 0 && *P->pos != ')')
			r = fail_at(P, P->pos, "expected ')' to close the '(' at character %d, "
				    "found %s", (int)(open - P->text) + 1,
				    describe(P->pos, buf));
		else if (r >= 0)
			P->pos++;
	} else {
		r = fail_at(P, P->pos, "expected a number, a name or '(', found %s",
			    describe(P->pos, buf));
	}
	P->depth--;
	return r;
}

/* Which operator of this level starts at p, or -1. */
static int match_op(const struct level *L, const char *p)
{
	for (int i = 0; i < 4 && L->spell[i]; i++) {
		size_t n = strlen(L->spell[i]);
		if (!strncmp(p, L->spell[i], n))
			return i;
	}
	return -1;
}

/* level := next (op next)*, left-associative. */
static int parse_level(struct parser *P, size_t level)
{
	if (level == ARRAY_SIZE(levels))
		return parse_unary(P);
	const struct level *L = &levels[level];
	int a = parse_level(P, level + 1);
	while (a >= 0) {
		skip_space(P);
		int i = match_op(L, P->pos);
		if (i < 0)
			break;
		P->pos += strlen(L->spell[i]);
		int b = parse_level(P, level + 1);
		if (b < 0)
			return -1;
		a = add_node(P, L->op[i], a, b, 0);
	}
	return a;
}

/* A hint for a lone '=', '&' or '|', which C programmers type by habit. */
static int fail_trailing(struct parser *P)
{
	char buf[8];
	const char *p = P->pos;
	if (p[0] == '=' && p[1] != '=')
		return fail_at(P, p, "'=' is not an operator (use '==')");
	if (p[0] == '&')
		return fail_at(P, p, "'&' is not an operator (use '&&')");
	if (p[0] == '|')
		return fail_at(P, p, "'|' is not an operator (use '||')");
	return fail_at(P, p, "expected an operator or end of expression, found %s",
		       describe(p, buf));
}

struct expr *expr_parse(const char *text, const struct expr_name *names,
			int nnames, struct expr_error *err)
{
	struct parser P = { text, text, names, nnames, 0, NULL, err };
	size_t len = strlen(text);
	if (len > EXPR_MAX_LEN) {
		fail_at(&P, text + EXPR_MAX_LEN, "expression longer than %d characters",
			EXPR_MAX_LEN);
		return NULL;
	}
	P.e = xcalloc(1, sizeof(*P.e));
	skip_space(&P);
	if (!*P.pos) {
		fail_at(&P, P.pos, "empty expression");
		goto fail;
	}
	P.e->root = parse_level(&P, 0);
	if (P.e->root < 0)
		goto fail;
	skip_space(&P);
	if (*P.pos) {
		fail_trailing(&P);
		goto fail;
	}
	return P.e;
fail:
	free(P.e);
	return NULL;
}

/* Evaluate node i. Returns 0 or -1 (undefined value). */
static int eval(const struct expr *e, int i, const long *slots, long *out)
{
	const struct node *n = &e->nodes[i];
	long a, b;
	switch (n->op) {
	case OP_CONST:
		*out = n->value;
		return 0;
	case OP_VAR:
		*out = slots[n->value];
		return 0;
	case OP_AND:
	case OP_OR:
		if (eval(e, n->a, slots, &a))
			return -1;
		if ((n->op == OP_AND) == !a) {  /* short-circuit, as in C */
			*out = n->op == OP_OR;
			return 0;
		}
		if (eval(e, n->b, slots, &b))
			return -1;
		*out = b != 0;
		return 0;
	default:
		break;
	}
	if (eval(e, n->a, slots, &a))
		return -1;
	if (n->op == OP_NEG)
		return a == LONG_MIN ? -1 : (*out = -a, 0);
	if (n->op == OP_NOT)
		return *out = !a, 0;
	if (eval(e, n->b, slots, &b))
		return -1;
	switch (n->op) {
	case OP_MUL: return __builtin_mul_overflow(a, b, out) ? -1 : 0;
	case OP_ADD: return __builtin_add_overflow(a, b, out) ? -1 : 0;
	case OP_SUB: return __builtin_sub_overflow(a, b, out) ? -1 : 0;
	case OP_DIV:
	case OP_MOD:
		if (b == 0 || (a == LONG_MIN && b == -1))
			return -1;
		*out = n->op == OP_DIV ? a / b : a % b;
		return 0;
	case OP_LT: *out = a < b; return 0;
	case OP_LE: *out = a <= b; return 0;
	case OP_GT: *out = a > b; return 0;
	case OP_GE: *out = a >= b; return 0;
	case OP_EQ: *out = a == b; return 0;
	case OP_NE: *out = a != b; return 0;
	default: return -1;
	}
}

int expr_eval(const struct expr *e, const long *slots, long *out)
{
	return eval(e, e->root, slots, out);
}

void expr_free(struct expr *e)
{
	free(e);
}

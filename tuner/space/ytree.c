/*
 * ytree.c: reads a search-space file into a small tree of YAML nodes that
 * keep their source positions, and reports problems as one
 * "FILE:LINE:COL: what" line. The only file that includes yaml.h:
 * libyaml's event stream becomes the tree (anchors, aliases and tags are
 * refused, nesting and sizes are bounded); space.c checks the tree
 * against the schema.
 */
#include "ytree.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

static enum ystyle style_of(yaml_scalar_style_t s)
{
	switch (s) {
	case YAML_SINGLE_QUOTED_SCALAR_STYLE: return Y_SINGLE_QUOTED;
	case YAML_DOUBLE_QUOTED_SCALAR_STYLE: return Y_DOUBLE_QUOTED;
	case YAML_LITERAL_SCALAR_STYLE: return Y_LITERAL;
	case YAML_FOLDED_SCALAR_STYLE: return Y_FOLDED;
	default: return Y_PLAIN;
	}
}

/* Print the one error line at 0-based line and col; returns -1. */
static int vreport(const struct loader *L, size_t line, size_t col,
		   const char *fmt, va_list ap)
{
	char msg[512];
	vsnprintf(msg, sizeof(msg), fmt, ap);
	fprintf(stderr, "%s:%zu:%zu: %s\n", L->path, line + 1, col + 1, msg);
	return -1;
}

int yreport(const struct loader *L, size_t line, size_t col,
		  const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport(L, line, col, fmt, ap);
	va_end(ap);
	return -1;
}

int yfail(const struct loader *L, const struct ynode *at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport(L, (size_t)at->line, (size_t)at->col, fmt, ap);
	va_end(ap);
	return -1;
}

/* A user-supplied string made safe for a one-line message: printable
 * ASCII only, truncated with "...". Returns buf. */
const char *yshown(const char *s, char buf[SHOWN_MAX])
{
	size_t i = 0;
	for (; s[i] && i < SHOWN_MAX - 4; i++)
		buf[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
	if (s[i])
		memcpy(buf + i, "...", 3), i += 3;
	buf[i] = '\0';
	return buf;
}

void ynode_free(struct ynode *n)
{
	if (!n)
		return;
	for (int i = 0; i < n->nkids; i++)
		ynode_free(n->kids[i]);
	free(n->kids);
	free(n->text);
	free(n);
}

/* Read at most SPACE_MAX_BYTES of path. Returns the NUL-terminated
 * contents (caller frees) or NULL after reporting. */
char *yread_file(const struct loader *L, size_t *len)
{
	/* O_NONBLOCK: a FIFO must not hold the open until a writer comes */
	int fd = open(L->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	if (fd < 0) {
		yreport(L, 0, 0, "cannot open: %s", strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st)) {
		yreport(L, 0, 0, "cannot stat: %s", strerror(errno));
		close(fd);
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		yreport(L, 0, 0, "not a regular file (%s)",
			S_ISDIR(st.st_mode) ? "a directory" : S_ISFIFO(st.st_mode) ? "a FIFO" :
			"a device or socket");
		close(fd);
		return NULL;
	}
	FILE *f = fdopen(fd, "rb");
	if (!f) {
		yreport(L, 0, 0, "cannot open: %s", strerror(errno));
		close(fd);
		return NULL;
	}
	char *buf = xmalloc(SPACE_MAX_BYTES + 2);
	*len = fread(buf, 1, SPACE_MAX_BYTES + 1, f);
	int bad = ferror(f) ? errno : 0;
	fclose(f);
	if (bad || *len > SPACE_MAX_BYTES) {
		if (bad)
			yreport(L, 0, 0, "cannot read: %s", strerror(bad));
		else
			yreport(L, 0, 0, "file is larger than %d bytes", SPACE_MAX_BYTES);
		free(buf);
		return NULL;
	}
	buf[*len] = '\0';
	return buf;
}

/* Byte offset of the character at index (libyaml counts characters). */
size_t ybyte_of_index(const struct loader *L, size_t index)
{
	size_t b = 0;
	if (L->len >= 3 && !memcmp(L->buf, "\xef\xbb\xbf", 3))
		b = 3;  /* libyaml skips a byte-order mark without counting it */
	for (; b < L->len && index; index--)
		do
			b++;
		while (b < L->len && ((unsigned char)L->buf[b] & 0xc0) == 0x80);
	return b;
}

static int syntax_error(const struct loader *L, const yaml_parser_t *p)
{
	if (p->error == YAML_READER_ERROR) {
		/* Reader errors carry a byte offset, not a mark: count lines as
		 * libyaml does (LF, CR LF and a lone CR each end one) and
		 * characters, a byte-order mark not among them. */
		size_t line = 0, col = 0, b = 0;
		if (L->len >= 3 && !memcmp(L->buf, "\xef\xbb\xbf", 3))
			b = 3;
		for (; b < p->problem_offset && b < L->len; b++) {
			char c = L->buf[b];
			if (c == '\n' || (c == '\r' && (b + 1 >= L->len || L->buf[b + 1] != '\n')))
				line++, col = 0;
			else if (c != '\r' && ((unsigned char)c & 0xc0) != 0x80)
				col++;
		}
		return yreport(L, line, col, "invalid input: %s", p->problem);
	}
	if (p->context)
		return yreport(L, p->problem_mark.line, p->problem_mark.column,
			      "yaml syntax error: %s (%s at %zu:%zu)", p->problem,
			      p->context, p->context_mark.line + 1,
			      p->context_mark.column + 1);
	return yreport(L, p->problem_mark.line, p->problem_mark.column,
		      "yaml syntax error: %s", p->problem ? p->problem : "unknown");
}

/* Add child to the collection parent, enforcing size limits and unique
 * scalar keys. Returns 0, or -1 after reporting (child not adopted). */
static int adopt(const struct loader *L, struct ynode *parent, struct ynode *child)
{
	char buf[SHOWN_MAX];
	int is_key = parent->kind == K_MAP && parent->nkids % 2 == 0;
	int items = parent->kind == K_MAP ? parent->nkids / 2 : parent->nkids;
	if ((is_key || parent->kind == K_LIST) && items == SPACE_MAX_ITEMS)
		return yfail(L, child, "more than %d %s", SPACE_MAX_ITEMS,
			    parent->kind == K_MAP ? "keys in one mapping" : "items in one list");
	if (is_key && child->kind != K_SCALAR)
		return yfail(L, child, "a mapping key must be a scalar, not %s",
			    child->kind == K_LIST ? "a list" : "a mapping");
	for (int i = 0; is_key && i < parent->nkids; i += 2)
		if (!strcmp(parent->kids[i]->text, child->text))
			return yfail(L, child, "duplicate key '%s' (first at line %d)",
				    yshown(child->text, buf), parent->kids[i]->line + 1);
	parent->kids = xrealloc(parent->kids, (size_t)(parent->nkids + 1) * sizeof(child));
	parent->kids[parent->nkids++] = child;
	return 0;
}

/* A new node for a scalar or collection-start event, or NULL after
 * reporting an anchor or tag (this loader reads plain data only). */
static struct ynode *new_node(const struct loader *L, const yaml_event_t *ev)
{
	const yaml_char_t *anchor, *tag;
	if (ev->type == YAML_SCALAR_EVENT)
		anchor = ev->data.scalar.anchor, tag = ev->data.scalar.tag;
	else if (ev->type == YAML_SEQUENCE_START_EVENT)
		anchor = ev->data.sequence_start.anchor, tag = ev->data.sequence_start.tag;
	else
		anchor = ev->data.mapping_start.anchor, tag = ev->data.mapping_start.tag;
	if (anchor || tag)
		return yreport(L, ev->start_mark.line, ev->start_mark.column,
			      "yaml %s are not supported in a search space (write the value out)",
			      anchor ? "anchors" : "tags"), NULL;
	struct ynode *n = xcalloc(1, sizeof(*n));
	n->line = (int)ev->start_mark.line;
	n->col = (int)ev->start_mark.column;
	n->end_line = (int)ev->end_mark.line;
	n->index = ev->start_mark.index;
	if (ev->type == YAML_SCALAR_EVENT) {
		n->kind = K_SCALAR;
		n->style = style_of(ev->data.scalar.style);
		n->text = xstrdup((const char *)ev->data.scalar.value);
	} else {
		n->kind = ev->type == YAML_SEQUENCE_START_EVENT ? K_LIST : K_MAP;
	}
	return n;
}

/* Handle one event while building the tree. stack holds the open
 * collections; *done is set at the end of the stream. Returns 0 or -1. */
static int on_event(const struct loader *L, const yaml_event_t *ev, struct ynode **root,
		    struct ynode **stack, int *depth, int *done)
{
	const yaml_mark_t *at = &ev->start_mark;
	struct ynode *n;
	switch (ev->type) {
	case YAML_STREAM_END_EVENT:
		*done = 1;
		if (!*root)
			return yreport(L, at->line, at->column, "empty file (expected a "
				      "mapping with shapes and templates)");
		return 0;
	case YAML_DOCUMENT_START_EVENT:
		if (*root)
			return yreport(L, at->line, at->column, "more than one yaml document");
		return 0;
	case YAML_ALIAS_EVENT:
		return yreport(L, at->line, at->column, "yaml aliases are not supported "
			      "in a search space (write the value out)");
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		(*depth)--;
		return 0;
	case YAML_SCALAR_EVENT:
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT:
		break;
	default:
		return 0;
	}
	if (ev->type != YAML_SCALAR_EVENT && *depth == SPACE_MAX_DEPTH)
		return yreport(L, at->line, at->column, "nesting deeper than %d levels",
			      SPACE_MAX_DEPTH);
	if (!(n = new_node(L, ev)))
		return -1;
	if (!*depth) {
		*root = n;
	} else if (adopt(L, stack[*depth - 1], n)) {
		ynode_free(n);
		return -1;
	}
	if (n->kind != K_SCALAR)
		stack[(*depth)++] = n;
	return 0;
}

/* Parse L->buf into a tree. Returns the root or NULL after reporting. */
struct ynode *ybuild_tree(const struct loader *L)
{
	yaml_parser_t parser;
	struct ynode *root = NULL, *stack[SPACE_MAX_DEPTH];
	int depth = 0, done = 0, r = 0;
	if (!yaml_parser_initialize(&parser))
		die("out of memory initializing the yaml parser");
	/* UTF-8 only: positions map back to the buffer for messages. */
	yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING);
	yaml_parser_set_input_string(&parser, (const unsigned char *)L->buf, L->len);
	while (!done && !r) {
		yaml_event_t ev;
		if (!yaml_parser_parse(&parser, &ev)) {
			r = syntax_error(L, &parser);
			break;
		}
		r = on_event(L, &ev, &root, stack, &depth, &done);
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&parser);
	if (r) {
		ynode_free(root);
		return NULL;
	}
	return root;
}

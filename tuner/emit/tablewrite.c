/*
 * tablewrite.c: `gemmtab emit`'s writer (see tablewrite.h): emit.c chooses
 * the entries from one environment's rows, and this file resolves their
 * templates and kernels and writes the table header (layout
 * runtime/gt_table.h) and beside it NAME_kernels.cu, which instantiates
 * the kernels the entries name. Both files are byte-for-byte functions of
 * the database and the command line as typed (sorted, fixed number
 * formats, no time, no absolute path the user did not type), rendered in
 * memory and published as one unit (table_files_publish).
 */
#include "tablewrite.h"
#include "tablefile.h"
#include "tmpl.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Evidence per comment line in an entry's comment. */
#define POINTS_PER_LINE 3
#define STR_(x) #x
#define STR(x) STR_(x)

/* An entry as written: its template, parameter values and kernels. */
struct resolved {
	const struct tmpl *t;
	long params[MAX_PARAMS];
	int nkernels;
	char names[TMPL_MAX_KERNELS][TMPL_NAME_MAX];
	int kernel[TMPL_MAX_KERNELS];   /* indices into the sorted kernel list */
};

/* What the two files are made of. */
struct emit_out {
	const char *cmdline, *db_label, *kernels_name;
	const struct emit_incumbent *inc;       /* --incumbent's entries */
	int ninc;
	double margin;
	long long env;
	struct env_info e;
	const struct emit_group *groups;
	int ngroups;
	const struct emit_entry *entries;
	int nentries;
	const char *arch;               /* the kernels' target ("sm_90a") */
	struct resolved *res;           /* one per entry */
	char (*kernels)[TMPL_NAME_MAX]; /* distinct kernel names, sorted */
	const char **kernel_source;     /* the template file each one is in */
	int nkernels;
	char kernels_hash[17];          /* of the kernels file (table_file_kernels_hash) */
};

void table_put_comment(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '*' && s[1] == '/')
			fputs("* ", f);
		else
			fputc((unsigned char)*s < ' ' ? ' ' : *s, f);
	}
}

static void put_string(FILE *f, const char *s)
{
	table_file_put_string(f, s);
}

/* qsort comparator of fixed-size name buffers. */
static int str_cmp_void(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* Resolve every entry's template, parameter values and kernel names, and
 * collect the distinct names, sorted. Returns 0 or -1 (message printed). */
static int resolve_entries(struct emit_out *o)
{
	o->res = xcalloc((size_t)(o->nentries ? o->nentries : 1), sizeof(*o->res));
	o->kernels = xmalloc((size_t)(o->nentries ? o->nentries : 1) * TMPL_MAX_KERNELS *
			     sizeof(*o->kernels));
	o->nkernels = 0;
	for (int i = 0; i < o->nentries; i++) {
		const struct emit_entry *x = &o->entries[i];
		struct resolved *r = &o->res[i];
		struct shape s = { .n = x->group->key.n, .k = x->group->key.k,
				   .w = x->group->key.w, .x = x->group->key.x,
				   .y = x->group->key.y };
		const char *why;
		/* the first family of the key names the shape */
		size_t flen = strcspn(x->group->families, ",");
		memcpy(s.family, x->group->families, flen < FAMILY_MAX ? flen : FAMILY_MAX - 1);
		if (!(r->t = tmpl_find(x->cand->tmpl)))
			return error("template '%s' of %s is not known to this gemmtab",
				     x->cand->tmpl, x->cand->params);
		if (emit_params_parse(r->t, x->cand->params, r->params))
			return -1;
		if ((why = r->t->check(&s, r->params)))
			return error("%s %s is not legal for %s: %s", r->t->stem,
				     x->cand->params, x->group->families, why);
		r->nkernels = r->t->kernels(&s, r->params, r->names, TMPL_MAX_KERNELS);
		if (r->nkernels < 0)
			return error("%s %s: the template's kernels cannot be named", r->t->stem,
				     x->cand->params);
		for (int j = 0; j < r->nkernels; j++)
			memcpy(o->kernels[o->nkernels++], r->names[j], TMPL_NAME_MAX);
	}
	if (o->nkernels) {
		qsort(o->kernels, (size_t)o->nkernels, sizeof(*o->kernels), str_cmp_void);
		int n = 1;
		for (int i = 1; i < o->nkernels; i++)
			if (strcmp(o->kernels[i], o->kernels[n - 1]))
				memcpy(o->kernels[n++], o->kernels[i], TMPL_NAME_MAX);
		o->nkernels = n;
	}
	o->kernel_source = xcalloc((size_t)(o->nkernels ? o->nkernels : 1),
				   sizeof(*o->kernel_source));
	for (int i = 0; i < o->nentries; i++) {
		struct resolved *r = &o->res[i];
		for (int j = 0; j < r->nkernels; j++) {
			char (*hit)[TMPL_NAME_MAX] = bsearch(r->names[j], o->kernels,
				(size_t)o->nkernels, sizeof(*o->kernels), str_cmp_void);
			r->kernel[j] = (int)(hit - o->kernels);
			o->kernel_source[r->kernel[j]] = r->t->source;
		}
	}
	return 0;
}

/* "qkv (n 2304, k 8192, bf16 x bf16 -> bf16)" */
static void put_shape(FILE *f, const struct emit_group *g)
{
	table_put_comment(f, g->families);
	fprintf(f, " (n %d, k %d, %s x %s -> %s)", g->key.n, g->key.k,
		dtype_name(g->key.w), dtype_name(g->key.x), dtype_name(g->key.y));
}

/* "16..32", or "33" for a range of one M. */
static void put_range(FILE *f, const struct emit_entry *x)
{
	if (x->m_lo == x->m_hi)
		fprintf(f, "%d", x->m_lo);
	else
		fprintf(f, "%d..%d", x->m_lo, x->m_hi);
}

/* What a group's entries cover and what was measured: "M 1..2, 7..9
 * (2 entries, 5 Ms)" or "no entry", then sep, then "measured M 1 2 7". */
static void put_coverage(FILE *f, const struct emit_out *o, const struct emit_group *g,
			 const char *sep)
{
	int n = 0;
	long covered = 0;
	for (int i = 0; i < o->nentries; i++) {
		const struct emit_entry *x = &o->entries[i];
		if (x->group != g)
			continue;
		fputs(n++ ? ", " : "M ", f);
		put_range(f, x);
		covered += x->m_hi - x->m_lo + 1;
	}
	if (n)
		fprintf(f, " (%d entr%s, %ld M%s)", n, n == 1 ? "y" : "ies", covered,
			covered == 1 ? "" : "s");
	else
		fputs("no entry", f);
	fprintf(f, "%smeasured M", sep);
	for (int i = 0; i < g->nms; i++)
		fprintf(f, " %d", g->ms[i]);
}

static void put_env(FILE *f, const struct emit_out *o)
{
	const struct env_info *e = &o->e;
	fprintf(f, " * Tuned in environment %lld of ", o->env);
	table_put_comment(f, o->db_label);
	fputs(":\n *   gpu       ", f);
	table_put_comment(f, e->gpu_name);
	fprintf(f, ", %d SMs, SM clock %d MHz, memory clock %d MHz\n", e->sm_count,
		e->sm_clock_mhz, e->mem_clock_mhz);
	const char *label[] = { "driver", "cuda", "nvrtc", "cublas", "cublaslt", "sources" };
	const char *value[] = { e->driver, e->cuda, e->nvrtc, e->cublas, e->cublaslt,
				e->source_hash };
	for (size_t i = 0; i < ARRAY_SIZE(label); i++) {
		fprintf(f, " *   %-9s ", label[i]);
		table_put_comment(f, value[i]);
		fputs(i + 1 < ARRAY_SIZE(label) ? "\n" : " (hash of the code its entries run)\n", f);
	}
}

static void put_entry(FILE *f, const struct emit_entry *x, const struct resolved *r)
{
	const struct emit_group *g = x->group;
	const struct emit_cell *row = &g->cells[(size_t)(x->cand - g->cands) * g->nms];

	fputs("\t/* ", f);
	table_put_comment(f, g->families);
	fputs(", M ", f);
	put_range(f, x);
	fprintf(f, ": %s ", r->t->stem);
	table_put_comment(f, x->cand->params);
	if (x->holdout)
		fprintf(f, " (held out: M %d)", x->holdout);
	for (int i = x->lo; i <= x->hi; i++)
		fprintf(f, "%sM %d: %.3f (%d pairs)",
			(i - x->lo) % POINTS_PER_LINE ? ", " : "\n\t *   ",
			g->ms[i], row[i].ratio, row[i].pairs);
	fputs(" */\n", f);
	fprintf(f, "\t{ %d, %d, %d, %d, %d, %d, %d, ", g->key.n, g->key.k, (int)g->key.w,
		(int)g->key.x, (int)g->key.y, x->m_lo, x->m_hi);
	put_string(f, r->t->stem);
	fputs(", {", f);
	for (int i = 0; i < r->t->nparams; i++) {
		const struct tmpl_param *p = &r->t->params[i];
		fprintf(f, "%s %ld", i ? "," : "", r->params[i]);
		if (p->symbols)
			fprintf(f, " /* %s */", p->symbols[r->params[i]]);
	}
	if (!r->t->nparams)
		fputs(" 0", f);         /* C11 has no empty initializer */
	fprintf(f, " },\n\t  %d, {", r->nkernels);
	for (int i = 0; i < r->nkernels; i++)
		fprintf(f, "%s %d", i ? "," : "", r->kernel[i]);
	if (!r->nkernels)
		fputs(" 0", f);
	fprintf(f, " }, %.3f, %d },\n", x->ratio_min, x->pairs_min);
}

/* The generated-by line both files start with. */
static void put_first_line(FILE *f, const struct emit_out *o)
{
	fputs("/* Generated by `", f);
	table_put_comment(f, o->cmdline);
	fputs("` from ", f);
	table_put_comment(f, o->db_label);
	fputs("; DO NOT EDIT. */\n", f);
}

static void write_header(FILE *f, const struct emit_out *o)
{
	put_first_line(f, o);
	fputs("/*\n"
	      " * The dispatch table libgemmtab compiles in (layout: gt_table.h). Each\n"
	      " * entry is an inclusive M range of one (n, k, w, x, y) served by one\n"
	      " * template configuration: at each measured M of it, the fastest whose\n"
	      " * retests (>= " STR(EMIT_MIN_PAIRS) " pairs) beat cuBLAS (median paired ratio > 1); an\n"
	      " * unmeasured M only inside a span certified by a held-out M (docs/guide.md,\n"
	      " * gemmtab emit). Every other M runs the cuBLAS baseline. dtypes: 0 bf16,\n"
	      " * 1 fp32. kernel[] indexes\n"
	      " * gt_table_kernels[] in ", f);
	table_put_comment(f, o->kernels_name);
	fputs(".\n *\n", f);
	put_env(f, o);
	fputs(" *\n * Per shape:\n", f);
	for (int i = 0; i < o->ngroups; i++) {
		fputs(" *   ", f);
		put_shape(f, &o->groups[i]);
		fputs(":\n *     ", f);
		put_coverage(f, o, &o->groups[i], "\n *     ");
		fputc('\n', f);
	}
	fputs(" */\n#ifndef GT_GENERATED_TABLE_H\n#define GT_GENERATED_TABLE_H\n\n"
	      "#include \"gt_table.h\"\n\n", f);
	if (o->nentries) {
		fputs("/* n, k, w, x, y, m_lo, m_hi, tmpl, params (in the template's order),\n"
		      " * nkernels, kernel[], ratio_min, pairs_min */\n"
		      "static const struct gt_table_entry gt_table_entries[] = {\n", f);
		for (int i = 0; i < o->nentries; i++)
			put_entry(f, &o->entries[i], &o->res[i]);
		fputs("};\n\n", f);
	}
	table_file_put_decl(f, o->cmdline, &o->e, o->arch, o->kernels_hash, o->nentries,
			    "gt_table_entries");
	fputs("\n#endif\n", f);
}

static void write_kernels(FILE *f, const struct emit_out *o, const char *header_name)
{
	put_first_line(f, o);
	fputs("/*\n * The kernels named by index in the entries of ", f);
	table_put_comment(f, header_name);
	fputs(",\n * sorted by name, each with the template file it is in: read by\n"
	      " * tools/gt_cubin, which compiles them at build time with the tuner's\n"
	      " * own NVRTC path (the same code the tuner measured).\n */\n", f);
	if (!o->nkernels) {
		fputs("\n/* no entry, so no kernel: every M runs the baseline */\n"
		      "extern \"C\" const void *const gt_table_kernels[1] = { 0 };\n"
		      "extern \"C\" const int gt_table_nkernels = 0;\n", f);
		return;
	}
	/* each line names its kernel's template file too: tools/gt_cubin
	 * compiles the kernel from it */
	fputs("\nextern \"C\" const void *const gt_table_kernels[] = {\n", f);
	for (int i = 0; i < o->nkernels; i++)
		fprintf(f, "\t/* %d %s */ (const void *)&%s,\n", i, o->kernel_source[i],
			o->kernels[i]);
	fprintf(f, "};\nextern \"C\" const int gt_table_nkernels = %d;\n", o->nkernels);
}

/* Render the file with writer into a heap buffer (*buf, *len). Returns 0
 * or -1 (message printed). */
static int render(const char *path, const struct emit_out *o,
		  void (*writer)(FILE *, const struct emit_out *, const char *),
		  const char *arg, char **buf, size_t *len)
{
	FILE *f = open_memstream(buf, len);
	if (!f)
		return error("open_memstream: %s", strerror(errno));
	writer(f, o, arg);
	if (fclose(f))
		return error("%s: cannot render: %s", path, strerror(errno));
	return 0;
}

static void header_writer(FILE *f, const struct emit_out *o, const char *unused)
{
	(void)unused;
	write_header(f, o);
}

/* The directory part of path ("" when there is none), a heap string. */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? xasprintf("%.*s", (int)(slash - path), path) : xstrdup("");
}

static const char *base_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* Render the kernels file, then the header naming its hash, and publish
 * the two as one unit (table_files_publish). Returns 0 or -1. */
static int write_table(struct emit_out *o, const char *out_path, const char *kernels_path)
{
	char *kbuf = NULL, *hbuf = NULL;
	size_t klen = 0, hlen = 0;
	int ret = -1;
	if (render(kernels_path, o, write_kernels, base_of(out_path), &kbuf, &klen))
		goto cleanup;
	table_file_kernels_hash(kbuf, klen, o->kernels_hash);
	if (render(out_path, o, header_writer, NULL, &hbuf, &hlen))
		goto cleanup;
	ret = table_files_publish(out_path, hbuf, hlen, kernels_path, kbuf, klen);
cleanup:
	free(kbuf);
	free(hbuf);
	return ret;
}

/* The summary on stderr: entries and covered Ms per shape, and the files. */
static void print_summary(const struct emit_out *o, const char *out_path,
			  const char *kernels_path)
{
	for (int i = 0; i < o->ngroups; i++) {
		fputs("gemmtab emit: ", stderr);
		put_shape(stderr, &o->groups[i]);
		fputs(": ", stderr);
		put_coverage(stderr, o, &o->groups[i], "; ");
		fputc('\n', stderr);
	}
	fprintf(stderr, "gemmtab emit: wrote %s (%d entr%s) and %s (%d kernel%s)\n",
		out_path, o->nentries, o->nentries == 1 ? "y" : "ies", kernels_path,
		o->nkernels, o->nkernels == 1 ? "" : "s");
}

/* The table's source hash (environments without a legacy one): over the
 * entries' keys, candidates and code keys, so that it names the code the
 * table runs and not how its files read. */
static void table_source_hash(struct emit_out *o, const struct retest_row *rows, int nrows)
{
	uint64_t h = HASH_INIT;
	for (int j = 0; j < o->nentries; j++) {
		const struct emit_entry *x = &o->entries[j];
		const struct emit_key *k = &x->group->key;
		h = hash_str(hash_str(h, x->cand->tmpl), x->cand->params);
		for (int i = 0; i < nrows; i++) {
			const struct retest_row *r = &rows[i];
			if (r->n == k->n && r->k == k->k && r->w == k->w && r->x == k->x &&
			    r->y == k->y && !strcmp(r->tmpl, x->cand->tmpl) &&
			    !strcmp(r->params, x->cand->params)) {
				h = hash_str(h, r->code);
				break;
			}
		}
	}
	hash_hex(h, o->e.source_hash);
}

int table_write(const struct table_spec *spec, const struct best_row *measured, int nmeasured,
		const struct retest_row *retests, int nretests, const char *out_path)
{
	struct emit_out out = { .cmdline = spec->cmdline, .db_label = spec->db_label,
				.inc = spec->inc, .ninc = spec->ninc, .margin = spec->margin,
				.env = spec->env, .e = spec->e, .arch = spec->arch };
	struct emit_out *o = &out;
	struct emit_group *groups = NULL;
	struct emit_entry *entries = NULL;
	char *kernels_path = NULL, *dir = NULL;
	int ngroups = 0, usable = 0, ret = -1;

	for (int i = 0; i < nretests; i++)
		usable += retests[i].pairs >= EMIT_MIN_PAIRS;
	if (!usable) {
		error("environment %lld of %s has no retest with >= %d pairs "
		      "(a sweep retests its finalists last); nothing written",
		      o->env, o->db_label, EMIT_MIN_PAIRS);
		return 1;
	}
	ngroups = emit_group_rows(measured, nmeasured, retests, nretests, &groups);
	if (o->ninc) {
		int matched = emit_prefer(groups, ngroups, o->inc, o->ninc, o->margin);
		fprintf(stderr, "gemmtab emit: %d of the incumbent's %d entries have their "
			"candidate's retests here, preferred by %g%%\n", matched, o->ninc,
			100 * o->margin);
	}
	o->groups = groups;
	o->ngroups = ngroups;
	o->nentries = emit_select(groups, ngroups, &entries);
	o->entries = entries;
	if (resolve_entries(o))
		goto cleanup;
	if (!o->e.source_hash[0])
		table_source_hash(o, retests, nretests);

	/* OUT.h -> OUT_kernels.cu (out_path ends in ".h": tablewrite.h) */
	size_t stem = strlen(out_path) - 2;
	kernels_path = xmalloc(stem + sizeof("_kernels.cu"));
	memcpy(kernels_path, out_path, stem);
	strcpy(kernels_path + stem, "_kernels.cu");
	o->kernels_name = base_of(kernels_path);
	dir = dir_of(out_path);
	if (*dir && mkdir_p(dir)) {
		error("cannot create %s: %s", dir, strerror(errno));
		goto cleanup;
	}
	if (write_table(o, out_path, kernels_path))
		goto cleanup;
	print_summary(o, out_path, kernels_path);
	ret = 0;
cleanup:
	free(entries);
	free(o->res);
	free(o->kernels);
	free(o->kernel_source);
	emit_groups_free(groups, ngroups);
	free(kernels_path);
	free(dir);
	return ret;
}

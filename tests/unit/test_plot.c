/*
 * test_plot.c: the SVG plot writer on hand-made series: byte-identical
 * output for the same input, a document whose tags balance, escaped
 * names, a legend row per family, points left out for a NaN speedup,
 * nothing written when nothing is drawn, and a top panel that shows 1.
 * `test_plot --write FILE` writes the sample plot to FILE instead, for
 * checks outside C (an XML parser, a renderer).
 */
#include "check.h"
#include "plot.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int sample_m[] = { 1, 2, 4, 8, 16, 32, 64, 128, 256 };
#define NM ((int)ARRAY_SIZE(sample_m))

/* Seven families (one past the palette: the seventh takes a new marker)
 * shaped like a decode workload: speedups fading towards 1 as M grows. */
static const char *const sample_family[] = {
	"qkv", "oproj", "pooler", "unpooler", "unpooler_slice", "router", "a<&>\"b",
};
#define NF ((int)ARRAY_SIZE(sample_family))
static double sample_sp[NF][NM], sample_bound[NF][NM], sample_frac[NF][NM];

static void sample(struct plot_series *s)
{
	for (int i = 0; i < NF; i++) {
		for (int k = 0; k < NM; k++) {
			double fade = 1.0 / (1 + 0.25 * k);
			sample_sp[i][k] = 1 + (0.15 + 0.1 * i) * fade;
			sample_bound[i][k] = sample_sp[i][k] * (1.1 + 0.05 * k);
			sample_frac[i][k] = 0.95 - 0.04 * k - 0.02 * i;
		}
		s[i] = (struct plot_series){ sample_family[i], NM, sample_m, sample_sp[i],
					     sample_bound[i], sample_frac[i] };
	}
	sample_sp[2][3] = NAN;          /* pooler not measured at M = 8 */
	sample_bound[5][0] = NAN;       /* router has no floor at M = 1 */
	sample_frac[5][0] = NAN;
}

/* plot_svg's output into *svg (caller frees); its return value. */
static int render(const char *title, const struct plot_series *s, int ns, char **svg, size_t *len)
{
	FILE *out = open_memstream(svg, len);
	if (!out)
		die("open_memstream failed");
	int rc = plot_svg(out, title, s, ns);
	fclose(out);
	return rc;
}

/* Whether the tags of doc balance, after an optional <?xml ...?>, under
 * one root element that ends the document. */
static int tags_balance(const char *doc)
{
	const char *stack[64], *p = doc;
	size_t len[64];
	int depth = 0, roots = 0;
	if (!strncmp(p, "<?xml", 5) && !(p = strstr(p, "?>")))
		return 0;
	while ((p = strchr(p, '<'))) {
		const char *end = p + 1, *name = p + 1 + (p[1] == '/');
		char quote = 0;
		for (; *end && (quote || *end != '>'); end++)
			if (*end == '"' || *end == '\'')
				quote = quote == *end ? 0 : quote ? quote : *end;
		if (!*end || (roots && !depth))
			return 0;
		size_t n = strcspn(name, " \t\n/>");
		if (p[1] == '/') {
			if (!depth || len[--depth] != n || strncmp(stack[depth], name, n))
				return 0;
		} else if (end[-1] != '/') {
			if (depth == 64)
				return 0;
			roots += !depth;
			stack[depth] = name;
			len[depth++] = n;
		}
		p = end;
	}
	return depth == 0 && roots == 1;
}

/* The element of doc that begins at the first occurrence of mark, as a
 * fresh string up to its closing "</tag>" or "/>" (caller frees). */
static char *element_at(const char *doc, const char *mark, const char *close)
{
	const char *p = strstr(doc, mark), *end;
	if (!p)
		return NULL;
	while (p > doc && *p != '<')
		p--;
	if (!(end = strstr(p, close)))
		return NULL;
	return xasprintf("%.*s", (int)(end - p + strlen(close)), p);
}

static int count(const char *s, const char *what)
{
	int n = 0;
	for (; s && (s = strstr(s, what)); s += strlen(what))
		n++;
	return n;
}

/* The number of x,y pairs in the polyline of class cls in doc. */
static int polyline_points(const char *doc, const char *cls)
{
	char *mark = xasprintf("<polyline class=\"%s\"", cls);
	char *el = element_at(doc, mark, "/>");
	int n = el && strstr(el, "points=\"") ? count(strstr(el, "points=\""), ",") : -1;
	free(mark);
	free(el);
	return n;
}

TEST(same_input_same_bytes)
{
	struct plot_series s[NF];
	char *a, *b;
	size_t la, lb;
	sample(s);
	CHECK_INT(render("decode speedups", s, NF, &a, &la), 0);
	CHECK_INT(render("decode speedups", s, NF, &b, &lb), 0);
	CHECK(la > 1000);
	CHECK(la == lb && !memcmp(a, b, la));
	free(a);
	free(b);
}

TEST(a_well_formed_svg_document)
{
	struct plot_series s[NF];
	char *svg;
	size_t len;
	sample(s);
	CHECK_INT(render("decode speedups", s, NF, &svg, &len), 0);
	CHECK(!strncmp(svg, "<?xml", 5));
	CHECK(strstr(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\""));
	CHECK(strstr(svg, "viewBox=\"0 0 900 640\""));
	CHECK(strstr(svg, "sans-serif"));
	CHECK(len > 7 && !strcmp(svg + len - 7, "</svg>\n"));
	CHECK(tags_balance(svg));
	CHECK(!strstr(svg, "<script") && !strstr(svg, "href"));
	CHECK_INT(count(svg, "<polyline class=\"speedup\""), NF);
	CHECK(!strstr(svg, "nan") && !strstr(svg, "inf"));
	/* the checker itself: a crossed, an unclosed and a second root */
	CHECK(!tags_balance("<svg><g></svg></g>"));
	CHECK(!tags_balance("<svg><g>"));
	CHECK(!tags_balance("<svg/><svg/>"));
	CHECK(tags_balance("<?xml version=\"1.0\"?>\n<svg a=\"x>y\"><g/></svg>\n"));
	free(svg);
}

TEST(names_and_title_are_escaped)
{
	struct plot_series s[NF];
	char *svg;
	size_t len;
	sample(s);
	CHECK_INT(render("M < 64 & \"hot\"", s, NF, &svg, &len), 0);
	CHECK(strstr(svg, ">M &lt; 64 &amp; &quot;hot&quot;</text>"));
	CHECK(strstr(svg, "a&lt;&amp;&gt;&quot;b"));
	CHECK(!strstr(svg, "<&>"));
	CHECK(!strstr(svg, "M < 64"));
	CHECK(tags_balance(svg));
	free(svg);
}

TEST(legend_names_every_family)
{
	struct plot_series s[NF];
	char *svg, *legend;
	size_t len;
	sample(s);
	CHECK_INT(render("t", s, NF, &svg, &len), 0);
	legend = element_at(svg, "<g class=\"legend\">", "</g>\n</svg>");
	CHECK(legend != NULL);
	for (int i = 0; i < NF - 1; i++) {
		char *row = xasprintf(">%s</text>", sample_family[i]);
		CHECK(strstr(legend, row));
		free(row);
	}
	CHECK(strstr(legend, ">a&lt;&amp;&gt;&quot;b</text>"));
	CHECK(strstr(legend, "solid = measured"));
	CHECK(strstr(legend, "dotted = floor bound"));
	/* the seventh family takes the first colour again, with squares */
	CHECK(strstr(legend, "<g fill=\"#0072b2\"><rect "));
	free(legend);
	free(svg);
}

TEST(nan_speedup_point_is_left_out)
{
	const int m[] = { 8, 1, 4, 2 };
	const double sp[] = { 1.5, 1.2, 1.4, NAN };
	const double bound[] = { 2.0, NAN, 1.9, 1.8 };
	const double frac[] = { 0.8, 0.5, 0.7, 0.6 };
	struct plot_series s = { "one", 4, m, sp, bound, frac };
	char *svg, *line;
	size_t len;
	CHECK_INT(render("t", &s, 1, &svg, &len), 0);
	CHECK_INT(polyline_points(svg, "speedup"), 3);
	CHECK_INT(polyline_points(svg, "bound"), 2);     /* M = 1 has none, M = 2 is left out */
	CHECK_INT(polyline_points(svg, "frac"), 3);
	/* three markers in each panel, one in the legend */
	CHECK_INT(count(svg, "<circle "), 7);
	CHECK(!strstr(svg, "M=2:"));
	/* sorted by M: x rises along the line, M = 1 at the left inset */
	line = element_at(svg, "<polyline class=\"speedup\"", "/>");
	double x[3] = { 0 };
	const char *p = line ? strstr(line, "points=\"") : NULL;
	CHECK(p && sscanf(p, "points=\"%lf,%*f %lf,%*f %lf", &x[0], &x[1], &x[2]) == 3);
	CHECK_NEAR(x[0], 82.0, 0.05);
	CHECK(x[0] < x[1] && x[1] < x[2]);
	CHECK_NEAR(x[2], 690.0, 0.05);                    /* M = 8 is the largest: the right inset */
	free(line);
	free(svg);
}

TEST(nothing_to_draw_writes_nothing)
{
	const int m[] = { 1, 2, 0 };
	const double sp[] = { NAN, INFINITY, 1.3 };     /* M = 0 has no place on a log axis */
	const double fr[] = { 0.5, 0.5, 0.5 };
	struct plot_series s[2] = { { "a", 3, m, sp, fr, fr }, { "b", 0, m, sp, NULL, NULL } };
	char *svg;
	size_t len;
	CHECK_INT(render("t", s, 2, &svg, &len), -1);
	CHECK_INT(len, 0);
	free(svg);
	CHECK_INT(render("t", s, 0, &svg, &len), -1);
	CHECK_INT(len, 0);
	free(svg);
}

/* The pixel row of the top panel's baseline, the first dashed line. */
static double baseline_y(const char *svg)
{
	char *el = element_at(svg, "stroke-dasharray=\"6,4\"", "/>");
	double y = -1;
	if (!el || sscanf(el, "<line x1=\"%*f\" y1=\"%lf\"", &y) != 1)
		y = -1;
	free(el);
	return y;
}

TEST(top_range_includes_one)
{
	const int m[] = { 1, 16, 256 };
	const double sp[] = { 1.6, 2.1, 2.4 };
	const double bound[] = { 2.5, 2.8, NAN };
	struct plot_series s = { "hi", 3, m, sp, bound, NULL };
	char *svg;
	size_t len;
	CHECK_INT(render("t", &s, 1, &svg, &len), 0);
	double y = baseline_y(svg);
	/* the panel spans rows 52..372; 1 sits inside its margin, on a tick */
	CHECK(y > 52 && y < 372);
	CHECK(strstr(svg, ">1.0</text>"));
	CHECK(strstr(svg, ">3.0</text>"));
	CHECK(!strstr(svg, ">-"));
	CHECK(!strstr(svg, "class=\"frac\""));
	free(svg);

	/* and when every speedup is below 1 */
	const double low[] = { 0.6, 0.7, 0.8 };
	s.speedup = low;
	s.bound = NULL;
	CHECK_INT(render("t", &s, 1, &svg, &len), 0);
	y = baseline_y(svg);
	CHECK(y > 52 && y < 372);
	free(svg);
}

/* The pixel row of the y axis' tick labelled text (its labels stand at
 * x = X0 - 6 = 66), or -1. */
static double tick_y(const char *svg, const char *text)
{
	char key[64];
	double y;
	snprintf(key, sizeof(key), ">%s</text>", text);
	for (const char *p = strstr(svg, "<text x=\"66.0\" y=\""); p;
	     p = strstr(p + 1, "<text x=\"66.0\" y=\"")) {
		int used = 0;
		if (sscanf(p, "<text x=\"66.0\" y=\"%lf\"%n", &y, &used) == 1 && used > 0 &&
		    !strncmp(p + used, key, strlen(key)))
			return y - 4;   /* labels sit 4 px under their line */
	}
	return -1;
}

TEST(wide_range_is_log2)
{
	const int m[] = { 1, 8, 64 };
	const double fast[] = { 2.0, 7.0, 4.5 };
	const double slow[] = { 1.1, 1.3, 0.95 };
	struct plot_series s[2] = { { "fast", 3, m, fast, NULL, NULL },
				    { "slow", 3, m, slow, NULL, NULL } };
	char *svg;
	size_t len;
	CHECK_INT(render("t", s, 2, &svg, &len), 0);
	CHECK(strstr(svg, "speedup over cuBLAS (log2 scale)"));
	double y1 = tick_y(svg, "1"), y2 = tick_y(svg, "2"), y4 = tick_y(svg, "4");
	double y8 = tick_y(svg, "8");
	CHECK(y1 > 0 && y2 > 0 && y4 > 0 && y8 > 0);
	/* equal ratios, equal distances; 1 is the baseline's row */
	CHECK(fabs((y1 - y2) - (y2 - y4)) < 0.2);
	CHECK(fabs((y2 - y4) - (y4 - y8)) < 0.2);
	CHECK(fabs(baseline_y(svg) - y1) < 0.2);
	CHECK(tick_y(svg, "1.5") > 0);
	free(svg);

	/* within LOG_SPAN (4x) the panel stays linear */
	const double mid[] = { 1.1, 2.5, 2.0 };
	s[0].speedup = mid;
	CHECK_INT(render("t", s, 2, &svg, &len), 0);
	CHECK(!strstr(svg, "cuBLAS (log2 scale)"));
	CHECK(tick_y(svg, "1.0") > 0);   /* linear labels carry decimals */
	free(svg);
}

static int write_sample(const char *path)
{
	struct plot_series s[NF];
	FILE *out = fopen(path, "w");
	if (!out)
		die("cannot write %s", path);
	sample(s);
	if (plot_svg(out, "speedup over cuBLAS by family (sample)", s, NF) || fclose(out))
		die("cannot write %s", path);
	return 0;
}

/* check.h's TESTS defines main(void); it runs as run_tests here so that
 * --write can come first. */
#define main run_tests
TESTS(T(same_input_same_bytes), T(a_well_formed_svg_document), T(names_and_title_are_escaped),
      T(legend_names_every_family), T(nan_speedup_point_is_left_out),
      T(nothing_to_draw_writes_nothing), T(top_range_includes_one), T(wide_range_is_log2))
#undef main

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--write"))
		return write_sample(argv[2]);
	if (argc != 1) {
		fprintf(stderr, "usage: test_plot [--write FILE]\n");
		return 2;
	}
	return run_tests();
}

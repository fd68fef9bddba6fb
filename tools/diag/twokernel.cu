/*
 * tools/diag/twokernel.cu: a small reproducer of the two-kernel slowdown
 * (docs/notes.md runs 139-150, 157): after heavy work on another stream
 * than the timing stream, graphs of two kernels joined by an edge were
 * seen to replay ~0.3 us slower, one-kernel graphs not. Here the graphs
 * are made once, on one timing stream, and timed in phases as
 * diag.cuh times its cases (flush by a read, random order, the empty
 * graph's median subtracted); between phases some side work runs and is
 * waited for: fills of fresh weight-sized allocations on the legacy
 * stream, on the timing stream, or on a non-blocking stream of their own.
 * Not part of gemmtab.
 *
 * Build: bash tools/diag/build.sh
 * Run:   build/diag/twokernel [reps [PHASES]]
 * PHASES, one letter a phase (default "nltltsxyn"): n nothing; l fresh
 * allocations of 4 x 8.4 MB filled on the legacy stream, then freed; t
 * the same on the timing stream; s on a non-blocking stream of its own;
 * x 4 x 64 KiB on the legacy stream; y 4 x 64 MiB; a the allocations
 * alone (no fill); f a fill on the legacy stream of one buffer held from
 * the start (no allocation); g the graphs made again; w one second idle;
 * m as l with 8 allocations; k as l without the frees (held), r the held
 * ones freed; e one empty kernel on the legacy stream, then the
 * allocations alone.
 */
#include "diag.cuh"

#include <string>
#include <unistd.h>

static const size_t W_BYTES = 8388608;  /* the slice's and the router's weights */
static const int COPIES = 4;

struct phase_graphs {
	std::vector<std::string> names;
	std::vector<std::vector<cudaGraphExec_t>> g;    /* per case, per copy */
};

/* Median replay (us) of every case over reps (diag_replays); the last
 * case must be the empty graph. */
static std::vector<double> time_cases(const phase_graphs &pg, int reps, cudaStream_t s,
				      const uint4 *flush, size_t flush_bytes, unsigned *sink)
{
	const std::vector<std::vector<double>> t =
		diag_replays(pg.g, reps, s, flush, flush_bytes, sink);
	std::vector<double> med(t.size());
	for (size_t k = 0; k < t.size(); k++)
		med[k] = diag_median(t[k]);
	return med;
}

static std::vector<void *> kept;        /* phase k's allocations, until r */

/* Side work: count fresh allocations of `bytes` each, filled on `on` (0:
 * the legacy stream; 1: the timing stream; 2: a non-blocking stream made
 * for it and destroyed; 3: not filled), waited for, then freed, or with
 * keep held in kept. */
static void side_work(int on, size_t bytes, cudaStream_t s, int count, bool keep)
{
	cudaStream_t st = on == 1 ? s : 0;
	if (on == 2)
		CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
	std::vector<void *> p(count);
	for (int i = 0; i < count; i++) {
		CHECK(cudaMalloc(&p[i], bytes));
		if (on != 3)
			CHECK(harness_fill_random_bytes(p[i], bytes, 7u + i, st));
	}
	CHECK(cudaStreamSynchronize(st));
	CHECK(cudaDeviceSynchronize());
	for (int i = 0; i < count; i++) {
		if (keep)
			kept.push_back(p[i]);
		else
			CHECK(cudaFree(p[i]));
	}
	if (on == 2)
		CHECK(cudaStreamDestroy(st));
}

int main(int argc, char **argv)
{
	const int reps = argc > 1 ? atoi(argv[1]) : 200;
	const char *plan = argc > 2 ? argv[2] : "nltltsxyn";
	srand(12345);
	int l2;
	CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
	const int sms = diag_sms();
	const cudaStream_t s = diag_stream();
	uint4 *flush;
	unsigned *sink;
	const size_t flush_bytes = diag_flush_alloc(&flush, &sink, s);
	void *w[COPIES];
	for (int i = 0; i < COPIES; i++) {
		CHECK(cudaMalloc(&w[i], W_BYTES));
		CHECK(harness_fill_random_bytes(w[i], W_BYTES, 1u + i, s));
	}
	CHECK(cudaStreamSynchronize(s));

	void *held;             /* phase f's buffer */
	CHECK(cudaMalloc(&held, 4 * W_BYTES));
	/* the cases: the streaming read of 8.4 MB alone and followed by one
	 * kernel (an edge), two empty kernels, and the empty graph last */
	auto capture = [&](const std::function<void()> &body) { return diag_capture(s, body); };
	const int read_blocks = 8 * sms;     /* the probe's best for 8.4 MB: 8 per SM, unroll 4 */
	phase_graphs pg;
	pg.names = { "read 8.4 MB", "read 8.4 MB + empty", "empty + read 8.4 MB",
		     "empty + empty", "empty" };
	auto build = [&] {
	for (auto &g : pg.g)
		for (auto e : g)
			CHECK(cudaGraphExecDestroy(e));
	pg.g.assign(pg.names.size(), {});
	for (int c = 0; c < COPIES; c++) {
		pg.g[0].push_back(capture([&] {
			CHECK(harness_stream_read(w[c], W_BYTES, sink, read_blocks, 4, s));
		}));
		pg.g[1].push_back(capture([&] {
			CHECK(harness_stream_read(w[c], W_BYTES, sink, read_blocks, 4, s));
			CHECK(harness_empty(s));
		}));
		pg.g[2].push_back(capture([&] {
			CHECK(harness_empty(s));
			CHECK(harness_stream_read(w[c], W_BYTES, sink, read_blocks, 4, s));
		}));
	}
	pg.g[3].push_back(capture([&] {
		CHECK(harness_empty(s));
		CHECK(harness_empty(s));
	}));
	pg.g[4].push_back(capture([&] { CHECK(harness_empty(s)); }));
	for (auto &g : pg.g)
		for (auto e : g)
			CHECK(cudaGraphLaunch(e, s));
	CHECK(cudaStreamSynchronize(s));
	};
	build();

	static const struct {
		char code;
		const char *name;
		int on;         /* side_work's; -1: none (or see main) */
		size_t bytes;
		int count;
		bool keep;
	} kinds[] = {
		{ 'n', "nothing", -1, 0, 0, false },
		{ 'l', "legacy 4 x 8.4 MB", 0, W_BYTES, COPIES, false },
		{ 't', "timing stream 4 x 8.4 MB", 1, W_BYTES, COPIES, false },
		{ 's', "non-blocking side 4 x 8.4 MB", 2, W_BYTES, COPIES, false },
		{ 'x', "legacy 4 x 64 KiB", 0, 65536, COPIES, false },
		{ 'y', "legacy 4 x 64 MiB", 0, 64u << 20, COPIES, false },
		{ 'a', "alloc/free 4 x 8.4 MB", 3, W_BYTES, COPIES, false },
		{ 'm', "legacy 8 x 8.4 MB", 0, W_BYTES, 2 * COPIES, false },
		{ 'k', "legacy 4 x 8.4 MB, held", 0, W_BYTES, COPIES, true },
		{ 'f', "legacy fill, held buffer", -1, 0, 0, false },
		{ 'g', "graphs made again", -1, 0, 0, false },
		{ 'w', "1 s idle", -1, 0, 0, false },
		{ 'r', "the held ones freed", -1, 0, 0, false },
		{ 'e', "legacy empty, alloc/free", -1, 0, 0, false },
	};
	printf("twokernel: %d SMs, L2 %d, %d reps per phase, phases %s; us net of the empty "
	       "graph\n", sms, l2, reps, plan);
	printf("%-30s", "side work before the phase");
	for (size_t k = 0; k + 1 < pg.names.size(); k++)
		printf(" | %20s", pg.names[k].c_str());
	printf(" | %8s\n", "empty");
	for (const char *c = plan; *c; c++) {
		size_t i = 0;
		while (i < sizeof(kinds) / sizeof(kinds[0]) && kinds[i].code != *c)
			i++;
		if (i == sizeof(kinds) / sizeof(kinds[0])) {
			fprintf(stderr, "twokernel: unknown phase '%c'\n", *c);
			return 2;
		}
		const auto &ph = kinds[i];
		if (ph.on >= 0)
			side_work(ph.on, ph.bytes, s, ph.count, ph.keep);
		else if (*c == 'f') {
			CHECK(harness_fill_random_bytes(held, 4 * W_BYTES, 5u, 0));
			CHECK(cudaDeviceSynchronize());
		} else if (*c == 'g')
			build();
		else if (*c == 'w')
			sleep(1);
		else if (*c == 'r') {
			for (void *q : kept)
				CHECK(cudaFree(q));
			kept.clear();
		} else if (*c == 'e') {
			CHECK(harness_empty(0));
			CHECK(cudaDeviceSynchronize());
			side_work(3, W_BYTES, s, COPIES, false);
		}
		const std::vector<double> med = time_cases(pg, reps, s, flush, flush_bytes, sink);
		printf("%-30s", ph.name);
		for (size_t k = 0; k + 1 < med.size(); k++)
			printf(" | %20.2f", med[k] - med.back());
		printf(" | %8.2f\n", med.back());
		fflush(stdout);
	}
	return 0;
}

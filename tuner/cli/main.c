/*
 * main.c: the gemmtab command line: dispatch to one subcommand from the
 * commands[] table (git style), with usage text.
 */
#include "commands.h"
#include "jit.h"
#include "json.h"

#include <cublas_api.h>
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <string.h>

/* gemmtab --version: this build and the libraries it was built against
 * (the versions at run time are the ones `gemmtab probe` records). */
static void version(void)
{
	printf("gemmtab %s\n", GT_VERSION);
	printf("built against CUDA runtime %d.%d, NVRTC %s, cuBLAS/cuBLASLt %d.%d.%d, for %s\n",
	       CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10, jit_nvrtc_version(),
	       CUBLAS_VER_MAJOR, CUBLAS_VER_MINOR, CUBLAS_VER_PATCH, GT_DEFAULT_ARCH);
}

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

static const struct command commands[] = {
	{ "init", cmd_init, "write a search space for a model's projections from its config.json" },
	{ "sweep", cmd_sweep, "enumerate, compile, validate and time a search space into a database" },
	{ "compile", cmd_compile, "compile every instantiation of a search space with NVRTC (no GPU)" },
	{ "probe", cmd_probe, "measure the GPU: versions, replay overhead, streaming-read floors" },
	{ "bench", cmd_bench, "time libgemmtab (its compiled-in table) against cuBLAS per docs/workload.md" },
	{ "report", cmd_report, "per family and M, per load, and the score, from a database" },
	{ "emit", cmd_emit, "write the C dispatch table (and its kernel list) from a database's retests" },
	{ "verify", cmd_verify, "time a table's entries again on this GPU; keep what still wins" },
	{ "merge", cmd_merge, "fold the databases of several sweeps (shards, hosts) into one" },
	{ "prune", cmd_prune, "drop superseded code's results (and named environments), compact" },
	{ "migrate", cmd_migrate, "upgrade a database to this gemmtab's schema, in place" },
	{ "query", cmd_query, "run SQL or a canned query against a database" },
	{ "worker", cmd_worker, "(internal) the GPU worker process a sweep talks to over a pipe" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: gemmtab <command> [options]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\n'gemmtab help <command>' (or 'gemmtab <command> --help') describes a "
		"command's options;\n'gemmtab --version' the build.\n");
}

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(name, commands[i].name))
			return &commands[i];
	return NULL;
}

/* gemmtab help [COMMAND]: the command list, or COMMAND's own usage (what
 * COMMAND --help prints, exit status 0). */
static int help(int argc, char **argv)
{
	if (argc < 3) {
		usage(stdout);
		return 0;
	}
	const struct command *c = find_command(argv[2]);
	if (!c || argc > 3) {
		fprintf(stderr, argc > 3 ? "gemmtab help: one command at a time\n" :
			"gemmtab help: '%s' is not a gemmtab command\n", argv[2]);
		usage(stderr);
		return 2;
	}
	char *args[] = { argv[2], "--help", NULL };
	return c->fn(2, args);
}

int main(int argc, char **argv)
{
	command_line_set(argc, argv);
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--version")) {
		version();
		return 0;
	}
	if (!strcmp(argv[1], "help"))
		return help(argc, argv);
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	const struct command *c = find_command(argv[1]);
	if (c)
		return c->fn(argc - 1, argv + 1);
	fprintf(stderr, "gemmtab: '%s' is not a gemmtab command\n", argv[1]);
	usage(stderr);
	return 2;
}

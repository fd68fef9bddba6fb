/*
 * cmd_worker.c: `gemmtab worker [--device N | --count]`, the one tuner
 * process that touches a GPU: parses its arguments and serves requests
 * (worker_serve, tuner/worker/serve.c; the protocol is proto.h).
 */
#include "commands.h"
#include "gpu.h"
#include "worker.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char worker_usage[] = "usage: gemmtab worker [--device N | --count]";

/* The GPU of --device N (0 without it); -1 after --help, which prints
 * the usage, and after --count, which prints "devices N", the GPUs the
 * CUDA runtime sees (0, then why, when it sees none). */
static int parse_device(int argc, char **argv)
{
	long device = 0;
	for (int i = 1; i < argc; i++) {
		const char *v = NULL;
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			printf("%s\n  (internal: gemmtab sweep, bench and probe start it and talk "
			       "to it over a pipe; tuner/proto/proto.h has the protocol)\n", worker_usage);
			return -1;
		}
		if (!strcmp(argv[i], "--count")) {
			/* the supervisor's question (it runs no CUDA itself):
			 * "devices N", and why there is none when N is 0 */
			char why[256];
			if (gpu_available(why, sizeof(why)))
				printf("devices %d\n", gpu_count());
			else
				printf("devices 0 %s\n", why);
			return -1;
		}
		if (!strcmp(argv[i], "--device") && i + 1 < argc)
			v = argv[++i];
		else if (!strncmp(argv[i], "--device=", 9))
			v = argv[i] + 9;
		else
			die("%s", worker_usage);
		char *end;
		errno = 0;
		device = strtol(v, &end, 10);
		if (!*v || *end || errno || device < 0 || device > 255)
			die("bad device '%s'", v);
	}
	return (int)device;
}

int cmd_worker(int argc, char **argv)
{
	int device = parse_device(argc, argv);
	if (device < 0)
		return 0;
	return worker_serve(device);
}

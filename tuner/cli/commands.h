/*
 * commands.h: the gemmtab subcommands, one file each (tuner/cmd_*.c).
 * Each takes argv with argv[0] the subcommand name and returns the exit
 * status: 0 success, 1 failure, 2 bad usage or bad input.
 */
#ifndef GT_COMMANDS_H
#define GT_COMMANDS_H

int cmd_sweep(int argc, char **argv);
int cmd_compile(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_init(int argc, char **argv);
int cmd_emit(int argc, char **argv);
int cmd_query(int argc, char **argv);
int cmd_prune(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_migrate(int argc, char **argv);
int cmd_worker(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_verify(int argc, char **argv);

#endif

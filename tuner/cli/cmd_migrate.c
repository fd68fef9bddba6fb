/*
 * cmd_migrate.c: `gemmtab migrate`: bring a database to this gemmtab's
 * schema in place, in one transaction (the read commands never do), under
 * the database's lock (lock.h).
 */
#include "commands.h"
#include "db.h"
#include "lock.h"
#include "options.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char usage_text[] =
	"usage: gemmtab migrate --db DB\n"
	"  upgrades DB in place to this gemmtab's schema (report, query, emit and bench\n"
	"  read only the current schema and never write), after rolling back a hot\n"
	"  journal that a killed writer left (which the read commands refuse)\n";

int cmd_migrate(int argc, char **argv)
{
	const char *path = NULL;
	const struct opt opts[] = {
		OPT_STRING("db", &path, OPT_REQUIRED),
		OPT_END(),
	};
	int st = parse_options("migrate", argc, argv, opts, usage_text);
	if (st)
		return st == PARSE_HELP ? 0 : st;
	if (access(path, F_OK)) {
		error("cannot open database %s: %s", path, strerror(errno));
		return 1;
	}
	struct db_lock lock;
	if (db_lock_take(path, "migrate", &lock))
		return 1;
	int from = db_file_version(path);
	struct db *db;
	int ret = 1;
	if (!db_open_existing(path, &db)) {
		int to = db_schema_version(db);
		if (from == -2)
			printf("%s: rolled back its hot journal (a killed writer's uncommitted "
			       "write); schema %d, current\n", path, to);
		else if (from == to)
			printf("%s: schema %d, already current\n", path, to);
		else
			printf("%s: schema %d -> %d\n", path, from, to);
		db_close(db);
		ret = 0;
	}
	db_lock_drop(&lock);
	return ret;
}

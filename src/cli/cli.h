/*
** cli.h — exit statuses and the subcommand table of the ripsim binary.
**
** Exit statuses follow sysexits(3) so that scripts can tell a typo in the
** command line (64) from bad data (65) from an environment problem.
*/
#ifndef RIPSIM_CLI_H
#define RIPSIM_CLI_H

#define RIP_EX_OK 0
#define RIP_EX_FAIL 1        /* the command ran and reports a failed check */
#define RIP_EX_INTERRUPTED 130 /* stopped by SIGINT/SIGTERM; work so far is saved */
#define RIP_EX_USAGE 64      /* bad command line */
#define RIP_EX_DATAERR 65    /* bad input data: SPEC, CSV row, database */
#define RIP_EX_NOINPUT 66    /* input file missing or unreadable */
#define RIP_EX_UNAVAILABLE 69 /* a needed external tool is missing */
#define RIP_EX_SOFTWARE 70   /* internal error */
#define RIP_EX_OSERR 71      /* out of memory and similar */
#define RIP_EX_CANTCREAT 73  /* output file cannot be created */
#define RIP_EX_IOERR 74      /* read or write error */
#define RIP_EX_TEMPFAIL 75   /* try again later: a database locked by another process */

#include <stdbool.h>
#include <stdint.h>

#include "status.h"

/* The --help paragraph of every command that opens a sweep database (db.h, rip_db_check). */
#define RIP_DB_CHECK_HELP                                                               \
    "\nEvery command that opens a sweep database (sweep, report, claims, merge,\n"      \
    "migrate, layer --db, schema --db) first runs the same check on it, in one read\n"  \
    "transaction: SQLite's quick_check; the schema exactly ripsim's (a trigger,\n"      \
    "view, index or table ripsim does not create is refused before anything could\n"    \
    "run it); every layer in the run and of a known generator; every value an\n"        \
    "integer; and the verdicts recomputed from the stored truths and values equal\n"    \
    "to the stored counts.  A database that fails is refused (65) with the same\n"      \
    "line by each and left byte-identical.\n"

/* The exit status of a library status: the one place that maps them. */
static inline int rip_exit_status(rip_status s)
{
    switch (s) {
    case RIP_OK: return RIP_EX_OK;
    case RIP_S_DATA: return RIP_EX_DATAERR;
    case RIP_S_NOINPUT: return RIP_EX_NOINPUT;
    case RIP_S_CANTCREATE: return RIP_EX_CANTCREAT;
    case RIP_S_IO: return RIP_EX_IOERR;
    case RIP_S_NOMEM: return RIP_EX_OSERR;
    case RIP_S_BUSY: return RIP_EX_TEMPFAIL;
    case RIP_S_UNAVAILABLE: return RIP_EX_UNAVAILABLE;
    case RIP_S_INTERRUPTED: return RIP_EX_INTERRUPTED;
    case RIP_S_FAILED: return RIP_EX_FAIL;
    case RIP_S_INTERNAL: return RIP_EX_SOFTWARE;
    }
    return RIP_EX_SOFTWARE;
}

/* Each subcommand: argv[0] is the subcommand name.  Returns an exit status. */
int rip_cmd_layer(int argc, char **argv);
int rip_cmd_schema(int argc, char **argv);
int rip_cmd_optimal(int argc, char **argv);
int rip_cmd_layers(int argc, char **argv);
int rip_cmd_sweep(int argc, char **argv);
int rip_cmd_merge(int argc, char **argv);
int rip_cmd_migrate(int argc, char **argv);
int rip_cmd_report(int argc, char **argv);
int rip_cmd_tables(int argc, char **argv);
int rip_cmd_claims(int argc, char **argv);
int rip_cmd_reproduce(int argc, char **argv);
int rip_cmd_plan(int argc, char **argv);
int rip_cmd_execute(int argc, char **argv);
int rip_cmd_codegen(int argc, char **argv);
int rip_cmd_model(int argc, char **argv);
int rip_cmd_run(int argc, char **argv);
int rip_cmd_check(int argc, char **argv);
/* `ripsim plan MODEL --for LIB [--no-overlap] [--dsp] [--limits] [--tflm-arena BYTES] [--write OUT]`
** (cmd_tflm.c); lib indexes rip_tflm_lib_names, tflm_arena -1 when not given, write_path NULL. */
typedef struct rip_tflm_plan_args {
    const char *model_path, *write_path;
    int lib;
    bool no_overlap, dsp, limits;
    int64_t tflm_arena;
} rip_tflm_plan_args;
int rip_cmd_plan_tflm(const rip_tflm_plan_args *pa);
extern const char *const rip_tflm_lib_names[];

#endif

/*
** args.h — the one option parser of the ripsim subcommands.
**
** Each subcommand declares a table of its options (name, kind, where the
** value goes, its help) and a rip_cmd describing its synopsis, positional
** arguments and exit statuses.  rip_args_parse() then handles, the same way
** for every command:
**   --opt VALUE and --opt=VALUE, the short forms -n, -j, -o and -q of
**   --n, --jobs, --out and --quiet (-j 4 or -j4), flags (which take no value), "--" (every
**   later word is positional), "-" as a positional word (standard input),
**   unknown options (naming the closest one), missing values, integers out of range, enums with a
**   value not allowed, a value option given twice (unless it repeats), too few or too many
**   positional arguments, and -h / --help.
** Every error is one line on stderr naming the option, exit status 64.
** --help is generated from the same table: the synopsis, the description,
** one line per option, the notes and every exit status the command uses.
*/
#ifndef RIPSIM_ARGS_H
#define RIPSIM_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "closest.h"

typedef enum rip_opt_kind {
    RIP_OPT_FLAG,    /* no value: stores flag_value into *(bool *)dest */
    RIP_OPT_INT,     /* decimal integer in [lo, hi] into *(int64_t *)dest */
    RIP_OPT_REAL,    /* finite decimal number in [lo, hi] into *(double *)dest */
    RIP_OPT_STR,     /* non-empty word into *(const char **)dest */
    RIP_OPT_ENUM,    /* one of choices (NULL-terminated); its index into *(int *)dest */
    RIP_OPT_CUSTOM,  /* parse(value, dest, why) decides; why = what it takes */
} rip_opt_kind;

typedef struct rip_opt {
    const char *name;                /* "--n": always the long form with dashes */
    rip_opt_kind kind;
    void *dest;
    const char *metavar;             /* value placeholder in help and messages: "N", "FILE" */
    const char *help;                /* help text; '\n' starts a continuation line */
    int64_t lo, hi;                  /* INT, REAL: the allowed range */
    const char *const *choices;      /* ENUM */
    bool flag_value;                 /* FLAG: the value stored (a --no-x stores false) */
    bool (*parse)(const char *value, void *dest, char *why, size_t why_len); /* CUSTOM */
    bool *given;                     /* optional: set true when the option appears */
    bool repeat;                     /* CUSTOM: may be given more than once (parse is called each time) */
} rip_opt;

/* One exit status a command can return, for its --help. */
typedef struct rip_exit_doc {
    int code;
    const char *meaning;
} rip_exit_doc;

typedef struct rip_cmd {
    const char *name;                /* "layer" */
    const char *synopsis;            /* after "ripsim NAME "; '\n' separates alternative forms */
    const char *about;               /* paragraphs before the options */
    const rip_opt *opts;
    size_t n_opts;
    const char **pos;                /* receives the positional words */
    size_t min_pos, max_pos;         /* how many are allowed */
    size_t *n_pos;                   /* receives how many were given (may be NULL) */
    const char *missing;             /* message when fewer than min_pos: "missing SPEC" */
    const char *notes;               /* paragraphs after the options (may be NULL) */
    const rip_exit_doc *exits;       /* every exit status the command returns */
    size_t n_exits;
    const char *example;             /* one example line (may be NULL) */
} rip_cmd;

/* rip_args_parse returns this when the command should go on. */
#define RIP_ARGS_CONTINUE (-1)

/*
** Parse argv[1..argc-1] (argv[0] is the command's name) against c.
** Stores values through the option table and the positional words into
** c->pos.  Returns RIP_ARGS_CONTINUE; or, after printing the help to out,
** 0 (74 when out cannot be written); or 64 after one line on err naming
** the option or word at fault.
*/
int rip_args_parse(const rip_cmd *c, int argc, char **argv, FILE *out, FILE *err);

/* Print c's --help to out. */
void rip_args_help(const rip_cmd *c, FILE *out);

/*
** A usage error found after parsing (options that do not go together):
** prints "ripsim NAME: MESSAGE (see 'ripsim NAME --help')" as one line to
** stderr and returns 64.
*/
int rip_args_usage(const rip_cmd *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
** The name among names[0..n) closest to word[0..len) (a few letters
** inserted, dropped or changed, or word a prefix of it), for "did you
** mean"; NULL when none is close.
*/
static inline const char *rip_args_closest(const char *word, size_t len, const char *const *names, size_t n)
{
    return rip_closest(word, len, names, n);
}

/*
** The one database convention: a command that reads or writes one sweep
** database takes it as --db FILE or as its one positional word, the same.
** Stores pos (when not NULL) into *db; 64 after the message when both are
** given and differ, else 0.
*/
int rip_args_db(const rip_cmd *c, const char **db, const char *pos);

/* Parse a decimal integer in [lo, hi]; false if the whole word is not one. */
bool rip_arg_int(const char *s, int64_t lo, int64_t hi, int64_t *out);

#endif

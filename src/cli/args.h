/*
** args.h — small helpers for the subcommands' option parsing.
**
** Every subcommand accepts "--opt VALUE" and "--opt=VALUE"; these helpers
** take the value and parse integers strictly (the whole word must be a
** number in range), so that a typo is an error, never a default.
*/
#ifndef RIPSIM_ARGS_H
#define RIPSIM_ARGS_H

#include <stdbool.h>
#include <stdint.h>

/*
** If argv[*i] is option `name` ("--n" matches "--n" and "--n=..."), store
** its value in *value (NULL when the value is missing) and advance *i past
** it; returns true.  Otherwise returns false and leaves *i alone.
*/
bool rip_arg_value(int argc, char **argv, int *i, const char *name, const char **value);

/* Parse a decimal integer in [lo, hi]; false if not one. */
bool rip_arg_int(const char *s, int64_t lo, int64_t hi, int64_t *out);

#endif

/*
** finite_fmt.h — printf for what `ripsim report` and `ripsim claims`
** write, refusing a number that is not finite.
**
** A NaN or an infinity must never reach a report: printf would write
** "nan" or "inf" where a figure belongs, and a verdict judged on it would
** read as a finding.  These wrappers walk the format and its arguments
** first; when a floating-point argument (%f %F %e %E %g %G %a %A, with any
** flags, width, precision and L) is NaN or infinite they write nothing and
** return RIP_FMT_NONFINITE, which the caller turns into a status.  The
** walk knows the C99 conversions with flags, width, precision ('*'
** included) and length modifiers; a format it cannot read (a positional
** argument %1$d, %n, an unknown conversion) is refused the same way.
*/
#ifndef RIPSIM_FINITE_FMT_H
#define RIPSIM_FINITE_FMT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* What the wrappers return instead of a length when they refuse. */
#define RIP_FMT_NONFINITE (-2)

/* Is every floating-point argument fmt reads from ap finite (and fmt
** readable)?  ap itself is left as it was (the walk reads a copy). */
bool rip_fmt_args_finite(const char *fmt, va_list ap);

/* vsnprintf, or RIP_FMT_NONFINITE with buf "" (n > 0) when
** rip_fmt_args_finite refuses. */
int rip_fmt_vsnprintf(char *buf, size_t n, const char *fmt, va_list ap);

/* snprintf and fprintf the same way (fprintf writes nothing when it refuses). */
int rip_fmt_snprintf(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int rip_fmt_fprintf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Does s, text formatted elsewhere (SQLite's printf), spell a non-finite
** number: a word "nan", "inf" or "infinity" in any case, not part of a
** longer word? */
bool rip_fmt_text_nonfinite(const char *s);

#endif

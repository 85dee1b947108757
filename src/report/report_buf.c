/*
** report_buf.c — the growable string of `ripsim report` (sbuf) and the two
** number helpers every section uses (rpt_tidy, rpt_pct); report_internal.h
** has their contracts.
*/
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>

#include "finite_fmt.h"
#include "report_internal.h"

/* Append printf-formatted text; on allocation failure set oom, on a number
** that is not finite set nonfinite, and keep what is there. */
void rpt_sb_printf(sbuf *b, const char *fmt, ...)
{
    if (b->oom || b->nonfinite)
        return;
    va_list ap;
    va_start(ap, fmt);
    b->nonfinite = !rip_fmt_args_finite(fmt, ap);
    int n = b->nonfinite ? 0 : vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (b->nonfinite)
        return;
    if (n < 0) {
        b->oom = true;
        return;
    }
    if (b->len + (size_t)n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + (size_t)n + 1)
            cap *= 2;
        char *s = realloc(b->s, cap);
        if (!s) {
            b->oom = true;
            return;
        }
        b->s = s;
        b->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

/* The text so far ("" when empty). */
const char *rpt_sb_str(const sbuf *b)
{
    return b->s ? b->s : "";
}

/* Fixed two-decimal rendering that never prints "-0.00". */
double rpt_tidy(double x)
{
    return fabs(x) < 0.005 ? 0.0 : x;
}

/* 100 part / whole, or 0 when whole <= 0. */
double rpt_pct(int64_t part, int64_t whole)
{
    return whole > 0 ? 100.0 * (double)part / (double)whole : 0.0;
}

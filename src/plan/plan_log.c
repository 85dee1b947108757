/*
** plan_log.c — the strategies' verbose trace: a line formatted into a
** buffer and passed to the caller's callback (plan_log.h).
*/
#include <stdarg.h>
#include <stdio.h>

#include "plan_log.h"

/* Contract: plan_log.h. */
bool rip_plan_log_on(const rip_plan_opts *o)
{
    return o && o->verbose && o->log;
}

/* Contract: plan_log.h. */
void rip_plan_log(const rip_plan_opts *o, const char *fmt, ...)
{
    if (!rip_plan_log_on(o))
        return;
    char line[RIP_PLAN_LOG_LEN];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n >= 0)
        o->log(o->log_ctx, line);
}

/*
** plan_log.h — the strategies' verbose trace, through the caller's
** callback (rip_plan_opts.log, plan.h): library code never writes to a
** stream itself.  A line is formatted here and handed over whole.
*/
#ifndef RIPSIM_PLAN_LOG_H
#define RIPSIM_PLAN_LOG_H

#include <stdbool.h>

#include "plan.h"

/* The longest line passed to the callback, terminator included; a longer
** one is cut there (every trace line is far shorter). */
#define RIP_PLAN_LOG_LEN 2048

/* Would rip_plan_log pass a line on? (o not NULL, verbose, a callback) */
bool rip_plan_log_on(const rip_plan_opts *o);

/*
** One trace line: fmt and its arguments (printf's rules, no trailing
** newline) formatted into a buffer of RIP_PLAN_LOG_LEN bytes and passed to
** o->log(o->log_ctx, line) when rip_plan_log_on(o); otherwise nothing is
** formatted.  No error: a line that cannot be formatted is dropped.
*/
void rip_plan_log(const rip_plan_opts *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif

/*
** interval.h — the 95% intervals the report and the claims judge the
** paper's shares by (Clopper-Pearson), one implementation for both.
*/
#ifndef RIPSIM_INTERVAL_H
#define RIPSIM_INTERVAL_H

#include <stdint.h>

/*
** Clopper-Pearson interval of k successes in n trials (0 <= k <= n, n >= 1)
** at the given confidence (e.g. 0.95), in percent: *lo = 0 for k = 0,
** *hi = 100 for k = n.  Never fails and never calls GSL's error handler.
*/
void rip_clopper_pearson(int64_t k, int64_t n, double confidence, double *lo, double *hi);

#endif

/*
** confidence.h — the confidence intervals `ripsim report` and `ripsim
** claims` print: Clopper-Pearson for a share (k of n), Student t for a
** mean.  One module for both, so both print the same bounds.
**
** Every bound is a root of one of GSL's distribution functions
** (gsl_cdf_beta_P, gsl_cdf_tdist_P), found by bisection to a stated
** tolerance; GSL's inverses (gsl_cdf_beta_Pinv, gsl_cdf_tdist_Pinv) are not
** used: gsl_cdf_beta_Pinv fails to converge on some counts (583 of the
** 10,001 counts of n = 10,000 at 95%) and then calls GSL's error handler,
** whose default aborts the process.  The distribution functions reach no
** error handler for the arguments used here (beta: a, b >= 1 and
** 0 < x < 1; t: nu >= 1), so the module is safe whatever handler is set;
** each value they return is checked to be finite all the same.
*/
#ifndef RIPSIM_CONFIDENCE_H
#define RIPSIM_CONFIDENCE_H

#include <stdint.h>

#include "layer.h"   /* RIP_ERR_LEN */
#include "status.h"

/* How close a bound is to the root of its distribution function: a
** share's within this in proportion (1e-11 percentage points), a t
** quantile t's within this times max(1, t).  The outputs print two
** decimals. */
#define RIP_CI_TOL 1e-13

typedef struct rip_ci {
    double lo, hi;
} rip_ci;

/*
** The Clopper-Pearson interval at confidence conf (0 < conf < 1) of k
** successes in n trials, as proportions in [0, 1]: with X ~ Binomial(n, p),
** lo solves P(X >= k) = (1 - conf) / 2 (lo = 0 when k = 0) and hi solves
** P(X <= k) = (1 - conf) / 2 (hi = 1 when k = n); lo <= k/n <= hi.
** RIP_OK; RIP_S_DATA with err when n < 1 or k is outside 0..n
** ("K of N is not a share ..."); RIP_S_INTERNAL with err when conf is out
** of range or GSL's beta distribution function is not finite.
*/
rip_status rip_ci_share(int64_t k, int64_t n, double conf, rip_ci *ci, char err[RIP_ERR_LEN]);

/*
** The q quantile (0.5 <= q < 1) of Student's t with nu >= 1 degrees of
** freedom into *t (>= 0).  RIP_OK, or RIP_S_INTERNAL with err (q or nu out
** of range, GSL's t distribution function not finite).
*/
rip_status rip_ci_t_quantile(double q, double nu, double *t, char err[RIP_ERR_LEN]);

/*
** The Student t interval at confidence conf of the mean of n >= 2 values
** whose mean is mean and sample standard deviation sd >= 0:
** mean -+ t sd / sqrt(n), t the (1 + conf) / 2 quantile with n - 1 degrees
** of freedom.  RIP_OK; RIP_S_DATA with err when n < 2 or mean or sd is not
** finite (or sd < 0); RIP_S_INTERNAL with err as rip_ci_t_quantile.
*/
rip_status rip_ci_mean(double mean, double sd, int64_t n, double conf, rip_ci *ci,
                             char err[RIP_ERR_LEN]);

#endif

/*
** confidence.c — Clopper-Pearson and Student t intervals by bisection on
** GSL's distribution functions (confidence.h says why not GSL's inverses).
*/
#include "confidence.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>

/* An increasing distribution function of x with two parameters. */
typedef double (*cdf_fn)(double x, double a, double b);

static double beta_cdf(double x, double a, double b)
{
    return gsl_cdf_beta_P(x, a, b);
}

static double t_cdf(double x, double nu, double unused)
{
    (void)unused;
    return gsl_cdf_tdist_P(x, nu);
}

/*
** The x where cdf(., a, b) reaches target, given cdf(lo) < target <=
** cdf(hi): bisection until hi - lo <= tol (or lo and hi are adjacent
** doubles), then their midpoint into *x.  Only points strictly inside
** (lo, hi) are evaluated.  false when cdf is not finite at one of them.
** Monotone whatever the rounding of cdf: the bracket only shrinks.
*/
static bool bisect(cdf_fn cdf, double a, double b, double target, double lo, double hi, double tol, double *x)
{
    while (hi - lo > tol) {
        double mid = lo + (hi - lo) / 2;
        if (mid <= lo || mid >= hi)
            break;
        double v = cdf(mid, a, b);
        if (!isfinite(v))
            return false;
        if (v < target)
            lo = mid;
        else
            hi = mid;
    }
    *x = lo + (hi - lo) / 2;
    return true;
}

/*
** The lower Clopper-Pearson bound of k of n (1 <= k <= n) at tail
** probability tail: P(X >= k) = I_p(k, n - k + 1), the regularized
** incomplete beta, equals tail.  Its root lies in (0, 1): I_0 = 0 < tail < 1 = I_1.
*/
static bool share_lower(int64_t k, int64_t n, double tail, double *p)
{
    return bisect(beta_cdf, (double)k, (double)(n - k + 1), tail, 0.0, 1.0, RIP_CI_TOL, p);
}

static bool conf_ok(double conf)
{
    return isfinite(conf) && conf > 0.0 && conf < 1.0;
}

rip_status rip_ci_share(int64_t k, int64_t n, double conf, rip_ci *ci, char err[RIP_ERR_LEN])
{
    if (n < 1 || k < 0 || k > n) {
        snprintf(err, RIP_ERR_LEN, "%lld of %lld is not a share (0 <= k <= n, n >= 1)", (long long)k,
                 (long long)n);
        return RIP_S_DATA;
    }
    if (!conf_ok(conf)) {
        snprintf(err, RIP_ERR_LEN, "confidence %g is not between 0 and 1", conf);
        return RIP_S_INTERNAL;
    }
    double tail = (1.0 - conf) / 2.0, lo = 0.0, hi_mirror = 0.0;
    /* the upper bound of k is one minus the lower bound of n - k (X -> n - X, p -> 1 - p) */
    if ((k > 0 && !share_lower(k, n, tail, &lo)) || (k < n && !share_lower(n - k, n, tail, &hi_mirror))) {
        snprintf(err, RIP_ERR_LEN, "the beta distribution function is not finite for %lld of %lld",
                 (long long)k, (long long)n);
        return RIP_S_INTERNAL;
    }
    ci->lo = lo;
    ci->hi = 1.0 - hi_mirror;
    return RIP_OK;
}

rip_status rip_ci_t_quantile(double q, double nu, double *t, char err[RIP_ERR_LEN])
{
    if (!(isfinite(q) && q >= 0.5 && q < 1.0) || !(isfinite(nu) && nu >= 1.0)) {
        snprintf(err, RIP_ERR_LEN, "no t quantile %g with %g degrees of freedom", q, nu);
        return RIP_S_INTERNAL;
    }
    if (q == 0.5) {
        *t = 0.0;
        return RIP_OK;
    }
    /* bracket: P(0) = 0.5 < q; double hi until P(hi) >= q (2^64 is enough:
    ** the largest double below 1 needs t < 1e16 at nu = 1, the heaviest tail) */
    double lo = 0.0, hi = 1.0, v = t_cdf(hi, nu, 0);
    while (isfinite(v) && v < q && hi < 0x1p64) {
        lo = hi;
        hi *= 2;
        v = t_cdf(hi, nu, 0);
    }
    if (!isfinite(v) || v < q || !bisect(t_cdf, nu, 0, q, lo, hi, RIP_CI_TOL * (lo > 1.0 ? lo : 1.0), t)) {
        snprintf(err, RIP_ERR_LEN, "the t distribution function is not finite or never reaches %g (%g degrees "
                 "of freedom)", q, nu);
        return RIP_S_INTERNAL;
    }
    return RIP_OK;
}

rip_status rip_ci_mean(double mean, double sd, int64_t n, double conf, rip_ci *ci,
                             char err[RIP_ERR_LEN])
{
    if (n < 2 || !isfinite(mean) || !isfinite(sd) || sd < 0) {
        snprintf(err, RIP_ERR_LEN, "no t interval of a mean %g, sd %g over %lld values", mean, sd, (long long)n);
        return RIP_S_DATA;
    }
    if (!conf_ok(conf)) {
        snprintf(err, RIP_ERR_LEN, "confidence %g is not between 0 and 1", conf);
        return RIP_S_INTERNAL;
    }
    double t;
    rip_status s = rip_ci_t_quantile(0.5 + conf / 2.0, (double)(n - 1), &t, err);
    if (s != RIP_OK)
        return s;
    double half = t * sd / sqrt((double)n);
    if (!isfinite(mean - half) || !isfinite(mean + half)) {
        snprintf(err, RIP_ERR_LEN, "the t interval of a mean %g, sd %g over %lld values is not finite", mean, sd,
                 (long long)n);
        return RIP_S_DATA;
    }
    ci->lo = mean - half;
    ci->hi = mean + half;
    return RIP_OK;
}

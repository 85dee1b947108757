/*
** interval.c — Clopper-Pearson intervals (interval.h).
**
** A bound is a quantile of a beta distribution.  GSL's inverse
** (gsl_cdf_beta_Pinv) does not converge for many small shares of large
** runs (5 of 15,000: b = 14995) and then calls GSL's error handler, whose
** default aborts; its CDF (the regularized incomplete beta function) is
** sound there.  So the inverse is asked first with the handler off, and
** where it gives no finite answer in [0, 1] the quantile is found by
** bisection on the CDF, which is monotone: 64 halvings of [0, 1] are
** below any double's spacing near the answer.
*/
#include "interval.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <math.h>

/* The p-quantile of Beta(a, b), a, b > 0. */
static double beta_quantile(double p, double a, double b)
{
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    double x = gsl_cdf_beta_Pinv(p, a, b);
    if (!isfinite(x) || x < 0.0 || x > 1.0) {
        double lo = 0.0, hi = 1.0;
        for (int i = 0; i < 64; i++) {
            double mid = 0.5 * (lo + hi);
            if (gsl_cdf_beta_P(mid, a, b) < p)
                lo = mid;
            else
                hi = mid;
        }
        x = 0.5 * (lo + hi);
    }
    gsl_set_error_handler(old);
    return x;
}

void rip_clopper_pearson(int64_t k, int64_t n, double confidence, double *lo, double *hi)
{
    double a = 1.0 - confidence;
    *lo = k <= 0 ? 0.0 : 100.0 * beta_quantile(a / 2, (double)k, (double)(n - k + 1));
    *hi = k >= n ? 100.0 : 100.0 * beta_quantile(1 - a / 2, (double)(k + 1), (double)(n - k));
}

/*
** test_confidence.c — the confidence intervals `ripsim report` and
** `ripsim claims` print (src/report/confidence.c), against computations
** that share none of its code path:
**   - Clopper-Pearson, every count k = 0..n of n in {291, 1100, 1583,
**     10000}: both bounds against the roots of the exact binomial tails,
**     summed term by term in long double (the pmf from lgammal, then the
**     ratio of consecutive terms) and solved by safeguarded Newton, with no
**     GSL; and at k = 0 and k = n against their closed forms;
**   - Student t quantiles against mpmath 1.3 (40 digits: the t
**     distribution function from mpmath.betainc, solved by bisection) and
**     the closed forms at 1 and 2 degrees of freedom.
*/
#include <criterion/criterion.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "confidence.h"

/* ---- the reference: exact binomial tails in long double ---------------------- */

/* log of the Binomial(n, p) pmf at k (0 < p < 1). */
static long double log_pmf(int64_t k, int64_t n, long double p)
{
    return lgammal((long double)n + 1) - lgammal((long double)k + 1) - lgammal((long double)(n - k) + 1) +
           (long double)k * logl(p) + (long double)(n - k) * log1pl(-p);
}

/*
** P(X >= k) (up) or P(X <= k) (!up) for X ~ Binomial(n, p), 0 < p < 1,
** summed from the term at k outwards; *pk receives the pmf at k.  The sum
** stops once the terms fall and the rest is below 1e-24 of it: the ratio r
** of consecutive terms only falls further out, so what is left after a
** term t is at most t r / (1 - r).
*/
static long double tail(bool up, int64_t k, int64_t n, long double p, long double *pk)
{
    long double term = expl(log_pmf(k, n, p)), sum = 0, odds = p / (1 - p);
    *pk = term;
    for (int64_t j = k; up ? j <= n : j >= 0; j += up ? 1 : -1) {
        sum += term;
        if (up ? j == n : j == 0)
            break;
        long double r = up ? (long double)(n - j) / (long double)(j + 1) * odds
                           : (long double)j / (long double)(n - j + 1) / odds;
        if (r < 1 && term * r / (1 - r) <= 1e-24L * sum)
            break;
        term *= r;
    }
    return sum;
}

/*
** The lower bound (upper = false: P(X >= k) = a, 1 <= k <= n) or the upper
** bound (upper = true: P(X <= k) = a, 0 <= k < n) of Clopper-Pearson.
** Newton on an increasing function g with g' from the pmf at k
** (d/dp P(X >= k) = k pmf(k) / p, d/dp P(X <= k) = -(n - k) pmf(k) / (1 - p)),
** kept inside the bracket [lo, hi] that every evaluation narrows, and
** bisection where a step would leave it.
*/
static long double cp_root(bool upper, int64_t k, int64_t n, long double a)
{
    long double lo = 0, hi = 1, p = (long double)k / (long double)n;
    if (p <= 0 || p >= 1)
        p = 0.5L;
    for (int i = 0; i < 400; i++) {
        long double pk, g, d;
        if (!upper) {
            g = tail(true, k, n, p, &pk) - a;
            d = (long double)k * pk / p;
        } else {
            g = a - tail(false, k, n, p, &pk);
            d = (long double)(n - k) * pk / (1 - p);
        }
        if (g < 0)
            lo = p;
        else
            hi = p;
        long double next = d > 0 ? p - g / d : -1;
        if (!(next > lo && next < hi))
            next = lo + (hi - lo) / 2;
        if (fabsl(next - p) <= 1e-18L * p || hi - lo <= 1e-19L * p)
            return next;
        p = next;
    }
    cr_assert_fail("cp_root(%d, %lld, %lld) did not converge", upper, (long long)k, (long long)n);
    return -1;
}

/* ---- Clopper-Pearson on every count -------------------------------------------- */

/*
** Tolerance, in proportion: 1e-12, which is 1e-10 percentage points, a
** millionth of the 0.01 the outputs print.  Both sides are far better
** (the bisection stops within 1e-13; the long double sums err by about
** 1e-17 relative), so it only allows for the rounding of GSL's beta
** distribution function.  Beyond the number, the two decimals each output
** prints are compared as strings.
*/
#define CP_TOL 1e-12

static void every_count(int64_t n)
{
    char err[RIP_ERR_LEN];
    double worst = 0, prev_lo = -1, prev_hi = -1;
    int64_t worst_k = -1;
    for (int64_t k = 0; k <= n; k++) {
        rip_ci ci;
        cr_assert_eq(rip_ci_share(k, n, 0.95, &ci, err), RIP_OK, "%lld of %lld: %s", (long long)k, (long long)n,
                     err);
        cr_assert(isfinite(ci.lo) && isfinite(ci.hi), "%lld of %lld: %g-%g", (long long)k, (long long)n, ci.lo,
                  ci.hi);
        double share = (double)k / (double)n;
        cr_assert(ci.lo <= share && share <= ci.hi && ci.lo >= 0 && ci.hi <= 1, "%lld of %lld: %.17g-%.17g",
                  (long long)k, (long long)n, ci.lo, ci.hi);
        cr_assert(ci.lo > prev_lo && ci.hi > prev_hi, "bounds not increasing in k at %lld of %lld", (long long)k,
                  (long long)n);
        prev_lo = ci.lo;
        prev_hi = ci.hi;
        long double lo = k == 0 ? 0 : cp_root(false, k, n, 0.025L);
        long double hi = k == n ? 1 : cp_root(true, k, n, 0.025L);
        double d = (double)fmaxl(fabsl((long double)ci.lo - lo), fabsl((long double)ci.hi - hi));
        if (d > worst) {
            worst = d;
            worst_k = k;
        }
        cr_assert(d <= CP_TOL, "%lld of %lld: %.17g-%.17g, the binomial tails give %.17Lg-%.17Lg", (long long)k,
                  (long long)n, ci.lo, ci.hi, lo, hi);
        char got[64], want[64];
        snprintf(got, sizeof got, "%.2f-%.2f", 100 * ci.lo, 100 * ci.hi);
        snprintf(want, sizeof want, "%.2f-%.2f", (double)(100 * lo), (double)(100 * hi));
        cr_assert_str_eq(got, want, "%lld of %lld prints %s, the binomial tails %s", (long long)k, (long long)n,
                         got, want);
    }
    /* the closed forms: P(X >= n) = p^n, P(X <= 0) = (1 - p)^n */
    rip_ci all, none;
    cr_assert_eq(rip_ci_share(n, n, 0.95, &all, err), RIP_OK);
    cr_assert_eq(rip_ci_share(0, n, 0.95, &none, err), RIP_OK);
    long double edge = powl(0.025L, 1.0L / (long double)n);
    cr_assert(fabsl((long double)all.lo - edge) <= CP_TOL && all.hi == 1.0, "%lld of %lld: %.17g", (long long)n,
              (long long)n, all.lo);
    cr_assert(fabsl((long double)none.hi - (1 - edge)) <= CP_TOL && none.lo == 0.0, "0 of %lld: %.17g",
              (long long)n, none.hi);
    cr_log_info("n = %lld: every count within %.3g of the binomial tails (largest at k = %lld)", (long long)n, worst,
                (long long)worst_k);
}

Test(confidence, clopper_pearson_every_count_of_291) { every_count(291); }
Test(confidence, clopper_pearson_every_count_of_1100) { every_count(1100); }
Test(confidence, clopper_pearson_every_count_of_1583) { every_count(1583); }
Test(confidence, clopper_pearson_every_count_of_10000, .timeout = 300) { every_count(10000); }

/* The case, to the digits mpmath gives: 22.5923703549707-26.9017432041007%. */
Test(confidence, clopper_pearson_391_of_1583)
{
    rip_ci ci;
    char err[RIP_ERR_LEN];
    cr_assert_eq(rip_ci_share(391, 1583, 0.95, &ci, err), RIP_OK);
    cr_assert(fabs(100 * ci.lo - 22.5923703549707) < 1e-10 && fabs(100 * ci.hi - 26.9017432041007) < 1e-10,
              "%.15g-%.15g", 100 * ci.lo, 100 * ci.hi);
}

Test(confidence, a_share_that_is_no_share_is_refused)
{
    rip_ci ci = {-7, -7};
    char err[RIP_ERR_LEN] = "";
    cr_assert_eq(rip_ci_share(292, 291, 0.95, &ci, err), RIP_S_DATA);
    cr_assert_str_eq(err, "292 of 291 is not a share (0 <= k <= n, n >= 1)");
    cr_assert_eq(rip_ci_share(-1, 291, 0.95, &ci, err), RIP_S_DATA);
    cr_assert_eq(rip_ci_share(0, 0, 0.95, &ci, err), RIP_S_DATA);
    cr_assert_eq(rip_ci_share(1, 2, 1.0, &ci, err), RIP_S_INTERNAL);
    cr_assert_eq(rip_ci_share(1, 2, NAN, &ci, err), RIP_S_INTERNAL);
    cr_assert(ci.lo == -7 && ci.hi == -7, "a refused interval is not written");
}

/* ---- Student t -------------------------------------------------------------------- */

/* The 0.975 quantiles from mpmath (see the file's comment). */
static const struct {
    double nu, t;
} t975[] = {
    {1, 12.706204736174705},   {2, 4.3026527297494639},   {3, 3.1824463052837096},  {5, 2.5705818356363155},
    {10, 2.2281388519862747},  {29, 2.0452296421327043},  {30, 2.0422724563012383}, {31, 2.0395134463964085},
    {50, 2.0085591121007611},  {75, 1.9921021540022421},  {100, 1.9839715185235523},
    {306, 1.9677467375895048}, {1000, 1.9623390808264085}, {10000, 1.9602012398906263},
};

/* Relative tolerance of a t quantile: the bisection's 1e-13, and GSL's t
** distribution function (its Cornish-Fisher expansion above 30 degrees of
** freedom) errs by about 1e-14 here; 1e-12 leaves room for both. */
#define T_TOL 1e-12

Test(confidence, t_quantiles_against_mpmath)
{
    char err[RIP_ERR_LEN];
    for (size_t i = 0; i < sizeof t975 / sizeof t975[0]; i++) {
        double t;
        cr_assert_eq(rip_ci_t_quantile(0.975, t975[i].nu, &t, err), RIP_OK, "%s", err);
        cr_expect(fabs(t - t975[i].t) <= T_TOL * t975[i].t, "nu = %g: %.17g, mpmath %.17g", t975[i].nu, t,
                  t975[i].t);
    }
}

Test(confidence, t_quantiles_closed_forms)
{
    char err[RIP_ERR_LEN];
    static const double qs[] = {0.5, 0.6, 0.9, 0.975, 0.995, 0.9999};
    for (size_t i = 0; i < sizeof qs / sizeof qs[0]; i++) {
        double q = qs[i], t1, t2, a = 2 * q - 1;
        cr_assert_eq(rip_ci_t_quantile(q, 1, &t1, err), RIP_OK, "%s", err);
        cr_assert_eq(rip_ci_t_quantile(q, 2, &t2, err), RIP_OK, "%s", err);
        /* Cauchy: F(t) = 1/2 + atan(t) / pi; nu = 2: F(t) = 1/2 + t / (2 sqrt(2 + t^2)) */
        double c1 = tan(acos(-1.0) * (q - 0.5)), c2 = a * sqrt(2 / (1 - a * a));
        cr_expect(fabs(t1 - c1) <= T_TOL * fmax(1, c1), "nu = 1, q = %g: %.17g, tan gives %.17g", q, t1, c1);
        cr_expect(fabs(t2 - c2) <= T_TOL * fmax(1, c2), "nu = 2, q = %g: %.17g, closed form %.17g", q, t2, c2);
    }
    double t;
    cr_assert_eq(rip_ci_t_quantile(0.4, 5, &t, err), RIP_S_INTERNAL);
    cr_assert_eq(rip_ci_t_quantile(1.0, 5, &t, err), RIP_S_INTERNAL);
    cr_assert_eq(rip_ci_t_quantile(0.975, 0.5, &t, err), RIP_S_INTERNAL);
}

Test(confidence, mean_interval)
{
    char err[RIP_ERR_LEN];
    rip_ci ci;
    /* n = 307 (the default sweep's loose dense layers): 306 degrees of freedom */
    cr_assert_eq(rip_ci_mean(25.0, 3.0, 307, 0.95, &ci, err), RIP_OK, "%s", err);
    double half = 1.9677467375895048 * 3.0 / sqrt(307.0);
    cr_expect(fabs(ci.lo - (25.0 - half)) < 1e-12 && fabs(ci.hi - (25.0 + half)) < 1e-12, "%.17g-%.17g", ci.lo,
              ci.hi);
    cr_assert_eq(rip_ci_mean(4.0, 0.0, 2, 0.95, &ci, err), RIP_OK);
    cr_expect(ci.lo == 4.0 && ci.hi == 4.0);
    ci.lo = ci.hi = -7;
    cr_assert_eq(rip_ci_mean(1.0, 1.0, 1, 0.95, &ci, err), RIP_S_DATA, "one value: no interval");
    cr_assert_eq(rip_ci_mean(NAN, 1.0, 10, 0.95, &ci, err), RIP_S_DATA);
    cr_assert_eq(rip_ci_mean(1.0, INFINITY, 10, 0.95, &ci, err), RIP_S_DATA);
    cr_assert_eq(rip_ci_mean(1.0, -1.0, 10, 0.95, &ci, err), RIP_S_DATA);
    cr_assert_eq(rip_ci_mean(1.7e308, 1e308, 2, 0.95, &ci, err), RIP_S_DATA, "overflows: %s", err);
    cr_assert(ci.lo == -7 && ci.hi == -7, "a refused interval is not written");
}

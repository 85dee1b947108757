/*
** test_finite_fmt.c — the printf of the report and the claims refuses a
** non-finite number (src/io/finite_fmt.c): NaN and the infinities in
** every floating-point conversion, found behind arguments of every other
** kind (so the walk reads them in printf's order), while a finite call
** prints exactly what snprintf prints; and the words SQLite's printf
** writes for them are recognised in text.
*/
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "finite_fmt.h"

/* Every conversion kind before the floating-point one at the end. */
#define MIXED "%5d|%-*s|%-8.3lld|%zu|%.*f|%c|%x|%hhd|%lu|%jd|%td|%#o|%p|%% %Lg|%+.2e|%g"
#define MIXED_ARGS(f1, ld, f2, f3)                                                                        \
    42, 6, "ab", 7LL, (size_t)9, 3, f1, 'z', 255u, (signed char)-3, 123456UL, (intmax_t)-5, (ptrdiff_t)11, 8u, \
        (void *)0, ld, f2, f3

Test(finite_fmt, a_finite_call_prints_what_snprintf_prints)
{
    char got[256], want[256];
    int n = rip_fmt_snprintf(got, sizeof got, MIXED, MIXED_ARGS(3.14159, 2.5L, -1234.5, 0.1));
    int m = snprintf(want, sizeof want, MIXED, MIXED_ARGS(3.14159, 2.5L, -1234.5, 0.1));
    cr_assert_eq(n, m);
    cr_assert_str_eq(got, want);
    cr_assert_eq(rip_fmt_snprintf(got, sizeof got, "%.2f%%", 24.7), 6);
    cr_assert_str_eq(got, "24.70%");
}

Test(finite_fmt, nan_and_infinities_are_refused_wherever_they_stand)
{
    const double bad[] = {NAN, INFINITY, -INFINITY};
    char buf[256];
    for (int i = 0; i < 3; i++) {
        double x = bad[i];
        memset(buf, 'x', sizeof buf);
        cr_expect_eq(rip_fmt_snprintf(buf, sizeof buf, "%.2f", x), RIP_FMT_NONFINITE, "%g", x);
        cr_expect_str_empty(buf);
        cr_expect_eq(rip_fmt_snprintf(buf, sizeof buf, MIXED, MIXED_ARGS(x, 1.0L, 1.0, 1.0)), RIP_FMT_NONFINITE);
        cr_expect_eq(rip_fmt_snprintf(buf, sizeof buf, MIXED, MIXED_ARGS(1.0, (long double)x, 1.0, 1.0)),
                     RIP_FMT_NONFINITE);
        cr_expect_eq(rip_fmt_snprintf(buf, sizeof buf, MIXED, MIXED_ARGS(1.0, 1.0L, x, 1.0)), RIP_FMT_NONFINITE);
        cr_expect_eq(rip_fmt_snprintf(buf, sizeof buf, MIXED, MIXED_ARGS(1.0, 1.0L, 1.0, x)), RIP_FMT_NONFINITE);
        static const char *const convs[] = {"%f", "%F", "%e", "%E", "%g", "%G", "%a", "%A", "%10.3f", "%-+#g"};
        for (size_t k = 0; k < sizeof convs / sizeof convs[0]; k++) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
            cr_expect_eq(rip_fmt_snprintf(buf, sizeof buf, convs[k], x), RIP_FMT_NONFINITE, "%s", convs[k]);
#pragma GCC diagnostic pop
        }
    }
}

Test(finite_fmt, fprintf_writes_nothing_when_it_refuses)
{
    FILE *f = tmpfile();
    cr_assert_not_null(f);
    cr_assert_eq(rip_fmt_fprintf(f, "<rect x=\"%.2f\" y=\"%d\"/>", NAN, 3), RIP_FMT_NONFINITE);
    cr_assert_eq(ftell(f), 0, "something was written");
    cr_assert_eq(rip_fmt_fprintf(f, "<rect x=\"%.2f\" y=\"%d\"/>", 1.5, 3), 22);
    fclose(f);
}

/* A format the walk cannot read is refused: it could not tell which argument is a double. */
Test(finite_fmt, formats_it_cannot_read_are_refused)
{
    char buf[64];
    int n = 0;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat"
#pragma GCC diagnostic ignored "-Wformat-extra-args"
    cr_expect_eq(rip_fmt_snprintf(buf, sizeof buf, "%1$d", 5), RIP_FMT_NONFINITE);
    cr_expect_eq(rip_fmt_snprintf(buf, sizeof buf, "%d%n", 5, &n), RIP_FMT_NONFINITE);
    cr_expect_eq(rip_fmt_snprintf(buf, sizeof buf, "50%"), RIP_FMT_NONFINITE);
#pragma GCC diagnostic pop
    cr_expect_eq(n, 0);
}

Test(finite_fmt, words_of_non_finite_numbers_in_text)
{
    static const char *const yes[] = {"Inf", "-Inf", "ratio Inf to 2", "nan", "NaN%", "(95% CI 22.59-nan%)",
                                      "1.0x INFINITY"};
    static const char *const no[] = {"", "information", "infinite loop", "nanometre", "banana", "in f", "22.59"};
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
        cr_expect(rip_fmt_text_nonfinite(yes[i]), "'%s'", yes[i]);
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
        cr_expect(!rip_fmt_text_nonfinite(no[i]), "'%s'", no[i]);
}

/*
** skip.h — the one skip protocol of the test suites (build.sh counts it):
**   - a whole suite that cannot run exits 77 (meson's SKIP) after one line
**     on stdout, "SUITE: skipped: WHY" (cmsis_missing.c, tflm_missing.c,
**     the qemu and slurm suites' constructors);
**   - one test that cannot run calls rip_skip(FMT, ...): one line on
**     stdout, "SUITE::TEST: skipped: WHY", then Criterion's skip (which by
**     itself prints nothing and counts nothing).
** build.sh's closing line counts both and names them; .ci/run fails on any
** skip it does not expect (with ../shared present, none but the ones it
** lists with their reasons).
*/
#ifndef RIPSIM_TEST_SKIP_H
#define RIPSIM_TEST_SKIP_H

#include <criterion/criterion.h>
#include <stdio.h>

#define rip_skip(...)                                                                                    \
    do {                                                                                                 \
        char rip_skip_why_[4096];                                                                        \
        snprintf(rip_skip_why_, sizeof rip_skip_why_, __VA_ARGS__);                                      \
        printf("%s::%s: skipped: %s\n", criterion_current_test->category, criterion_current_test->name, \
               rip_skip_why_);                                                                           \
        fflush(stdout);                                                                                  \
        cr_skip_test("%s", rip_skip_why_);                                                               \
    } while (0)

#endif

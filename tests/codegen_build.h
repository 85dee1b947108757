/*
** codegen_build.h — what the suites that build generated models
** (test_codegen.c, test_codegen_random.c) share: the source tree, a shell,
** the firmware's compiler flags, the sanitizer flags, and whether the
** Cortex-M0+ toolchain is installed.  Header-only: each suite that
** includes it gets its own copy.
*/
#ifndef RIPSIM_TEST_CODEGEN_BUILD_H
#define RIPSIM_TEST_CODEGEN_BUILD_H

#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "host_model.h"

/* The flags the firmware builds model.c with: firmware/meson.build
** (c_std=c11, warning_level=2, werror, optimization=2) and the Pico's
** CMakeLists.txt (-O2 -Wall -Wextra -Werror); host_model.h's. */
#define CFLAGS HOST_CFLAGS

/* The same for the Cortex-M0+ of firmware/cross/qemu-m0.ini, with
** picolibc and debug information as firmware/meson.build builds it. */
#define CROSS_CFLAGS "-mcpu=cortex-m0plus -mthumb --specs=picolibc.specs -g " CFLAGS

/* The sanitized host build's flags (host_model.h). */
#define SANITIZE HOST_SANITIZE

/* The source tree: RIPSIM_RESULTS_DIR/.. */
static const char *root(void)
{
    static char buf[512];
    const char *res = getenv("RIPSIM_RESULTS_DIR");
    cr_assert_not_null(res, "RIPSIM_RESULTS_DIR must be set");
    snprintf(buf, sizeof buf, "%s/..", res);
    return buf;
}

/* system(cmd) after flushing every stream (so no output is written twice). */
static inline int sh(const char *cmd)
{
    fflush(NULL);
    return system(cmd);
}

/* Is arm-none-eabi-gcc with picolibc installed?  Said once when not. */
static inline bool have_cross(void)
{
    static int have = -1;
    if (have < 0) {
        have = sh("arm-none-eabi-gcc --specs=picolibc.specs -E -x c /dev/null >/dev/null 2>&1") == 0;
        if (!have)
            cr_log_warn("arm-none-eabi-gcc with picolibc not found: no Cortex-M0+ compiles");
    }
    return have;
}

#endif

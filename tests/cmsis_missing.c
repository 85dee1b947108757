/*
** cmsis_missing.c — stands in for the cmsis_peer and cmsis_orders suites when the CMSIS-NN
** tree is absent (tests/meson.build): says where it looked and how to point
** the build elsewhere, and exits 77, which meson reports as SKIP.
*/
#include <stdio.h>

#ifndef RIPSIM_CMSIS_SUITE
#define RIPSIM_CMSIS_SUITE "cmsis_peer"
#endif
#ifndef RIPSIM_CMSIS_NN_PATH
#define RIPSIM_CMSIS_NN_PATH "(unset)"
#endif

int main(void)
{
    printf(RIPSIM_CMSIS_SUITE ": skipped: CMSIS-NN not found at %s (meson option cmsis_nn_path; "
           "meson configure build -Dcmsis_nn_path=DIR)\n", RIPSIM_CMSIS_NN_PATH);
    return 77;
}

/*
** tflm_missing.c — stands in for a suite that needs the TFLite Micro peer
** (tflm_peer, tflm_compare; RIPSIM_TFLM_SUITE names it) when the TFLite
** Micro tree (or g++, which builds it) is absent, or for one that needs a
** cross tool or QEMU (tflm_m33, cmsis_orders_m33) when that is
** (tests/meson.build): one line saying what is missing, and exit 77, which
** meson reports as SKIP.
*/
#include <stdio.h>

#ifndef RIPSIM_TFLM_SUITE
#define RIPSIM_TFLM_SUITE "tflm_peer"
#endif
#ifndef RIPSIM_TFLM_MISSING
#define RIPSIM_TFLM_MISSING "no TFLite Micro tree at (unset)"
#endif

int main(void)
{
    printf("%s: skipped: %s\n", RIPSIM_TFLM_SUITE, RIPSIM_TFLM_MISSING);
    return 77;
}

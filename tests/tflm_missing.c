/*
** tflm_missing.c — stands in for the tflm_peer suite when the TFLite Micro
** tree (or g++, which builds it) is absent (tests/meson.build): one line
** saying what is missing, and exit 77, which meson reports as SKIP.
*/
#include <stdio.h>

#ifndef RIPSIM_TFLM_MISSING
#define RIPSIM_TFLM_MISSING "no TFLite Micro tree at (unset)"
#endif

int main(void)
{
    printf("tflm_peer: skipped: %s\n", RIPSIM_TFLM_MISSING);
    return 77;
}

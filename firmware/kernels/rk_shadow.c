/*
** rk_shadow.c — initial tags of the instrumented kernels' shadow array.
*/
#include <string.h>

#include "rk_shadow.h"

void rk_shadow_init(uint8_t *shadow, int64_t ws_size, int64_t first, int64_t n)
{
    memset(shadow, RK_TAG_FREE, (size_t)ws_size);
    memset(shadow + first, RK_TAG_INPUT, (size_t)n);
}

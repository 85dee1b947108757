/*
** imath.h — integer helpers shared by the planner, the tables and the
** sweep's generator sets.
*/
#ifndef RIPSIM_IMATH_H
#define RIPSIM_IMATH_H

#include <stdint.h>

/* Greatest common divisor of a and b (a, b >= 0; gcd(0, 0) = 0). */
static inline int64_t rip_gcd64(int64_t a, int64_t b)
{
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

#endif

/*
** rk_crc32.c — bitwise CRC-32 IEEE (rk_crc32.h).
*/
#include "rk_crc32.h"

uint32_t rk_crc32_update(uint32_t crc, const void *data, size_t n)
{
    const uint8_t *b = (const uint8_t *)data;
    uint32_t c = ~crc; /* the running register is the complement of the reported value */
    for (size_t i = 0; i < n; i++) {
        c ^= b[i];
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    return ~c;
}

uint32_t rk_crc32(const void *data, size_t n)
{
    return rk_crc32_update(0u, data, n);
}

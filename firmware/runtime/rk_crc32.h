/*
** rk_crc32.h — CRC-32 (IEEE 802.3, the zlib/PNG/Ethernet CRC: reflected
** polynomial 0xEDB88320, initial value and final XOR 0xFFFFFFFF) of a byte
** string: the checksum a generated model reports over its logits.
**
** Portable C11 without libc (only <stddef.h> and <stdint.h>), so the same
** source runs on the host, in the QEMU images and on the Picos.  Bitwise,
** no table: it only ever sees a model's logits (at most a few KB), and it
** costs no flash.  Pinned by tests/test_codegen.c to the standard check
** value crc32("123456789") = 0xCBF43926.
*/
#ifndef RK_CRC32_H
#define RK_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* CRC-32 of n bytes at data (data may be NULL when n is 0). */
uint32_t rk_crc32(const void *data, size_t n);

/* Continue a CRC over more bytes: rk_crc32_update(rk_crc32(a, na), b, nb)
** equals the CRC of a followed by b; rk_crc32_update(0, d, n) == rk_crc32(d, n). */
uint32_t rk_crc32_update(uint32_t crc, const void *data, size_t n);

#endif

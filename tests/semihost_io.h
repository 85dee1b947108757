/*
** semihost_io.h — the transport of the bare-metal test harnesses run in
** QEMU (tests/cmsis_m33/orders_m33.c, tests/kcount/kcount_target.c):
** picolibc's semihosting on QEMU's -semihosting-config target=native,
** standard input and output as the host's pipe (":tt"), one line on
** stderr and an exit status on failure.  Each harness is one translation
** unit that includes this once, defines SEMIHOST_IO_NAME (the prefix of
** its messages) before it, and calls sio_open() first.
*/
#ifndef RIPSIM_SEMIHOST_IO_H
#define RIPSIM_SEMIHOST_IO_H

#include <semihost.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef SEMIHOST_IO_NAME
#error "define SEMIHOST_IO_NAME (the harness's name in its messages) before including semihost_io.h"
#endif

static int sio_in, sio_out, sio_err;

/* Open the host's standard input, output and error. */
static inline void sio_open(void)
{
    sio_in = sys_semihost_open(":tt", SH_OPEN_R);
    sio_out = sys_semihost_open(":tt", SH_OPEN_W);
    sio_err = sys_semihost_open(":tt", SH_OPEN_A);
}

/* One line "NAME: what (a, b)" on QEMU's stderr, then exit with status. */
static inline void fail(int status, const char *what, long long a, long long b)
{
    char line[200];
    const int n = snprintf(line, sizeof line, SEMIHOST_IO_NAME ": %s (%lld, %lld)\n", what, a, b);
    sys_semihost_write(sio_err, line, (uintptr_t)(n < (int)sizeof line ? n : (int)sizeof line - 1));
    exit(status);
}

/* Read exactly n bytes from standard input (n = 0: nothing); false at the end of the stream. */
static inline bool get(void *p, size_t n)
{
    uint8_t *b = p;
    while (n > 0) {
        const size_t got = n - (size_t)sys_semihost_read(sio_in, b, n);
        if (got == 0)
            return false;
        b += got;
        n -= got;
    }
    return true;
}

#endif

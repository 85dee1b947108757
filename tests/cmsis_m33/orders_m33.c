/*
** orders_m33.c — the bare-metal harness of the cmsis_orders_m33 suite
** (tests/test_cmsis_orders_m33.c): CMSIS-NN's int8 kernels as the Cortex-M33
** build of TFLM runs them (arm-none-eabi-gcc -mcpu=cortex-m33, so
** __ARM_FEATURE_DSP and CMSIS-NN's ARM_MATH_DSP), in QEMU's mps2-an505,
** running the kernel-order jobs of korder_job.h exactly as the host suite
** runs them in process (cmsis_kernels.h's ck_run_job).
**
** Transport: semihosting with QEMU's -semihosting-config target=native and
** no chardev: the guest's ":tt" opened for reading is QEMU's own stdin, for
** writing its stdout, for appending its stderr (host file descriptors 0, 1,
** 2), so a pipe to QEMU streams jobs in and answers out, SYS_READ and
** SYS_WRITE moving whole blocks.  (With -chardev stdio the chardev owns
** QEMU's stdin, non-blocking, and the guest's reads of ":tt" return
** nothing.)  Exit status through semihosting: 0 at the end of the stream,
** 65 on a malformed job, 70 when a kernel refuses a job, 71 when memory
** runs out, 74 when the answer cannot be written; the reason on stderr.
*/
#include <stdio.h>
#include <stdlib.h>

#define SEMIHOST_IO_NAME "orders_m33"
#include "semihost_io.h"
#include "cmsis_kernels.h"

/* n bytes of memory, or exit 71. */
static void *room(int64_t n)
{
    void *p = malloc((size_t)(n > 0 ? n : 1));
    if (p == NULL)
        fail(71, "out of memory", (long long)n, 0);
    return p;
}

int main(void)
{
    sio_open();
    for (;;) {
        int64_t h[KJ_FIELDS];
        if (!get(h, sizeof h))
            return 0;
        if (!kj_valid(h) || h[F_KIND] == KV_QUANT)
            fail(65, "malformed job header (kind, input bytes)", (long long)h[F_KIND], (long long)kj_n_in(h));
        const int64_t n_in = kj_n_in(h), n_out = kj_n_out(h), n_ch = h[F_N_CH];
        const int64_t n_other = h[F_KIND] == KV_ADD ? h[F_N_ELEM] : 0;
        int8_t *filter = room(h[F_N_FILTER]), *in = room(n_in), *other = room(n_other), *out = room(n_out);
        int32_t *bias = room(4 * n_ch), *mult = room(4 * n_ch), *shift = room(4 * n_ch);
        if (!get(filter, (size_t)h[F_N_FILTER]) || !get(bias, 4 * (size_t)n_ch) || !get(mult, 4 * (size_t)n_ch) ||
            !get(shift, 4 * (size_t)n_ch) || !get(in, (size_t)n_in) || !get(other, (size_t)n_other))
            fail(65, "job cut short (kind, gap)", (long long)h[F_KIND], (long long)h[F_GAP]);
        const ck_values v = { .filter = filter, .other = other, .bias = bias, .mult = mult, .shift = shift };
        int32_t buf_size = 0;
        const int st = ck_run_job(h, &v, in, out, &buf_size);
        if (st == CK_NO_MEMORY)
            fail(71, "out of memory (scratch bytes, output bytes)", (long long)buf_size, (long long)n_out);
        if (st != ARM_CMSIS_NN_SUCCESS)
            fail(70, "the kernel refused the job (kind, status)", (long long)h[F_KIND], (long long)st);
        if (sys_semihost_write(sio_out, out, (uintptr_t)n_out) != 0)
            fail(74, "answer not written (output bytes, 0)", (long long)n_out, 0);
        free(filter);
        free(in);
        free(other);
        free(out);
        free(bias);
        free(mult);
        free(shift);
    }
}

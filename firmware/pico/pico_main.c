/*
** pico_main.c — the firmware main of one generated model on a Raspberry Pi
** Pico (RP2040) or Pico 2 (RP2350): USB stdio, then forever: run one
** inference, print one line with the model, plan, arena, status, CRC-32 of
** the logits and its cost, wait two seconds.  Repeating lets a terminal
** that opens the port late still see it; every run computes the same line.
**
** Cost: on RP2350 the DWT cycle counter (CPU cycles of the inference); on
** RP2040, which has no cycle counter, time_us_64() (microseconds).
*/
#include <stdio.h>

#include "pico/stdlib.h"
#include "rk_model.h"
#if PICO_RP2350
#include "hardware/structs/m33.h"
#endif

/* Cost of one rk_model_run(): *status its return value (0 = ran).
** Returns cycles (RP2350) or microseconds (RP2040). */
static uint64_t timed_run(int *status)
{
#if PICO_RP2350
    m33_hw->demcr |= M33_DEMCR_TRCENA_BITS;
    m33_hw->dwt_cyccnt = 0;
    m33_hw->dwt_ctrl |= M33_DWT_CTRL_CYCCNTENA_BITS;
    uint32_t t0 = m33_hw->dwt_cyccnt;
    *status = rk_model_run();
    /* 32-bit counter: modular difference, exact below 2^32 cycles (28 s at 150 MHz). */
    return (uint32_t)(m33_hw->dwt_cyccnt - t0);
#else
    uint64_t t0 = time_us_64();
    *status = rk_model_run();
    return time_us_64() - t0;
#endif
}

int main(void)
{
    stdio_init_all();
    /* Wait up to 10 s for a host to open the USB serial port. */
    for (int i = 0; i < 100 && !stdio_usb_connected(); i++)
        sleep_ms(100);
    for (unsigned run = 1;; run++) {
        int status = 0;
        uint64_t cost = timed_run(&status);
        printf("ripsim-pico run=%u model=%s plan=%s arena_bytes=%lu scratch_bytes=%lu status=%d "
               "checksum=%08lx %s=%llu\n",
               run, rk_model.name, rk_model.plan, (unsigned long)rk_model.arena_bytes,
               (unsigned long)rk_model.scratch_bytes, status, (unsigned long)rk_model_checksum(),
#if PICO_RP2350
               "cycles",
#else
               "time_us",
#endif
               (unsigned long long)cost);
        sleep_ms(2000);
    }
}

/*
** main.c — the program of every QEMU image (and of the host build of the
** self-test models): run the linked model once, print one line
**   model=<name> plan=<plan> checksum=<8 hex> arena=<bytes>
** and return the model's status (0, or 1 + the index of the operator whose
** kernel refused its parameters).  Under QEMU, picolibc's semihosting crt0
** calls exit(main()), so the status becomes QEMU's exit code.
**
** The line is printed even when the run failed, so a failing image still
** says which model it was; the caller trusts the checksum only on status 0.
*/
#include <stdio.h>

#include "rk_model.h"

int main(void)
{
    const int status = rk_model_run();
    printf("model=%s plan=%s checksum=%08lx arena=%lu\n", rk_model.name, rk_model.plan,
           (unsigned long)rk_model_checksum(), (unsigned long)rk_model.arena_bytes);
    return status;
}

/*
** codegen_host_main.c — runs one generated model (`ripsim codegen`) on the
** host, for tests/test_codegen.c: compiled with the model's model.c and
** model_blob.S, the runtime sources (firmware/runtime) and the kernel
** sources.
**
** Prints, one per line: "model NAME PLAN", "arena N", "scratch N",
** "status S" (rk_model_run's return), "checksum XXXXXXXX" and
** "logits v0 v1 ..." (all n_logits bytes, signed); exits with the run's
** status (0 when every kernel accepted its parameters).
*/
#include <stdio.h>

#include "rk_model.h"

int main(void)
{
    int status = rk_model_run();
    printf("model %s %s\narena %u\nscratch %u\nstatus %d\n", rk_model.name, rk_model.plan,
           (unsigned)rk_model.arena_bytes, (unsigned)rk_model.scratch_bytes, status);
    printf("checksum %08x\nlogits", (unsigned)rk_model_checksum());
    const int8_t *y = rk_model_output();
    for (uint32_t i = 0; i < rk_model.n_logits; i++)
        printf(" %d", y[i]);
    printf("\n");
    return status != 0 || ferror(stdout) ? 1 : 0;
}

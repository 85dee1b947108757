/*
** host_model.h — building a generated model (`ripsim codegen`) on the host
** with the firmware's warning flags, for the suites that run them
** (tests/test_codegen.c, tests/test_codegen_tflite.c): the kernels and
** runtime compiled once into a folder of objects, then each model's
** model.c and model_blob.S linked with tests/codegen_host_main.c against
** them.  Header-only; paths may not hold single quotes.
*/
#ifndef RIPSIM_TEST_HOST_MODEL_H
#define RIPSIM_TEST_HOST_MODEL_H

#include <stdio.h>
#include <stdlib.h>

#define HOST_CFLAGS "-std=c11 -O2 -Wall -Wextra -Werror"

/* Flags of the sanitized host build: an access outside the arena (a
** global with red zones) or any undefined behaviour stops the model. */
#define HOST_SANITIZE "-fsanitize=address,undefined -fno-sanitize-recover=all -g"

/* Every .c file of firmware/kernels and firmware/runtime of the tree at root,
** compiled with HOST_CFLAGS and extra into the folder k (made); the
** shell's status. */
static inline int host_compile_kernels(const char *root, const char *k, const char *extra)
{
    char cmd[3000];
    snprintf(cmd, sizeof cmd,
             "mkdir -p '%s' && cd '%s' && cc " HOST_CFLAGS " %s -c -I '%s/firmware/kernels' -I '%s/firmware/runtime' "
             "'%s'/firmware/kernels/*.c '%s'/firmware/runtime/*.c",
             k, k, extra, root, root, root, root);
    fflush(NULL);
    return system(cmd);
}

/* The model in dir linked with the host main and the objects of k into
** exe, the compiler's messages into log; the shell's status. */
static inline int host_build_model(const char *root, const char *dir, const char *k, const char *extra,
                                   const char *exe, const char *log)
{
    char cmd[4000];
    snprintf(cmd, sizeof cmd,
             "cc " HOST_CFLAGS " %s -I '%s/firmware/kernels' -I '%s/firmware/runtime' -Wa,-I,'%s' '%s/model.c' "
             "'%s/model_blob.S' '%s/tests/codegen_host_main.c' '%s'/*.o -o '%s' 2>'%s'",
             extra, root, root, dir, dir, dir, root, k, exe, log);
    fflush(NULL);
    return system(cmd);
}

#endif

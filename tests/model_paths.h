/*
** model_paths.h — the real models the kernel-order suites walk:
** person_detect in the TFLM tree (RIPSIM_TFLM_PATH) and every .tflite one
** level under the models folder (RIPSIM_MODELS_PATH), in directory order.
*/
#ifndef RIPSIM_MODEL_PATHS_H
#define RIPSIM_MODEL_PATHS_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Call fn(path, ctx) for each model; returns how many were visited. */
static long each_model(void (*fn)(const char *path, void *ctx), void *ctx)
{
    long models = 0;
    char path[8400];
    const char *tflm = getenv("RIPSIM_TFLM_PATH"), *root = getenv("RIPSIM_MODELS_PATH");
    if (tflm) {
        snprintf(path, sizeof path, "%s/tflite-micro/tensorflow/lite/micro/models/person_detect.tflite", tflm);
        fn(path, ctx);
        models++;
    }
    DIR *top = root ? opendir(root) : NULL;
    struct dirent *a;
    while (top && (a = readdir(top)) != NULL) {
        if (a->d_name[0] == '.')
            continue;
        char dir[4200];
        snprintf(dir, sizeof dir, "%s/%s", root, a->d_name);
        DIR *sub = opendir(dir);
        struct dirent *b;
        while (sub && (b = readdir(sub)) != NULL) {
            const size_t len = strlen(b->d_name);
            if (len < 8 || strcmp(b->d_name + len - 7, ".tflite") != 0)
                continue;
            snprintf(path, sizeof path, "%s/%s", dir, b->d_name);
            fn(path, ctx);
            models++;
        }
        if (sub)
            closedir(sub);
    }
    if (top)
        closedir(top);
    return models;
}

#endif

/*
** args.c — option helpers shared by the subcommands (see args.h).
*/
#include "args.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

bool rip_arg_value(int argc, char **argv, int *i, const char *name, const char **value)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, name, n) != 0)
        return false;
    if (a[n] == '=') {
        *value = a + n + 1;
        return true;
    }
    if (a[n] != '\0')
        return false;
    *value = *i + 1 < argc ? argv[++*i] : NULL;
    return true;
}

bool rip_arg_int(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
    if (s == NULL || *s == '\0')
        return false;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (*end != '\0' || errno == ERANGE || v < lo || v > hi)
        return false;
    *out = (int64_t)v;
    return true;
}

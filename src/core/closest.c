/*
** closest.c — the name closest to a mistyped word (closest.h), for the
** "did you mean" of the command line and of the generator set parser.
*/
#include "closest.h"

#include <string.h>

/* Edit distance (insertions, deletions, substitutions, and swaps of two
** neighbouring letters) of a[0..la) and b[0..lb), or RIP_CLOSEST_FAR when it
** is more than 3 or either word is too long. */
#define RIP_CLOSEST_FAR 99
static int edit_distance(const char *a, size_t la, const char *b, size_t lb)
{
    enum { MAXW = 48 };
    if (la >= MAXW || lb >= MAXW || (la > lb ? la - lb : lb - la) > 3)
        return RIP_CLOSEST_FAR;
    int d[3][MAXW]; /* rows i-2, i-1 and i, by i % 3 */
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        int *row = d[i % 3], *prev = d[(i - 1) % 3], *prev2 = d[(i + 1) % 3];
        row[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int best = prev[j - 1] + (a[i - 1] != b[j - 1]);
            if (prev[j] + 1 < best)
                best = prev[j] + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && prev2[j - 2] + 1 < best)
                best = prev2[j - 2] + 1;
            row[j] = best;
        }
    }
    int r = d[la % 3][lb];
    return r > 3 ? RIP_CLOSEST_FAR : r;
}

const char *rip_closest(const char *word, size_t len, const char *const *names, size_t n)
{
    const char *best = NULL;
    int best_d = RIP_CLOSEST_FAR;
    for (size_t k = 0; k < n; k++) {
        size_t ln = strlen(names[k]);
        /* a unique-looking prefix ("--exec" for "--execute") counts as close */
        int d = ln > len && len >= 4 && strncmp(names[k], word, len) == 0 ? 1 : edit_distance(word, len, names[k], ln);
        /* close means at most a third of the longer word is wrong */
        size_t longer = ln > len ? ln : len;
        if (d < best_d && (size_t)d * 3 <= longer) {
            best = names[k];
            best_d = d;
        }
    }
    return best;
}


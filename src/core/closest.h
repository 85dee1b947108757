/*
** closest.h — the name closest to a mistyped word, for "did you mean".
*/
#ifndef RIPSIM_CLOSEST_H
#define RIPSIM_CLOSEST_H

#include <stddef.h>

/*
** The name among names[0..n) closest to word[0..len): at most three
** letters inserted, dropped, changed or two neighbours swapped, and at
** most a third of the longer word, or word a prefix (of 4 letters or more)
** of it.  NULL when none is close.
*/
const char *rip_closest(const char *word, size_t len, const char *const *names, size_t n);

#endif

/*
** nonfinite_words.h — how a non-finite number reads once printf has
** formatted it: the words "nan", "inf" or "infinity" (any case, glibc's
** and SQLite's spellings), standing alone or after a sign or digit, never
** inside a longer word ("information").  Header-only, for the suites that
** hold a report or claims file to "no NaN is ever printed".
*/
#ifndef RIPSIM_TEST_NONFINITE_WORDS_H
#define RIPSIM_TEST_NONFINITE_WORDS_H

#include <ctype.h>
#include <stddef.h>
#include <strings.h>

/* The first non-finite word in s, or NULL. */
static const char *first_nonfinite_word(const char *s)
{
    for (const char *p = s; *p;) {
        if (!isalpha((unsigned char)*p)) {
            p++;
            continue;
        }
        const char *w = p;
        while (isalpha((unsigned char)*p))
            p++;
        size_t n = (size_t)(p - w);
        if ((n == 3 && (strncasecmp(w, "nan", 3) == 0 || strncasecmp(w, "inf", 3) == 0)) ||
            (n == 8 && strncasecmp(w, "infinity", 8) == 0))
            return w;
    }
    return NULL;
}

#endif

/*
** nonfinite_words.h — how a non-finite number reads once printf has
** formatted it: the words "nan", "inf" or "infinity" (any case, glibc's
** and SQLite's spellings), standing alone or after a sign or digit, never
** inside a longer word ("information").  Header-only, for the suites that
** hold a report or claims file to "no NaN is ever printed"; a POSIX
** regular expression, not the library's own word scan (finite_fmt.c).
*/
#ifndef RIPSIM_TEST_NONFINITE_WORDS_H
#define RIPSIM_TEST_NONFINITE_WORDS_H

#include <regex.h>
#include <stddef.h>

/* The first non-finite word in s (at most 60 characters of its context
** when quoted with %.60s), or NULL. */
static const char *first_nonfinite_word(const char *s)
{
    regex_t re;
    if (regcomp(&re, "(^|[^[:alpha:]])(nan|inf|infinity)([^[:alpha:]]|$)", REG_EXTENDED | REG_ICASE) != 0)
        return s;   /* cannot check: report the whole text */
    regmatch_t m[3];
    const char *hit = regexec(&re, s, 3, m, 0) == 0 ? s + m[2].rm_so : NULL;
    regfree(&re);
    return hit;
}

#endif

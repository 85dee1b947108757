/*
** json_out.h — a string as a JSON string literal, for the commands' --json
** output of text they did not write (names read from a model file).
*/
#ifndef RIPSIM_JSON_OUT_H
#define RIPSIM_JSON_OUT_H

#include <stdio.h>

/*
** Write s as a quoted JSON string to f: '"' and '\' escaped, control bytes
** as \u00XX, well-formed UTF-8 kept, every byte of a malformed sequence
** as U+FFFD, so the output is valid JSON whatever the bytes.
*/
void rip_json_string(FILE *f, const char *s);

#endif

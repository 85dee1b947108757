/*
** svg_png.c — rsvg-convert as a child process (svg_png.h).
*/
#include "svg_png.h"

#include <errno.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

rip_status rip_svg_to_png(const char *svg_path, FILE *png, char err[RIP_ERR_LEN])
{
    if (fflush(png) != 0) {
        snprintf(err, RIP_ERR_LEN, "cannot write the PNG: %s", strerror(errno));
        return RIP_S_IO;
    }
    /* to standard output: with -o FILE, rsvg-convert writes .goutputstream-XXXXXX
    ** beside FILE and renames it, a file left behind when it is killed */
    pid_t pid = fork();
    if (pid == 0) {
        if (dup2(fileno(png), STDOUT_FILENO) >= 0)
            execlp("rsvg-convert", "rsvg-convert", svg_path, (char *)NULL);
        _exit(127);
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) < 0) {
        snprintf(err, RIP_ERR_LEN, "cannot run rsvg-convert: %s", strerror(errno));
        return RIP_S_IO;
    }
    if (WIFEXITED(st) && WEXITSTATUS(st) == 127) {
        snprintf(err, RIP_ERR_LEN, "rsvg-convert is not installed (Debian: librsvg2-bin)");
        return RIP_S_UNAVAILABLE;
    }
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        snprintf(err, RIP_ERR_LEN, "rsvg-convert failed (%s %d)", WIFEXITED(st) ? "exit status" : "signal",
                 WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
        return RIP_S_IO;
    }
    return RIP_OK;
}

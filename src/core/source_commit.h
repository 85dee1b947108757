/*
** source_commit.h — the source commit this ripsim was built from: `git
** describe --always --dirty --abbrev=12` of the source tree when meson
** built it, "unknown" outside git (src/meson.build, vcs_tag).  Recorded in
** runs.source_commit and in run_log's start and resume events.
*/
#ifndef RIPSIM_SOURCE_COMMIT_H
#define RIPSIM_SOURCE_COMMIT_H

extern const char rip_source_commit[];

#endif

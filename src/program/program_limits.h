/*
 * program_limits — the sizes program mode picks when a CallConfig says
 * "default" (0), each with where its bound comes from.
 */
#ifndef SIMPLER_PROGRAM_PROGRAM_LIMITS_H
#define SIMPLER_PROGRAM_PROGRAM_LIMITS_H

#include "common/task_args_check.h"
#include "graph/graph_limits.h"

/* Host build scratch starts at GRAPH_DEFAULT_TASK_WINDOW tasks and
 * doubles (up to PROGRAM_REGROW_WINDOW_MAX) whenever a program-mode
 * build runs out of room. */
/* Automatic regrowth stops here: 65536 tasks cost about 100 MiB of host
 * scratch, and an orchestration that keeps submitting would otherwise
 * double its way to GRAPH_TASK_WINDOW_MAX (gigabytes). A CallConfig
 * task_window above it is still honoured as asked. */
#define PROGRAM_REGROW_WINDOW_MAX 65536u
/* Program mode does not cap the graph heap or the staged bytes on the
 * host: the device allocation is the real bound (-1007 when it fails). */
#define PROGRAM_BUILD_BYTES_MAX CALL_CONFIG_HEAP_BYTES_MAX

_Static_assert(PROGRAM_REGROW_WINDOW_MAX <= GRAPH_TASK_WINDOW_MAX, "regrowth stays a valid window");

#endif

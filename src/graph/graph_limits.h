/*
 * graph_limits — the capacities of one host graph build.
 *
 * A build runs on scratch storage sized once from these numbers, so the
 * hot path (task append, TensorMap access) never allocates. Exceeding any
 * of them fails the build with PTO_RUNTIME_ERR_CAPACITY_EXCEEDED (-1004).
 */
#ifndef SIMPLER_GRAPH_LIMITS_H
#define SIMPLER_GRAPH_LIMITS_H

#include <stdint.h>

/* Largest task window: CallConfig.task_window's bound
 * (CALL_CONFIG_TASK_WINDOW_MAX, asserted equal in graph_limits.c). */
#define GRAPH_TASK_WINDOW_MAX (1u << 20)
/* The task window of both modes when nothing asks for one (a CallConfig
 * or CONFIGURE task_window of 0): 256 tasks cost about 100 KiB of host
 * scratch. Program mode grows from it; kernel mode freezes it. */
#define GRAPH_DEFAULT_TASK_WINDOW 256u
/* Defaults per task of the window for the pools whose use depends on the
 * program: arguments, dependency edges and TensorMap reader records.
 * Chains, fans and layered graphs use 2-4 of each per task on average. */
#define GRAPH_ARGS_PER_TASK 8u
#define GRAPH_EDGES_PER_TASK 8u
#define GRAPH_READERS_PER_TASK 16u
/* Intermediates and staged host tensors are placed 1024-aligned. */
#define GRAPH_HEAP_ALIGN 1024u

typedef struct graph_limits {
    uint32_t task_max;       /* tasks in one graph, 1..GRAPH_TASK_WINDOW_MAX */
    uint32_t arg_max;        /* tensor and scalar arguments over all tasks, >= 1 */
    uint32_t edge_max;       /* dependency edges, >= 1 */
    uint32_t reader_max;     /* TensorMap reader records, >= 1 */
    uint64_t heap_bytes_max; /* graph heap for intermediates */
    uint64_t temp_bytes_max; /* retained temp for staged HOST tensors */
} graph_limits;

/* Fills *out for a task window (1..GRAPH_TASK_WINDOW_MAX) with the
 * per-task defaults above and the given byte budgets. Returns 0, or
 * PTO_RUNTIME_ERR_INVALID_ARGUMENT for a window out of range (*out unchanged). */
int graph_limits_for_window(uint32_t task_window, uint64_t heap_bytes_max, uint64_t temp_bytes_max,
                            graph_limits *out);

/* 0 when every field is in range, else PTO_RUNTIME_ERR_INVALID_ARGUMENT. */
int graph_limits_check(const graph_limits *limits);

#endif

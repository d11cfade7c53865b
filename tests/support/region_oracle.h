/*
 * region_oracle — a brute-force model of the host build's dependencies,
 * shared by the edge oracle test (tests/unit/graph) and the task-argument
 * fuzz target (tests/fuzz). It knows nothing of the TensorMap.
 *
 * A program is a list of tasks; each task passes views of tensors: the
 * caller's (argument index k), or heap tensors its orchestration creates
 * (RO_HEAP_TENSORS of RO_HEAP_ELEMS float32). Every tensor the program
 * names is given a place in one byte universe (RO_CELLS bytes): the
 * caller's DEVICE tensors where their addresses say (so overlapping
 * buffers overlap there), each staged HOST tensor and each heap tensor a
 * range of its own. A view covers the bytes from its first element to
 * its last (strided views included, gaps and all).
 *
 * Task j depends on task i < j when some byte is accessed by both, at
 * least one of them writes it, and no task between them writes it (a
 * write hides what came before it; reads do not): RAW, WAW and WAR over
 * byte ranges. Two tasks conflict when some byte is accessed by both and
 * at least one writes it; every conflicting pair must be ordered by the
 * edges, transitively.
 *
 * No cmocka here: the fuzz targets link it too.
 */
#ifndef SIMPLER_TEST_REGION_ORACLE_H
#define SIMPLER_TEST_REGION_ORACLE_H

#include <stddef.h>
#include <stdint.h>

#include "graph/graph_build.h"
#include "simpler/orchestration.h"

#define RO_TASKS_MAX 40u
#define RO_ARGS_MAX 5u
#define RO_CALLERS_MAX 8u
#define RO_HEAP_TENSORS 4u
#define RO_HEAP_ELEMS 16u /* float32: 64 bytes each */
#define RO_CELLS 2048u    /* bytes of the universe */
#define RO_WORDS (RO_CELLS / 64u)

typedef struct ro_arg {
    uint8_t tensor; /* caller index, or caller_count + heap index */
    uint8_t tag;
    uint8_t dims;   /* 1, or 2: shape [rows, cols], strides [stride, 1] */
    uint32_t start; /* start_offset, elements */
    uint32_t rows, cols, stride;
} ro_arg;

typedef struct ro_task {
    uint32_t arg_count;
    int scalar; /* a scalar argument after the tensors */
    ro_arg args[RO_ARGS_MAX];
} ro_task;

/* Where a tensor's element 0 lies in the universe, and its element size
 * and count. */
typedef struct ro_place {
    uint32_t cell_base;
    uint32_t elem_bytes;
    uint32_t elems;
} ro_place;

typedef struct ro_prog {
    uint32_t caller_count; /* the call must pass exactly this many tensors */
    ro_place places[RO_CALLERS_MAX + RO_HEAP_TENSORS];
    uint32_t task_count;
    ro_task tasks[RO_TASKS_MAX];
} ro_prog;

/* The bytes a task reads and writes. */
typedef struct ro_cells {
    uint64_t read[RO_WORDS];
    uint64_t write[RO_WORDS];
} ro_cells;

/* The program ro_orch submits; set before each build. */
extern const ro_prog *ro_current;

/* An orchestration entry that submits *ro_current: the heap tensors
 * first, then each task's views of the caller's and heap tensors (kernel
 * 0, AIV). Returns 0, or a negative step number (-1 caller tensors,
 * -2 heap, -3 args_begin, -4 add_tensor, -5 scalar, -6 submit) at the
 * first refused call. */
int ro_orch(SimplerOrch *orch, const ChipStorageTaskArgs *args);

/* Fills the places of the heap tensors (after the callers') from
 * `heap_base`, each RO_HEAP_ELEMS float32. */
void ro_place_heap(ro_prog *p, uint32_t heap_base);

/* A random program over p's places (caller_count and places set): 1 to
 * RO_TASKS_MAX tasks of 1 to RO_ARGS_MAX views each (whole tensors,
 * quarters that touch, slices, 2-D strided blocks, regions repeated from
 * earlier arguments), inputs twice as likely as each other tag, every
 * tag the tensor's kind allows. `rng` is the generator's state. */
void ro_random_prog(uint64_t *rng, ro_prog *p);

/* The universe bytes [*lo, *hi) argument `a` covers. Returns 0, or -1
 * when they do not lie inside the universe. */
int ro_arg_cells(const ro_prog *p, const ro_arg *a, uint32_t *lo, uint32_t *hi);

/* The bytes task `t` reads and writes. Returns 0 or -1 (ro_arg_cells). */
int ro_task_cells(const ro_prog *p, const ro_task *t, ro_cells *c);

/* Does task j depend on task i (i < j)? cells[0..j] of the program. */
int ro_edge(const ro_cells *cells, uint32_t i, uint32_t j);

/* Do tasks i and j conflict (a common byte, one of them writing it)? */
int ro_conflict(const ro_cells *ci, const ro_cells *cj);

/* What ro_check_graph found. */
typedef struct ro_report {
    uint32_t edges;    /* the oracle's edges */
    uint32_t war;      /* of them, edges where i only read what j writes */
    uint32_t conflicts;
    char why[256];     /* the first mismatch, "" when none */
} ro_report;

/* Compares graph `g`, built from `p`, with the oracle: the task count;
 * every conflicting pair ordered through the build's edges (directly or
 * transitively); then every task's predecessor list exactly the
 * oracle's (ascending, no edge missing, none extra, none twice) and the
 * edge count. `cells`
 * has room for p->task_count entries. Returns 0, or -1 with r->why
 * naming the first mismatch. */
int ro_check_graph(const ro_prog *p, const graph *g, ro_cells *cells, ro_report *r);

#endif

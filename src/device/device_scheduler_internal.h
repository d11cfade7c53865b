/*
 * device_scheduler_internal — the AICPU scheduler's state and the steps
 * of its loop, shared by device_scheduler.c and its unit test
 * (test_device_dispatch.c), which drives dispatch, completion and
 * stall handling on a hand-built state.
 */
#ifndef SIMPLER_DEVICE_SCHEDULER_INTERNAL_H
#define SIMPLER_DEVICE_SCHEDULER_INTERNAL_H

#include <stdint.h>

#include "device/device_handshake.h"
#include "device/device_ready_queue.h"
#include "device/device_run_desc.h"
#include "graph/graph_image.h"
#include "graph/requirements.h"

typedef struct device_sched device_sched;

/* Tasks shorter than this stay on the cores already serving them: a
 * later core of the type gets tasks only when a core takes this long
 * per task. Tasks that short finish within a few cache-line hand-offs of
 * each other, so a second core buys little and costs its own hand-offs;
 * and on simdev the AICore threads share the AICore CPUs, so a second
 * busy core slows the first. */
#define DEVICE_GATHER_NS 2000u
/* A core's time per task is measured over windows of this many
 * completions: one clock read per window, as a read per task costs
 * more than a short task. */
#define DEVICE_MEASURE_TASKS 32u

/* What a wait that saw no completion for a spin decides. */
enum { SPIN_ON, SPIN_RESTART, SPIN_STALL };

/* What a test substitutes: the clock measure reads and dispatch's
 * reading of a core's sleeping flag. Production leaves hooks NULL, so
 * the hot path pays one predictable branch, not an indirect call. */
typedef struct device_sched_hooks {
    uint64_t (*now)(void);
    int (*asleep)(device_sched *s, uint32_t core);
} device_sched_hooks;

struct device_sched {
    const device_run_desc *d;
    const graph_image_task *tasks;
    const uint32_t *fanout;
    /* Each task's chain successor + 1 (graph_image_chain_next), as the
     * image check left it in the AIC queue's ring: read by seeding only,
     * each entry before that ring's push that may overwrite it. */
    const uint32_t *chains;
    device_runtime_header *rt;
    device_ready_queue *queue[GRAPH_READY_QUEUE_COUNT]; /* by core type */
    uint32_t cores;
    uint32_t completed;
    uint32_t in_flight;                /* posted, completion not consumed */
    uint32_t depth;                    /* tasks a core may hold: 1 .. DEVICE_SLOT_RING */
    int stalled;                       /* no completion since the last stall */
    uint32_t posted[DEVICE_CORE_MAX];  /* our copy of each slot's posted */
    uint32_t seen[DEVICE_CORE_MAX];    /* completions consumed per core */
    uint64_t window_start[DEVICE_CORE_MAX]; /* clock at the core's measuring window start; 0 none yet */
    uint32_t window_done[DEVICE_CORE_MAX];  /* completions in that window */
    uint64_t task_ns;                  /* latest time per task of a core; 0 until measured */
    uint32_t ahead[DEVICE_CORE_MAX];   /* chain successor of the core's last posted task, + 1; 0 none */
    uint32_t heads[GRAPH_READY_QUEUE_COUNT]; /* by core type: tasks that are no chain successor */
    uint8_t retired[DEVICE_CORE_MAX];  /* 1: told to leave at the start, never served */
    uint8_t arrived[DEVICE_CORE_MAX];  /* 1 once the core's slot said so: it stays so this execution */
    const device_sched_hooks *hooks;   /* tests only: NULL reads the real flags and clock */
};

/* Resets task state (with each task's chain successor, from
 * device_sched.chains) and the ready queues, queues the tasks with no
 * predecessor and counts each type's chain heads (device_sched.heads).
 * Task i's chain entry is read before the push of task i, which writes
 * the AIC ring at a slot <= i: the entries may live in that ring. */
void device_sched_seed(device_sched *s);
/* Tells the cores the graph can never keep busy to leave (seeded). */
void device_sched_retire(device_sched *s);
/* Whether `core`'s block has started (remembered once seen). */
int device_sched_core_arrived(device_sched *s, uint32_t core);
/* Whether `core` sleeps or has not arrived: dispatch serves it as asleep. */
int device_sched_core_asleep(device_sched *s, uint32_t core);
/* Whether a core holding `held` tasks of at most `limit` is refilled:
 * once a quarter of `limit` (at least one) is free. */
int device_sched_wants_refill(uint32_t held, uint32_t limit);
/* Tasks a core may hold when the next is its chain's: a whole ring
 * while tasks are short (below DEVICE_GATHER_NS), else `depth`. */
uint32_t device_sched_chain_limit(const device_sched *s);
/* One dispatch pass (device_scheduler.c says the policy). */
void device_sched_dispatch(device_sched *s);
/* The first pass, then the announcement cores wait for before sleeping. */
void device_sched_announce_dispatch(device_sched *s);
/* Counts `n` completions of `core` into its measuring window. */
void device_sched_measure(device_sched *s, uint32_t core, uint32_t n);
/* Consumes every completion the cores published; returns how many. */
uint32_t device_sched_collect(device_sched *s);
/* A wait stalled: depth halves, and tasks are marked long. */
void device_sched_stall(device_sched *s);
/* A SPIN_* value; *late is set when a late core holds tasks. */
int device_sched_spin_verdict(device_sched *s, int *late);

#endif

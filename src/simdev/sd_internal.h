/*
 * sd_internal.h — simdev's private state, shared by the files of src/simdev.
 *
 * Locking, outermost first:
 *   sd_g.lock   process state: registries, HBM heaps, capture sessions,
 *               graphs under construction, event capture records;
 *   stream->mu  one stream's op ring, fault and completion counters;
 *   sd_g.ev_mu  eager event state (sequence numbers, references);
 *   pool->mu, graph->mu   engine pools and graph replays.
 * Stream workers, engine threads and graph runner threads never take
 * sd_g.lock, so an API call may hold it while it joins or signals them.
 * A caller that must block on device progress drops sd_g.lock and keeps
 * the object alive with a hold (stream->holds) or a reference (event->refs,
 * graph->pending).
 */
#ifndef SIMPLER_SIMDEV_SD_INTERNAL_H
#define SIMPLER_SIMDEV_SD_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "simpler/simdev.h"

/* ---- small pointer vector (registries, session members) ---- */
struct sd_vec {
    void **items;
    size_t count;
    size_t cap;
};
int sd_vec_reserve(struct sd_vec *v, size_t extra);  /* 0 or MEMORY_ALLOCATION */
void sd_vec_push(struct sd_vec *v, void *item);     /* after a successful reserve */
int sd_vec_has(const struct sd_vec *v, const void *item);
void sd_vec_remove(struct sd_vec *v, const void *item);
void sd_vec_deinit(struct sd_vec *v);

/* ---- node-id sets (capture frontiers, node dependencies) ---- */
struct sd_ids {
    uint32_t *ids;
    uint32_t count;
    uint32_t cap;
};
int sd_ids_add(struct sd_ids *set, uint32_t id);          /* ignores duplicates */
int sd_ids_union(struct sd_ids *set, const struct sd_ids *other);
int sd_ids_copy(struct sd_ids *dst, const struct sd_ids *src);
void sd_ids_deinit(struct sd_ids *set);

/* ---- HBM heap: address-ordered first fit, metadata outside the region ---- */
struct sd_extent {
    uint64_t offset;
    uint64_t size;       /* rounded to SIMDEV_ALLOC_ALIGN */
    uint64_t requested;  /* what the caller asked for (live extents only) */
};
struct sd_heap {
    uint8_t *base;
    uint64_t bytes;
    struct sd_extent *free_list; /* sorted by offset, coalesced */
    size_t free_count, free_cap;
    struct sd_extent *live;      /* sorted by offset */
    size_t live_count, live_cap;
    uint64_t committed, high_water;
    int debug_fill;
};
int sd_heap_init(struct sd_heap *h, uint64_t bytes, int debug_fill);
void sd_heap_deinit(struct sd_heap *h);
int sd_heap_alloc(struct sd_heap *h, size_t size, void **out);
int sd_heap_free(struct sd_heap *h, void *ptr);
void sd_heap_free_all(struct sd_heap *h);
/* 1 when [p, p+size) lies inside one live allocation. */
int sd_heap_contains(const struct sd_heap *h, const void *p, size_t size);

/* Every simdev copy (synchronous, stream op, graph node) runs this: a
 * memmove. Plain stores, not streaming ones: the image upload measured
 * faster with them whichever CPU the host thread is on, device
 * validation unchanged (docs/performance.md). */
void sd_copy(void *dst, const void *src, size_t size);

/* A launch's argument copy into its stream's ring bypasses the caller's
 * caches from this size on (sd_stream.c, ring_copy): the ring's lines
 * were last read by the engine threads on another CPU, so ordinary
 * stores would first fetch each line back; an eager kernel-mode launch of a few hundred tasks
 * passes this many bytes (docs/performance.md). */
#define SD_STREAM_ARG_STREAMING_MIN ((size_t)32 * 1024)

/* Initializes a mutex that a contended lock spins on briefly (glibc's
 * adaptive mutex: a bounded number of tries) before it blocks in the
 * kernel: for locks held only for a few instructions by threads on other
 * CPUs, where a futex wait and wake cost more than the hold
 * (docs/performance.md). A plain mutex where that is not there. */
void sd_mutex_init_brief_spin(pthread_mutex_t *mu);

/* ---- engines: persistent worker pools ---- */
struct sd_launch {
    simdev_kernel_fn fn;
    const void *args;
    uint32_t block_dim;
    uint32_t next_block;  /* next block index to hand out (under mu) */
    atomic_uint done_blocks;  /* raised under mu by pool threads */
    atomic_int fault;
    struct sd_launch *next;
};
/* A CPU set as plain bits (no _GNU_SOURCE needed here); count 0 means
 * "no placement". */
#define SD_CPU_WORDS 16 /* 1024 CPUs */
struct sd_cpus {
    uint32_t count;
    uint64_t bits[SD_CPU_WORDS];
};
/* The CPU sets of the AICPU and AICore pools for `cfg` (engine_affinity),
 * from the calling thread's affinity; both empty when there is nothing
 * to split. */
void sd_engine_placement(const simdev_config *cfg, struct sd_cpus out[2]);

struct sd_pool {
    pthread_mutex_t mu;
    pthread_cond_t work_cv;
    pthread_cond_t done_cv;
    struct sd_launch *head, *tail;
    pthread_t threads[SIMDEV_MAX_ENGINE_THREADS];
    uint32_t thread_count;  /* configured size */
    uint32_t started;       /* threads running */
    uint32_t idle;          /* threads waiting for work (under mu) */
    int stop;
    struct sd_cpus cpus;    /* where the threads run; count 0: anywhere */
    char name[16];          /* the threads' name (top, perf, gdb) */
};
/* `name`: the threads' name, at most 15 characters kept. */
void sd_pool_init(struct sd_pool *p, const char *name, uint32_t thread_count, const struct sd_cpus *cpus);
int sd_pool_start(struct sd_pool *p);    /* under sd_g.lock; idempotent */
void sd_pool_deinit(struct sd_pool *p);  /* joins the threads */
/* A stream worker or graph runner that ran a block inline goes back to the
 * CPUs it had before (before a host function: only kernels run on an
 * engine's CPUs). No syscall when it is not placed. */
void sd_engine_unplace(void);
/* 1 when the calling stream worker or graph runner is placed on p's CPUs
 * (it last ran a block of p, or of a pool with the same CPUs, inline). */
int sd_engine_placed_on(const struct sd_pool *p);
/* 1 if the calling thread is now on one of the CPUs `p`'s threads are
 * placed on; 0 when it is not, or `p` has no placement (engine affinity
 * off, or one CPU). */
int sd_engine_runs_here(const struct sd_pool *p);
/* Between these, the calling host thread runs device work as a guest
 * (a synchronizer running a queued replay, sd_stream_help): blocks run
 * where it is, never placed (its affinity is the user's), and it counts
 * as placed on `beside`'s CPUs (the engine it started beside; NULL: on
 * none). */
void sd_engine_guest_begin(const struct sd_pool *beside);
/* Places the calling thread on `p`'s CPUs as an inline block would (a
 * no-op for a guest, or when it is there already or `p` has none). */
void sd_engine_place(const struct sd_pool *p);
void sd_engine_guest_end(void);
int sd_engine_guest(void); /* 1 between them */
/* Runs all blocks of one launch, returns its fault code (0 if none).
 * The calling thread runs blocks of it too (sd_engine.c). */
int sd_pool_run(struct sd_pool *p, simdev_kernel_fn fn, uint32_t block_dim, const void *args);
/* Runs a one-block kernel of `p` on the calling thread where it is,
 * without placing it on p's CPUs; returns its fault code (0 if none).
 * For a replay's last node (sd_graph.c, runs_here). */
int sd_pool_run_unplaced(struct sd_pool *p, simdev_kernel_fn fn, const void *args);

/* ---- stream ops ---- */
enum sd_op_kind {
    SD_OP_KERNEL,
    SD_OP_MEMCPY,
    SD_OP_MEMSET,
    SD_OP_RECORD,
    SD_OP_WAIT,
    SD_OP_HOST_FUNC,
    SD_OP_GRAPH
};
struct sd_op {
    int kind;
    int engine;
    uint32_t block_dim;
    simdev_kernel_fn fn;
    void (*host_fn)(void *);
    void *dst;
    const void *src;
    size_t size;
    int value;
    struct simdev_event *event;
    uint64_t seq;
    struct simdev_graph *graph;
    uint64_t arg_offset;    /* into the stream's argument ring */
    uint64_t arg_consumed;  /* ring bytes to release when the op retires */
};

struct sd_capture;

struct simdev_stream {
    int device;
    pthread_t worker;
    pthread_mutex_t mu;
    pthread_cond_t work_cv;   /* an op was queued, or stop */
    pthread_cond_t space_cv;  /* an op retired that a waiter waits for */
    /* Waiters on space_cv, under mu: the worker broadcasts only when one
     * of them can go on, so a synchronizing thread is not woken by each
     * op of a long queue (docs/performance.md). */
    uint32_t room_waiters;     /* in sd_stream_reserve */
    int worker_waits;          /* SD_WAITS_HELP or SD_WAITS_OP while the
                                * worker waits, else 0 (under mu) */
    uint64_t idle_wake_at;     /* lowest tail a blocked sd_stream_wait_idle
                                * waits for; 0: none */
    struct sd_op *ring;
    uint64_t head;             /* ops queued, monotonic (under mu) */
    /* Ops started, monotonic (under mu): tail, or tail + 1 while one
     * runs. The worker starts the next op, or a synchronizer when it is
     * a replay (sd_stream_help); one op runs at a time either way. */
    uint64_t taken;
    _Atomic uint64_t tail;     /* ops retired, monotonic: changed under mu,
                                * also polled without it (sd_stream_wait_idle) */
    /* Ops known complete before the worker retires them, monotonic, at
     * most head: the runner that finishes a replay's last node publishes
     * it for synchronizers that poll (sd_graph.c, run_lanes). Only a wait
     * that returns nothing but the fault may use it; the op is still
     * being retired, so a destroy waits for the tail. */
    _Atomic uint64_t done_early;
    /* Synchronizers blocked on space_cv beside the AICore cores that
     * done_early may release: the runner that publishes it wakes them
     * (sd_stream_early_wake); the worker's retire wakes the others. */
    _Atomic uint32_t early_sleepers;
    /* Synchronizers run the stream's replays: the last op was a replay
     * a synchronizer ran (sd_stream_help) or waited for, none taken
     * since by the worker. A replay launched now is left to the next
     * synchronize, and the worker waits at most SD_STREAM_HELP_WAIT_NS
     * for one before it starts the replay itself (sd_stream_push). Under
     * mu; stored only when it changes, as its line holds the tail that
     * synchronizers poll. Both fields fill padding: the layout of the
     * polled fields is as it was. */
    int helped;
    uint8_t *arg_ring;
    uint64_t arg_head, arg_tail;
    int fault;                 /* sticky kernel fault, under mu */
    int stop;
    int dead;                  /* left the registry (under sd_g.lock) */
    uint32_t holds;            /* callers blocked on it without sd_g.lock */
    /* Capture membership, under sd_g.lock. */
    struct sd_capture *cap;
    uint32_t lane;
    struct sd_ids frontier;
    /* When the oldest replay launched in that mode and not yet waited
     * for was launched (0: none), and whether the last synchronize came
     * late: more than SD_STREAM_HELP_LATE_NS after that launch (or none
     * came within the worker's wait). While late, launches signal the
     * worker again, so a replay overlaps the caller's work meanwhile
     * (sd_stream_push); a prompt synchronize ends it. Under mu; kept
     * here, off the lines the worker and synchronizers share (in the
     * tail's line they measurably slowed the round trip). */
    uint64_t left_at;
    int late;
};

struct simdev_event {
    int device;
    /* Eager state, under sd_g.ev_mu. */
    uint64_t record_seq, completed_seq;
    uint32_t refs;   /* queued ops and blocked callers */
    int dead;
    /* Under sd_g.lock: ever recorded; latest record made in a capture. */
    int recorded;
    struct sd_capture *cap;
    struct sd_ids cap_frontier;
};

/* ---- graphs ---- */
enum sd_node_kind { SD_NODE_KERNEL, SD_NODE_MEMCPY, SD_NODE_MEMSET, SD_NODE_HOST_FUNC };
struct sd_node {
    int kind;
    uint32_t lane;
    int engine;
    uint32_t block_dim;
    simdev_kernel_fn fn;
    void *args;        /* graph-owned copy */
    size_t args_size;
    void (*host_fn)(void *);
    void *dst;
    const void *src;
    size_t size;
    int value;
    struct sd_ids deps;
};
/* Index l: lane l's replay state (pos, state); runner l's hand-off
 * (cv, handed, idle). */
struct sd_lane {
    pthread_cond_t cv;
    uint32_t pos;      /* next node of the lane in this replay */
    uint32_t handed;   /* lane handed to this runner, or UINT32_MAX */
    uint8_t state;     /* SD_LANE_* */
    uint8_t idle;      /* the runner waits for a hand-off */
    int8_t placed;     /* engine whose CPUs the runner is on, or -1 */
    uint8_t unplaced;  /* the runner runs the lane it kept where it is
                        * (sd_graph.c, runs_here) */
    atomic_uint pings; /* raised (under mu) with each signal of cv, so the
                        * runner may poll it briefly before it blocks */
    uint8_t sleeping;  /* a helper blocked on cv (tests look at it) */
};
struct simdev_graph {
    int device;
    struct sd_node *nodes;
    uint32_t node_count, node_cap;
    uint32_t lane_count;
    uint32_t **lane_nodes;   /* built at capture end */
    uint32_t *lane_len;
    /* Replay machinery, under mu. A replay is run by "runners": runner 0
     * is the stream worker that runs it, runners 1.. graph-owned helper
     * threads (one fewer than lanes, so every lane can run at once). A
     * runner owns at most one lane at a time and runs its nodes in order
     * while they are ready; a lane made ready by a completion is kept by
     * the runner that completed it, or handed to one idle runner
     * (lane[r].handed, signalled on lane[r].cv). cv: busy and pending. */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct sd_lane *lane;      /* per lane, and per runner */
    pthread_t *threads;        /* runners 1..lane_count-1 */
    uint32_t threads_started;
    uint64_t epoch;
    uint64_t *done_epoch;    /* per node: epoch of its last completion */
    uint32_t lanes_left;       /* lanes of this replay not finished */
    int busy, stop;
    uint32_t pending;        /* queued graph ops */
    atomic_int run_fault;
    /* The stream whose worker runs the current replay, and that replay's
     * op index on it (set at the replay's start, under mu). */
    struct simdev_stream *run_stream;
    uint64_t run_op;
};
struct simdev_graph *sd_graph_create(int device);  /* NULL on host OOM */
int sd_graph_add_node(struct simdev_graph *g, const struct sd_node *node, uint32_t *id);
int sd_graph_seal(struct simdev_graph *g, uint32_t lane_count);  /* builds lanes */
int sd_graph_prepare(struct simdev_graph *g);  /* starts helper runners */
/* How long an idle runner polls for a hand-off before it blocks: the
 * stream worker of a replay, its own lanes done or parked (for a lane or
 * the replay's end), and a helper after it ran its lanes (for the next
 * replay's) (docs/performance.md). The poll outlasts the gap from the
 * end of a helper's lanes to the next replay's hand-off when kernel-mode
 * replays run back to back (the tail, the synchronize's return, the next
 * launch, the prologue): with a shorter poll a helper slept by then, and
 * its cross-CPU wake-up, longer than that whole gap, came before the
 * scheduler could start. */
#define SD_GRAPH_SPIN_NS 50000u
/* Within that poll, a synchronizer running the replay (runner 0 as a
 * guest, sd_stream_help) checks with a pause instruction for up to
 * SD_GUEST_SPIN_NS between yields: a yield there hands its CPU to the
 * stream worker polling beside it, and the replay's end, published by a
 * runner on the other CPU, was seen noticeably late
 * (docs/performance.md). */
#define SD_GUEST_SPIN_NS 3000u
/* One polite poll iteration (a pause instruction where there is one). */
static inline void sd_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}
/* On stream s's worker, running its op number s->tail: one replay, after
 * any replay of g already running; returns its kernel fault or 0. */
int sd_graph_run(struct simdev_graph *g, struct simdev_stream *s);
void sd_graph_free(struct simdev_graph *g);    /* no replays pending */

/* ---- capture sessions ---- */
struct sd_capture {
    struct simdev_stream *origin;
    int mode;
    int device;
    pthread_t begin_thread;
    int status;
    struct simdev_graph *graph;
    struct sd_vec members;  /* streams, index = lane */
};
/* Called with sd_g.lock held on a member stream. */
int sd_capture_add_node(struct simdev_stream *s, struct sd_node *node);
int sd_capture_record(struct simdev_stream *s, struct simdev_event *e);
int sd_capture_wait(struct simdev_stream *s, struct simdev_event *e);
void sd_capture_invalidate(struct sd_capture *c);
/* 1 if synchronous memcpy/memset must be refused for the calling thread. */
int sd_capture_refuses_sync_copy(void);
int sd_capture_active_on(int device);

/* ---- process state ---- */
struct sd_device {
    struct sd_heap heap;
    struct sd_pool pools[2];  /* indexed by simdev_engine */
};
struct sd_global {
    pthread_mutex_t lock;
    pthread_cond_t cv;         /* holds released */
    pthread_mutex_t ev_mu;
    pthread_cond_t ev_cv;
    int started, configured;
    simdev_config cfg;
    struct sd_device dev[SIMDEV_MAX_DEVICES];
    struct sd_vec streams, events, graphs, sessions;
    atomic_uint_fast64_t generation;  /* bumped by finalize */
};
extern struct sd_global sd_g;

/* Takes sd_g.lock and starts simdev with defaults if needed. */
int sd_lock_started(void);
void sd_unlock(void);
int sd_current_device(void);  /* per thread, default 0 */
int sd_thread_capture_mode(void);

/* Validation under sd_g.lock: PARAM, HANDLE or DEVICE, else 0. */
int sd_stream_check(struct simdev_stream *s);
int sd_event_check(struct simdev_event *e);
int sd_graph_check(struct simdev_graph *g);

/* ---- counters and fault injection ---- */
/* Counts one call of `cls` and returns an injected fault code or 0. */
int sd_call(simdev_call_class cls);
void sd_counters_reset(void);

/* ---- streams ---- */
/* Under sd_g.lock: waits for ring room; returns with s->mu held and 0, or
 * (after having dropped sd_g.lock to wait) with s->mu released and
 * SD_RETRY so the caller validates again. */
#define SD_RETRY (-1)
int sd_stream_reserve(struct simdev_stream *s, size_t arg_bytes);
/* With s->mu held after reserve: copies args, queues the op, signals. */
void sd_stream_push(struct simdev_stream *s, struct sd_op *op, const void *args, size_t args_size);
/* Under s->mu: whether a synchronizer takes `op` when it is the stream's
 * next (sd_stream_help) and its launch is left to one (sd_stream_push):
 * a replay, and while synchronizers run the stream's replays (helped)
 * the ops a caller feeds them with: a copy, a fill, a one-block AICPU
 * kernel (simpler's argument store). */
static inline int sd_op_for_synchronizer(const struct simdev_stream *s, const struct sd_op *op)
{
    if (op->kind == SD_OP_GRAPH)
        return 1;
    return s->helped && (op->kind == SD_OP_MEMCPY || op->kind == SD_OP_MEMSET ||
                         (op->kind == SD_OP_KERNEL && op->engine == SIMDEV_ENGINE_AICPU && op->block_dim == 1));
}
/* Waits (without sd_g.lock) until s has retired all ops queued now:
 * polls for up to SD_SYNC_POLL_NS, yielding the CPU between polls, then
 * blocks. The end of device work is a chain of hand-offs between simdev
 * threads, and a caller that blocks at once pays one more: a wake-up of
 * its idle vCPU, tens of microseconds on a virtual machine
 * (docs/simdev.md has the figures). A caller that is on one of the
 * AICore engine's CPUs blocks at once: there its yields took turns with
 * the very cores it waits for (a decode step's slot replay ran far
 * slower with the caller there; docs/performance.md). */
#define SD_SYNC_POLL_NS 50000u
/* How long a stream worker whose ring ran empty polls for the next op
 * before it blocks (docs/performance.md). */
#define SD_STREAM_IDLE_POLL_NS 20000u
/* Then, a worker on the AICore engine's CPUs naps SD_STREAM_NAP_NS at a
 * time (timer slack SD_STREAM_NAP_SLACK_NS) for up to
 * SD_STREAM_NAP_WINDOW_NS before it blocks: a program-mode run's next
 * launch, a host build later, then finds it without a cross-vCPU
 * wake-up (sd_stream_worker.c, idle_nap; docs/performance.md).
 * The window covers the host build and upload of a 10,000-task graph
 * with room; each nap costs its CPU a timer wake-up. */
#define SD_STREAM_NAP_WINDOW_NS 1000000u
#define SD_STREAM_NAP_NS 10000
#define SD_STREAM_NAP_SLACK_NS 1000ul
/* One nap of an idle thread beside the AICore cores (a stream worker, a
 * graph's helper runner): SD_STREAM_NAP_NS, the thread's timer slack set
 * to SD_STREAM_NAP_SLACK_NS first. And the window such a thread naps in
 * before it blocks (SD_STREAM_NAP_WINDOW_NS, or the tests' override). */
void sd_idle_nap(void);
uint64_t sd_idle_nap_window(void);
/* Replays begun on `device` so far, by stream workers and synchronizers:
 * a napping thread stops when another replay begins. */
uint64_t sd_replays_began(int device);
/* simdev_stream.worker_waits: in help_wait, or blocked until signalled. */
enum { SD_WAITS_HELP = 1, SD_WAITS_OP = 2 };
/* How long a stream worker whose last op a synchronizer ran waits for the
 * next synchronize to take a replay launched behind it (docs/simdev.md,
 * *Graphs and replay*; docs/performance.md). */
#define SD_STREAM_HELP_WAIT_NS 2000000u
#define SD_STREAM_HELP_LATE_NS 20000u
/* How long a stream worker polls for an event record it waits on before
 * it blocks (sd_stream_worker.c, event_wait; docs/performance.md). */
#define SD_EVENT_POLL_NS 50000u
/* `early`: a replay's op counts as done once its last node finished
 * (done_early), before the worker retired it; for synchronize, never
 * for a destroy. */
int sd_stream_wait_idle(struct simdev_stream *s, int early);
/* By the runner that finished a replay's last node, before the stream
 * worker can retire the replay: publishes `done` (the op's index + 1) as
 * done_early and wakes the synchronizers blocked on it. Takes s->mu;
 * the caller holds no graph lock. */
void sd_stream_early_wake(struct simdev_stream *s, uint64_t done);
#ifdef SIMPLER_VERIFY
/* Tests only: when set, the stream worker calls it after an op ran and
 * before it retires the op. */
extern void (*_Atomic sd_test_before_retire)(struct simdev_stream *s);
/* Tests only: when nonzero, replaces SD_STREAM_HELP_WAIT_NS or
 * SD_STREAM_NAP_WINDOW_NS. */
extern _Atomic uint64_t sd_test_help_wait_ns;
extern _Atomic uint64_t sd_test_nap_window_ns;
/* Tests only: when set, a multi-stream synchronize (simdev_streams_
 * synchronize, simdev_device_synchronize) calls it before each wait. */
extern void (*_Atomic sd_test_before_wait)(struct simdev_stream *s);
/* Tests only: the moves of stream workers and runners between CPU sets
 * (sd_engine_place and sd_engine_unplace calls that make the syscall). */
extern _Atomic uint64_t sd_test_moves;
#endif
/* Under s->mu (dropped while an op runs), by a synchronizer of s that
 * waits for the ops before `target`: while the next op is a replay that
 * nobody runs yet, runs it on the calling thread and retires it, as the
 * worker would; returns with s->mu held. */
void sd_stream_help(struct simdev_stream *s, uint64_t target);
/* Under s->mu, by a caller that waits for or asks about s without running
 * its ops (a query, a destroy): wakes the worker for a replay left to a
 * synchronize (sd_stream_push) that none took. */
void sd_stream_kick(struct simdev_stream *s);
void sd_stream_free(struct simdev_stream *s);  /* drained, no holds */
void *sd_stream_main(void *arg);              /* the worker thread */
void sd_event_unref(struct simdev_event *e); /* under ev_mu; frees if dead */
void sd_event_free(struct simdev_event *e);
void sd_device_teardown(int device);  /* under sd_g.lock, all quiesced */

#endif

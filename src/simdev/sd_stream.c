/*
 * Streams: a FIFO ring of ops drained in order by one worker thread.
 *
 * The op ring (SIMDEV_STREAM_RING_OPS slots) and the argument byte ring
 * (SIMDEV_STREAM_RING_ARG_BYTES) are allocated when the stream is created,
 * so steady-state enqueue allocates nothing; a full ring makes the enqueuer
 * wait for the worker to retire ops.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "common/clock.h"
#include "common/host_alloc.h"
#include "simdev/sd_internal.h"

#define ARG_ALIGN 16u
/* One launch's argument copy must always fit, or its enqueue would wait
 * for room forever. */
_Static_assert(SIMDEV_KERNEL_ARGS_MAX + ARG_ALIGN <= SIMDEV_STREAM_RING_ARG_BYTES,
               "the argument ring holds the largest launch");

/* Ring bytes an argument copy of `bytes` takes at the current head: the
 * copy never wraps, so the tail of the ring may be skipped. */
static uint64_t arg_need(const struct simdev_stream *s, size_t bytes, uint64_t *offset)
{
    uint64_t size = ((uint64_t)bytes + ARG_ALIGN - 1) & ~(uint64_t)(ARG_ALIGN - 1);
    uint64_t pos = s->arg_head % SIMDEV_STREAM_RING_ARG_BYTES;
    uint64_t skip = pos + size > SIMDEV_STREAM_RING_ARG_BYTES ? SIMDEV_STREAM_RING_ARG_BYTES - pos : 0;
    *offset = skip ? 0 : pos;
    return skip + size;
}

/* Under s->mu. An empty argument ring restarts at offset 0, so any copy
 * up to the ring size fits once the ring drains. */
static int has_room(struct simdev_stream *s, size_t arg_bytes)
{
    uint64_t offset;
    if (s->head - s->tail >= SIMDEV_STREAM_RING_OPS)
        return 0;
    if (s->arg_head == s->arg_tail)
        s->arg_head = s->arg_tail = 0;
    uint64_t need = arg_bytes ? arg_need(s, arg_bytes, &offset) : 0;
    return s->arg_head - s->arg_tail + need <= SIMDEV_STREAM_RING_ARG_BYTES;
}

int sd_stream_reserve(struct simdev_stream *s, size_t arg_bytes)
{
    pthread_mutex_lock(&s->mu);
    if (has_room(s, arg_bytes))
        return 0;
    /* Wait for room without sd_g.lock; the hold keeps s allocated. */
    s->holds++;
    pthread_mutex_unlock(&sd_g.lock);
    s->room_waiters++;
    sd_stream_kick(s);
    while (!has_room(s, arg_bytes) && !s->stop)
        pthread_cond_wait(&s->space_cv, &s->mu);
    s->room_waiters--;
    pthread_mutex_unlock(&s->mu);
    pthread_mutex_lock(&sd_g.lock);
    s->holds--;
    pthread_cond_broadcast(&sd_g.cv);
    return SD_RETRY;
}

/* Copies a launch's arguments into the ring. A large copy is written with
 * non-temporal stores: the ring's lines were last read by the worker's
 * engine threads on the other CPUs, so ordinary stores would first fetch
 * every line back (about four times the cost of a copy into a hot
 * buffer), and the caller never reads them again. The fence orders the
 * streaming stores before the op is published under s->mu. */
static void ring_copy(uint8_t *dst, const void *src, size_t bytes)
{
#if defined(__SSE2__)
    if (bytes >= SD_STREAM_ARG_STREAMING_MIN && (uintptr_t)dst % 16u == 0) {
        const uint8_t *from = src;
        size_t i = 0;
        for (; i + 64 <= bytes; i += 64) {
            __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(from + i));
            __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(from + i + 16));
            __m128i c = _mm_loadu_si128((const __m128i *)(const void *)(from + i + 32));
            __m128i d = _mm_loadu_si128((const __m128i *)(const void *)(from + i + 48));
            _mm_stream_si128((__m128i *)(void *)(dst + i), a);
            _mm_stream_si128((__m128i *)(void *)(dst + i + 16), b);
            _mm_stream_si128((__m128i *)(void *)(dst + i + 32), c);
            _mm_stream_si128((__m128i *)(void *)(dst + i + 48), d);
        }
        _mm_sfence();
        memcpy(dst + i, from + i, bytes - i);
        return;
    }
#endif
    memcpy(dst, src, bytes);
}

void sd_stream_push(struct simdev_stream *s, struct sd_op *op, const void *args, size_t args_size)
{
    op->arg_consumed = 0;
    if (args_size > 0) {
        op->arg_consumed = arg_need(s, args_size, &op->arg_offset);
        ring_copy(s->arg_ring + op->arg_offset, args, args_size);
        s->arg_head += op->arg_consumed;
    }
    s->ring[s->head % SIMDEV_STREAM_RING_OPS] = *op;
    s->head++;
    /* A replay behind one a synchronizer ran is left to the next
     * synchronize while synchronizes follow launches promptly (not
     * s->late): from the AICore's CPU the signal would wake a worker
     * asleep on the other vCPU, a costly wake-up inside this call, and
     * the worker would then take the replay and every later one. So is
     * an op that feeds such replays (sd_op_for_synchronizer): signalled,
     * the worker woke for the argument store ahead of every decode step
     * and then took the replay behind it (docs/performance.md). */
    int left = s->helped && sd_op_for_synchronizer(s, op);
    if (left && s->left_at == 0)
        s->left_at = clock_now_ns();
    if (!left || s->late || s->worker_waits == SD_WAITS_OP)
        pthread_cond_signal(&s->work_cv);
    pthread_mutex_unlock(&s->mu);
}

/* Whether the ops before `target` are done: retired, or with `early`
 * published complete by a replay's last runner (done_early). */
static int done(struct simdev_stream *s, uint64_t target, int early)
{
    return atomic_load_explicit(&s->tail, memory_order_acquire) >= target ||
           (early && atomic_load_explicit(&s->done_early, memory_order_acquire) >= target);
}

int sd_stream_wait_idle(struct simdev_stream *s, int early)
{
    pthread_mutex_lock(&s->mu);
    uint64_t target = s->head;
    /* The last op waited for is a replay (its slot is not reused before
     * it retires): see the end. */
    int ends_in_replay = early && target > s->tail && s->ring[(target - 1) % SIMDEV_STREAM_RING_OPS].kind == SD_OP_GRAPH;
    /* 1: a sleeper the publisher of done_early wakes (sd_stream_early_wake). */
    uint32_t early_sleeper = 0;
    if (early && s->left_at != 0) { /* whether this synchronize came promptly */
        s->late = clock_now_ns() - s->left_at > SD_STREAM_HELP_LATE_NS;
        s->left_at = 0;
    }
    if (early)
        sd_stream_help(s, target);
    else
        sd_stream_kick(s);
    /* A synchronizer waits for a replay the worker runs: the next one is
     * left to the next synchronize too (else, beside the AICore cores,
     * the worker kept taking them, each launch waking it across vCPUs). */
    if (early && s->taken > s->tail && s->ring[s->tail % SIMDEV_STREAM_RING_OPS].kind == SD_OP_GRAPH && !s->helped)
        s->helped = 1;
    if (!done(s, target, early)) {
        pthread_mutex_unlock(&s->mu);
        uint64_t until = clock_now_ns() + SD_SYNC_POLL_NS;
        /* Beside the AICore cores, the yields would take turns with the
         * cores this caller waits for: block at once there. */
        if (sd_engine_runs_here(&sd_g.dev[s->device].pools[SIMDEV_ENGINE_AICORE])) {
            until = 0;
            early_sleeper = early != 0;
        }
        while (!done(s, target, early) && clock_now_ns() < until)
            sched_yield();
        pthread_mutex_lock(&s->mu);
    }
    while (!done(s, target, early)) {
        if (s->idle_wake_at == 0 || target < s->idle_wake_at)
            s->idle_wake_at = target;
        /* Counted before the last look at done_early, and the publisher
         * stores it before it looks at the count (sd_stream_early_wake):
         * one of the two sees the other. */
        atomic_fetch_add(&s->early_sleepers, early_sleeper);
        atomic_thread_fence(memory_order_seq_cst);
        if (!done(s, target, early))
            pthread_cond_wait(&s->space_cv, &s->mu);
        atomic_fetch_sub(&s->early_sleepers, early_sleeper);
    }
    /* So is a replay the worker took behind ops that fed it (an argument
     * store ahead of each decode step's replay): the first of them was
     * never at the tail above, so every step's store woke the worker,
     * and it ran the replay too (docs/performance.md). Not when the
     * worker took an op since. A worker that stopped polling before
     * this (the synchronizer was slow to run again) is blocked until
     * signalled, which the next launch would do: signalled now, it goes
     * to wait for the next synchronize (help_wait) between the steps. */
    int to_help_wait = 0;
    if (ends_in_replay && s->taken == target && !s->helped) {
        s->helped = 1;
        to_help_wait = s->worker_waits == SD_WAITS_OP && !s->late; /* late: launches signal it anyway */
    }
    int fault = s->fault;
    pthread_mutex_unlock(&s->mu);
    if (to_help_wait)
        pthread_cond_signal(&s->work_cv);
    return fault;
}

/* A synchronizer beside the AICore cores blocks at once (above), and the
 * runner that finishes a replay's last node usually runs there too: it
 * wakes that sleeper on its own CPU. Left to the worker's retire on the
 * AICPU's CPU, the wake-up crossed to the other vCPU, which is costly on
 * this VM. A synchronizer elsewhere polled first and blocked beside the
 * worker, whose wake is local; a runner beside the cores waking it cost
 * a slot replay a cross-vCPU wake-up (docs/performance.md). */
void sd_stream_early_wake(struct simdev_stream *s, uint64_t done_ops)
{
    atomic_store_explicit(&s->done_early, done_ops, memory_order_release);
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(&s->early_sleepers, memory_order_relaxed) == 0)
        return;
    /* Under s->mu, a sleeper is either inside its wait or has yet to look
     * at done_early, which it will see. The broadcast comes after the
     * unlock: the sleeper, woken on this CPU, preempts the waker, and
     * would find s->mu still held. */
    pthread_mutex_lock(&s->mu);
    s->idle_wake_at = 0; /* woken waiters still behind register again */
    pthread_mutex_unlock(&s->mu);
    pthread_cond_broadcast(&s->space_cv);
}

static void stream_destroy_sync(struct simdev_stream *s)
{
    pthread_cond_destroy(&s->work_cv);
    pthread_cond_destroy(&s->space_cv);
    pthread_mutex_destroy(&s->mu);
}

int simdev_stream_create(simdev_stream_t *stream)
{
    int rc = sd_call(SIMDEV_CALL_STREAM_CREATE);
    if (rc != 0)
        return rc;
    if (stream == NULL)
        return SIMDEV_ERROR_INVALID_PARAM;
    if ((rc = sd_lock_started()) != 0)
        return rc;
    int device = sd_current_device();
    rc = SIMDEV_ERROR_INVALID_DEVICE;
    if ((uint32_t)device >= sd_g.cfg.device_count)
        goto err_unlock;
    rc = SIMDEV_ERROR_MEMORY_ALLOCATION;
    if (sd_vec_reserve(&sd_g.streams, 1) != 0)
        goto err_unlock;
    /* A device with a stream has its engines running, so no later launch
     * starts a thread on its caller's behalf (a launch then allocates
     * nothing). Started engine threads stay up, like the device. */
    if (sd_pool_start(&sd_g.dev[device].pools[SIMDEV_ENGINE_AICPU]) != 0 ||
        sd_pool_start(&sd_g.dev[device].pools[SIMDEV_ENGINE_AICORE]) != 0)
        goto err_unlock;
    struct simdev_stream *s = host_calloc(1, sizeof(*s));
    if (s == NULL)
        goto err_unlock;
    s->ring = host_alloc(SIMDEV_STREAM_RING_OPS * sizeof(*s->ring));
    if (s->ring == NULL)
        goto err_free_stream;
    s->arg_ring = host_alloc(SIMDEV_STREAM_RING_ARG_BYTES);
    if (s->arg_ring == NULL)
        goto err_free_ring;
    s->device = device;
    atomic_init(&s->tail, 0);
    atomic_init(&s->done_early, 0);
    pthread_mutex_init(&s->mu, NULL);
    pthread_condattr_t monotonic;
    pthread_condattr_init(&monotonic);
    pthread_condattr_setclock(&monotonic, CLOCK_MONOTONIC);
    pthread_cond_init(&s->work_cv, &monotonic);
    pthread_condattr_destroy(&monotonic);
    pthread_cond_init(&s->space_cv, NULL);
    if (pthread_create(&s->worker, NULL, sd_stream_main, s) != 0)
        goto err_destroy_sync;
    sd_vec_push(&sd_g.streams, s);
    sd_unlock();
    *stream = s;
    return SIMDEV_SUCCESS;

err_destroy_sync:
    stream_destroy_sync(s);
    host_free(s->arg_ring);
err_free_ring:
    host_free(s->ring);
err_free_stream:
    host_free(s);
err_unlock:
    sd_unlock();
    return rc;
}

/* Stops and joins the worker of a drained stream nobody holds, frees it. */
void sd_stream_free(struct simdev_stream *s)
{
    pthread_mutex_lock(&s->mu);
    s->stop = 1;
    pthread_cond_signal(&s->work_cv);
    pthread_mutex_unlock(&s->mu);
    pthread_join(s->worker, NULL);
    stream_destroy_sync(s);
    sd_ids_deinit(&s->frontier);
    host_free(s->arg_ring);
    host_free(s->ring);
    host_free(s);
}

/* Counts a call of `cls`, takes sd_g.lock and checks that `stream` is a
 * live stream of the current device in no capture. Returns 0 with the lock
 * held, or the refusal with the lock released. */
static int stream_enter_uncaptured(simdev_stream_t stream, simdev_call_class cls)
{
    int rc = sd_call(cls);
    if (rc != 0)
        return rc;
    if ((rc = sd_lock_started()) != 0)
        return rc;
    if ((rc = sd_stream_check(stream)) == 0 && stream->cap != NULL)
        rc = SIMDEV_ERROR_STREAM_CAPTURED;
    if (rc != 0)
        sd_unlock();
    return rc;
}

int simdev_stream_destroy(simdev_stream_t stream)
{
    int rc = stream_enter_uncaptured(stream, SIMDEV_CALL_STREAM_DESTROY);
    if (rc != 0)
        return rc;
    /* Unlisted first: no new work can reach it once the lock drops. */
    sd_vec_remove(&sd_g.streams, stream);
    stream->dead = 1;
    stream->holds++;
    sd_unlock();
    sd_stream_wait_idle(stream, 0);
    pthread_mutex_lock(&sd_g.lock);
    stream->holds--;
    while (stream->holds > 0)
        pthread_cond_wait(&sd_g.cv, &sd_g.lock);
    sd_unlock();
    sd_stream_free(stream);
    return SIMDEV_SUCCESS;
}

/* Synchronize one stream: hold it, wait without sd_g.lock, release. */
static int stream_sync(struct simdev_stream *s)
{
    s->holds++;
    sd_unlock();
    int fault = sd_stream_wait_idle(s, 1);
    pthread_mutex_lock(&sd_g.lock);
    s->holds--;
    pthread_cond_broadcast(&sd_g.cv);
    sd_unlock();
    return fault;
}

int simdev_stream_synchronize(simdev_stream_t stream)
{
    int rc = stream_enter_uncaptured(stream, SIMDEV_CALL_SYNCHRONIZE);
    return rc != 0 ? rc : stream_sync(stream);
}

int simdev_stream_query(simdev_stream_t stream)
{
    int rc = stream_enter_uncaptured(stream, SIMDEV_CALL_QUERY);
    if (rc != 0)
        return rc;
    pthread_mutex_lock(&stream->mu);
    sd_stream_kick(stream);
    rc = stream->fault != 0 ? stream->fault : stream->tail < stream->head ? SIMDEV_ERROR_NOT_READY : 0;
    pthread_mutex_unlock(&stream->mu);
    sd_unlock();
    return rc;
}

/* Under sd_g.lock: holds every stream of `device` and returns them (the
 * registry may change while the lock is dropped to wait). */
static int hold_device_streams(int device, struct simdev_stream ***out, size_t *count)
{
    size_t n = 0;
    for (size_t i = 0; i < sd_g.streams.count; i++)
        n += ((struct simdev_stream *)sd_g.streams.items[i])->device == device;
    struct simdev_stream **held = host_alloc((n ? n : 1) * sizeof(*held));
    if (held == NULL)
        return SIMDEV_ERROR_MEMORY_ALLOCATION;
    n = 0;
    for (size_t i = 0; i < sd_g.streams.count; i++) {
        struct simdev_stream *s = sd_g.streams.items[i];
        if (s->device == device) {
            s->holds++;
            held[n++] = s;
        }
    }
    *out = held;
    *count = n;
    return 0;
}

#ifdef SIMPLER_VERIFY
void (*_Atomic sd_test_before_wait)(struct simdev_stream *s);
#endif

/* One wait of a multi-stream synchronize. */
static int wait_one(struct simdev_stream *s)
{
#ifdef SIMPLER_VERIFY
    void (*before_wait)(struct simdev_stream *) = atomic_load(&sd_test_before_wait);
    if (before_wait != NULL)
        before_wait(s);
#endif
    return sd_stream_wait_idle(s, 1);
}

/* Under s->mu: the engine of the newest op queued when it is a kernel,
 * else -1: where the worker will finish the stream's queue, as a
 * one-block kernel runs on its worker placed on the engine's CPUs. The
 * ring keeps the newest op until RING_OPS more are queued. */
static int newest_kernel_engine(const struct simdev_stream *s)
{
    if (s->head == 0)
        return -1;
    const struct sd_op *op = &s->ring[(s->head - 1) % SIMDEV_STREAM_RING_OPS];
    return op->kind == SD_OP_KERNEL ? op->engine : -1;
}

/* The engine whose CPUs the calling thread is on, or -1 (no placement). */
static int engine_here(int device)
{
    for (int e = 0; e < 2; e++)
        if (sd_engine_runs_here(&sd_g.dev[device].pools[e]))
            return e;
    return -1;
}

/* Waits for every held stream (of one device), then releases them;
 * returns the first sticky fault in `held` order, or 0. The streams whose
 * queue ends with a kernel of the engine the caller sits beside go first:
 * their workers finish on the caller's CPU, so a caller blocked on them
 * is woken there, and by then the other streams' work (on the other
 * engine's CPU) is usually done too. In the other order, a caller beside
 * the AICore cores blocks at once (sd_stream_wait_idle) on an AICPU
 * stream, whose worker's wake-up crosses to the caller's vCPU, a cost
 * every program-mode run paid (docs/performance.md). */
static int wait_held(struct simdev_stream **held, size_t count)
{
    int here = count > 0 ? engine_here(held[0]->device) : -1;
    uint64_t first = 0; /* of the first 64, those waited for first */
    int faults[64] = {0};
    for (size_t i = 0; here >= 0 && i < count && i < 64; i++) {
        pthread_mutex_lock(&held[i]->mu);
        first |= (uint64_t)(newest_kernel_engine(held[i]) == here) << i;
        pthread_mutex_unlock(&held[i]->mu);
    }
    for (size_t i = 0; i < count && i < 64; i++)
        if (first >> i & 1u)
            faults[i] = wait_one(held[i]);
    int first_fault = 0;
    for (size_t i = 0; i < count; i++) {
        int fault = i < 64 && (first >> i & 1u) ? faults[i] : wait_one(held[i]);
        if (first_fault == 0)
            first_fault = fault;
    }
    pthread_mutex_lock(&sd_g.lock);
    for (size_t i = 0; i < count; i++)
        held[i]->holds--;
    pthread_cond_broadcast(&sd_g.cv);
    sd_unlock();
    return first_fault;
}

int simdev_streams_synchronize(const simdev_stream_t *streams, uint32_t count)
{
    int rc = sd_call(SIMDEV_CALL_SYNCHRONIZE);
    if (rc != 0)
        return rc;
    if ((streams == NULL && count > 0) || count > SIMDEV_STREAMS_SYNC_MAX)
        return SIMDEV_ERROR_INVALID_PARAM;
    if ((rc = sd_lock_started()) != 0)
        return rc;
    for (uint32_t i = 0; i < count && rc == 0; i++)
        if ((rc = sd_stream_check(streams[i])) == 0 && streams[i]->cap != NULL)
            rc = SIMDEV_ERROR_STREAM_CAPTURED;
    if (rc != 0) {
        sd_unlock();
        return rc;
    }
    struct simdev_stream *held[SIMDEV_STREAMS_SYNC_MAX];
    for (uint32_t i = 0; i < count; i++) {
        held[i] = streams[i];
        held[i]->holds++;
    }
    sd_unlock();
    return wait_held(held, count);
}

int simdev_device_synchronize(void)
{
    int rc = sd_call(SIMDEV_CALL_SYNCHRONIZE);
    if (rc != 0)
        return rc;
    if ((rc = sd_lock_started()) != 0)
        return rc;
    int device = sd_current_device();
    struct simdev_stream **held = NULL;
    size_t count = 0;
    if ((uint32_t)device >= sd_g.cfg.device_count)
        rc = SIMDEV_ERROR_INVALID_DEVICE;
    else if (sd_capture_active_on(device))
        rc = SIMDEV_ERROR_STREAM_CAPTURED;
    else
        rc = hold_device_streams(device, &held, &count);
    sd_unlock();
    if (rc != 0)
        return rc;
    int first_fault = wait_held(held, count);
    host_free(held);
    return first_fault;
}

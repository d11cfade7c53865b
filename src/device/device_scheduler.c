/*
 * The AICPU scheduler: restore and validate the image, seed the ready
 * queues, hand ready tasks to cores of their type, consume completions in
 * batches and release successors until every task completed, then tell
 * the cores to quit and write the status word.
 *
 * How many tasks a core holds, and which cores get them, adapts to how
 * long the tasks take (docs/device.md, "Dispatch policy"):
 *   - a core holds up to `depth` posted tasks; depth starts at 1, doubles
 *     (up to DEVICE_SLOT_RING) whenever a core is found with its ring run
 *     dry, and halves when a wait stalls while a core holds a queue;
 *   - a core is refilled once a quarter of what it may hold is free
 *     (device_sched_wants_refill); cores are served in order, and a later core gets tasks only while more
 *     are ready than a ring holds and the tasks are long (a core takes
 *     DEVICE_GATHER_NS or more per task); a sleeping core is woken only when no
 *     core of its type is awake, or after stalls (no completion for a
 *     whole spin with tasks waiting) brought depth to 1: tasks that long
 *     are worth a wake-up, short ones are not;
 *   - a task whose only predecessor is posted to a core, and that is
 *     that predecessor's only successor and of the same core type, is
 *     posted right behind it to the same core ("chains", below): the
 *     core's in-order ring starts it exactly when the graph allows,
 *     without a round trip through this loop per task; while tasks are
 *     short a chain runs ahead up to the whole ring, not `depth`;
 *   - the cores of a type beyond its number of chain heads (the most of
 *     its tasks that can ever run at once) are told to leave before
 *     dispatch starts, and never served.
 */
#include <string.h>

#include "device/device_core_plan.h"
#include "device/device_handshake.h"
#include "device/device_scheduler_internal.h"
#include "device/device_kernels.h"
#include "device/device_ready_queue.h"
#include "device/device_slot.h"
#include "device/device_status.h"
#include "device/device_validate.h"
#include "device/device_wait.h"
#include "device/trace_record.h"

static void write_status(const device_run_desc *d, int32_t status)
{
    if (d->status_addr != 0)
        atomic_store_explicit((_Atomic int32_t *)(uintptr_t)d->status_addr, status, memory_order_release);
}

/* Chains: the task that can run on a core right behind a task, without
 * a trip through the scheduler, is its only successor when it is that
 * successor's only predecessor (the image check pins fan-in counts to the
 * fan-out lists) and both run on the same core type
 * (graph_image_chain_next). A core runs its ring in order, so posting it
 * behind its predecessor lets it start exactly when the graph allows:
 * once the predecessor finished. The image check computes every task's
 * link as it passes the task and leaves it in its scratch; seeding copies
 * it into the task's state (device_task_state.chain), which posting
 * reads. */

/* The chain successor core may take next (device_sched.ahead), or
 * UINT32_MAX. One still PENDING has its predecessor posted to this core
 * and not yet consumed as completed; any other was released through the
 * queue meanwhile (its predecessor's completion came first) and belongs
 * to dispatch again. */
static uint32_t chain_pending(device_sched *s, uint32_t core)
{
    uint32_t next = s->ahead[core];
    if (next == 0)
        return UINT32_MAX;
    if (device_task_state_at(s->d, next - 1)->status == DEVICE_TASK_PENDING)
        return next - 1;
    s->ahead[core] = 0;
    return UINT32_MAX;
}

int device_sched_wants_refill(uint32_t held, uint32_t limit)
{
    uint32_t quarter = limit >= 4 ? limit / 4 : 1;
    return held + quarter <= limit;
}

uint32_t device_sched_chain_limit(const device_sched *s)
{
    return s->task_ns < DEVICE_GATHER_NS ? DEVICE_SLOT_RING : s->depth;
}

/* Fills core's ring, and wakes the core if it may sleep: first the chain
 * behind the last task posted to it (tasks no other core could start
 * sooner) up to device_sched_chain_limit held, then, when `from_queue`,
 * from its type's ready queue up to `depth` held. */
static void fill(device_sched *s, uint32_t core, int from_queue)
{
    device_ready_queue *q = s->queue[device_core_type(s->d, core)];
    device_core_slot *slot = device_core_slot_at(s->d, core);
    uint32_t posted = s->posted[core];
    uint32_t chain_limit = device_sched_chain_limit(s);

    for (;;) {
        uint32_t held = posted - s->seen[core];
        uint32_t task = held < chain_limit ? chain_pending(s, core) : UINT32_MAX;
        if (task == UINT32_MAX) {
            if (held >= s->depth || !from_queue || device_ready_queue_empty(q))
                break;
            task = device_ready_queue_pop(q);
        }
        device_task_state *ts = device_task_state_at(s->d, task);
        ts->status = DEVICE_TASK_RUNNING;
        ts->core = core;
        slot->ring[posted % DEVICE_SLOT_RING] = task;
        posted++;
        s->in_flight++;
        s->ahead[core] = ts->chain;
    }
    if (posted == s->posted[core])
        return;
    s->posted[core] = posted;
    device_slot_post(slot, posted);
}

void device_sched_seed(device_sched *s)
{
    const graph_image_task *t = s->tasks;
    s->queue[SIMPLER_CORE_TYPE_AIC] = device_ready_queue_reset(s->d, SIMPLER_CORE_TYPE_AIC);
    s->queue[SIMPLER_CORE_TYPE_AIV] = device_ready_queue_reset(s->d, SIMPLER_CORE_TYPE_AIV);
    s->heads[SIMPLER_CORE_TYPE_AIC] = 0;
    s->heads[SIMPLER_CORE_TYPE_AIV] = 0;
    for (uint32_t i = 0; i < s->d->task_count; i++, t++) {
        device_task_state *ts = device_task_state_at(s->d, i);
        ts->fanin_remaining = t->fanin_count;
        ts->status = t->fanin_count == 0 ? DEVICE_TASK_READY : DEVICE_TASK_PENDING;
        /* Before the push below may overwrite it; computed here when the
         * image check was not run (device_validate_image_known). */
        ts->chain = s->chains != NULL ? s->chains[i] : graph_image_chain_next(s->tasks, s->fanout, i);
        s->heads[t->core_type] += ts->chain == 0;
        if (t->fanin_count == 0)
            device_ready_queue_push(s->queue[t->core_type], i);
    }
}

/* Chain links (graph_image_chain_next) split a type's tasks into paths, and the
 * tasks of one path run one after another, so no more of a type's tasks
 * can ever run at once than it has heads. Cores of a type beyond that
 * count (in index order) would only sleep and be woken to leave: they
 * are told to leave now, before dispatch is announced, and dispatch
 * never serves them. A type with tasks keeps at least one core.
 * A core whose executor block the launch did not start (the host chose
 * the started cores from the same image, docs/device.md "Started
 * cores") is retired too, without a word: nothing reads its slot. */
void device_sched_retire(device_sched *s)
{
    uint32_t kept[GRAPH_READY_QUEUE_COUNT] = {0, 0};
    for (uint32_t c = 0; c < s->cores; c++) {
        uint32_t type = device_core_type(s->d, c);
        if (!device_run_desc_core_started(s->d, c)) {
            s->retired[c] = 1;
            continue;
        }
        if (kept[type] < s->heads[type]) {
            kept[type]++;
            continue;
        }
        s->retired[c] = 1;
        device_slot_quit(device_core_slot_at(s->d, c));
    }
}

/* A core's arrival only goes from 0 to 1 in an execution, so once seen
 * it is remembered: the slot line it sits on is the one a busy core
 * keeps writing, and dispatch asks about every core on every pass. */
int device_sched_core_arrived(device_sched *s, uint32_t core)
{
    if (!s->arrived[core])
        s->arrived[core] =
            atomic_load_explicit(&device_core_slot_at(s->d, core)->arrived, memory_order_relaxed) != 0;
    return s->arrived[core];
}

/* A core whose block has not started yet is served like a sleeping one:
 * while another core of its type runs, tasks go there. On simdev the
 * AICore threads of a launch wake one after another, and the scheduler
 * often starts dispatching before the first AIV core arrives. */
int device_sched_core_asleep(device_sched *s, uint32_t core)
{
    return atomic_load_explicit(&device_core_slot_at(s->d, core)->sleeping, memory_order_relaxed) != 0 ||
           !device_sched_core_arrived(s, core);
}

/* Hands ready tasks out, in core order. A core is refilled (up to depth)
 * once a quarter of its depth is free: a post moves a line the core
 * reads, so rings are refilled in batches, not after every completion, but early
 * enough that a core publishing every DEVICE_PUBLISH_EVERY (a quarter
 * of a full ring) is refilled before it runs dry. A core holding more
 * is busy enough, and later cores of its type get tasks only if more
 * are ready than a ring holds (or than the busy core will reach soon:
 * a chain held beyond depth) and the tasks are long
 * (DEVICE_GATHER_NS), so short tasks gather on one core and the rest
 * fall asleep. A sleeping core costs a wake-up (tens
 * of microseconds on a VM): one is woken only when no core of its type
 * is awake, or once stalls have brought depth down to 1 (tasks long
 * enough that more cores pay for their wake-ups). */
void device_sched_dispatch(device_sched *s)
{
    uint32_t awake[GRAPH_READY_QUEUE_COUNT] = {0, 0};
    int enough[GRAPH_READY_QUEUE_COUNT] = {0, 0};
    uint8_t asleep[DEVICE_CORE_MAX];
    /* Chains first: a core with a quarter of its chain limit free gets
     * the chain behind its last task (only that core can start it before
     * the task's completion comes back), whatever the policy below says. */
    uint32_t chain_limit = device_sched_chain_limit(s);
    for (uint32_t c = 0; c < s->cores; c++) {
        if (s->ahead[c] != 0 && device_sched_wants_refill(s->posted[c] - s->seen[c], chain_limit))
            fill(s, c, 0);
    }
    if (device_ready_queue_empty(s->queue[SIMPLER_CORE_TYPE_AIC]) &&
        device_ready_queue_empty(s->queue[SIMPLER_CORE_TYPE_AIV]))
        return; /* nothing to hand out: no flag to read */
    /* One reading of the flags for the whole pass: a core counted awake
     * here is served as awake below even if it fell asleep meanwhile
     * (posting wakes it), or a type could be left with nobody served. */
    for (uint32_t c = 0; c < s->cores; c++) {
        if (s->retired[c]) {
            asleep[c] = 1;
            continue;
        }
        asleep[c] = (uint8_t)(s->hooks != NULL ? s->hooks->asleep(s, c) : device_sched_core_asleep(s, c));
        if (!asleep[c])
            awake[device_core_type(s->d, c)]++;
    }
    for (uint32_t c = 0; c < s->cores; c++) {
        uint32_t type = device_core_type(s->d, c);
        device_ready_queue *q = s->queue[type];
        if (enough[type] || device_ready_queue_empty(q) || s->retired[c])
            continue;
        if (asleep[c]) {
            if (awake[type] != 0 && !(s->stalled && s->depth == 1))
                continue;
            awake[type]++;
        }
        int short_tasks = s->task_ns < DEVICE_GATHER_NS;
        uint32_t held = s->posted[c] - s->seen[c];
        if (!device_sched_wants_refill(held, s->depth)) {
            enough[type] = short_tasks || (device_ready_queue_count(q) <= s->depth && held <= s->depth);
            continue;
        }
        fill(s, c, 1);
        enough[type] = short_tasks;
    }
}

/* Task `id` finished: mark it and release its successors. */
static void complete(device_sched *s, uint32_t id)
{
    const graph_image_task *t = &s->tasks[id];

    device_task_state_at(s->d, id)->status = DEVICE_TASK_DONE;
    s->completed++;
    s->in_flight--;
    for (uint32_t k = 0; k < t->fanout_count; k++) {
        uint32_t next = s->fanout[t->fanout_begin + k];
        device_task_state *ns = device_task_state_at(s->d, next);
        /* A successor already posted behind `id` (a chain) is RUNNING:
         * its release is the ring's order, not the queue. */
        if (--ns->fanin_remaining == 0 && ns->status == DEVICE_TASK_PENDING) {
            ns->status = DEVICE_TASK_READY;
            device_ready_queue_push(s->queue[s->tasks[next].core_type], next);
        }
    }
}

/* Core `core` completed `n` more tasks. Once its window holds
 * DEVICE_MEASURE_TASKS, the window's time per completion becomes task_ns
 * (which decides whether later cores get tasks) and a new window starts.
 * Time the core sat idle inside a window counts too: that errs towards
 * long, so towards spreading, which is where the old policy stood. */
void device_sched_measure(device_sched *s, uint32_t core, uint32_t n)
{
    if (s->window_start[core] != 0 && (s->window_done[core] += n) < DEVICE_MEASURE_TASKS)
        return;
    uint64_t now = s->hooks != NULL ? s->hooks->now() : device_now_ns();
    if (s->window_start[core] != 0 && now > s->window_start[core])
        s->task_ns = (now - s->window_start[core]) / s->window_done[core];
    s->window_start[core] = now;
    s->window_done[core] = 0;
}

/* Consumes every completion the cores published; returns how many. The
 * loads are sequentially consistent: they pair with the cores' check of
 * sched_sleeping (device_executor.c). */
uint32_t device_sched_collect(device_sched *s)
{
    uint32_t found = 0;
    for (uint32_t c = 0; c < s->cores; c++) {
        if (s->posted[c] == s->seen[c])
            continue;
        device_core_slot *slot = device_core_slot_at(s->d, c);
        uint32_t finished = atomic_load(&slot->finished);
        if (finished == s->seen[c])
            continue;
        device_sched_measure(s, c, finished - s->seen[c]);
        while (s->seen[c] != finished) {
            complete(s, slot->ring[s->seen[c] % DEVICE_SLOT_RING]);
            s->seen[c]++;
            found++;
        }
        /* Ran dry before we came back: it could have held more. */
        if (finished == s->posted[c] && s->depth < DEVICE_SLOT_RING)
            s->depth *= 2;
    }
    return found;
}

static int backlog(const device_sched *s)
{
    return !device_ready_queue_empty(s->queue[SIMPLER_CORE_TYPE_AIC]) ||
           !device_ready_queue_empty(s->queue[SIMPLER_CORE_TYPE_AIV]);
}

/* A whole spin passed without a completion: the tasks running are long.
 * Queues behind them wait, so hand out less per core from now on; and
 * tell dispatch that waking sleeping cores, and spreading, pays. */
void device_sched_stall(device_sched *s)
{
    s->stalled = 1;
    /* Long until a window says otherwise: a first window of long tasks
     * would take DEVICE_MEASURE_TASKS of them to close. */
    if (s->task_ns < DEVICE_GATHER_NS)
        s->task_ns = DEVICE_GATHER_NS;
    for (uint32_t c = 0; c < s->cores; c++) {
        if (s->posted[c] - s->seen[c] >= 2 && s->depth > 1) {
            s->depth /= 2;
            break;
        }
    }
}

/* Whether a core holding tasks has not arrived yet. Its tasks have not
 * started, so waiting for them says nothing about their length. */
static int holder_late(device_sched *s)
{
    for (uint32_t c = 0; c < s->cores; c++) {
        if (s->posted[c] != s->seen[c] && !device_sched_core_arrived(s, c))
            return 1;
    }
    return 0;
}

/* What a spin's pause phase passing without a completion means: a stall
 * when every core holding tasks was there the whole spin; while one is
 * late, nothing (its arrival is remembered in *late); once it arrives, a
 * whole spin more from then. */
int device_sched_spin_verdict(device_sched *s, int *late)
{
    if (holder_late(s)) {
        *late = 1;
        return SPIN_ON;
    }
    if (*late) {
        *late = 0;
        return SPIN_RESTART;
    }
    return SPIN_STALL;
}

/* Wakes every core that holds posted work and is asleep: one that went
 * to sleep as a post's unfenced store was on its way
 * (device_slot_post, device_slot_rouse). Called when a wait's pause
 * polls passed without a completion and before the scheduler blocks,
 * so the scheduler never blocks on a doorbell that only that core could
 * ring. Such a core sleeps until the scheduler's next wait that passes
 * its pause polls (or until its next post reads its flag): while other
 * cores' completions keep the scheduler from waiting that long, it is
 * not roused (a delay, never a hang: the scheduler waits once the work
 * not behind that core's is done). */
static void rouse_holders(device_sched *s)
{
    atomic_thread_fence(memory_order_seq_cst);
    for (uint32_t c = 0; c < s->cores; c++) {
        if (s->posted[c] != s->seen[c])
            device_slot_rouse(device_core_slot_at(s->d, c));
    }
}

/* Returns once at least one completion was consumed, or at a stall (the
 * pause phase of the spin passed, counted from the arrival of the last
 * late core holding tasks; once per completion) that leaves ready tasks
 * for dispatch to hand out. Without the arrival rule a launch whose
 * first AIV core arrived more than a spin late marked its empty tasks
 * long and spread them over every core. The doorbell is read before
 * the flag is set and the cores re-scanned; a core that finishes after
 * that scan sees the flag and changes the doorbell, so the futex wait
 * cannot miss it. */
static void await_completions(device_sched *s)
{
    device_spin spin = DEVICE_SPIN_INIT(DEVICE_SPIN_YIELD_NS);
    int late = 0, roused = 0;
    for (;;) {
        if (device_sched_collect(s) > 0) {
            s->stalled = 0;
            return;
        }
        if (device_spin_step(&spin)) {
            if (!roused && spin.polls >= DEVICE_SPIN_POLLS) {
                rouse_holders(s);
                roused = 1;
            }
            if (!s->stalled && spin.polls >= DEVICE_SPIN_POLLS) {
                int verdict = device_sched_spin_verdict(s, &late);
                if (verdict == SPIN_RESTART)
                    spin.polls = 0;
                if (verdict == SPIN_STALL) {
                    device_sched_stall(s);
                    if (backlog(s))
                        return;
                }
            }
            continue;
        }
        /* Nothing in flight: no completion can come, so sleeping would be
         * forever; hand out the backlog again instead (dispatch always
         * posts when cores hold nothing, so this is only a safety net). */
        if (s->in_flight == 0)
            return;
        uint32_t bell = atomic_load(&s->rt->doorbell);
        atomic_store(&s->rt->sched_sleeping, 1);
        if (device_sched_collect(s) > 0) {
            atomic_store(&s->rt->sched_sleeping, 0);
            s->stalled = 0;
            return;
        }
        if (atomic_load(&s->rt->refused)) {
            atomic_store(&s->rt->sched_sleeping, 0);
            return; /* run_graph ends the execution */
        }
        rouse_holders(s);
        device_wait_block(&s->rt->doorbell, bell);
        atomic_store(&s->rt->sched_sleeping, 0);
        spin = (device_spin)DEVICE_SPIN_INIT(DEVICE_SPIN_YIELD_NS);
        roused = 0;
    }
}

/* The first tasks go out before dispatch is announced (release), so a
 * core that finds it announced with nothing posted knows no work is on
 * its way and sleeps without spinning (device_slot_await_start). */
void device_sched_announce_dispatch(device_sched *s)
{
    device_sched_dispatch(s);
    atomic_store_explicit(&s->rt->dispatching, 1, memory_order_release);
}

/* Whether an executor block refused its copy of the descriptor (kernel
 * mode, kernel_executor_kernel): it never arrives, so the tasks posted
 * to its core would be waited for forever. It rings the doorbell after
 * raising the flag, so a scheduler blocked on the doorbell wakes and
 * comes here. */
static int executor_refused(const device_sched *s)
{
    return atomic_load_explicit(&s->rt->refused, memory_order_acquire) != 0;
}

/* Returns 0, or DEVICE_ERR_DESC_SEAL when an executor refused its copy
 * of the descriptor: the execution ends with the tasks it had. */
static int run_graph(const device_run_desc *d, int image_passed)
{
    const uint8_t *image = (const uint8_t *)(uintptr_t)d->definition_base;
    const graph_image_header *h = (const graph_image_header *)image;
    device_sched s = {
        .d = d,
        .tasks = (const graph_image_task *)(image + h->task_offset),
        .fanout = (const uint32_t *)(image + h->fanout_offset),
        .chains = image_passed ? NULL : device_validate_chains(d),
        .rt = device_runtime_header_at(d),
        .cores = d->aic_count + d->aiv_count,
        .depth = 1,
    };

    device_sched_seed(&s);
    device_sched_retire(&s);
    device_sched_announce_dispatch(&s);
    while (s.completed < d->task_count) {
        if (executor_refused(&s))
            return DEVICE_ERR_DESC_SEAL;
        device_sched_dispatch(&s);
        await_completions(&s);
    }
    return executor_refused(&s) ? DEVICE_ERR_DESC_SEAL : DEVICE_STATUS_OK;
}

/* A new execution's header: what it runs, its run count (a replay of
 * the same packet counts on), the scheduler's records marked unwritten. */
static void reset_trace(const device_run_desc *d)
{
    device_trace_header *h = (device_trace_header *)(uintptr_t)d->trace_base;
    device_trace_record *sched = (device_trace_record *)(h + 1);
    uint64_t capacity = (d->trace_bytes - sizeof(*h)) / sizeof(device_trace_record);
    int again = h->magic == DEVICE_TRACE_MAGIC && h->version == DEVICE_TRACE_VERSION && h->serial == d->serial;
    uint32_t runs = again ? h->runs + 1 : 1;

    memset(h, 0, sizeof(*h));
    h->magic = DEVICE_TRACE_MAGIC;
    h->version = DEVICE_TRACE_VERSION;
    h->capacity = capacity > UINT32_MAX ? UINT32_MAX : (uint32_t)capacity;
    h->record_count = DEVICE_TRACE_SCHED_RECORDS;
    h->task_count = d->task_count;
    h->serial = d->serial;
    h->generation = d->generation;
    h->kernels_addr = (uint64_t)(uintptr_t)d->kernels;
    h->image_bytes = d->image_bytes;
    h->runs = runs;
    h->aic_count = (uint16_t)d->aic_count;
    h->aiv_count = (uint16_t)d->aiv_count;
    memset(sched, 0, DEVICE_TRACE_SCHED_RECORDS * sizeof(*sched));
    for (uint32_t i = 0; i < DEVICE_TRACE_SCHED_RECORDS; i++)
        sched[i].kind = DEVICE_TRACE_KIND_EMPTY;
}

/* The scheduler's two phases, at their reserved indexes. */
static void trace_sched(const device_run_desc *d, uint64_t t0, uint64_t t1, uint64_t t2)
{
    device_trace_record *r = (device_trace_record *)((device_trace_header *)(uintptr_t)d->trace_base + 1);
    r[DEVICE_TRACE_SCHED_PREPARE] = (device_trace_record){t0, t1, DEVICE_TRACE_SCHED_PREPARE, -1, 0, 0,
                                                          DEVICE_TRACE_KIND_SCHED};
    r[DEVICE_TRACE_SCHED_DISPATCH] = (device_trace_record){t1, t2, DEVICE_TRACE_SCHED_DISPATCH, -1, 0, 0,
                                                           DEVICE_TRACE_KIND_SCHED};
}

/* Refuses the execution: status word, stream fault, quit. A descriptor
 * that cannot place the handshake slots leaves the cores alone (the host
 * side of the chain refuses such a descriptor before enqueueing). */
static void refuse(const device_run_desc *d, int status, int slots_usable)
{
    write_status(d, status);
    if (d->report_fault != NULL)
        d->report_fault(PLATFORM_KERNEL_FAULT_CODE);
    if (slots_usable)
        device_slots_quit(d);
}

/* The scheduler's whole execution: `passed` as device_scheduler_run
 * (NULL: the image is always checked). */
static void execute(const device_run_desc *d, uint64_t checksum, uint64_t *passed)
{
    int rc;
    uint64_t t0 = device_now_ns();
    rc = device_validate_desc(d);
    if (rc != DEVICE_STATUS_OK) {
        refuse(d, rc, rc != DEVICE_ERR_PACKET_INVALID);
        return;
    }
    /* Kernel mode: restore the immutable packet into the working slot
     * before every execution, eager or replay. */
    if (d->inline_bytes != 0)
        memcpy((void *)(uintptr_t)d->definition_base, d + 1, d->inline_bytes);
    int known = passed != NULL && checksum != 0 && *passed == checksum;
    rc = device_validate_image_known(d, known);
    if (rc != DEVICE_STATUS_OK) {
        refuse(d, rc, 1);
        return;
    }
    if (passed != NULL)
        *passed = checksum;
    if (d->trace_base != 0)
        reset_trace(d);
    uint64_t t1 = device_now_ns();
    rc = run_graph(d, known);
    if (rc != DEVICE_STATUS_OK) {
        refuse(d, rc, 1);
        return;
    }
    device_runtime_header *rt = device_runtime_header_at(d);
    rt->prepare_ns = t1 - t0;
    uint64_t t2 = device_now_ns();
    rt->graph_ns = t2 - t1;
    if (d->trace_base != 0)
        trace_sched(d, t0, t1, t2);
    write_status(d, DEVICE_STATUS_OK); /* release: the timings travel with it */
    device_slots_quit(d);
}

void device_scheduler_kernel(uint32_t block_idx, uint32_t block_dim, const void *args)
{
    (void)block_dim;
    if (block_idx == 0)
        execute(args, 0, NULL);
}

void device_scheduler_run(const device_run_desc *d, uint64_t checksum, uint64_t *passed)
{
    execute(d, checksum, passed);
}

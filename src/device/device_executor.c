/*
 * The AICore executor: one block per core, each serving its handshake
 * slot: wait for a task, run its kernel, publish DONE, ring the doorbell.
 */
#include <string.h>

#include "device/device_executor_internal.h"
#include "device/device_handshake.h"
#include "device/device_kernels.h"
#include "device/device_slot.h"
#include "device/device_wait.h"
#include "device/trace_record.h"

static void trace_task(const device_run_desc *d, const SimplerKernelArgs *k, uint64_t start, uint64_t end)
{
    device_trace_header *h = (device_trace_header *)(uintptr_t)d->trace_base;
    _Atomic uint32_t *count = (_Atomic uint32_t *)&h->record_count;
    uint32_t index = atomic_fetch_add_explicit(count, 1, memory_order_relaxed);
    if (index >= h->capacity) {
        atomic_fetch_add_explicit((_Atomic uint32_t *)&h->dropped, 1, memory_order_relaxed);
        return;
    }
    device_trace_record *r = (device_trace_record *)(h + 1) + index;
    r->start_ns = start;
    r->end_ns = end;
    r->task_id = k->task_id;
    r->func_id = k->func_id;
    r->core_id = k->core_id;
    r->core_type = (uint16_t)k->core_type;
    r->kind = DEVICE_TRACE_KIND_TASK;
}

/* What a block reads per task, fixed for the execution: the image's
 * sections and the kernel table, resolved once when the first tasks
 * are posted (the acquire of `posted` makes the restored, validated
 * image visible), and the kernel arguments' fixed fields. A kernel call
 * is opaque to the compiler, so reading these through the descriptor
 * and the image header reloaded them after every task. */
typedef struct exec_view {
    const graph_image_task *tasks;
    const graph_image_arg *args;
    const graph_image_view *views;
    const device_kernel_entry *entries;
    uint64_t base[DEVICE_EXECUTOR_BASES];
    uint32_t task_count;
    int trace;
} exec_view;

static void exec_view_resolve(const device_run_desc *d, exec_view *v)
{
    const uint8_t *image = (const uint8_t *)(uintptr_t)d->definition_base;
    const graph_image_header *h = (const graph_image_header *)image;
    v->tasks = (const graph_image_task *)(image + h->task_offset);
    v->args = (const graph_image_arg *)(image + h->arg_offset);
    v->views = (const graph_image_view *)(image + h->view_offset);
    v->entries = d->kernels->entries;
    device_executor_bases(d, v->base);
    v->task_count = d->task_count;
    v->trace = d->trace_base != 0;
}

/* Runs task `id` on the block's core. The scheduler validated the image
 * and the kernel table first. `k` holds the block's fixed fields; the
 * task's own are written here. */
static void run_task(const device_run_desc *d, const exec_view *v, uint32_t id, device_executor_args *c,
                     SimplerKernelArgs *k)
{
    const graph_image_task *task = &v->tasks[id];
    const graph_image_arg *arg = &v->args[task->arg_begin];
    const uint32_t count = task->arg_count;
    uint32_t tensors = 0, scalars = 0;

    for (uint32_t i = 0; i < count; i++, arg++) {
        if (arg->kind == GRAPH_ARG_TENSOR)
            device_executor_fill_tensor(v->base, v->views, arg, c, tensors++);
        else
            c->scalars[scalars++] = arg->addr;
    }
    k->func_id = task->func_id;
    k->task_id = id;
    k->tensor_count = tensors;
    k->scalar_count = scalars;
    SimplerKernelEntryFn fn = v->entries[task->func_id].fn;
    if (!v->trace) {
        fn(k);
        return;
    }
    uint64_t start = device_now_ns();
    fn(k);
    trace_task(d, k, start, device_now_ns());
}

/* A core with a backlog publishes its finished count every this many
 * tasks, and always when it runs out of posted work. The scheduler polls
 * the count, so every publication takes the line back from its cache (a
 * cross-CPU round trip): publishing every 4th task cost measurably more
 * than every 16th. The scheduler refills a ring once a quarter of it is
 * free (16 of 64), so each publication can be answered before the ring
 * runs dry. */
#define DEVICE_PUBLISH_EVERY 16u

/* Publishes the count while the core still holds work: a release store,
 * which the core does not wait for. A sequentially consistent one (a
 * locked instruction on x86) held the core until the line came back
 * from the polling scheduler, a large share of a busy core's time.
 * Without the fence the scheduler may
 * read the flag too early and sleep past this count; the core's next
 * publication when it runs out of work is fenced (publish_idle), so the
 * scheduler is woken no later than that, and no completion is lost. */
static void publish_busy(device_core_slot *slot, device_runtime_header *rt, uint32_t done)
{
    atomic_store_explicit(&slot->finished, done, memory_order_release);
    if (atomic_load_explicit(&rt->sched_sleeping, memory_order_relaxed)) {
        atomic_fetch_add(&rt->doorbell, 1);
        device_wait_wake(&rt->doorbell);
    }
}

/* Publishes the count before the core waits for more. The doorbell is
 * rung whenever the scheduler may sleep: it sets its flag and then
 * re-scans `finished` (both sequentially consistent), so either it sees
 * this count or we see its flag and change the word it blocks on. */
static void publish_idle(device_core_slot *slot, device_runtime_header *rt, uint32_t done)
{
    atomic_store(&slot->finished, done);
    if (atomic_load(&rt->sched_sleeping)) {
        atomic_fetch_add(&rt->doorbell, 1);
        device_wait_wake(&rt->doorbell);
    }
}

/* An argument-slot launch's executor learns the packet's task count and
 * kernel table when its first tasks are posted: the scheduler published
 * them in the runtime header before posting (the acquire load of
 * `posted` makes them visible). 0, or -1 when nothing was published. */
static int deferred_resolve(device_run_desc *local, device_runtime_header *rt)
{
    uint64_t kernels = atomic_load_explicit(&rt->kernels_addr, memory_order_acquire);
    if (kernels == 0 || rt->task_count == 0)
        return -1;
    local->kernels = (const device_kernel_table *)(uintptr_t)kernels;
    local->task_count = rt->task_count;
    local->deferred = 0;
    return 0;
}

void device_executor_kernel(uint32_t block, uint32_t block_dim, const void *args)
{
    const device_run_desc *d = args;
    device_run_desc local;
    (void)block_dim;
    if (block >= device_run_desc_blocks(d))
        return;
    /* The core this block serves: with only some cores started, the
     * AIV ones keep their numbers among all the configured cores. */
    uint32_t block_idx = device_run_desc_block_core(d, block);
    if (block_idx >= DEVICE_CORE_MAX || block_idx >= d->aic_count + d->aiv_count)
        return;
    /* Kernel mode: an execution refused at the gate leaves the handshake
     * slots, which belong to the one running, alone. */
    if (d->gate_addr != 0 &&
        atomic_load_explicit((_Atomic uint64_t *)(uintptr_t)d->gate_addr, memory_order_acquire) != d->serial)
        return;
    if (d->deferred) {
        local = *d;
        d = &local;
    }
    device_core_slot *slot = device_core_slot_at(d, block_idx);
    device_runtime_header *rt = device_runtime_header_at(d);
    uint32_t done = 0;
    atomic_store_explicit(&slot->arrived, 1, memory_order_relaxed);
    device_executor_args args_kept;
    device_executor_args_init(&args_kept);
    exec_view view = {0};
    SimplerKernelArgs k = {
        .struct_size = sizeof(SimplerKernelArgs),
        .abi_version = SIMPLER_KERNEL_ABI_VERSION,
        .block_dim = 1,
        .core_id = block_idx,
        .core_type = device_core_type(d, block_idx),
        .tensors = args_kept.tensors,
        .scalars = args_kept.scalars,
    };

    /* A core the scheduler gave nothing when it started dispatching
     * skips the pause phase: its pauses would only hold the AICore CPU
     * against the cores that got work. With other cores started, a
     * core's next task may be one another core's work releases (a chain
     * that changes core type), so it yields before it sleeps: the CPU
     * goes to those cores, and it is there when the task is posted. A
     * lone core's work comes from the scheduler's answers to its own
     * completions, within the pause phase unless the scheduler lost its
     * CPU; its yields would only hand the CPU to other processes, and a
     * sleeper gets it back sooner when woken (measured on a chain;
     * docs/performance.md). */
    uint32_t polls = device_slot_await_start(slot, &rt->dispatching, DEVICE_CORE_START_YIELD_NS) ? 0 : DEVICE_SPIN_POLLS;
    uint32_t yield_ns = device_run_desc_blocks(d) > 1 ? DEVICE_CORE_YIELD_NS : 0;
    /* Among others, a core's pauses hold the CPU the core it waits for
     * may need (DEVICE_CORE_SHARED_POLLS). */
    uint32_t again = yield_ns != 0 ? DEVICE_CORE_SHARED_POLLS : DEVICE_SPIN_POLLS;
    for (;;) {
        uint32_t posted = device_slot_wait(slot, done, polls, yield_ns);
        polls = again;
        if (posted == done || posted - done > DEVICE_SLOT_RING)
            return;
        if (d->deferred && deferred_resolve(&local, rt) != 0)
            return;
        if (view.tasks == NULL)
            exec_view_resolve(d, &view);
        /* Run what was posted, in order; a QUIT between tasks wins. */
        for (;;) {
            while (done != posted) {
                uint32_t id = slot->ring[done % DEVICE_SLOT_RING];
                /* device_slot_quitting, inline: it is asked per task. */
                if (id >= view.task_count ||
                    atomic_load_explicit(&slot->state, memory_order_acquire) != DEVICE_SLOT_IDLE)
                    return;
                run_task(d, &view, id, &args_kept, &k);
                /* Every DEVICE_PUBLISH_EVERY-th task keeps the scheduler
                 * current while the ring holds work. */
                if (++done % DEVICE_PUBLISH_EVERY == 0)
                    publish_busy(slot, rt, done);
            }
            /* Refilled meanwhile: carry on, with no fenced publication
             * and no wait. */
            posted = atomic_load_explicit(&slot->posted, memory_order_acquire);
            if (posted == done || posted - done > DEVICE_SLOT_RING)
                break;
        }
        publish_idle(slot, rt, done);
    }
}

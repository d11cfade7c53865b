/*
 * The scheduler's dispatch pass (device_scheduler_internal.h, with a
 * hooked reader of the cores' sleeping flags): a core that falls asleep
 * after dispatch counted it awake must still be served, or a type with
 * ready tasks and nothing in flight is left with nobody to run them and
 * the scheduler blocks on its doorbell forever. Also with a hooked clock:
 * how the time per task is measured, and that short tasks stay on one
 * core while long ones spread. And cores whose block has not started:
 * served only when no core of their type is there, and not taken for
 * slow while their tasks wait for them.
 */
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "device/device_scheduler_internal.h"
#include "device/device_slot.h"

static int flag_reads;
static int flip_core = -1; /* reads awake on its first read, asleep after */
static uint64_t clock_ns = 1000; /* what the scheduler reads as the time */
static uint64_t test_now(void)
{
    return clock_ns;
}

static uint32_t dispatching_at_flag_read = UINT32_MAX;
static int test_asleep(device_sched *s, uint32_t core)
{
    flag_reads++;
    dispatching_at_flag_read = atomic_load(&s->rt->dispatching);
    if ((int)core == flip_core) {
        flip_core = -2; /* the next read of it says asleep */
        return 0;
    }
    if (flip_core == -2 && core == 1)
        return 1;
    return device_sched_core_asleep(s, core);
}

static const device_sched_hooks test_hooks = {.now = test_now, .asleep = test_asleep};

typedef struct fixture {
    device_run_desc d;
    void *runtime, *queues;
    graph_image_task tasks[4]; /* no fan-out: collect only marks them done */
    uint32_t chains[4];        /* the image check's chain links (seed) */
    device_sched s;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof(*f));
    if (f == NULL)
        return -1;
    f->d.aic_count = 1;
    f->d.aiv_count = 1;
    f->d.task_count = 4;
    f->runtime = aligned_alloc(1024, (graph_runtime_arena_bytes(4) + 1023) / 1024 * 1024);
    f->queues = aligned_alloc(64, (graph_scheduler_state_bytes(4) + 63) / 64 * 64);
    if (f->runtime == NULL || f->queues == NULL)
        return -1;
    memset(f->runtime, 0, graph_runtime_arena_bytes(4));
    f->d.runtime_base = (uintptr_t)f->runtime;
    f->d.scheduler_base = (uintptr_t)f->queues;
    f->s.d = &f->d;
    f->s.hooks = &test_hooks;
    f->s.tasks = f->tasks;
    f->s.chains = f->chains;
    f->s.rt = device_runtime_header_at(&f->d);
    f->s.cores = 2;
    f->s.depth = 2;
    f->s.queue[SIMPLER_CORE_TYPE_AIC] = device_ready_queue_reset(&f->d, SIMPLER_CORE_TYPE_AIC);
    f->s.queue[SIMPLER_CORE_TYPE_AIV] = device_ready_queue_reset(&f->d, SIMPLER_CORE_TYPE_AIV);
    /* Both cores arrived, unless a test says otherwise. */
    atomic_store(&device_core_slot_at(&f->d, 0)->arrived, 1);
    atomic_store(&device_core_slot_at(&f->d, 1)->arrived, 1);
    flag_reads = 0;
    flip_core = -1;
    clock_ns = 1000;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    free(f->runtime);
    free(f->queues);
    free(f);
    return 0;
}

/* Core 1 (the only AIV core) is counted awake, then reads asleep. */
static void dispatch_serves_a_core_that_fell_asleep_during_the_pass(void **state)
{
    fixture *f = *state;
    device_ready_queue_push(f->s.queue[SIMPLER_CORE_TYPE_AIV], 3);
    atomic_store(&device_core_slot_at(&f->d, 0)->sleeping, 1);
    atomic_store(&device_core_slot_at(&f->d, 1)->sleeping, 1);
    flip_core = 1;
    device_sched_dispatch(&f->s);
    assert_int_equal(f->s.posted[1], 1);
    assert_int_equal(device_core_slot_at(&f->d, 1)->ring[0], 3);
    assert_int_equal(atomic_load(&device_core_slot_at(&f->d, 1)->posted), 1);
    /* It was asleep when posted to, so its bell rang. */
    assert_int_equal(atomic_load(&device_core_slot_at(&f->d, 1)->bell), 1);
    assert_true(device_ready_queue_empty(f->s.queue[SIMPLER_CORE_TYPE_AIV]));
}

/* With every core of the type asleep, one is woken for the backlog. */
static void dispatch_wakes_one_core_when_none_of_the_type_is_awake(void **state)
{
    fixture *f = *state;
    device_ready_queue_push(f->s.queue[SIMPLER_CORE_TYPE_AIV], 2);
    atomic_store(&device_core_slot_at(&f->d, 0)->sleeping, 1);
    atomic_store(&device_core_slot_at(&f->d, 1)->sleeping, 1);
    device_sched_dispatch(&f->s);
    assert_int_equal(f->s.posted[1], 1);
    assert_int_equal(f->s.posted[0], 0); /* the AIC core has nothing to run */
    assert_int_equal(atomic_load(&device_core_slot_at(&f->d, 0)->bell), 0);
}

/* The first tasks are posted before dispatch is announced: a core that
 * sees it announced with nothing posted may sleep at once. */
static void first_tasks_go_out_before_dispatch_is_announced(void **state)
{
    fixture *f = *state;
    device_ready_queue_push(f->s.queue[SIMPLER_CORE_TYPE_AIV], 0);
    device_sched_announce_dispatch(&f->s);
    assert_int_equal(dispatching_at_flag_read, 0);
    assert_int_equal(atomic_load(&device_core_slot_at(&f->d, 1)->posted), 1);
    assert_int_equal(atomic_load(&f->s.rt->dispatching), 1);
}

/* Both cores AIV and awake, three tasks ready, depth 1. */
static void two_awake_aiv_cores(fixture *f)
{
    f->d.aic_count = 0;
    f->d.aiv_count = 2;
    for (uint32_t t = 0; t < 3; t++)
        device_ready_queue_push(f->s.queue[SIMPLER_CORE_TYPE_AIV], t);
    f->s.depth = 1;
}

/* Tasks measured shorter than DEVICE_GATHER_NS all go to the first awake
 * core, even with more ready than it holds. */
static void dispatch_keeps_short_tasks_on_one_core(void **state)
{
    fixture *f = *state;
    two_awake_aiv_cores(f);
    f->s.task_ns = DEVICE_GATHER_NS - 1;
    device_sched_dispatch(&f->s);
    assert_int_equal(f->s.posted[0], 1);
    assert_int_equal(f->s.posted[1], 0);
    /* A later pass with core 0 still busy leaves core 1 idle too. */
    device_sched_dispatch(&f->s);
    assert_int_equal(f->s.posted[1], 0);
    assert_int_equal(device_ready_queue_count(f->s.queue[SIMPLER_CORE_TYPE_AIV]), 2);
}

/* Long tasks go to every awake core with room. */
static void dispatch_spreads_long_tasks(void **state)
{
    fixture *f = *state;
    two_awake_aiv_cores(f);
    f->s.task_ns = DEVICE_GATHER_NS;
    device_sched_dispatch(&f->s);
    assert_int_equal(f->s.posted[0], 1);
    assert_int_equal(f->s.posted[1], 1);
}

/* A core's time per task: over windows of DEVICE_MEASURE_TASKS
 * completions, the first starting at its first completion. */
static void measure_times_windows_of_completions(void **state)
{
    fixture *f = *state;
    device_sched_measure(&f->s, 0, 1); /* opens the window at 1000 */
    assert_int_equal(f->s.task_ns, 0);
    clock_ns = 1000 + (DEVICE_MEASURE_TASKS - 1) * 300;
    device_sched_measure(&f->s, 0, DEVICE_MEASURE_TASKS - 1);
    assert_int_equal(f->s.task_ns, 0); /* one short of a window */
    clock_ns = 1000 + DEVICE_MEASURE_TASKS * 300;
    device_sched_measure(&f->s, 0, 1);
    assert_int_equal(f->s.task_ns, 300);
    /* The next window starts where that one ended. */
    clock_ns += DEVICE_MEASURE_TASKS * 5000;
    device_sched_measure(&f->s, 0, DEVICE_MEASURE_TASKS);
    assert_int_equal(f->s.task_ns, 5000);
}

/* collect counts what it consumes into the core's window. */
static void collect_feeds_the_measuring_window(void **state)
{
    fixture *f = *state;
    f->d.aic_count = 0;
    f->d.aiv_count = 2;
    for (uint32_t t = 0; t < 4; t++)
        device_ready_queue_push(f->s.queue[SIMPLER_CORE_TYPE_AIV], t);
    f->s.depth = 4;
    device_sched_dispatch(&f->s);
    assert_int_equal(f->s.posted[0], 4);
    device_core_slot *slot = device_core_slot_at(&f->d, 0);
    atomic_store(&slot->finished, 1);
    assert_int_equal(device_sched_collect(&f->s), 1);
    assert_int_equal(f->s.window_start[0], 1000);
    clock_ns = 2000;
    atomic_store(&slot->finished, 4);
    assert_int_equal(device_sched_collect(&f->s), 3);
    assert_int_equal(f->s.window_done[0], 3);
}

/* A stall (a whole spin without a completion) counts as long tasks until
 * a window measures them. */
static void stall_marks_tasks_long(void **state)
{
    fixture *f = *state;
    f->s.task_ns = 100;
    device_sched_stall(&f->s);
    assert_true(f->s.task_ns >= DEVICE_GATHER_NS);
}

/* Long tasks and core 1 arrived, core 0 not yet: the tasks go to core
 * 1, and core 0 is left for when it comes. */
static void dispatch_serves_cores_that_arrived(void **state)
{
    fixture *f = *state;
    two_awake_aiv_cores(f);
    f->s.task_ns = DEVICE_GATHER_NS;
    atomic_store(&device_core_slot_at(&f->d, 0)->arrived, 0);
    device_sched_dispatch(&f->s);
    assert_int_equal(f->s.posted[0], 0);
    assert_int_equal(f->s.posted[1], 1);
}

/* With no core of the type there yet, one of them still gets the tasks:
 * they wait in its ring for it. */
static void dispatch_posts_to_a_late_core_when_none_arrived(void **state)
{
    fixture *f = *state;
    two_awake_aiv_cores(f);
    atomic_store(&device_core_slot_at(&f->d, 0)->arrived, 0);
    atomic_store(&device_core_slot_at(&f->d, 1)->arrived, 0);
    device_sched_dispatch(&f->s);
    assert_int_equal(f->s.posted[0] + f->s.posted[1], 1);
}

/* Core 1 holds a task and has not arrived: a spin without a completion
 * is no stall; once it arrives, a whole spin more; then a stall. */
static void a_late_core_is_waited_for_not_taken_for_slow(void **state)
{
    fixture *f = *state;
    int late = 0;
    device_ready_queue_push(f->s.queue[SIMPLER_CORE_TYPE_AIV], 3);
    atomic_store(&device_core_slot_at(&f->d, 1)->arrived, 0);
    device_sched_dispatch(&f->s);
    assert_int_equal(f->s.posted[1], 1);
    assert_int_equal(device_sched_spin_verdict(&f->s, &late), SPIN_ON);
    assert_int_equal(device_sched_spin_verdict(&f->s, &late), SPIN_ON);
    atomic_store(&device_core_slot_at(&f->d, 1)->arrived, 1);
    assert_int_equal(device_sched_spin_verdict(&f->s, &late), SPIN_RESTART);
    assert_int_equal(device_sched_spin_verdict(&f->s, &late), SPIN_STALL);
}

/* A late core holding nothing does not hold the stall back. */
static void only_late_cores_holding_tasks_count(void **state)
{
    fixture *f = *state;
    int late = 0;
    device_ready_queue_push(f->s.queue[SIMPLER_CORE_TYPE_AIV], 3);
    atomic_store(&device_core_slot_at(&f->d, 0)->arrived, 0);
    device_sched_dispatch(&f->s);
    assert_int_equal(f->s.posted[0], 0);
    assert_int_equal(f->s.posted[1], 1);
    assert_int_equal(device_sched_spin_verdict(&f->s, &late), SPIN_STALL);
}

/* An arrival, once read, is not read again: it cannot be undone within
 * an execution (only the arena clear between executions resets it). */
static void an_arrival_is_read_once(void **state)
{
    fixture *f = *state;
    device_core_slot *slot = device_core_slot_at(&f->d, 1);
    atomic_store(&slot->arrived, 0);
    assert_false(device_sched_core_arrived(&f->s, 1));
    atomic_store(&slot->arrived, 1);
    assert_true(device_sched_core_arrived(&f->s, 1));
    atomic_store(&slot->arrived, 0); /* never happens; shows the word is not read */
    assert_true(device_sched_core_arrived(&f->s, 1));
}

/* Tasks 0 -> 1 -> 2 -> 3 on AIV, each the only predecessor of the next
 * (fan-out lists in f->fanout), on two awake AIV cores, seeded: task 0
 * ready. A test that changes the tasks seeds again. */
static uint32_t chain_fanout[3] = {1, 2, 3};
/* Seeds as the scheduler does after the image check, which leaves each
 * task's chain link where f->s.chains points. */
static void seed(fixture *f)
{
    for (uint32_t t = 0; t < 4; t++)
        ((uint32_t *)(uintptr_t)f->s.chains)[t] =
            graph_image_chain_next(f->tasks, f->s.fanout, t);
    device_sched_seed(&f->s);
}

static void aiv_chain_of_four(fixture *f, uint32_t depth)
{
    f->d.aic_count = 0;
    f->d.aiv_count = 2;
    for (uint32_t t = 0; t < 4; t++) {
        f->tasks[t].core_type = SIMPLER_CORE_TYPE_AIV;
        f->tasks[t].fanin_count = t == 0 ? 0 : 1;
        f->tasks[t].fanout_begin = t;
        f->tasks[t].fanout_count = t == 3 ? 0 : 1;
    }
    f->s.fanout = chain_fanout;
    f->s.depth = depth;
    seed(f);
}

/* A task whose only predecessor is posted to a core goes into that
 * core's ring right behind it: the core starts it when the predecessor
 * finished, with no round trip through the scheduler. */
static void a_chain_is_posted_behind_its_predecessor_on_one_core(void **state)
{
    fixture *f = *state;
    aiv_chain_of_four(f, 4);
    device_sched_dispatch(&f->s);
    device_core_slot *slot = device_core_slot_at(&f->d, 0);
    assert_int_equal(f->s.posted[0], 4);
    assert_int_equal(f->s.posted[1], 0);
    for (uint32_t t = 0; t < 4; t++) {
        assert_int_equal(slot->ring[t], t);
        assert_int_equal(device_task_state_at(&f->d, t)->status, DEVICE_TASK_RUNNING);
        assert_int_equal(device_task_state_at(&f->d, t)->core, 0);
    }
}

/* Every completion of a chain posted ahead is consumed once, and a
 * successor already posted is not released into the ready queue again. */
static void a_chain_posted_ahead_completes_each_task_once(void **state)
{
    fixture *f = *state;
    aiv_chain_of_four(f, 4);
    device_sched_dispatch(&f->s);
    atomic_store(&device_core_slot_at(&f->d, 0)->finished, 4);
    assert_int_equal(device_sched_collect(&f->s), 4);
    assert_int_equal(f->s.completed, 4);
    assert_int_equal(f->s.in_flight, 0);
    assert_true(device_ready_queue_empty(f->s.queue[SIMPLER_CORE_TYPE_AIV]));
    for (uint32_t t = 0; t < 4; t++)
        assert_int_equal(device_task_state_at(&f->d, t)->status, DEVICE_TASK_DONE);
    device_sched_dispatch(&f->s);
    assert_int_equal(f->s.posted[0], 4);
}

/* The chain goes on in batches: once a quarter of what the core may
 * hold is free, the tasks behind its last one follow, even with nothing
 * in the ready queue. Long tasks: the chain is held to depth. */
static void a_chain_is_refilled_as_its_core_drains(void **state)
{
    fixture *f = *state;
    aiv_chain_of_four(f, 3);
    f->s.task_ns = DEVICE_GATHER_NS;
    device_sched_dispatch(&f->s);
    assert_int_equal(f->s.posted[0], 3);
    atomic_store(&device_core_slot_at(&f->d, 0)->finished, 2);
    assert_int_equal(device_sched_collect(&f->s), 2);
    assert_true(device_ready_queue_empty(f->s.queue[SIMPLER_CORE_TYPE_AIV]));
    device_sched_dispatch(&f->s);
    assert_int_equal(f->s.posted[0], 4);
    assert_int_equal(device_core_slot_at(&f->d, 0)->ring[3], 3);
}

/* At depth 1 with long tasks the successor cannot be posted ahead; its
 * predecessor's completion releases it through the queue, and it is
 * posted once. */
static void a_chain_successor_released_first_is_posted_once(void **state)
{
    fixture *f = *state;
    aiv_chain_of_four(f, 1);
    f->s.task_ns = DEVICE_GATHER_NS;
    device_sched_dispatch(&f->s);
    assert_int_equal(f->s.posted[0], 1);
    atomic_store(&device_core_slot_at(&f->d, 0)->finished, 1);
    assert_int_equal(device_sched_collect(&f->s), 1);
    f->s.depth = 1; /* collect doubled it: the core ran dry */
    device_sched_dispatch(&f->s);
    assert_int_equal(f->s.posted[0] + f->s.posted[1], 2);
    assert_true(device_ready_queue_empty(f->s.queue[SIMPLER_CORE_TYPE_AIV]));
    f->s.depth = 4;
    device_sched_dispatch(&f->s);
    /* 2 and 3 follow 1; nothing is posted twice. */
    assert_int_equal(f->s.posted[0] + f->s.posted[1], 4);
    assert_int_equal(f->s.in_flight, 3);
}

/* Short tasks: a chain runs ahead up to the whole ring whatever the
 * depth, so even at the start (depth 1) a chain's second task does not
 * wait for a round trip through the scheduler. */
static void a_chain_of_short_tasks_runs_ahead_beyond_depth(void **state)
{
    fixture *f = *state;
    aiv_chain_of_four(f, 1);
    device_sched_dispatch(&f->s);
    assert_int_equal(f->s.posted[0], 4);
    assert_int_equal(f->s.in_flight, 4);
    for (uint32_t t = 0; t < 4; t++)
        assert_int_equal(device_core_slot_at(&f->d, 0)->ring[t], t);
}

/* A core holding a chain beyond depth (posted while tasks were short)
 * will not reach a ready task soon: once tasks are long, that task goes
 * to another awake core instead of waiting behind the chain. */
static void a_ready_task_is_not_held_behind_a_chain_beyond_depth(void **state)
{
    fixture *f = *state;
    aiv_chain_of_four(f, 1);
    f->tasks[2].fanout_count = 0; /* chain 0 -> 1 -> 2; task 3 independent, ready */
    f->tasks[3].fanin_count = 0;
    seed(f);
    device_sched_dispatch(&f->s);
    assert_int_equal(f->s.posted[0], 3);
    assert_int_equal(f->s.posted[1], 0); /* short: task 3 waits for core 0 */
    f->s.task_ns = DEVICE_GATHER_NS;
    device_sched_dispatch(&f->s);
    assert_int_equal(f->s.posted[1], 1);
    assert_int_equal(device_core_slot_at(&f->d, 1)->ring[0], 3);
}

/* A ring is topped up once a quarter of its depth is free, before the
 * core (which publishes every quarter of a full ring) runs dry. */
static void a_core_is_refilled_once_a_quarter_is_free(void **state)
{
    fixture *f = *state;
    assert_true(device_sched_wants_refill(48, 64));
    assert_false(device_sched_wants_refill(49, 64));
    assert_true(device_sched_wants_refill(0, 1));
    assert_false(device_sched_wants_refill(1, 1));
    assert_false(device_sched_wants_refill(70, 64)); /* held past a halved depth */
    two_awake_aiv_cores(f);
    f->s.depth = 4;
    device_sched_dispatch(&f->s);
    assert_int_equal(f->s.posted[0], 3);
    device_ready_queue_push(f->s.queue[SIMPLER_CORE_TYPE_AIV], 3);
    device_sched_dispatch(&f->s);
    assert_int_equal(f->s.posted[0], 4);
    assert_int_equal(f->s.posted[1], 0);
}

/* A successor with another predecessor waits for the scheduler: only
 * the last of its predecessors to finish releases it. */
static void a_successor_with_another_predecessor_is_not_posted_ahead(void **state)
{
    fixture *f = *state;
    aiv_chain_of_four(f, 4);
    f->tasks[1].fanin_count = 2; /* as if task 3 fed it too */
    seed(f);
    device_sched_dispatch(&f->s);
    assert_int_equal(f->s.posted[0], 1);
}

/* A successor of another core type cannot run on its predecessor's
 * core: it goes through the queue. */
static void a_successor_of_another_core_type_is_not_posted_ahead(void **state)
{
    fixture *f = *state;
    aiv_chain_of_four(f, 4);
    f->d.aic_count = 1;
    f->d.aiv_count = 1;
    f->tasks[1].core_type = SIMPLER_CORE_TYPE_AIC;
    seed(f);
    device_sched_dispatch(&f->s);
    assert_int_equal(f->s.posted[1], 1);
    assert_int_equal(f->s.posted[0], 0);
}

/* Two successors of one task may run at once on two cores: neither is
 * posted behind it. */
static void a_task_with_two_successors_posts_neither_ahead(void **state)
{
    fixture *f = *state;
    aiv_chain_of_four(f, 4);
    f->tasks[0].fanout_count = 2; /* fan-out list {1, 2} */
    seed(f);
    device_sched_dispatch(&f->s);
    assert_int_equal(f->s.posted[0], 1);
}

/* A chain of four AIV tasks has one head: of the two AIV cores (and no
 * AIC task), one is kept and the other told to leave at once. A core
 * not asleep is told without a bell (no syscall). */
static void cores_the_graph_cannot_keep_busy_are_told_to_leave(void **state)
{
    fixture *f = *state;
    aiv_chain_of_four(f, 4);
    f->d.aic_count = 1;
    f->d.aiv_count = 2;
    f->s.cores = 3;
    atomic_store(&device_core_slot_at(&f->d, 2)->arrived, 1);
    atomic_store(&device_core_slot_at(&f->d, 2)->sleeping, 1);
    seed(f);
    assert_int_equal(f->s.heads[SIMPLER_CORE_TYPE_AIV], 1);
    assert_int_equal(f->s.heads[SIMPLER_CORE_TYPE_AIC], 0);
    device_sched_retire(&f->s);
    assert_int_equal(f->s.retired[0], 1); /* the AIC core: no AIC task */
    assert_int_equal(f->s.retired[1], 0);
    assert_int_equal(f->s.retired[2], 1);
    assert_true(device_slot_quitting(device_core_slot_at(&f->d, 0)));
    assert_false(device_slot_quitting(device_core_slot_at(&f->d, 1)));
    assert_true(device_slot_quitting(device_core_slot_at(&f->d, 2)));
    assert_int_equal(atomic_load(&device_core_slot_at(&f->d, 0)->bell), 0);
    assert_int_equal(atomic_load(&device_core_slot_at(&f->d, 2)->bell), 1); /* asleep */
}

/* Tasks 0..3 as two AIC chains, 0 -> 1 and 2 -> 3. */
static uint32_t two_chains_fanout[2] = {1, 3};
static void two_aic_chains(fixture *f)
{
    for (uint32_t t = 0; t < 4; t++) {
        f->tasks[t].core_type = SIMPLER_CORE_TYPE_AIC;
        f->tasks[t].fanin_count = t % 2;
        f->tasks[t].fanout_begin = t / 2;
        f->tasks[t].fanout_count = 1 - t % 2;
    }
    f->s.fanout = two_chains_fanout;
}

/* In the scheduler the chain links live in the AIC queue's ring (the
 * image check's scratch), which seeding pushes the ready AIC tasks into:
 * the two chains' heads are pushed into slots 0 and 1 while the links of
 * tasks 0..3 are still read from slots 0..3. */
static void seeding_reads_each_link_before_the_ring_overwrites_it(void **state)
{
    fixture *f = *state;
    uint32_t *ring = f->s.queue[SIMPLER_CORE_TYPE_AIC]->slots;
    two_aic_chains(f);
    f->s.chains = ring;
    seed(f);
    assert_int_equal(device_task_state_at(&f->d, 0)->chain, 2);
    assert_int_equal(device_task_state_at(&f->d, 1)->chain, 0);
    assert_int_equal(device_task_state_at(&f->d, 2)->chain, 4);
    assert_int_equal(device_task_state_at(&f->d, 3)->chain, 0);
    assert_int_equal(f->s.heads[SIMPLER_CORE_TYPE_AIC], 2);
    assert_int_equal(device_ready_queue_count(f->s.queue[SIMPLER_CORE_TYPE_AIC]), 2);
    assert_int_equal(device_ready_queue_pop(f->s.queue[SIMPLER_CORE_TYPE_AIC]), 0);
    assert_int_equal(device_ready_queue_pop(f->s.queue[SIMPLER_CORE_TYPE_AIC]), 2);
}

/* A replay that skipped the image check (device_validate_image_known)
 * seeds with no links left for it (chains NULL): seeding computes each
 * task's link from the image, the same as the check would have left. */
static void seeding_without_links_computes_them(void **state)
{
    fixture *f = *state;
    two_aic_chains(f);
    f->s.chains = NULL;
    device_sched_seed(&f->s);
    for (uint32_t t = 0; t < 4; t++)
        assert_int_equal(device_task_state_at(&f->d, t)->chain, graph_image_chain_next(f->tasks, f->s.fanout, t));
    assert_int_equal(device_task_state_at(&f->d, 0)->chain, 2);
    assert_int_equal(device_task_state_at(&f->d, 2)->chain, 4);
    assert_int_equal(f->s.heads[SIMPLER_CORE_TYPE_AIC], 2);
    assert_int_equal(device_ready_queue_count(f->s.queue[SIMPLER_CORE_TYPE_AIC]), 2);
}

/* Four independent AIV tasks could use both AIV cores, but the launch
 * started only the first (aiv_started 1): the other is retired without a
 * word (nothing would read its slot) and never served. */
static void cores_the_launch_did_not_start_are_never_served(void **state)
{
    fixture *f = *state;
    f->d.aic_count = 0;
    f->d.aiv_count = 2;
    f->d.aiv_started = 1;
    f->s.cores = 2;
    for (uint32_t t = 0; t < 4; t++)
        f->tasks[t].core_type = SIMPLER_CORE_TYPE_AIV;
    seed(f);
    device_sched_retire(&f->s);
    assert_int_equal(f->s.retired[0], 0);
    assert_int_equal(f->s.retired[1], 1);
    assert_false(device_slot_quitting(device_core_slot_at(&f->d, 1)));
    device_sched_announce_dispatch(&f->s);
    assert_true(f->s.posted[0] != 0);
    assert_int_equal(f->s.posted[1], 0);
    assert_int_equal(atomic_load(&device_core_slot_at(&f->d, 1)->posted), 0);
}

/* Independent tasks are heads each: as many cores are kept as tasks
 * (up to the cores of the type). */
static void independent_tasks_keep_a_core_each(void **state)
{
    fixture *f = *state;
    f->d.aic_count = 0;
    f->d.aiv_count = 2;
    for (uint32_t t = 0; t < 4; t++)
        f->tasks[t].core_type = SIMPLER_CORE_TYPE_AIV;
    seed(f);
    assert_int_equal(f->s.heads[SIMPLER_CORE_TYPE_AIV], 4);
    device_sched_retire(&f->s);
    assert_int_equal(f->s.retired[0] + f->s.retired[1], 0);
    assert_int_equal(device_ready_queue_count(f->s.queue[SIMPLER_CORE_TYPE_AIV]), 4);
}

/* A retired core is never served, even as the first core of its type
 * and with every other core of it asleep. */
static void dispatch_never_serves_a_retired_core(void **state)
{
    fixture *f = *state;
    two_awake_aiv_cores(f);
    f->s.retired[0] = 1;
    atomic_store(&device_core_slot_at(&f->d, 1)->sleeping, 1);
    device_sched_dispatch(&f->s);
    assert_int_equal(f->s.posted[0], 0);
    assert_int_equal(f->s.posted[1], 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(dispatch_serves_a_core_that_fell_asleep_during_the_pass, setup, teardown),
        cmocka_unit_test_setup_teardown(dispatch_wakes_one_core_when_none_of_the_type_is_awake, setup, teardown),
        cmocka_unit_test_setup_teardown(first_tasks_go_out_before_dispatch_is_announced, setup, teardown),
        cmocka_unit_test_setup_teardown(dispatch_keeps_short_tasks_on_one_core, setup, teardown),
        cmocka_unit_test_setup_teardown(dispatch_spreads_long_tasks, setup, teardown),
        cmocka_unit_test_setup_teardown(measure_times_windows_of_completions, setup, teardown),
        cmocka_unit_test_setup_teardown(collect_feeds_the_measuring_window, setup, teardown),
        cmocka_unit_test_setup_teardown(stall_marks_tasks_long, setup, teardown),
        cmocka_unit_test_setup_teardown(dispatch_serves_cores_that_arrived, setup, teardown),
        cmocka_unit_test_setup_teardown(dispatch_posts_to_a_late_core_when_none_arrived, setup, teardown),
        cmocka_unit_test_setup_teardown(a_late_core_is_waited_for_not_taken_for_slow, setup, teardown),
        cmocka_unit_test_setup_teardown(only_late_cores_holding_tasks_count, setup, teardown),
        cmocka_unit_test_setup_teardown(an_arrival_is_read_once, setup, teardown),
        cmocka_unit_test_setup_teardown(a_chain_is_posted_behind_its_predecessor_on_one_core, setup, teardown),
        cmocka_unit_test_setup_teardown(a_chain_posted_ahead_completes_each_task_once, setup, teardown),
        cmocka_unit_test_setup_teardown(a_chain_is_refilled_as_its_core_drains, setup, teardown),
        cmocka_unit_test_setup_teardown(a_chain_successor_released_first_is_posted_once, setup, teardown),
        cmocka_unit_test_setup_teardown(a_chain_of_short_tasks_runs_ahead_beyond_depth, setup, teardown),
        cmocka_unit_test_setup_teardown(a_ready_task_is_not_held_behind_a_chain_beyond_depth, setup, teardown),
        cmocka_unit_test_setup_teardown(a_core_is_refilled_once_a_quarter_is_free, setup, teardown),
        cmocka_unit_test_setup_teardown(a_successor_with_another_predecessor_is_not_posted_ahead, setup, teardown),
        cmocka_unit_test_setup_teardown(a_successor_of_another_core_type_is_not_posted_ahead, setup, teardown),
        cmocka_unit_test_setup_teardown(a_task_with_two_successors_posts_neither_ahead, setup, teardown),
        cmocka_unit_test_setup_teardown(cores_the_graph_cannot_keep_busy_are_told_to_leave, setup, teardown),
        cmocka_unit_test_setup_teardown(seeding_reads_each_link_before_the_ring_overwrites_it, setup, teardown),
        cmocka_unit_test_setup_teardown(seeding_without_links_computes_them, setup, teardown),
        cmocka_unit_test_setup_teardown(independent_tasks_keep_a_core_each, setup, teardown),
        cmocka_unit_test_setup_teardown(dispatch_never_serves_a_retired_core, setup, teardown),
        cmocka_unit_test_setup_teardown(cores_the_launch_did_not_start_are_never_served, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * The scheduler's dispatch pass (device_scheduler.c, included here with a
 * hooked reader of the cores' sleeping flags): a core that falls asleep
 * after dispatch counted it awake must still be served, or a type with
 * ready tasks and nothing in flight is left with nobody to run them and
 * the scheduler blocks on its doorbell forever.
 */
#include <stdlib.h>

#include "support.h"

struct sched;
static int flag_reads;
static int flip_core = -1; /* reads awake on its first read, asleep after */
static int test_asleep(const struct sched *s, unsigned core);
#define DEVICE_DISPATCH_ASLEEP(s, core) test_asleep((s), (core))
#include "device/device_scheduler.c"

static int test_asleep(const struct sched *s, unsigned core)
{
    flag_reads++;
    if ((int)core == flip_core) {
        flip_core = -2; /* the next read of it says asleep */
        return 0;
    }
    if (flip_core == -2 && core == 1)
        return 1;
    return core_asleep(s, core);
}

typedef struct fixture {
    device_run_desc d;
    void *runtime, *queues;
    sched s;
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
    f->s.rt = device_runtime_header_at(&f->d);
    f->s.cores = 2;
    f->s.depth = 2;
    f->s.queue[SIMPLER_CORE_TYPE_AIC] = device_ready_queue_reset(&f->d, SIMPLER_CORE_TYPE_AIC);
    f->s.queue[SIMPLER_CORE_TYPE_AIV] = device_ready_queue_reset(&f->d, SIMPLER_CORE_TYPE_AIV);
    flag_reads = 0;
    flip_core = -1;
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
    dispatch(&f->s);
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
    dispatch(&f->s);
    assert_int_equal(f->s.posted[1], 1);
    assert_int_equal(f->s.posted[0], 0); /* the AIC core has nothing to run */
    assert_int_equal(atomic_load(&device_core_slot_at(&f->d, 0)->bell), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(dispatch_serves_a_core_that_fell_asleep_during_the_pass, setup, teardown),
        cmocka_unit_test_setup_teardown(dispatch_wakes_one_core_when_none_of_the_type_is_awake, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

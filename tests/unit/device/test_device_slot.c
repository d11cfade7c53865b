/*
 * The scheduler <-> core handshake on one slot (device_slot.h), with the
 * waker acting at the worst moment: after the core's last check and
 * before its futex wait (device_wait_before_block, a test-only hook).
 * A lost wake-up shows as a core that never returns; the test then fails
 * after a timeout instead of hanging. The hook exists only in builds
 * with SIMPLER_VERIFY (the test and TSan builds; the benchmarks' build
 * and the ASan build of `make check` have none, and this suite skips).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "support.h"

#include <simpler/simdev.h>

#include "device/device_slot.h"
#include "device/device_wait.h"
#include "platform/platform_counter.h"

#ifndef SIMPLER_VERIFY
int main(void)
{
    fputs("test_device_slot: needs a SIMPLER_VERIFY build\n", stderr);
    return 77;
}
#else

#define WAIT_LIMIT_S 10

/* What the hook does when the core is about to block the first time. */
typedef void (*window_fn)(device_core_slot *slot);

static struct {
    device_core_slot slot __attribute__((aligned(64)));
    uint32_t done;         /* the core's finished count */
    uint32_t result;       /* what device_slot_wait returned */
    uint32_t polls;        /* the core thread's polls before its first sleep */
    int start_result;      /* what device_slot_await_start returned */
    window_fn in_window;   /* run by the hook on the core thread's first block */
    _Atomic int blocks;    /* futex waits the core entered */
    sem_t about_to_block;  /* posted by the hook (first block) */
    sem_t go_on;           /* the hook waits for it (first block) */
    sem_t returned;        /* the core returned */
} t;

static void hook(_Atomic uint32_t *word, uint32_t expected)
{
    (void)word;
    (void)expected;
    if (atomic_fetch_add(&t.blocks, 1) != 0)
        return;
    if (t.in_window != NULL)
        t.in_window(&t.slot);
    sem_post(&t.about_to_block);
    sem_wait(&t.go_on);
}

static void *core_thread(void *arg)
{
    (void)arg;
    t.result = device_slot_wait(&t.slot, t.done, t.polls, 0);
    sem_post(&t.returned);
    return NULL;
}

static int setup(void **state)
{
    (void)state;
    memset(&t.slot, 0, sizeof(t.slot));
    t.done = 0;
    t.result = UINT32_MAX;
    t.polls = DEVICE_SPIN_POLLS;
    t.start_result = -1;
    t.in_window = NULL;
    atomic_store(&t.blocks, 0);
    sem_init(&t.about_to_block, 0, 0);
    sem_init(&t.go_on, 0, 0);
    sem_init(&t.returned, 0, 0);
    device_wait_before_block = hook;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    device_wait_before_block = NULL;
    sem_destroy(&t.about_to_block);
    sem_destroy(&t.go_on);
    sem_destroy(&t.returned);
    return 0;
}

/* 0 once the core returned, -1 after the time limit. */
static int core_returned(void)
{
    struct timespec limit;
    clock_gettime(CLOCK_REALTIME, &limit);
    limit.tv_sec += WAIT_LIMIT_S;
    while (sem_timedwait(&t.returned, &limit) != 0)
        if (errno != EINTR)
            return -1;
    return 0;
}

/* Starts the core, lets it reach its futex wait (the hook ran
 * `in_window` first), and returns once it may be blocked. */
static pthread_t core_start_and_block(window_fn in_window)
{
    pthread_t th;
    t.in_window = in_window;
    assert_int_equal(pthread_create(&th, NULL, core_thread, NULL), 0);
    assert_int_equal(sem_wait(&t.about_to_block), 0);
    sem_post(&t.go_on);
    return th;
}

static void core_join(pthread_t th)
{
    if (core_returned() != 0)
        fail_msg("the core stayed asleep: a wake-up was lost");
    assert_int_equal(pthread_join(th, NULL), 0);
}

static void post_two(device_core_slot *slot)
{
    slot->ring[0] = 7;
    device_slot_post(slot, 1);
    slot->ring[1] = 8;
    device_slot_post(slot, 2);
}

static void post_one(device_core_slot *slot)
{
    device_slot_post(slot, 1);
}

static void quit(device_core_slot *slot)
{
    device_slot_quit(slot);
}

static void slot_wait_returns_work_already_posted(void **state)
{
    (void)state;
    t.slot.posted = 3;
    t.done = 1;
    assert_int_equal(device_slot_wait(&t.slot, t.done, DEVICE_SPIN_POLLS, 0), 3);
    assert_int_equal(atomic_load(&t.blocks), 0);
}

static void slot_post_wakes_a_core_asleep(void **state)
{
    (void)state;
    pthread_t th = core_start_and_block(NULL);
    struct timespec nap = {0, 20 * 1000 * 1000};
    nanosleep(&nap, NULL); /* the core is in its futex wait by now */
    device_slot_post(&t.slot, 1);
    core_join(th);
    assert_int_equal(t.result, 1);
}

/* A core told to sleep without polling (nothing was posted when dispatch
 * began) still wakes on a post. */
static void slot_wait_without_polls_wakes_on_a_post(void **state)
{
    (void)state;
    t.polls = 0;
    pthread_t th = core_start_and_block(NULL);
    struct timespec nap = {0, 20 * 1000 * 1000};
    nanosleep(&nap, NULL);
    device_slot_post(&t.slot, 2);
    core_join(th);
    assert_int_equal(t.result, 2);
    assert_true(atomic_load(&t.blocks) >= 1);
}

/* The case a toggled wake word loses: two posts between the core's
 * re-check and its wait restore the value it read. */
static void slot_two_posts_before_the_wait_still_wake(void **state)
{
    (void)state;
    pthread_t th = core_start_and_block(post_two);
    core_join(th);
    assert_int_equal(t.result, 2);
    assert_int_equal(t.slot.ring[1], 8);
}

static void slot_one_post_before_the_wait_wakes(void **state)
{
    (void)state;
    pthread_t th = core_start_and_block(post_one);
    core_join(th);
    assert_int_equal(t.result, 1);
}

/* A post whose store the core's re-check missed and whose flag read
 * missed the core's flag (device_slot_post does not fence the two):
 * stored here in the window with no bell, so the core blocks holding
 * it. The scheduler's rouse finds it asleep and wakes it. */
static void post_unseen(device_core_slot *slot)
{
    atomic_store_explicit(&slot->posted, 1, memory_order_relaxed);
}

static void slot_rouse_wakes_a_core_asleep_on_an_unseen_post(void **state)
{
    (void)state;
    pthread_t th = core_start_and_block(post_unseen);
    struct timespec nap = {0, 20 * 1000 * 1000};
    nanosleep(&nap, NULL); /* the core is in its futex wait by now */
    atomic_thread_fence(memory_order_seq_cst);
    device_slot_rouse(&t.slot);
    core_join(th);
    assert_int_equal(t.result, 1);
}

/* A core awake is left alone: no bell. */
static void slot_rouse_leaves_an_awake_core_alone(void **state)
{
    (void)state;
    device_slot_rouse(&t.slot);
    assert_int_equal(atomic_load(&t.slot.bell), 0);
}

static void slot_quit_before_the_wait_wakes(void **state)
{
    (void)state;
    pthread_t th = core_start_and_block(quit);
    core_join(th);
    assert_int_equal(t.result, 0);
    assert_true(device_slot_quitting(&t.slot));
}

static void slot_quit_wakes_a_core_asleep(void **state)
{
    (void)state;
    t.done = 5;
    t.slot.posted = 5;
    pthread_t th = core_start_and_block(NULL);
    struct timespec nap = {0, 20 * 1000 * 1000};
    nanosleep(&nap, NULL);
    device_slot_quit(&t.slot);
    core_join(th);
    assert_int_equal(t.result, 5);
}

/* The host's rescue of a half chain: device_slots_dismiss reaches the
 * slot only through the platform (mem_peek, mem_signal) and wakes a core
 * asleep on it; a failing signal is reported. The descriptor places
 * core 0's slot on the test's slot. */
static device_run_desc dismiss_desc(void)
{
    device_run_desc d;
    memset(&d, 0, sizeof(d));
    d.aic_count = 1;
    d.runtime_base = (uint64_t)(uintptr_t)&t.slot - graph_runtime_core_slot_offset(0);
    return d;
}

static void slots_dismiss_through_the_platform_wakes_a_core_asleep(void **state)
{
    platform_counter counter;
    (void)state;
    const platform_ops *ops = platform_ops_counting(platform_ops_simdev(), &counter);
    device_run_desc d = dismiss_desc();
    t.done = 3;
    t.slot.posted = 3;
    pthread_t th = core_start_and_block(NULL);
    struct timespec nap = {0, 20 * 1000 * 1000};
    nanosleep(&nap, NULL);
    uint32_t bell = atomic_load(&t.slot.bell);
    assert_int_equal(device_slots_dismiss(ops, &d), 0);
    core_join(th);
    assert_int_equal(t.result, 3);
    assert_true(device_slot_quitting(&t.slot));
    assert_int_equal(atomic_load(&t.slot.bell), bell + 1);
    assert_int_equal(platform_counter_calls(&counter, PLATFORM_CALL_MEM_SIGNAL), 2);
    assert_int_equal(platform_counter_calls(&counter, PLATFORM_CALL_ANY), 3);

    platform_counter_fail_nth(&counter, PLATFORM_CALL_MEM_SIGNAL, 1, SIMDEV_ERROR_INVALID_PARAM);
    assert_int_equal(device_slots_dismiss(ops, &d), SIMDEV_ERROR_INVALID_PARAM);
}

static void slot_garbage_state_reads_as_quit(void **state)
{
    (void)state;
    atomic_store(&t.slot.state, 0xdeadbeefu);
    assert_true(device_slot_quitting(&t.slot));
    assert_int_equal(device_slot_wait(&t.slot, 0, DEVICE_SPIN_POLLS, 0), 0);
    atomic_store(&t.slot.state, DEVICE_SLOT_IDLE);
    assert_false(device_slot_quitting(&t.slot));
}

/* A post while the core is awake rings no bell (no syscall). */
static void slot_post_to_an_awake_core_leaves_the_bell(void **state)
{
    (void)state;
    device_slot_post(&t.slot, 4);
    assert_int_equal(atomic_load(&t.slot.bell), 0);
    assert_int_equal(atomic_load(&t.slot.posted), 4);
}

/* Telling an awake core to leave rings no bell either: it re-checks
 * state before it could sleep. */
static void slot_quit_of_an_awake_core_leaves_the_bell(void **state)
{
    (void)state;
    device_slot_quit(&t.slot);
    assert_true(device_slot_quitting(&t.slot));
    assert_int_equal(atomic_load(&t.slot.bell), 0);
    assert_int_equal(device_slot_wait(&t.slot, 0, DEVICE_SPIN_POLLS, 0), 0);
}

/* ---- the wait for a first task (device_slot_await_start) ---- */

static _Atomic uint32_t dispatching;
static uint32_t start_budget_ns;

static void *starting_core_thread(void *arg)
{
    (void)arg;
    t.start_result = device_slot_await_start(&t.slot, &dispatching, start_budget_ns);
    sem_post(&t.returned);
    return NULL;
}

/* Starts a core in its start wait with a budget far past the test's
 * time limit, lets it wait a while, and checks it is still waiting. */
static pthread_t starting_core(void)
{
    pthread_t th;
    atomic_store(&dispatching, 0);
    start_budget_ns = 4000000000u; /* 4 s: only the event under test ends the wait sooner */
    assert_int_equal(pthread_create(&th, NULL, starting_core_thread, NULL), 0);
    struct timespec nap = {0, 20 * 1000 * 1000};
    nanosleep(&nap, NULL);
    assert_int_equal(sem_trywait(&t.returned), -1);
    return th;
}

static void start_joined_quickly(pthread_t th)
{
    struct timespec limit;
    clock_gettime(CLOCK_REALTIME, &limit);
    limit.tv_nsec += 500 * 1000 * 1000;
    if (limit.tv_nsec >= 1000000000) {
        limit.tv_sec++;
        limit.tv_nsec -= 1000000000;
    }
    int rc;
    while ((rc = sem_timedwait(&t.returned, &limit)) != 0 && errno == EINTR)
        ;
    if (rc != 0)
        fail_msg("the start wait did not end on its event");
    assert_int_equal(pthread_join(th, NULL), 0);
    assert_int_equal(atomic_load(&t.blocks), 0); /* it never slept */
}

static void start_wait_ends_when_the_scheduler_dispatches(void **state)
{
    (void)state;
    pthread_t th = starting_core();
    atomic_store(&dispatching, 1);
    start_joined_quickly(th);
    assert_int_equal(t.start_result, 1); /* nothing posted: sleep at once */
}

/* Dispatch announced with a task posted first: the core has work. */
static void start_wait_with_a_post_before_dispatch_has_work(void **state)
{
    (void)state;
    t.slot.ring[0] = 1;
    device_slot_post(&t.slot, 1);
    atomic_store(&dispatching, 1);
    assert_int_equal(device_slot_await_start(&t.slot, &dispatching, 0), 0);
}

static void start_wait_ends_on_a_post(void **state)
{
    (void)state;
    pthread_t th = starting_core();
    t.slot.ring[0] = 2;
    device_slot_post(&t.slot, 1);
    start_joined_quickly(th);
    assert_int_equal(atomic_load(&t.slot.bell), 0); /* it was awake */
    assert_int_equal(t.start_result, 0);
}

static void start_wait_ends_on_quit(void **state)
{
    (void)state;
    pthread_t th = starting_core();
    device_slot_quit(&t.slot);
    start_joined_quickly(th);
    assert_int_equal(t.start_result, 0);
}

static void start_wait_gives_up_after_its_budget_without_sleeping(void **state)
{
    (void)state;
    atomic_store(&dispatching, 0);
    uint64_t t0 = device_now_ns();
    assert_int_equal(device_slot_await_start(&t.slot, &dispatching, 2000000u), 0);
    assert_true(device_now_ns() - t0 >= 2000000u);
    assert_int_equal(atomic_load(&t.blocks), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(slot_wait_returns_work_already_posted, setup, teardown),
        cmocka_unit_test_setup_teardown(slot_post_wakes_a_core_asleep, setup, teardown),
        cmocka_unit_test_setup_teardown(slot_wait_without_polls_wakes_on_a_post, setup, teardown),
        cmocka_unit_test_setup_teardown(slot_two_posts_before_the_wait_still_wake, setup, teardown),
        cmocka_unit_test_setup_teardown(slot_one_post_before_the_wait_wakes, setup, teardown),
        cmocka_unit_test_setup_teardown(slot_rouse_wakes_a_core_asleep_on_an_unseen_post, setup, teardown),
        cmocka_unit_test_setup_teardown(slot_rouse_leaves_an_awake_core_alone, setup, teardown),
        cmocka_unit_test_setup_teardown(slot_quit_before_the_wait_wakes, setup, teardown),
        cmocka_unit_test_setup_teardown(slot_quit_wakes_a_core_asleep, setup, teardown),
        cmocka_unit_test_setup_teardown(slots_dismiss_through_the_platform_wakes_a_core_asleep, setup, teardown),
        cmocka_unit_test_setup_teardown(slot_garbage_state_reads_as_quit, setup, teardown),
        cmocka_unit_test_setup_teardown(slot_post_to_an_awake_core_leaves_the_bell, setup, teardown),
        cmocka_unit_test_setup_teardown(slot_quit_of_an_awake_core_leaves_the_bell, setup, teardown),
        cmocka_unit_test_setup_teardown(start_wait_ends_when_the_scheduler_dispatches, setup, teardown),
        cmocka_unit_test_setup_teardown(start_wait_ends_on_a_post, setup, teardown),
        cmocka_unit_test_setup_teardown(start_wait_with_a_post_before_dispatch_has_work, setup, teardown),
        cmocka_unit_test_setup_teardown(start_wait_ends_on_quit, setup, teardown),
        cmocka_unit_test_setup_teardown(start_wait_gives_up_after_its_budget_without_sleeping, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
#endif

/* The restricted kernel-mode launch vocabulary holds exactly the allowed
 * entries. */
#include "support.h"

#include <stddef.h>
#include <string.h>

#include "platform/platform_counter.h"
#include "platform/platform_launch_ops.h"
#include "platform_stub.h"

typedef int (*any_fn)(void *);

/* Compile-time: the struct is the user pointer plus the six allowed
 * entries at consecutive slots, nothing else. Adding a member anywhere
 * breaks one of these. */
#define SLOT(n) (sizeof(void *) + (n) * sizeof(any_fn))
_Static_assert(sizeof(platform_launch_ops) == SLOT(6), "six entries and the user pointer");
_Static_assert(offsetof(platform_launch_ops, user) == 0, "user first");
_Static_assert(offsetof(platform_launch_ops, memcpy_async) == SLOT(0), "memcpy_async");
_Static_assert(offsetof(platform_launch_ops, memset_async) == SLOT(1), "memset_async");
_Static_assert(offsetof(platform_launch_ops, event_record) == SLOT(2), "event_record");
_Static_assert(offsetof(platform_launch_ops, stream_wait_event) == SLOT(3), "stream_wait_event");
_Static_assert(offsetof(platform_launch_ops, launch_kernel) == SLOT(4), "launch_kernel");
_Static_assert(offsetof(platform_launch_ops, event_query) == SLOT(5), "event_query");

static const int allowed[PLATFORM_LAUNCH_OPS_ENTRY_COUNT] = {
    PLATFORM_CALL_MEMCPY_ASYNC, PLATFORM_CALL_MEMSET_ASYNC,  PLATFORM_CALL_EVENT_RECORD,
    PLATFORM_CALL_STREAM_WAIT_EVENT, PLATFORM_CALL_LAUNCH_KERNEL, PLATFORM_CALL_EVENT_QUERY,
};

static void platform_launch_ops_names_exactly_the_allowed_entries(void **state)
{
    (void)state;
    for (int i = 0; i < PLATFORM_LAUNCH_OPS_ENTRY_COUNT; i++)
        assert_string_equal(platform_launch_ops_entry_names[i], platform_call_name(allowed[i]));
}

/* Each slot of a derived table is one of the six allowed functions of its
 * source, and no slot is any forbidden function of the source. */
static void platform_launch_ops_derived_slots_are_only_allowed_functions(void **state)
{
    platform_stub stub;
    platform_ops full = platform_stub_ops(&stub);
    platform_launch_ops launch;
    any_fn slots[PLATFORM_LAUNCH_OPS_ENTRY_COUNT];
    any_fn source[PLATFORM_CALL_COUNT];
    (void)state;

    memset(&launch, 0, sizeof(launch));
    platform_launch_ops_derive(&full, &launch);
    assert_ptr_equal(launch.user, &stub);
    memcpy(slots, (const char *)&launch + SLOT(0), sizeof(slots));
    /* source[call] = the full table's function for that entry. */
    memcpy(&source[1], (const char *)&full + sizeof(void *), sizeof(any_fn) * (PLATFORM_CALL_COUNT - 1));

    for (int i = 0; i < PLATFORM_LAUNCH_OPS_ENTRY_COUNT; i++) {
        assert_true(slots[i] == source[allowed[i]]);
        for (int call = 1; call < PLATFORM_CALL_COUNT; call++) {
            int permitted = 0;
            for (int a = 0; a < PLATFORM_LAUNCH_OPS_ENTRY_COUNT; a++)
                permitted |= allowed[a] == call;
            if (!permitted)
                assert_false(slots[i] == source[call]);
        }
    }
}

/* Through a counting wrapper: calling every launch entry reaches exactly
 * the allowed entries of the full table, once each. */
static void platform_launch_ops_calls_reach_only_enqueue_and_event_query(void **state)
{
    platform_stub stub;
    platform_ops full = platform_stub_ops(&stub);
    platform_counter counter;
    platform_launch_ops launch;
    (void)state;

    platform_launch_ops_derive(platform_ops_counting(&full, &counter), &launch);
    assert_int_equal(launch.memcpy_async(launch.user, NULL, NULL, 0, NULL), 0);
    assert_int_equal(launch.memset_async(launch.user, NULL, 0, 0, NULL), 0);
    assert_int_equal(launch.event_record(launch.user, NULL, NULL), 0);
    assert_int_equal(launch.stream_wait_event(launch.user, NULL, NULL), 0);
    assert_int_equal(launch.launch_kernel(launch.user, NULL, PLATFORM_ENGINE_AICORE, NULL, 1, NULL, 0), 0);
    assert_int_equal(launch.event_query(launch.user, NULL), 0);

    for (int call = 1; call < PLATFORM_CALL_COUNT; call++) {
        int permitted = 0;
        for (int a = 0; a < PLATFORM_LAUNCH_OPS_ENTRY_COUNT; a++)
            permitted |= allowed[a] == call;
        assert_int_equal(platform_counter_calls(&counter, call), permitted ? 1 : 0);
    }
    assert_int_equal(platform_counter_calls(&counter, PLATFORM_CALL_ANY), PLATFORM_LAUNCH_OPS_ENTRY_COUNT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(platform_launch_ops_names_exactly_the_allowed_entries),
        cmocka_unit_test(platform_launch_ops_derived_slots_are_only_allowed_functions),
        cmocka_unit_test(platform_launch_ops_calls_reach_only_enqueue_and_event_query),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

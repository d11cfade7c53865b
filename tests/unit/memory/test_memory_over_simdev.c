/* The arena bank and the retained temp buffer over the real simdev table:
 * simdev's counters and memory accounting confirm what the fake-allocator
 * suites assert. */
#include "simdev_setup.h"
#include "support.h"

#include <simpler/simdev.h>

#include "memory/arena_bank.h"
#include "memory/retained_temp.h"
#include "platform/platform_ops.h"
#include "platform/platform_status.h"

static int setup(void **state)
{
    (void)state;
    return simdev_setup_configure(1, (uint64_t)8 << 20, 1, 1, 1);
}

static int teardown(void **state)
{
    (void)state;
    simdev_fault_clear();
    return simdev_finalize() == SIMDEV_SUCCESS ? 0 : -1;
}

static simdev_counters counters(void)
{
    simdev_counters c;
    assert_int_equal(simdev_get_counters(&c), SIMDEV_SUCCESS);
    return c;
}

static simdev_mem_info mem(void)
{
    simdev_mem_info info;
    assert_int_equal(simdev_get_mem_info(0, &info), SIMDEV_SUCCESS);
    return info;
}

static void memory_simdev_kernel_bank_commits_once_and_refuses_growth(void **state)
{
    arena_bank bank;
    arena_bank_request full = {{64 * 1024, 16 * 1024, 8 * 1024}};
    arena_bank_request over = {{64 * 1024, 16 * 1024, 8 * 1024 + 1}};
    (void)state;
    arena_bank_init(&bank, platform_ops_simdev());

    assert_int_equal(arena_bank_commit(&bank, &full, 1, NULL), 0);
    simdev_counters committed = counters();
    simdev_mem_info info = mem();
    assert_int_equal(info.committed_bytes, 88 * 1024);
    assert_int_equal(info.live_allocations, 3);
    void *heap = arena_bank_base(&bank, ARENA_REGION_GM_HEAP);

    for (int run = 0; run < 4; run++)
        assert_int_equal(arena_bank_commit(&bank, &full, 1, NULL), 0);
    assert_int_equal(arena_bank_commit(&bank, &over, 1, NULL), PTO_RUNTIME_ERR_INTERNAL);
    simdev_counters after = counters();
    assert_int_equal(after.malloc_calls, committed.malloc_calls);
    assert_int_equal(after.free_calls, committed.free_calls);
    assert_ptr_equal(arena_bank_base(&bank, ARENA_REGION_GM_HEAP), heap);
    assert_int_equal(mem().committed_bytes, 88 * 1024);

    assert_int_equal(arena_bank_release(&bank), 0);
    assert_int_equal(mem().live_allocations, 0);
}

static void memory_simdev_allocation_failure_rolls_bank_back(void **state)
{
    arena_bank_request small = {{4096, 4096, 4096}};
    arena_bank_request big = {{8192, 8192, 8192}};
    (void)state;
    for (uint64_t k = 1; k <= 3; k++) {
        arena_bank bank;
        arena_bank_init(&bank, platform_ops_simdev());
        assert_int_equal(arena_bank_commit(&bank, &small, 0, NULL), 0);
        assert_int_equal(simdev_fault_inject(SIMDEV_CALL_MALLOC, k, SIMDEV_ERROR_MEMORY_ALLOCATION), SIMDEV_SUCCESS);
        assert_int_equal(arena_bank_commit(&bank, &big, 0, NULL), PTO_RUNTIME_ERR_OUT_OF_MEMORY);
        assert_int_equal(simdev_fault_clear(), SIMDEV_SUCCESS);
        assert_int_equal(mem().live_allocations, 0);
        assert_int_equal(arena_bank_committed_bytes(&bank), 0);
        assert_int_equal(arena_bank_release(&bank), 0);
    }
}

static void memory_simdev_kernel_temp_refuses_growth_before_free(void **state)
{
    retained_temp slot = {NULL, 0};
    const platform_ops *ops = platform_ops_simdev();
    (void)state;

    assert_int_equal(retained_temp_begin(&slot, 2048, 1, ops), 0);
    simdev_counters first = counters();
    void *addr = slot.addr;
    assert_int_equal(retained_temp_begin(&slot, 2049, 1, ops), PTO_RUNTIME_ERR_CAPACITY_EXCEEDED);
    assert_int_equal(retained_temp_begin(&slot, 2048, 1, ops), 0);
    simdev_counters after = counters();
    assert_int_equal(after.free_calls, first.free_calls);
    assert_int_equal(after.malloc_calls, first.malloc_calls);
    assert_ptr_equal(slot.addr, addr);
    assert_int_equal(mem().live_allocations, 1);

    /* Program mode grows the same slot by replacement. */
    assert_int_equal(retained_temp_begin(&slot, 4096, 0, ops), 0);
    after = counters();
    assert_int_equal(after.free_calls, first.free_calls + 1);
    assert_int_equal(after.malloc_calls, first.malloc_calls + 1);
    assert_int_equal(mem().live_allocations, 1);
    assert_int_equal(retained_temp_release(&slot, ops), 0);
    assert_int_equal(mem().live_allocations, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(memory_simdev_kernel_bank_commits_once_and_refuses_growth, setup, teardown),
        cmocka_unit_test_setup_teardown(memory_simdev_allocation_failure_rolls_bank_back, setup, teardown),
        cmocka_unit_test_setup_teardown(memory_simdev_kernel_temp_refuses_growth_before_free, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

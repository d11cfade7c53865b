/* The static arena bank commit rule, over a fake allocator so
 * every assertion can name addresses and allocator call counts. */
#include "support.h"

#include "fake_device.h"
#include "memory/arena_bank.h"
#include "platform/platform_counter.h"
#include "platform/platform_status.h"

#define HEAP (64u * 1024u)
#define SM (16u * 1024u)
#define POOL (8u * 1024u)

typedef struct {
    fake_device dev;
    arena_bank bank;
    void *base[ARENA_REGION_COUNT]; /* bases after the setup commit */
} fixture;

static arena_bank_request request(size_t heap, size_t sm, size_t pool)
{
    arena_bank_request req = {{heap, sm, pool}};
    return req;
}

static void committed_fixture(fixture *fx, int kernel_mode)
{
    arena_bank_request full = request(HEAP, SM, POOL);
    fake_device_init(&fx->dev);
    arena_bank_init(&fx->bank, &fx->dev.ops);
    assert_int_equal(arena_bank_commit(&fx->bank, &full, kernel_mode, NULL), 0);
    for (int i = 0; i < ARENA_REGION_COUNT; i++)
        fx->base[i] = arena_bank_base(&fx->bank, i);
}

static void assert_bank_unchanged(const fixture *fx, uint64_t allocs, uint64_t frees)
{
    const size_t sizes[ARENA_REGION_COUNT] = {HEAP, SM, POOL};
    for (int i = 0; i < ARENA_REGION_COUNT; i++) {
        assert_ptr_equal(arena_bank_base(&fx->bank, i), fx->base[i]);
        assert_int_equal(fx->bank.regions[i].bytes, sizes[i]);
        assert_true(fake_device_is_live(&fx->dev, fx->base[i]));
    }
    assert_int_equal(fx->dev.alloc_calls, allocs);
    assert_int_equal(fx->dev.free_calls, frees);
}

static void assert_bank_empty(const fixture *fx)
{
    for (int i = 0; i < ARENA_REGION_COUNT; i++) {
        assert_null(arena_bank_base(&fx->bank, i));
        assert_int_equal(fx->bank.regions[i].bytes, 0);
    }
    assert_int_equal(fake_device_live_count(&fx->dev), 0);
}

static void arena_bank_kernel_first_commit_permitted(void **state)
{
    fixture fx;
    arena_bank_outcome out;
    arena_bank_request full = request(HEAP, SM, POOL);
    (void)state;
    fake_device_init(&fx.dev);
    arena_bank_init(&fx.bank, &fx.dev.ops);

    assert_int_equal(arena_bank_commit(&fx.bank, &full, 1, &out), 0);
    assert_int_equal(fx.dev.alloc_calls, 3);
    assert_int_equal(fx.dev.free_calls, 0);
    assert_true(out.bases_changed);
    for (int i = 0; i < ARENA_REGION_COUNT; i++) {
        void *base = arena_bank_base(&fx.bank, i);
        assert_non_null(base);
        assert_int_equal((uintptr_t)base % 1024u, 0);
        assert_true(out.region_changed[i]);
        assert_int_equal(fx.bank.regions[i].bytes, full.bytes[i]);
    }
    assert_int_equal(arena_bank_committed_bytes(&fx.bank), HEAP + SM + POOL);
    assert_int_equal(arena_bank_release(&fx.bank), 0);
    assert_bank_empty(&fx);
}

static void arena_bank_kernel_repeated_commits_move_no_base_and_call_no_allocator(void **state)
{
    fixture fx;
    arena_bank_request full = request(HEAP, SM, POOL);
    (void)state;
    committed_fixture(&fx, 1);

    for (int run = 0; run < 8; run++) {
        arena_bank_outcome out;
        assert_int_equal(arena_bank_commit(&fx.bank, &full, 1, &out), 0);
        assert_false(out.bases_changed);
        assert_bank_unchanged(&fx, 3, 0);
    }
    assert_int_equal(arena_bank_release(&fx.bank), 0);
}

static void arena_bank_kernel_exact_and_smaller_requests_served_in_place(void **state)
{
    fixture fx;
    const arena_bank_request asks[] = {
        request(HEAP, SM, POOL), request(1, SM - 1, POOL), request(HEAP / 2, 1, 1), request(HEAP, SM, POOL),
    };
    (void)state;
    committed_fixture(&fx, 1);

    for (size_t k = 0; k < sizeof(asks) / sizeof(asks[0]); k++) {
        arena_bank_outcome out;
        assert_int_equal(arena_bank_commit(&fx.bank, &asks[k], 1, &out), 0);
        assert_false(out.bases_changed);
        /* The remembered sizes are not shrunk by a smaller request. */
        assert_bank_unchanged(&fx, 3, 0);
    }
    assert_int_equal(arena_bank_release(&fx.bank), 0);
}

static void arena_bank_kernel_one_byte_over_refused_and_changes_nothing(void **state)
{
    fixture fx;
    (void)state;
    committed_fixture(&fx, 1);

    for (int i = 0; i < ARENA_REGION_COUNT; i++) {
        arena_bank_request over = request(HEAP, SM, POOL);
        arena_bank_outcome out;
        over.bytes[i] += 1;
        assert_int_equal(arena_bank_commit(&fx.bank, &over, 1, &out), PTO_RUNTIME_ERR_INTERNAL);
        assert_false(out.bases_changed);
        assert_bank_unchanged(&fx, 3, 0);
    }
    assert_int_equal(arena_bank_release(&fx.bank), 0);
}

static void arena_bank_kernel_refusal_on_later_region_keeps_peers_committed(void **state)
{
    fixture fx;
    arena_bank_request later = request(HEAP, SM, POOL + 1);
    arena_bank_outcome out;
    (void)state;
    committed_fixture(&fx, 1);

    assert_int_equal(arena_bank_commit(&fx.bank, &later, 1, &out), PTO_RUNTIME_ERR_INTERNAL);
    assert_false(out.bases_changed);
    assert_bank_unchanged(&fx, 3, 0);
    assert_int_equal(arena_bank_release(&fx.bank), 0);
}

static void arena_bank_kernel_refusal_precedes_every_first_commit(void **state)
{
    fixture fx;
    arena_bank_request peers = request(0, SM, POOL);
    arena_bank_request ask = request(HEAP, SM, POOL + 1);
    (void)state;
    fake_device_init(&fx.dev);
    arena_bank_init(&fx.bank, &fx.dev.ops);
    assert_int_equal(arena_bank_commit(&fx.bank, &peers, 1, NULL), 0);
    void *sm = arena_bank_base(&fx.bank, ARENA_REGION_GM_SM);

    /* The heap's first commit would be allowed on its own, but the pool's
     * refusal is found first: the heap is not allocated. */
    assert_int_equal(arena_bank_commit(&fx.bank, &ask, 1, NULL), PTO_RUNTIME_ERR_INTERNAL);
    assert_int_equal(fx.dev.alloc_calls, 2);
    assert_int_equal(fx.dev.free_calls, 0);
    assert_null(arena_bank_base(&fx.bank, ARENA_REGION_GM_HEAP));
    assert_ptr_equal(arena_bank_base(&fx.bank, ARENA_REGION_GM_SM), sm);
    assert_int_equal(arena_bank_release(&fx.bank), 0);
}

static void arena_bank_kernel_releasing_committed_region_refused(void **state)
{
    fixture fx;
    (void)state;
    committed_fixture(&fx, 1);

    for (int i = 0; i < ARENA_REGION_COUNT; i++) {
        arena_bank_request drop = request(HEAP, SM, POOL);
        arena_bank_outcome out;
        drop.bytes[i] = 0;
        assert_int_equal(arena_bank_commit(&fx.bank, &drop, 1, &out), PTO_RUNTIME_ERR_INTERNAL);
        assert_false(out.bases_changed);
        assert_bank_unchanged(&fx, 3, 0);
    }
    assert_int_equal(arena_bank_release(&fx.bank), 0);
}

static void arena_bank_kernel_zero_request_on_uncommitted_region_permitted(void **state)
{
    fixture fx;
    arena_bank_request no_sm = request(HEAP, 0, POOL);
    arena_bank_outcome out;
    (void)state;
    fake_device_init(&fx.dev);
    arena_bank_init(&fx.bank, &fx.dev.ops);

    assert_int_equal(arena_bank_commit(&fx.bank, &no_sm, 1, &out), 0);
    assert_int_equal(fx.dev.alloc_calls, 2);
    assert_null(arena_bank_base(&fx.bank, ARENA_REGION_GM_SM));
    assert_false(out.region_changed[ARENA_REGION_GM_SM]);
    void *heap = arena_bank_base(&fx.bank, ARENA_REGION_GM_HEAP);

    assert_int_equal(arena_bank_commit(&fx.bank, &no_sm, 1, &out), 0);
    assert_false(out.bases_changed);
    assert_int_equal(fx.dev.alloc_calls, 2);
    assert_ptr_equal(arena_bank_base(&fx.bank, ARENA_REGION_GM_HEAP), heap);
    assert_int_equal(arena_bank_release(&fx.bank), 0);
}

static void arena_bank_program_growth_rebases(void **state)
{
    fixture fx;
    arena_bank_request grow = request(2 * HEAP, SM, POOL);
    arena_bank_outcome out;
    (void)state;
    committed_fixture(&fx, 0);

    assert_int_equal(arena_bank_commit(&fx.bank, &grow, 0, &out), 0);
    void *heap = arena_bank_base(&fx.bank, ARENA_REGION_GM_HEAP);
    assert_non_null(heap);
    assert_ptr_not_equal(heap, fx.base[ARENA_REGION_GM_HEAP]);
    assert_false(fake_device_is_live(&fx.dev, fx.base[ARENA_REGION_GM_HEAP]));
    assert_int_equal(fx.bank.regions[ARENA_REGION_GM_HEAP].bytes, 2 * HEAP);
    assert_int_equal(fx.dev.alloc_calls, 4);
    assert_int_equal(fx.dev.free_calls, 1);
    assert_true(out.bases_changed);
    assert_true(out.region_changed[ARENA_REGION_GM_HEAP]);
    assert_false(out.region_changed[ARENA_REGION_GM_SM]);
    assert_false(out.region_changed[ARENA_REGION_RUNTIME_POOL]);
    assert_ptr_equal(arena_bank_base(&fx.bank, ARENA_REGION_GM_SM), fx.base[ARENA_REGION_GM_SM]);
    assert_ptr_equal(arena_bank_base(&fx.bank, ARENA_REGION_RUNTIME_POOL), fx.base[ARENA_REGION_RUNTIME_POOL]);
    assert_int_equal(arena_bank_release(&fx.bank), 0);
}

static void arena_bank_program_zero_releases(void **state)
{
    fixture fx;
    arena_bank_request no_sm = request(HEAP, 0, POOL);
    arena_bank_outcome out;
    (void)state;
    committed_fixture(&fx, 0);

    assert_int_equal(arena_bank_commit(&fx.bank, &no_sm, 0, &out), 0);
    assert_null(arena_bank_base(&fx.bank, ARENA_REGION_GM_SM));
    assert_int_equal(fx.bank.regions[ARENA_REGION_GM_SM].bytes, 0);
    assert_false(fake_device_is_live(&fx.dev, fx.base[ARENA_REGION_GM_SM]));
    assert_int_equal(fx.dev.alloc_calls, 3);
    assert_int_equal(fx.dev.free_calls, 1);
    assert_true(out.bases_changed);
    assert_true(out.region_changed[ARENA_REGION_GM_SM]);
    assert_false(out.region_changed[ARENA_REGION_GM_HEAP]);
    assert_int_equal(arena_bank_release(&fx.bank), 0);
}

/* Fails the k-th allocation of `ask` through the counting wrapper, for
 * k = 1 .. allocations, after `setup`; each failure must empty the bank. */
static void sweep_allocation_failures(const arena_bank_request *setup, const arena_bank_request *ask,
                                      int kernel_mode, int allocations)
{
    for (int k = 1; k <= allocations + 1; k++) {
        fake_device dev;
        platform_counter counter;
        arena_bank bank;
        arena_bank_outcome out;
        fake_device_init(&dev);
        const platform_ops *ops = platform_ops_counting(&dev.ops, &counter);
        arena_bank_init(&bank, ops);
        if (setup != NULL)
            assert_int_equal(arena_bank_commit(&bank, setup, kernel_mode, NULL), 0);
        int had_base = arena_bank_committed_bytes(&bank) != 0;

        platform_counter_fail_nth(&counter, PLATFORM_CALL_MEM_ALLOC, (uint64_t)k, SIMDEV_ERROR_MEMORY_ALLOCATION);
        int rc = arena_bank_commit(&bank, ask, kernel_mode, &out);
        if (k > allocations) {
            /* The sweep ends where the operation succeeds unharmed. */
            assert_int_equal(rc, 0);
            assert_int_equal(platform_counter_injected(&counter), 0);
            assert_int_equal(arena_bank_release(&bank), 0);
            assert_int_equal(fake_device_live_count(&dev), 0);
            continue;
        }
        assert_int_equal(rc, PTO_RUNTIME_ERR_OUT_OF_MEMORY);
        assert_int_equal(platform_counter_injected(&counter), 1);
        for (int i = 0; i < ARENA_REGION_COUNT; i++) {
            assert_null(arena_bank_base(&bank, i));
            assert_int_equal(bank.regions[i].bytes, 0);
        }
        assert_int_equal(fake_device_live_count(&dev), 0);
        assert_int_equal(out.bases_changed, had_base || k > 1);
        /* The rolled-back bank is usable: the same request now succeeds. */
        assert_int_equal(arena_bank_commit(&bank, ask, kernel_mode, NULL), 0);
        assert_int_equal(fake_device_live_count(&dev), 3);
        assert_int_equal(arena_bank_release(&bank), 0);
        assert_int_equal(fake_device_live_count(&dev), 0);
    }
}

static void arena_bank_allocation_failure_rolls_whole_bank_back(void **state)
{
    arena_bank_request small = request(HEAP, SM, POOL);
    arena_bank_request big = request(2 * HEAP, 2 * SM, 2 * POOL);
    arena_bank_request heap_only = request(HEAP, 0, 0);
    (void)state;
    /* Program mode: all three regions re-base; committed peers included. */
    sweep_allocation_failures(&small, &big, 0, 3);
    /* Kernel mode: first commits of sm and pool beside a committed heap;
     * the heap is released too. */
    sweep_allocation_failures(&heap_only, &small, 1, 2);
}

static void arena_bank_allocation_failure_on_first_commit_still_rolls_back(void **state)
{
    arena_bank_request full = request(HEAP, SM, POOL);
    (void)state;
    sweep_allocation_failures(NULL, &full, 1, 3);
    sweep_allocation_failures(NULL, &full, 0, 3);
}

static void arena_bank_failed_free_before_rebase_keeps_region(void **state)
{
    fixture fx;
    arena_bank_request grow = request(2 * HEAP, SM, POOL);
    (void)state;
    committed_fixture(&fx, 0);
    fx.dev.fail_free_at = 1;

    assert_int_equal(arena_bank_commit(&fx.bank, &grow, 0, NULL), PTO_RUNTIME_ERR_DEVICE);
    assert_bank_unchanged(&fx, 3, 1);
    assert_int_equal(arena_bank_commit(&fx.bank, &grow, 0, NULL), 0);
    assert_int_equal(fx.bank.regions[ARENA_REGION_GM_HEAP].bytes, 2 * HEAP);
    assert_int_equal(arena_bank_release(&fx.bank), 0);
    assert_int_equal(fake_device_live_count(&fx.dev), 0);
}

static void arena_bank_release_retry_frees_only_what_remains(void **state)
{
    fixture fx;
    (void)state;
    committed_fixture(&fx, 1);
    fx.dev.fail_free_at = 2;

    assert_int_equal(arena_bank_release(&fx.bank), PTO_RUNTIME_ERR_DEVICE);
    assert_null(arena_bank_base(&fx.bank, ARENA_REGION_GM_HEAP));
    assert_ptr_equal(arena_bank_base(&fx.bank, ARENA_REGION_GM_SM), fx.base[ARENA_REGION_GM_SM]);
    assert_null(arena_bank_base(&fx.bank, ARENA_REGION_RUNTIME_POOL));
    assert_int_equal(fx.dev.free_calls, 3);

    assert_int_equal(arena_bank_release(&fx.bank), 0);
    assert_int_equal(fx.dev.free_calls, 4);
    assert_bank_empty(&fx);
}

static void arena_bank_invalid_arguments_change_nothing(void **state)
{
    fixture fx;
    arena_bank_request full = request(HEAP, SM, POOL);
    arena_bank_outcome out;
    (void)state;
    committed_fixture(&fx, 0);

    assert_int_equal(arena_bank_commit(NULL, &full, 0, &out), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(arena_bank_commit(&fx.bank, NULL, 0, &out), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_false(out.bases_changed);
    assert_int_equal(arena_bank_release(NULL), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_null(arena_bank_base(&fx.bank, ARENA_REGION_COUNT));
    assert_null(arena_bank_region(&fx.bank, -1));
    assert_bank_unchanged(&fx, 3, 0);
    assert_int_equal(arena_bank_release(&fx.bank), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(arena_bank_kernel_first_commit_permitted),
        cmocka_unit_test(arena_bank_kernel_repeated_commits_move_no_base_and_call_no_allocator),
        cmocka_unit_test(arena_bank_kernel_exact_and_smaller_requests_served_in_place),
        cmocka_unit_test(arena_bank_kernel_one_byte_over_refused_and_changes_nothing),
        cmocka_unit_test(arena_bank_kernel_refusal_on_later_region_keeps_peers_committed),
        cmocka_unit_test(arena_bank_kernel_refusal_precedes_every_first_commit),
        cmocka_unit_test(arena_bank_kernel_releasing_committed_region_refused),
        cmocka_unit_test(arena_bank_kernel_zero_request_on_uncommitted_region_permitted),
        cmocka_unit_test(arena_bank_program_growth_rebases),
        cmocka_unit_test(arena_bank_program_zero_releases),
        cmocka_unit_test(arena_bank_allocation_failure_rolls_whole_bank_back),
        cmocka_unit_test(arena_bank_allocation_failure_on_first_commit_still_rolls_back),
        cmocka_unit_test(arena_bank_failed_free_before_rebase_keeps_region),
        cmocka_unit_test(arena_bank_release_retry_frees_only_what_remains),
        cmocka_unit_test(arena_bank_invalid_arguments_change_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

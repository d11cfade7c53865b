/* The runtime-pool packing (docs/kernel-mode.md): simpler_kernel_plan_capacity and
 * simpler_kernel_layout, with the worked example pinned. */
#include "support.h"

#include <string.h>

#include <simpler/runtime_c_api.h>

#include "memory/runtime_pool.h"

static SimplerGraphRequirements graph_req(uint64_t runtime, uint64_t definition, uint64_t scheduler,
                                          uint64_t tasks)
{
    SimplerGraphRequirements r;
    memset(&r, 0, sizeof(r));
    r.runtime_arena_bytes = runtime;
    r.graph_definition_bytes = definition;
    r.scheduler_state_bytes = scheduler;
    r.task_count = tasks;
    return r;
}

static void plan_capacity_takes_each_region_maximum_and_packs_the_worked_example(void **state)
{
    SimplerGraphRequirements g[2] = {graph_req(8192, 512, 0, 3), graph_req(4096, 0, 2048, 7)};
    SimplerKernelCtxControl c;
    SimplerKernelLayout l;
    (void)state;
    assert_int_equal(simpler_kernel_plan_capacity(g, 2, &c), 0);
    assert_int_equal(c.abi_version, SIMPLER_KERNEL_CTX_CONTROL_ABI_VERSION);
    assert_int_equal(c.struct_size, sizeof(c));
    assert_int_equal(c.action, SIMPLER_KERNEL_CTX_CONFIGURE);
    assert_int_equal(c.mode, SIMPLER_MODE_KERNEL);
    assert_int_equal(c.runtime_arena_bytes, 8192);
    assert_int_equal(c.graph_definition_bytes, 512);
    assert_int_equal(c.scheduler_state_bytes, 2048);
    assert_int_equal(c.task_window, 8);
    assert_int_equal(simpler_kernel_layout(&c, &l), 0);
    assert_int_equal(l.runtime_offset, 0);
    assert_int_equal(l.runtime_bytes, 8192);
    assert_int_equal(l.definition_offset, 8192);
    assert_int_equal(l.definition_bytes, 512);
    assert_int_equal(l.scheduler_offset, 9216);
    assert_int_equal(l.scheduler_bytes, 2048);
    assert_int_equal(l.registry_offset, 11264);
    assert_int_equal(l.registry_bytes, 256);
    assert_int_equal(l.runtime_pool_bytes, 11520);
}

static void layout_zero_region_takes_no_space_and_no_alignment(void **state)
{
    SimplerKernelLayout l;
    (void)state;
    assert_int_equal(runtime_pool_pack(100, 0, 0, &l), 0);
    assert_int_equal(l.definition_offset, 100);
    assert_int_equal(l.scheduler_offset, 100);
    assert_int_equal(l.registry_offset, 128);
    assert_int_equal(l.runtime_pool_bytes, 128 + 256);
}

static void layout_overflow_is_capacity_exceeded_and_writes_nothing(void **state)
{
    SimplerKernelLayout l;
    (void)state;
    memset(&l, 0xab, sizeof(l));
    assert_int_equal(runtime_pool_pack(UINT64_MAX - 100, 1, 0, &l), PTO_RUNTIME_ERR_CAPACITY_EXCEEDED);
    assert_int_equal(runtime_pool_pack(UINT64_MAX - 100, 0, 0, &l), PTO_RUNTIME_ERR_CAPACITY_EXCEEDED);
    assert_int_equal(l.runtime_bytes, 0xababababababababull);
}

static void plan_capacity_refuses_null_and_empty_and_writes_nothing(void **state)
{
    SimplerGraphRequirements g = graph_req(1, 1, 1, 1);
    SimplerKernelCtxControl c;
    (void)state;
    memset(&c, 0xcd, sizeof(c));
    assert_int_equal(simpler_kernel_plan_capacity(NULL, 1, &c), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(simpler_kernel_plan_capacity(&g, 0, &c), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(simpler_kernel_plan_capacity(&g, 1, NULL), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    g.runtime_arena_bytes = UINT64_MAX;
    assert_int_equal(simpler_kernel_plan_capacity(&g, 1, &c), PTO_RUNTIME_ERR_CAPACITY_EXCEEDED);
    g = graph_req(1, 1, 1, UINT32_MAX);
    assert_int_equal(simpler_kernel_plan_capacity(&g, 1, &c), PTO_RUNTIME_ERR_CAPACITY_EXCEEDED);
    assert_int_equal(c.struct_size, 0xcdcdcdcdu);
}

/* simpler_kernel_plan_capacity turns what simpler_graph_requirements
 * measured into a CONFIGURE (task_window = largest task_count + 1), and
 * simpler_kernel_mode_init refuses a task window above the graph limit
 * (1 << 20, the most simpler_graph_sizer_measure builds) with -1005.
 * A graph of 1 << 20 tasks (or any count up to UINT32_MAX - 1) must be
 * refused by the plan ("-1004 when a size overflows"), not turned into a
 * CONFIGURE every init refuses and that the context can then never
 * replace. */
static void plan_capacity_never_writes_a_task_window_init_refuses(void **state)
{
    const uint64_t counts[] = {1u << 20, (1u << 20) + 5, UINT32_MAX - 1};
    (void)state;
    for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
        SimplerGraphRequirements g = graph_req(4096, 1024, 1024, counts[i]);
        SimplerKernelCtxControl c;
        memset(&c, 0, sizeof(c));
        int rc = simpler_kernel_plan_capacity(&g, 1, &c);
        if (rc == 0 && c.task_window > (1u << 20))
            fail_msg("task_count %llu: plan returned 0 with task_window %u, which kernel init refuses (at most %u)",
                     (unsigned long long)counts[i], c.task_window, 1u << 20);
        if (rc != 0) {
            assert_int_equal(rc, PTO_RUNTIME_ERR_CAPACITY_EXCEEDED);
            assert_non_null(strstr(simpler_last_error_message(), "graphs[].task_count"));
        }
    }
}

static void kernel_layout_refuses_malformed_configure(void **state)
{
    SimplerGraphRequirements g = graph_req(4096, 0, 0, 1);
    SimplerKernelCtxControl c, bad;
    SimplerKernelLayout l;
    (void)state;
    assert_int_equal(simpler_kernel_plan_capacity(&g, 1, &c), 0);
    assert_int_equal(simpler_kernel_layout(NULL, &l), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_int_equal(simpler_kernel_layout(&c, NULL), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    bad = c;
    bad.abi_version = 2;
    assert_int_equal(simpler_kernel_layout(&bad, &l), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    bad = c;
    bad.struct_size = sizeof(bad) - 8;
    assert_int_equal(simpler_kernel_layout(&bad, &l), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    bad = c;
    bad.action = SIMPLER_KERNEL_CTX_FREEZE;
    assert_int_equal(simpler_kernel_layout(&bad, &l), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    bad = c;
    bad.mode = 7;
    assert_int_equal(simpler_kernel_layout(&bad, &l), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    bad = c;
    bad.reserved[3] = 1;
    assert_int_equal(simpler_kernel_layout(&bad, &l), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    bad = c;
    bad.task_window = (1u << 20) + 1; /* above what init takes */
    memset(&l, 0xcd, sizeof(l));
    assert_int_equal(simpler_kernel_layout(&bad, &l), PTO_RUNTIME_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(simpler_last_error_message(), "task_window"));
    assert_int_equal(l.runtime_pool_bytes, 0xcdcdcdcdcdcdcdcdull); /* not written */
    bad.task_window = 1u << 20;
    assert_int_equal(simpler_kernel_layout(&bad, &l), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(plan_capacity_takes_each_region_maximum_and_packs_the_worked_example),
        cmocka_unit_test(layout_zero_region_takes_no_space_and_no_alignment),
        cmocka_unit_test(layout_overflow_is_capacity_exceeded_and_writes_nothing),
        cmocka_unit_test(plan_capacity_refuses_null_and_empty_and_writes_nothing),
        cmocka_unit_test(plan_capacity_never_writes_a_task_window_init_refuses),
        cmocka_unit_test(kernel_layout_refuses_malformed_configure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

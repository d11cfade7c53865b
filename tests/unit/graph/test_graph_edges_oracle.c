/* The host build's edges against a brute-force overlap oracle: 10,000
 * random programs of overlapping, partly repeated, strided and
 * adjacent tensor regions in all three address spaces, every tag, each
 * built with graph_build_run; every task's predecessor list must be
 * exactly the oracle's (no edge missing, none extra, none twice).
 *
 * The oracle knows nothing of the TensorMap: it compares each pair of
 * tasks i < j directly. j depends on i when some byte is accessed by both,
 * at least one of them writes it, and no task between them writes it (a
 * write hides what came before it; reads do not). That is RAW, WAW and
 * WAR over byte ranges, with a view covering the bytes from its first
 * element to its last (strided views included, gaps and all). Every pair
 * of tasks that conflict (a common byte, one of them writing it) must
 * also be ordered through the build's edges, directly or not. The model
 * and the oracle are tests/support/region_oracle.h, which the fuzz
 * target fuzz_task_args_build shares. */
#include "graph_test_util.h"
#include "region_oracle.h"

#define OR_GRAPHS 10000u
#define OR_HEAP_BASE 768u   /* universe bytes: DEVICE 0..255, HOST 512..767, heap after */
#define OR_DEVICE_BASE 0x40000u
#define OR_HOST_ADDR 0x7000000u
#define OR_CALLERS 4u

/* The caller's tensors: three DEVICE tensors over 256 bytes, A and B
 * overlapping by 64 bytes, C (float16) adjacent to B's end; one HOST
 * tensor, staged at temp offset 0. Heap tensors follow, created by the
 * orchestration. */
enum { T_A, T_B, T_C, T_H, T_HEAP0 };
static const struct or_tensor_desc {
    uint32_t offset; /* from OR_DEVICE_BASE; unused for HOST */
    uint32_t elems;
    uint8_t dtype;
    uint8_t space;
} callers[] = {
    [T_A] = {0, 32, SIMPLER_DTYPE_FLOAT32, SIMPLER_ADDRESS_SPACE_DEVICE},
    [T_B] = {64, 24, SIMPLER_DTYPE_FLOAT32, SIMPLER_ADDRESS_SPACE_DEVICE},
    [T_C] = {160, 48, SIMPLER_DTYPE_FLOAT16, SIMPLER_ADDRESS_SPACE_DEVICE},
    [T_H] = {0, 64, SIMPLER_DTYPE_FLOAT32, SIMPLER_ADDRESS_SPACE_HOST},
};

static ro_prog prog;

/* The oracle's universe: DEVICE tensors at their offsets in the first
 * 256 bytes, the HOST tensor's staged copy at 512, heap tensors at 768. */
static void places_init(ro_prog *p)
{
    p->caller_count = OR_CALLERS;
    for (uint32_t k = 0; k < OR_CALLERS; k++) {
        ro_place *pl = &p->places[k];
        pl->cell_base = callers[k].space == SIMPLER_ADDRESS_SPACE_HOST ? 512u : callers[k].offset;
        pl->elem_bytes = callers[k].dtype == SIMPLER_DTYPE_FLOAT16 ? 2 : 4;
        pl->elems = callers[k].elems;
    }
    ro_place_heap(p, OR_HEAP_BASE);
}

static void describe_prog(const ro_prog *p)
{
    for (uint32_t i = 0; i < p->task_count; i++) {
        for (uint32_t k = 0; k < p->tasks[i].arg_count; k++) {
            const ro_arg *a = &p->tasks[i].args[k];
            uint32_t lo = 0, hi = 0;
            (void)ro_arg_cells(p, a, &lo, &hi);
            print_message("  task %u arg %u: tensor %u tag %u bytes [%u, %u)\n", i, k, a->tensor, a->tag, lo, hi);
        }
    }
}

/* The build counts each task's successors as it closes the tasks after
 * it (close_task), and both image writers trust those counts: each must
 * be the number of fan-in entries naming the task, the image written
 * from them must pass graph_image_check, and the parts program mode
 * uploads (graph_image_write_parts' head and fan-out lists, the build's
 * own task and argument records) must assemble that image byte for
 * byte. */
static void image_parts_match(const graph *g, uint32_t n)
{
    static uint32_t named[RO_TASKS_MAX];
    static uint64_t head[4096];
    static uint32_t fanout[RO_TASKS_MAX * RO_TASKS_MAX];
    assert_true(g->task_count <= RO_TASKS_MAX && g->edge_count <= RO_TASKS_MAX * RO_TASKS_MAX);
    memset(named, 0, sizeof(named));
    for (uint32_t e = 0; e < g->edge_count; e++)
        named[g->fanin[e]]++;
    for (uint32_t t = 0; t < g->task_count; t++)
        if (g->tasks[t].fanout_count != named[t])
            fail_msg("graph %u: task %u counts %u successors, %u name it", n, t, g->tasks[t].fanout_count, named[t]);
    size_t size;
    unsigned char *whole = gt_image(g, &size);
    if (gt_check(whole, size) != 0)
        fail_msg("graph %u: the written image fails graph_image_check", n);
    graph_image_header h;
    memcpy(&h, whole, sizeof(h));
    assert_true(h.task_offset <= sizeof(head));
    assert_int_equal(graph_image_write_parts(g, head, h.task_offset, fanout), 0);
    if (memcmp(whole, head, h.task_offset) != 0 ||
        memcmp(whole + h.task_offset, g->tasks, (size_t)g->task_count * sizeof(graph_image_task)) != 0 ||
        memcmp(whole + h.arg_offset, g->args, (size_t)g->arg_count * sizeof(graph_image_arg)) != 0 ||
        memcmp(whole + h.fanout_offset, fanout, (size_t)g->edge_count * sizeof(uint32_t)) != 0)
        fail_msg("graph %u: the parts differ from the written image", n);
    free(whole);
}

static void graph_build_edges_match_an_overlap_oracle_on_random_programs(void **state)
{
    (void)state;
    graph_scratch *s = gt_scratch(64);
    ChipStorageTaskArgs *args = fixture_args_new();
    static ro_cells cells[RO_TASKS_MAX];
    uint64_t rng = 0x5eed;
    uint64_t edges_total = 0, graphs_with_war = 0, conflicts_total = 0;
    for (uint32_t k = 0; k < OR_CALLERS; k++) {
        uint64_t addr = callers[k].space == SIMPLER_ADDRESS_SPACE_HOST ? OR_HOST_ADDR : OR_DEVICE_BASE + callers[k].offset;
        ChipTensor t = fixture_tensor(addr, callers[k].elems, callers[k].space);
        t.dtype = callers[k].dtype;
        t.buffer_bytes = (uint64_t)callers[k].elems * (callers[k].dtype == SIMPLER_DTYPE_FLOAT16 ? 2 : 4);
        args->tensors[args->tensor_count++] = t;
    }
    places_init(&prog);
    ro_current = &prog;
    for (uint32_t n = 0; n < OR_GRAPHS; n++) {
        const graph *g = NULL;
        ro_report r;
        ro_random_prog(&rng, &prog);
        int rc = graph_build_run(s, ro_orch, args, &g);
        if (rc != 0)
            fail_msg("graph %u: build returned %d", n, rc);
        if (ro_check_graph(&prog, g, cells, &r) != 0) {
            describe_prog(&prog);
            fail_msg("graph %u: %s", n, r.why);
        }
        image_parts_match(g, n);
        edges_total += r.edges;
        conflicts_total += r.conflicts;
        graphs_with_war += r.war > 0;
    }
    /* The programs exercise what they claim to: plenty of edges, WAR
     * among them, more conflicting pairs than direct edges (some are
     * ordered only through others). */
    assert_true(edges_total > 20u * OR_GRAPHS);
    assert_true(graphs_with_war > OR_GRAPHS / 4u);
    assert_true(conflicts_total > edges_total);
    graph_scratch_destroy(s);
    free(args);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(graph_build_edges_match_an_overlap_oracle_on_random_programs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

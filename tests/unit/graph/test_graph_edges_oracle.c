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
 * element to its last (strided views included, gaps and all). */
#include "graph_test_util.h"

#define OR_GRAPHS 10000u
#define OR_TASKS_MAX 40u
#define OR_ARGS_MAX 5u
#define OR_HEAP_TENSORS 4u
#define OR_HEAP_ELEMS 16u /* float32: 64 bytes each */
#define OR_CELLS 256u     /* bytes per address space the programs touch */
#define OR_WORDS (OR_CELLS / 64u)
#define OR_SPACES 3u
#define OR_DEVICE_BASE 0x40000u
#define OR_HOST_ADDR 0x7000000u

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
#define OR_CALLERS 4u

typedef struct or_arg {
    uint8_t tensor;   /* T_* or T_HEAP0 + k */
    uint8_t tag;
    uint8_t dims;     /* 1, or 2: shape [rows, cols], strides [stride, 1] */
    uint32_t start;   /* start_offset, elements */
    uint32_t rows, cols, stride;
} or_arg;

typedef struct or_task {
    uint32_t arg_count;
    int scalar;       /* a scalar argument after the tensors */
    or_arg args[OR_ARGS_MAX];
} or_task;

typedef struct or_prog {
    uint32_t task_count;
    or_task tasks[OR_TASKS_MAX];
} or_prog;

static or_prog prog;

static uint32_t rng_next(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*s >> 33);
}

static uint32_t rng_below(uint64_t *s, uint32_t n)
{
    return rng_next(s) % n;
}

static uint32_t tensor_elems(uint8_t t)
{
    return t < OR_CALLERS ? callers[t].elems : OR_HEAP_ELEMS;
}

static uint32_t tensor_elem_bytes(uint8_t t)
{
    return t < OR_CALLERS && callers[t].dtype == SIMPLER_DTYPE_FLOAT16 ? 2 : 4;
}

/* A random view of tensor t: a 1-D slice, or a 2-D strided block. */
static void random_view(uint64_t *s, or_arg *a)
{
    uint32_t n = tensor_elems(a->tensor);
    a->dims = 1;
    a->rows = a->stride = 1;
    if (rng_below(s, 4) == 0) {
        a->dims = 2;
        a->cols = 1 + rng_below(s, 4);
        a->stride = a->cols + rng_below(s, 4);
        a->start = rng_below(s, n - a->cols + 1);
        a->rows = 1 + rng_below(s, (n - a->start - a->cols) / a->stride + 1);
        return;
    }
    switch (rng_below(s, 4)) {
    case 0: /* the whole tensor */
        a->start = 0;
        a->cols = n;
        break;
    case 1: /* one of four quarters: neighbours touch, never overlap */
        a->cols = n / 4;
        a->start = rng_below(s, 4) * a->cols;
        break;
    default:
        a->start = rng_below(s, n);
        a->cols = 1 + rng_below(s, n - a->start);
        break;
    }
}

static void random_prog(uint64_t *s, or_prog *p)
{
    uint32_t made = 0; /* args so far, to repeat regions from */
    or_arg *seen[OR_TASKS_MAX * OR_ARGS_MAX];
    p->task_count = 1 + rng_below(s, OR_TASKS_MAX);
    for (uint32_t i = 0; i < p->task_count; i++) {
        or_task *t = &p->tasks[i];
        t->arg_count = 1 + rng_below(s, OR_ARGS_MAX);
        t->scalar = rng_below(s, 4) == 0;
        for (uint32_t k = 0; k < t->arg_count; k++) {
            or_arg *a = &t->args[k];
            if (made > 0 && rng_below(s, 5) < 2) {
                *a = *seen[rng_below(s, made)]; /* the same region again */
            } else {
                a->tensor = (uint8_t)rng_below(s, OR_CALLERS + OR_HEAP_TENSORS);
                random_view(s, a);
            }
            int heap = a->tensor >= T_HEAP0;
            static const uint8_t heap_tags[] = {SIMPLER_TAG_INPUT, SIMPLER_TAG_OUTPUT, SIMPLER_TAG_INOUT,
                                                SIMPLER_TAG_NO_DEP};
            static const uint8_t caller_tags[] = {SIMPLER_TAG_INPUT, SIMPLER_TAG_OUTPUT_EXISTING, SIMPLER_TAG_INOUT,
                                                  SIMPLER_TAG_NO_DEP};
            uint32_t pick = rng_below(s, 9); /* inputs twice as likely */
            pick = pick < 4 ? 0 : pick - 4 < 3 ? 1 + (pick - 4) % 2 : 3;
            a->tag = heap ? heap_tags[pick] : caller_tags[pick];
            seen[made++] = a;
        }
    }
}

/* Submits `prog`: heap tensors first, then each task's arguments. */
static int orch_prog(SimplerOrch *orch, const ChipStorageTaskArgs *args)
{
    ChipTensor tensors[OR_CALLERS + OR_HEAP_TENSORS];
    uint32_t heap_shape = OR_HEAP_ELEMS;
    for (int32_t i = 0; i < (int32_t)OR_CALLERS; i++)
        if (simpler_orch_tensor(orch, i, &tensors[i]) != 0 || args->tensor_count != (int32_t)OR_CALLERS)
            return -1;
    for (uint32_t k = 0; k < OR_HEAP_TENSORS; k++)
        if (simpler_orch_tensor_create(orch, SIMPLER_DTYPE_FLOAT32, 1, &heap_shape, &tensors[T_HEAP0 + k]) != 0)
            return -2;
    for (uint32_t i = 0; i < prog.task_count; i++) {
        const or_task *t = &prog.tasks[i];
        if (simpler_orch_args_begin(orch) != 0)
            return -3;
        for (uint32_t k = 0; k < t->arg_count; k++) {
            const or_arg *a = &t->args[k];
            ChipTensor v = tensors[a->tensor];
            memset(v.shapes, 0, sizeof(v.shapes));
            memset(v.strides, 0, sizeof(v.strides));
            v.start_offset = a->start;
            v.ndims = a->dims;
            if (a->dims == 1) {
                v.shapes[0] = a->cols;
                v.strides[0] = 1;
            } else {
                v.shapes[0] = a->rows;
                v.shapes[1] = a->cols;
                v.strides[0] = a->stride;
                v.strides[1] = 1;
            }
            if (orch->ops->add_tensor(orch, &v, a->tag) != 0)
                return -4;
        }
        if (t->scalar && simpler_orch_add_scalar(orch, i) != 0)
            return -5;
        if (simpler_orch_submit(orch, 0, SIMPLER_CORE_TYPE_AIV) != 0)
            return -6;
    }
    return 0;
}

/* The bytes a task reads and writes, per address space. */
typedef struct or_cells {
    uint64_t read[OR_SPACES][OR_WORDS];
    uint64_t write[OR_SPACES][OR_WORDS];
} or_cells;

static void cells_mark(uint64_t *words, uint32_t lo, uint32_t hi)
{
    for (uint32_t b = lo; b < hi; b++)
        words[b / 64] |= 1ull << (b % 64);
}

/* Where an argument's bytes lie: its address space and [lo, hi) in the
 * oracle's 256 bytes of that space. */
static void arg_cells(const or_arg *a, uint32_t *space, uint32_t *lo, uint32_t *hi)
{
    uint32_t e = tensor_elem_bytes(a->tensor);
    uint32_t extent = 1 + (a->rows - 1) * a->stride + (a->cols - 1);
    uint32_t base;
    if (a->tensor >= T_HEAP0) {
        *space = SIMPLER_ADDRESS_SPACE_GRAPH_HEAP;
        base = (a->tensor - T_HEAP0) * OR_HEAP_ELEMS * 4;
    } else {
        *space = callers[a->tensor].space;
        base = callers[a->tensor].offset;
    }
    *lo = base + a->start * e;
    *hi = base + (a->start + extent) * e;
    assert_true(*hi <= OR_CELLS && *lo < *hi);
}

static void task_cells(const or_task *t, or_cells *c)
{
    memset(c, 0, sizeof(*c));
    for (uint32_t k = 0; k < t->arg_count; k++) {
        const or_arg *a = &t->args[k];
        uint32_t space, lo, hi;
        arg_cells(a, &space, &lo, &hi);
        if (a->tag == SIMPLER_TAG_INPUT || a->tag == SIMPLER_TAG_INOUT)
            cells_mark(c->read[space], lo, hi);
        if (a->tag == SIMPLER_TAG_OUTPUT || a->tag == SIMPLER_TAG_OUTPUT_EXISTING || a->tag == SIMPLER_TAG_INOUT)
            cells_mark(c->write[space], lo, hi);
    }
}

/* Brute force: does task j depend on task i (i < j)? */
static int oracle_edge(const or_cells *cells, uint32_t i, uint32_t j)
{
    for (uint32_t sp = 0; sp < OR_SPACES; sp++) {
        for (uint32_t w = 0; w < OR_WORDS; w++) {
            const or_cells *ci = &cells[i], *cj = &cells[j];
            uint64_t both = (ci->read[sp][w] | ci->write[sp][w]) & (cj->read[sp][w] | cj->write[sp][w]);
            uint64_t hazard = both & (ci->write[sp][w] | cj->write[sp][w]);
            for (uint32_t k = i + 1; k < j && hazard != 0; k++)
                hazard &= ~cells[k].write[sp][w];
            if (hazard != 0)
                return 1;
        }
    }
    return 0;
}

static void describe_prog(const or_prog *p)
{
    for (uint32_t i = 0; i < p->task_count; i++) {
        for (uint32_t k = 0; k < p->tasks[i].arg_count; k++) {
            const or_arg *a = &p->tasks[i].args[k];
            uint32_t space, lo, hi;
            arg_cells(a, &space, &lo, &hi);
            print_message("  task %u arg %u: tensor %u tag %u space %u bytes [%u, %u)\n", i, k, a->tensor, a->tag,
                          space, lo, hi);
        }
    }
}

static void graph_build_edges_match_an_overlap_oracle_on_random_programs(void **state)
{
    (void)state;
    graph_scratch *s = gt_scratch(64);
    ChipStorageTaskArgs *args = fixture_args_new();
    static or_cells cells[OR_TASKS_MAX];
    uint64_t rng = 0x5eed;
    uint64_t edges_total = 0, graphs_with_war = 0;
    for (uint32_t k = 0; k < OR_CALLERS; k++) {
        uint64_t addr = callers[k].space == SIMPLER_ADDRESS_SPACE_HOST ? OR_HOST_ADDR : OR_DEVICE_BASE + callers[k].offset;
        ChipTensor t = fixture_tensor(addr, callers[k].elems, callers[k].space);
        t.dtype = callers[k].dtype;
        t.buffer_bytes = (uint64_t)callers[k].elems * tensor_elem_bytes((uint8_t)k);
        args->tensors[args->tensor_count++] = t;
    }
    for (uint32_t n = 0; n < OR_GRAPHS; n++) {
        const graph *g = NULL;
        random_prog(&rng, &prog);
        int rc = graph_build_run(s, orch_prog, args, &g);
        if (rc != 0)
            fail_msg("graph %u: build returned %d", n, rc);
        assert_int_equal(g->task_count, prog.task_count);
        for (uint32_t j = 0; j < prog.task_count; j++)
            task_cells(&prog.tasks[j], &cells[j]);
        uint32_t want_edges = 0;
        int war = 0;
        for (uint32_t j = 0; j < prog.task_count; j++) {
            const graph_image_task *t = &g->tasks[j];
            const uint32_t *got = &g->fanin[t->fanin_begin];
            uint32_t next = 0; /* index into got */
            for (uint32_t i = 0; i < j; i++) {
                if (!oracle_edge(cells, i, j))
                    continue;
                want_edges++;
                if (next >= t->fanin_count || got[next] != i) {
                    describe_prog(&prog);
                    fail_msg("graph %u task %u: oracle edge from %u, build has %s %u", n, j, i,
                             next < t->fanin_count ? "predecessor" : "no more predecessors after",
                             next < t->fanin_count ? got[next] : (next ? got[next - 1] : 0));
                }
                next++;
                /* a WAR edge: i only read what j writes */
                for (uint32_t sp = 0; sp < OR_SPACES; sp++)
                    for (uint32_t w = 0; w < OR_WORDS; w++)
                        war |= (cells[i].read[sp][w] & ~cells[i].write[sp][w] & cells[j].write[sp][w]) != 0;
            }
            if (next != t->fanin_count) {
                describe_prog(&prog);
                fail_msg("graph %u task %u: build has %u predecessors, oracle %u (extra: %u)", n, j, t->fanin_count,
                         next, got[next]);
            }
        }
        assert_int_equal(g->edge_count, want_edges);
        edges_total += want_edges;
        graphs_with_war += war;
    }
    /* The programs exercise what they claim to: plenty of edges, WAR
     * among them. */
    assert_true(edges_total > 20u * OR_GRAPHS);
    assert_true(graphs_with_war > OR_GRAPHS / 4u);
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

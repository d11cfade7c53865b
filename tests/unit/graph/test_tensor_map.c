/* TensorMap contracts: dependencies by overlapping address ranges. */
#include <string.h>

#include "support.h"

#include "graph/graph_status.h"
#include "graph/tensor_map.h"

#define TASKS 16

typedef struct fixture {
    tensor_map map;
    tensor_map_deps deps;
    tensor_map_segment segments[64];
    tensor_map_reader readers[64];
    uint32_t seen[TASKS];
    uint32_t list[TASKS];
} fixture;

static fixture fx;

static void setup_pools(uint32_t segments, uint32_t readers)
{
    memset(&fx, 0, sizeof(fx));
    tensor_map_init(&fx.map, fx.segments, segments, fx.readers, readers);
    tensor_map_deps_init(&fx.deps, fx.seen, fx.list, TASKS);
}

static int setup(void **state)
{
    (void)state;
    setup_pools(64, 64);
    return 0;
}

/* Runs one access by `task` and returns its predecessors as a bit mask. */
static uint32_t access_in(uint32_t space, int write, uint64_t lo, uint64_t hi, uint32_t task)
{
    tensor_map_deps_begin(&fx.deps, task);
    int rc = write ? tensor_map_write(&fx.map, space, lo, hi, task, &fx.deps)
                   : tensor_map_read(&fx.map, space, lo, hi, task, &fx.deps);
    assert_int_equal(rc, 0);
    uint32_t mask = 0;
    for (uint32_t i = 0; i < fx.deps.count; i++)
        mask |= 1u << fx.deps.list[i];
    return mask;
}

static uint32_t rd(uint64_t lo, uint64_t hi, uint32_t task)
{
    return access_in(1, 0, lo, hi, task);
}

static uint32_t wr(uint64_t lo, uint64_t hi, uint32_t task)
{
    return access_in(1, 1, lo, hi, task);
}

/* Segments in use, from the pool's own accounting: nodes handed out by
 * the bump index less those on the free list. */
static uint32_t live_segments(const tensor_map *map)
{
    return map->segment_used - map->free_count;
}

static void tensor_map_reader_depends_on_every_overlapping_last_writer(void **state)
{
    (void)state;
    assert_int_equal(wr(0, 100, 0), 0);
    assert_int_equal(wr(100, 200, 1), 0);
    assert_int_equal(rd(50, 150, 2), (1u << 0) | (1u << 1));
    assert_int_equal(rd(150, 160, 3), 1u << 1);
}

static void tensor_map_writer_depends_on_last_writer_only(void **state)
{
    (void)state;
    assert_int_equal(wr(0, 100, 0), 0);
    assert_int_equal(wr(0, 100, 1), 1u << 0);
    assert_int_equal(wr(0, 100, 2), 1u << 1);
}

static void tensor_map_writer_depends_on_readers_since_last_write(void **state)
{
    (void)state;
    assert_int_equal(wr(0, 100, 0), 0);
    assert_int_equal(rd(0, 100, 1), 1u << 0);
    assert_int_equal(rd(10, 20, 2), 1u << 0);
    assert_int_equal(wr(0, 100, 3), (1u << 0) | (1u << 1) | (1u << 2));
    /* Readers before the last write are covered by it. */
    assert_int_equal(wr(0, 100, 4), 1u << 3);
}

static void tensor_map_partial_overlap_is_a_dependency(void **state)
{
    (void)state;
    assert_int_equal(wr(0, 100, 0), 0);
    assert_int_equal(rd(99, 101, 1), 1u << 0);
    assert_int_equal(wr(50, 150, 2), (1u << 0) | (1u << 1));
}

static void tensor_map_disjoint_regions_give_no_edge(void **state)
{
    (void)state;
    assert_int_equal(wr(0, 100, 0), 0);
    assert_int_equal(rd(100, 200, 1), 0);
    assert_int_equal(wr(200, 300, 2), 0);
    /* The same numbers in another address space are another region. */
    assert_int_equal(access_in(2, 0, 0, 100, 3), 0);
    assert_int_equal(access_in(0, 1, 0, 100, 4), 0);
}

static void tensor_map_overlapping_reads_of_one_writer_give_one_edge(void **state)
{
    (void)state;
    assert_int_equal(wr(0, 100, 0), 0);
    tensor_map_deps_begin(&fx.deps, 1);
    assert_int_equal(tensor_map_read(&fx.map, 1, 0, 60, 1, &fx.deps), 0);
    assert_int_equal(tensor_map_read(&fx.map, 1, 40, 100, 1, &fx.deps), 0);
    assert_int_equal(fx.deps.count, 1);
    assert_int_equal(fx.deps.list[0], 0);
}

static void tensor_map_task_never_depends_on_itself(void **state)
{
    (void)state;
    assert_int_equal(wr(0, 100, 0), 0);
    tensor_map_deps_begin(&fx.deps, 1);
    assert_int_equal(tensor_map_read(&fx.map, 1, 0, 100, 1, &fx.deps), 0);
    assert_int_equal(tensor_map_write(&fx.map, 1, 0, 100, 1, &fx.deps), 0);
    assert_int_equal(fx.deps.count, 1);
    assert_int_equal(fx.deps.list[0], 0);
}

/* Whether deps holds each predecessor once: as many entries as bits in
 * the mask they make. */
static uint32_t deps_mask_once(void)
{
    uint32_t mask = 0;
    for (uint32_t i = 0; i < fx.deps.count; i++) {
        assert_true(fx.deps.list[i] < TASKS);
        assert_int_equal(mask & (1u << fx.deps.list[i]), 0);
        mask |= 1u << fx.deps.list[i];
    }
    return mask;
}

/* A write over twelve segments, each with its own writer and the same
 * lone reader: thirteen predecessors, the reader found once while the
 * sink scans its list (the first eight) and eleven times after it
 * switched to stamps, each listed once with its kinds. */
static void tensor_map_many_predecessors_are_listed_once_with_their_kinds(void **state)
{
    (void)state;
    uint8_t kinds[TASKS];
    memset(kinds, 0, sizeof(kinds));
    for (uint32_t t = 1; t <= 12; t++)
        assert_int_equal(wr(10u * t, 10u * t + 10, t), 0);
    assert_int_equal(rd(10, 130, 13), 0x1ffeu);
    assert_int_equal(fx.deps.count, 12);
    fx.deps.kinds = kinds;
    tensor_map_deps_begin(&fx.deps, 14);
    assert_int_equal(tensor_map_write(&fx.map, 1, 5, 135, 14, &fx.deps), 0);
    assert_int_equal(deps_mask_once(), 0x3ffeu);
    for (uint32_t t = 1; t <= 12; t++)
        assert_int_equal(kinds[t], TENSOR_MAP_DEP_WAW);
    assert_int_equal(kinds[13], TENSOR_MAP_DEP_WAR);
    /* The next task starts over: its one predecessor once. */
    fx.deps.kinds = NULL;
    assert_int_equal(rd(0, 140, 15), 1u << 14);
    assert_int_equal(fx.deps.count, 1);
}

/* A task with eight predecessors (the sink on stamps) whose next read
 * walks the appended outputs, adds five more and then must cut the
 * sixth: the walk's five are taken back, stamps included, and the tree
 * walk that takes the read lists all six. */
static void tensor_map_taken_back_predecessors_are_found_again(void **state)
{
    (void)state;
    for (uint32_t t = 1; t <= 14; t++)
        assert_int_equal(wr(10u * t, 10u * t + 10, t), 0);
    tensor_map_deps_begin(&fx.deps, 15);
    assert_int_equal(tensor_map_read(&fx.map, 1, 10, 90, 15, &fx.deps), 0);
    assert_int_equal(fx.deps.count, 8);
    assert_int_equal(fx.map.root[1], TENSOR_MAP_NIL); /* walked in place */
    assert_int_equal(tensor_map_read(&fx.map, 1, 90, 145, 15, &fx.deps), 0);
    assert_int_not_equal(fx.map.root[1], TENSOR_MAP_NIL); /* the tree walk took it */
    assert_int_equal(deps_mask_once(), 0x7ffeu);
}

static void tensor_map_split_segments_keep_their_readers(void **state)
{
    (void)state;
    assert_int_equal(rd(0, 100, 0), 0);
    assert_int_equal(wr(40, 60, 1), 1u << 0);
    /* [0,40) and [60,100) still have reader 0; [40,60) has writer 1. */
    assert_int_equal(wr(0, 10, 2), 1u << 0);
    assert_int_equal(wr(90, 100, 3), 1u << 0);
    assert_int_equal(wr(0, 100, 4), (1u << 0) | (1u << 1) | (1u << 2) | (1u << 3));
}

static void tensor_map_write_over_many_segments_leaves_one(void **state)
{
    (void)state;
    for (uint32_t i = 0; i < 10; i++)
        (void)wr(i * 10, i * 10 + 5, i);
    assert_int_equal(live_segments(&fx.map), 10);
    assert_int_equal(wr(0, 100, 10), 0x3ffu);
    assert_int_equal(live_segments(&fx.map), 1);
}

static void tensor_map_exhausted_reader_pool_changes_nothing(void **state)
{
    (void)state;
    setup_pools(64, 2);
    assert_int_equal(wr(0, 100, 0), 0);
    assert_int_equal(rd(0, 10, 1), 1u << 0);
    assert_int_equal(rd(20, 30, 2), 1u << 0);
    assert_int_equal(rd(40, 50, 3), 1u << 0);
    assert_int_equal(fx.map.reader_used, 0); /* three lone readers */
    /* The read needs a node on each of the three read segments and two
     * are left: it is refused and records nothing. */
    tensor_map_deps_begin(&fx.deps, 4);
    assert_int_equal(tensor_map_read(&fx.map, 1, 0, 100, 4, &fx.deps), PTO_RUNTIME_ERR_CAPACITY_EXCEEDED);
    assert_int_equal(fx.deps.count, 0);
    /* A later writer sees exactly the readers that were recorded. */
    assert_int_equal(wr(0, 100, 5), (1u << 0) | (1u << 1) | (1u << 2) | (1u << 3));
}

/* A read over cut segments and gaps takes a reader node only for the
 * segments that have a reader already: the gaps and the unread segments
 * take it as their lone reader. A read needing exactly the nodes left
 * fits, and leaves the pool full. */
static void tensor_map_read_needing_exactly_the_nodes_left_fits(void **state)
{
    (void)state;
    setup_pools(64, 3);
    assert_int_equal(wr(0, 100, 0), 0);
    assert_int_equal(wr(120, 200, 1), 0); /* [100, 120) is a gap */
    assert_int_equal(rd(0, 10, 2), 1u << 0);
    assert_int_equal(rd(20, 30, 3), 1u << 0);
    assert_int_equal(rd(130, 140, 4), 1u << 1);
    assert_int_equal(fx.map.reader_used, 0);
    /* Over [0, 250): three read segments, five unread ones, two gaps. */
    assert_int_equal(rd(0, 250, 5), (1u << 0) | (1u << 1));
    assert_int_equal(fx.map.reader_used, 3);
    assert_int_equal(wr(0, 250, 6), 0x3fu);
}

static void tensor_map_exhausted_segment_pool_changes_nothing(void **state)
{
    (void)state;
    setup_pools(3, 64);
    assert_int_equal(wr(0, 100, 0), 0);
    assert_int_equal(wr(200, 300, 1), 0);
    /* Writing inside [0,100) needs two more segments; one is left. */
    tensor_map_deps_begin(&fx.deps, 2);
    assert_int_equal(tensor_map_write(&fx.map, 1, 10, 20, 2, &fx.deps), PTO_RUNTIME_ERR_CAPACITY_EXCEEDED);
    assert_int_equal(fx.deps.count, 0);
    assert_int_equal(live_segments(&fx.map), 2);
    assert_int_equal(wr(0, 300, 3), (1u << 0) | (1u << 1));
    assert_int_equal(live_segments(&fx.map), 1);
}

/* An access that starts past everything its space holds skips the tree;
 * with a pool exhausted it is refused all the same and records nothing. */
static void tensor_map_access_past_the_end_with_a_full_pool_changes_nothing(void **state)
{
    (void)state;
    setup_pools(1, 4);
    assert_int_equal(wr(0, 100, 0), 0); /* the one segment */
    tensor_map_deps_begin(&fx.deps, 1);
    assert_int_equal(tensor_map_write(&fx.map, 1, 100, 200, 1, &fx.deps), PTO_RUNTIME_ERR_CAPACITY_EXCEEDED);
    assert_int_equal(tensor_map_read(&fx.map, 1, 100, 200, 1, &fx.deps), PTO_RUNTIME_ERR_CAPACITY_EXCEEDED);
    assert_int_equal(fx.deps.count, 0);
    assert_int_equal(live_segments(&fx.map), 1);

    /* A read past the end is its segment's lone reader and takes no
     * reader node: a pool without nodes does not refuse it. */
    setup_pools(4, 0);
    assert_int_equal(rd(0, 100, 0), 0);
    assert_int_equal(rd(100, 200, 1), 0);
    assert_int_equal(fx.map.reader_used, 0);
    assert_int_equal(live_segments(&fx.map), 2);
    assert_int_equal(wr(0, 200, 2), (1u << 0) | (1u << 1));
}

static void tensor_map_reset_forgets_everything(void **state)
{
    (void)state;
    assert_int_equal(wr(0, 100, 0), 0);
    tensor_map_reset(&fx.map);
    assert_int_equal(live_segments(&fx.map), 0);
    assert_int_equal(rd(0, 100, 1), 0);
}

/* Random accesses against a byte-by-byte model: ranges on a grid of 8
 * bytes in a 64-byte window of two spaces, so exact repeats of a range
 * (the map's search-only path) mix with partial overlaps (split and
 * merge). Every access's predecessors must equal the model's. */
#define MODEL_BYTES 64u
#define MODEL_TASKS 32u

typedef struct model {
    uint32_t writer[2][MODEL_BYTES]; /* task + 1, 0 none */
    uint32_t readers[2][MODEL_BYTES]; /* bit t: task t read since the last write */
} model;

static uint32_t model_access(model *m, uint32_t space, int write, uint32_t lo, uint32_t hi, uint32_t task)
{
    uint32_t deps = 0;
    for (uint32_t b = lo; b < hi; b++) {
        if (m->writer[space][b] != 0)
            deps |= 1u << (m->writer[space][b] - 1);
        if (write)
            deps |= m->readers[space][b];
    }
    for (uint32_t b = lo; b < hi; b++) {
        if (write) {
            m->writer[space][b] = task + 1;
            m->readers[space][b] = 0;
        } else {
            m->readers[space][b] |= 1u << task;
        }
    }
    return deps & ~(1u << task);
}

/* Checks the treap under t: ranges in order and disjoint, above *prev_hi,
 * no child outranking its parent. Returns the number of nodes. */
static uint32_t tree_check(const tensor_map *map, uint32_t t, uint64_t *prev_hi)
{
    if (t == TENSOR_MAP_NIL)
        return 0;
    const tensor_map_segment *s = map->segments;
    uint32_t n = tree_check(map, s[t].left, prev_hi);
    assert_true(s[t].lo >= *prev_hi && s[t].lo < s[t].hi);
    *prev_hi = s[t].hi;
    if (s[t].left != TENSOR_MAP_NIL)
        assert_true(s[s[t].left].priority <= s[t].priority);
    if (s[t].right != TENSOR_MAP_NIL)
        assert_true(s[s[t].right].priority <= s[t].priority);
    return n + 1 + tree_check(map, s[t].right, prev_hi);
}

/* Checks a space: its treap, then its list of appended segments (in
 * address order, above the tree). Returns the number of segments. */
static uint32_t space_check(const tensor_map *map, uint32_t space)
{
    uint64_t prev_hi = 0;
    uint32_t n = tree_check(map, map->root[space], &prev_hi), last = TENSOR_MAP_NIL;
    for (uint32_t i = map->tail_head[space]; i != TENSOR_MAP_NIL; i = map->segments[i].right) {
        assert_true(map->segments[i].lo >= prev_hi && map->segments[i].lo < map->segments[i].hi);
        assert_int_equal(map->segments[i].left, TENSOR_MAP_NIL);
        prev_hi = map->segments[i].hi;
        last = i;
        n++;
    }
    assert_int_equal(last, map->tail_last[space]);
    return n;
}

static void tensor_map_random_accesses_match_a_byte_model(void **state)
{
    (void)state;
    static tensor_map_segment segments[256];
    static tensor_map_reader readers[1024];
    static uint32_t seen[MODEL_TASKS], list[MODEL_TASKS];
    tensor_map map;
    tensor_map_deps deps;
    uint32_t rng = 12345;
    tensor_map_init(&map, segments, 256, readers, 1024);
    tensor_map_deps_init(&deps, seen, list, MODEL_TASKS);
    for (int round = 0; round < 300; round++) {
        model m;
        memset(&m, 0, sizeof(m));
        tensor_map_reset(&map);
        for (uint32_t task = 0; task < MODEL_TASKS; task++) {
            rng = rng * 1103515245u + 12345u;
            uint32_t a = (rng >> 8) % 8, b = (rng >> 12) % 8, space = (rng >> 16) & 1;
            int write = (rng >> 20) & 1;
            uint32_t lo = 8 * (a < b ? a : b), hi = 8 * ((a < b ? b : a) + 1);
            uint32_t want = model_access(&m, space, write, lo, hi, task);
            tensor_map_deps_begin(&deps, task);
            int rc = write ? tensor_map_write(&map, space, lo, hi, task, &deps)
                           : tensor_map_read(&map, space, lo, hi, task, &deps);
            assert_int_equal(rc, 0);
            uint32_t got = 0;
            for (uint32_t i = 0; i < deps.count; i++)
                got |= 1u << deps.list[i];
            if (got != want)
                fail_msg("round %d task %u: %s [%u, %u) space %u: deps %#x, model %#x", round, task,
                         write ? "write" : "read", lo, hi, space, got, want);
            /* The trees stay treaps and hold every live segment. */
            uint32_t nodes = 0;
            for (uint32_t sp = 0; sp < TENSOR_MAP_SPACES; sp++)
                nodes += space_check(&map, sp);
            assert_int_equal(nodes, map.segment_used - map.free_count);
        }
    }
}

/* Appends (fresh ranges past the end), mixed with accesses that
 * restructure the tree, keep it a treap and the appended list in order,
 * together holding every live segment. */
static void tensor_map_appends_keep_the_tree_a_treap(void **state)
{
    (void)state;
    static tensor_map_segment segments[1024];
    static tensor_map_reader readers[1024];
    static uint32_t seen[512], list[512];
    tensor_map map;
    tensor_map_deps deps;
    tensor_map_init(&map, segments, 1024, readers, 1024);
    tensor_map_deps_init(&deps, seen, list, 512);
    for (uint32_t task = 0; task < 512; task++) {
        tensor_map_deps_begin(&deps, task);
        /* Mostly a fresh range at 16 * task; every 7th task rewrites a
         * range across earlier segments, which goes through the tree. */
        uint64_t lo = 16u * task, hi = lo + 16;
        if (task % 7 == 6)
            lo -= 40;
        int rc = task % 3 == 0 ? tensor_map_read(&map, 1, lo, hi, task, &deps)
                               : tensor_map_write(&map, 1, lo, hi, task, &deps);
        assert_int_equal(rc, 0);
        assert_int_equal(space_check(&map, 1), map.segment_used - map.free_count);
    }
}

/* The search-only path refuses a read when the reader pool is full, and
 * records nothing. */
static void tensor_map_exact_read_with_a_full_reader_pool_changes_nothing(void **state)
{
    (void)state;
    setup_pools(64, 1);
    assert_int_equal(wr(0, 100, 0), 0);
    assert_int_equal(rd(0, 100, 1), 1u << 0); /* the lone reader: no node */
    assert_int_equal(rd(0, 100, 2), 1u << 0); /* takes the one reader node */
    assert_int_equal(fx.map.reader_used, 1);
    tensor_map_deps_begin(&fx.deps, 3);
    assert_int_equal(tensor_map_read(&fx.map, 1, 0, 100, 3, &fx.deps), PTO_RUNTIME_ERR_CAPACITY_EXCEEDED);
    assert_int_equal(fx.deps.count, 0);
    assert_int_equal(wr(0, 100, 4), (1u << 0) | (1u << 1) | (1u << 2));
}

/* A read over fresh outputs (a join) takes them from the appended list
 * in place, with the same edges as the tree walk: RAW on every writer,
 * and a reader on every segment for the writes that follow. */
static void tensor_map_read_over_appended_outputs_walks_them_in_place(void **state)
{
    (void)state;
    for (uint32_t t = 0; t < 8; t++)
        assert_int_equal(wr(16u * t, 16u * t + 16, t), 0);
    assert_int_equal(rd(16, 128, 8), 0xfeu);
    assert_int_equal(fx.map.root[1], TENSOR_MAP_NIL); /* not folded */
    assert_int_equal(wr(0, 16, 9), 1u << 0);
    for (uint32_t t = 1; t < 8; t++)
        assert_int_equal(wr(16u * t, 16u * t + 16, 10 + (t % 4)), (1u << 8) | (1u << t));
}

/* A read over appended outputs that needs more reader nodes than are
 * left (each has a reader already) is refused and records nothing: no
 * edge, no reader. */
static void tensor_map_read_over_appended_outputs_with_a_full_reader_pool_changes_nothing(void **state)
{
    (void)state;
    setup_pools(64, 2);
    for (uint32_t t = 0; t < 3; t++) {
        assert_int_equal(wr(16u * t, 16u * t + 16, t), 0);
        assert_int_equal(rd(16u * t, 16u * t + 16, 3), 1u << t); /* each one's lone reader */
    }
    assert_int_equal(fx.map.reader_used, 0);
    tensor_map_deps_begin(&fx.deps, 4); /* needs a node on each of the three */
    assert_int_equal(tensor_map_read(&fx.map, 1, 0, 48, 4, &fx.deps), PTO_RUNTIME_ERR_CAPACITY_EXCEEDED);
    assert_int_equal(fx.deps.count, 0);
    assert_int_equal(fx.map.reader_used, 0);
    assert_int_equal(wr(16, 32, 5), (1u << 1) | (1u << 3));
}

/* The tail walk reads the first output, then finds a gap: it takes
 * that back, and the tree walk, short of reader nodes, refuses the read;
 * nothing of it stays (no edge, no reader, no node). */
static void tensor_map_refused_read_after_a_partial_tail_walk_changes_nothing(void **state)
{
    (void)state;
    setup_pools(64, 1);
    assert_int_equal(wr(0, 16, 0), 0);
    assert_int_equal(wr(32, 48, 1), 0);
    assert_int_equal(rd(0, 16, 2), 1u << 0);  /* the lone reader of [0, 16) */
    assert_int_equal(rd(32, 48, 6), 1u << 1); /* the lone reader of [32, 48) */
    /* The tail walk takes the one node on [0, 16) before the gap; the
     * tree walk needs two, one on each output. */
    tensor_map_deps_begin(&fx.deps, 3);
    assert_int_equal(tensor_map_read(&fx.map, 1, 0, 48, 3, &fx.deps), PTO_RUNTIME_ERR_CAPACITY_EXCEEDED);
    assert_int_equal(fx.deps.count, 0);
    assert_int_equal(fx.map.reader_used, 0);
    assert_int_equal(wr(0, 16, 4), (1u << 0) | (1u << 2));
    assert_int_equal(wr(32, 48, 5), (1u << 1) | (1u << 6));
}

/* Only a segment that has a reader already takes a node: a read over
 * three appended outputs, one of them read before, fits a pool of one. */
static void tensor_map_read_over_appended_outputs_takes_nodes_only_for_read_ones(void **state)
{
    (void)state;
    setup_pools(64, 1);
    for (uint32_t t = 0; t < 3; t++)
        assert_int_equal(wr(16u * t, 16u * t + 16, t), 0);
    assert_int_equal(rd(16, 32, 3), 1u << 1);
    assert_int_equal(rd(0, 48, 4), 0x7u);
    assert_int_equal(fx.map.reader_used, 1);
    assert_int_equal(wr(16, 32, 5), (1u << 1) | (1u << 3) | (1u << 4));
    assert_int_equal(wr(0, 16, 6), (1u << 0) | (1u << 4));
}

/* A gap between appended outputs is bytes nobody wrote: the read still
 * becomes their reader, so a later write there waits for it. */
static void tensor_map_read_over_a_gap_between_appended_outputs_reads_the_gap(void **state)
{
    (void)state;
    assert_int_equal(wr(0, 16, 0), 0);
    assert_int_equal(wr(32, 48, 1), 0);
    assert_int_equal(rd(0, 48, 2), (1u << 0) | (1u << 1));
    assert_int_equal(wr(16, 32, 3), 1u << 2);
}

/* A read ending inside an appended output reads only its part of it: a
 * write to the rest does not wait for it. */
static void tensor_map_read_ending_inside_an_appended_output_cuts_it(void **state)
{
    (void)state;
    assert_int_equal(wr(0, 16, 0), 0);
    assert_int_equal(wr(16, 32, 1), 0);
    assert_int_equal(rd(0, 24, 2), (1u << 0) | (1u << 1));
    assert_int_equal(wr(24, 32, 3), 1u << 1);
    assert_int_equal(wr(16, 24, 4), (1u << 1) | (1u << 2));
}

/* Tiles of one tensor written in order stay in the exact cache: evenly
 * spaced starts do not evict each other while there are fewer of them
 * than a quarter of its slots (a hash mixing lo and hi drops about one
 * in nine of 1,024 here). */
static void tensor_map_tiles_in_order_stay_in_the_exact_cache(void **state)
{
    (void)state;
    static tensor_map_segment segments[TENSOR_MAP_EXACT_SLOTS / 4];
    static tensor_map_reader readers[1];
    static uint32_t seen[1], list[1];
    tensor_map map;
    tensor_map_deps deps;
    tensor_map_init(&map, segments, TENSOR_MAP_EXACT_SLOTS / 4, readers, 1);
    tensor_map_deps_init(&deps, seen, list, 1);
    for (uint64_t stride = 64; stride <= 1u << 20; stride *= 4) {
        tensor_map_reset(&map);
        const uint64_t base = 0x40000000ull + 3 * stride;
        for (uint32_t t = 0; t < TENSOR_MAP_EXACT_SLOTS / 4; t++) {
            tensor_map_deps_begin(&deps, 0);
            assert_int_equal(tensor_map_write(&map, 1, base + t * stride, base + (t + 1) * stride, 0, &deps), 0);
        }
        for (uint32_t t = 0; t < TENSOR_MAP_EXACT_SLOTS / 4; t++)
            if (tensor_map_exact_hit(&map, 1, base + t * stride, base + (t + 1) * stride) == TENSOR_MAP_NIL)
                fail_msg("stride %llu: tile %u left the exact cache", (unsigned long long)stride, t);
    }
}

static uint32_t tree_depth(const tensor_map_segment *s, uint32_t t)
{
    if (t == TENSOR_MAP_NIL)
        return 0;
    uint32_t l = tree_depth(s, s[t].left), r = tree_depth(s, s[t].right);
    return 1 + (l > r ? l : r);
}

/* Appended segments join the tree balanced: a fold draws their
 * priorities (an append leaves them unset). */
static void tensor_map_folded_appends_make_a_balanced_tree(void **state)
{
    (void)state;
    static tensor_map_segment segments[1030];
    static tensor_map_reader readers[4];
    static uint32_t seen[1025], list[1025];
    tensor_map map;
    tensor_map_deps deps;
    tensor_map_init(&map, segments, 1030, readers, 4);
    tensor_map_deps_init(&deps, seen, list, 1025);
    for (uint32_t t = 0; t < 1024; t++) {
        tensor_map_deps_begin(&deps, t);
        assert_int_equal(tensor_map_write(&map, 0, 16u * t, 16u * t + 16, t, &deps), 0);
    }
    /* A read cutting the first segment walks the tree, folding the list. */
    tensor_map_deps_begin(&deps, 1024);
    assert_int_equal(tensor_map_read(&map, 0, 0, 8, 1024, &deps), 0);
    assert_int_equal(map.tail_head[0], TENSOR_MAP_NIL);
    assert_int_equal(space_check(&map, 0), 1025);
    /* A treap of random priorities over 1,025 nodes: about 2.99 ln n. */
    assert_true(tree_depth(map.segments, map.root[0]) <= 40);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(tensor_map_reader_depends_on_every_overlapping_last_writer, setup),
        cmocka_unit_test_setup(tensor_map_writer_depends_on_last_writer_only, setup),
        cmocka_unit_test_setup(tensor_map_writer_depends_on_readers_since_last_write, setup),
        cmocka_unit_test_setup(tensor_map_partial_overlap_is_a_dependency, setup),
        cmocka_unit_test_setup(tensor_map_disjoint_regions_give_no_edge, setup),
        cmocka_unit_test_setup(tensor_map_overlapping_reads_of_one_writer_give_one_edge, setup),
        cmocka_unit_test_setup(tensor_map_task_never_depends_on_itself, setup),
        cmocka_unit_test_setup(tensor_map_many_predecessors_are_listed_once_with_their_kinds, setup),
        cmocka_unit_test_setup(tensor_map_taken_back_predecessors_are_found_again, setup),
        cmocka_unit_test_setup(tensor_map_split_segments_keep_their_readers, setup),
        cmocka_unit_test_setup(tensor_map_write_over_many_segments_leaves_one, setup),
        cmocka_unit_test_setup(tensor_map_exhausted_reader_pool_changes_nothing, setup),
        cmocka_unit_test_setup(tensor_map_read_needing_exactly_the_nodes_left_fits, setup),
        cmocka_unit_test_setup(tensor_map_exhausted_segment_pool_changes_nothing, setup),
        cmocka_unit_test_setup(tensor_map_access_past_the_end_with_a_full_pool_changes_nothing, setup),
        cmocka_unit_test_setup(tensor_map_reset_forgets_everything, setup),
        cmocka_unit_test(tensor_map_random_accesses_match_a_byte_model),
        cmocka_unit_test(tensor_map_exact_read_with_a_full_reader_pool_changes_nothing),
        cmocka_unit_test(tensor_map_appends_keep_the_tree_a_treap),
        cmocka_unit_test_setup(tensor_map_read_over_appended_outputs_walks_them_in_place, setup),
        cmocka_unit_test(tensor_map_tiles_in_order_stay_in_the_exact_cache),
        cmocka_unit_test(tensor_map_folded_appends_make_a_balanced_tree),
        cmocka_unit_test_setup(tensor_map_read_over_a_gap_between_appended_outputs_reads_the_gap, setup),
        cmocka_unit_test_setup(tensor_map_read_over_appended_outputs_with_a_full_reader_pool_changes_nothing, setup),
        cmocka_unit_test_setup(tensor_map_read_over_appended_outputs_takes_nodes_only_for_read_ones, setup),
        cmocka_unit_test_setup(tensor_map_refused_read_after_a_partial_tail_walk_changes_nothing, setup),
        cmocka_unit_test_setup(tensor_map_read_ending_inside_an_appended_output_cuts_it, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

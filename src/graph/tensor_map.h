/*
 * tensor_map — dependency derivation by address ranges.
 *
 * The map keeps, per address space, a set of disjoint byte segments; each
 * segment knows its last writer and the readers since that write. An
 * access to [lo, hi) overlaps segments, not base addresses:
 *   read  — depends on the writer of every overlapping segment (RAW) and
 *           becomes a reader of each;
 *   write — depends on the writer (WAW) and every reader (WAR) of every
 *           overlapping segment, then owns [lo, hi) alone.
 * Segments live in a balanced tree (a treap) over caller-provided node
 * pools, so an access costs O(log n + overlapped segments) and the map
 * allocates nothing. Reader lists are shared between the halves of a split
 * segment (append-only, newest first), which is why splitting is O(1).
 *
 * Two shortcuts skip the tree for the accesses most programs make, with
 * the same result as the tree walk:
 *   - an access to a range that is exactly one segment (a tensor written
 *     by one task, read by the next) finds it through a direct-mapped
 *     cache of segment ids by range; a cached id counts only when that
 *     segment is live, in the same space, with the same bounds, and a miss
 *     walks the tree;
 *   - an access that starts at or above the end of everything the space
 *     holds (a task writing its own fresh output) overlaps nothing: it
 *     gets a new segment, appended to a list of such segments that joins
 *     the tree only when an access next walks the tree (one pass for the
 *     whole list), so an append costs no tree walk at all; a read that
 *     the list covers exactly, segment after segment from near its head
 *     (a join of fresh outputs), walks the list in place instead.
 *
 * Dependencies go to a tensor_map_deps sink that deduplicates them per task.
 */
#ifndef SIMPLER_GRAPH_TENSOR_MAP_H
#define SIMPLER_GRAPH_TENSOR_MAP_H

#include <stdint.h>
#include <string.h>

#include "graph/graph_status.h"

#define TENSOR_MAP_NIL UINT32_MAX
/* Address spaces: SIMPLER_ADDRESS_SPACE_HOST, _DEVICE, _GRAPH_HEAP. */
#define TENSOR_MAP_SPACES 3
#define TENSOR_MAP_NO_WRITER UINT32_MAX
/* Slots of the exact-range cache (a power of two): 16 KiB per map. */
#define TENSOR_MAP_EXACT_BITS 12u
#define TENSOR_MAP_EXACT_SLOTS (1u << TENSOR_MAP_EXACT_BITS)
/* A reader list's oldest reader is held in the list head or the last
 * node's next as this bit | its task id, not in a node of its own: a
 * segment read by one task since its write (most are) takes no reader
 * node. Node indices (pools of at most 2^30 nodes) and task ids (below a
 * sink's capacity, which is below 2^31, so that no lone reader is
 * TENSOR_MAP_NIL) never have the bit. */
#define TENSOR_MAP_LONE_READER 0x80000000u
/* Segments a read may pass on the tail list before the one it starts at
 * when it walks the list in place (see read_tail in tensor_map.c). */
#define TENSOR_MAP_TAIL_SKIP_MAX 64u
/* Why a predecessor is one (bits; an edge may have several). */
#define TENSOR_MAP_DEP_RAW 1u /* the task reads what it wrote */
#define TENSOR_MAP_DEP_WAR 2u /* the task writes what it read */
#define TENSOR_MAP_DEP_WAW 4u /* the task writes what it wrote */

typedef struct tensor_map_segment {
    uint64_t lo;
    uint64_t hi;
    uint32_t left;    /* treap children, or TENSOR_MAP_NIL */
    uint32_t right;
    uint32_t priority;
    uint32_t writer;  /* task id, or TENSOR_MAP_NO_WRITER */
    uint32_t readers; /* newest reader node, a lone reader (TENSOR_MAP_LONE_READER
                       * | task), or TENSOR_MAP_NIL */
    uint32_t live;    /* 1 + its address space while in a tree; 0 when free */
} tensor_map_segment;

typedef struct tensor_map_reader {
    uint32_t task;
    uint32_t next;    /* older reader node, a lone reader, or TENSOR_MAP_NIL */
    uint32_t visit;   /* access stamp of the last walk through this node */
} tensor_map_reader;

/* Deduplicated predecessors of the task being added. `seen` and `list`
 * each hold one entry per task id (the task window). */
typedef struct tensor_map_deps {
    uint32_t *seen;   /* seen[t] == stamp: t is already a predecessor */
    uint32_t *list;   /* predecessors in discovery order */
    uint32_t count;
    uint32_t stamp;   /* current task + 1 */
    uint32_t task;    /* current task; never its own predecessor */
    uint32_t capacity;
    uint8_t *kinds;   /* NULL, or kinds[t]: TENSOR_MAP_DEP_* bits of predecessor t */
} tensor_map_deps;

typedef struct tensor_map {
    tensor_map_segment *segments;
    uint32_t segment_capacity;
    uint32_t segment_used;  /* bump index; freed nodes go to free_head */
    uint32_t free_head;     /* chained through .right */
    uint32_t free_count;
    tensor_map_reader *readers;
    uint32_t reader_capacity;
    uint32_t reader_used;
    uint32_t visit;         /* access stamp */
    uint32_t rng;
    uint32_t root[TENSOR_MAP_SPACES];
    /* Per space, at or above the end of every segment it holds. */
    uint64_t end[TENSOR_MAP_SPACES];
    /* Per space, the segments appended past its end since its tree was
     * last walked: a list in address order chained through .right, all
     * above everything in the tree, first and last (NIL when empty). An
     * exact access finds them through the cache; anything that walks the
     * tree folds them in first. */
    uint32_t tail_head[TENSOR_MAP_SPACES];
    uint32_t tail_last[TENSOR_MAP_SPACES];
    /* Segment ids by a hash of (space, lo, hi); a hint, checked on use. */
    uint32_t exact[TENSOR_MAP_EXACT_SLOTS];
} tensor_map;

/* Treap priorities come from a fixed-seed xorshift, so a build is
 * reproducible and balanced in expectation. */
static inline uint32_t tensor_map_next_priority(tensor_map *map)
{
    uint32_t x = map->rng;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    map->rng = x;
    return x;
}

/* Binds the map to node pools owned by the caller and empties it. */
void tensor_map_init(tensor_map *map, tensor_map_segment *segments, uint32_t segment_capacity,
                     tensor_map_reader *readers, uint32_t reader_capacity);
/* Empties the map; O(1). */
void tensor_map_reset(tensor_map *map);

/* Binds a sink to two arrays of `capacity` task ids and clears it. */
void tensor_map_deps_init(tensor_map_deps *deps, uint32_t *seen, uint32_t *list, uint32_t capacity);
/* Starts collecting the predecessors of `task` (< capacity). Inline:
 * once per task. */
static inline void tensor_map_deps_begin(tensor_map_deps *deps, uint32_t task)
{
    GRAPH_ASSERT(task < deps->capacity);
    /* Stamps run on across tasks and builds, so `seen` is cleared only when
     * the stamp wraps, never per build. */
    deps->stamp++;
    if (deps->stamp == 0) {
        memset(deps->seen, 0, (size_t)deps->capacity * sizeof(*deps->seen));
        deps->stamp = 1;
    }
    deps->task = task;
    deps->count = 0;
}

/* Adds `pred` unless it is the current task or already present; with
 * deps->kinds set, records `kind` (a TENSOR_MAP_DEP_* bit) for it.
 * Inline: once per dependency found. */
static inline void tensor_map_deps_add(tensor_map_deps *deps, uint32_t pred, uint8_t kind)
{
    GRAPH_ASSERT(pred < deps->capacity);
    if (pred == deps->task)
        return;
    if (deps->seen[pred] == deps->stamp) {
        if (deps->kinds != NULL)
            deps->kinds[pred] |= kind;
        return;
    }
    deps->seen[pred] = deps->stamp;
    deps->list[deps->count++] = pred;
    if (deps->kinds != NULL)
        deps->kinds[pred] = kind;
}


/* Records that `task` reads or writes [lo, hi) of `space` (lo < hi,
 * space < TENSOR_MAP_SPACES) and adds the dependencies to `deps`.
 * Returns 0, or PTO_RUNTIME_ERR_CAPACITY_EXCEEDED when a node pool is exhausted,
 * in which case the map's meaning and `deps` are unchanged. The inline
 * wrappers below take the paths most accesses take (an exact range the
 * cache knows, a fresh range past the end) without a call; these do
 * every access. */
int tensor_map_read_any(tensor_map *map, uint32_t space, uint64_t lo, uint64_t hi, uint32_t task,
                        tensor_map_deps *deps);
int tensor_map_write_any(tensor_map *map, uint32_t space, uint64_t lo, uint64_t hi, uint32_t task,
                         tensor_map_deps *deps);

/* Whether a reader list value (not TENSOR_MAP_NIL) is a lone reader. */
static inline int tensor_map_reader_lone(uint32_t r)
{
    return r - TENSOR_MAP_LONE_READER < TENSOR_MAP_NIL - TENSOR_MAP_LONE_READER;
}

/* The newest reader task of a list that is not TENSOR_MAP_NIL. */
static inline uint32_t tensor_map_reader_newest(const tensor_map *map, uint32_t r)
{
    return tensor_map_reader_lone(r) ? r & ~TENSOR_MAP_LONE_READER : map->readers[r].task;
}

/* The exact cache's slot of [lo, hi) in `space`: by lo alone
 * (Fibonacci hashing), so that ranges at evenly spaced starts, a
 * tensor's tiles in order, spread over the slots without colliding
 * while there are fewer of them than about a third of the slots; ranges
 * that share a start share a slot (hi is compared on use). */
static inline uint32_t tensor_map_exact_slot(uint32_t space, uint64_t lo, uint64_t hi)
{
    (void)hi;
    return (uint32_t)(((lo + space) * 0x9e3779b97f4a7c15ull) >> (64 - TENSOR_MAP_EXACT_BITS));
}

/* The live segment that is exactly [lo, hi) of `space` according to the
 * exact cache, or TENSOR_MAP_NIL (then the tree may still hold it). */
static inline uint32_t tensor_map_exact_hit(const tensor_map *map, uint32_t space, uint64_t lo, uint64_t hi)
{
    uint32_t i = map->exact[tensor_map_exact_slot(space, lo, hi)];
    if (i >= map->segment_used)
        return TENSOR_MAP_NIL;
    const tensor_map_segment *s = &map->segments[i];
    return s->live == space + 1 && s->lo == lo && s->hi == hi ? i : TENSOR_MAP_NIL;
}

static inline int tensor_map_read(tensor_map *map, uint32_t space, uint64_t lo, uint64_t hi, uint32_t task,
                                  tensor_map_deps *deps)
{
    uint32_t e;
    if (lo < map->end[space] && (e = tensor_map_exact_hit(map, space, lo, hi)) != TENSOR_MAP_NIL) {
        tensor_map_segment *seg = &map->segments[e];
        uint32_t r = seg->readers, writer = seg->writer;
        if (r == TENSOR_MAP_NIL) {
            seg->readers = TENSOR_MAP_LONE_READER | task;
        } else if (tensor_map_reader_newest(map, r) != task) {
            if (map->reader_used == map->reader_capacity)
                return PTO_RUNTIME_ERR_CAPACITY_EXCEEDED; /* reason: the caller's (track_all) */
            uint32_t n = map->reader_used++;
            map->readers[n] = (tensor_map_reader){.task = task, .next = r, .visit = 0};
            seg->readers = n;
        }
        if (writer != TENSOR_MAP_NO_WRITER)
            tensor_map_deps_add(deps, writer, TENSOR_MAP_DEP_RAW);
        return 0;
    }
    return tensor_map_read_any(map, space, lo, hi, task, deps);
}

/* Segment i becomes [lo, hi) of `space`, appended past the space's end:
 * on the space's tail list and noted in the exact cache. Its treap
 * priority is drawn when the list joins the tree (fold_tail): a segment
 * that never joins it never needs one. */
static inline __attribute__((always_inline)) void tensor_map_append(tensor_map *map, uint32_t space, uint32_t i,
                                                                   uint64_t lo, uint64_t hi, uint32_t writer,
                                                                   uint32_t readers)
{
    map->segments[i] = (tensor_map_segment){.lo = lo,
                                            .hi = hi,
                                            .left = TENSOR_MAP_NIL,
                                            .right = TENSOR_MAP_NIL,
                                            .priority = 0,
                                            .writer = writer,
                                            .readers = readers,
                                            .live = space + 1};
    map->end[space] = hi;
    map->exact[tensor_map_exact_slot(space, lo, hi)] = i;
    if (map->tail_last[space] == TENSOR_MAP_NIL)
        map->tail_head[space] = i;
    else
        map->segments[map->tail_last[space]].right = i;
    map->tail_last[space] = i;
}

/* Always inline: gcc kept it out of line in submit_views, the hot path. */
static inline __attribute__((always_inline)) int tensor_map_write(tensor_map *map, uint32_t space, uint64_t lo,
                                                                 uint64_t hi, uint32_t task, tensor_map_deps *deps)
{
    if (lo >= map->end[space] && map->free_head == TENSOR_MAP_NIL && map->segment_used < map->segment_capacity &&
        lo < hi) {
        /* A fresh range past the end: a new segment on the space's
         * tail list, noted in the exact cache. */
        tensor_map_append(map, space, map->segment_used++, lo, hi, task, TENSOR_MAP_NIL);
        return 0;
    }
    uint32_t e;
    if (lo < map->end[space] && (e = tensor_map_exact_hit(map, space, lo, hi)) != TENSOR_MAP_NIL &&
        map->segments[e].readers == TENSOR_MAP_NIL) {
        /* An exact range nobody read since its writer: WAW only. */
        tensor_map_segment *seg = &map->segments[e];
        if (seg->writer != TENSOR_MAP_NO_WRITER)
            tensor_map_deps_add(deps, seg->writer, TENSOR_MAP_DEP_WAW);
        seg->writer = task;
        return 0;
    }
    return tensor_map_write_any(map, space, lo, hi, task, deps);
}

#endif

#include "graph/tensor_map.h"

#include <string.h>

#include "graph/graph_status.h"

#define NIL TENSOR_MAP_NIL

static uint32_t next_priority(tensor_map *map)
{
    return tensor_map_next_priority(map);
}

void tensor_map_reset(tensor_map *map)
{
    map->segment_used = 0;
    map->free_head = NIL;
    map->free_count = 0;
    map->reader_used = 0;
    map->visit = 0;
    map->rng = 0x9e3779b9u;
    for (uint32_t i = 0; i < TENSOR_MAP_SPACES; i++) {
        map->root[i] = NIL;
        map->tail_head[i] = NIL;
        map->tail_last[i] = NIL;
        map->end[i] = 0;
    }
    /* The exact cache is not cleared: an id at or above segment_used is
     * never taken, and ids below it name segments of this build. */
}

void tensor_map_init(tensor_map *map, tensor_map_segment *segments, uint32_t segment_capacity,
                     tensor_map_reader *readers, uint32_t reader_capacity)
{
    map->segments = segments;
    map->segment_capacity = segment_capacity;
    map->readers = readers;
    map->reader_capacity = reader_capacity;
    memset(map->exact, 0, sizeof(map->exact));
    tensor_map_reset(map);
}

void tensor_map_deps_init(tensor_map_deps *deps, uint32_t *seen, uint32_t *list, uint32_t capacity)
{
    /* Task ids (below capacity) fit a lone reader that is not TENSOR_MAP_NIL. */
    GRAPH_ASSERT(capacity < TENSOR_MAP_LONE_READER);
    memset(seen, 0, (size_t)capacity * sizeof(*seen));
    deps->seen = seen;
    deps->list = list;
    deps->capacity = capacity;
    deps->count = 0;
    deps->stamp = 0;
    deps->task = 0;
    deps->kinds = NULL;
}

static uint32_t segments_available(const tensor_map *map)
{
    return map->segment_capacity - map->segment_used + map->free_count;
}

static uint32_t exact_slot(uint32_t space, uint64_t lo, uint64_t hi)
{
    return tensor_map_exact_slot(space, lo, hi);
}

/* Notes that segment i is [lo, hi) of `space`. */
static void exact_note(tensor_map *map, uint32_t space, uint32_t i)
{
    map->exact[exact_slot(space, map->segments[i].lo, map->segments[i].hi)] = i;
}

/* A segment to fill: the first free one, else the next unused. */
static uint32_t segment_take(tensor_map *map)
{
    if (map->free_head == NIL) {
        GRAPH_ASSERT(map->segment_used < map->segment_capacity);
        return map->segment_used++;
    }
    uint32_t i = map->free_head;
    map->free_head = map->segments[i].right;
    map->free_count--;
    return i;
}

static uint32_t segment_new(tensor_map *map, uint32_t space, uint64_t lo, uint64_t hi, uint32_t writer,
                            uint32_t readers)
{
    uint32_t i = segment_take(map);
    tensor_map_segment *s = &map->segments[i];
    s->lo = lo;
    s->hi = hi;
    s->left = NIL;
    s->right = NIL;
    s->priority = next_priority(map);
    s->writer = writer;
    s->readers = readers;
    s->live = space + 1;
    if (hi > map->end[space])
        map->end[space] = hi;
    exact_note(map, space, i);
    return i;
}

static void segment_free(tensor_map *map, uint32_t i)
{
    map->segments[i].live = 0;
    map->segments[i].right = map->free_head;
    map->free_head = i;
    map->free_count++;
}

/* `task` added as the newest reader of list `next`: a lone reader when
 * the list is empty, else a node (the caller checked there is one). */
static uint32_t reader_new(tensor_map *map, uint32_t task, uint32_t next)
{
    if (next == NIL)
        return TENSOR_MAP_LONE_READER | task;
    GRAPH_ASSERT(map->reader_used < map->reader_capacity);
    uint32_t i = map->reader_used++;
    map->readers[i].task = task;
    map->readers[i].next = next;
    map->readers[i].visit = 0;
    return i;
}

/* Splits tree t into *l (lo < key) and *r (lo >= key). */
static void split(tensor_map_segment *s, uint32_t t, uint64_t key, uint32_t *l, uint32_t *r)
{
    if (t == NIL) {
        *l = NIL;
        *r = NIL;
    } else if (s[t].lo < key) {
        split(s, s[t].right, key, &s[t].right, r);
        *l = t;
    } else {
        split(s, s[t].left, key, l, &s[t].left);
        *r = t;
    }
}

/* Joins trees a and b where every key of a is below every key of b. */
static uint32_t merge(tensor_map_segment *s, uint32_t a, uint32_t b)
{
    if (a == NIL)
        return b;
    if (b == NIL)
        return a;
    if (s[a].priority > s[b].priority) {
        s[a].right = merge(s, s[a].right, b);
        return a;
    }
    s[b].left = merge(s, a, s[b].left);
    return b;
}

static uint32_t rightmost(const tensor_map_segment *s, uint32_t t)
{
    while (t != NIL && s[t].right != NIL)
        t = s[t].right;
    return t;
}

/* Turns tree t into an in-order list chained through .right, followed by
 * the list `rest`; returns its head. */
static uint32_t flatten(tensor_map_segment *s, uint32_t t, uint32_t rest)
{
    if (t == NIL)
        return rest;
    uint32_t left = s[t].left;
    s[t].left = NIL;
    s[t].right = flatten(s, s[t].right, rest);
    return flatten(s, left, t);
}

/* Turns an in-order list chained through .right back into a treap, in
 * one pass (each node is pushed on and popped off the right spine at
 * most once). While it runs, a node on the spine keeps in .right the
 * spine node above it, not below; the last loop turns those around. */
static uint32_t unflatten(tensor_map_segment *s, uint32_t head)
{
    uint32_t bottom = NIL;
    while (head != NIL) {
        uint32_t x = head, below = NIL;
        head = s[x].right;
        /* Nodes of no higher priority than x go under it, on its left. */
        while (bottom != NIL && s[bottom].priority <= s[x].priority) {
            uint32_t up = s[bottom].right;
            s[bottom].right = below;
            below = bottom;
            bottom = up;
        }
        s[x].left = below;
        s[x].right = bottom;
        bottom = x;
    }
    uint32_t below = NIL;
    while (bottom != NIL) {
        uint32_t up = s[bottom].right;
        s[bottom].right = below;
        below = bottom;
        bottom = up;
    }
    return below;
}

/* The three parts of a space around one access: segments wholly below lo,
 * the overlapped ones as a list (cut exactly to [lo, hi)), those above. */
typedef struct access_parts {
    uint32_t below;
    uint32_t list;
    uint32_t above;
} access_parts;

/* 1 when a segment strictly contains the boundary x (it starts below x
 * and ends above it), so an access starting or ending at x must cut it. */
static uint32_t cut_needed(const tensor_map_segment *s, uint32_t t, uint64_t x)
{
    uint32_t floor = NIL;
    while (t != NIL) {
        if (s[t].lo <= x) {
            floor = t;
            t = s[t].right;
        } else {
            t = s[t].left;
        }
    }
    return floor != NIL && s[floor].lo < x && s[floor].hi > x;
}

/* Cutting a segment at an access boundary keeps the map's meaning (both
 * halves keep the writer and share the reader list), so it needs no undo. */
static int access_open(tensor_map *map, uint32_t space, uint64_t lo, uint64_t hi, access_parts *p)
{
    tensor_map_segment *s = map->segments;
    uint32_t mid, rest;
    uint32_t root = map->root[space];
    if (segments_available(map) < cut_needed(s, root, lo) + cut_needed(s, root, hi))
        return PTO_RUNTIME_ERR_CAPACITY_EXCEEDED; /* reason: the caller's (track_all) */
    split(s, map->root[space], lo, &p->below, &rest);
    split(s, rest, hi, &mid, &p->above);
    uint32_t last = rightmost(s, p->below);
    if (last != NIL && s[last].hi > lo) {
        uint32_t n = segment_new(map, space, lo, s[last].hi, s[last].writer, s[last].readers);
        s[last].hi = lo;
        mid = merge(s, n, mid);
    }
    last = rightmost(s, mid);
    if (last != NIL && s[last].hi > hi) {
        uint32_t n = segment_new(map, space, hi, s[last].hi, s[last].writer, s[last].readers);
        s[last].hi = hi;
        p->above = merge(s, n, p->above);
    }
    p->list = flatten(s, mid, NIL);
    map->root[space] = NIL;
    return 0;
}

static void access_close(tensor_map *map, uint32_t space, const access_parts *p)
{
    tensor_map_segment *s = map->segments;
    map->root[space] = merge(s, merge(s, p->below, unflatten(s, p->list)), p->above);
}

/* Whether the pools hold what the walk over p->list will take: a segment
 * for each gap, and a reader node for each overlapped segment that has a
 * reader already and not this task as its newest (a gap, and a segment
 * without readers, take the task as their lone reader, with no node). */
static int read_fits(const tensor_map *map, const access_parts *p, uint64_t lo, uint64_t hi, uint32_t task)
{
    const tensor_map_segment *s = map->segments;
    uint32_t nodes = 0, gaps = 0;
    uint64_t cur = lo;
    for (uint32_t i = p->list; i != NIL; i = s[i].right) {
        gaps += s[i].lo > cur;
        cur = s[i].hi;
        nodes += s[i].readers != NIL && tensor_map_reader_newest(map, s[i].readers) != task;
    }
    gaps += cur < hi;
    return segments_available(map) >= gaps && map->reader_capacity - map->reader_used >= nodes;
}

/* Joins the space's tail list to its tree before a walk: its segments
 * drawn their priorities in list order, the list turned into a treap in
 * one pass, then merged in on the right. */
static void fold_tail(tensor_map *map, uint32_t space)
{
    uint32_t head = map->tail_head[space];
    if (head == NIL)
        return;
    for (uint32_t i = head; i != NIL; i = map->segments[i].right)
        map->segments[i].priority = next_priority(map);
    map->tail_head[space] = NIL;
    map->tail_last[space] = NIL;
    map->root[space] = merge(map->segments, map->root[space], unflatten(map->segments, head));
}

/* The segment that is exactly [lo, hi), or NIL: a search that writes
 * nothing. Most accesses repeat a range already in the map (a tensor
 * written by one task and read by the next), and for those the treap's
 * split and merge, which rewrite the nodes on two paths, are not needed. */
static uint32_t find_exact(const tensor_map_segment *s, uint32_t t, uint64_t lo, uint64_t hi)
{
    while (t != NIL && s[t].lo != lo)
        t = s[t].lo < lo ? s[t].right : s[t].left;
    return t != NIL && s[t].hi == hi ? t : NIL;
}

/* The segment that is exactly [lo, hi) of `space` after the exact
 * cache missed: the tail folded in, the tree searched, a find noted in
 * the cache. NIL when no segment has those bounds. */
static uint32_t tree_exact(tensor_map *map, uint32_t space, uint64_t lo, uint64_t hi)
{
    fold_tail(map, space);
    uint32_t e = find_exact(map->segments, map->root[space], lo, hi);
    if (e != NIL)
        map->exact[exact_slot(space, lo, hi)] = e;
    return e;
}

/* A segment for [lo, hi) of `space` appended past the space's end: the
 * path of a fresh output (and of a read of bytes nobody wrote). The
 * caller checked that a segment is available. */
static void append_new(tensor_map *map, uint32_t space, uint64_t lo, uint64_t hi, uint32_t writer, uint32_t readers)
{
    tensor_map_append(map, space, segment_take(map), lo, hi, writer, readers);
}

/* Takes back what read_tail's walk did to the tail segments from `first`
 * up to `stop` (those it marked with `mark` in their priority, which a
 * tail segment does not use before the fold): the reader it added to
 * each, the reader nodes from `used0`, the edges it added to `deps` from
 * `count0` on. */
static void read_tail_undo(tensor_map *map, uint32_t first, uint32_t stop, uint32_t mark, uint32_t used0,
                           tensor_map_deps *deps, uint32_t count0)
{
    tensor_map_segment *s = map->segments;
    for (uint32_t i = first; i != stop; i = s[i].right) {
        if (s[i].priority != mark)
            continue;
        s[i].priority = 0;
        s[i].readers = tensor_map_reader_lone(s[i].readers) ? NIL : map->readers[s[i].readers].next;
    }
    map->reader_used = used0;
    for (uint32_t k = count0; k < deps->count; k++)
        deps->seen[deps->list[k]] = 0; /* no task's stamp: stamps start at 1 */
    deps->count = count0;
}

/* A read of [lo, hi) that the space's tail list covers exactly, without
 * a gap and without cutting a segment (a task reading many fresh
 * outputs at once, such as a join): the readers and RAW edges go on in
 * place, in address order as the tree walk would add them, and the tail
 * is not folded. Returns 1 when done, 0 when the read is not of that
 * kind (nothing changed: the tree walk takes it), or
 * PTO_RUNTIME_ERR_CAPACITY_EXCEEDED (nothing changed). The walk to lo
 * passes at most TENSOR_MAP_TAIL_SKIP_MAX segments, so a miss costs O(1)
 * before the fold. One pass: a gap, a cut or a full reader pool found on
 * the way takes back what the walk did so far (read_tail_undo); with
 * edge kinds recorded (bits an undo could not restore) a first pass
 * checks the whole walk and the pool instead, so the second cannot fail. */
static int read_tail(tensor_map *map, uint32_t space, uint64_t lo, uint64_t hi, uint32_t task, tensor_map_deps *deps)
{
    tensor_map_segment *s = map->segments;
    uint32_t i = map->tail_head[space], skipped = 0;
    while (i != NIL && s[i].hi <= lo) {
        if (++skipped > TENSOR_MAP_TAIL_SKIP_MAX)
            return 0;
        i = s[i].right;
    }
    const uint32_t first = i;
    if (deps->kinds != NULL) {
        uint32_t nodes = 0; /* reader nodes the walk will take */
        for (uint64_t cur = lo; cur < hi; i = s[i].right) {
            if (i == NIL || s[i].lo != cur || s[i].hi > hi)
                return 0; /* a gap, or a segment to cut */
            nodes += s[i].readers != NIL && tensor_map_reader_newest(map, s[i].readers) != task;
            cur = s[i].hi;
        }
        if (map->reader_capacity - map->reader_used < nodes)
            return PTO_RUNTIME_ERR_CAPACITY_EXCEEDED; /* reason: the caller's (track_all) */
        i = first;
    }
    const uint32_t mark = ++map->visit, used0 = map->reader_used, count0 = deps->count;
    GRAPH_ASSERT(mark != 0);
    tensor_map_reader *readers = map->readers;
    uint32_t used = used0, last = NIL;
    for (uint64_t cur = lo; cur < hi; last = i, i = s[i].right) {
        if (i == NIL || s[i].lo != cur || s[i].hi > hi) {
            map->reader_used = used;
            read_tail_undo(map, first, i, mark, used0, deps, count0);
            return 0; /* a gap, or a segment to cut */
        }
        const uint32_t writer = s[i].writer, r = s[i].readers;
        if (r == NIL) {
            s[i].readers = TENSOR_MAP_LONE_READER | task;
            s[i].priority = mark;
        } else if (tensor_map_reader_newest(map, r) != task) {
            if (used == map->reader_capacity) {
                map->reader_used = used;
                read_tail_undo(map, first, i, mark, used0, deps, count0);
                return PTO_RUNTIME_ERR_CAPACITY_EXCEEDED; /* reason: the caller's (track_all) */
            }
            readers[used] = (tensor_map_reader){.task = task, .next = r, .visit = 0};
            s[i].readers = used++;
            s[i].priority = mark;
        }
        if (writer != TENSOR_MAP_NO_WRITER)
            tensor_map_deps_add(deps, writer, TENSOR_MAP_DEP_RAW);
        cur = s[i].hi;
    }
    map->reader_used = used;
    if (last == first)
        exact_note(map, space, first); /* the cache had lost it */
    return 1;
}

int tensor_map_read_any(tensor_map *map, uint32_t space, uint64_t lo, uint64_t hi, uint32_t task,
                        tensor_map_deps *deps)
{
    GRAPH_ASSERT(space < TENSOR_MAP_SPACES && lo < hi);
    tensor_map_segment *seg = map->segments;
    if (lo >= map->end[space]) {
        /* Past everything: a read of bytes nobody wrote, no dependency;
         * its one reader takes no node. */
        if (segments_available(map) == 0)
            return PTO_RUNTIME_ERR_CAPACITY_EXCEEDED; /* reason: the caller's (track_all) */
        append_new(map, space, lo, hi, TENSOR_MAP_NO_WRITER, reader_new(map, task, NIL));
        return 0;
    }
    uint32_t e = tensor_map_exact_hit(map, space, lo, hi);
    if (e == NIL && map->tail_head[space] != NIL && lo >= seg[map->tail_head[space]].lo) {
        int done = read_tail(map, space, lo, hi, task, deps);
        if (done != 0)
            return done < 0 ? done : 0;
    }
    if (e == NIL)
        e = tree_exact(map, space, lo, hi);
    if (e != NIL) {
        uint32_t r = seg[e].readers, writer = seg[e].writer;
        if (r == NIL || tensor_map_reader_newest(map, r) != task) {
            if (r != NIL && map->reader_used == map->reader_capacity)
                return PTO_RUNTIME_ERR_CAPACITY_EXCEEDED; /* reason: the caller's (track_all) */
            seg[e].readers = reader_new(map, task, r);
        }
        if (writer != TENSOR_MAP_NO_WRITER)
            tensor_map_deps_add(deps, writer, TENSOR_MAP_DEP_RAW);
        return 0;
    }
    access_parts p;
    int rc = access_open(map, space, lo, hi, &p);
    if (rc != 0)
        return rc;
    if (!read_fits(map, &p, lo, hi, task)) {
        access_close(map, space, &p);
        return PTO_RUNTIME_ERR_CAPACITY_EXCEEDED; /* reason: the caller's (track_all) */
    }
    tensor_map_segment *s = map->segments;
    uint32_t head = NIL, *tail = &head;
    uint64_t cur = lo;
    for (uint32_t i = p.list, next; i != NIL; i = next) {
        next = s[i].right;
        if (s[i].lo > cur) {
            uint32_t g = segment_new(map, space, cur, s[i].lo, TENSOR_MAP_NO_WRITER, reader_new(map, task, NIL));
            *tail = g;
            tail = &s[g].right;
        }
        if (s[i].writer != TENSOR_MAP_NO_WRITER)
            tensor_map_deps_add(deps, s[i].writer, TENSOR_MAP_DEP_RAW);
        /* A shared list whose newest reader is this task already holds it. */
        if (s[i].readers == NIL || tensor_map_reader_newest(map, s[i].readers) != task)
            s[i].readers = reader_new(map, task, s[i].readers);
        *tail = i;
        tail = &s[i].right;
        cur = s[i].hi;
    }
    if (cur < hi) {
        uint32_t g = segment_new(map, space, cur, hi, TENSOR_MAP_NO_WRITER, reader_new(map, task, NIL));
        *tail = g;
        tail = &s[g].right;
    }
    *tail = NIL;
    p.list = head;
    access_close(map, space, &p);
    return 0;
}

/* Adds the readers of one segment. Lists only ever grow at the head and
 * share tails, so a node already walked in this access ends the walk. */
static void add_readers(tensor_map *map, uint32_t r, tensor_map_deps *deps)
{
    while (r != NIL) {
        if (tensor_map_reader_lone(r)) { /* the oldest: it ends the list */
            tensor_map_deps_add(deps, r & ~TENSOR_MAP_LONE_READER, TENSOR_MAP_DEP_WAR);
            return;
        }
        if (map->readers[r].visit == map->visit)
            return;
        map->readers[r].visit = map->visit;
        tensor_map_deps_add(deps, map->readers[r].task, TENSOR_MAP_DEP_WAR);
        r = map->readers[r].next;
    }
}

int tensor_map_write_any(tensor_map *map, uint32_t space, uint64_t lo, uint64_t hi, uint32_t task,
                         tensor_map_deps *deps)
{
    GRAPH_ASSERT(space < TENSOR_MAP_SPACES && lo < hi);
    tensor_map_segment *s = map->segments;
    if (lo >= map->end[space]) {
        /* Past everything: no writer, no reader, no dependency. */
        if (segments_available(map) == 0)
            return PTO_RUNTIME_ERR_CAPACITY_EXCEEDED; /* reason: the caller's (track_all) */
        append_new(map, space, lo, hi, task, NIL);
        return 0;
    }
    uint32_t e = tensor_map_exact_hit(map, space, lo, hi);
    if (e == NIL)
        e = tree_exact(map, space, lo, hi);
    if (e != NIL) {
        uint32_t writer = s[e].writer, r = s[e].readers;
        if (writer != TENSOR_MAP_NO_WRITER)
            tensor_map_deps_add(deps, writer, TENSOR_MAP_DEP_WAW);
        if (r != NIL) {
            map->visit++;
            GRAPH_ASSERT(map->visit != 0);
            add_readers(map, r, deps);
        }
        s[e].writer = task;
        s[e].readers = NIL;
        return 0;
    }
    access_parts p;
    int rc = access_open(map, space, lo, hi, &p);
    if (rc != 0)
        return rc;
    if (p.list == NIL && segments_available(map) == 0) {
        access_close(map, space, &p);
        return PTO_RUNTIME_ERR_CAPACITY_EXCEEDED; /* reason: the caller's (track_all) */
    }
    map->visit++;
    GRAPH_ASSERT(map->visit != 0);
    uint32_t keep = p.list;
    for (uint32_t i = p.list, next; i != NIL; i = next) {
        next = s[i].right;
        if (s[i].writer != TENSOR_MAP_NO_WRITER)
            tensor_map_deps_add(deps, s[i].writer, TENSOR_MAP_DEP_WAW);
        add_readers(map, s[i].readers, deps);
        if (i != keep)
            segment_free(map, i);
    }
    if (keep == NIL)
        keep = segment_new(map, space, lo, hi, task, NIL);
    s[keep].lo = lo;
    s[keep].hi = hi;
    s[keep].writer = task;
    s[keep].readers = NIL;
    s[keep].right = NIL;
    if (hi > map->end[space])
        map->end[space] = hi;
    exact_note(map, space, keep);
    p.list = keep;
    access_close(map, space, &p);
    return 0;
}


/*
 * Events. Eagerly, an event is a pair of sequence numbers: a record
 * enqueue takes the next record_seq, and the op sets completed_seq when it
 * runs; a wait targets the record_seq current at enqueue. A record on a
 * capturing stream instead remembers the capture and its frontier (see
 * sd_capture.c).
 */
#include "common/host_alloc.h"
#include "simdev/sd_internal.h"

int simdev_event_create(simdev_event_t *event)
{
    int rc = sd_call(SIMDEV_CALL_EVENT_CREATE);
    if (rc != 0)
        return rc;
    if (event == NULL)
        return SIMDEV_ERROR_INVALID_PARAM;
    if ((rc = sd_lock_started()) != 0)
        return rc;
    int device = sd_current_device();
    struct simdev_event *e = NULL;
    if ((uint32_t)device >= sd_g.cfg.device_count)
        rc = SIMDEV_ERROR_INVALID_DEVICE;
    else if (sd_vec_reserve(&sd_g.events, 1) != 0 || (e = host_calloc(1, sizeof(*e))) == NULL)
        rc = SIMDEV_ERROR_MEMORY_ALLOCATION;
    if (rc == 0) {
        e->device = device;
        sd_vec_push(&sd_g.events, e);
        *event = e;
    }
    sd_unlock();
    return rc;
}

void sd_event_free(struct simdev_event *e)
{
    sd_ids_deinit(&e->cap_frontier);
    host_free(e);
}

void sd_event_unref(struct simdev_event *e)
{
    if (--e->refs == 0 && e->dead)
        sd_event_free(e);
}

/* Under sd_g.lock: unlists the event; it is freed once no op refers to it. */
static void event_retire(struct simdev_event *e)
{
    sd_vec_remove(&sd_g.events, e);
    sd_ids_deinit(&e->cap_frontier);
    e->cap = NULL;
    pthread_mutex_lock(&sd_g.ev_mu);
    e->dead = 1;
    int unused = e->refs == 0;
    pthread_mutex_unlock(&sd_g.ev_mu);
    if (unused)
        sd_event_free(e);
}

int simdev_event_destroy(simdev_event_t event)
{
    int rc = sd_call(SIMDEV_CALL_EVENT_DESTROY);
    if (rc != 0)
        return rc;
    if ((rc = sd_lock_started()) != 0)
        return rc;
    if ((rc = sd_event_check(event)) == 0)
        event_retire(event);
    sd_unlock();
    return rc;
}

/* Under sd_g.lock: stream and event valid and on the current device. */
static int pair_check(struct simdev_event *e, struct simdev_stream *s)
{
    int rc = sd_event_check(e);
    return rc != 0 ? rc : sd_stream_check(s);
}

int simdev_event_record(simdev_event_t event, simdev_stream_t stream)
{
    int rc = sd_call(SIMDEV_CALL_EVENT_RECORD);
    if (rc != 0 || (rc = sd_lock_started()) != 0)
        return rc;
    for (;;) {
        if (rc == 0 && (rc = pair_check(event, stream)) == 0 && stream->cap != NULL)
            rc = sd_capture_record(stream, event);
        else if (rc == 0 && (rc = sd_stream_reserve(stream, 0)) == SD_RETRY) {
            rc = 0;
            continue;
        } else if (rc == 0) {
            struct sd_op op = {.kind = SD_OP_RECORD, .event = event};
            pthread_mutex_lock(&sd_g.ev_mu);
            op.seq = ++event->record_seq;
            event->refs++;
            pthread_mutex_unlock(&sd_g.ev_mu);
            event->recorded = 1;
            event->cap = NULL;
            sd_ids_deinit(&event->cap_frontier);
            sd_stream_push(stream, &op, NULL, 0);
        }
        break;
    }
    sd_unlock();
    return rc;
}

/* Under sd_g.lock and stream->mu (after reserve): queues a wait for the
 * event's latest record, or nothing when it already completed. */
static void wait_push(struct simdev_stream *s, struct simdev_event *e)
{
    struct sd_op op = {.kind = SD_OP_WAIT, .event = e};
    pthread_mutex_lock(&sd_g.ev_mu);
    op.seq = e->record_seq;
    int done = e->completed_seq >= op.seq;
    if (!done)
        e->refs++;
    pthread_mutex_unlock(&sd_g.ev_mu);
    if (done) {
        pthread_mutex_unlock(&s->mu);
        return;
    }
    sd_stream_push(s, &op, NULL, 0);
}

int simdev_stream_wait_event(simdev_stream_t stream, simdev_event_t event)
{
    int rc = sd_call(SIMDEV_CALL_EVENT_WAIT);
    if (rc != 0 || (rc = sd_lock_started()) != 0)
        return rc;
    for (;;) {
        if (rc == 0 && (rc = pair_check(event, stream)) == 0 && (stream->cap != NULL || event->cap != NULL))
            rc = sd_capture_wait(stream, event);
        else if (rc == 0 && (rc = sd_stream_reserve(stream, 0)) == SD_RETRY) {
            rc = 0;
            continue;
        } else if (rc == 0) {
            wait_push(stream, event);
        }
        break;
    }
    sd_unlock();
    return rc;
}

/* Counts a call of `cls`, takes sd_g.lock and checks that `event` is a
 * live event of the current device whose latest record is in no capture.
 * Returns 0 with the lock held, or the refusal with the lock released. */
static int event_enter_uncaptured(simdev_event_t event, simdev_call_class cls)
{
    int rc = sd_call(cls);
    if (rc != 0)
        return rc;
    if ((rc = sd_lock_started()) != 0)
        return rc;
    if ((rc = sd_event_check(event)) == 0 && event->cap != NULL)
        rc = SIMDEV_ERROR_EVENT_CAPTURED;
    if (rc != 0)
        sd_unlock();
    return rc;
}

int simdev_event_synchronize(simdev_event_t event)
{
    int rc = event_enter_uncaptured(event, SIMDEV_CALL_SYNCHRONIZE);
    if (rc != 0)
        return rc;
    pthread_mutex_lock(&sd_g.ev_mu);
    uint64_t target = event->record_seq;
    event->refs++;
    sd_unlock();
    while (event->completed_seq < target)
        pthread_cond_wait(&sd_g.ev_cv, &sd_g.ev_mu);
    sd_event_unref(event);
    pthread_mutex_unlock(&sd_g.ev_mu);
    return SIMDEV_SUCCESS;
}

int simdev_event_query(simdev_event_t event)
{
    int rc = event_enter_uncaptured(event, SIMDEV_CALL_QUERY);
    if (rc != 0)
        return rc;
    pthread_mutex_lock(&sd_g.ev_mu);
    rc = event->completed_seq >= event->record_seq ? 0 : SIMDEV_ERROR_NOT_READY;
    pthread_mutex_unlock(&sd_g.ev_mu);
    sd_unlock();
    return rc;
}

/*
 * Call counters (process-wide, per thread, per device) and fault injection.
 * Every counted entry point calls sd_call() first, so refused calls count.
 */
#include <pthread.h>
#include <string.h>

#include "simdev/sd_internal.h"

#define CLASS_SLOTS (SIMDEV_CALL_CLASS_COUNT - 1)
_Static_assert(sizeof(simdev_counters) == CLASS_SLOTS * sizeof(uint64_t),
               "simdev_counters has one uint64_t per call class, in class order");

struct arm {
    uint64_t remaining;  /* calls until the fault fires; 0 = disarmed */
    int code;
};

static pthread_mutex_t counters_mu = PTHREAD_MUTEX_INITIALIZER;
static uint64_t process_calls[CLASS_SLOTS];
static uint64_t device_calls[SIMDEV_MAX_DEVICES][CLASS_SLOTS];
static struct arm arms[SIMDEV_CALL_CLASS_COUNT];

/* Thread counters are zeroed lazily when simdev_finalize bumped the
 * generation since this thread last counted. */
static _Thread_local uint64_t thread_calls[CLASS_SLOTS];
static _Thread_local uint64_t thread_generation;

static void thread_refresh(void)
{
    uint64_t gen = atomic_load(&sd_g.generation);
    if (thread_generation != gen) {
        memset(thread_calls, 0, sizeof(thread_calls));
        thread_generation = gen;
    }
}

/* Decrements an arming; returns its code when this call is the nth. */
static int arm_fire(struct arm *a)
{
    if (a->remaining == 0 || --a->remaining != 0)
        return 0;
    return a->code;
}

int sd_call(simdev_call_class cls)
{
    int slot = (int)cls - 1;
    int device = sd_current_device();
    thread_refresh();
    thread_calls[slot]++;
    pthread_mutex_lock(&counters_mu);
    process_calls[slot]++;
    if (device >= 0 && device < SIMDEV_MAX_DEVICES)
        device_calls[device][slot]++;
    int code = arm_fire(&arms[cls]);
    int any = arm_fire(&arms[SIMDEV_CALL_ANY]);
    pthread_mutex_unlock(&counters_mu);
    return code != 0 ? code : any;
}

void sd_counters_reset(void)
{
    pthread_mutex_lock(&counters_mu);
    memset(process_calls, 0, sizeof(process_calls));
    memset(device_calls, 0, sizeof(device_calls));
    memset(arms, 0, sizeof(arms));
    pthread_mutex_unlock(&counters_mu);
}

static void fill(simdev_counters *out, const uint64_t *calls)
{
    memcpy(out, calls, sizeof(*out));
}

int simdev_get_counters(simdev_counters *out)
{
    if (out == NULL)
        return SIMDEV_ERROR_INVALID_PARAM;
    pthread_mutex_lock(&counters_mu);
    fill(out, process_calls);
    pthread_mutex_unlock(&counters_mu);
    return SIMDEV_SUCCESS;
}

int simdev_get_thread_counters(simdev_counters *out)
{
    if (out == NULL)
        return SIMDEV_ERROR_INVALID_PARAM;
    thread_refresh();
    fill(out, thread_calls);
    return SIMDEV_SUCCESS;
}

int simdev_get_device_counters(int device_id, simdev_counters *out)
{
    if (out == NULL)
        return SIMDEV_ERROR_INVALID_PARAM;
    int rc = sd_lock_started();
    if (rc != 0)
        return rc;
    int count = (int)sd_g.cfg.device_count;
    sd_unlock();
    if (device_id < 0 || device_id >= count)
        return SIMDEV_ERROR_INVALID_DEVICE;
    pthread_mutex_lock(&counters_mu);
    fill(out, device_calls[device_id]);
    pthread_mutex_unlock(&counters_mu);
    return SIMDEV_SUCCESS;
}

int simdev_fault_inject(simdev_call_class cls, uint64_t nth, int code)
{
    if ((int)cls < 0 || cls >= SIMDEV_CALL_CLASS_COUNT || nth == 0 || code == 0)
        return SIMDEV_ERROR_INVALID_PARAM;
    pthread_mutex_lock(&counters_mu);
    arms[cls].remaining = nth;
    arms[cls].code = code;
    pthread_mutex_unlock(&counters_mu);
    return SIMDEV_SUCCESS;
}

int simdev_fault_clear(void)
{
    pthread_mutex_lock(&counters_mu);
    memset(arms, 0, sizeof(arms));
    pthread_mutex_unlock(&counters_mu);
    return SIMDEV_SUCCESS;
}

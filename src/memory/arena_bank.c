/* The static arena bank commit rule. */
#include "memory/arena_bank.h"

#include <string.h>

#include "common/error.h"
#include "platform/platform_status.h"

void arena_bank_init(arena_bank *bank, const platform_ops *ops)
{
    memset(bank, 0, sizeof(*bank));
    bank->ops = ops;
}

static int region_refused(const device_arena *region, size_t request)
{
    if (region->base == NULL)
        return 0;
    return request == 0 || request > region->bytes;
}

int arena_bank_kernel_refuses(const arena_bank *bank, const arena_bank_request *req)
{
    for (int i = 0; i < ARENA_REGION_COUNT; i++) {
        if (region_refused(&bank->regions[i], req->bytes[i]))
            return 1;
    }
    return 0;
}

/* Releases every region after a failed allocation; a region whose free
 * fails stays committed (still ours) so arena_bank_release can retry. */
static void roll_back(arena_bank *bank, arena_bank_outcome *out)
{
    for (int i = 0; i < ARENA_REGION_COUNT; i++) {
        if (bank->regions[i].base == NULL)
            continue;
        if (device_arena_release(&bank->regions[i], bank->ops) == 0)
            out->region_changed[i] = 1;
    }
}

/* One region's step of the rule. Returns 0, the failed free's status, or
 * the failed allocation's status (the caller rolls back). */
static int commit_region(arena_bank *bank, int i, size_t request, arena_bank_outcome *out)
{
    device_arena *region = &bank->regions[i];
    int rc;

    if (region->base != NULL && request != 0 && request <= region->bytes)
        return 0;
    if (region->base != NULL) {
        rc = device_arena_release(region, bank->ops);
        if (rc != 0)
            return rc;
        out->region_changed[i] = 1;
    }
    if (request == 0)
        return 0;
    rc = device_arena_commit(region, request, bank->ops);
    if (rc == 0)
        out->region_changed[i] = 1;
    return rc;
}

int arena_bank_commit(arena_bank *bank, const arena_bank_request *req, int kernel_mode,
                      arena_bank_outcome *out)
{
    arena_bank_outcome local;
    int rc = 0;

    if (out == NULL)
        out = &local;
    memset(out, 0, sizeof(*out));
    if (bank == NULL || req == NULL)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "arena bank commit: %s NULL", bank == NULL ? "bank" : "req");
    /* Every region is judged before any is touched, so a refusal on a
     * later region cannot have released an earlier one. */
    if (kernel_mode && arena_bank_kernel_refuses(bank, req))
        return simpler_fail(PTO_RUNTIME_ERR_INTERNAL,
                            "arena bank: kernel mode would grow or re-base a committed region (capacity is frozen)");
    for (int i = 0; i < ARENA_REGION_COUNT && rc == 0; i++) {
        rc = commit_region(bank, i, req->bytes[i], out);
        if (rc != 0 && rc != PTO_RUNTIME_ERR_DEVICE)
            roll_back(bank, out);
    }
    for (int i = 0; i < ARENA_REGION_COUNT; i++)
        out->bases_changed |= out->region_changed[i];
    return rc;
}

int arena_bank_release(arena_bank *bank)
{
    int first = 0;

    if (bank == NULL)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "arena bank release: bank NULL");
    for (int i = 0; i < ARENA_REGION_COUNT; i++) {
        int rc = device_arena_release(&bank->regions[i], bank->ops);
        if (rc != 0 && first == 0)
            first = rc;
    }
    return first;
}

void *arena_bank_base(const arena_bank *bank, int region)
{
    if (bank == NULL || region < 0 || region >= ARENA_REGION_COUNT)
        return NULL;
    return bank->regions[region].base;
}

device_arena *arena_bank_region(arena_bank *bank, int region)
{
    if (bank == NULL || region < 0 || region >= ARENA_REGION_COUNT)
        return NULL;
    return &bank->regions[region];
}

size_t arena_bank_committed_bytes(const arena_bank *bank)
{
    size_t total = 0;

    for (int i = 0; bank != NULL && i < ARENA_REGION_COUNT; i++)
        total += bank->regions[i].bytes;
    return total;
}

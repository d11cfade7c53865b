/*
 * runtime_pool — THE packing of the runtime pool, shared by program
 * mode's bank commit, kernel mode's CONFIGURE and the public
 * simpler_kernel_layout / simpler_kernel_plan_capacity (defined here).
 *
 * Packing: the runtime region at offset 0; then the graph definition and
 * the scheduler state, each, when nonzero, at the next multiple of
 * SIMPLER_KERNEL_REGION_ALIGN (a zero-byte region gets the cursor as its
 * offset and takes no space); then the SIMPLER_KERNEL_REGISTRY_BYTES slot
 * registry at the next multiple of RUNTIME_POOL_REGISTRY_ALIGN.
 */
#ifndef SIMPLER_MEMORY_RUNTIME_POOL_H
#define SIMPLER_MEMORY_RUNTIME_POOL_H

#include <stdint.h>

#include "simpler/runtime_c_api.h"

/* The bank's gm_sm region, which both modes commit: a small fixed
 * shared-memory block (program mode's status word, kernel mode's status
 * words and frozen regions). */
#define ARENA_GM_SM_BYTES 4096u

/* The registry is read by the scheduler word by word: one cache line is
 * enough alignment (the worked example of docs/kernel-mode.md lands on 1024 anyway). */
#define RUNTIME_POOL_REGISTRY_ALIGN 64u

/* Packs the three regions into *out (written only on success). Returns
 * 0, or PTO_RUNTIME_ERR_CAPACITY_EXCEEDED when an offset overflows. Pure. */
int runtime_pool_pack(uint64_t runtime_bytes, uint64_t definition_bytes, uint64_t scheduler_bytes,
                      SimplerKernelLayout *out);

#endif

/*
 * device_validate — the scheduler's checks before it consumes anything:
 * nothing in the heap or the task state is written, and no
 * task is queued, until both pass (the image check counts fan-ins in the
 * first ready queue's ring, then leaves each task's chain link there for
 * seeding, which empties it).
 */
#ifndef SIMPLER_DEVICE_VALIDATE_H
#define SIMPLER_DEVICE_VALIDATE_H

#include <stddef.h>

#include "device/device_run_desc.h"

/* Checks the descriptor alone, given the bytes that followed it in the
 * launch (args_bytes - sizeof desc): version, sizes, core counts, the
 * inline image length, region bases, the kernel table, and that the image
 * fits the definition region. Returns 0, DEVICE_ERR_PACKET_INVALID or
 * DEVICE_ERR_CAPACITY. */
int device_validate_desc(const device_run_desc *d);

/* Checks the image restored at d->definition_base: its task count against
 * the descriptor (DEVICE_ERR_PACKET_INVALID), the scheduler state region
 * against that count (DEVICE_ERR_CAPACITY), graph_image_check
 * (DEVICE_ERR_IMAGE_INVALID), the heap and temp requirements against
 * their capacities (DEVICE_ERR_CAPACITY), the kernel table's generation
 * (DEVICE_ERR_GENERATION), and every task's kernel and core type
 * (DEVICE_ERR_MISSING_KERNEL, DEVICE_ERR_CORE_TYPE, DEVICE_ERR_NO_CORE).
 * Writes only the scheduler state region's first ready-queue ring, which
 * on success holds every task's chain link (device_validate_chains). */
int device_validate_image(const device_run_desc *d);
/* device_validate_image, but with `image_passed` nonzero the image is
 * one whose very bytes passed graph_image_check before (a kernel replay
 * whose packet checksum is the one recorded when its image last passed,
 * kernel_status_words.image_passed): that check, a function of the
 * image bytes alone, is not run again, and the scratch ring is not
 * written (seeding computes the chain links itself). Every other check
 * runs. */
int device_validate_image_known(const device_run_desc *d, int image_passed);

/* Where device_validate_image leaves each task's chain successor + 1
 * (graph_image_chain_next, 0 for none), task_count entries in the first
 * ready queue's ring: valid after it returned 0, until that ring is
 * pushed to. */
const uint32_t *device_validate_chains(const device_run_desc *d);

#endif

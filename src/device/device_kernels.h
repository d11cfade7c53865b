/*
 * device_kernels — the two device bodies of one execution, launched by
 * device_chain_enqueue (device_chain.h) with a device_run_desc by value.
 *
 * device_executor_kernel runs on the AICORE engine with one block per
 * started core (device_run_desc_blocks: every core, or the started
 * ones; device_run_desc_block_core maps each block to its core, AIC
 * cores numbered 0..aic_count-1, then AIV); every block must run at once, so
 * the caller launches no more blocks
 * than the AICore pool has threads. Each block serves its handshake slot
 * until told to quit.
 *
 * device_scheduler_kernel runs on the AICPU engine with block_dim 1 (any
 * block other than 0 returns at once); its arguments are the descriptor
 * followed by desc.inline_bytes of graph image. It validates, runs the
 * graph to completion, tells every core to quit and writes the status
 * word (device_status.h). On a validation failure it also fails its
 * launch through desc.report_fault, so the AICPU stream reports it.
 */
#ifndef SIMPLER_DEVICE_KERNELS_H
#define SIMPLER_DEVICE_KERNELS_H

#include <stdint.h>

#include "device/device_run_desc.h"

void device_executor_kernel(uint32_t block_idx, uint32_t block_dim, const void *args);
void device_scheduler_kernel(uint32_t block_idx, uint32_t block_dim, const void *args);

/* device_scheduler_kernel's block 0 for an image whose bytes carry the
 * nonzero `checksum` (kernel mode: the packet checksum its restore
 * verified; 0 for none). `*passed` records the checksum of the last
 * image that passed the image check here: when it equals `checksum`,
 * those very bytes passed graph_image_check before, which is a function
 * of them alone, so it is not run again (device_validate_image_known);
 * the other checks are. Once the image is accepted, *passed = checksum.
 * The caller owns *passed for the execution (kernel mode: the gate). */
void device_scheduler_run(const device_run_desc *d, uint64_t checksum, uint64_t *passed);

#endif

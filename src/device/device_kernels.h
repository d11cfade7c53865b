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

void device_executor_kernel(uint32_t block_idx, uint32_t block_dim, const void *args);
void device_scheduler_kernel(uint32_t block_idx, uint32_t block_dim, const void *args);

#endif

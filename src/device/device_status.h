/*
 * device_status — the status word the device scheduler writes at the end
 * of one execution: 0 when every task completed, or a negative device
 * error in SIMPLER_DEVICE_ERROR_MIN..MAX (-999..-1). The values are the
 * public status table's PTO_DEVICE_ERR_* entries, so simpler_strerror
 * names each one.
 */
#ifndef SIMPLER_DEVICE_STATUS_H
#define SIMPLER_DEVICE_STATUS_H

#include "simpler/runtime_c_api.h"

#define DEVICE_STATUS_OK 0
/* graph_image_check refused the image */
#define DEVICE_ERR_IMAGE_INVALID PTO_DEVICE_ERR_IMAGE_INVALID
/* the run descriptor is malformed or disagrees with the image */
#define DEVICE_ERR_PACKET_INVALID PTO_DEVICE_ERR_PACKET_INVALID
/* Kernel mode: a copy of the execution's descriptor failed its seal
 * (device_run_desc_seal_of): the packet-header status, as every other
 * descriptor field the check refuses without a status of its own. */
#define DEVICE_ERR_DESC_SEAL PTO_DEVICE_ERR_PACKET_HEADER
/* the kernel table's generation is not the one launched */
#define DEVICE_ERR_GENERATION PTO_DEVICE_ERR_GENERATION
/* a task's func_id has no kernel */
#define DEVICE_ERR_MISSING_KERNEL PTO_DEVICE_ERR_MISSING_KERNEL
/* a region the image needs exceeds its capacity */
#define DEVICE_ERR_CAPACITY PTO_DEVICE_ERR_CAPACITY
/* a task's core type differs from its kernel's */
#define DEVICE_ERR_CORE_TYPE PTO_DEVICE_ERR_CORE_TYPE
/* no core of a task's core type was launched */
#define DEVICE_ERR_NO_CORE PTO_DEVICE_ERR_NO_CORE

_Static_assert(DEVICE_ERR_NO_CORE >= SIMPLER_DEVICE_ERROR_MIN, "device errors stay in the device range");
_Static_assert(DEVICE_ERR_IMAGE_INVALID <= SIMPLER_DEVICE_ERROR_MAX, "device errors stay in the device range");

#endif

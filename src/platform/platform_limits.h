/*
 * platform_limits — the device limits the runtime above the seam needs,
 * as platform constants.
 *
 * The runtime names these, never a backend's own constants, so a second
 * backend changes only src/platform/. Each value is the simdev limit it
 * stands for; platform_ops_simdev.c ties them with static assertions, so
 * a change on either side stops the build there.
 */
#ifndef SIMPLER_PLATFORM_LIMITS_H
#define SIMPLER_PLATFORM_LIMITS_H

/* Every device base the platform hands out is aligned to this (simdev's
 * SIMDEV_ALLOC_ALIGN; kernels need 1024-aligned buffers). */
#define PLATFORM_ALLOC_ALIGN 1024u

/* Bytes of kernel arguments one launch copies by value (simdev's
 * SIMDEV_KERNEL_ARGS_MAX). */
#define PLATFORM_KERNEL_ARGS_MAX (8u << 20)

/* Threads one engine pool of one device can have (simdev's
 * SIMDEV_MAX_ENGINE_THREADS): the most cores of one engine type. */
#define PLATFORM_ENGINE_THREADS_MAX 64u

#endif

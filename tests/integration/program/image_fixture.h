/* The group fixture shared by the suites that run the "vadd" image over
 * real simdev: configure simdev and load the image once per program, then
 * free the image and finalize simdev. Each including file gets its own
 * `image`. */
#ifndef SIMPLER_TESTS_IMAGE_FIXTURE_H
#define SIMPLER_TESTS_IMAGE_FIXTURE_H

#include "program_fixture.h"

static vadd_image image;

/* 0 when simdev is configured and the image loaded. */
static inline int image_group_setup(void **state)
{
    (void)state;
    if (program_simdev_setup() != 0)
        return -1;
    image = vadd_image_load();
    return image.size != 0 ? 0 : -1;
}

static inline int image_group_teardown(void **state)
{
    (void)state;
    vadd_image_free(&image);
    return program_simdev_teardown();
}

#endif

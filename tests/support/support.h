/* Shared helpers for simpler's cmocka suites. */
#ifndef SIMPLER_TEST_SUPPORT_H
#define SIMPLER_TEST_SUPPORT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#endif

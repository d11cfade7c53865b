/* simpler_callable_verify: the image check, then each binary's ELF check
 * and its exported entry, without loading anything. */
#include <stdio.h>

#include "callable/callable_image.h"
#include "callable/elf_check.h"
#include "common/error.h"
#include "simpler/runtime_c_api.h"

/* One binary, named `who`, must be a loadable shared object exporting
 * `symbol`. */
static int binary_verify(const uint8_t *bytes, size_t size, const char *who, const char *symbol)
{
    char why[ELF_CHECK_REASON_BYTES];
    if (elf_shared_object_check(bytes, size, why) != 0)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "callable image: %s: %s", who, why);
    if (elf_dynamic_symbol_find(bytes, size, symbol) != 0)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "callable image: %s does not export the function '%s'",
                            who, symbol);
    return 0;
}

int simpler_callable_verify(const void *image, size_t size)
{
    simpler_error_clear();
    callable_view v;
    if (callable_image_check(image, size, &v) != 0)
        return simpler_fail(PTO_RUNTIME_ERR_INVALID_ARGUMENT, "callable image: the container is malformed "
                                                              "(simpler_callable_check refuses it)");
    int rc = binary_verify(v.orchestration, v.orchestration_size, "the orchestration", v.entry_name);
    for (uint32_t i = 0; rc == 0 && i < v.child_count; i++) {
        char who[48];
        snprintf(who, sizeof who, "child %u (func_id %d)", i, v.children[i].func_id);
        rc = binary_verify(callable_view_child_binary(&v, i), (size_t)v.children[i].binary_size, who,
                           SIMPLER_CALLABLE_KERNEL_ENTRY);
    }
    return rc;
}

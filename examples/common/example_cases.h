/* The default case of every example, by name: what `simpler run --mode
 * program NAME` runs. Host side, header-only. */
#ifndef SIMPLER_EXAMPLE_CASES_H
#define SIMPLER_EXAMPLE_CASES_H

#include <string.h>

#include "../add_scalar/add_scalar_golden.h"
#include "../matmul_add/matmul_add_golden.h"
#include "../paged_attention/paged_attention_golden.h"
#include "../tutorial/tutorial_golden.h"
#include "../vector/vector_golden.h"

/* The example names, in the order they are listed to a user. */
#define EXAMPLE_NAMES "vector, add_scalar, paged_attention, matmul_add, tutorial"
#define EXAMPLE_DEFAULT_NAME "vector"

/* Fills *c with the default case of example `name`. Returns 0, or -1 for
 * an unknown name (*c unchanged). */
static inline int example_case_default(const char *name, example_case *c)
{
    if (strcmp(name, "vector") == 0)
        vector_case_make(c, VECTOR_DEFAULT_ELEMENTS);
    else if (strcmp(name, "add_scalar") == 0)
        add_scalar_case_make(c, ADD_SCALAR_DEFAULT_ELEMENTS);
    else if (strcmp(name, "paged_attention") == 0)
        pa_case_default(c);
    else if (strcmp(name, "tutorial") == 0)
        tutorial_case_make(c, TUTORIAL_DEFAULT_ELEMENTS);
    else if (strcmp(name, "matmul_add") == 0)
        matmul_add_case_make(c, MATMUL_ADD_DEFAULT_ROWS, MATMUL_ADD_DEFAULT_K, MATMUL_ADD_DEFAULT_LAYERS);
    else
        return -1;
    return 0;
}

#endif

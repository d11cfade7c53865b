# simpler_add_callable(NAME ORCHESTRATION src ENTRY name KERNELS id:AIC|AIV:src ...)
# is defined here by the callable module (issue 3).

# The benchmarks' result table is not in the library: its test compiles
# bench/timing.c in, with the bench/ include path.
if(TARGET unit_bench_report)
  target_sources(unit_bench_report PRIVATE ${PROJECT_SOURCE_DIR}/bench/timing.c)
  target_include_directories(unit_bench_report PRIVATE ${PROJECT_SOURCE_DIR}/bench)
endif()

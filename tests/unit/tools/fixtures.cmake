# The command line's own modules are not in the library: their tests
# compile them in, with the tools/ include path.
if(TARGET unit_options)
  target_sources(unit_options PRIVATE ${PROJECT_SOURCE_DIR}/tools/options.c)
  target_include_directories(unit_options PRIVATE ${PROJECT_SOURCE_DIR}/tools)
endif()

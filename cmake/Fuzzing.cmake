# -DDOCGATE_FUZZ=ON builds every library for libFuzzer (`make fuzz`, docs/testing.md "Fuzzing"):
# coverage instrumentation for the fuzzer plus ASan and UBSan, every finding fatal. fuzz/ then adds
# one target per untrusted-input parser; each links with -fsanitize=fuzzer, which brings main().
# Needs clang (libFuzzer is part of clang's runtime: libclang-rt-14-dev).
option(DOCGATE_FUZZ "Build the libFuzzer targets of fuzz/ (clang only)" OFF)
if(DOCGATE_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "DOCGATE_FUZZ needs clang: configure with -DCMAKE_CXX_COMPILER=clang++-14")
  endif()
  if(DOCGATE_SANITIZE)
    message(FATAL_ERROR "DOCGATE_FUZZ brings its own sanitizers; leave DOCGATE_SANITIZE empty")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
                      -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined -fno-sanitize-recover=all)
  # clang 14's -fsanitize=function (part of `undefined`) cannot compile C++20 coroutines ("Cannot
  # represent a difference across sections"); the HTTP server's coroutines go without that one
  # check. No fuzz target runs the server: they call RestApi::Handle directly.
  set_source_files_properties(${PROJECT_SOURCE_DIR}/src/adapters/http/http_server.cpp
                              PROPERTIES COMPILE_OPTIONS -fno-sanitize=function)
endif()

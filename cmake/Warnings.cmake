function(docgate_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Werror -Wpedantic)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    # GCC 12 at -O2 reports `"x" + std::to_string(n)` as an overlapping memcpy (GCC bug 105329,
    # a false positive inside libstdc++); -Werror would make every such line fatal in Release.
    target_compile_options(${target} PRIVATE -Wno-restrict)
    # GCC 12 at -O1 (the sanitizer builds) reports the operator delete of an Asio coroutine frame
    # as mismatched with its operator new (GCC bug 109224, a false positive on coroutine frames).
    target_compile_options(${target} PRIVATE -Wno-mismatched-new-delete)
  endif()
  if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    # -Wpedantic in clang flags string literals above 64 KiB, the least C++ requires compilers to
    # accept; the embedded OpenAPI document is longer, and clang and g++ both take it.
    target_compile_options(${target} PRIVATE -Wno-overlength-strings)
  endif()
endfunction()

# -DDOCGATE_SANITIZE=address,undefined (or thread) builds everything with those sanitizers
# (`make test-asan`, `make test-tsan`; docs/testing.md). Every finding is fatal: a sanitizer
# report that only prints would pass CI.
set(DOCGATE_SANITIZE "" CACHE STRING "Comma-separated -fsanitize= list, empty for none")
if(DOCGATE_SANITIZE)
  add_compile_options(-fsanitize=${DOCGATE_SANITIZE} -fno-sanitize-recover=all
                      -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${DOCGATE_SANITIZE} -fno-sanitize-recover=all)
  if(DOCGATE_SANITIZE MATCHES "thread")
    # g++ 12 warns that TSan does not model Asio's atomic_thread_fence; the warning is about the
    # tool, not the code, and -Werror would make it fatal.
    add_compile_options(-Wno-tsan)
  endif()
endif()

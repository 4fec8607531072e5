# -DDOCGATE_SANITIZE=address,undefined (or thread) builds everything with those sanitizers.
set(DOCGATE_SANITIZE "" CACHE STRING "Comma-separated -fsanitize= list, empty for none")
if(DOCGATE_SANITIZE)
  add_compile_options(-fsanitize=${DOCGATE_SANITIZE} -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${DOCGATE_SANITIZE})
  if(DOCGATE_SANITIZE MATCHES "thread")
    # g++ 12 warns that TSan does not model Asio's atomic_thread_fence; the warning is about the
    # tool, not the code, and -Werror would make it fatal.
    add_compile_options(-Wno-tsan)
  endif()
endif()

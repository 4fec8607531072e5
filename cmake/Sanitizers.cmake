# -DDOCGATE_SANITIZE=address,undefined (or thread) builds everything with those sanitizers.
set(DOCGATE_SANITIZE "" CACHE STRING "Comma-separated -fsanitize= list, empty for none")
if(DOCGATE_SANITIZE)
  add_compile_options(-fsanitize=${DOCGATE_SANITIZE} -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${DOCGATE_SANITIZE})
endif()

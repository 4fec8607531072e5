# docgate_embed_files(<out_var> NAMESPACE_VAR <name> GLOB <pattern>...)
# Generates a .cpp that defines `const std::vector<docgate::EmbeddedFile> docgate::<name>`, one
# entry per file matching a pattern (folders are not files) in path order, so the binary carries
# its migrations, its OpenAPI document and its console and needs no files at run time. Sets <out_var> to the generated source.
function(docgate_embed_files out_var)
  cmake_parse_arguments(ARG "" "NAMESPACE_VAR" "GLOB" ${ARGN})
  file(GLOB files LIST_DIRECTORIES false CONFIGURE_DEPENDS ${ARG_GLOB})
  list(SORT files)
  # An edited file re-runs the configure step, so that the binary never embeds a stale copy.
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${files})
  set(body "")
  foreach(f IN LISTS files)
    get_filename_component(name ${f} NAME)
    file(READ ${f} content)
    string(APPEND body "    {\"${name}\", R\"docgate_embed(${content})docgate_embed\"},\n")
  endforeach()
  set(out ${CMAKE_CURRENT_BINARY_DIR}/${ARG_NAMESPACE_VAR}.cpp)
  # Written as it is (file(CONFIGURE) would replace any @name@ in a file, and minified JavaScript
  # has them), then copied only when it changed, so that an unchanged source compiles nothing.
  file(WRITE ${out}.next
"#include \"core/embedded_file.h\"\n\nnamespace docgate {\n\nextern const std::vector<EmbeddedFile> ${ARG_NAMESPACE_VAR};\nconst std::vector<EmbeddedFile> ${ARG_NAMESPACE_VAR} = {\n${body}};\n\n}  // namespace docgate\n")
  file(COPY_FILE ${out}.next ${out} ONLY_IF_DIFFERENT)
  set(${out_var} ${out} PARENT_SCOPE)
endfunction()

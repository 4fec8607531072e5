# docgate_embed_files(<out_var> NAMESPACE_VAR <name> GLOB <pattern>)
# Generates a .cpp that defines `const std::vector<docgate::EmbeddedFile> docgate::<name>`, one
# entry per matching file in name order, so the binary carries its migrations and its OpenAPI
# document and needs no files at run time. Sets <out_var> to the generated source.
function(docgate_embed_files out_var)
  cmake_parse_arguments(ARG "" "NAMESPACE_VAR;GLOB" "" ${ARGN})
  file(GLOB files CONFIGURE_DEPENDS ${ARG_GLOB})
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
  file(CONFIGURE OUTPUT ${out} CONTENT
"#include \"core/embedded_file.h\"\n\nnamespace docgate {\n\nextern const std::vector<EmbeddedFile> ${ARG_NAMESPACE_VAR};\nconst std::vector<EmbeddedFile> ${ARG_NAMESPACE_VAR} = {\n${body}};\n\n}  // namespace docgate\n" @ONLY)
  set(${out_var} ${out} PARENT_SCOPE)
endfunction()

# docgate_console_packages(<out_var>)
# The npm packages the console ships in the binary (ADR 0015): src/console/packages holds their
# package.json and the lockfile that pins them (versions and sha512 integrity). `npm ci` installs
# them into the build tree when the lockfile changes (npm's cache makes a second tree cheap), and
# the one self-contained ES module of each is copied to <build>/console-packages/serve under the
# name the console imports. Sets <out_var> to that directory, for docgate_embed_files.
function(docgate_console_packages out_var)
  set(source ${CMAKE_CURRENT_SOURCE_DIR}/src/console/packages)
  set(work ${CMAKE_CURRENT_BINARY_DIR}/console-packages)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
    ${source}/package.json ${source}/package-lock.json)
  file(SHA256 ${source}/package-lock.json lock_hash)
  set(stamp ${work}/installed-lockfile.sha256)
  set(installed "")
  if(EXISTS ${stamp})
    file(READ ${stamp} installed)
  endif()
  if(NOT installed STREQUAL lock_hash)
    find_program(DOCGATE_NPM npm)
    if(NOT DOCGATE_NPM)
      message(FATAL_ERROR "The console's Markdown renderer and sanitizer come from npm "
        "(src/console/packages/package-lock.json), and npm is not installed: run scripts/deps.sh")
    endif()
    file(REMOVE_RECURSE ${work})
    file(COPY ${source}/package.json ${source}/package-lock.json DESTINATION ${work})
    execute_process(
      COMMAND ${DOCGATE_NPM} ci --ignore-scripts --omit=dev --no-audit --no-fund --loglevel=error
      WORKING_DIRECTORY ${work} RESULT_VARIABLE failed OUTPUT_VARIABLE said ERROR_VARIABLE said)
    if(failed)
      message(FATAL_ERROR "npm ci of the console's packages (src/console/packages) failed: it "
        "needs the npm registry once, then npm's cache (~/.npm) serves it offline:\n${said}")
    endif()
    file(WRITE ${stamp} ${lock_hash})
  endif()
  set(serve ${work}/serve)
  configure_file(${work}/node_modules/markdown-it/dist/browser/markdown-it.esm.min.mjs
    ${serve}/vendor-markdown-it.mjs COPYONLY)
  configure_file(${work}/node_modules/dompurify/dist/purify.es.mjs
    ${serve}/vendor-dompurify.mjs COPYONLY)
  set(${out_var} ${serve} PARENT_SCOPE)
endfunction()

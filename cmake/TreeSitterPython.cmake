# The tree-sitter runtime and the tree-sitter-python grammar, both built from
# C sources fetched from the npm registry into the build tree at configure
# time (SHA-256 pinned), never committed.
#
# The grammar is pinned to 0.23.6 (grammar format 14). The runtime is the one
# bundled in the npm package tree-sitter (the Node binding) 0.21.1, whose
# vendor/tree-sitter/lib is the C library (format 13 to 14). Debian 12's
# libtree-sitter 0.20.7 is not used: it keeps a node's child count in 16 bits
# (SubtreeHeapData.child_count), so a node with 65,536 children or more (a
# run of that many comment lines, which all become children of one node)
# frees a pointer inside its children array and corrupts the heap. Built
# from source, the runtime is also instrumented with the analyzer when it is
# fuzzed (KAUDIT_FUZZ).
#
# A new version of either needs a new SHA-256 of the tarball as npm serves it:
# `npm pack NAME@VERSION && sha256sum NAME-VERSION.tgz` (its sha512 matches the
# registry's dist.integrity).
set(KAUDIT_TS_PYTHON_VERSION 0.23.6)
set(KAUDIT_TS_PYTHON_SHA256 aab5b860d93dbf84b37fed532f7dacc0468ede5387d0c74911d68f964287662a)
set(KAUDIT_TS_RUNTIME_VERSION 0.21.1)
set(KAUDIT_TS_RUNTIME_SHA256 49d8edf6b34cd719a3e44a0ce154211f996039eee6b6a4b297c3e84f766d6d70)

# kaudit_npm_package(NAME VERSION SHA256 DIR_VAR): `npm pack`s NAME@VERSION
# into the build tree once, checks its SHA-256 and extracts it; DIR_VAR is set
# to the folder holding package/.
function(kaudit_npm_package name version sha256 dir_var)
  # npm names a scoped package's tarball (@scope/name) scope-name-VERSION.tgz.
  string(REGEX REPLACE "^@" "" tgz_name "${name}")
  string(REPLACE "/" "-" tgz_name "${tgz_name}")
  set(dir ${CMAKE_BINARY_DIR}/_deps/${tgz_name}-${version})
  set(${dir_var} ${dir} PARENT_SCOPE)
  if(EXISTS ${dir}/package/package.json)
    return()
  endif()
  find_program(NPM npm REQUIRED)
  file(MAKE_DIRECTORY ${dir})
  execute_process(
    COMMAND ${NPM} pack --silent ${name}@${version}
    WORKING_DIRECTORY ${dir}
    RESULT_VARIABLE npm_rc OUTPUT_VARIABLE npm_out ERROR_VARIABLE npm_err)
  if(NOT npm_rc EQUAL 0)
    message(FATAL_ERROR "npm pack ${name}@${version} failed: ${npm_err}")
  endif()
  set(tarball ${dir}/${tgz_name}-${version}.tgz)
  file(SHA256 ${tarball} tarball_sha256)
  if(NOT tarball_sha256 STREQUAL sha256)
    file(REMOVE ${tarball})
    message(FATAL_ERROR "${name}@${version} from npm has SHA-256 ${tarball_sha256}, "
                        "not the pinned ${sha256} (cmake/TreeSitterPython.cmake): "
                        "the download was removed; nothing was extracted.")
  endif()
  file(ARCHIVE_EXTRACT INPUT ${tarball} DESTINATION ${dir})
endfunction()

kaudit_npm_package(tree-sitter-python ${KAUDIT_TS_PYTHON_VERSION} ${KAUDIT_TS_PYTHON_SHA256} KAUDIT_TS_PYTHON_DIR)
add_library(tree_sitter_python STATIC
  ${KAUDIT_TS_PYTHON_DIR}/package/src/parser.c
  ${KAUDIT_TS_PYTHON_DIR}/package/src/scanner.c)
target_include_directories(tree_sitter_python PRIVATE ${KAUDIT_TS_PYTHON_DIR}/package/src)
set_target_properties(tree_sitter_python PROPERTIES POSITION_INDEPENDENT_CODE ON C_STANDARD 11)
target_compile_options(tree_sitter_python PRIVATE -w)

kaudit_npm_package(tree-sitter ${KAUDIT_TS_RUNTIME_VERSION} ${KAUDIT_TS_RUNTIME_SHA256} KAUDIT_TS_RUNTIME_DIR)
set(KAUDIT_TS_RUNTIME_LIB ${KAUDIT_TS_RUNTIME_DIR}/package/vendor/tree-sitter/lib)
# lib.c includes every other source of the runtime (wasm support stays off).
add_library(tree_sitter_runtime STATIC ${KAUDIT_TS_RUNTIME_LIB}/src/lib.c)
target_include_directories(tree_sitter_runtime SYSTEM PUBLIC ${KAUDIT_TS_RUNTIME_LIB}/include)
target_include_directories(tree_sitter_runtime PRIVATE ${KAUDIT_TS_RUNTIME_LIB}/src)
set_target_properties(tree_sitter_runtime PROPERTIES POSITION_INDEPENDENT_CODE ON C_STANDARD 11)
target_compile_options(tree_sitter_runtime PRIVATE -w)

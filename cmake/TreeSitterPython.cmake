# The tree-sitter-python grammar's C sources, pinned to 0.23.6 (grammar
# format 14, which Debian's libtree-sitter 0.20.7 accepts), fetched from the
# npm registry into the build tree at configure time. Never committed.
set(KAUDIT_TS_PYTHON_VERSION 0.23.6)
# SHA-256 of tree-sitter-python-0.23.6.tgz as npm serves it (its sha512 matches
# the registry's dist.integrity). A new version needs a new value:
# `npm pack tree-sitter-python@VERSION && sha256sum tree-sitter-python-VERSION.tgz`.
set(KAUDIT_TS_PYTHON_SHA256 aab5b860d93dbf84b37fed532f7dacc0468ede5387d0c74911d68f964287662a)
set(KAUDIT_TS_PYTHON_DIR ${CMAKE_BINARY_DIR}/_deps/tree-sitter-python-${KAUDIT_TS_PYTHON_VERSION})
if(NOT EXISTS ${KAUDIT_TS_PYTHON_DIR}/package/src/parser.c)
  find_program(NPM npm REQUIRED)
  file(MAKE_DIRECTORY ${KAUDIT_TS_PYTHON_DIR})
  execute_process(
    COMMAND ${NPM} pack --silent tree-sitter-python@${KAUDIT_TS_PYTHON_VERSION}
    WORKING_DIRECTORY ${KAUDIT_TS_PYTHON_DIR}
    RESULT_VARIABLE npm_rc OUTPUT_VARIABLE npm_out ERROR_VARIABLE npm_err)
  if(NOT npm_rc EQUAL 0)
    message(FATAL_ERROR "npm pack tree-sitter-python@${KAUDIT_TS_PYTHON_VERSION} failed: ${npm_err}")
  endif()
  set(tarball ${KAUDIT_TS_PYTHON_DIR}/tree-sitter-python-${KAUDIT_TS_PYTHON_VERSION}.tgz)
  file(SHA256 ${tarball} tarball_sha256)
  if(NOT tarball_sha256 STREQUAL KAUDIT_TS_PYTHON_SHA256)
    file(REMOVE ${tarball})
    message(FATAL_ERROR "tree-sitter-python@${KAUDIT_TS_PYTHON_VERSION} from npm has SHA-256 ${tarball_sha256}, "
                        "not the pinned ${KAUDIT_TS_PYTHON_SHA256} (cmake/TreeSitterPython.cmake): "
                        "the download was removed; nothing was extracted.")
  endif()
  file(ARCHIVE_EXTRACT INPUT ${tarball} DESTINATION ${KAUDIT_TS_PYTHON_DIR})
endif()
add_library(tree_sitter_python STATIC
  ${KAUDIT_TS_PYTHON_DIR}/package/src/parser.c
  ${KAUDIT_TS_PYTHON_DIR}/package/src/scanner.c)
target_include_directories(tree_sitter_python PRIVATE ${KAUDIT_TS_PYTHON_DIR}/package/src)
set_target_properties(tree_sitter_python PROPERTIES POSITION_INDEPENDENT_CODE ON C_STANDARD 11)
target_compile_options(tree_sitter_python PRIVATE -w)

find_path(TREE_SITTER_INCLUDE_DIR tree_sitter/api.h REQUIRED)
find_library(TREE_SITTER_LIBRARY tree-sitter REQUIRED)
add_library(tree_sitter_runtime INTERFACE)
target_include_directories(tree_sitter_runtime INTERFACE ${TREE_SITTER_INCLUDE_DIR})
target_link_libraries(tree_sitter_runtime INTERFACE ${TREE_SITTER_LIBRARY})

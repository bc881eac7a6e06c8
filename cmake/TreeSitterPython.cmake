# The tree-sitter-python grammar's C sources, pinned to 0.23.6 (grammar
# format 14, which Debian's libtree-sitter 0.20.7 accepts), fetched from the
# npm registry into the build tree at configure time. Never committed.
set(KAUDIT_TS_PYTHON_VERSION 0.23.6)
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
  file(ARCHIVE_EXTRACT INPUT ${KAUDIT_TS_PYTHON_DIR}/tree-sitter-python-${KAUDIT_TS_PYTHON_VERSION}.tgz
       DESTINATION ${KAUDIT_TS_PYTHON_DIR})
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

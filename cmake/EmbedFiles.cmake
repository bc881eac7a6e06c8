# Embedding data files (JSON) into the binary as C++ raw string literals, so
# that kaudit works from any folder.
#
#   kaudit_embed_files(OUTPUT <path.inc> ARRAY <name> TYPE <struct type>
#                      FILES <file>... [DELIMITER <d>])
#     writes  static const TYPE NAME[] = {
#               {"<file stem>", R"d(<file content>)d"},
#               ...
#             };
#     TYPE must be an aggregate of two `const char*` (name, text).
#
#   kaudit_embed_file(OUTPUT <path.inc> FILE <file> [DELIMITER <d>])
#     writes just the raw string literal R"d(<file content>)d", to be included
#     as the initialiser of a `const char[]`.
#
# The .inc is rewritten only when its content changes (so that nothing
# recompiles needlessly), and CMake re-runs its configure step when an
# embedded file changes. DELIMITER (default `kaudit`) is the raw string's
# delimiter; a file that contains `)<delimiter>"` is refused.
include_guard(GLOBAL)

function(_kaudit_embed_literal out_var file delimiter)
  file(READ ${file} content)
  string(FIND "${content}" ")${delimiter}\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "kaudit_embed: ${file} contains ')${delimiter}\"', which ends the raw string; "
                        "pass another DELIMITER")
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${file})
  set(${out_var} "R\"${delimiter}(${content})${delimiter}\"" PARENT_SCOPE)
endfunction()

# Writes CONTENT to OUTPUT only when it differs from what is there.
function(_kaudit_embed_write output content)
  set(tmp ${output}.tmp)
  file(WRITE ${tmp} "${content}")
  configure_file(${tmp} ${output} COPYONLY)
endfunction()

function(kaudit_embed_files)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "OUTPUT;ARRAY;TYPE;DELIMITER" "FILES")
  foreach(required OUTPUT ARRAY TYPE)
    if(NOT arg_${required})
      message(FATAL_ERROR "kaudit_embed_files: ${required} is required")
    endif()
  endforeach()
  if(NOT arg_DELIMITER)
    set(arg_DELIMITER kaudit)
  endif()
  set(text "static const ${arg_TYPE} ${arg_ARRAY}[] = {\n")
  foreach(f IN LISTS arg_FILES)
    get_filename_component(stem ${f} NAME_WE)
    _kaudit_embed_literal(literal ${f} ${arg_DELIMITER})
    string(APPEND text "  {\"${stem}\", ${literal}},\n")
  endforeach()
  string(APPEND text "};\n")
  _kaudit_embed_write(${arg_OUTPUT} "${text}")
endfunction()

function(kaudit_embed_file)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "OUTPUT;FILE;DELIMITER" "")
  foreach(required OUTPUT FILE)
    if(NOT arg_${required})
      message(FATAL_ERROR "kaudit_embed_file: ${required} is required")
    endif()
  endforeach()
  if(NOT arg_DELIMITER)
    set(arg_DELIMITER kaudit)
  endif()
  _kaudit_embed_literal(literal ${arg_FILE} ${arg_DELIMITER})
  _kaudit_embed_write(${arg_OUTPUT} "${literal}")
endfunction()

# What `cmake --install BUILD --prefix P` puts under P (docs/usage.md,
# "Install"), and the Debian package `cpack -G DEB` makes from it.
#   P/bin/kaudit
#   P/share/kaudit/harness/kaudit_harness*.py  read by every run (runner/process/resources.h): the
#                                              entry and its modules
#   P/lib/kaudit/libkaudit_tracer.so           when the tracer is built (runner/process/resources.h)
#   P/KAUDIT_INSTALL_PYTHONDIR/kaudit*.so      the Python module, when built
#   P/share/kaudit/rules/                      the rule packs, hardware files and kernel families
#                                              compiled into kaudit, to read or start a --rules file from
#   P/share/doc/kaudit/                        README.md and docs/
install(TARGETS kaudit RUNTIME DESTINATION bin)
file(GLOB KAUDIT_HARNESS_SOURCES ${CMAKE_SOURCE_DIR}/runner/harness/kaudit_harness*.py)
install(FILES ${KAUDIT_HARNESS_SOURCES} DESTINATION ${KAUDIT_INSTALL_DATADIR}/harness)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/rules/packs ${CMAKE_SOURCE_DIR}/rules/hardware
        DESTINATION ${KAUDIT_INSTALL_DATADIR}/rules FILES_MATCHING PATTERN "*.json")
install(FILES ${CMAKE_SOURCE_DIR}/rules/kernel_families.json DESTINATION ${KAUDIT_INSTALL_DATADIR}/rules)
install(FILES ${CMAKE_SOURCE_DIR}/README.md DESTINATION share/doc/kaudit)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/docs/ DESTINATION share/doc/kaudit/docs)
if(TARGET kaudit_tracer)
  # Injected into CUDA programs: it finds CUPTI where it was linked against it.
  set_target_properties(kaudit_tracer PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)
  install(TARGETS kaudit_tracer LIBRARY DESTINATION ${KAUDIT_INSTALL_TRACERDIR})
endif()
if(TARGET kaudit_pymodule)
  install(TARGETS kaudit_pymodule LIBRARY DESTINATION ${KAUDIT_INSTALL_PYTHONDIR})
endif()

# cpack -G DEB (in the build folder): kaudit_<version>_<arch>.deb, installing
# under /usr. dpkg-shlibdeps (dpkg-dev) adds the shared libraries' packages
# to Depends; the rest kaudit needs at run time is named here: bubblewrap
# (the sandbox), Python 3 (the harness) and Clang 19's headers (the C++ front).
set(CPACK_PACKAGE_NAME kaudit)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Audits GPU kernels submitted to kernel benchmarks")
set(CPACK_PACKAGE_CONTACT "kaudit maintainers <kaudit@localhost>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_GENERATOR DEB)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(KAUDIT_DEB_DEPENDS "bubblewrap")
if(KAUDIT_BUILD_ANALYZER)
  list(APPEND KAUDIT_DEB_DEPENDS "libclang-common-19-dev")
endif()
if(TARGET kaudit_pymodule)  # built for one Python version's ABI
  math(EXPR KAUDIT_PYTHON_NEXT "${Python_VERSION_MINOR} + 1")
  list(APPEND KAUDIT_DEB_DEPENDS "python3 (>= ${Python_VERSION_MAJOR}.${Python_VERSION_MINOR})"
       "python3 (<< ${Python_VERSION_MAJOR}.${KAUDIT_PYTHON_NEXT})")
else()
  list(APPEND KAUDIT_DEB_DEPENDS "python3")
endif()
list(JOIN KAUDIT_DEB_DEPENDS ", " CPACK_DEBIAN_PACKAGE_DEPENDS)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "python3-torch")
include(CPack)

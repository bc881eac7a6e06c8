# Decides whether the Python module (python/) is built: KAUDIT_PYTHON_MODULE
# is ON when KAUDIT_BUILD_PYTHON is and pybind11 and the Python headers are
# found. Configuring says why when it is left out. With the module, every
# library is position-independent code: the module links them into a shared
# object.
#
# KAUDIT_INSTALL_PYTHONDIR, where `cmake --install` puts the module relative
# to the prefix, is lib/pythonX.Y/dist-packages by default: Debian's python3
# reads it under both /usr and /usr/local (`python3 -m site`).
set(KAUDIT_PYTHON_MODULE OFF)
if(NOT KAUDIT_BUILD_PYTHON)
  message(STATUS "kaudit: the Python module is left out (KAUDIT_BUILD_PYTHON=OFF)")
elseif(KAUDIT_FUZZ)
  message(STATUS "kaudit: the Python module is left out of the fuzzing build (KAUDIT_FUZZ=ON)")
else()
  set(Python_EXECUTABLE ${KAUDIT_PYTHON_EXECUTABLE})
  find_package(Python 3.8 QUIET COMPONENTS Interpreter Development.Module)
  if(Python_FOUND)
    find_package(pybind11 2.6 QUIET CONFIG)
  endif()
  if(NOT Python_FOUND)
    message(WARNING "kaudit: the Python module is left out: no headers for ${KAUDIT_PYTHON_EXECUTABLE} "
                    "(apt-get install python3-dev, or set KAUDIT_PYTHON_EXECUTABLE)")
  elseif(NOT pybind11_FOUND)
    message(WARNING "kaudit: the Python module is left out: pybind11 not found (apt-get install pybind11-dev)")
  else()
    set(KAUDIT_INSTALL_PYTHONDIR lib/python${Python_VERSION_MAJOR}.${Python_VERSION_MINOR}/dist-packages
        CACHE STRING "Where cmake --install puts the Python module, relative to the prefix")
    set(KAUDIT_PYTHON_MODULE ON)
    set(CMAKE_POSITION_INDEPENDENT_CODE ON)
    message(STATUS "kaudit: building the Python module for ${Python_EXECUTABLE} (Python ${Python_VERSION}, "
                   "pybind11 ${pybind11_VERSION})")
  endif()
endif()
if(NOT DEFINED KAUDIT_INSTALL_PYTHONDIR)
  set(KAUDIT_INSTALL_PYTHONDIR lib/python3/dist-packages)  # no module to install; Debian's default
endif()

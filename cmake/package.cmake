# `cpack -G DEB` (in a build configured with -DCMAKE_INSTALL_PREFIX=/usr):
# one Debian package per install component (cmake/install.cmake), split the
# way Debian splits a library (Debian Policy 8.1 and 8.4):
#   libnumlab-num<SOVERSION>    libnum's shared library, named for its SONAME
#   libnumlab-rundb<SOVERSION>  the run database's shared library, likewise
#   libnumlab-dev               headers, static libraries, .so links, CMake and pkg-config files
#   numlab                      the numlab program and its training configs
#   numlab-gui                  the viewer
#   python3-numlab              the Python package
# Dependencies on Debian's libraries come from dpkg-shlibdeps (Debian's own
# package names); those on each other are exact-version ones
# (CPACK_COMPONENT_<C>_DEPENDS), the rest are listed here.
set(CPACK_PACKAGE_NAME numlab)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
# Debian's synopsis line stays under 80 characters; each extended description
# below is wrapped the same way (lintian: synopsis-too-long,
# extended-description-line-too-long).
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "bit-exact low-precision floating point for C++, NumPy and PyTorch")
# Debian ships binaries stripped (lintian: unstripped-binary-or-object).
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGE_CONTACT "numlab developers <numlab@localhost>")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)
set(CPACK_PACKAGING_INSTALL_PREFIX ${CMAKE_INSTALL_PREFIX})
set(CPACK_PROJECT_CONFIG_FILE ${CMAKE_CURRENT_LIST_DIR}/package_checks.cmake)
set(CPACK_NUMLAB_INSTALL_PREFIX ${CMAKE_INSTALL_PREFIX})

set(CPACK_COMPONENTS_ALL num_runtime rundb_runtime dev cli)
if(TARGET numlab-gui)
  list(APPEND CPACK_COMPONENTS_ALL gui)
endif()
if(NUMLAB_BUILD_PYTHON)
  list(APPEND CPACK_COMPONENTS_ALL python)
endif()

# The runtime libraries: a package per SONAME (libnumlab-num.so.0.1 ->
# libnumlab-num0.1), with a shlibs file so that packages built against them
# get their dependency from dpkg-shlibdeps (Debian Policy 8.6), and a
# triggers file that has dpkg run ldconfig once after all packages are
# unpacked (Policy 8.1.1), as debhelper's packages do. Both are written here,
# per package, rather than by CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS: CMake
# 3.25 has that switch only for all packages at once, and then warns about
# every shared object without a SONAME, i.e. python3-numlab's extension
# module, which as a Python module rightly has none.
foreach(library num rundb)
  string(TOUPPER ${library} upper)
  set(package libnumlab-${library}${NUMLAB_SOVERSION})
  set(CPACK_DEBIAN_${upper}_RUNTIME_PACKAGE_NAME ${package})
  set(CPACK_DEBIAN_${upper}_RUNTIME_PACKAGE_SECTION libs)
  set(control ${PROJECT_BINARY_DIR}/deb-control/${package})
  file(CONFIGURE OUTPUT ${control}/shlibs
       CONTENT "libnumlab-${library} ${NUMLAB_SOVERSION} ${package} (= ${PROJECT_VERSION})\n")
  file(CONFIGURE OUTPUT ${control}/triggers CONTENT "activate-noawait ldconfig\n")
  # postinst and postrm calling ldconfig are what cpack adds for a library
  # under /usr/lib unless the package brings its own; the trigger does
  # their work, so these only keep cpack from adding them.
  file(CONFIGURE OUTPUT ${control}/postinst CONTENT "#!/bin/sh\nset -e\n")
  file(CONFIGURE OUTPUT ${control}/postrm CONTENT "#!/bin/sh\nset -e\n")
  set(CPACK_DEBIAN_${upper}_RUNTIME_PACKAGE_CONTROL_EXTRA
      ${control}/shlibs ${control}/triggers ${control}/postinst ${control}/postrm)
endforeach()
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
string(CONCAT CPACK_COMPONENT_NUM_RUNTIME_DESCRIPTION
  "libnum, shared library: fp16, bf16, FP8, TF32 and custom formats in every\n"
  "rounding mode, bit for bit, with IEEE 754 flags, SIMD array kernels and\n"
  "tensor statistics.")
string(CONCAT CPACK_COMPONENT_RUNDB_RUNTIME_DESCRIPTION
  "The numlab run database (SQLite), shared library: reader and writer of\n"
  "traced training runs.")

set(CPACK_DEBIAN_DEV_PACKAGE_NAME libnumlab-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_COMPONENT_DEV_DEPENDS num_runtime rundb_runtime)
# The static libraries and find_package(numlab) need these development files.
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "libsqlite3-dev, libmpfr-dev, libgmp-dev")
set(CPACK_DEBIAN_DEV_PACKAGE_RECOMMENDS "pkg-config")
string(CONCAT CPACK_COMPONENT_DEV_DESCRIPTION
  "Headers, static libraries, CMake package (find_package(numlab):\n"
  "numlab::num, numlab::rundb) and pkg-config file (numlab.pc) of libnum and\n"
  "the numlab run database.")

set(CPACK_DEBIAN_CLI_PACKAGE_NAME numlab)
string(CONCAT CPACK_COMPONENT_CLI_DESCRIPTION
  "The numlab program: rounding, formats, TestFloat filter, certification,\n"
  "the low-precision trainer, run inspection, the mixed-precision tutorials'\n"
  "experiments and sweeps.")
set(CPACK_DEBIAN_CLI_PACKAGE_SUGGESTS numlab-gui)

set(CPACK_DEBIAN_GUI_PACKAGE_NAME numlab-gui)
set(CPACK_COMPONENT_GUI_DESCRIPTION "numlab-gui, the Qt viewer of numlab run databases.")
set(CPACK_DEBIAN_GUI_PACKAGE_SUGGESTS numlab)

if(NUMLAB_BUILD_PYTHON)
  set(CPACK_DEBIAN_PYTHON_PACKAGE_NAME python3-numlab)
  set(CPACK_DEBIAN_PYTHON_PACKAGE_SECTION python)
  # The compiled module is built for one Python minor version.
  find_package(Python COMPONENTS Interpreter REQUIRED)
  math(EXPR next_minor "${Python_VERSION_MINOR} + 1")
  string(CONCAT CPACK_DEBIAN_PYTHON_PACKAGE_DEPENDS "python3 (>= ${Python_VERSION_MAJOR}.${Python_VERSION_MINOR}), "
                "python3 (<< ${Python_VERSION_MAJOR}.${next_minor}), python3-numpy")
  # The PyTorch recorder (numlab.torch) needs torch.
  set(CPACK_DEBIAN_PYTHON_PACKAGE_RECOMMENDS python3-torch)
  string(CONCAT CPACK_COMPONENT_PYTHON_DESCRIPTION
    "The Python package numlab: libnum on NumPy arrays, numlab run databases\n"
    "as NumPy columns, and a PyTorch recorder that writes them.")
endif()
include(CPack)

# What cpack names the packages of this build, for tests/install/check_deb.sh
# and scripts/test-deb-install.sh (tests/install/deb_packages.sh reads it), so
# that no script spells out a version: they follow a version bump here.
file(CONFIGURE OUTPUT ${PROJECT_BINARY_DIR}/deb-packages.txt @ONLY CONTENT
[[# Written by cmake/package.cmake: the Debian packages `cpack -G DEB` makes in this build.
version=@CPACK_PACKAGE_VERSION@
soversion=@NUMLAB_SOVERSION@
]])

# `cpack -G DEB` (in the build folder): one Debian package with everything
# `cmake --install` installs. Its shared-library dependencies come from
# dpkg-shlibdeps, i.e. Debian's own package names; the rest are listed here.
set(CPACK_PACKAGE_NAME numlab)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "bit-exact low-precision floating point (fp16, bf16, FP8, TF32, custom) for C++, NumPy and PyTorch")
string(CONCAT CPACK_PACKAGE_DESCRIPTION
  "libnum emulates fp16, bf16, FP8, TF32 and custom formats in every rounding mode, bit for bit; the numlab "
  "trainer, CLI and Qt viewer study low-precision training; the Python package numlab exposes libnum to NumPy "
  "and records PyTorch runs for the viewer.")
set(CPACK_PACKAGE_CONTACT "numlab developers <numlab@localhost>")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
if(NUMLAB_BUILD_PYTHON)
  # The compiled module is built for one Python minor version.
  find_package(Python COMPONENTS Interpreter REQUIRED)
  math(EXPR next_minor "${Python_VERSION_MINOR} + 1")
  string(CONCAT CPACK_DEBIAN_PACKAGE_DEPENDS "python3 (>= ${Python_VERSION_MAJOR}.${Python_VERSION_MINOR}), "
                "python3 (<< ${Python_VERSION_MAJOR}.${next_minor}), python3-numpy")
endif()
# find_package(numlab) needs SQLite's development files; the recorder needs torch.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libsqlite3-dev, pkg-config, python3-torch")
set(CPACK_PACKAGING_INSTALL_PREFIX ${CMAKE_INSTALL_PREFIX})
set(CPACK_PROJECT_CONFIG_FILE ${CMAKE_CURRENT_LIST_DIR}/package_checks.cmake)
set(CPACK_NUMLAB_INSTALL_PREFIX ${CMAKE_INSTALL_PREFIX})
include(CPack)

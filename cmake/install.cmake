# What `cmake --install` puts where, in the GNU layout (with
# -DCMAKE_INSTALL_PREFIX=/usr, Debian's multiarch one): the programs, libnum
# and the run database (static and shared) with their headers, the CMake
# package numlab (find_package(numlab CONFIG)), the pkg-config file numlab.pc.
# python/CMakeLists.txt installs the Python package.
include(CMakePackageConfigHelpers)

install(TARGETS numlab RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The training configs, which `numlab train --config NAME` finds there.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/configs/ DESTINATION ${CMAKE_INSTALL_DATADIR}/numlab/configs
        FILES_MATCHING PATTERN "*.yml")
if(TARGET numlab-gui)
  install(TARGETS numlab-gui RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

install(TARGETS num num_diagnostics num_shared rundb rundb_shared EXPORT numlabTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/libnum/include/libnum ${PROJECT_SOURCE_DIR}/rundb/include/rundb
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

set(NUMLAB_CMAKE_PACKAGE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/numlab)
install(EXPORT numlabTargets NAMESPACE numlab:: DESTINATION ${NUMLAB_CMAKE_PACKAGE_DIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/numlabConfig.cmake.in
  ${PROJECT_BINARY_DIR}/numlabConfig.cmake INSTALL_DESTINATION ${NUMLAB_CMAKE_PACKAGE_DIR})
# Before 1.0 a new minor version may break the API.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/numlabConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/numlabConfig.cmake ${PROJECT_BINARY_DIR}/numlabConfigVersion.cmake
  DESTINATION ${NUMLAB_CMAKE_PACKAGE_DIR})

# numlab.pc finds its prefix relative to itself (${pcfiledir}), so an install
# moved with --prefix or DESTDIR still works.
file(RELATIVE_PATH NUMLAB_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
configure_file(${CMAKE_CURRENT_LIST_DIR}/numlab.pc.in ${PROJECT_BINARY_DIR}/numlab.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/numlab.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

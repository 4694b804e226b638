# What `cmake --install` puts where, in the GNU layout (with
# -DCMAKE_INSTALL_PREFIX=/usr, Debian's multiarch one): the programs, libnum
# and the run database (static and shared) with their headers, the CMake
# package numlab (find_package(numlab CONFIG)), the pkg-config file numlab.pc.
# python/CMakeLists.txt installs the Python package.
#
# Every file belongs to one install component, which cpack turns into one
# Debian package (cmake/package.cmake): num_runtime and rundb_runtime (the
# shared libraries under their SONAME), dev (headers, static libraries, the
# unversioned .so links, the CMake and pkg-config files), cli, gui, python.
include(CMakePackageConfigHelpers)

install(TARGETS numlab RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT cli)
# The training configs, which `numlab train --config NAME` finds there.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/configs/ DESTINATION ${CMAKE_INSTALL_DATADIR}/numlab/configs
        COMPONENT cli FILES_MATCHING PATTERN "*.yml")
if(TARGET numlab-gui)
  install(TARGETS numlab-gui RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT gui)
endif()

install(TARGETS num num_diagnostics rundb EXPORT numlabTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev)
install(TARGETS num_shared EXPORT numlabTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT num_runtime NAMELINK_COMPONENT dev)
install(TARGETS rundb_shared EXPORT numlabTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT rundb_runtime NAMELINK_COMPONENT dev)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/libnum/include/libnum ${PROJECT_SOURCE_DIR}/rundb/include/rundb
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev)

set(NUMLAB_CMAKE_PACKAGE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/numlab)
install(EXPORT numlabTargets NAMESPACE numlab:: DESTINATION ${NUMLAB_CMAKE_PACKAGE_DIR} COMPONENT dev)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/numlabConfig.cmake.in
  ${PROJECT_BINARY_DIR}/numlabConfig.cmake INSTALL_DESTINATION ${NUMLAB_CMAKE_PACKAGE_DIR})
# Before 1.0 a new minor version may break the API.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/numlabConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/numlabConfig.cmake ${PROJECT_BINARY_DIR}/numlabConfigVersion.cmake
  DESTINATION ${NUMLAB_CMAKE_PACKAGE_DIR} COMPONENT dev)

# numlab.pc finds its prefix relative to itself (${pcfiledir}), so an install
# moved with --prefix or DESTDIR still works.
file(RELATIVE_PATH NUMLAB_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
configure_file(${CMAKE_CURRENT_LIST_DIR}/numlab.pc.in ${PROJECT_BINARY_DIR}/numlab.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/numlab.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT dev)

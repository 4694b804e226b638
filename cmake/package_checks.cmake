# Read by cpack: a Debian package installs under /usr, so the build must have
# been configured for that prefix (which also picks Debian's library and
# Python folders).
if(CPACK_GENERATOR STREQUAL "DEB" AND NOT CPACK_NUMLAB_INSTALL_PREFIX STREQUAL "/usr")
  message(FATAL_ERROR "cpack -G DEB: configure the build with -DCMAKE_INSTALL_PREFIX=/usr "
                      "(it is ${CPACK_NUMLAB_INSTALL_PREFIX})")
endif()

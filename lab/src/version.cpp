#include "lab/version.hpp"

#ifndef NUMLAB_VERSION
#error "lab's CMakeLists defines NUMLAB_VERSION from the project version"
#endif

namespace lab {

std::string_view numlab_version() { return NUMLAB_VERSION; }

}  // namespace lab

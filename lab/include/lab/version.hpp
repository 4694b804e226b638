// The numlab release this library was built as (CMake's project version),
// recorded in every run database a run writes.
#pragma once

#include <string_view>

namespace lab {

/// "MAJOR.MINOR.PATCH" of the numlab build.
std::string_view numlab_version();

}  // namespace lab

// The steps of rows held in step order (rundb records, a view's rows): what
// the live-refresh tests compare between a refresh and a full load.
#pragma once

#include <cstdint>
#include <vector>

namespace gui_test {

template <typename Records>
std::vector<std::int64_t> steps_of(const Records& records) {
  std::vector<std::int64_t> out;
  for (const auto& r : records) out.push_back(r.step);
  return out;
}

}  // namespace gui_test

#include "experiments/experiment.hpp"

#include <stdexcept>

namespace numlab::experiments {

const table& experiment_result::find_table(std::string_view id) const {
  for (const table& t : tables) {
    if (t.id() == id) return t;
  }
  throw std::out_of_range("no table '" + std::string(id) + "' in the result");
}

const experiment& find_experiment(std::string_view name) {
  std::string known;
  for (const experiment& e : all_experiments()) {
    if (e.name == name) return e;
    known += (known.empty() ? "" : ", ") + std::string(e.name);
  }
  throw std::invalid_argument("unknown experiment '" + std::string(name) + "' (known: " + known +
                              "; `numlab experiment list` describes them)");
}

}  // namespace numlab::experiments

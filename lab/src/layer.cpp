#include "lab/layer.hpp"

namespace lab {

parameter make_parameter(std::string_view layer, std::string_view op, lab::op_class op_class,
                         std::string_view tensor_name, const shape& s, bool decay) {
  parameter p;
  p.layer = std::string(layer);
  p.op = std::string(op);
  p.op_class = op_class;
  p.tensor_name = std::string(tensor_name);
  p.name = p.layer + "." + p.tensor_name;
  p.value = tensor(s);
  p.grad = tensor(s);
  p.decay = decay;
  return p;
}

}  // namespace lab

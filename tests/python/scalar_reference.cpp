// The oracle of the Python tests: libnum's scalar core (num::from_float,
// num::from_double, num::to_float), element by element, on raw little-endian
// arrays. The Python module runs the SIMD array kernels, so agreement checks
// the binding (arguments, dtypes, layouts, random-word indexing) against the
// C++ API the array kernels are specified by.
//
//   scalar_reference encode f32|f64 FORMAT MODE BITS SEED STREAM FIRST OVERFLOW TININESS < values > out
//     out: n uint32 encodings, then n uint8 flag sets (TestFloat bits)
//   scalar_reference decode FORMAT < n uint32 encodings > n float32 values
#include <cstdint>
#include <cstdio>
#include <exception>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include <libnum/codec.hpp>
#include <libnum/convert.hpp>
#include <libnum/format.hpp>
#include <libnum/philox.hpp>
#include <libnum/rounding.hpp>

namespace {

template <class T>
std::vector<T> read_all() {
  const std::vector<char> bytes((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
  std::vector<T> values(bytes.size() / sizeof(T));
  std::copy(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(values.size() * sizeof(T)),
            reinterpret_cast<char*>(values.data()));
  return values;
}

template <class T>
void write_all(const std::vector<T>& values) {
  std::cout.write(reinterpret_cast<const char*>(values.data()), static_cast<std::streamsize>(values.size() * sizeof(T)));
}

template <class In>
void encode(const num::format& f, const num::round_spec& spec, const num::random_stream& random, std::uint64_t first) {
  const std::vector<In> in = read_all<In>();
  std::vector<std::uint32_t> bits(in.size());
  std::vector<std::uint8_t> raised(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    const std::uint32_t word = random.word(first + i);
    const num::rounded r = sizeof(In) == 4 ? num::from_float(f, static_cast<float>(in[i]), spec, word)
                                           : num::from_double(f, static_cast<double>(in[i]), spec, word);
    bits[i] = r.bits;
    raised[i] = static_cast<std::uint8_t>(r.raised);
  }
  write_all(bits);
  write_all(raised);
}

int run(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  const std::string command = argc > 1 ? argv[1] : "";
  if (command == "decode" && argc == 3) {
    const num::format f = num::parse_format(argv[2]);
    const std::vector<std::uint32_t> in = read_all<std::uint32_t>();
    std::vector<float> out(in.size());
    for (std::size_t i = 0; i < in.size(); ++i) out[i] = num::to_float(f, in[i]);
    write_all(out);
    return 0;
  }
  if (command == "encode" && argc == 11) {
    const std::string input = argv[2];
    const num::format f = num::parse_format(argv[3]);
    num::round_spec spec;
    spec.mode = num::parse_rounding(argv[4]);
    spec.random_bits = std::stoi(argv[5]);
    const num::random_stream random(std::stoull(argv[6]), std::stoull(argv[7]));
    const std::uint64_t first = std::stoull(argv[8]);
    spec.overflow = num::parse_overflow_mode(argv[9]);
    spec.tiny = num::parse_tininess(argv[10]);
    if (input == "f32") encode<float>(f, spec, random, first);
    else if (input == "f64") encode<double>(f, spec, random, first);
    else throw std::invalid_argument("input type '" + input + "' is not f32 or f64");
    return 0;
  }
  std::cerr << "usage: scalar_reference encode f32|f64 FORMAT MODE BITS SEED STREAM FIRST OVERFLOW TININESS\n"
               "       scalar_reference decode FORMAT\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "scalar_reference: " << e.what() << '\n';
    return 2;
  }
}

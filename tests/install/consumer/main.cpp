// A program outside numlab's tree that uses the installed libnum and run
// database: it rounds with libnum's array kernel, writes one run through the
// run-database writer and reads it back. Exits 0 only if every check holds.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <vector>

#include <libnum/array.hpp>
#include <rundb/reader.hpp>
#include <rundb/writer.hpp>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: consumer RUN.db\n");
    return 2;
  }
  // 0.1 rounds to fp16 0x2E66 (0.0999755859375) to nearest and toward zero,
  // 0x2E67 upward; 65520 overflows to +inf (0x7C00) to nearest.
  const std::vector<float> in{0.1f, 0.1f, 65520.0f};
  std::vector<std::uint16_t> out(3);
  num::array_options o;
  num::encode_array(std::span<const float>(in.data(), 2), std::span<std::uint16_t>(out.data(), 2), o);
  o.spec.mode = num::rounding::toward_positive;
  num::encode_array(std::span<const float>(in.data() + 1, 1), std::span<std::uint16_t>(out.data() + 1, 1), o);
  o.spec.mode = num::rounding::nearest_even;
  num::encode_array(std::span<const float>(in.data() + 2, 1), std::span<std::uint16_t>(out.data() + 2, 1), o);
  if (out != std::vector<std::uint16_t>{0x2E66, 0x2E67, 0x7C00}) {
    std::fprintf(stderr, "consumer: libnum gave %04X %04X %04X\n", out[0], out[1], out[2]);
    return 1;
  }
  const std::filesystem::path file = argv[1];
  std::filesystem::remove(file);
  rundb::run_id run = 0;
  {
    rundb::writer db(file);
    run = db.begin_run({.name = "consumer"});
    db.add_step({.run = run, .step = 0, .loss = 0.5});
    db.finish_run(run, rundb::run_status::finished);
  }
  rundb::reader db(file);
  const auto steps = db.steps(run);
  if (db.runs().size() != 1 || steps.size() != 1 || steps[0].loss != 0.5) {
    std::fprintf(stderr, "consumer: the run database did not read back\n");
    return 1;
  }
  std::printf("consumer: libnum and rundb work\n");
  return 0;
}

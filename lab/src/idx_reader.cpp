// IDX (MNIST-family) files and gzip input through zlib.
#include <zlib.h>

#include <memory>

#include "lab/dataset.hpp"
#include "lab/errors.hpp"

namespace lab {

std::vector<std::uint8_t> read_maybe_gzipped(const std::filesystem::path& path) {
  if (!std::filesystem::exists(path)) throw input_error(path.string() + ": file not found");
  // gzopen reads plain files transparently, so one path serves both.
  std::unique_ptr<gzFile_s, int (*)(gzFile)> file(gzopen(path.c_str(), "rb"), gzclose);
  if (!file) throw input_error(path.string() + ": cannot open");
  std::vector<std::uint8_t> bytes;
  std::vector<std::uint8_t> chunk(1 << 20);
  while (true) {
    const int got = gzread(file.get(), chunk.data(), static_cast<unsigned>(chunk.size()));
    if (got < 0) {
      int code = 0;
      const char* msg = gzerror(file.get(), &code);
      throw input_error(path.string() + ": corrupt compressed data (" + (msg ? msg : "zlib error") + ")");
    }
    if (got == 0) break;
    bytes.insert(bytes.end(), chunk.begin(), chunk.begin() + got);
  }
  int code = 0;
  const char* msg = gzerror(file.get(), &code);
  if (code != Z_OK && code != Z_STREAM_END)
    throw input_error(path.string() + ": corrupt compressed data (" + (msg ? msg : "zlib error") + ")");
  return bytes;
}

idx_array read_idx(const std::filesystem::path& path) {
  const auto bytes = read_maybe_gzipped(path);
  const std::string where = path.string();
  if (bytes.size() < 4) throw input_error(where + ": too short for an IDX header (" + std::to_string(bytes.size()) + " bytes)");
  if (bytes[0] != 0 || bytes[1] != 0) throw input_error(where + ": not an IDX file (bad magic number)");
  if (bytes[2] != 0x08)
    throw input_error(where + ": IDX element type 0x" + std::to_string(bytes[2]) + " is not unsigned byte (0x08)");
  const std::size_t rank = bytes[3];
  if (rank < 1 || rank > 4) throw input_error(where + ": IDX rank " + std::to_string(rank) + " outside 1..4");
  const std::size_t header = 4 + 4 * rank;
  if (bytes.size() < header) throw input_error(where + ": truncated IDX header");
  idx_array out;
  std::size_t count = 1;
  for (std::size_t d = 0; d < rank; ++d) {
    const std::uint8_t* p = bytes.data() + 4 + 4 * d;
    const std::size_t extent = (std::size_t{p[0]} << 24) | (std::size_t{p[1]} << 16) | (std::size_t{p[2]} << 8) | p[3];
    out.dims.push_back(extent);
    count *= extent;
  }
  if (bytes.size() - header != count)
    throw input_error(where + ": IDX header promises " + std::to_string(count) + " values but the file holds " +
                      std::to_string(bytes.size() - header) + (bytes.size() - header < count ? " (truncated)" : ""));
  out.values.assign(bytes.begin() + static_cast<std::ptrdiff_t>(header), bytes.end());
  return out;
}

}  // namespace lab

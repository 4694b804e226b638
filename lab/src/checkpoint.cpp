#include "lab/checkpoint.hpp"

#include <cstring>
#include <fstream>
#include <iterator>

#include "lab/errors.hpp"
#include "mixing.hpp"

namespace lab {
namespace {

constexpr char magic[8] = {'N', 'U', 'M', 'L', 'A', 'B', 'C', '1'};

void put_u64(std::string& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

void put_string(std::string& out, const std::string& s) {
  put_u64(out, s.size());
  out += s;
}

class reader {
 public:
  reader(const std::string& bytes, std::string where) : bytes_(bytes), where_(std::move(where)) {}
  std::uint64_t u64() {
    need(8);
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= std::uint64_t{static_cast<unsigned char>(bytes_[pos_ + i])} << (8 * i);
    pos_ += 8;
    return v;
  }
  std::string string() {
    const std::uint64_t n = u64();
    need(n);
    std::string s = bytes_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  void floats(float* dst, std::size_t n) {
    need(n * sizeof(float));
    std::memcpy(dst, bytes_.data() + pos_, n * sizeof(float));
    pos_ += n * sizeof(float);
  }
 private:
  void need(std::uint64_t n) const {
    if (n > bytes_.size() - pos_) throw input_error(where_ + ": truncated checkpoint");
  }
  const std::string& bytes_;
  std::string where_;
  std::size_t pos_ = 0;
};

}  // namespace

void save_checkpoint(const std::filesystem::path& path, const checkpoint_header& header,
                     const std::vector<named_tensor>& tensors) {
  std::string body(magic, sizeof magic);
  put_string(body, header.fingerprint);
  put_u64(body, header.epochs_done);
  put_u64(body, header.updates_done);
  put_u64(body, header.micro_steps_done);
  put_u64(body, tensors.size());
  for (const auto& t : tensors) {
    put_string(body, t.name);
    put_u64(body, t.value->size());
    body.append(reinterpret_cast<const char*>(t.value->data()), t.value->size() * sizeof(float));
  }
  put_u64(body, fnv1a(fnv1a_basis, body));

  auto tmp = path;
  tmp += ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw input_error(tmp.string() + ": cannot open for writing");
    out.write(body.data(), static_cast<std::streamsize>(body.size()));
    out.flush();
    if (!out) {
      out.close();
      std::filesystem::remove(tmp);
      throw input_error(tmp.string() + ": write failed");
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp);
    throw input_error(path.string() + ": cannot move checkpoint into place (" + ec.message() + ")");
  }
}

checkpoint_header load_checkpoint(const std::filesystem::path& path, const std::string& expected_fingerprint,
                                  const std::vector<named_tensor>& tensors) {
  const std::string where = path.string();
  std::ifstream in(path, std::ios::binary);
  if (!in) throw input_error(where + ": checkpoint not found");
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.size() < sizeof magic + 8 || std::memcmp(bytes.data(), magic, sizeof magic) != 0)
    throw input_error(where + ": not a numlab checkpoint");
  const std::string body = bytes.substr(0, bytes.size() - 8);
  std::uint64_t stored = 0;
  for (int i = 0; i < 8; ++i)
    stored |= std::uint64_t{static_cast<unsigned char>(bytes[body.size() + static_cast<std::size_t>(i)])} << (8 * i);
  if (stored != fnv1a(fnv1a_basis, body))
    throw input_error(where + ": checksum mismatch (corrupt or truncated checkpoint)");

  checkpoint_header h;
  const std::string payload = body.substr(sizeof magic);
  reader rr(payload, where);
  h.fingerprint = rr.string();
  if (h.fingerprint != expected_fingerprint)
    throw input_error(where + ": checkpoint was written for a different model or optimizer (" + h.fingerprint +
                      " vs " + expected_fingerprint + ")");
  h.epochs_done = rr.u64();
  h.updates_done = rr.u64();
  h.micro_steps_done = rr.u64();
  const std::uint64_t count = rr.u64();
  if (count != tensors.size())
    throw input_error(where + ": holds " + std::to_string(count) + " tensors, the run expects " +
                      std::to_string(tensors.size()));
  for (const auto& t : tensors) {
    const std::string name = rr.string();
    if (name != t.name) throw input_error(where + ": found tensor '" + name + "' where '" + t.name + "' was expected");
    const std::uint64_t n = rr.u64();
    if (n != t.value->size())
      throw input_error(where + ": tensor '" + name + "' has " + std::to_string(n) + " values, the run expects " +
                        std::to_string(t.value->size()));
    rr.floats(t.value->data(), t.value->size());
  }
  return h;
}

}  // namespace lab

// Statistics hooks: producers announce tensors, sinks receive their statistics.
//
// A stats_hooks registry is an ordinary object owned by its caller (a
// trainer, a tracer, a test), never global. A producer announces each tensor
// it makes, naming the site ("conv2.grad_input"), a role tag of its own
// vocabulary (libnum knows no trainer: it filters by the tag's id and hands
// the tag to sinks), the training step, the format and rounding it is (or would be) stored in, and
// the values. Sinks attach with a filter (site pattern, roles, every N steps);
// statistics are computed once per announcement, and only when at least one
// sink wants it, so announcing to a registry nobody listens to costs one
// branch, and a sparse filter costs one pattern match per announcement.
//
// The registry is not synchronised: announce from one thread at a time (or
// give each thread its own registry and merge what the sinks collected).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "format.hpp"
#include "rounding.hpp"
#include "swamping.hpp"
#include "tensor_stats.hpp"

namespace num {

/// What a tensor is to its producer, in the producer's own vocabulary (a
/// trainer passes its tensor roles): an id libnum filters by, and a name it
/// hands to sinks. `name` must stay valid while sinks may read it: a string
/// literal or an entry of a static table.
struct role_tag {
  std::uint8_t id = 0;    ///< 0 .. max_role_tags - 1: bit `id` of sink_filter::roles
  std::string_view name;  ///< "grad_weight", shown in tables and stored by sinks
};
/// Role tag ids are below this (they index a 32-bit set).
inline constexpr unsigned max_role_tags = 32;

/// Bit set of role tag ids for sink_filter::roles (empty for an id out of range).
constexpr std::uint32_t role_bit(role_tag role) {
  return role.id < max_role_tags ? std::uint32_t{1} << role.id : 0;
}
inline constexpr std::uint32_t all_roles = 0xFFFFFFFFu;

/// One announced tensor's statistics. The views live only during the sink call.
struct stats_record {
  std::string_view site;
  role_tag role;
  std::uint64_t step;
  const tensor_stats& stats;
};

/// One announced update's swamping statistics.
struct swamping_record {
  std::string_view site;
  role_tag role;  ///< as given to announce_update
  std::uint64_t step;
  const swamping_stats& stats;
};

/// Receives statistics. Implement on_stats; override on_swamping to also see
/// weight updates. Called synchronously from announce(); a sink that stores
/// records must copy the site string.
class stats_sink {
 public:
  virtual ~stats_sink() = default;
  virtual void on_stats(const stats_record& record) = 0;
  virtual void on_swamping(const swamping_record& record);
};

/// Which announcements a sink receives.
struct sink_filter {
  /// Site pattern: with '*' (any run of characters) or '?' (one character) a
  /// glob matched against the whole site; without either, a prefix
  /// ("conv2" matches "conv2.grad_input"). Empty or "*" matches every site.
  std::string site = "*";
  std::uint32_t roles = all_roles;  ///< set of role_bit(tag) of the role tags wanted
  std::uint64_t every = 1;          ///< only steps that are multiples of `every` (0 counts as 1)
  /// Whether this filter accepts (site, role, step).
  bool accepts(std::string_view site_name, role_tag role, std::uint64_t step) const;
  /// Whether this filter accepts (site, step) for some role.
  bool accepts_any_role(std::string_view site_name, std::uint64_t step) const;
};

/// True if `text` matches the glob `pattern` ('*' and '?') in full.
bool glob_match(std::string_view pattern, std::string_view text);

/// The registry of sinks; see the file comment.
class stats_hooks {
 public:
  using sink_id = std::uint64_t;

  /// Attaches a sink (shared: the caller may keep a pointer to read it back).
  sink_id attach(std::shared_ptr<stats_sink> sink, sink_filter filter = {});
  /// Attaches a function as a sink of tensor statistics.
  sink_id attach(std::function<void(const stats_record&)> on_stats, sink_filter filter = {});
  /// Detaches a sink; unknown ids are ignored.
  void detach(sink_id id);
  bool empty() const { return sinks_.empty(); }

  /// Whether any sink wants this announcement: check before preparing values
  /// that exist only to be announced.
  bool wants(std::string_view site, role_tag role, std::uint64_t step) const;
  /// Whether any sink wants any role of (site, step).
  bool wants(std::string_view site, std::uint64_t step) const;

  /// Announces fp32 values as rounded into `target` with `spec`: computes
  /// their statistics if some sink wants them and hands them over. Returns
  /// whether statistics were computed.
  bool announce(std::string_view site, role_tag role, std::uint64_t step, const format& target,
                const round_spec& spec, std::span<const float> values, const stats_options& options = {});
  /// Announces 16-bit encodings of `storage` (statistics as seen by storage itself).
  bool announce(std::string_view site, role_tag role, std::uint64_t step, const format& storage,
                std::span<const std::uint16_t> encodings);
  /// Announces a performed update w <- w + delta under `role`: sinks wanting
  /// that role get its swamping statistics (ulp taken in `target`) through
  /// on_swamping. Returns whether they were computed.
  bool announce_update(std::string_view site, role_tag role, std::uint64_t step, const format& target,
                       std::span<const float> before, std::span<const float> delta, std::span<const float> after,
                       double tolerance = 0.1);

 private:
  struct entry {
    sink_id id;
    std::shared_ptr<stats_sink> sink;
    sink_filter filter;
  };
  const stats_plan& plan_for(const format& target, const round_spec& spec);
  void send(const stats_record& record);
  template <typename Deliver>
  bool deliver(std::string_view site, role_tag role, std::uint64_t step, Deliver&& deliver);

  std::vector<entry> sinks_;
  std::vector<stats_plan> plans_;  // threshold tables built so far, reused by later announcements
  sink_id next_id_ = 1;
};

}  // namespace num

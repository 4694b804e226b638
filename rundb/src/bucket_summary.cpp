// Per-bucket summaries of tensor_stats; see bucket_summary.hpp and the
// tensor_stats_buckets section of rundb/SCHEMA.md.
#include "bucket_summary.hpp"

#include "rundb/merged_steps.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "histogram_blob.hpp"
#include "rundb/errors.hpp"
#include "rundb/schema.hpp"

namespace rundb::detail {
namespace {

constexpr std::size_t counted_columns = bucket_counted_columns.size();

std::string read_sql() {
  std::string sql = "SELECT step, count";
  for (const char* c : bucket_counted_columns) sql += std::string(", ") + c;
  return sql + ", min_nonzero_abs, max_abs, hist_first_exponent, histogram, id FROM tensor_stats "
               "WHERE run_id = ?1 AND layer = ?2 AND role = ?3 AND step BETWEEN ?4 AND ?5 "
               "AND (?6 IS NULL OR id > ?6) "
               "ORDER BY step, id";
}

std::string insert_sql() {
  std::string columns = "run_id, layer, role, bucket, first_step, last_step, steps, records, count";
  for (const char* c : bucket_counted_columns) columns += std::string(", ") + c;
  columns += ", min_nonzero_abs, max_abs";
  for (const char* c : bucket_counted_columns)
    columns += std::string(", worst_") + c + "_step, worst_" + c + ", worst_" + c + "_count";
  const auto n = std::count(columns.begin(), columns.end(), ',') + 1;
  std::string values;
  for (long i = 1; i <= n; ++i) values += (i > 1 ? ",?" : "?") + std::to_string(i);
  return "INSERT INTO tensor_stats_buckets(" + columns + ") VALUES (" + values + ")";
}

// Adds `h` into `sum` bin by bin, aligning binades by exponent; the
// underflow and overflow bins add to their own.
void add_histogram(histogram& sum, const histogram& h) {
  if (h.bins.size() < 2) return;
  if (sum.bins.empty()) {
    sum = h;
    return;
  }
  if (sum.first_exponent == h.first_exponent && sum.bins.size() == h.bins.size()) {
    for (std::size_t i = 0; i < h.bins.size(); ++i) sum.bins[i] += h.bins[i];
    return;
  }
  // Different ranges (a site whose format changed): the union of both.
  const std::int64_t lo = std::min(sum.first_exponent, h.first_exponent);
  const std::int64_t hi = std::max<std::int64_t>(sum.first_exponent + static_cast<std::int64_t>(sum.binade_count()),
                                                 h.first_exponent + static_cast<std::int64_t>(h.binade_count()));
  histogram out{static_cast<std::int32_t>(lo), std::vector<std::uint64_t>(static_cast<std::size_t>(hi - lo) + 2, 0)};
  for (const histogram* part : {static_cast<const histogram*>(&sum), &h}) {
    out.bins.front() += part->bins.front();
    out.bins.back() += part->bins.back();
    const auto offset = static_cast<std::size_t>(part->first_exponent - lo);
    for (std::size_t i = 0; i < part->binade_count(); ++i) out.bins[1 + offset + i] += part->bins[1 + i];
  }
  sum = std::move(out);
}

// One step's records of a layer and role, summed.
struct step_sums {
  std::int64_t step = 0;
  std::int64_t count = 0;
  std::array<std::int64_t, counted_columns> counted{};
};

// A counted column's worst step in a bucket: the step whose fraction
// counted / count is highest (0 for a step of no values), the earliest on ties,
// as rundb::reader::counts_by_layer_and_step pools steps.
struct worst_step {
  std::int64_t step = 0, counted = 0, count = 0;
};

double fraction(std::int64_t counted, std::int64_t count) {
  return count > 0 ? static_cast<double>(counted) / static_cast<double>(count) : 0.0;
}

}  // namespace

// One bucket of one layer and role as its rows are read in step order.
struct bucket_fold {
  std::int64_t bucket = 0, first_step = 0, last_step = 0, steps = 0, records = 0, count = 0;
  std::array<std::int64_t, counted_columns> totals{};
  std::optional<double> min_nonzero_abs{}, max_abs{};
  std::array<worst_step, counted_columns> worst{};
  histogram hist{};
  step_sums current{};
  std::int64_t last_id = 0;  // of the last row folded in

  void finish_step() {
    for (std::size_t k = 0; k < counted_columns; ++k) {
      const worst_step now{current.step, current.counted[k], current.count};
      if (steps == 0 || fraction(now.counted, now.count) > fraction(worst[k].counted, worst[k].count))
        worst[k] = now;
    }
    ++steps;
  }
};

std::int64_t bucket_of(std::int64_t step) { return bucket_index(step, summary_bucket_steps); }

// The folds append() keeps: per (run, layer, role), the bucket it last
// wrote, its last step not yet finished (a later row may still join it).
struct bucket_summarizer::open_buckets {
  std::map<std::tuple<std::int64_t, std::string, std::string>, bucket_fold> by_site;
};

bucket_summarizer::bucket_summarizer(database& db)
    : db_(db),
      read_(db, read_sql().c_str()),
      erase_(db, "DELETE FROM tensor_stats_buckets WHERE run_id = ?1 AND layer = ?2 AND role = ?3 "
                 "AND bucket BETWEEN ?4 AND ?5"),
      erase_histograms_(db, "DELETE FROM tensor_stats_bucket_histograms WHERE run_id = ?1 AND layer = ?2 "
                            "AND role = ?3 AND bucket BETWEEN ?4 AND ?5"),
      insert_(db, insert_sql().c_str()),
      insert_histogram_(db, "INSERT INTO tensor_stats_bucket_histograms(run_id, layer, role, bucket, "
                            "hist_first_exponent, histogram) VALUES (?1, ?2, ?3, ?4, ?5, ?6)"),
      open_(std::make_unique<open_buckets>()) {}

bucket_summarizer::~bucket_summarizer() = default;

namespace {

// The first and last step of bucket b; the extreme buckets reach the ends of the step range exactly.
std::int64_t first_step_of(std::int64_t bucket) { return bucket * summary_bucket_steps; }
std::int64_t last_step_of(std::int64_t bucket) {
  return bucket >= bucket_of(std::numeric_limits<std::int64_t>::max()) ? std::numeric_limits<std::int64_t>::max()
                                                                       : (bucket + 1) * summary_bucket_steps - 1;
}

}  // namespace

// Rewrites the summary rows of one site's buckets first..last from their
// statistics rows: all of them when `open` is empty, else `open`'s fold
// continued with the rows after its last one in (step, id) order. Returns the
// fold of the last bucket, its last step not yet finished; empty when no row
// was read.
std::optional<bucket_fold> bucket_summarizer::fold_rows(std::int64_t run, std::string_view layer,
                                                        std::string_view role, std::int64_t first_bucket,
                                                        std::int64_t last_bucket, std::optional<bucket_fold> open) {
  erase_.bind(1, run).bind(2, layer).bind(3, role).bind(4, first_bucket).bind(5, last_bucket).run();
  erase_histograms_.bind(1, run).bind(2, layer).bind(3, role).bind(4, first_bucket).bind(5, last_bucket).run();
  const std::int64_t from_step = open ? open->current.step : first_step_of(first_bucket);
  read_.reset();
  read_.bind(1, run).bind(2, layer).bind(3, role).bind(4, from_step).bind(5, last_step_of(last_bucket));
  if (open) read_.bind(6, open->last_id);
  else read_.bind_null(6);
  while (read_.step()) {
    const std::int64_t step = read_.column_int(0);
    if (open && step != open->current.step) {
      open->finish_step();
      if (bucket_of(step) != open->bucket) {
        write(run, layer, role, *open);
        open.reset();
      }
    }
    if (!open) {
      open.emplace();
      open->bucket = bucket_of(step);
      open->first_step = step;
    }
    auto& b = *open;
    if (b.current.step != step || b.records == 0) b.current = step_sums{step, 0, {}};
    b.last_step = step;
    ++b.records;
    const std::int64_t count = read_.column_int(1);
    b.count += count;
    b.current.count += count;
    for (std::size_t k = 0; k < counted_columns; ++k) {
      const std::int64_t v = read_.column_int(static_cast<int>(2 + k));
      b.totals[k] += v;
      b.current.counted[k] += v;
    }
    constexpr int after_counts = static_cast<int>(2 + counted_columns);
    if (const auto m = read_.column_optional_double(after_counts); m && *m > 0)
      b.min_nonzero_abs = b.min_nonzero_abs ? std::min(*b.min_nonzero_abs, *m) : *m;
    if (const auto m = read_.column_optional_double(after_counts + 1); m && !(*m < 0))
      b.max_abs = b.max_abs ? std::max(*b.max_abs, *m) : *m;
    if (!read_.is_null(after_counts + 3)) {
      const auto h = decode_histogram(read_.column_int(after_counts + 2), read_.column_blob(after_counts + 3));
      if (!h) {
        throw corrupt_database(db_.file() + ": corrupt run database: malformed histogram of " + std::string(layer) +
                               "/" + std::string(role) + " at step " + std::to_string(step));
      }
      add_histogram(b.hist, *h);
    }
    b.last_id = read_.column_int(after_counts + 4);
  }
  read_.reset();
  if (open) {
    bucket_fold done = *open;
    done.finish_step();
    write(run, layer, role, done);
  }
  return open;
}

void bucket_summarizer::write(std::int64_t run, std::string_view layer, std::string_view role, const bucket_fold& b) {
  auto& st = insert_;
  int i = 0;
  const auto next = [&] { return ++i; };  // one statement per bind: the index order is the column order
  st.bind(next(), run);
  st.bind(next(), layer);
  st.bind(next(), role);
  for (const std::int64_t v : {b.bucket, b.first_step, b.last_step, b.steps, b.records, b.count}) st.bind(next(), v);
  for (const std::int64_t v : b.totals) st.bind(next(), v);
  st.bind(next(), b.min_nonzero_abs);
  st.bind(next(), b.max_abs);
  for (const auto& w : b.worst)
    for (const std::int64_t v : {w.step, w.counted, w.count}) st.bind(next(), v);
  st.run();
  if (b.hist.bins.empty()) return;
  insert_histogram_.bind(1, run).bind(2, layer).bind(3, role).bind(4, b.bucket);
  insert_histogram_.bind(5, std::int64_t{b.hist.first_exponent}).bind_blob(6, encode_counts(b.hist.bins)).run();
}

void bucket_summarizer::rebuild(std::int64_t run, std::string_view layer, std::string_view role,
                                std::int64_t first_bucket, std::int64_t last_bucket) {
  fold_rows(run, layer, role, first_bucket, last_bucket, std::nullopt);
}

void bucket_summarizer::append(std::int64_t run, std::string_view layer, std::string_view role,
                               std::int64_t first_step, std::int64_t last_step) {
  const std::int64_t first_bucket = bucket_of(first_step), last_bucket = bucket_of(last_step);
  auto key = std::make_tuple(run, std::string(layer), std::string(role));
  auto at = open_->by_site.find(key);
  // The new rows come after every folded one in (step, id) order, all in the open bucket: fold them alone.
  const bool continues = at != open_->by_site.end() && at->second.bucket == first_bucket &&
                         last_bucket == first_bucket && first_step >= at->second.current.step;
  auto open = fold_rows(run, layer, role, first_bucket, last_bucket,
                        continues ? std::optional<bucket_fold>(std::move(at->second)) : std::nullopt);
  if (!open) {
    if (at != open_->by_site.end()) open_->by_site.erase(at);
  } else if (at != open_->by_site.end()) {
    at->second = std::move(*open);
  } else {
    open_->by_site.emplace(std::move(key), std::move(*open));
  }
}

void bucket_summarizer::forget() { open_->by_site.clear(); }

void bucket_summarizer::rebuild_all() {
  db_.exec("DELETE FROM tensor_stats_buckets; DELETE FROM tensor_stats_bucket_histograms");
  std::vector<std::tuple<std::int64_t, std::string, std::string>> sites;
  {
    statement s(db_, "SELECT DISTINCT run_id, layer, role FROM tensor_stats");
    while (s.step()) sites.emplace_back(s.column_int(0), s.column_text(1), s.column_text(2));
  }
  for (const auto& [run, layer, role] : sites) {
    rebuild(run, layer, role, bucket_of(std::numeric_limits<std::int64_t>::min()),
            bucket_of(std::numeric_limits<std::int64_t>::max()));
  }
}

}  // namespace rundb::detail

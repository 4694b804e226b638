// The run-database reader's queries on the tables of schema version 3:
// scale statistics of scaled-format recipes and sweep coordinates. Files of
// older versions lack both tables and read as having no rows.
#include <utility>

#include "histogram_blob.hpp"
#include "rundb/errors.hpp"
#include "rundb/reader.hpp"
#include "sqlite.hpp"

namespace rundb {
namespace {

using detail::statement;

constexpr const char* scale_columns =
    "SELECT run_id, step, layer, op, role, scaled_format, count, blocks, amax, scale, block_underflow, "
    "underflow_to_zero, saturated, scale_underflow, scale_overflow, snr_db, scale_hist_first_exponent, ";
// The blob columns, which only queries asking for histograms read.
constexpr const char* scale_blob_columns = "amax_history, scale_histogram";
constexpr const char* no_scale_blob_columns = "NULL, NULL";

std::uint64_t as_count(std::int64_t stored) { return static_cast<std::uint64_t>(stored); }

scale_stats_record read_scale_stats(const detail::database& db, const statement& s) {
  scale_stats_record r;
  r.run = s.column_int(0);
  r.step = s.column_int(1);
  r.layer = s.column_text(2);
  r.op = s.column_text(3);
  r.role = s.column_text(4);
  r.scaled_format = s.column_text(5);
  r.count = as_count(s.column_int(6));
  r.blocks = as_count(s.column_int(7));
  r.amax = s.column_optional_double(8);
  r.scale = s.column_optional_double(9);
  r.block_underflow = as_count(s.column_int(10));
  r.underflow_to_zero = as_count(s.column_int(11));
  r.saturated = as_count(s.column_int(12));
  r.scale_underflow = as_count(s.column_int(13));
  r.scale_overflow = as_count(s.column_int(14));
  r.snr_db = s.column_optional_double(15);
  const auto malformed = [&](const char* what) {
    throw corrupt_database(db.file() + ": corrupt run database: malformed " + what + " of " + r.layer + "/" +
                           r.role + " at step " + std::to_string(r.step));
  };
  if (!s.is_null(17)) {
    auto history = detail::decode_reals(s.column_blob(17));
    if (!history) malformed("amax history");
    r.amax_history = std::move(*history);
  }
  if (!s.is_null(18)) {
    auto h = detail::decode_histogram(s.column_int(16), s.column_blob(18));
    if (!h) malformed("scale histogram");
    r.scale_hist = std::move(*h);
  }
  return r;
}

}  // namespace

std::vector<scale_stats_record> reader::scale_stats(const scale_stats_query& query) {
  if (!has_v3_tables()) return {};
  std::string sql = std::string(scale_columns) + (query.with_histograms ? scale_blob_columns : no_scale_blob_columns) +
                    " FROM scale_stats WHERE run_id = ?1 AND step BETWEEN ?2 AND ?3";
  if (query.layer) sql += " AND layer = ?4";
  if (query.role) sql += " AND role = ?5";
  sql += " ORDER BY step, id";
  statement s(*db_, sql.c_str());
  s.bind(1, query.run).bind(2, query.steps.first).bind(3, query.steps.last);
  if (query.layer) s.bind(4, std::string_view(*query.layer));
  if (query.role) s.bind(5, std::string_view(*query.role));
  std::vector<scale_stats_record> out;
  while (s.step()) out.push_back(read_scale_stats(*db_, s));
  return out;
}

std::vector<scale_stats_record> reader::scale_stats_at(run_id run, std::int64_t step) {
  return scale_stats({.run = run, .steps = {step, step}, .with_histograms = true});
}

std::optional<scale_stats_record> reader::scale_histogram(run_id run, std::string_view layer, std::string_view role,
                                                          std::int64_t step) {
  if (!has_v3_tables()) return std::nullopt;
  statement s(*db_, (std::string(scale_columns) + scale_blob_columns +
                     " FROM scale_stats WHERE run_id = ?1 AND layer = ?2 AND role = ?3 AND step <= ?4 "
                     "ORDER BY step DESC, id LIMIT 1").c_str());
  s.bind(1, run).bind(2, layer).bind(3, role).bind(4, step);
  if (!s.step()) return std::nullopt;
  return read_scale_stats(*db_, s);
}

std::vector<coordinate> reader::coordinates(run_id run) {
  if (!has_v3_tables()) return {};
  statement s(*db_, "SELECT key, value FROM run_coordinates WHERE run_id = ?1 ORDER BY key");
  s.bind(1, run);
  std::vector<coordinate> out;
  while (s.step()) out.push_back({s.column_text(0), s.column_text(1)});
  return out;
}

std::map<run_id, std::vector<coordinate>> reader::all_coordinates() {
  if (!has_v3_tables()) return {};
  statement s(*db_, "SELECT run_id, key, value FROM run_coordinates ORDER BY run_id, key");
  std::map<run_id, std::vector<coordinate>> out;
  while (s.step()) out[s.column_int(0)].push_back({s.column_text(1), s.column_text(2)});
  return out;
}

}  // namespace rundb

// Recording in a run database itself that its runs' writer died
// (`numlab merge --mark-killed`), where merge only records it in its output.
#pragma once

#include <cstddef>
#include <filesystem>

namespace rundb {

/// Writes the runs of `file` still `running` as `killed` (schema version 5),
/// in place, in one transaction; `end_time` stays empty (nobody knows when
/// the process died). Only for a caller that knows no process writes `file`
/// any more, as for merge_input::writer_gone: rundb cannot tell a live writer
/// from a dead one. Returns how many runs it changed. Throws what
/// rundb::reader throws for files it cannot read, and rundb::error naming
/// the file for an older schema version (`numlab inspect --upgrade` first)
/// or a file it cannot write.
std::size_t record_killed(const std::filesystem::path& file);

}  // namespace rundb

// Bringing an older run database up to this build's schema version in place
// (`numlab inspect --upgrade`).
#pragma once

#include <filesystem>

namespace rundb {

/// Upgrades `file` from schema version 3 or 4 to this build's version 5, in
/// one transaction (a failure leaves the file as it was): from 3, adds
/// tensor_stats_buckets and fills it from the statistics rows; from 3 and 4,
/// rebuilds the runs table so that its status may be `killed`. Returns the version the
/// file had; a file already at this version is left untouched. Throws what
/// rundb::reader throws for files it cannot read, and rundb::error for
/// versions 1 and 2, whose tables differ (`numlab merge NEW.db OLD.db` writes
/// a current copy of them).
int upgrade(const std::filesystem::path& file);

}  // namespace rundb

#pragma once
#include <string>

// What every record is stamped with: the host it ran on and when.
namespace linkscope {

// This machine's host name ("unknown" when gethostname fails).
std::string host_name();
// Current UTC time as ISO 8601 ("2026-11-29T23:14:09Z").
std::string utc_timestamp();

}  // namespace linkscope

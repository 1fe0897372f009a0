#pragma once
#include <optional>
#include <string_view>

#include "model/diagnosis.hpp"

// What the common NVIDIA Xid codes mean (the driver's error reports, NVML event nvmlEventTypeXidCriticalError).
// The one table of them: the Run document writes the meaning next to each event, the xid-during-run rule takes its
// severity and its advice from here. Meanings follow NVIDIA's Xid catalog (docs.nvidia.com/deploy/xid-errors).
namespace linkscope::model {

struct XidCode {
  int code = 0;
  std::string_view meaning;  // one line: what the driver saw
  std::string_view blame;    // who is usually at fault: the program, the driver or firmware, the GPU, the link
  std::string_view action;   // what an operator does next
  Severity severity = Severity::kError;
};

// The entry for `code`; nullopt for a code outside the table (the finding then says "see NVIDIA's Xid catalog").
std::optional<XidCode> xid_code(int code);
// The meaning, or "Xid N (not in linkscope's table; see NVIDIA's Xid catalog)".
std::string xid_meaning(int code);

}  // namespace linkscope::model

#pragma once
// Would NCCL's own XML reader (src/graph/xml.cc) accept this text? NCCL does not parse XML: it reads
// one fixed dump format (space/newline before '<' only, exactly one space before each attribute, quoted values,
// every tag on one line, no <?xml?>, no text, at most 256 kept elements and 128 kept children). This replays
// that reader's rules on a file pugixml already accepted, only to tell the user; the model is built from
// pugixml's tree either way.
#include <optional>
#include <string>
#include <string_view>

namespace linkscope::topo {

struct NcclParserRefusal {
  long line = 0;
  std::string nccl_message;  // what NCCL would print, e.g. "XML Parse error : expecting '<', got '\t'"
  std::string explanation;   // the cause in plain words, e.g. "a tab where NCCL expects '<'"
};

std::optional<NcclParserRefusal> nccl_parser_refusal(std::string_view text);

}  // namespace linkscope::topo

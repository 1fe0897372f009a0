#include "topo/nccl_xml_conformance.hpp"

#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "topo/nccl_numbers.hpp"
#include "topo/xml_reader.hpp"

namespace linkscope::topo {

namespace {

constexpr std::size_t kMaxStrLen = 255;   // MAX_STR_LEN: names and values stop at 254 characters
constexpr int kMaxKeptElements = 256;     // NCCL_TOPO_XML_MAX_NODES
constexpr int kMaxKeptChildren = 128;     // MAX_SUBS in 2.28.9
constexpr int kMaxReplayDepth = 128;

struct Refused {
  NcclParserRefusal refusal;
};

std::string printable(char c) {
  switch (c) {
    case '\n': return "\\n";
    case '\r': return "\\r";
    case '\t': return "\\t";
    default: break;
  }
  if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) {
    return fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
  }
  return std::string(1, c);
}

bool ends_token(char c) { return c == ' ' || c == '>' || c == '/' || c == '\n' || c == '\r'; }

enum class TagType { kNone, kOpen, kClose, kSingle };

struct Tag {
  TagType type = TagType::kNone;
  std::string name;
  std::vector<std::pair<std::string, std::string>> attributes;
  int kept_children = 0;
};

// Replays xmlGetNode/xmlLoadSub byte by byte; throws Refused at the first place NCCL would stop.
class NcclReaderReplay {
 public:
  explicit NcclReaderReplay(std::string_view text) : text_(text) {}

  void run() { load_sub(nullptr, true, "", 0); }

 private:
  [[noreturn]] void refuse(std::string nccl_message, std::string explanation) const {
    throw Refused{{line_of_offset(text_, pos_ == 0 ? 0 : pos_ - 1), std::move(nccl_message), std::move(explanation)}};
  }

  char get_char() {
    if (pos_ >= text_.size()) refuse("XML Parse : Unexpected EOF", "the file ends inside a tag");
    return text_[pos_++];
  }

  // xmlGetValue: a quoted value; returns the character after the closing quote.
  char get_value(std::string& value) {
    const char quote = get_char();
    if (quote != '"' && quote != '\'') {
      refuse("XML Parse : Expected (double) quote.", "an unquoted attribute value, or a space around '='");
    }
    while (true) {
      const char c = get_char();
      if (value.size() == kMaxStrLen - 1) {
        refuse(fmt::format("Error : value {} too long (max {})", value, kMaxStrLen),
               "an attribute value of 254 characters or more");
      }
      if (c == quote) break;
      value.push_back(c);
    }
    return get_char();
  }

  // xmlGetToken: a name ending at ' ', '>', '/', newline; with `value`, "name=" continues into a value.
  char get_token(std::string& name, std::string* value) {
    while (true) {
      const char c = get_char();
      if (c == '=') {
        if (value == nullptr) refuse(fmt::format("XML Parse : Unexpected value with name {}", name), "an '=' in a tag name");
        return get_value(*value);
      }
      if (name.size() == kMaxStrLen - 1) {
        refuse(fmt::format("Error : name {} too long (max {})", name, kMaxStrLen), "a name of 254 characters or more");
      }
      if (ends_token(c)) return c;
      name.push_back(c);
    }
  }

  void skip_comment(const std::string& start, char next) {
    std::string end = "...";
    const auto shift = [&end](char c) { end = end.substr(1) + c; };
    for (char c : start) shift(c);
    shift(next);
    while (end != "-->") {
      if (pos_ >= text_.size()) refuse("XML Parse error : unterminated comment", "a comment without '-->'");
      shift(text_[pos_++]);
    }
  }

  Tag get_node() {
    while (true) {
      Tag tag;
      char c = ' ';
      while (c == ' ' || c == '\n' || c == '\r') {
        if (pos_ >= text_.size()) return tag;  // end of file: NODE_TYPE_NONE
        c = text_[pos_++];
      }
      if (c != '<') {
        refuse(fmt::format("XML Parse error : expecting '<', got '{}'", printable(c)),
               c == '\t' ? "a tab between tags (NCCL skips only spaces and newlines)" : "text between tags");
      }
      c = get_token(tag.name, nullptr);
      if (tag.name.rfind("!--", 0) == 0) {
        skip_comment(tag.name.substr(3), c);
        continue;
      }
      if (tag.name.empty() && c == '/') {
        tag.type = TagType::kClose;
        c = get_token(tag.name, nullptr);
        if (c != '>') {
          refuse(fmt::format("XML Parse error : unexpected trailing {} in closing tag {}", printable(c), tag.name),
                 "a closing tag with something after its name");
        }
        return tag;
      }
      tag.type = TagType::kOpen;
      while (c == ' ') {
        std::string key;
        std::string value;
        c = get_token(key, &value);
        tag.attributes.emplace_back(std::move(key), std::move(value));
      }
      if (c == '/') {
        tag.type = TagType::kSingle;
        std::string ignored;
        c = get_token(ignored, nullptr);
      }
      if (c != '>') {
        std::string why = "an unexpected character in a tag";
        if (c == '\n' || c == '\r') why = "a tag split over several lines";
        if (c == '?') why = "an <?xml ...?> declaration or processing instruction";
        if (c == '\t') why = "a tab inside a tag";
        refuse(fmt::format("XML Parse : expected >, got '{}'", printable(c)), why);
      }
      return tag;
    }
  }

  void check_system(const Tag& tag) const {
    for (const auto& [key, value] : tag.attributes) {
      if (key != "version") continue;
      const auto version = static_cast<int>(c_strtol(value).value);
      if (version != 1) {
        refuse(fmt::format("XML Topology has wrong version {}, 1 needed", version), "a version other than 1");
      }
      return;
    }
    refuse("Attribute version of node system not found", "<system> without a version attribute");
  }

  // xmlLoadSub: `handlers` says whether `owner` has handler functions (kept children) at all.
  void load_sub(Tag* head, bool handlers, const std::string& owner, int depth) {
    if (head != nullptr && head->type == TagType::kSingle) return;
    if (depth > kMaxReplayDepth) refuse("(nesting too deep to replay)", "elements nested too deeply");
    while (true) {
      if (kept_ == kMaxKeptElements) {
        refuse(fmt::format("Error : XML parser is limited to {} nodes", kMaxKeptElements),
               fmt::format("more than {} kept elements", kMaxKeptElements - 1));
      }
      Tag tag = get_node();
      if (tag.type == TagType::kNone) {
        if (head != nullptr) refuse(fmt::format("XML Parse : unterminated {}", head->name), "an element never closed");
        return;
      }
      if (head != nullptr && tag.type == TagType::kClose) {
        if (tag.name != head->name) {
          refuse(fmt::format("XML Mismatch : {} / {}", head->name, tag.name), "mismatched closing tag");
        }
        return;
      }
      if (handlers && nccl_keeps_child(owner, tag.name)) {
        if (head != nullptr) {
          if (head->kept_children == kMaxKeptChildren) {
            refuse(fmt::format("Error : XML parser is limited to {} subnodes", kMaxKeptChildren),
                   fmt::format("more than {} kept children in one element", kMaxKeptChildren));
          }
          ++head->kept_children;
        }
        ++kept_;
        if (tag.name == "system") check_system(tag);
        load_sub(&tag, true, tag.name, depth + 1);
      } else {
        load_sub(&tag, false, tag.name, depth + 1);
      }
    }
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  int kept_ = 0;
};

}  // namespace

std::optional<NcclParserRefusal> nccl_parser_refusal(std::string_view text) {
  try {
    NcclReaderReplay(text).run();
  } catch (const Refused& refused) {
    return refused.refusal;
  }
  return std::nullopt;
}

}  // namespace linkscope::topo

#include "topo/xml_reader.hpp"

#include <algorithm>
#include <utility>

#include <fmt/format.h>
#include <pugixml.hpp>

#include "core/error.hpp"
#include "topo/nccl_numbers.hpp"

namespace linkscope::topo {

namespace {

// Byte offset -> 1-based line in O(log n): every element asks once.
class LineIndex {
 public:
  explicit LineIndex(std::string_view text) {
    for (std::size_t i = 0; i < text.size(); ++i) {
      if (text[i] == '\n') newlines_.push_back(i);
    }
  }
  long line_of(std::ptrdiff_t offset) const {
    const auto at = static_cast<std::size_t>(std::max<std::ptrdiff_t>(offset, 0));
    return 1 + static_cast<long>(std::lower_bound(newlines_.begin(), newlines_.end(), at) - newlines_.begin());
  }

 private:
  std::vector<std::size_t> newlines_;
};

bool has_nccl_handlers(std::string_view parent) {
  return parent.empty() || parent == "system" || parent == "cpu" || parent == "pci" || parent == "gpu" ||
         parent == "nic";
}

std::string describe_parse_failure(const pugi::xml_parse_result& result, std::string_view text) {
  if (result.status == pugi::status_no_document_element) return "no XML element found (empty file?)";
  if (result.status == pugi::status_out_of_memory) return "out of memory while parsing the XML";
  std::string what = fmt::format("malformed XML: {}", result.description());
  const auto offset = static_cast<std::size_t>(std::max<std::ptrdiff_t>(result.offset, 0));
  if (offset + 1 >= text.size()) {
    what += " at the end of the file (truncated?)";
  } else if (text.find('>', offset) == std::string_view::npos) {
    what += " (the file ends inside this tag: truncated?)";
  }
  return what;
}

// Walks the whole tree without recursion: DTDs are refused (no entity is ever declared or expanded) and
// depth and size are bounded before anything recursive touches the tree.
void check_structure(const pugi::xml_document& doc, const LineIndex& lines, const std::string& source) {
  std::vector<std::pair<pugi::xml_node, int>> stack;
  for (pugi::xml_node child = doc.first_child(); child; child = child.next_sibling()) stack.emplace_back(child, 1);
  std::size_t elements = 0;
  while (!stack.empty()) {
    auto [node, depth] = stack.back();
    stack.pop_back();
    const long line = lines.line_of(node.offset_debug());
    if (node.type() == pugi::node_doctype) {
      throw InputError(source, line,
                       "DOCTYPE declarations (DTDs, entities) are not allowed in a topology file");
    }
    if (node.type() != pugi::node_element) continue;
    if (++elements > kMaxXmlElements) {
      throw InputError(source, line, fmt::format("more than {} XML elements; not a topology file", kMaxXmlElements));
    }
    if (depth > kMaxNestingDepth) {
      throw InputError(source, line, fmt::format("elements nested deeper than {} levels", kMaxNestingDepth));
    }
    for (pugi::xml_node child = node.first_child(); child; child = child.next_sibling()) {
      stack.emplace_back(child, depth + 1);
    }
  }
}

class Converter {
 public:
  Converter(const LineIndex& lines, XmlDocument& doc) : lines_(lines), doc_(doc) {}

  void convert(const pugi::xml_node& node, XmlElement& out) {
    out.name = node.name();
    out.line = line_of(node);
    read_attributes(node, &out);
    for (pugi::xml_node child = node.first_child(); child; child = child.next_sibling()) {
      if (child.type() != pugi::node_element) continue;
      if (nccl_keeps_child(out.name, child.name())) {
        out.children.emplace_back();
        convert(child, out.children.back());
      } else {
        skip(child, has_nccl_handlers(out.name));
      }
    }
  }

  // An element NCCL reads but does not keep: its attributes are still tokenized, and it is logged when its
  // parent has handlers (the subtree below it is dropped silently).
  void skip(const pugi::xml_node& node, bool log) {
    read_attributes(node, nullptr);
    if (log) doc_.info_lines.push_back(fmt::format("Ignoring element {}", node.name()));
    for (pugi::xml_node child = node.first_child(); child; child = child.next_sibling()) {
      if (child.type() == pugi::node_element) skip(child, false);
    }
  }

  long line_of(const pugi::xml_node& node) const { return lines_.line_of(node.offset_debug()); }

 private:
  void read_attributes(const pugi::xml_node& node, XmlElement* out) {
    std::size_t count = 0;
    for (pugi::xml_attribute attribute = node.first_attribute(); attribute; attribute = attribute.next_attribute()) {
      if (count++ >= kNcclMaxAttributes) {
        doc_.info_lines.push_back(fmt::format("XML Parse : Ignoring extra attributes (max {})", kNcclMaxAttributes));
        continue;
      }
      if (out != nullptr) out->attributes.push_back({attribute.name(), attribute.value()});
    }
  }

  const LineIndex& lines_;
  XmlDocument& doc_;
};

}  // namespace

const std::string* XmlElement::attribute(std::string_view attribute_name) const {
  for (const auto& attribute : attributes) {
    if (attribute.name == attribute_name) return &attribute.value;
  }
  return nullptr;
}

bool nccl_keeps_child(std::string_view parent, std::string_view child) {
  if (parent.empty()) return child == "system";
  if (parent == "system") return child == "cpu";
  if (parent == "cpu") return child == "pci" || child == "nic";
  if (parent == "pci") return child == "pci" || child == "gpu" || child == "nic" || child == "pcilink";
  if (parent == "gpu") return child == "nvlink" || child == "c2c";
  if (parent == "nic") return child == "net";
  return false;
}

long line_of_offset(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  return 1 + static_cast<long>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
}

XmlDocument read_topology_xml(std::string_view text, const std::string& source_name) {
  if (text.size() > kMaxTopologyBytes) {
    throw InputError(source_name, 0,
                     fmt::format("{} bytes is too large for a topology file (limit {} MiB)", text.size(),
                                 kMaxTopologyBytes / (1024 * 1024)));
  }
  if (const auto nul = text.find('\0'); nul != std::string_view::npos) {
    throw InputError(source_name, line_of_offset(text, nul), "binary data (a NUL byte): not an XML text file");
  }
  pugi::xml_document doc;
  // No escapes and no end-of-line conversion: attribute values stay byte for byte what NCCL would read.
  const unsigned flags = pugi::parse_ws_pcdata | pugi::parse_declaration | pugi::parse_doctype | pugi::parse_pi |
                         pugi::parse_cdata | pugi::parse_comments;
  const pugi::xml_parse_result result = doc.load_buffer(text.data(), text.size(), flags, pugi::encoding_utf8);
  if (!result) {
    throw InputError(source_name, line_of_offset(text, static_cast<std::size_t>(std::max<std::ptrdiff_t>(result.offset, 0))),
                     describe_parse_failure(result, text));
  }
  const LineIndex lines(text);
  check_structure(doc, lines, source_name);

  XmlDocument out;
  Converter converter(lines, out);
  bool have_system = false;
  pugi::xml_node first_element;
  for (pugi::xml_node child = doc.first_child(); child; child = child.next_sibling()) {
    if (child.type() != pugi::node_element) continue;
    if (!first_element) first_element = child;
    if (std::string_view(child.name()) != "system") {
      converter.skip(child, true);
      continue;
    }
    if (have_system) {
      out.notes.push_back(fmt::format("line {}: a second <system> element is ignored (NCCL uses the first)",
                                      converter.line_of(child)));
      continue;
    }
    have_system = true;
    const long line = converter.line_of(child);
    const pugi::xml_attribute version = child.attribute("version");
    if (!version) {
      throw InputError(source_name, line,
                       "<system> has no version attribute (NCCL: Attribute version of node system not found)");
    }
    const CInteger parsed = c_strtol(version.value());
    if (parsed.value != 1) {
      throw InputError(source_name, line,
                       fmt::format("<system version=\"{}\">: NCCL reads topology XML version 1 only "
                                   "(NCCL: XML Topology has wrong version {}, 1 needed)",
                                   version.value(), static_cast<int>(parsed.value)));
    }
    const pugi::xml_attribute name = child.attribute("name");
    out.info_lines.push_back(name ? fmt::format("Loading topology {}", name.value()) : "Loading unnamed topology");
    converter.convert(child, out.system);
  }
  if (!have_system) {
    throw InputError(source_name, first_element ? converter.line_of(first_element) : 0,
                     fmt::format("root element is <{}>; an NCCL topology file starts with <system version=\"1\">",
                                 first_element ? first_element.name() : ""));
  }
  return out;
}

}  // namespace linkscope::topo

#pragma once
// Reads an NCCL topology XML with pugixml into the element tree NCCL keeps (xml.cc handler tables:
// system > cpu > pci|nic, pci > pci|gpu|nic|pcilink, gpu > nvlink|c2c, nic > net; other elements are dropped
// with "Ignoring element"). Refuses, with InputError "FILE:LINE: what", anything that is not a sane text XML
// topology: oversized, binary, malformed or truncated XML, DTDs/entities, excessive nesting, a wrong root.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace linkscope::topo {

inline constexpr std::size_t kMaxTopologyBytes = 16u * 1024u * 1024u;  // real files are a few KB
inline constexpr int kMaxNestingDepth = 64;                            // real files nest under 12 levels
inline constexpr std::size_t kMaxXmlElements = 100000;
inline constexpr std::size_t kNcclMaxAttributes = 16;                  // NCCL keeps the first 16

struct XmlAttribute {
  std::string name;
  std::string value;
};

struct XmlElement {
  std::string name;
  std::vector<XmlAttribute> attributes;  // the first 16, as NCCL keeps them
  std::vector<XmlElement> children;      // only the children NCCL keeps, in document order
  long line = 0;

  // First attribute with this name, nullptr if absent.
  const std::string* attribute(std::string_view attribute_name) const;
};

struct XmlDocument {
  XmlElement system;                    // the first <system> element, version checked
  std::vector<std::string> info_lines;  // NCCL's INFO lines while parsing, in order
  std::vector<std::string> notes;       // things worth telling the user (e.g. a second <system>)
};

// `source_name` names the file in errors and in NCCL's "Loading topology file" line.
XmlDocument read_topology_xml(std::string_view text, const std::string& source_name);

// NCCL's handler tables: does NCCL keep a <child> under <parent> ("" = top level)?
bool nccl_keeps_child(std::string_view parent, std::string_view child);

// 1-based line of a byte offset.
long line_of_offset(std::string_view text, std::size_t offset);

}  // namespace linkscope::topo

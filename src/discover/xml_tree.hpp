#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace linkscope::discover {

// A node of an NCCL topology XML under construction. Attributes keep insertion order, because NCCL's dump
// writes them in the order they were set.
struct XmlNode {
  std::string name;
  std::vector<std::pair<std::string, std::string>> attributes;
  std::vector<XmlNode*> children;
  XmlNode* parent = nullptr;
  bool removed = false;

  const std::string* attribute(std::string_view key) const;
  void set(const std::string& key, const std::string& value);   // NCCL xmlSetAttr: replace in place or append
  void init(const std::string& key, const std::string& value);  // NCCL xmlInitAttr: only when absent
  void unset(std::string_view key);
  XmlNode* first_child(std::string_view child_name) const;
  XmlNode* child_with(std::string_view child_name, std::string_view key, std::string_view value) const;
};

// The node arena of one topology XML, with NCCL's semantics (src/graph/xml.{h,cc}): nodes are kept in
// creation order, which is the order NCCL's "find the first <cpu>" and "find <pci busid=...>" searches
// use; a node may exist detached until it is attached to its parent.
class XmlDocument {
 public:
  XmlDocument() = default;
  XmlDocument(const XmlDocument&) = delete;
  XmlDocument& operator=(const XmlDocument&) = delete;
  XmlDocument(XmlDocument&&) = default;
  XmlDocument& operator=(XmlDocument&&) = default;

  // A new node, appended to `parent`'s children (or detached when parent is null).
  XmlNode* create(const std::string& name, XmlNode* parent);
  // Attaches a detached node to `parent` at `position` (clamped to the end).
  void attach(XmlNode* node, XmlNode* parent, std::size_t position);
  XmlNode* root() const;  // the first <system>
  XmlNode* find_first(std::string_view name) const;
  XmlNode* find_first_with(std::string_view name, std::string_view key, std::string_view value) const;

  // NCCL ncclTopoTrimXml: drops the "keep" attributes, and pci/cpu/nic/net branches without a kept node.
  void trim();
  // NCCL ncclTopoFuseXml: merges `other`'s tree into this one; a child matches an existing child with the
  // same name and identical attributes, otherwise it is appended with its subtree.
  void fuse(const XmlDocument& other);
  // NCCL's dump format (ncclTopoDumpXmlToFile): two-space indent, attributes in order, "/>" for leaves.
  std::string dump() const;

 private:
  XmlNode* copy_tree(const XmlNode& source, XmlNode* parent);
  void fuse_children(XmlNode* destination, const XmlNode& source);
  std::vector<std::unique_ptr<XmlNode>> nodes_;
};

}  // namespace linkscope::discover

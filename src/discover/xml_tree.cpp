#include "discover/xml_tree.hpp"

#include <algorithm>

namespace linkscope::discover {

const std::string* XmlNode::attribute(std::string_view key) const {
  for (const auto& [k, v] : attributes) {
    if (k == key) return &v;
  }
  return nullptr;
}

void XmlNode::set(const std::string& key, const std::string& value) {
  for (auto& [k, v] : attributes) {
    if (k == key) {
      v = value;
      return;
    }
  }
  attributes.emplace_back(key, value);
}

void XmlNode::init(const std::string& key, const std::string& value) {
  if (attribute(key) == nullptr) attributes.emplace_back(key, value);
}

void XmlNode::unset(std::string_view key) {
  attributes.erase(std::remove_if(attributes.begin(), attributes.end(), [&](const auto& kv) { return kv.first == key; }),
                   attributes.end());
}

XmlNode* XmlNode::first_child(std::string_view child_name) const {
  for (XmlNode* child : children) {
    if (child->name == child_name) return child;
  }
  return nullptr;
}

XmlNode* XmlNode::child_with(std::string_view child_name, std::string_view key, std::string_view value) const {
  for (XmlNode* child : children) {
    const std::string* v = child->attribute(key);
    if (child->name == child_name && v != nullptr && *v == value) return child;
  }
  return nullptr;
}

XmlNode* XmlDocument::create(const std::string& name, XmlNode* parent) {
  nodes_.push_back(std::make_unique<XmlNode>());
  XmlNode* node = nodes_.back().get();
  node->name = name;
  if (parent != nullptr) {
    node->parent = parent;
    parent->children.push_back(node);
  }
  return node;
}

void XmlDocument::attach(XmlNode* node, XmlNode* parent, std::size_t position) {
  node->parent = parent;
  position = std::min(position, parent->children.size());
  parent->children.insert(parent->children.begin() + static_cast<std::ptrdiff_t>(position), node);
}

XmlNode* XmlDocument::root() const { return find_first("system"); }

XmlNode* XmlDocument::find_first(std::string_view name) const {
  for (const auto& node : nodes_) {
    if (!node->removed && node->name == name) return node.get();
  }
  return nullptr;
}

XmlNode* XmlDocument::find_first_with(std::string_view name, std::string_view key, std::string_view value) const {
  for (const auto& node : nodes_) {
    const std::string* v = node->attribute(key);
    if (!node->removed && node->name == name && v != nullptr && *v == value) return node.get();
  }
  return nullptr;
}

namespace {

// Returns how many kept nodes the subtree holds; removes empty pci/cpu/nic/net branches (xml.cc TrimXmlRec).
int trim_node(XmlNode* node) {
  if (const std::string* keep = node->attribute("keep"); keep != nullptr && *keep == "1") {
    node->unset("keep");
    return 1;
  }
  int kept = 0;
  const std::vector<XmlNode*> children = node->children;  // trimming edits the list
  for (XmlNode* child : children) kept += trim_node(child);
  const bool prunable = node->name == "pci" || node->name == "cpu" || node->name == "nic" || node->name == "net";
  if (kept == 0 && prunable) {
    node->removed = true;
    if (node->parent != nullptr) {
      auto& siblings = node->parent->children;
      siblings.erase(std::remove(siblings.begin(), siblings.end(), node), siblings.end());
    }
  }
  return kept;
}

void dump_node(const XmlNode& node, int indent, std::string& out) {
  out.append(static_cast<std::size_t>(indent), ' ');
  out += '<';
  out += node.name;
  for (const auto& [key, value] : node.attributes) {
    out += ' ';
    out += key;
    out += "=\"";
    out += value;
    out += '"';
  }
  if (node.children.empty()) {
    out += "/>\n";
    return;
  }
  out += ">\n";
  for (const XmlNode* child : node.children) dump_node(*child, indent + 2, out);
  out.append(static_cast<std::size_t>(indent), ' ');
  out += "</" + node.name + ">\n";
}

bool same_element(const XmlNode& a, const XmlNode& b) {
  if (a.name != b.name || a.attributes.size() != b.attributes.size()) return false;
  for (const auto& [key, value] : b.attributes) {
    const std::string* mine = a.attribute(key);
    if (mine == nullptr || *mine != value) return false;
  }
  return true;
}

}  // namespace

void XmlDocument::trim() {
  if (XmlNode* top = root()) trim_node(top);
}

XmlNode* XmlDocument::copy_tree(const XmlNode& source, XmlNode* parent) {
  XmlNode* copy = create(source.name, parent);
  copy->attributes = source.attributes;
  for (const XmlNode* child : source.children) copy_tree(*child, copy);
  return copy;
}

void XmlDocument::fuse_children(XmlNode* destination, const XmlNode& source) {
  for (const XmlNode* child : source.children) {
    XmlNode* match = nullptr;
    for (XmlNode* candidate : destination->children) {
      if (same_element(*candidate, *child)) {
        match = candidate;
        break;
      }
    }
    if (match == nullptr) {
      copy_tree(*child, destination);
    } else {
      fuse_children(match, *child);
    }
  }
}

void XmlDocument::fuse(const XmlDocument& other) {
  const XmlNode* source = other.root();
  if (source == nullptr) return;
  XmlNode* destination = root();
  if (destination == nullptr) {
    copy_tree(*source, nullptr);
    return;
  }
  fuse_children(destination, *source);
}

std::string XmlDocument::dump() const {
  std::string out;
  if (const XmlNode* top = root()) dump_node(*top, 0, out);
  return out;
}

}  // namespace linkscope::discover

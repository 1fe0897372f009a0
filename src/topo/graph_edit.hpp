#pragma once
// NCCL's graph primitives (topo.cc): node creation with its limits, link insertion that keeps each
// node's links sorted by bandwidth, node removal, the "up-link last" sort, and the PCI walk to the local CPU.
// Link order decides BFS ties and print order, so these follow NCCL step by step.
#include <stdexcept>
#include <string>

#include "topo/topo_types.hpp"

namespace linkscope::topo {

// A condition under which NCCL stops building or searching. `line` is the XML line when known (0 otherwise);
// the loader turns it into an InputError "FILE:LINE: what".
class ModelError : public std::runtime_error {
 public:
  ModelError(long line, const std::string& what) : std::runtime_error(what), line_(line) {}
  long line() const { return line_; }

 private:
  long line_;
};

// ncclTopoCreateNode: appends a node (index order = creation order); fails past 576 nodes of one type.
NodeRef create_node(TopoSystem& system, int type, int64_t id, long xml_line);

// ncclTopoConnectNodes: adds `bw` to an existing link of that type to `to`, or appends one; then moves the link
// forward while the previous link's bw is strictly smaller (stable, descending). Fails past 576 links.
void connect_nodes(TopoSystem& system, NodeRef from, NodeRef to, int link_type, float bw);

// ncclTopoRemoveNode: drops every link to the node and renumbers later nodes of its type.
void remove_node(TopoSystem& system, NodeRef node);

// ncclTopoSortSystem: from each CPU down the PCI tree, move each node's first link to its parent to the end.
void sort_system(TopoSystem& system);

// findLocalCpu: depth-first along PCI links to PCI/CPU nodes (never back to `from`); invalid ref if none.
NodeRef find_local_cpu_by_pci(const TopoSystem& system, NodeRef node);

}  // namespace linkscope::topo

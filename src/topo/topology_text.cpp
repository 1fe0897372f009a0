#include "topo/topology_model.hpp"
namespace linkscope::topo {
std::string render_topology_text(const TopologyModel&) { return {}; }
}

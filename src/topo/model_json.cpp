#include "topo/topology_model.hpp"
namespace linkscope::topo {
nlohmann::json model_to_json(const TopologyModel&) { return nlohmann::json::object(); }
}

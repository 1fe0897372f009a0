#include "model/host_copy_kind.hpp"

namespace linkscope::model {

bool is_host_latency(const LatencyPoint& point) { return point.src == kHostEndpoint || point.dst == kHostEndpoint; }

std::string host_copy_method(const HostPoint& point) {
  const auto it = point.extra.find("method");
  return it != point.extra.end() && it->is_string() ? it->get<std::string>() : "ce";
}

bool host_copy_bidirectional(const HostPoint& point) {
  const auto it = point.extra.find("bidirectional");
  return it != point.extra.end() && it->is_boolean() && it->get<bool>();
}

std::string host_copy_kind(const HostPoint& point) {
  const std::string method = host_copy_method(point);
  const std::string label = method == "sm" ? "SM" : method == "ce" ? "CE" : method;
  return host_copy_bidirectional(point) ? label + " both ways" : label;
}

}  // namespace linkscope::model

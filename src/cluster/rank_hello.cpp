#include "cluster/rank_hello.hpp"

#include "core/error.hpp"

namespace linkscope::cluster {

nlohmann::json hello_to_json(const RankHello& hello) {
  return {{"rank", hello.rank},
          {"host", hello.host.name},
          {"hostname", hello.host.hostname},
          {"host_source", hello.host.source},
          {"pid", hello.pid},
          {"version", hello.version},
          {"git", hello.git},
          {"arguments", hello.arguments},
          {"local_rank", hello.local_rank},
          {"cuda_device", hello.cuda_device ? nlohmann::json(*hello.cuda_device) : nlohmann::json(nullptr)},
          {"cuda_device_reason", hello.cuda_device_reason},
          {"error", hello.error},
          {"error_exit_code", hello.error_exit_code}};
}

RankHello hello_from_json(const nlohmann::json& json) {
  try {
    RankHello hello;
    hello.rank = json.at("rank").get<int>();
    hello.host.name = json.at("host").get<std::string>();
    hello.host.hostname = json.at("hostname").get<std::string>();
    hello.host.source = json.at("host_source").get<std::string>();
    hello.pid = json.at("pid").get<int>();
    hello.version = json.at("version").get<std::string>();
    hello.git = json.at("git").get<std::string>();
    hello.arguments = json.at("arguments").get<std::vector<std::string>>();
    hello.local_rank = json.at("local_rank").get<int>();
    if (!json.at("cuda_device").is_null()) hello.cuda_device = json.at("cuda_device").get<int>();
    hello.cuda_device_reason = json.at("cuda_device_reason").get<std::string>();
    hello.error = json.at("error").get<std::string>();
    hello.error_exit_code = json.at("error_exit_code").get<int>();
    return hello;
  } catch (const nlohmann::json::exception& e) {
    throw Error(ExitCode::kInternal, std::string("malformed rank greeting: ") + e.what());
  }
}

}  // namespace linkscope::cluster

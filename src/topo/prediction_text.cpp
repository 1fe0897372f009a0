#include "topo/prediction_text.hpp"

#include <fmt/format.h>

#include "core/size.hpp"
#include "core/text_table.hpp"
#include "plan/collective_spec.hpp"
#include "topo/topology_model.hpp"

namespace linkscope::topo {

std::string render_prediction_table(const CommunicatorModel& comm, const std::vector<int>& funcs) {
  if (!comm.unavailable.empty()) return "No prediction: " + comm.unavailable + "\n";
  if (!comm.tuning.error.empty()) {
    return fmt::format("No prediction: NCCL refuses {} ({})\n", comm.tuning.error_variable, comm.tuning.error);
  }
  if (comm.n_ranks == 1) {
    return "One rank: NCCL copies the buffer itself (ncclLaunchOneRank); no algorithm or protocol is chosen.\n";
  }
  const ChannelSetup& setup = comm.channels;
  std::string text = fmt::format(
      "NCCL {} default tuner, {} rank{} on one node (NVLS and CollNet off): {} channels; ring {} x {:.1f} GB/s ({}), "
      "tree {} x {:.1f} GB/s ({}, pattern {})\n",
      modelled_version_label(comm.version), comm.n_ranks, comm.n_ranks == 1 ? "" : "s", setup.coll_channels, comm.ring.n_channels,
      comm.ring.bw_intra, path_type_name(comm.ring.type_intra), comm.tree.n_channels, comm.tree.bw_intra,
      path_type_name(comm.tree.type_intra), comm.tree.pattern);
  for (const int func : funcs) {
    const coll::CollectiveOp op = collective_op(func);
    text += fmt::format("\n{} (busbw = algbw x {:.3f})\n", coll::op_name(op), coll::bus_factor(op, comm.n_ranks));
    std::vector<std::vector<std::string>> rows = {
        {"size", "bytes", "algorithm", "protocol", "channels", "time (us)", "algbw (GB/s)", "busbw (GB/s)"}};
    for (const AlgoChoice& choice : predict_collective(comm, func)) {
      if (!choice.ok) {
        rows.push_back({format_size(choice.size), std::to_string(choice.bytes),
                        fmt::format("none: {}", nccl_result_text(choice.nccl_result))});
        continue;
      }
      rows.push_back({format_size(choice.size), std::to_string(choice.bytes), algo_name(choice.algorithm),
                      proto_name(choice.protocol), std::to_string(choice.channels),
                      fmt::format("{:.2f}", choice.time_us), fmt::format("{:.2f}", choice.algbw_gbps),
                      fmt::format("{:.2f}", choice.busbw_gbps)});
    }
    text += aligned_table(rows, "  ");
  }
  return text;
}

}  // namespace linkscope::topo

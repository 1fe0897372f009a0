// nccl-hint: NCCL itself printed a diagnostic "HINT:" (NCCL 2.30.7, after an InfiniBand completion or queue-pair error
// or a faulty topology file). The hint is NCCL's own reading of the error; the finding quotes it and turns its advice
// into the next step. Only the first hint of a burst names the cause (NCCL's completion-error hints fall through).
#include <array>
#include <set>

#include <fmt/format.h>

#include "diagnose/rules.hpp"

namespace linkscope::diagnose {

namespace {

struct HintMeaning {
  std::string_view kind;
  std::string_view cause;
  std::string_view next_command;
};

// The advice of each hint NCCL 2.30.7 prints (net_ib/common.h, misc/ibvwrap.cc, graph/xml.h), as a step to take.
constexpr std::array<HintMeaning, 6> kMeanings{{
    {"acs-gdr",
     "PCIe Access Control Services (ACS) enabled on a switch between the GPU and the NIC: peer-to-peer DMA is "
     "redirected to the root complex and GPUDirect RDMA fails",
     "sudo lspci -vvv | grep -i acsctl   # ACS on the PCIe switches; NCCL_NET_GDR_LEVEL=0 confirms it, then disable "
     "ACS as the vendor documents"},
    {"nic-same-instance", "NICs of the same host cannot reach each other over the fabric",
     "ibstat   # every port Active on one fabric; then mpirun -npernode 1 linkscope cluster"},
    {"ib-timeout", "NCCL_IB_TIMEOUT too short for this fabric (default 20, about 30 s before the error)",
     "mpirun -npernode 1 -x NCCL_IB_TIMEOUT=22 linkscope cluster   # a larger timeout; no error confirms it"},
    {"cross-rail", "the NICs are not connected across rails, and NCCL sent traffic between rails",
     "mpirun -npernode 1 -x NCCL_CROSS_NIC=0 linkscope cluster   # traffic kept on one rail; no error confirms it"},
    {"ib-gid-index", "NCCL_IB_GID_INDEX forces a GID index this port does not have",
     "mpirun -npernode 1 -x NCCL_IB_GID_INDEX=-1 linkscope cluster   # automatic GID detection"},
    {"topology-file", "the topology file given to NCCL (NCCL_TOPO_FILE) misses or mis-states information",
     "NCCL_TOPO_DUMP_FILE=topo.xml all_reduce_perf -g 2 && linkscope topo --xml topo.xml   # compare with the file "
     "given"},
}};

const HintMeaning* meaning_of(const std::string& kind) {
  for (const auto& meaning : kMeanings) {
    if (meaning.kind == kind) return &meaning;
  }
  return nullptr;
}

}  // namespace

std::optional<Finding> rule_nccl_hint(const Context& context) {
  Finding finding;
  finding.id = "nccl-hint";
  finding.severity = Severity::kWarning;
  const model::NcclHint* first = nullptr;
  std::set<std::string> kinds;
  const auto add = [&](const std::vector<model::NcclHint>& hints, const std::string& where) {
    for (const auto& hint : hints) {
      if (!hint.primary) continue;
      if (first == nullptr) first = &hint;
      kinds.insert(hint.kind);
      finding.evidence.push_back(fmt::format("{}: HINT: {}{}", where, hint.text,
                                             hint.count > 1 ? fmt::format(" ({} times)", hint.count) : ""));
      for (const auto& advice : hint.advice) finding.evidence.push_back("  HINT: " + advice);
    }
  };
  for (const auto& run : context.evidence.run.runtime.runs) {
    add(run.info.hints, run.context.empty() ? "NCCL" : "NCCL in " + run.context);
  }
  if (const auto& cross = context.evidence.run.measurements.cross_host) {
    const auto host = [&](int index) {
      return index >= 0 && index < static_cast<int>(cross->hosts.size()) ? cross->hosts[static_cast<std::size_t>(index)]
                                                                         : "host " + std::to_string(index);
    };
    for (const auto& pair : cross->pairs) {
      for (const auto* end : {&pair.a, &pair.b}) {
        add(end->hints, fmt::format("NCCL on {} (rank {}) between {} and {}", host(end->host), end->rank,
                                    host(pair.a.host), host(pair.b.host)));
      }
    }
  }
  if (first == nullptr) return std::nullopt;
  finding.title = kinds.size() == 1 ? "NCCL printed a hint about its error: " + first->text
                                    : fmt::format("NCCL printed {} hints about its errors", kinds.size());
  finding.explanation =
      "NCCL prints a HINT after an error it recognises (an InfiniBand completion or queue-pair error, a topology file "
      "it cannot read): its own reading of the likely cause and how to confirm it.";
  const HintMeaning* meaning = meaning_of(first->kind);
  finding.cause = meaning != nullptr ? std::string(meaning->cause) : "";
  finding.next_command = meaning != nullptr
                             ? std::string(meaning->next_command)
                             : "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET all_reduce_perf -g 2   # the error before the hint";
  finding.numbers = {{"hints", finding.evidence.size()}, {"first_kind", first->kind}};
  return finding;
}

}  // namespace linkscope::diagnose

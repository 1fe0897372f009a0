#include "report/four_numbers_rows.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "core/text.hpp"
#include "diagnose/measured_summary.hpp"

namespace linkscope::report {

namespace {

std::vector<int> gpu_ids(const diagnose::Evidence& evidence) {
  std::vector<int> ids = evidence.visible_ordinals();
  if (ids.empty()) {
    for (const auto& gpu : evidence.model_gpus) {
      if (gpu.rank()) ids.push_back(*gpu.rank());
    }
    std::sort(ids.begin(), ids.end());
  }
  return ids;
}

// Copy column: CE preferred, at the largest size the type's pairs were measured at.
void fill_copy(const diagnose::Evidence& evidence, FourNumbersRow& row) {
  for (const char* method : {"ce", "sm_read", "sm_write"}) {
    std::map<std::uint64_t, std::vector<double>> by_size;
    for (const model::CopyPoint* p : evidence.p2p) {
      if (!diagnose::copy_ok(*p) || p->method != method || p->direction != "uni") continue;
      const std::pair<int, int> key{std::min(p->src, p->dst), std::max(p->src, p->dst)};
      if (std::find(row.pairs.begin(), row.pairs.end(), key) != row.pairs.end()) {
        by_size[p->bytes].push_back(diagnose::copy_gbps(*p));
      }
    }
    if (by_size.empty()) continue;
    const auto& [bytes, values] = *by_size.rbegin();
    row.copy_gbps = median_of(values);
    row.copy_what = fmt::format("{} copy at {}, median of {} directed pair(s) (measured)", method_label(method),
                                format_bytes(bytes), values.size());
    return;
  }
  row.copy_what = evidence.p2p_measured ? "no copy of this pair type measured ok" : "not measured in this run";
}

}  // namespace

std::vector<FourNumbersRow> four_numbers(const ReportData& data) {
  const diagnose::Evidence& evidence = data.evidence;
  const std::vector<int> ids = gpu_ids(evidence);
  std::vector<FourNumbersRow> rows;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    for (std::size_t j = i + 1; j < ids.size(); ++j) {
      const std::string type = evidence.pair_type(ids[i], ids[j]);
      auto it = std::find_if(rows.begin(), rows.end(), [&](const FourNumbersRow& r) { return r.pair_type == type; });
      if (it == rows.end()) {
        rows.push_back({});
        rows.back().pair_type = type;
        it = rows.end() - 1;
      }
      it->pairs.push_back({ids[i], ids[j]});
    }
  }

  const auto slowest = evidence.slowest_link_rate();
  const auto largest_points = diagnose::largest_collective_points(evidence, 0);
  std::optional<diagnose::CollectiveRef> busbw;
  for (const auto& point : largest_points) {
    if (point.op() == "all_reduce") busbw = point;
  }
  if (!busbw && !largest_points.empty()) busbw = largest_points.front();

  for (auto& row : rows) {
    // Link status rate: the slowest pair of this type.
    for (const auto& [a, b] : row.pairs) {
      const auto rate = evidence.link_rate(a, b);
      if (rate && (!row.link_rate_gbps || rate->gbps < *row.link_rate_gbps)) {
        row.link_rate_gbps = rate->gbps;
        row.link_rate_what = rate->basis + " (link status from NVML), per direction";
      }
    }
    if (!row.link_rate_gbps) row.link_rate_what = "no link facts (system section absent)";

    // NCCL's model weight for the path.
    for (const auto& [a, b] : row.pairs) {
      const auto weight = evidence.model_path_bw(a, b);
      if (weight && (!row.model_weight || *weight < *row.model_weight)) {
        row.model_weight = weight;
        row.model_weight_what = fmt::format("{} path weight in NCCL's graph: a search weight, not a bandwidth",
                                            evidence.model_path_type(a, b));
      }
    }
    if (!row.model_weight) {
      row.model_weight_what = evidence.topology.present ? "pair not in NCCL's model" : "no model in this run";
    }

    fill_copy(evidence, row);

    // busbw belongs to the whole communicator; show it on the pair type that bounds it.
    const bool bounds = rows.size() == 1 || (slowest && row.link_rate_gbps && *row.link_rate_gbps <= slowest->gbps);
    if (busbw && bounds) {
      row.busbw_gbps = busbw->busbw();
      row.busbw_what = fmt::format("{} at {} over {} ranks (measured; the collective spans every GPU{})", busbw->op(),
                                   format_bytes(busbw->point->bytes), busbw->series->nranks,
                                   rows.size() > 1 ? ", bounded by this slowest pair type" : "");
    } else if (busbw) {
      row.busbw_what = "see the slowest pair type (a collective spans every GPU)";
    } else {
      row.busbw_what = evidence.collectives_measured ? "no collective measured ok" : "not measured in this run";
    }
  }
  return rows;
}

std::string key_numbers_text(const FourNumbersRow& row, const std::string& separator) {
  auto value = [](const std::optional<double>& v) { return v ? format_gbps(*v) : std::string("n/a"); };
  auto share = [&](const std::optional<double>& v) {
    return v && row.link_rate_gbps ? " (" + format_percent(*v / *row.link_rate_gbps) + ")" : std::string();
  };
  return "link " + value(row.link_rate_gbps) + separator + "NCCL weight " +
         (row.model_weight ? format_number(*row.model_weight) : std::string("n/a")) + separator + "P2P copy " +
         value(row.copy_gbps) + share(row.copy_gbps) + separator + "busbw " + value(row.busbw_gbps) +
         share(row.busbw_gbps);
}

}  // namespace linkscope::report

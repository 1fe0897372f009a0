// `linkscope coll`'s own table (report/collective_text): the header states how times were sampled, the footer the
// transports NCCL used and the wall time, and a saved coll run prints the same table as the live command.
#include <gtest/gtest.h>

#include "golden/saved_run.hpp"
#include "model/coll_sampling.hpp"
#include "report/collective_text.hpp"

namespace linkscope::report {
namespace {

model::CollectivePoint point(std::uint64_t bytes, bool in_place, double median_us, double busbw) {
  model::CollectivePoint p;
  p.requested_bytes = p.bytes = bytes;
  p.count = bytes / 4;
  p.in_place = in_place;
  p.samples = 12;
  p.iterations = 240;
  p.time = model::TimeSummary{median_us, median_us * 0.98, median_us * 1.05, median_us, 0.012, 0.004};
  p.algbw_gbps = busbw / 2;
  p.busbw_gbps = busbw;
  p.wrong = 0;
  return p;
}

model::CollectiveSeries series(coll::CollectiveOp op) {
  model::CollectiveSeries s;
  s.op = op;
  s.nranks = 2;
  s.nccl_call = op == coll::CollectiveOp::kAllReduce ? "ncclAllReduce" : "ncclAlltoAll";
  return s;
}

model::NcclConnection connection(int rank, int peer, int channel) {
  model::NcclConnection c;
  c.rank = rank;
  c.peer = peer;
  c.channel = channel;
  c.transport = "P2P/CUMEM";
  c.detail = "read";
  return c;
}

// A two-op coll run as the live command records it (one failed point), with its NCCL log's connections.
model::Run coll_run(model::NcclRuntimeInfo& info) {
  model::Run run = model::make_run("coll", {"linkscope", "coll", "all_reduce", "-b", "1M", "-e", "1G"});
  auto all_reduce = series(coll::CollectiveOp::kAllReduce);
  all_reduce.points = {point(1 << 20, false, 19.6, 107.0), point(1 << 20, true, 19.9, 105.4),
                       point(1 << 30, false, 6229.0, 344.7), point(1 << 30, true, 6231.5, 344.6)};
  auto alltoall = series(coll::CollectiveOp::kAlltoAll);
  alltoall.points = {point(1 << 20, false, 20.1, 52.2)};
  model::CollectivePoint failed;
  failed.requested_bytes = 1 << 30;
  failed.status = "timeout";
  failed.reason = "no progress for 60 s";
  alltoall.points.push_back(failed);
  run.measurements.collectives = std::vector<model::CollectiveSeries>{all_reduce, alltoall};
  model::put_coll_sampling(run.config, {std::nullopt, 0, 0.05, 2.0});
  run.config.measured_seconds = 7.2;
  info.nranks = 2;
  info.connections = {connection(0, 1, 0), connection(1, 0, 0)};
  model::RuntimeRun runtime;
  runtime.context = "coll all_reduce";
  runtime.info = info;
  run.runtime.runs.push_back(runtime);
  return run;
}

// What the live command prints as sizes finish: a header when a series starts, its rows, the footer at the end.
std::string live_text(const model::Run& run, const model::NcclRuntimeInfo& info) {
  const std::string sampling = render_sampling_text({std::nullopt, 0, 0.05, 2.0});
  std::string out;
  for (const auto& s : *run.measurements.collectives) {
    if (!out.empty()) out += kCollectiveSeriesSeparator;
    out += render_collective_header(s, sampling);
    for (const auto& p : s.points) out += render_collective_row(p);
  }
  return out + render_collective_footer(*run.measurements.collectives, {7.2, transport_summary_text(info)});
}

TEST(CollectiveText, ASavedCollRunPrintsTheLiveTable) {
  model::NcclRuntimeInfo info;
  const model::Run run = coll_run(info);
  const std::string live = live_text(run, info);
  EXPECT_NE(live.find("adaptive: until the median's 95% CI is within 5% or 2 s per size\n"), std::string::npos) << live;
  EXPECT_NE(live.find("#\n# alltoall float: 2 ranks"), std::string::npos) << live;
  EXPECT_NE(live.find("timeout: no progress for 60 s\n"), std::string::npos) << live;
  EXPECT_NE(live.find("# NCCL transport: P2P/CUMEM/read (2 connections)\n# wall time 7.20 s\n"), std::string::npos) << live;
  EXPECT_EQ(render_coll_text(run), live);
  test::expect_report_prints_the_live_text(run, live);
}

TEST(CollectiveText, FooterFactsComeFromTheRun) {
  model::NcclRuntimeInfo info;
  model::Run run = coll_run(info);
  EXPECT_EQ(collective_summary(run).transport, "P2P/CUMEM/read (2 connections)");
  EXPECT_DOUBLE_EQ(collective_summary(run).wall_s, 7.2);
  run.runtime.runs.front() = model::RuntimeRun::not_recorded("coll all_reduce", "NCCL_DEBUG was set by the user");
  EXPECT_EQ(collective_summary(run).transport, "") << "an unrecorded log names no transport";
  model::NcclRuntimeInfo one_rank;
  one_rank.nranks = 1;
  EXPECT_EQ(transport_summary_text(one_rank), "none (one rank)");
}

// One rank: no peak busbw line (a local copy is no link), a sentence saying why instead; two ranks print the peak.
TEST(CollectiveText, OneRankFooterPrintsNoPeakBusbw) {
  auto s = series(coll::CollectiveOp::kAllReduce);
  s.points = {point(1 << 30, false, 6229.0, 344.7)};
  const std::string two = render_collective_footer({s}, {1.0, ""});
  EXPECT_NE(two.find("# peak busbw 344.70 GB/s"), std::string::npos) << two;
  s.nranks = 1;
  const std::string one = render_collective_footer({s}, {1.0, ""});
  EXPECT_EQ(one.find("peak busbw"), std::string::npos) << one;
  EXPECT_NE(one.find("# one rank: no data crosses a link"), std::string::npos) << one;
}

TEST(CollectiveText, SamplingSentences) {
  EXPECT_EQ(render_sampling_text({20, 0, 0, 0}), "20 timed iterations per size");
  EXPECT_EQ(render_sampling_text({20, 5, 0, 0}), "5 CUDA graph launches of 20 operations each");
  EXPECT_EQ(render_sampling_text({std::nullopt, 3, 0.01, 1.0}),
            "adaptive: until the median's 95% CI is within 1% or 1 s per size (one sample per CUDA graph launch)");
  model::Config config;
  config.extra = {{"coll", {{"format", "text"}, {"sizes_bytes", {1024}}}}};
  model::put_coll_sampling(config, {20, 5, 0.01, 1.0});
  EXPECT_EQ(config.extra["coll"]["format"], "text") << "the other settings stay";
  const model::CollSampling read = model::coll_sampling(config);
  EXPECT_EQ(read.fixed_iters, std::optional<std::uint64_t>(20));
  EXPECT_EQ(read.graph_launches, 5);
  EXPECT_DOUBLE_EQ(read.target_ci, 0.01);
  EXPECT_DOUBLE_EQ(read.max_time_s, 1.0);
}

}  // namespace
}  // namespace linkscope::report

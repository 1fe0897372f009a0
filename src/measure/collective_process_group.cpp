#include "measure/collective_process_group.hpp"

#include "platform/mpi_session.hpp"

namespace linkscope::measure {

namespace {

platform::MpiSession::Op to_session(ProcessGroup::Op op) {
  switch (op) {
    case ProcessGroup::Op::kSum: return platform::MpiSession::Op::kSum;
    case ProcessGroup::Op::kMin: return platform::MpiSession::Op::kMin;
    case ProcessGroup::Op::kMax: return platform::MpiSession::Op::kMax;
  }
  return platform::MpiSession::Op::kSum;
}

class MpiProcessGroup final : public ProcessGroup {
 public:
  explicit MpiProcessGroup(platform::MpiSession& session) : session_(session) {}
  int rank() const override { return session_.rank(); }
  int size() const override { return session_.size(); }
  void allreduce(std::vector<double>& values, Op op) override {
    session_.allreduce(values.data(), values.size(), to_session(op));
  }
  void allreduce(std::vector<long long>& values, Op op) override {
    session_.allreduce(values.data(), values.size(), to_session(op));
  }
  void broadcast(void* data, std::size_t bytes, int root) override { session_.broadcast(data, bytes, root); }
  std::vector<std::string> gather(const std::string& text) override { return session_.gather(text, 0); }
  void barrier() override { session_.barrier(); }
  bool blocks_without_deadline() const override { return true; }

 private:
  platform::MpiSession& session_;
};

}  // namespace

std::unique_ptr<ProcessGroup> make_mpi_process_group(platform::MpiSession& session) {
  return std::make_unique<MpiProcessGroup>(session);
}

ProcessSplit split_processes(const coll::SplitRule& rule, ProcessGroup& group) {
  ProcessSplit split;
  split.colors.assign(static_cast<std::size_t>(group.size()), 0);
  if (rule.kind != coll::SplitRule::Kind::kNone && group.size() > 1) {
    std::vector<long long> colors(split.colors.size(), 0);  // an all-gather: each process fills its own slot
    colors[static_cast<std::size_t>(group.rank())] = coll::split_color(rule, group.rank());
    group.allreduce(colors, ProcessGroup::Op::kSum);
    for (std::size_t r = 0; r < colors.size(); ++r) split.colors[r] = static_cast<int>(colors[r]);
  }
  split.mine = coll::color_group(split.colors, group.rank());
  return split;
}

}  // namespace linkscope::measure

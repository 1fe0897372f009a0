#include "cluster/job_member_group.hpp"

#include <algorithm>
#include <cstring>

#include "core/error.hpp"

namespace linkscope::cluster {

namespace {

class MemberGroup final : public measure::ProcessGroup {
 public:
  MemberGroup(platform::MpiSession& mpi, std::vector<int> members, double timeout_s, std::string what)
      : mpi_(mpi), members_(std::move(members)), timeout_s_(timeout_s), what_(std::move(what)) {
    const auto me = std::find(members_.begin(), members_.end(), mpi_.rank());
    if (me == members_.end()) throw Error(ExitCode::kInternal, "a process group without this rank");
    index_ = static_cast<int>(me - members_.begin());
  }

  int rank() const override { return index_; }
  int size() const override { return static_cast<int>(members_.size()); }
  void allreduce(std::vector<double>& values, Op op) override { reduce(values, op); }
  void allreduce(std::vector<long long>& values, Op op) override { reduce(values, op); }

  void broadcast(void* data, std::size_t bytes, int root) override {
    const std::string mine = index_ == root ? std::string(static_cast<const char*>(data), bytes) : std::string();
    const std::string text = mpi_.broadcast_text(mine, members_.at(static_cast<std::size_t>(root)), members_, timeout_s_, what_);
    if (text.size() != bytes) throw Error(ExitCode::kInternal, "a broadcast of the wrong size");
    std::memcpy(data, text.data(), bytes);
  }

  std::vector<std::string> gather(const std::string& text) override {
    return mpi_.gather_text(text, members_.front(), members_, timeout_s_, what_);
  }

  void barrier() override {
    gather("");
    mpi_.broadcast_text("", members_.front(), members_, timeout_s_, what_);
  }

 private:
  template <typename T>
  void reduce(std::vector<T>& values, Op op) {
    const std::string mine(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
    std::string result;
    const auto parts = gather(mine);
    if (index_ == 0) {
      std::vector<T> total = values;
      for (std::size_t p = 1; p < parts.size(); ++p) {
        if (parts[p].size() != mine.size()) throw Error(ExitCode::kInternal, "a reduction of the wrong size");
        std::vector<T> other(values.size());
        std::memcpy(other.data(), parts[p].data(), parts[p].size());
        for (std::size_t i = 0; i < total.size(); ++i) {
          if (op == Op::kSum) total[i] += other[i];
          if (op == Op::kMin) total[i] = std::min(total[i], other[i]);
          if (op == Op::kMax) total[i] = std::max(total[i], other[i]);
        }
      }
      result.assign(reinterpret_cast<const char*>(total.data()), total.size() * sizeof(T));
    }
    result = mpi_.broadcast_text(result, members_.front(), members_, timeout_s_, what_);
    std::memcpy(values.data(), result.data(), std::min(result.size(), values.size() * sizeof(T)));
  }

  platform::MpiSession& mpi_;
  std::vector<int> members_;
  double timeout_s_;
  std::string what_;
  int index_ = 0;
};

}  // namespace

std::unique_ptr<measure::ProcessGroup> make_member_group(platform::MpiSession& mpi, std::vector<int> members,
                                                         double timeout_s, std::string what) {
  return std::make_unique<MemberGroup>(mpi, std::move(members), timeout_s, std::move(what));
}

}  // namespace linkscope::cluster

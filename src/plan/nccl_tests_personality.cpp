#include "plan/nccl_tests_personality.hpp"

#include "plan/collective_spec.hpp"

namespace linkscope::coll {

std::optional<std::string> nccl_tests_program_op(const std::string& program) {
  const auto slash = program.rfind('/');
  std::string name = slash == std::string::npos ? program : program.substr(slash + 1);
  const auto perf = name.find("_perf");
  if (perf == std::string::npos) return std::nullopt;
  // nccl-tests' NAME_SUFFIX builds (e.g. all_reduce_perf_mpi) keep the "_perf" stem.
  const std::string suffix = name.substr(perf + 5);
  if (!suffix.empty() && suffix[0] != '_') return std::nullopt;
  const std::string stem = name.substr(0, perf);
  for (CollectiveOp op : all_collective_ops()) {
    if (op_name(op) == stem) return stem;
  }
  return std::nullopt;
}

std::optional<std::vector<std::string>> nccl_tests_personality_args(const std::vector<std::string>& argv) {
  if (argv.empty()) return std::nullopt;
  const auto op = nccl_tests_program_op(argv[0]);
  if (!op) return std::nullopt;
  std::vector<std::string> args{argv[0], "coll", *op, kAsNcclTestsFlag};
  args.insert(args.end(), argv.begin() + 1, argv.end());
  return args;
}

}  // namespace linkscope::coll

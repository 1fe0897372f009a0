#pragma once
#include <optional>
#include <string>
#include <vector>

// linkscope invoked through a link named like an nccl-tests binary (all_reduce_perf, sendrecv_perf, ...)
// behaves as that binary: `all_reduce_perf -b 8 -e 8G -f 2 -g 2` runs
// `linkscope coll all_reduce --as-nccl-tests -b 8 -e 8G -f 2 -g 2`, where --as-nccl-tests selects
// nccl-tests' defaults and its text format.
namespace linkscope::coll {

// The hidden `coll` flag that selects nccl-tests' defaults (sizes 32M..32M, -n 20, -w 1, -a 1, text format).
inline constexpr const char* kAsNcclTestsFlag = "--as-nccl-tests";

// The collective an nccl-tests binary name stands for ("all_reduce_perf" and "all_reduce_perf_mpi" ->
// "all_reduce"); nothing for other names. Only the basename of `program` counts.
std::optional<std::string> nccl_tests_program_op(const std::string& program);

// The argument vector to parse instead of `argv` when argv[0] names an nccl-tests binary; nothing otherwise.
std::optional<std::vector<std::string>> nccl_tests_personality_args(const std::vector<std::string>& argv);

}  // namespace linkscope::coll

// `linkscope coll`, `linkscope ladder` and the nccl-tests personality, end to end on a machine without a GPU:
// bad input, missing NCCL, missing GPU, MPI bootstrap (dry run), exit codes and one-line errors.
#include <gtest/gtest.h>

#include <signal.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "support/background_command.hpp"
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

namespace linkscope {
namespace {

using test::run_command;

const std::string kBinary = LINKSCOPE_BINARY;
const std::string kBinDir = std::filesystem::path(kBinary).parent_path().string();
const char* kBogusNccl = "LINKSCOPE_NCCL_LIBRARY=/nonexistent/libnccl.so.2";

bool gpu_present() { return std::filesystem::exists("/dev/nvidiactl"); }

// One line on stderr, ending in a newline.
void expect_one_line(const std::string& err) {
  ASSERT_FALSE(err.empty());
  EXPECT_EQ(err.find('\n'), err.size() - 1) << "expected one line: " << err;
}

TEST(CollCli, HelpNamesTheNcclTestsFlags) {
  const auto r = run_command(kBinary, {"coll", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("-b,--minbytes"), std::string::npos);
  EXPECT_NE(r.out.find("--target-ci"), std::string::npos);
  EXPECT_NE(r.out.find("nccl-tests 2.19.6 flags"), std::string::npos);
  EXPECT_NE(r.out.find("-J,--output_file"), std::string::npos);
  EXPECT_NE(r.out.find("--linkscope-stats"), std::string::npos);
}

TEST(CollCli, UnknownOpTypeAndReductionAreUsageErrors) {
  auto r = run_command(kBinary, {"coll", "allreduse"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown collective 'allreduse'"), std::string::npos) << r.err;
  expect_one_line(r.err);
  r = run_command(kBinary, {"coll", "-d", "float128"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown data type 'float128'"), std::string::npos) << r.err;
  expect_one_line(r.err);
  r = run_command(kBinary, {"coll", "-o", "xor"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown reduction 'xor'"), std::string::npos) << r.err;
}

TEST(CollCli, MinimumAboveMaximumIsAUsageError) {
  const auto r = run_command(kBinary, {"coll", "-b", "1G", "-e", "1M"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("minimum size 1G (-b) is larger than maximum size 1M (-e)"), std::string::npos) << r.err;
  expect_one_line(r.err);
}

TEST(CollCli, BadNumbersAndConflictingOptions) {
  auto r = run_command(kBinary, {"coll", "-g", "0"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("-g 0"), std::string::npos) << r.err;
  r = run_command(kBinary, {"coll", "--format", "nccl-tests", "--target-ci", "0.05"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("fixed iteration count"), std::string::npos) << r.err;
  r = run_command(kBinary, {"coll", "--format", "xml"});
  EXPECT_EQ(r.exit_code, 2);
  r = run_command(kBinary, {"coll", "-b", "12Q"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("'12Q'"), std::string::npos) << r.err;
}

TEST(CollCli, MissingNcclIsADeviceErrorWithTheDlopenMessage) {
  const auto r = run_command(kBinary, {"coll", "-b", "1M", "-e", "1M"}, {kBogusNccl});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("NCCL library not found: dlopen(/nonexistent/libnccl.so.2) failed"), std::string::npos) << r.err;
  expect_one_line(r.err);
}

TEST(CollCli, NoGpuIsADeviceErrorInOneLine) {
  if (gpu_present()) GTEST_SKIP() << "this machine has a GPU";
  test::TempDir tmp;
  const auto r = run_command(kBinary, {"coll", "-b", "1M", "-e", "1M"}, {"TMPDIR=" + tmp.path()});
  EXPECT_TRUE(std::filesystem::is_empty(tmp.path())) << "the NCCL log directory is removed";
  if (r.err.find("NCCL library not found") != std::string::npos) GTEST_SKIP() << "no libnccl.so.2 on the loader path";
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("no usable CUDA GPU"), std::string::npos) << r.err;
  expect_one_line(r.err);
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(CollCli, DryRunShowsPlanNotesAndRounding) {
  const auto r = run_command(kBinary, {"coll", "all_gather", "-b", "8", "-e", "64", "-g", "2", "-c", "2", "--dry-run"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("all_gather, 1 type(s), 1 reduction(s), 4 size(s) 8..64 B"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("processes: 1 (single process), 2 GPU(s) each, 2 rank(s)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("-c 2: each size and placement is checked once"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("timing: linkscope's gated CUDA-event statistics"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("all_gather: 16 bytes do not split into 2 ranks x a multiple of 16 bytes; measuring 0 bytes"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("32 bytes do not split"), std::string::npos) << "32 B splits into 2 x 16 B";
  if (!gpu_present()) {
    EXPECT_NE(r.out.find("cannot run here: -g 2 needs GPUs 0..1"), std::string::npos) << r.out;
  }
}

TEST(CollCli, RuntimeLayerRespectsTheUsersNcclDebug) {
  const auto r = run_command(kBinary, {"coll", "--dry-run"}, {"NCCL_DEBUG=WARN"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("runtime layer: NCCL_DEBUG=WARN is set by the user; the runtime layer (NCCL's transports) is "
                       "not recorded"),
            std::string::npos)
      << r.out;
}

TEST(CollCli, NcclTestsBinaryNamesBehaveAsNcclTests) {
  const std::string all_reduce_perf = kBinDir + "/all_reduce_perf";
  ASSERT_TRUE(std::filesystem::exists(all_reduce_perf)) << "the build links nccl-tests names next to linkscope";
  auto r = run_command(all_reduce_perf, {"-b", "8", "-e", "4"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("minimum size 8 (-b) is larger than maximum size 4 (-e)"), std::string::npos) << r.err;
  // -b8 and -r -1 spellings parse; nccl-tests' default sweep is one size, 32M.
  r = run_command(kBinDir + "/broadcast_perf", {"-b8", "-e", "64", "-f", "2", "-r", "-1", "--dry-run"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("broadcast, 1 type(s), 1 reduction(s), 4 size(s) 8..64 B, out of place and in place"),
            std::string::npos)
      << r.out;
  r = run_command(kBinDir + "/sendrecv_perf", {"--dry-run"});
  EXPECT_NE(r.out.find("1 size(s) 33554432..33554432 B"), std::string::npos) << r.out;
  r = run_command(kBinDir + "/sendrecv_perf", {"-b", "8", "-e", "3M", "--dry-run"});
  EXPECT_NE(r.out.find("3 size(s) 8..2097160 B"), std::string::npos) << "additive 1M steps: " << r.out;
  r = run_command(kBinDir + "/alltoall_perf", {"-g", "2"}, {kBogusNccl});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("NCCL library not found"), std::string::npos) << r.err;
  r = run_command(kBinDir + "/gather_perf", {"-h"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("--minbytes"), std::string::npos);
}

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// -N 0 under an nccl-tests name repeats until a signal ends the process, as nccl-tests does, each cycle's lines
// printed (and flushed) as it runs; `linkscope coll`, which writes its Run at the end, still needs a number.
TEST(CollCli, NcclTestsNamesRepeatUntilSigintWithNZero) {
  auto r = run_command(kBinDir + "/all_reduce_perf", {"-N", "0", "--dry-run"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = run_command(kBinary, {"coll", "-N", "0", "--dry-run"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("-N 0 (repeat until a signal) is for the nccl-tests names"), std::string::npos) << r.err;
  if (!gpu_present()) GTEST_SKIP() << "measuring needs a GPU and NCCL";
  test::TempDir dir;
  const std::string out = dir.path() + "/out";
  // One size a cycle: every cycle prints its row of 8-byte all_reduce.
  test::BackgroundCommand perf("/bin/sh",
                               {"-c", "exec \"$0\" -b 8 -e 8 -N 0 > \"$1\"", kBinDir + "/all_reduce_perf", out}, {},
                               dir.path() + "/err");
  const std::string row = "           8             2     float     sum      -1";
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (count(test::read_text(out), row) < 3 && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_GE(count(test::read_text(out), row), 3) << test::read_text(out) << perf.err();
  perf.send(SIGINT);
  EXPECT_EQ(perf.wait(60), -SIGINT) << perf.err();  // SIGINT ends it, as it ends nccl-tests
  const std::string text = test::read_text(out);
  EXPECT_GE(count(text, row), 3) << text;
  EXPECT_EQ(text.find("# Avg bus bandwidth"), std::string::npos) << "no end, no summary: " << text;
}

TEST(CollCli, NcclTestsNamesTimeAsNcclTestsAndTakeItsFlags) {
  auto r = run_command(kBinDir + "/all_reduce_perf", {"-z", "3", "-I", "1", "-K", "2", "-y", "1", "-u", "1", "-S", "1",
                                                     "-M", "1", "-R", "1", "-x", "1", "-p", "1", "--dry-run"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("timing: nccl-tests' host timer around -n iterations (blocking -z 3, -I per-iteration events)"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("note:"), std::string::npos) << "every flag is taken, none noted as ignored: " << r.out;
  r = run_command(kBinDir + "/all_reduce_perf", {"--linkscope-stats", "--dry-run"});
  EXPECT_NE(r.out.find("timing: linkscope's gated CUDA-event statistics"), std::string::npos) << r.out;
  // nccl-tests' own warnings where it turns a flag off.
  r = run_command(kBinDir + "/all_reduce_perf", {"-I", "1", "-G", "2", "--dry-run"});
  EXPECT_NE(r.out.find("per-iteration timing (-I) is incompatible with CUDA graph mode (-G). Disabling."),
            std::string::npos)
      << r.out;
  // -V alone is taken (it only matters with -D); outside 1..128 nccl-tests' warning and its default.
  r = run_command(kBinDir + "/all_reduce_perf", {"-V", "32", "--dry-run"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("note:"), std::string::npos) << r.out;
  r = run_command(kBinDir + "/all_reduce_perf", {"-V", "200", "--dry-run"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("note: device_cta_count (-V) must be positive and less than 128, got 200. Using default value 16."),
            std::string::npos)
      << r.out;
  // -D without -R 2: nccl-tests' message and its exit code (main returns -1) as a *_perf name, linkscope's usage
  // code under coll.
  r = run_command(kBinDir + "/all_reduce_perf", {"-D", "1"});
  EXPECT_EQ(r.exit_code, 255);
  EXPECT_NE(r.err.find("device implementation (-D > 0) requires enabling symmetric memory registration (-R 2)"),
            std::string::npos)
      << r.err;
  expect_one_line(r.err);
  r = run_command(kBinary, {"coll", "-D", "1"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("requires enabling symmetric memory registration (-R 2)"), std::string::npos) << r.err;
  // One-line usage errors, exit 2.
  r = run_command(kBinary, {"coll", "-z", "1"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("-z and -I describe nccl-tests' host-timed loop"), std::string::npos) << r.err;
  r = run_command(kBinary, {"coll", "-J", "out.json"});
  EXPECT_EQ(r.exit_code, 2);
  expect_one_line(r.err);
  r = run_command(kBinDir + "/hypercube_perf", {"-b", "8", "-e", "64", "--dry-run"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("linkscope coll dry run: hypercube"), std::string::npos) << r.out;
}

// -D/-V: the device-API kernels of all_reduce_perf and alltoall_perf, nccl-tests' refusals for the other tests,
// and the version gate against an NCCL without the 2.28 device API (tests/cli/fake_nccl), all without a GPU.
TEST(CollCli, DeviceImplementationsAreChosenAndGatedByTheLoadedNccl) {
  auto r = run_command(kBinDir + "/all_reduce_perf", {"-D", "2", "-R", "2", "-V", "4", "--dry-run"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("operation: device API all_reduce LSA vectorized kernel (-D 2, 4 CTAs x 512 threads)"),
            std::string::npos)
      << r.out;
  r = run_command(kBinDir + "/alltoall_perf", {"-D", "1", "-R", "2", "-V", "200", "--dry-run"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("operation: device API alltoall NVL kernel (-D 1, 16 CTAs x 512 threads)"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("device_cta_count (-V) must be positive and less than 128, got 200. Using default value 16."),
            std::string::npos)
      << r.out;
  r = run_command(kBinDir + "/broadcast_perf", {"-D", "1", "-R", "2"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("Device implementation 1 is not supported by this test"), std::string::npos) << r.err;
  expect_one_line(r.err);
  r = run_command(kBinDir + "/all_reduce_perf", {"-D", "7", "-R", "2"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("Device implementation 7 is not supported by this test"), std::string::npos) << r.err;
  r = run_command(kBinDir + "/all_reduce_perf", {"-D", "1", "-R", "2", "-d", "bfloat16"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("not bfloat16"), std::string::npos) << r.err;

  const std::string fake = std::string("LINKSCOPE_NCCL_LIBRARY=") + LINKSCOPE_FAKE_NCCL;
  r = run_command(kBinDir + "/all_reduce_perf", {"-D", "1", "-R", "2"}, {fake, "LINKSCOPE_FAKE_NCCL_VERSION=22707"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("Option -D (device implementation) requires NCCL >= 2.28.0; the loaded NCCL is 2.27.7"),
            std::string::npos)
      << r.err;
  expect_one_line(r.err);
  r = run_command(kBinDir + "/alltoall_perf", {"-D", "2", "-R", "2"}, {fake, "LINKSCOPE_FAKE_NCCL_VERSION=22900"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("Incompatible NCCL versions. linkscope was compiled with NCCL 2.28, but is running with NCCL "
                       "22900. The 2.28 Device API is not compatible with later."),
            std::string::npos)
      << r.err;
  // The GPU machine's NCCL: 2.28.3 has the device API, but its structures are those from before 2.28.7.
  r = run_command(kBinDir + "/all_reduce_perf", {"-D", "1", "-R", "2"}, {fake, "LINKSCOPE_FAKE_NCCL_VERSION=22803"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("but is running with NCCL 2.28.3"), std::string::npos) << r.err;
  expect_one_line(r.err);
  r = run_command(kBinDir + "/all_reduce_perf", {"-D", "1", "-R", "2"}, {fake, "LINKSCOPE_FAKE_NCCL_VERSION=22809"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("-D needs ncclDevCommCreate; the loaded NCCL 2.28.9"), std::string::npos) << r.err;
  expect_one_line(r.err);
}

TEST(CollCli, AlltoallvPerfTakesNcclTestsVariablesAndMatrixRules) {
  const std::string alltoallv_perf = kBinDir + "/alltoallv_perf";
  ASSERT_TRUE(std::filesystem::exists(alltoallv_perf)) << "the build links alltoallv_perf next to linkscope";
  auto r = run_command(alltoallv_perf, {"-b", "8", "-e", "1M", "-f", "4", "--dry-run"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("linkscope coll dry run: alltoallv, 1 type(s), 1 reduction(s), 9 size(s) 8..524288 B"), std::string::npos)
      << r.out;
  r = run_command(kBinary, {"coll", "alltoallv", "-b", "8", "-e", "64", "--dry-run"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = run_command(alltoallv_perf, {"--dry-run"}, {"NCCL_TESTS_ALLTOALLV_SPREAD=wide"});
  EXPECT_NE(r.out.find("note: NCCL_TESTS_ALLTOALLV_SPREAD='wide' is not a number; nccl-tests ignores it and uses 1"),
            std::string::npos)
      << r.out;
  test::TempDir tmp;
  const std::string matrix = tmp.write("traffic.txt", "64 32\n16 0\n");
  const std::string env = "NCCL_TESTS_ALLTOALLV_MATRIX_FILE=" + matrix;
  // -b must equal -e, -e must hold the busiest row or column, the matrix must cover the ranks: one line, exit 2.
  r = run_command(alltoallv_perf, {"-b", "8", "-e", "1M"}, {env});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("-b and -e options must be set to the same value"), std::string::npos) << r.err;
  expect_one_line(r.err);
  r = run_command(alltoallv_perf, {"-b", "64", "-e", "64", "-g", "2"}, {env});  // rank 0 sends 64 + 32
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("maxBytes (-e) must be at least 96 bytes as required by traffic matrix file " + matrix +
                       " (got 64). Increase -e."),
            std::string::npos)
      << r.err;
  r = run_command(alltoallv_perf, {"-b", "1K", "-e", "1K", "-g", "3"}, {env});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("requested nranks (3) is larger than matrix size (2)"), std::string::npos) << r.err;
  tmp.write("traffic.txt", "64 32\n16 x\n");
  r = run_command(alltoallv_perf, {"-b", "1K", "-e", "1K"}, {env});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(matrix + ":2: alltoallv traffic matrix value 'x' at row 1 col 1 is not a number"),
            std::string::npos)
      << r.err;
  expect_one_line(r.err);
  // A valid matrix passes every rule and stops only where the GPU or NCCL is missing.
  tmp.write("traffic.txt", "64 32\n16 0\n");
  r = run_command(alltoallv_perf, {"-b", "1K", "-e", "1K"}, {env, kBogusNccl});
  EXPECT_EQ(r.exit_code, 3) << r.err;
}

// NCCL_TESTS_SPLIT_MASK / NCCL_TESTS_SPLIT under mpirun: each colour's processes form their own communicator (the dry
// run shows who joins which, up to the GPU step).
TEST(CollCli, MpiSplitMakesOneCommunicatorPerColour) {
  const auto version = run_command("mpirun", {"--version"});
  if (version.exit_code != 0 || (version.out + version.err).find("Open MPI") == std::string::npos) {
    GTEST_SKIP() << "needs Open MPI's mpirun";
  }
  auto r = run_command("mpirun", {"--allow-run-as-root", "--oversubscribe", "-np", "3", "-x",
                                  "NCCL_TESTS_SPLIT_MASK=0x1", kBinDir + "/sendrecv_perf", "--dry-run"});
  if (r.err.find("built without MPI") != std::string::npos) GTEST_SKIP() << "a build without MPI";
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("split: NCCL_TESTS_SPLIT_MASK=0x1, 2 communicator(s)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("process 0 on "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("group 0: process 1 of 2 in its communicator"), std::string::npos) << "world rank 2: " << r.out;
  EXPECT_NE(r.out.find("group 1: process 0 of 1 in its communicator"), std::string::npos) << "world rank 1: " << r.out;
  r = run_command("mpirun", {"--allow-run-as-root", "--oversubscribe", "-np", "2", "-x", "NCCL_TESTS_SPLIT=DIV2",
                             kBinary, "coll", "sendrecv", "--dry-run"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("split: NCCL_TESTS_SPLIT=DIV2, 1 communicator(s)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("group 0: process 1 of 2 in its communicator"), std::string::npos) << r.out;
  r = run_command("mpirun", {"--allow-run-as-root", "--oversubscribe", "-np", "2", "-x", "NCCL_TESTS_SPLIT=MOD0",
                             kBinary, "coll", "sendrecv", "--dry-run"}, {}, 60);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("NCCL_TESTS_SPLIT=MOD0 divides the rank by 0"), std::string::npos) << r.err;
}

// The MPI bootstrap without GPUs: every process starts MPI, finds its node-local rank, and rank 0 gathers
// one line per process (mpirun --allow-run-as-root --oversubscribe is Open MPI's spelling).
TEST(CollCli, MpiDryRunGathersEveryProcess) {
  const auto version = run_command("mpirun", {"--version"});
  if (version.exit_code != 0 || (version.out + version.err).find("Open MPI") == std::string::npos) {
    GTEST_SKIP() << "needs Open MPI's mpirun";
  }
  const auto r = run_command("mpirun", {"--allow-run-as-root", "--oversubscribe", "-np", "2", kBinary, "coll", "sendrecv",
                                        "--dry-run"});
  if (r.err.find("built without MPI") != std::string::npos) {
    EXPECT_EQ(r.exit_code, 2) << "a build without MPI refuses to run as N copies";
    return;
  }
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("processes: 2 (MPI, OMPI_COMM_WORLD_SIZE=2), 1 GPU(s) each, 2 rank(s)"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("process 0 on "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("process 1 on "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("local rank 1 of 2"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("options differ"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("linkscope coll dry run"), r.out.rfind("linkscope coll dry run")) << "only rank 0 prints";
}

TEST(CollCli, MpiRunWithoutGpusEndsTheWholeJob) {
  if (gpu_present()) GTEST_SKIP() << "this machine has a GPU";
  const auto version = run_command("mpirun", {"--version"});
  if (version.exit_code != 0 || (version.out + version.err).find("Open MPI") == std::string::npos) {
    GTEST_SKIP() << "needs Open MPI's mpirun";
  }
  test::TempDir tmp;
  const auto r = run_command("mpirun", {"--allow-run-as-root", "--oversubscribe", "-np", "2", "-x", "TMPDIR", kBinary,
                                        "coll", "-b", "1M", "-e", "1M"},
                             {"TMPDIR=" + tmp.path()}, 60);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.exit_code, -9) << "must not hang";
  EXPECT_NE(r.err.find("linkscope: error (rank "), std::string::npos) << r.err;
  EXPECT_TRUE(std::filesystem::is_empty(tmp.path())) << "NCCL log directories are removed before MPI_Abort";
}

TEST(LadderCli, RunsOncePerHostUnderMpirunAndRefusesBadFormats) {
  // Two ranks on one machine are one host: its leader runs the ladder once (no GPU here: its error, named).
  auto r = run_command("mpirun", {"--allow-run-as-root", "--oversubscribe", "-np", "2", kBinary, "ladder", "-g", "2"},
                       {"OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1", "LINKSCOPE_HOST_NAME",
                        "LINKSCOPE_HOST_PER_RANK"},
                       60);
  if (r.exit_code == 127) GTEST_SKIP() << "mpirun not found";
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.exit_code, -9) << "must not hang";
  EXPECT_EQ(r.out.find("== "), 0u) << r.out;  // one host, one header
  EXPECT_NE(r.out.find("(ranks 0-1, measured by rank 0): exit "), std::string::npos) << r.out;
  r = run_command(kBinary, {"ladder", "--format", "nccl-tests"});
  EXPECT_EQ(r.exit_code, 2);
  r = run_command(kBinary, {"ladder", "allreducex"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown collective"), std::string::npos);
  r = run_command(kBinary, {"ladder", "--system", "/nonexistent/run.json", "-g", "2"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("/nonexistent/run.json"), std::string::npos) << r.err;
}

TEST(LadderCli, WithoutGpusTheDefaultLayerFailsAndTheRestIsSkipped) {
  if (gpu_present()) GTEST_SKIP() << "this machine has a GPU";
  auto r = run_command(kBinary, {"ladder"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("no usable CUDA GPU"), std::string::npos) << r.err;
  r = run_command(kBinary, {"ladder", "-g", "2", "-q", "--format", "json"});
  EXPECT_EQ(r.exit_code, 3);
  const auto doc = nlohmann::json::parse(r.out);
  const auto& layers = doc.at("measurements").at("ladder").at("layers");
  ASSERT_EQ(layers.size(), 6u);
  EXPECT_EQ(layers[0].at("status"), "error");
  EXPECT_NE(layers[0].at("reason").get<std::string>().find("no usable CUDA GPU"), std::string::npos);
  EXPECT_EQ(layers[2].at("status"), "skipped");
  EXPECT_TRUE(layers[0].at("busbw_gbps").is_null());
  EXPECT_EQ(doc.at("errors").size(), 1u);
}

}  // namespace
}  // namespace linkscope

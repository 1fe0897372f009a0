// `linkscope capture -o machine.tgz`: this machine's facts as files (the selected /sys, /proc and /dev entries,
// NVML's, CUDA's and NCCL's answers), so `doctor --capture` and `topo --capture` diagnose it anywhere. Measures
// nothing and writes nothing else; secrets stay out (capture/host_tree_copy.hpp says what is kept).
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <memory>

#include <fmt/format.h>

#include "capture/capture_file.hpp"
#include "cli/command.hpp"
#include "core/environment.hpp"
#include "core/error.hpp"
#include "core/file_io.hpp"
#include "core/stamp.hpp"
#include "core/temp_directory.hpp"
#include "core/terminal_text.hpp"
#include "discover/nccl_probe.hpp"
#include "discover/nvml_source.hpp"
#include "discover/sysfs_root.hpp"
#include "linkscope/version.hpp"
#include "platform/cuda_facts.hpp"
#include "platform/nccl_version.hpp"

namespace linkscope::cli {

namespace {

struct CaptureOptions {
  std::string output;
  std::string sysfs_root = "/";  // --sysfs-root DIR: copy a snapshot's files instead of this machine's
  bool no_nccl = false;
  double nccl_timeout_s = 120;
};

// Only what decides NCCL's and CUDA's behaviour: never the whole environment (tokens, passwords).
std::map<std::string, std::string> captured_variables(const Environment& env) {
  std::map<std::string, std::string> kept;
  for (const auto& [name, value] : env.all()) {
    if (name.rfind("NCCL_", 0) == 0 || name.rfind("CUDA_", 0) == 0) kept[name] = value;
  }
  return kept;
}

capture::CaptureManifest manifest_of(const Environment& env, const capture::TreeCopy& tree) {
  capture::CaptureManifest manifest;
  manifest.linkscope_version = fmt::format("{} ({})", kVersion, kGitDescribe);
  manifest.created_utc = utc_timestamp();
  manifest.hostname = host_name();
  manifest.kernel = discover::SysfsRoot("/").read_attribute("/proc/sys/kernel/osrelease").value_or("");
  manifest.privileged = ::geteuid() == 0;
  manifest.environment = captured_variables(env);
  try {
    const platform::NcclLibraryInfo nccl = platform::nccl_library_info();
    manifest.nccl_library = nccl.path;
    manifest.nccl_version = nccl.version;
  } catch (const Error& e) {
    manifest.nccl_unavailable = e.what();
  }
  manifest.tree = tree;
  return manifest;
}

int run_capture(const CaptureOptions& options) {
  check_output_path(options.output, "--output");
  const Environment env = Environment::from_process();
  TempDirectory work("linkscope-capture", env);
  if (work.path().empty()) throw InputError(options.output, 0, "cannot make a folder to collect the capture in: " + work.why());
  const std::string folder = work.path() + "/" + capture::kCaptureFolder;
  std::filesystem::create_directories(folder + "/root");

  // NCCL's topology child runs while the files are copied (it takes a few seconds to initialise).
  std::optional<discover::NcclProbeResult> nccl;
  discover::NcclProbeRequest request;
  request.env = &env;
  request.timeout_seconds = options.nccl_timeout_s;
  print_stderr_line("linkscope capture: copying /sys, /proc and /dev entries; reading NVML, CUDA and NCCL ...");
  const capture::TreeCopy tree = capture::copy_host_tree(discover::SysfsRoot(options.sysfs_root), folder + "/root");
  if (!options.no_nccl && options.sysfs_root == "/") {
    try {
      nccl = discover::run_nccl_probe(request);
    } catch (const Error& e) {  // no pipes or fork: recorded, not fatal
      nccl = discover::NcclProbeResult{};
      nccl->status = "failed";
      nccl->reason = e.what();
    }
  }
  const char* nvml_library = std::getenv("LINKSCOPE_NVML_LIBRARY");
  capture::Capture capture;
  capture.nvml = discover::make_nvml_library_source(nvml_library != nullptr ? nvml_library : "")->read();
  capture.cuda = platform::make_cuda_runtime_source()->read();
  capture.nccl = nccl;
  capture.manifest = manifest_of(env, tree);
  capture::write_capture(options.output, work.path(), capture);

  std::string notes;
  if (!tree.truncated.empty()) notes += "; " + tree.truncated;
  if (tree.unreadable_count > 0) {
    notes += fmt::format("; {} entries unreadable{}", tree.unreadable_count,
                         capture.manifest.privileged ? "" : " (not root: PCI extended config space, ACS, not readable)");
  }
  if (!capture.nvml.available) notes += "; NVML unavailable: " + capture.nvml.reason;
  if (nccl && nccl->status != "ok") notes += "; NCCL's topology: " + nccl->status + " " + nccl->reason;
  print_stderr_line(fmt::format("linkscope capture: wrote {} ({} files, {} links, {} GPUs by NVML, {} by CUDA{}); "
                                "diagnose it anywhere with `linkscope doctor --capture {}`",
                                options.output, tree.files, tree.links, capture.nvml.gpus.size(),
                                capture.cuda.devices.size(), notes, options.output));
  return 0;
}

Command add_capture_command(CLI::App& parent, const std::vector<std::string>& /*argv*/) {
  auto options = std::make_shared<CaptureOptions>();
  Command command;
  command.app = parent.add_subcommand(
      "capture", "Save this machine's facts (PCI, NUMA, IOMMU, modules, NICs, NVML, CUDA, NCCL's topology) as one "
                 "file to diagnose anywhere: `doctor --capture FILE`; nothing secret, nothing measured");
  command.app->add_option("--output,-o", options->output, "the capture file to write (machine.tgz)")
      ->required()
      ->check(non_empty_path());
  command.app->add_flag("--no-nccl", options->no_nccl, "do not ask NCCL for its own topology (no child process)");
  command.app->add_option("--sysfs-root", options->sysfs_root,
                          "copy /sys and /proc from below DIR (a snapshot) instead of this machine's; NVML, CUDA and "
                          "NCCL are still this machine's, so NCCL is not asked (as --no-nccl)")
      ->check(CLI::ExistingDirectory);
  command.run = [options] { return run_capture(*options); };
  return command;
}

const CommandRegistration kRegistration{12, &add_capture_command};

}  // namespace

}  // namespace linkscope::cli

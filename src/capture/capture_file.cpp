#include "capture/capture_file.hpp"

#include <sys/stat.h>

#include <filesystem>

#include <fmt/format.h>

#include "capture/snapshot_json.hpp"
#include "core/error.hpp"
#include "core/file_io.hpp"
#include "core/staged_file.hpp"
#include "core/subprocess.hpp"
#include "core/terminal_text.hpp"

namespace linkscope::capture {

namespace {

using nlohmann::json;

// A capture's parts are small: a damaged or hostile one cannot make linkscope read gigabytes.
constexpr std::uint64_t kMaxPartBytes = 64ull * 1024 * 1024;
// What a capture may hold once extracted (the tree is at most TreeCopyLimits::max_bytes plus the JSON parts).
constexpr std::uint64_t kMaxExtractedBytes = 1024ull * 1024 * 1024;

std::string folder_of(const std::string& directory) { return directory + "/" + kCaptureFolder; }

void write_part(const std::string& folder, const std::string& name, const json& document) {
  write_file_atomically(folder + "/" + name, document.dump(1) + "\n");
}

json tree_json(const TreeCopy& tree) {
  return {{"files", tree.files},         {"links", tree.links},
          {"directories", tree.directories}, {"bytes", tree.bytes},
          {"unreadable", tree.unreadable}, {"unreadable_count", tree.unreadable_count},
          {"truncated", tree.truncated}};
}

TreeCopy tree_from(const model::JsonReader& r) {
  TreeCopy tree;
  tree.files = r.count("files").value_or(0);
  tree.links = r.count("links").value_or(0);
  tree.directories = r.count("directories").value_or(0);
  tree.bytes = r.count("bytes").value_or(0);
  tree.unreadable = r.strings("unreadable");
  tree.unreadable_count = r.count("unreadable_count").value_or(tree.unreadable.size());
  tree.truncated = r.string_or("truncated");
  return tree;
}

model::JsonReader part_reader(const std::string& folder, const std::string& name, const std::string& capture_path,
                              json& storage) {
  const std::string path = folder + "/" + name;
  const std::string what = capture_path + ": " + name;
  const std::string text = read_input_file(path, kMaxPartBytes, what);
  try {
    storage = json::parse(text);
  } catch (const json::parse_error& e) {
    throw InputError(what, 0, std::string("not JSON: ") + e.what());
  }
  if (!storage.is_object()) throw InputError(what, 0, "not a JSON object");
  return model::JsonReader::root(storage, what);
}

}  // namespace

json manifest_json(const CaptureManifest& manifest) {
  return {{"format", kCaptureFormat},
          {"format_version", manifest.format_version},
          {"linkscope_version", manifest.linkscope_version},
          {"created_utc", manifest.created_utc},
          {"hostname", manifest.hostname},
          {"kernel", manifest.kernel},
          {"privileged", manifest.privileged},
          {"environment", manifest.environment},
          {"nccl_library", manifest.nccl_library},
          {"nccl_version", manifest.nccl_version},
          {"nccl_unavailable", manifest.nccl_unavailable},
          {"tree", tree_json(manifest.tree)}};
}

CaptureManifest manifest_from(const model::JsonReader& r) {
  if (r.string_or("format") != kCaptureFormat) r.fail("format", std::string("not \"") + kCaptureFormat + "\"");
  CaptureManifest manifest;
  manifest.format_version = r.small_int("format_version").value_or(0);
  if (manifest.format_version < 1 || manifest.format_version > kCaptureFormatVersion) {
    r.fail("format_version", fmt::format("{} is not a format this linkscope reads (1 to {}): update linkscope",
                                         manifest.format_version, kCaptureFormatVersion));
  }
  manifest.linkscope_version = r.string_or("linkscope_version");
  manifest.created_utc = r.string_or("created_utc");
  manifest.hostname = r.string_or("hostname");
  manifest.kernel = r.string_or("kernel");
  manifest.privileged = r.boolean("privileged").value_or(false);
  manifest.environment = r.string_map("environment");
  manifest.nccl_library = r.string_or("nccl_library");
  manifest.nccl_version = r.string_or("nccl_version");
  manifest.nccl_unavailable = r.string_or("nccl_unavailable");
  manifest.tree = tree_from(r.object("tree"));
  return manifest;
}

void write_capture(const std::string& output, const std::string& directory, const Capture& capture) {
  check_write_target(output, {});
  const std::string folder = folder_of(directory);
  write_part(folder, "manifest.json", manifest_json(capture.manifest));
  write_part(folder, "nvml.json", nvml_snapshot_json(capture.nvml));
  write_part(folder, "cuda.json", cuda_snapshot_json(capture.cuda));
  if (capture.nccl) write_part(folder, "nccl.json", nccl_probe_json(*capture.nccl));
  ChildSpec tar;
  tar.program = "tar";
  tar.args = {"--create", "--gzip", "--file=-", "--sort=name", "--owner=0", "--group=0", "--numeric-owner",
              "--directory=" + directory, kCaptureFolder};
  tar.timeout_seconds = 300;
  const ChildResult packed = run_child(tar);
  if (!packed.started) throw InputError(output, 0, "cannot run tar to pack the capture: is GNU tar installed?");
  if (packed.exit_code != 0) {
    throw InputError(output, 0, fmt::format("tar could not pack the capture (exit {}): {}", packed.exit_code,
                                            visible_field(last_line(packed.err))));
  }
  write_file_atomically(output, packed.out);
}

LoadedCapture::LoadedCapture(std::unique_ptr<TempDirectory> directory, Capture capture)
    : directory_(std::move(directory)), capture_(std::move(capture)) {}

std::string LoadedCapture::root() const { return folder_of(directory_->path()) + "/root"; }

LoadedCapture load_capture(const std::string& path, const Environment& env) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) throw InputError(path, 0, "no such capture file");
  if (!S_ISREG(info.st_mode)) throw InputError(path, 0, "not a capture file (a capture is a .tgz file)");
  if (static_cast<std::uint64_t>(info.st_size) > kMaxCaptureBytes) {
    throw InputError(path, 0, fmt::format("{} bytes is larger than any capture ({} at most)", info.st_size,
                                          kMaxCaptureBytes));
  }
  auto directory = std::make_unique<TempDirectory>("linkscope-capture", env);
  if (directory->path().empty()) throw InputError(path, 0, "cannot extract it: " + directory->why());
  // tar reads what gzip gives it, cut at the extraction limit: a compressed bomb ends as a truncated archive.
  ChildSpec tar;
  tar.program = "sh";
  tar.args = {"-c",
              fmt::format("gzip -dc -- \"$1\" | head -c {} | tar --extract --file=- --directory=\"$2\" "
                          "--no-same-owner --no-same-permissions",
                          kMaxExtractedBytes),
              "sh", path, directory->path()};
  tar.timeout_seconds = 300;
  const ChildResult extracted = run_child(tar);
  if (!extracted.started || extracted.exit_code != 0) {
    throw InputError(path, 0, fmt::format("not a readable capture (a gzip'd tar from `linkscope capture`, at most {} "
                                          "bytes unpacked): {}",
                                          kMaxExtractedBytes, visible_field(last_line(extracted.err))));
  }
  const std::string folder = folder_of(directory->path());
  struct stat folder_info {};
  if (::lstat(folder.c_str(), &folder_info) != 0 || !S_ISDIR(folder_info.st_mode)) {
    throw InputError(path, 0, fmt::format("not a capture (no {}/ folder inside)", kCaptureFolder));
  }
  Capture capture;
  json manifest, nvml, cuda, nccl;
  capture.manifest = manifest_from(part_reader(folder, "manifest.json", path, manifest));
  capture.nvml = nvml_snapshot_from(part_reader(folder, "nvml.json", path, nvml));
  capture.cuda = cuda_snapshot_from(part_reader(folder, "cuda.json", path, cuda));
  if (::lstat((folder + "/nccl.json").c_str(), &folder_info) == 0) {
    capture.nccl = nccl_probe_from(part_reader(folder, "nccl.json", path, nccl));
  }
  struct stat root_info {};
  if (::lstat((folder + "/root").c_str(), &root_info) != 0 || !S_ISDIR(root_info.st_mode)) {
    throw InputError(path, 0, fmt::format("damaged capture (no {}/root/ folder with the machine's files)",
                                          kCaptureFolder));
  }
  LoadedCapture loaded(std::move(directory), std::move(capture));
  loaded.source_ = path;
  return loaded;
}

}  // namespace linkscope::capture

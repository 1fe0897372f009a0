#pragma once
// Planted captures: a real captured machine with one fault planted, written as a capture file that `doctor
// --capture` reads like any other. A case (tests/corpus/captures/*.json) names its base and what it changes:
//   "base":  "h200x2" (the h200x2 sysfs snapshot with that machine's recorded NVML and CUDA facts and NCCL 2.28.3's
//            dump and log, tests/fixtures/h200x2) or a capture file under tests/ (one taken with `linkscope capture`)
//   "parts": {"nvml.json" | "cuda.json" | "manifest.json" | "nccl.json": [RFC 6902 operations]}
//   "files": {"/sys/...": "text"}     written (made when missing)
//   "bytes": {"/sys/.../config": [{"offset": 256, "hex": "0d000100"}]}   patched in place (PCI config space)
//   "links": {"/sys/...": "target"}   symbolic links made
//   "remove": ["/sys/module/nvidia_peermem"]
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "capture/capture_file.hpp"
#include "capture/snapshot_json.hpp"
#include "core/subprocess.hpp"
#include "support/run_command.hpp"
#include "unit/discover_recorded_h200x2.hpp"

namespace linkscope::test {

inline void write_bytes(const std::string& path, const std::string& content) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << content;
  if (!out) throw std::runtime_error("cannot write " + path);
}

inline nlohmann::json read_json_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  return nlohmann::json::parse(in);
}

// The h200x2 base, unpacked into `folder` (a linkscope-capture/ folder).
inline void write_h200x2_base(const std::string& folder) {
  const std::string scratch = folder + ".snapshot";
  std::filesystem::create_directories(scratch);
  if (run_child({"tar", {"-xzf", fixture("h200x2/sysfs-snapshot.tgz"), "-C", scratch}}).exit_code != 0) {
    throw std::runtime_error("cannot unpack the h200x2 sysfs snapshot");
  }
  std::filesystem::rename(scratch + "/sysfs", folder + "/root");
  std::filesystem::remove_all(scratch);
  capture::Capture capture;
  capture.manifest.linkscope_version = "planted from tests/fixtures/h200x2";
  capture.manifest.created_utc = "2026-11-29T12:00:00Z";
  capture.manifest.hostname = "h200x2";
  capture.manifest.kernel = "6.8.0-1015-nvidia";
  capture.manifest.privileged = true;
  capture.manifest.nccl_library = "/usr/lib/x86_64-linux-gnu/libnccl.so.2";
  capture.manifest.nccl_version = "2.28.3";
  capture.nvml = h200x2_nvml_snapshot();
  capture.cuda = h200x2_cuda_snapshot(capture.nvml, {0, 1});
  discover::NcclProbeResult nccl;
  nccl.status = "ok";
  nccl.nccl_version = "2.28.3";
  nccl.device_count = 2;
  nccl.dump_xml = read_text(fixture("h200x2/nccl-topo-dump.xml"));
  nccl.log = read_text(fixture("h200x2/nccl-2.28.3-info.log"));
  capture.nccl = nccl;
  write_bytes(folder + "/manifest.json", capture::manifest_json(capture.manifest).dump(1));
  write_bytes(folder + "/nvml.json", capture::nvml_snapshot_json(capture.nvml).dump(1));
  write_bytes(folder + "/cuda.json", capture::cuda_snapshot_json(capture.cuda).dump(1));
  write_bytes(folder + "/nccl.json", capture::nccl_probe_json(*capture.nccl).dump(1));
}

inline std::string hex_bytes(const std::string& hex) {
  if (hex.size() % 2 != 0) throw std::runtime_error("odd hex string " + hex);
  std::string bytes;
  for (std::size_t i = 0; i < hex.size(); i += 2) bytes += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  return bytes;
}

// Writes the planted capture of `case_document` as `work`/planted.tgz and returns its path. `tests` is the tests/
// folder that relative paths are under.
inline std::string build_planted_capture(const nlohmann::json& case_document, const std::string& tests,
                                         const std::string& work) {
  const std::string folder = work + "/" + capture::kCaptureFolder;
  std::filesystem::create_directories(folder);
  const std::string base = case_document.at("base").get<std::string>();
  if (base == "h200x2") {
    write_h200x2_base(folder);
  } else if (run_child({"tar", {"-xzf", tests + base, "-C", work}}).exit_code != 0) {
    throw std::runtime_error("cannot unpack the base capture " + base);
  }
  const std::string root = folder + "/root";
  // Each field is copied out first: items() of a temporary would outlive it.
  const nlohmann::json parts = case_document.value("parts", nlohmann::json::object());
  const nlohmann::json files = case_document.value("files", nlohmann::json::object());
  const nlohmann::json bytes_patches = case_document.value("bytes", nlohmann::json::object());
  const nlohmann::json links = case_document.value("links", nlohmann::json::object());
  for (const auto& [part, operations] : parts.items()) {
    const std::string path = folder + "/" + part;
    const nlohmann::json document = std::filesystem::exists(path) ? read_json_file(path) : nlohmann::json::object();
    write_bytes(path, document.patch(operations).dump(1));
  }
  for (const auto& removed : case_document.value("remove", nlohmann::json::array())) {
    std::filesystem::remove_all(root + removed.get<std::string>());
  }
  for (const auto& [path, text] : files.items()) {
    std::filesystem::remove(root + path);
    write_bytes(root + path, text.get<std::string>());
  }
  for (const auto& [path, patches] : bytes_patches.items()) {
    std::string content = read_text(root + path);
    for (const auto& patch : patches) {
      const auto offset = patch.at("offset").get<std::size_t>();
      const std::string bytes = hex_bytes(patch.at("hex").get<std::string>());
      if (content.size() < offset + bytes.size()) content.resize(offset + bytes.size(), '\0');
      content.replace(offset, bytes.size(), bytes);
    }
    write_bytes(root + path, content);
  }
  for (const auto& [path, target] : links.items()) {
    std::filesystem::create_directories(std::filesystem::path(root + path).parent_path());
    std::filesystem::remove(root + path);
    std::filesystem::create_symlink(target.get<std::string>(), root + path);
  }
  const std::string file = work + "/planted.tgz";
  if (run_child({"tar", {"-czf", file, "-C", work, capture::kCaptureFolder}}).exit_code != 0) {
    throw std::runtime_error("cannot pack the planted capture");
  }
  return file;
}

}  // namespace linkscope::test

// libFuzzer target: the runtime NCCL log parser (src/runtime/nccl_log.cpp: transports, channels, graphs, paths, Init,
// GDR, NVLS, MNNVL and HINT lines, ENV echoes, TUNING lines through it) and the Run JSON of what it read, which must
// read back to the same document. Any exception, crash, sanitizer report or hang is a finding: the parser reads
// any text without one.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <nlohmann/json.hpp>

#include "model/json_read.hpp"
#include "model/runtime.hpp"
#include "runtime/nccl_log.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace linkscope;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  model::RuntimeRun run;
  run.context = "fuzz";
  run.info = runtime::parse_nccl_log(text);
  (void)runtime::widest_gpu_path_type(run.info);
  (void)model::transport_summary(run.info);
  // Through the text a run.json holds (invalid UTF-8 replaced, as run_file.cpp writes it), and back.
  const nlohmann::json document =
      nlohmann::json::parse(model::to_json(run).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  const model::RuntimeRun back = model::runtime_run_from_json(model::JsonReader::root(document, "fuzz.json"));
  if (model::to_json(back) != document) __builtin_trap();
  return 0;
}

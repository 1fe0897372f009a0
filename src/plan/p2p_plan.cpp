#include "plan/p2p_plan.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/size.hpp"

namespace linkscope::plan {

namespace {

template <typename T>
std::vector<T> or_default(const std::vector<T>& list, T fallback) {
  return list.empty() ? std::vector<T>{fallback} : list;
}

void check_shape(const SmKernelShape& shape) {
  const auto& variants = sm_kernel_variants();
  if (std::find(variants.begin(), variants.end(), shape.variant) == variants.end()) {
    throw UsageError(fmt::format("--sm-kernel: unknown variant '{}' (known: vec, vec_cg, vec_nc, vec_nc256, bulk)",
                                 shape.variant));
  }
  if (shape.threads < 32 || shape.threads > 1024 || shape.threads % 32 != 0) {
    throw UsageError(fmt::format("--sm-threads {}: must be a multiple of 32 from 32 to 1024", shape.threads));
  }
  if (shape.ctas_per_sm < 0 || shape.ctas_per_sm > 32) {
    throw UsageError(fmt::format("--sm-ctas-per-sm {}: must be 0 (as many as fit) to 32", shape.ctas_per_sm));
  }
  const auto& unrolls = sm_unroll_choices();
  if (std::find(unrolls.begin(), unrolls.end(), shape.unroll) == unrolls.end()) {
    throw UsageError(fmt::format("--sm-unroll {}: must be one of 1, 2, 4, 8, 12, 16", shape.unroll));
  }
  if (shape.bulk_chunk_bytes < 1024 || shape.bulk_chunk_bytes > 65536 || shape.bulk_chunk_bytes % 16 != 0) {
    throw UsageError(fmt::format("--sm-bulk-chunk {}: must be a multiple of 16 bytes from 1K to 64K",
                                 format_size(shape.bulk_chunk_bytes)));
  }
  if (shape.bulk_stages < 2 || shape.bulk_stages > 8) {
    // One stage would leave nothing to overlap: the next load could only start after the store finished.
    throw UsageError(fmt::format("--sm-bulk-stages {}: must be 2 to 8", shape.bulk_stages));
  }
}

ChaseOrder chase_order_from_string(const std::string& text) {
  if (text == "random") return ChaseOrder::kRandom;
  if (text == "stride") return ChaseOrder::kStride;
  throw UsageError(fmt::format("--latency-order {}: must be random or stride", text));
}

ChaseLoad chase_load_from_string(const std::string& text) {
  if (text == "cg") return ChaseLoad::kCg;
  if (text == "ca") return ChaseLoad::kCa;
  if (text == "plain") return ChaseLoad::kPlain;
  throw UsageError(fmt::format("--latency-load {}: must be cg, ca or plain", text));
}

void check_footprint(std::uint64_t bytes) {
  if (bytes < 1024 || bytes > (1ull << 30) || bytes % kChaseNodeBytes != 0) {
    throw UsageError(fmt::format("--latency-footprint {}: must be a multiple of 128 bytes from 1K to 1G", format_size(bytes)));
  }
}

}  // namespace

std::string to_string(CopyMethod method) { return method == CopyMethod::kCe ? "ce" : "sm"; }
std::string mode_name(Initiator initiator) { return initiator == Initiator::kDestination ? "read" : "write"; }
std::string initiator_name(Initiator initiator) { return initiator == Initiator::kDestination ? "dst" : "src"; }

std::string to_string(SmRepeat repeat) {
  switch (repeat) {
    case SmRepeat::kKernel: return "kernel";
    case SmRepeat::kLaunch: return "launch";
    case SmRepeat::kAuto: break;
  }
  return "auto";
}

SmRepeat sm_repeat_from_string(std::string_view text) {
  if (text == "auto") return SmRepeat::kAuto;
  if (text == "kernel") return SmRepeat::kKernel;
  if (text == "launch") return SmRepeat::kLaunch;
  throw UsageError(fmt::format("--sm-repeat {}: must be auto, kernel or launch", text));
}

bool repeat_in_kernel(SmRepeat mode, std::uint64_t bytes, bool loads_allocate_in_l1, int sm_count) {
  if (mode == SmRepeat::kLaunch) return false;
  if (loads_allocate_in_l1 && bytes / static_cast<std::uint64_t>(std::max(sm_count, 1)) < 2 * kLargestL1BytesPerSm) {
    return false;
  }
  return mode == SmRepeat::kKernel || bytes >= kRepeatInKernelMinBytes;
}

std::string SmKernelShape::label() const {
  const std::string ctas = ctas_per_sm == 0 ? "max" : std::to_string(ctas_per_sm);
  const std::string suffix = repeat == SmRepeat::kAuto ? "" : " " + to_string(repeat);
  if (variant == "bulk") return fmt::format("bulk {}x{} c{}{}", format_size(bulk_chunk_bytes), bulk_stages, ctas, suffix);
  return fmt::format("{} t{} c{} u{}{}", variant, threads, ctas, unroll, suffix);
}

bool loads_allocate_in_l1(const std::string& variant) { return variant == "vec"; }

SmKernelShape default_sm_shape(Initiator initiator) {
  SmKernelShape shape;
  if (initiator == Initiator::kSource) {
    shape.variant = "bulk";
    shape.ctas_per_sm = 1;  // 128 KiB of shared memory per CTA: one fits per SM
    shape.bulk_chunk_bytes = 32768;
    shape.bulk_stages = 4;
    shape.threads = 1024;
    shape.unroll = 8;
  }
  return shape;
}

std::string to_string(SpanSync sync) { return sync == SpanSync::kFlag ? "flag" : "event"; }

SpanSync span_sync_from_string(std::string_view text) {
  if (text == "flag") return SpanSync::kFlag;
  if (text == "event") return SpanSync::kEvent;
  throw UsageError(fmt::format("--span-sync {}: must be flag or event", text));
}

std::string to_string(ChaseOrder order) { return order == ChaseOrder::kRandom ? "random" : "stride"; }

std::string to_string(ChaseLoad load) {
  switch (load) {
    case ChaseLoad::kCa: return "ca";
    case ChaseLoad::kPlain: return "plain";
    case ChaseLoad::kCg: break;
  }
  return "cg";
}

std::string ChaseSpec::label() const {
  return fmt::format("{} {} {}", to_string(order), to_string(load), format_size(footprint_bytes));
}

bool ChaseSpec::leaves_l1() const { return load == ChaseLoad::kCg || footprint_bytes >= 4 * kLargestL1BytesPerSm; }

std::vector<ChaseSpec> expand_chase_specs(const ChaseLists& lists) {
  std::vector<ChaseSpec> specs;
  for (const auto& order : or_default(lists.orders, to_string(kDefaultChase.order))) {
    for (const auto& load : or_default(lists.loads, to_string(kDefaultChase.load))) {
      for (std::uint64_t footprint : or_default(lists.footprints, kDefaultChase.footprint_bytes)) {
        check_footprint(footprint);
        const ChaseSpec spec{chase_order_from_string(order), chase_load_from_string(load), footprint};
        if (std::find(specs.begin(), specs.end(), spec) == specs.end()) specs.push_back(spec);
      }
    }
  }
  return specs;
}

const std::vector<std::string>& sm_kernel_variants() {
  static const std::vector<std::string> variants = {"vec", "vec_cg", "vec_nc", "vec_nc256", "bulk"};
  return variants;
}

const std::vector<int>& sm_unroll_choices() {
  static const std::vector<int> unrolls = {1, 2, 4, 8, 12, 16};
  return unrolls;
}

std::vector<SmKernelShape> expand_sm_shapes(const SmShapeLists& lists, const SmKernelShape& defaults) {
  std::vector<SmKernelShape> shapes;
  for (const auto& variant : or_default(lists.variants, defaults.variant)) {
    const bool bulk = variant == "bulk";
    for (int ctas : or_default(lists.ctas_per_sm, defaults.ctas_per_sm)) {
      // Dimensions a variant ignores contribute their default only, so `--sm-unroll 4,8 --sm-kernel vec,bulk`
      // gives vec u4, vec u8 and one bulk shape.
      const auto threads_list = bulk ? std::vector<int>{defaults.threads} : or_default(lists.threads, defaults.threads);
      const auto unroll_list = bulk ? std::vector<int>{defaults.unroll} : or_default(lists.unrolls, defaults.unroll);
      const auto chunk_list = bulk ? or_default(lists.bulk_chunks, defaults.bulk_chunk_bytes)
                                   : std::vector<std::uint64_t>{defaults.bulk_chunk_bytes};
      const auto stage_list = bulk ? or_default(lists.bulk_stages, defaults.bulk_stages) : std::vector<int>{defaults.bulk_stages};
      for (int threads : threads_list) {
        for (int unroll : unroll_list) {
          for (std::uint64_t chunk : chunk_list) {
            for (int stages : stage_list) {
              for (SmRepeat repeat : or_default(lists.repeats, defaults.repeat)) {
                SmKernelShape shape{variant, threads, ctas, unroll, chunk, stages, repeat};
                check_shape(shape);
                if (std::find(shapes.begin(), shapes.end(), shape) == shapes.end()) shapes.push_back(shape);
              }
            }
          }
        }
      }
    }
  }
  return shapes;
}

int ops_per_sample(double seconds_per_op) {
  if (!(seconds_per_op > 0)) return kMaxOpsPerSample;
  const double wanted = std::ceil(kTargetSampleSeconds / seconds_per_op);
  return static_cast<int>(std::clamp(wanted, 1.0, static_cast<double>(kMaxOpsPerSample)));
}

std::uint64_t P2pRequest::max_bytes() const {
  return sizes.empty() ? 0 : *std::max_element(sizes.begin(), sizes.end());
}

std::uint64_t P2pRequest::resolved_host_bytes() const {
  if (host_bytes != 0) return host_bytes;
  constexpr std::uint64_t kDefaultHostBytes = 256ull << 20;
  return std::max<std::uint64_t>(std::min(max_bytes(), kDefaultHostBytes), 1);
}

nlohmann::json to_json(const P2pRequest& request) {
  nlohmann::json methods = nlohmann::json::array();
  for (auto method : request.methods) methods.push_back(to_string(method));
  nlohmann::json shapes = nlohmann::json::array();
  for (const auto& shape : request.sm_shapes) {
    shapes.push_back({{"label", shape.label()}, {"variant", shape.variant}, {"threads", shape.threads},
                      {"ctas_per_sm", shape.ctas_per_sm}, {"unroll", shape.unroll},
                      {"bulk_chunk_bytes", shape.bulk_chunk_bytes}, {"bulk_stages", shape.bulk_stages},
                      {"repeat", to_string(shape.repeat)}});
  }
  nlohmann::json chases = nlohmann::json::array();
  for (const auto& spec : request.chase_specs) {
    chases.push_back({{"label", spec.label()}, {"order", to_string(spec.order)}, {"load", to_string(spec.load)},
                      {"footprint_bytes", spec.footprint_bytes}});
  }
  nlohmann::json pairs = nlohmann::json::array();
  for (const auto& pair : request.pairs) pairs.push_back(to_string(pair));
  nlohmann::json out = {{"methods", methods},
          {"sm_mode", mode_name(request.initiator)},
          {"initiator", initiator_name(request.initiator)},
          {"bidirectional", request.bidirectional},
          {"span_sync", to_string(request.span_sync)},
          {"verify", request.verify},
          {"allow_staged", request.allow_staged},
          {"measure", {{"copy", request.measure_copy}, {"latency", request.measure_latency}, {"host", request.measure_host}}},
          {"host_bytes", request.measure_host ? nlohmann::json(request.resolved_host_bytes()) : nlohmann::json(nullptr)},
          {"target_ci", request.sampling.target_ci},
          {"max_time_s", request.sampling.max_time_s},
          {"min_samples", request.sampling.min_samples},
          {"warmup_samples", request.warmup_samples},
          {"ops_per_sample_rule", request.forced_ops > 0
                                      ? fmt::format("fixed {}", request.forced_ops)
                                      : fmt::format("sample >= {:g} ms, at most {} ops", kTargetSampleSeconds * 1e3,
                                                    kMaxOpsPerSample)},
          {"seed", request.seed},
          {"sizes_bytes", request.sizes},
          {"pairs", pairs},
          {"sm_kernels", shapes},
          {"sm_repeat_in_kernel_min_bytes", kRepeatInKernelMinBytes},
          {"pointer_chases", chases},
          {"cpu_node", request.cpu_node ? nlohmann::json(*request.cpu_node) : nlohmann::json(nullptr)},
          {"cpu_list", request.cpu_list}};
  if (!request.testcases.empty()) {
    out["testcases"] = request.testcases;
    out["testcase_gpus"] = request.testcase_gpus;
    out["testcase_bytes"] = request.testcase_bytes > 0 ? nlohmann::json(request.testcase_bytes) : nlohmann::json(nullptr);
  }
  return out;
}

P2pRequest p2p_request_from_json(const nlohmann::json& document) {
  // A null field is an absent one (the Run document's rule), so `value()` falls back to the default for it.
  nlohmann::json config = document;
  if (config.is_object()) {
    for (auto it = config.begin(); it != config.end();) it = it->is_null() ? config.erase(it) : std::next(it);
  }
  P2pRequest request;
  request.methods.clear();
  for (const auto& method : config.value("methods", nlohmann::json::array())) {
    request.methods.push_back(method.get<std::string>() == "ce" ? CopyMethod::kCe : CopyMethod::kSm);
  }
  request.initiator = config.value("sm_mode", std::string("read")) == "write" ? Initiator::kSource : Initiator::kDestination;
  request.bidirectional = config.value("bidirectional", false);
  request.span_sync = config.value("span_sync", std::string("flag")) == "event" ? SpanSync::kEvent : SpanSync::kFlag;
  request.verify = config.value("verify", true);
  request.allow_staged = config.value("allow_staged", false);
  if (config.contains("measure")) {
    const auto& measure = config["measure"];
    request.measure_copy = measure.value("copy", true);
    request.measure_latency = measure.value("latency", true);
    request.measure_host = measure.value("host", true);
  }
  if (config.contains("host_bytes") && config["host_bytes"].is_number()) request.host_bytes = config["host_bytes"];
  request.sampling.target_ci = config.value("target_ci", request.sampling.target_ci);
  request.sampling.max_time_s = config.value("max_time_s", request.sampling.max_time_s);
  request.sampling.min_samples = config.value("min_samples", request.sampling.min_samples);
  request.warmup_samples = config.value("warmup_samples", request.warmup_samples);
  request.seed = config.value("seed", request.seed);
  request.sizes = config.value("sizes_bytes", std::vector<std::uint64_t>{});
  for (const auto& pair : config.value("pairs", nlohmann::json::array())) {
    const auto parsed = parse_pairs(pair.get<std::string>());
    request.pairs.insert(request.pairs.end(), parsed.begin(), parsed.end());
  }
  try {  // the kernel shapes and chases name their values as options; from a file they are bad input
    request.sm_shapes.clear();
    for (const auto& shape : config.value("sm_kernels", nlohmann::json::array())) {
      SmKernelShape s;
      s.variant = shape.value("variant", s.variant);
      s.threads = shape.value("threads", s.threads);
      s.ctas_per_sm = shape.value("ctas_per_sm", s.ctas_per_sm);
      s.unroll = shape.value("unroll", s.unroll);
      s.bulk_chunk_bytes = shape.value("bulk_chunk_bytes", s.bulk_chunk_bytes);
      s.bulk_stages = shape.value("bulk_stages", s.bulk_stages);
      s.repeat = sm_repeat_from_string(shape.value("repeat", std::string("auto")));
      request.sm_shapes.push_back(s);
    }
    if (config.contains("pointer_chases")) {
      request.chase_specs.clear();
      for (const auto& chase : config["pointer_chases"]) {
        ChaseSpec spec;
        spec.order = chase_order_from_string(chase.value("order", to_string(spec.order)));
        spec.load = chase_load_from_string(chase.value("load", to_string(spec.load)));
        spec.footprint_bytes = chase.value("footprint_bytes", spec.footprint_bytes);
        request.chase_specs.push_back(spec);
      }
    }
  } catch (const UsageError& e) {
    throw InputError("measurements.p2p.config", 0, e.what());
  }
  if (config.contains("cpu_node") && config["cpu_node"].is_number_integer()) request.cpu_node = config["cpu_node"].get<int>();
  request.cpu_list = config.value("cpu_list", std::string());
  request.testcases = config.value("testcases", std::vector<std::string>{});
  request.testcase_gpus = config.value("testcase_gpus", std::vector<int>{});
  request.testcase_bytes = config.value("testcase_bytes", std::uint64_t{0});
  return request;
}

std::uint64_t buffer_bytes_for(std::uint64_t bytes) { return (bytes + 15) / 16 * 16; }

std::map<int, std::uint64_t> p2p_bytes_per_device(const P2pRequest& request) {
  std::uint64_t largest = request.measure_copy ? request.max_bytes() : 0;
  if (request.measure_host) largest = std::max(largest, request.resolved_host_bytes());
  const std::uint64_t per_buffer = buffer_bytes_for(std::max<std::uint64_t>(largest, 16));
  // Chains are cached per owner, order and footprint (the load does not change the chain).
  std::uint64_t chain_bytes = 0;
  if (request.measure_latency) {
    std::vector<std::pair<ChaseOrder, std::uint64_t>> chains;
    for (const auto& spec : request.chase_specs) {
      const auto key = std::make_pair(spec.order, spec.footprint_bytes);
      if (std::find(chains.begin(), chains.end(), key) == chains.end()) {
        chains.push_back(key);
        chain_bytes += spec.footprint_bytes;
      }
    }
  }
  std::map<int, std::uint64_t> needed;
  for (int device : devices_of(request.pairs)) needed[device] = 2 * per_buffer + chain_bytes;
  return needed;
}

std::string format_gib(std::uint64_t bytes) { return fmt::format("{:.1f} GiB", static_cast<double>(bytes) / (1ull << 30)); }

std::string memory_shortfall(int device, std::uint64_t needed, std::uint64_t free_bytes, std::uint64_t margin_bytes,
                             std::string_view what) {
  if (needed + margin_bytes <= free_bytes) return {};
  return fmt::format("{} needs {} on GPU {} ({} for buffers + {} kept for the CUDA context), but only {} is free",
                     what, format_gib(needed + margin_bytes), device, format_gib(needed), format_gib(margin_bytes),
                     format_gib(free_bytes));
}

}  // namespace linkscope::plan

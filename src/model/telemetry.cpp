#include "model/telemetry.hpp"

#include <cmath>

#include <fmt/format.h>

#include "model/xid_codes.hpp"

namespace linkscope::model {

using nlohmann::json;

namespace {

constexpr std::array<std::string_view, kGpuCounterCount> kCounterKeys = {
    "pcie_replay",           "aer_correctable",           "aer_nonfatal",
    "aer_fatal",             "ecc_volatile_corrected",    "ecc_volatile_uncorrected",
    "retired_pages_single_bit", "retired_pages_double_bit", "remapped_rows_correctable",
    "remapped_rows_uncorrectable"};
constexpr std::array<std::string_view, kGpuCounterCount> kCounterWords = {
    "PCIe replay counter",
    "PCIe AER correctable errors",
    "PCIe AER non-fatal errors",
    "PCIe AER fatal errors",
    "corrected ECC errors",
    "uncorrected ECC errors",
    "pages retired for single-bit errors",
    "pages retired for double-bit errors",
    "rows remapped after correctable errors",
    "rows remapped after uncorrectable errors"};
constexpr std::array<std::string_view, kGpuFlagCount> kFlagKeys = {"retired_pages_pending", "remapped_rows_pending",
                                                                   "remapped_rows_failure"};
constexpr std::array<std::string_view, kLinkCounterCount> kLinkKeys = {"replay", "recovery", "crc_flit"};
constexpr std::array<std::string_view, kLinkCounterCount> kLinkWords = {
    "NVLink replay errors (retransmissions)", "NVLink recovery errors (link retrained)", "NVLink CRC flit errors"};

template <typename Enum, std::size_t N>
constexpr std::array<Enum, N> every() {
  std::array<Enum, N> all{};
  for (std::size_t i = 0; i < N; ++i) all[i] = static_cast<Enum>(i);
  return all;
}

// ---- counters ------------------------------------------------------------------------------------------------

json counters_json(const GpuCounters& counters) {
  json out = json::object();
  for (const auto c : every<GpuCounter, kGpuCounterCount>()) {
    if (counters[c]) out[std::string(counter_key(c))] = *counters[c];
  }
  for (const auto f : every<GpuFlag, kGpuFlagCount>()) {
    if (counters[f]) out[std::string(flag_key(f))] = *counters[f];
  }
  json links = json::array();
  for (const auto& link : counters.nvlinks) {
    json entry = {{"link", link.link}};
    for (const auto c : every<LinkCounter, kLinkCounterCount>()) {
      if (link[c]) entry[std::string(link_counter_key(c))] = *link[c];
    }
    links.push_back(std::move(entry));
  }
  if (!links.empty()) out["nvlinks"] = links;
  return out;
}

GpuCounters counters_from(const JsonReader& r) {
  GpuCounters counters;
  for (const auto c : every<GpuCounter, kGpuCounterCount>()) counters[c] = r.integer(counter_key(c));
  for (const auto f : every<GpuFlag, kGpuFlagCount>()) counters[f] = r.boolean(flag_key(f));
  for (const auto& item : r.array("nvlinks")) {
    LinkCounters link;
    link.link = item.small_int("link").value_or(0);
    for (const auto c : every<LinkCounter, kLinkCounterCount>()) link[c] = item.integer(link_counter_key(c));
    counters.nvlinks.push_back(link);
  }
  return counters;
}

json increases_json(const std::vector<CounterIncrease>& increases) {
  json out = json::array();
  for (const auto& i : increases) {
    json entry = {{"counter", i.quantity}, {"increase", i.increase}};
    if (i.link) entry["link"] = *i.link;
    out.push_back(std::move(entry));
  }
  return out;
}

// ---- samples: one array per quantity (a run samples every GPU ~10 times a second) -------------------------------

template <typename T, typename Get>
json column(const std::vector<TelemetrySample>& samples, Get get) {
  json out = json::array();
  for (const auto& s : samples) out.push_back(optional_json<T>(get(s)));
  return out;
}

json samples_json(const std::vector<TelemetrySample>& samples) {
  json reasons = json::array();
  for (const auto& s : samples) reasons.push_back(s.throttle_reasons);
  json times = json::array(), spans = json::array();
  for (const auto& s : samples) {
    times.push_back(s.t_s);
    spans.push_back(s.span_s);
  }
  return {{"t_s", times},
          {"span_s", spans},
          {"step", column<int>(samples, [](const TelemetrySample& s) { return s.step; })},
          {"gpu_util_percent", column<int>(samples, [](const TelemetrySample& s) { return s.gpu_util_percent; })},
          {"memory_util_percent", column<int>(samples, [](const TelemetrySample& s) { return s.memory_util_percent; })},
          {"sm_clock_mhz", column<int>(samples, [](const TelemetrySample& s) { return s.sm_clock_mhz; })},
          {"memory_clock_mhz", column<int>(samples, [](const TelemetrySample& s) { return s.memory_clock_mhz; })},
          {"power_w", column<double>(samples, [](const TelemetrySample& s) { return s.power_w; })},
          {"temperature_c", column<int>(samples, [](const TelemetrySample& s) { return s.temperature_c; })},
          {"memory_used_bytes",
           column<std::int64_t>(samples, [](const TelemetrySample& s) { return s.memory_used_bytes; })},
          {"throttle_reasons", reasons}};
}

// The column `key` of `r` (an array of `size` numbers or nulls); a missing column reads as all absent.
std::vector<std::optional<double>> number_column(const JsonReader& r, std::string_view key, std::size_t size) {
  std::vector<std::optional<double>> values(size);
  const json column = r.raw(key);
  if (column.is_null()) return values;
  if (!column.is_array() || column.size() != size) {
    r.fail(key, fmt::format("expected an array of {} numbers or nulls (one per t_s)", size));
  }
  for (std::size_t i = 0; i < size; ++i) {
    if (column[i].is_null()) continue;
    if (!column[i].is_number() || !std::isfinite(column[i].get<double>())) {
      r.fail(key, fmt::format("[{}]: expected a number or null", i));
    }
    values[i] = column[i].get<double>();
  }
  return values;
}

std::optional<int> as_int(const std::optional<double>& value) {
  return value ? std::optional<int>(static_cast<int>(std::lround(*value))) : std::nullopt;
}

std::vector<TelemetrySample> samples_from(const JsonReader& r) {
  const std::vector<double> times = r.numbers("t_s");
  const std::size_t n = times.size();
  const auto spans = number_column(r, "span_s", n);
  const auto steps = number_column(r, "step", n);
  const auto gpu_util = number_column(r, "gpu_util_percent", n);
  const auto memory_util = number_column(r, "memory_util_percent", n);
  const auto sm_clock = number_column(r, "sm_clock_mhz", n);
  const auto memory_clock = number_column(r, "memory_clock_mhz", n);
  const auto power = number_column(r, "power_w", n);
  const auto temperature = number_column(r, "temperature_c", n);
  const auto memory_used = number_column(r, "memory_used_bytes", n);
  const auto reasons = r.array("throttle_reasons");
  if (!reasons.empty() && reasons.size() != n) r.fail("throttle_reasons", fmt::format("expected {} entries", n));
  std::vector<TelemetrySample> samples(n);
  for (std::size_t i = 0; i < n; ++i) {
    TelemetrySample& s = samples[i];
    s.t_s = times[i];
    s.span_s = spans[i].value_or(0);
    s.step = as_int(steps[i]);
    s.gpu_util_percent = as_int(gpu_util[i]);
    s.memory_util_percent = as_int(memory_util[i]);
    s.sm_clock_mhz = as_int(sm_clock[i]);
    s.memory_clock_mhz = as_int(memory_clock[i]);
    s.power_w = power[i];
    s.temperature_c = as_int(temperature[i]);
    if (memory_used[i]) s.memory_used_bytes = static_cast<std::int64_t>(std::llround(*memory_used[i]));
    if (!reasons.empty()) {
      for (const auto& reason : reasons[i].elements()) {
        if (!reason.json().is_string()) reasons[i].fail("", "expected throttle reason names (strings)");
        s.throttle_reasons.push_back(reason.json().get<std::string>());
      }
    }
  }
  return samples;
}

// ---- the rest ------------------------------------------------------------------------------------------------

json gpu_json(const TelemetryGpu& gpu) {
  return with_extras({{"nvml_index", gpu.nvml_index},
                      {"cuda_ordinal", optional_json(gpu.cuda_ordinal)},
                      {"pci_bdf", gpu.pci_bdf},
                      {"uuid", gpu.uuid},
                      {"unavailable", gpu.unavailable},
                      {"samples", samples_json(gpu.samples)}},
                     gpu.extra);
}

TelemetryGpu gpu_from(const JsonReader& r) {
  TelemetryGpu gpu;
  gpu.nvml_index = r.small_int("nvml_index").value_or(0);
  gpu.cuda_ordinal = r.small_int("cuda_ordinal");
  gpu.pci_bdf = r.string_or("pci_bdf");
  gpu.uuid = r.string_or("uuid");
  gpu.unavailable = r.string_map("unavailable");
  gpu.samples = samples_from(r.object("samples"));
  gpu.extra = r.extras();
  return gpu;
}

json step_json(const TelemetryStep& step) {
  json gpus = json::array();
  for (const auto& g : step.gpus) {
    json entry = {{"nvml_index", g.nvml_index}, {"before", counters_json(g.before)}};
    entry["after"] = g.after ? counters_json(*g.after) : json(nullptr);
    entry["increases"] = increases_json(g.after ? counter_increases(g.before, *g.after) : std::vector<CounterIncrease>{});
    gpus.push_back(std::move(entry));
  }
  return with_extras({{"name", step.name},
                      {"start_s", step.start_s},
                      {"end_s", optional_json(step.end_s)},
                      {"pids", step.pids},
                      {"gpus", gpus}},
                     step.extra);
}

TelemetryStep step_from(const JsonReader& r) {
  TelemetryStep step;
  step.name = r.string_or("name");
  step.start_s = r.number("start_s").value_or(0);
  step.end_s = r.number("end_s");
  step.pids = r.integers("pids");
  for (const auto& item : r.array("gpus")) {
    TelemetryStepGpu gpu;
    gpu.nvml_index = item.small_int("nvml_index").value_or(0);
    gpu.before = counters_from(item.object("before"));
    if (item.has("after")) gpu.after = counters_from(item.object("after"));
    item.skip({"increases"});  // recomputed from before and after
    step.gpus.push_back(std::move(gpu));
  }
  step.extra = r.extras();
  return step;
}

json process_json(const TelemetryProcess& p) {
  return with_extras({{"pid", p.pid},
                      {"name", string_or_null(p.name)},
                      {"nvml_index", p.nvml_index},
                      {"owner", string_or_null(p.owner)},
                      {"visible", p.visible},
                      {"first_seen_s", p.first_seen_s},
                      {"last_seen_s", p.last_seen_s},
                      {"samples", p.samples},
                      {"steps", p.steps},
                      {"samples_outside_steps", p.samples_outside_steps},
                      {"max_used_memory_bytes", optional_json(p.max_used_memory_bytes)}},
                     p.extra);
}

TelemetryProcess process_from(const JsonReader& r) {
  TelemetryProcess p;
  p.pid = r.integer("pid").value_or(0);
  p.name = r.string_or("name");
  p.nvml_index = r.small_int("nvml_index").value_or(0);
  p.owner = r.string_or("owner");
  p.visible = r.boolean("visible").value_or(false);
  p.first_seen_s = r.number("first_seen_s").value_or(0);
  p.last_seen_s = r.number("last_seen_s").value_or(0);
  p.samples = r.small_int("samples").value_or(0);
  for (const auto step : r.integers("steps")) p.steps.push_back(static_cast<int>(step));
  p.samples_outside_steps = r.small_int("samples_outside_steps").value_or(0);
  p.max_used_memory_bytes = r.integer("max_used_memory_bytes");
  p.extra = r.extras();
  return p;
}

}  // namespace

std::string_view counter_key(GpuCounter counter) { return kCounterKeys[static_cast<std::size_t>(counter)]; }
std::string_view counter_words(GpuCounter counter) { return kCounterWords[static_cast<std::size_t>(counter)]; }
std::string_view flag_key(GpuFlag flag) { return kFlagKeys[static_cast<std::size_t>(flag)]; }
std::string_view link_counter_key(LinkCounter counter) { return kLinkKeys[static_cast<std::size_t>(counter)]; }
std::string_view link_counter_words(LinkCounter counter) { return kLinkWords[static_cast<std::size_t>(counter)]; }
std::string link_counter_quantity(LinkCounter counter) { return "nvlink_" + std::string(link_counter_key(counter)); }

const LinkCounters* GpuCounters::link(int number) const {
  for (const auto& l : nvlinks) {
    if (l.link == number) return &l;
  }
  return nullptr;
}

std::vector<CounterIncrease> counter_increases(const GpuCounters& before, const GpuCounters& after) {
  std::vector<CounterIncrease> out;
  for (const auto c : every<GpuCounter, kGpuCounterCount>()) {
    if (before[c] && after[c] && *after[c] > *before[c]) {
      out.push_back({std::string(counter_key(c)), std::nullopt, *after[c] - *before[c]});
    }
  }
  for (const auto& link : after.nvlinks) {
    const LinkCounters* earlier = before.link(link.link);
    if (earlier == nullptr) continue;
    for (const auto c : every<LinkCounter, kLinkCounterCount>()) {
      if ((*earlier)[c] && link[c] && *link[c] > *(*earlier)[c]) {
        out.push_back({link_counter_quantity(c), link.link, *link[c] - *(*earlier)[c]});
      }
    }
  }
  return out;
}

const TelemetryGpu* Telemetry::gpu(int nvml_index) const {
  for (const auto& g : gpus) {
    if (g.nvml_index == nvml_index) return &g;
  }
  return nullptr;
}

std::optional<int> Telemetry::cuda_ordinal(int nvml_index) const {
  const TelemetryGpu* g = gpu(nvml_index);
  return g != nullptr ? g->cuda_ordinal : std::nullopt;
}

std::optional<int> Telemetry::step_at(double t_s) const {
  for (std::size_t i = 0; i < steps.size(); ++i) {
    if (t_s >= steps[i].start_s && (!steps[i].end_s || t_s <= *steps[i].end_s)) return static_cast<int>(i);
  }
  return std::nullopt;
}

json to_json(const Telemetry& t) {
  json gpus = json::array(), steps = json::array(), processes = json::array(), xids = json::array();
  for (const auto& g : t.gpus) gpus.push_back(gpu_json(g));
  for (const auto& s : t.steps) steps.push_back(step_json(s));
  for (const auto& p : t.processes) processes.push_back(process_json(p));
  for (const auto& x : t.xid_events) {
    xids.push_back({{"t_s", x.t_s},
                    {"nvml_index", x.nvml_index},
                    {"xid", x.xid},
                    {"meaning", xid_meaning(x.xid)},
                    {"step", optional_json(x.step)}});
  }
  const SamplingCost& c = t.cost;
  return with_extras({{"interval_s", t.interval_s},
                      {"started_at", t.started_at},
                      {"duration_s", t.duration_s},
                      {"passes", t.passes},
                      {"max_samples_per_gpu", t.max_samples_per_gpu},
                      {"cost",
                       {{"cpu_seconds", c.cpu_seconds},
                        {"pass_cpu_us_median", optional_json(c.pass_cpu_us_median)},
                        {"pass_cpu_us_max", optional_json(c.pass_cpu_us_max)},
                        {"pass_wall_us_median", optional_json(c.pass_wall_us_median)},
                        {"pass_wall_us_max", optional_json(c.pass_wall_us_max)},
                        {"counters_wall_us_median", optional_json(c.counters_wall_us_median)}}},
                      {"doctor_pid", t.doctor_pid},
                      {"own_pids", t.own_pids},
                      {"unavailable", string_or_null(t.unavailable)},
                      {"xid_unavailable", string_or_null(t.xid_unavailable)},
                      {"gpus", gpus},
                      {"steps", steps},
                      {"processes", processes},
                      {"xid_events", xids}},
                     t.extra);
}

Telemetry telemetry_from_json(const JsonReader& r) {
  Telemetry t;
  t.interval_s = r.number("interval_s").value_or(0);
  t.started_at = r.string_or("started_at");
  t.duration_s = r.number("duration_s").value_or(0);
  t.passes = static_cast<std::size_t>(r.count("passes").value_or(0));
  t.max_samples_per_gpu = static_cast<std::size_t>(r.count("max_samples_per_gpu").value_or(0));
  const JsonReader cost = r.object("cost");
  t.cost.cpu_seconds = cost.number("cpu_seconds").value_or(0);
  t.cost.pass_cpu_us_median = cost.number("pass_cpu_us_median");
  t.cost.pass_cpu_us_max = cost.number("pass_cpu_us_max");
  t.cost.pass_wall_us_median = cost.number("pass_wall_us_median");
  t.cost.pass_wall_us_max = cost.number("pass_wall_us_max");
  t.cost.counters_wall_us_median = cost.number("counters_wall_us_median");
  t.doctor_pid = r.integer("doctor_pid").value_or(0);
  t.own_pids = r.integers("own_pids");
  t.unavailable = r.string_or("unavailable");
  t.xid_unavailable = r.string_or("xid_unavailable");
  for (const auto& g : r.array("gpus")) t.gpus.push_back(gpu_from(g));
  for (const auto& s : r.array("steps")) t.steps.push_back(step_from(s));
  for (const auto& p : r.array("processes")) t.processes.push_back(process_from(p));
  for (const auto& x : r.array("xid_events")) {
    XidEvent event;
    event.t_s = x.number("t_s").value_or(0);
    event.nvml_index = x.small_int("nvml_index").value_or(0);
    event.xid = x.small_int("xid").value_or(0);
    event.step = x.small_int("step");
    x.skip({"meaning"});  // from the one Xid table (model/xid_codes)
    t.xid_events.push_back(event);
  }
  t.extra = r.extras();
  return t;
}

}  // namespace linkscope::model

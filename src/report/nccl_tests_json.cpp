#include "report/nccl_tests_json.hpp"

#include <cmath>
#include <cstdio>

namespace linkscope::report {

namespace {

// nccl-tests escapes " \ / tab and newline and stops at other control or non-ASCII characters.
std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\' || c == '/') {
      out += '\\';
      out += c;
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\n') {
      out += "\\n";
    } else if (u >= 0x7f || u <= 0x1f) {
      break;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string number(double value) {
  if (std::isnan(value)) return "\"nan\"";
  char text[64];
  std::snprintf(text, sizeof text, "%lf", value);
  return text;
}

std::string boolean(bool value) { return value ? "\"true\"" : "\"false\""; }

// Writes "key":value pairs and lists without spaces, as nccl-tests' writer does.
class Fields {
 public:
  Fields& add(const char* key, const std::string& value) {
    out_ += (out_.empty() ? "" : ",") + quoted(key) + ":" + value;
    return *this;
  }
  std::string object() const { return "{" + out_ + "}"; }

 private:
  std::string out_;
};

template <typename T, typename Format>
std::string list(const std::vector<T>& values, Format&& format) {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i) out += (i ? "," : "") + format(values[i]);
  return out + "]";
}

std::string hex_bdf(const NcclTestsDevice& d) {
  char text[32];
  std::snprintf(text, sizeof text, "%04x:%02x:%02x", d.pci_domain, d.pci_bus, d.pci_device);
  return text;
}

std::string device_json(const NcclTestsDevice& d) {
  return Fields()
      .add("rank", std::to_string(d.rank))
      .add("group", std::to_string(d.group))
      .add("pid", std::to_string(d.pid))
      .add("hostname", quoted(d.host))
      .add("device", std::to_string(d.cuda_device))
      .add("device_hex", quoted(hex_bdf(d)))
      .add("device_info", quoted(d.name))
      .object();
}

std::string config_json(const NcclTestsPreamble& p) {
  Fields f;
  f.add("nthreads", std::to_string(p.threads)).add("ngpus", std::to_string(p.gpus_per_thread));
  f.add("minimum_bytes", std::to_string(p.min_bytes)).add("maximum_bytes", std::to_string(p.max_bytes));
  f.add(p.step_is_factor ? "step_factor" : "step_bytes", std::to_string(p.step));
  f.add("warmup_iters", std::to_string(p.warmup_iters)).add("iterations", std::to_string(p.iters));
  f.add("aggregated_iterations", std::to_string(p.agg_iters)).add("validation", std::to_string(p.validation));
  f.add("graph", std::to_string(p.graph_launches)).add("blocking_collectives", boolean(p.blocking != 0));
  f.add("per_iter_timing", boolean(p.per_iteration)).add("per_iter_skip", std::to_string(p.per_iteration_skip));
  f.add("parallel_init", boolean(p.parallel_init));
  f.add("devices", list(p.devices, device_json));
  return f.object();
}

std::string per_iteration_json(const model::IterationTimes& t) {
  Fields f;
  f.add("skipped_iterations", std::to_string(t.skipped));
  f.add("min_us", number(t.min_us)).add("max_us", number(t.max_us)).add("avg_us", number(t.avg_us));
  f.add("p50_us", number(t.p50_us)).add("p95_us", number(t.p95_us)).add("p99_us", number(t.p99_us));
  f.add("stdev_us", number(t.stdev_us)).add("cv_pct", number(t.cv_pct));
  f.add("times_us", list(t.times_us, number));
  if (t.per_process_us.size() > 1) {
    f.add("per_process_max_times_us", list(t.per_process_us, [](const std::vector<double>& row) { return list(row, number); }));
  }
  return f.object();
}

void add_cell(Fields& f, const NcclTestsCell& cell, bool out_of_place, bool cputime) {
  Fields c;
  c.add(cputime ? "cpu_time" : "time", number(cell.time_us));
  c.add("alg_bw", number(cell.algbw_gbps)).add("bus_bw", number(cell.busbw_gbps));
  c.add("nwrong", cell.wrong ? number(*cell.wrong) : "null");
  f.add(out_of_place ? "out_of_place" : "in_place", c.object());
  if (cell.per_iteration) {
    f.add(out_of_place ? "out_of_place_per_iter" : "in_place_per_iter", per_iteration_json(*cell.per_iteration));
  }
}

std::string result_json(const NcclTestsRow& row, int iterations, bool cputime) {
  char root[32];
  std::snprintf(root, sizeof root, "%6i", row.root);
  Fields f;
  f.add("size", std::to_string(row.size_bytes)).add("count", std::to_string(row.count));
  f.add("type", quoted(row.type)).add("redop", quoted(row.redop)).add("root", quoted(root));
  add_cell(f, row.out_of_place, true, cputime);
  add_cell(f, row.in_place, false, cputime);
  f.add("actual_iterations", std::to_string(iterations)).add("experiment_name", quoted(""));
  return f.object();
}

}  // namespace

std::string render_nccl_tests_json(const NcclTestsJsonDocument& d) {
  Fields f;
  f.add("version", std::to_string(kNcclTestsJsonVersion));
  f.add("start_time", quoted(d.start_time));
  f.add("args", list(d.args, quoted));
  f.add("env", list(d.env, quoted));
  f.add("nccl_version", std::to_string(d.preamble.nccl_library_code));
  f.add("config", config_json(d.preamble));
  f.add("results", list(d.rows, [&](const NcclTestsRow& row) { return result_json(row, d.preamble.iters, d.cputime); }));
  f.add("out_of_bounds", Fields()
                             .add("count", std::to_string(d.footer.out_of_bounds))
                             .add("okay", boolean(d.footer.out_of_bounds == 0))
                             .object());
  const std::string okay = !d.footer.minimum_busbw ? quoted("unchecked") : boolean(!nccl_tests_bandwidth_failed(d.footer));
  f.add("average_bus_bandwidth",
        Fields().add("bandwidth", number(d.footer.average_busbw_gbps)).add("okay", okay).object());
  f.add("errors", list(d.errors, quoted));
  f.add("end_time", quoted(d.end_time));
  return f.object();
}

}  // namespace linkscope::report

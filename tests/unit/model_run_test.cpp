// The typed Run and its document: one reader and one writer per section. What a writer writes, the reader reads
// back to the same document with nothing left over (so both agree on every field name); older and newer documents
// load (missing fields are absent, unknown fields are kept); a damaged document is refused naming the field.
#include <gtest/gtest.h>

#include <filesystem>

#include <fmt/format.h>

#include "core/error.hpp"
#include "diagnose/diagnose.hpp"
#include "discover/system_model.hpp"
#include "discover/system_facts.hpp"
#include "discover/visibility.hpp"
#include "discover_recorded_h200x2.hpp"
#include "discover_snapshot.hpp"
#include "model/run_file.hpp"
#include "runtime/nccl_log.hpp"
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"
#include "topo/topology_model.hpp"
#include "support/model_versions.hpp"

namespace linkscope::model {
namespace {

model::Run reread(const model::Run& run) { return run_from_json(to_json(run), "round trip"); }

// Every object in `document` below `path` that a reader kept as unknown fields (none, for a document this build
// wrote).
void expect_no_extras(const model::Run& run) {
  EXPECT_TRUE(run.extra.empty()) << run.extra.dump();
  EXPECT_TRUE(run.system.extra.empty()) << run.system.extra.dump();
  for (const auto& gpu : run.system.gpus) {
    EXPECT_TRUE(gpu.extra.empty()) << gpu.extra.dump();
    EXPECT_TRUE(gpu.pcie.extra.empty()) << gpu.pcie.extra.dump();
    for (const auto& link : gpu.nvlink_list()) EXPECT_TRUE(link.extra.empty()) << link.extra.dump();
  }
  for (const auto& pair : run.system.pairs) EXPECT_TRUE(pair.extra.empty()) << pair.extra.dump();
  for (const auto& nic : run.system.nics) EXPECT_TRUE(nic.extra.empty()) << nic.extra.dump();
  EXPECT_TRUE(run.topology.extra.empty()) << run.topology.extra.dump();
  for (const auto& node : run.topology.nodes) EXPECT_TRUE(node.extra.empty()) << node.id << ": " << node.extra.dump();
  EXPECT_TRUE(run.runtime.extra.empty()) << run.runtime.extra.dump();
  for (const auto& r : run.runtime.runs) EXPECT_TRUE(r.extra.empty()) << r.extra.dump();
  EXPECT_TRUE(run.measurements.extra.empty()) << run.measurements.extra.dump();
  if (run.measurements.p2p) {
    EXPECT_TRUE(run.measurements.p2p->extra.empty()) << run.measurements.p2p->extra.dump();
  }
  if (run.measurements.collectives) {
    for (const auto& series : *run.measurements.collectives) {
      EXPECT_TRUE(series.extra.empty()) << series.extra.dump();
      for (const auto& point : series.points) EXPECT_TRUE(point.extra.empty()) << point.extra.dump();
    }
  }
  if (run.measurements.patterns) {
    for (const auto& pattern : run.measurements.patterns->patterns) EXPECT_TRUE(pattern.extra.empty()) << pattern.extra.dump();
  }
  if (run.measurements.ladder) {
    EXPECT_TRUE(run.measurements.ladder->extra.empty()) << run.measurements.ladder->extra.dump();
  }
  for (const auto& f : run.findings) EXPECT_TRUE(f.extra.empty()) << f.extra.dump();
  for (const auto& h : run.hypotheses) EXPECT_TRUE(h.extra.empty()) << h.extra.dump();
}

void expect_round_trip(const model::Run& run, const std::string& what) {
  SCOPED_TRACE(what);
  const nlohmann::json document = to_json(run);
  const model::Run back = run_from_json(document, what);
  EXPECT_EQ(to_json(back), document);
  expect_no_extras(back);
}

TEST(ModelRun, StampsToolAndCommand) {
  const model::Run run = make_run("topo", {"linkscope", "topo", "--xml", "x.xml"});
  EXPECT_EQ(run.tool.name, "linkscope");
  EXPECT_EQ(run.config.subcommand, "topo");
  EXPECT_EQ(run.config.argv.size(), 4u);
  EXPECT_EQ(run.config.started_at.size(), 20u);
  const nlohmann::json document = to_json(run);
  EXPECT_EQ(document["schema_version"], fmt::format("{}.{}", kRunSchemaMajor, kRunSchemaMinor));
  EXPECT_EQ(document["config"]["argv"][3], "x.xml");
}

// Engine values of every section, written and read back: the system of the recorded 2 x H200 machine (one GPU
// hidden), NCCL's model of its dump, the runtime of its real NCCL log, the measurements of the fixture runs, and the
// diagnosis of them.
TEST(ModelRun, EverySectionRoundTripsFromEngineValues) {
  test::H200x2Snapshot snapshot;
  ASSERT_TRUE(snapshot.ok()) << snapshot.error();
  const auto env = Environment::from_map({{"CUDA_VISIBLE_DEVICES", "1"}});
  const discover::NvmlSnapshot nvml = test::h200x2_nvml_snapshot();
  const discover::SystemFacts facts = discover::assemble_system_facts(
      discover::read_host_facts(discover::SysfsRoot(snapshot.root())), nvml, test::h200x2_cuda_snapshot(nvml, {1}), env);

  model::Run run = make_run("doctor", {"linkscope", "doctor"});
  run.environment.variables = env.relevant();
  run.environment.nccl_version = "2.28.3";
  run.system = discover::system_model(facts);
  ASSERT_FALSE(run.system.visibility.hidden.empty());
  run.topology = topo::topology_view(
      topo::load_topology_string(test::read_text(test::fixture("h200x2/nccl-topo-dump.xml")), "dump.xml", env, test::nccl_2_28_9()));
  RuntimeRun log_run;
  log_run.context = "coll all_reduce";
  log_run.env = {{"NCCL_NVLS_ENABLE", "0"}};
  log_run.info = runtime::parse_nccl_log(test::read_text(test::fixture("h200x2/nccl-2.28.3-info.log")));
  ASSERT_FALSE(log_run.info.connections.empty());
  run.runtime.nccl_version = "2.28.3";
  run.runtime.runs = {log_run, RuntimeRun::not_recorded("coll sendrecv", "NCCL_DEBUG was set by the user")};
  const model::Run measured = read_run_file(test::fixture("runs/h200x2-healthy.json"));
  run.measurements = measured.measurements;
  ASSERT_TRUE(run.measurements.p2p && run.measurements.patterns && run.measurements.collectives &&
              run.measurements.ladder);
  diagnose::diagnose_into(run, true);
  ASSERT_FALSE(run.hypotheses.empty());
  run.record_error("p2p 0>1 1G", "out of memory");
  run.config.skipped = {{"patterns", "one GPU: no pair to copy between"}, {"coll all_reduce", "NCCL: not found"}};
  expect_round_trip(run, "every section");

  // The system section is what discovery builds, field for field, once read back.
  const model::Run back = reread(run);
  ASSERT_EQ(back.system.gpus.size(), run.system.gpus.size());
  EXPECT_EQ(back.system.gpus[0].pci_bdf, run.system.gpus[0].pci_bdf);
  EXPECT_EQ(back.system.gpus[0].nvlink_list().size(), 18u);
  EXPECT_EQ(back.system.visibility.hidden[0].reason, "CUDA_VISIBLE_DEVICES=1 does not select it");
  EXPECT_EQ(back.runtime.runs[0].info.connections.size(), log_run.info.connections.size());
  EXPECT_FALSE(back.runtime.runs[1].recorded);
  EXPECT_EQ(back.errors[0].where, "p2p 0>1 1G");
  ASSERT_EQ(back.config.skipped.size(), 2u);
  EXPECT_EQ(back.config.skipped[1].step, "coll all_reduce");
  EXPECT_EQ(back.config.skipped[1].reason, "NCCL: not found");
}

TEST(ModelRun, EveryFixtureRunLoadsAndRewritesItself) {
  const std::string dir = test::fixture("runs");
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    ++files;
    const model::Run run = read_run_file(entry.path().string());
    // A document of schema 1.0, made by another writer, becomes one this build writes; that one is stable.
    expect_round_trip(reread(run), entry.path().filename().string());
  }
  EXPECT_GE(files, 8);
}

TEST(ModelRun, UnknownFieldsOfANewerDocumentAreKept) {
  nlohmann::json document = to_json(read_run_file(test::fixture("runs/h200x2-healthy.json")));
  document["schema_version"] = fmt::format("{}.{}", kRunSchemaMajor, kRunSchemaMinor + 5);
  document["telemetry"] = {{"samples", 3}};
  document["system"]["gpus"][0]["fan_speed_percent"] = 41;
  document["measurements"]["p2p"]["points"][0]["power_w"] = 412.5;
  const model::Run run = run_from_json(document, "newer.json");
  const nlohmann::json again = to_json(run);
  EXPECT_EQ(again["telemetry"]["samples"], 3);
  EXPECT_EQ(again["system"]["gpus"][0]["fan_speed_percent"], 41);
  EXPECT_EQ(again["measurements"]["p2p"]["points"][0]["power_w"], 412.5);
  EXPECT_EQ(again["schema_version"], fmt::format("{}.{}", kRunSchemaMajor, kRunSchemaMinor));
}

// Facts added after documents without them were saved: read as typed fields when there, written back as they came,
// and never added (not even as null) to a document that lacks them.
TEST(ModelRun, LaterGpuFactsComeBackOnlyWhereTheyWere) {
  nlohmann::json document = to_json(read_run_file(test::fixture("runs/h200x2-healthy.json")));
  auto& gpus = document["system"]["gpus"];
  ASSERT_GE(gpus.size(), 2u);
  ASSERT_FALSE(gpus[0].contains("memory_bus_width_bits"));
  ASSERT_FALSE(gpus[0].contains("l2_cache_bytes"));
  gpus[0]["memory_bus_width_bits"] = 6144;
  gpus[0]["l2_cache_bytes"] = 52428800;
  gpus[1]["l2_cache_bytes"] = nullptr;
  gpus[1]["l2_cache_bytes_reason"] = "not visible to CUDA";
  const model::Run run = run_from_json(document, "later.json");
  expect_no_extras(run);
  EXPECT_EQ(run.system.gpus[0].memory_bus_width_bits, Known<int>(6144));
  EXPECT_EQ(run.system.gpus[0].l2_cache_bytes, Known<std::int64_t>(52428800));
  EXPECT_EQ(run.system.gpus[1].l2_cache_bytes.reason, "not visible to CUDA");
  const nlohmann::json again = to_json(run);
  EXPECT_EQ(again["system"]["gpus"][0]["memory_bus_width_bits"], 6144);
  EXPECT_EQ(again["system"]["gpus"][0]["l2_cache_bytes"], 52428800);
  EXPECT_TRUE(again["system"]["gpus"][1]["l2_cache_bytes"].is_null());
  EXPECT_EQ(again["system"]["gpus"][1]["l2_cache_bytes_reason"], "not visible to CUDA");
  EXPECT_FALSE(again["system"]["gpus"][1].contains("memory_bus_width_bits")) << "added to a GPU that lacked it";
}

TEST(ModelRun, MissingFieldsAreAbsentNotZero) {
  const model::Run run = run_from_json({{"schema_version", "1.0"},
                                 {"measurements", {{"p2p", {{"points", {{{"src", 0}, {"dst", 1}, {"bytes", 1024}}}}}}}}},
                                "old.json");
  ASSERT_TRUE(run.measurements.p2p);
  const CopyPoint& point = run.measurements.p2p->points.at(0);
  EXPECT_FALSE(point.bandwidth_gbps.has_value());
  EXPECT_FALSE(run.system.present);
  EXPECT_FALSE(run.topology.present);
  EXPECT_FALSE(run.measurements.collectives.has_value());
}

void expect_refused(const nlohmann::json& document, const std::string& field, const std::string& what) {
  try {
    run_from_json(document, "bad.json");
    ADD_FAILURE() << "accepted " << document.dump();
  } catch (const InputError& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind("bad.json: " + field + ": ", 0), 0u) << message;
    EXPECT_NE(message.find(what), std::string::npos) << message;
  }
}

TEST(ModelRun, WrongTypesAreRefusedNamingTheField) {
  expect_refused({{"schema_version", "1.0"},
                  {"measurements", {{"p2p", {{"points", {{{"src", 0}, {"bandwidth_gbps", {{"median", "fast"}}}}}}}}}}},
                 "measurements.p2p.points[0].bandwidth_gbps.median", "expected a number, found a string");
  expect_refused({{"schema_version", "1.0"}, {"measurements", {{"p2p", {{"points", "none"}}}}}},
                 "measurements.p2p.points", "expected an array, found a string");
  expect_refused({{"schema_version", "1.0"}, {"system", {{"gpus", 5}}}}, "system.gpus", "expected an array");
  expect_refused({{"schema_version", "1.0"},
                  {"measurements", {{"collectives", {{{"op", "all_reduce"}, {"nranks", 2}, {"points", {{{"bytes", -4}}}}}}}}}},
                 "measurements.collectives[0].points[0].bytes", "non-negative");
  expect_refused({{"schema_version", "1.0"}, {"measurements", {{"collectives", {{{"op", "all_shuffle"}, {"nranks", 2}}}}}}},
                 "measurements.collectives[0].op", "unknown collective");
  expect_refused({{"schema_version", "1.0"}, {"findings", {{{"id", "x"}, {"severity", "fatal"}}}}},
                 "findings[0].severity", "unknown severity");
}

TEST(ModelRun, RejectsForeignDocuments) {
  EXPECT_THROW(run_from_json(nlohmann::json::array(), "a.json"), InputError);
  EXPECT_THROW(run_from_json({{"x", 1}}, "a.json"), InputError);
  EXPECT_THROW(run_from_json({{"schema_version", "2.0"}}, "a.json"), InputError);
  try {
    run_from_json({{"schema_version", "9.1"}}, "old.json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("old.json: ", 0), 0u) << e.what();
  }
}

TEST(ModelRun, MalformedSchemaVersionIsRefusedNamingTheField) {
  const nlohmann::json forms[] = {"1.3.1", " 1.3", "1.3 ", "1", "1.", ".3", "1.3x", "01.3", "1,3", "", "1.3\x1b" "[2J",
                                  1.3, 1, nullptr, nlohmann::json::array({1, 3}), std::string(5000, '1')};
  for (const auto& form : forms) {
    try {
      run_from_json({{"schema_version", form}}, "bad.json");
      ADD_FAILURE() << form.dump() << " was accepted";
    } catch (const InputError& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.rfind("bad.json: schema_version: expected a string \"MAJOR.MINOR\"", 0), 0u) << what;
      EXPECT_EQ(what.find('\x1b'), std::string::npos) << what;
      EXPECT_LT(what.size(), 200u) << what;
    }
  }
  // The accepted form: any minor of this major.
  EXPECT_NO_THROW(run_from_json({{"schema_version", fmt::format("{}.0", kRunSchemaMajor)}}, "good.json"));
  EXPECT_NO_THROW(run_from_json({{"schema_version", fmt::format("{}.10", kRunSchemaMajor)}}, "good.json"));
}

TEST(ModelRun, FileRoundTripAndBadFilesAreNamed) {
  test::TempDir dir;
  const model::Run run = make_run("topo", {"linkscope"});
  const std::string path = dir.path() + "/run.json";
  write_run_file(path, run);
  EXPECT_EQ(to_json(read_run_file(path)), to_json(run));
  const std::string bad = dir.write("bad.json", "{\n  \"schema_version\": \"1.0\",\n  oops\n}\n");
  try {
    read_run_file(bad);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 3);
    EXPECT_EQ(std::string(e.what()).rfind(bad + ":3: ", 0), 0u) << e.what();
  }
  EXPECT_THROW(read_run_file(dir.path() + "/missing.json"), InputError);
  EXPECT_THROW(read_run_file(dir.path()), InputError);  // a directory
  EXPECT_THROW(read_run_file("/dev/zero"), InputError);  // not a regular file: refused, not read forever
  // The writer never writes over the file the run came from.
  EXPECT_THROW(write_run_file(path, run, {path}), InputError);
}

}  // namespace
}  // namespace linkscope::model

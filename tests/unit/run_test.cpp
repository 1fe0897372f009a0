#include "core/run.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

namespace linkscope {
namespace {

TEST(RunDocument, StampsToolAndCommand) {
  const RunDocument run = make_run("topo", {"linkscope", "topo", "--xml", "x.xml"});
  EXPECT_EQ(run.tool["name"], "linkscope");
  EXPECT_EQ(run.config["subcommand"], "topo");
  EXPECT_EQ(run.config["argv"].size(), 4u);
  EXPECT_EQ(run.config["started_at"].get<std::string>().size(), 20u);
}

TEST(RunDocument, JsonRoundTripKeepsEverySection) {
  RunDocument run = make_run("p2p", {"linkscope", "p2p"});
  run.system["gpus"] = nlohmann::json::array({{{"uuid", "GPU-1"}}});
  run.measurements["p2p"] = {{"points", 3}};
  run.findings.push_back({{"id", "pair-asymmetric"}, {"severity", "warning"}});
  record_error(run, "p2p 0>1 1G", "out of memory");
  const nlohmann::json document = run_to_json(run);
  EXPECT_EQ(document["schema_version"], "1.0");
  const RunDocument back = run_from_json(document, "mem");
  EXPECT_EQ(run_to_json(back), document);
  EXPECT_EQ(back.errors.size(), 1u);
}

TEST(RunDocument, RejectsForeignDocuments) {
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

TEST(RunDocument, FileRoundTripAndMalformedFileNamesLine) {
  test::TempDir dir;
  const RunDocument run = make_run("topo", {"linkscope"});
  const std::string path = dir.path() + "/run.json";
  write_run_file(path, run);
  EXPECT_EQ(run_to_json(read_run_file(path)), run_to_json(run));
  const std::string bad = dir.write("bad.json", "{\n  \"schema_version\": \"1.0\",\n  oops\n}\n");
  try {
    read_run_file(bad);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 3);
    EXPECT_EQ(std::string(e.what()).rfind(bad + ":3: ", 0), 0u) << e.what();
  }
  EXPECT_THROW(read_run_file(dir.path() + "/missing.json"), InputError);
}

}  // namespace
}  // namespace linkscope

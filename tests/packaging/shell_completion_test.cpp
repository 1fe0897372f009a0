// The completion scripts generated from a CLI11 definition, run in a real bash (and checked by zsh -n where zsh
// is installed): subcommands, their options, file names after options that take a value; hidden ones left out.
#include "cli/shell_completion.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "support/mpi_launcher.hpp"
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

namespace linkscope::cli {
namespace {

struct Cli {
  CLI::App app{"test"};
  bool quick = false;
  std::string output, format, run;
  Cli() {
    app.set_version_flag("--version", "1");
    auto* doctor = app.add_subcommand("doctor", "Diagnose this machine: [what] it finds");
    doctor->add_flag("--quick", quick, "about 25 s");
    doctor->add_option("-o,--output", output, "the report's directory");
    auto* report = app.add_subcommand("report", "Render a saved run");
    report->add_option("run", run, "a Run document")->required();
    report->add_option("--format", format, "text, md, html or json");
    app.add_subcommand("__hidden", "Internal")->group("");
  }
};

std::string write(const test::TempDir& dir, const std::string& name, const std::string& text) {
  const std::string path = dir.path() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

// COMPREPLY after sourcing `script` with the words typed so far (the last one is being completed).
std::string complete(const std::string& script, const std::string& words) {
  const std::string program = "source '" + script + "'; COMP_WORDS=(" + words +
                              "); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _linkscope; echo \"${COMPREPLY[*]}\"";
  const auto result = test::run_command("/bin/bash", {"-c", program});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return result.out;
}

TEST(ShellCompletion, BashCompletesSubcommandsOptionsAndFiles) {
  Cli cli;
  test::TempDir dir;
  const std::string script = write(dir, "linkscope.bash", bash_completion(cli.app, "linkscope"));
  EXPECT_EQ(complete(script, "linkscope ''"), "-h --help --version doctor report\n");
  EXPECT_EQ(complete(script, "linkscope do"), "doctor\n");
  EXPECT_EQ(complete(script, "linkscope doctor --"), "--help --quick --output\n");
  EXPECT_EQ(complete(script, "linkscope __"), "\n");  // hidden subcommands are not offered
  write(dir, "run.json", "{}");
  EXPECT_EQ(complete(script, "linkscope doctor -o " + dir.path() + "/ru"), dir.path() + "/run.json\n");
  EXPECT_EQ(complete(script, "linkscope report " + dir.path() + "/ru"), dir.path() + "/run.json\n");
  EXPECT_EQ(complete(script, "linkscope doctor --quick ''"), "-h --help --quick -o --output\n");  // no positional: options
}

TEST(ShellCompletion, ZshScriptNamesEverySubcommandAndOption) {
  Cli cli;
  const std::string script = zsh_completion(cli.app, "linkscope");
  EXPECT_EQ(script.rfind("#compdef linkscope\n", 0), 0u);
  EXPECT_NE(script.find("'doctor:Diagnose this machine   what  it finds'"), std::string::npos) << script;
  EXPECT_NE(script.find("'--output[the report s directory]:value:_files'"), std::string::npos) << script;
  EXPECT_NE(script.find("'--quick[about 25 s]'"), std::string::npos) << script;
  EXPECT_NE(script.find("report) _arguments"), std::string::npos) << script;
  EXPECT_EQ(script.find("__hidden"), std::string::npos);
  const std::string zsh = test::find_on_path("zsh");
  if (zsh.empty()) GTEST_SKIP() << "zsh not installed: its syntax check is skipped (scripts/install-deps.sh installs it)";
  test::TempDir dir;
  const auto result = test::run_command(zsh, {"-n", write(dir, "_linkscope", script)});
  EXPECT_EQ(result.exit_code, 0) << result.err;
}

}  // namespace
}  // namespace linkscope::cli

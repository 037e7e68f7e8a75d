// What `hopsim run` leaves for looking at its output: view.py in an LBM output folder, and the closing line that
// names the commands to plot and view it.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "CatchCompat.h"
#include "CommandRun.h"
#include "ScratchDir.h"

namespace fs = std::filesystem;

namespace {

std::string source(const std::string& rel) { return std::string(HOPSIM_SOURCE_DIR) + "/" + rel; }

std::string readText(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The last line a command printed.
std::string lastLine(const std::string& output) {
  std::string text = output;
  while (!text.empty() && text.back() == '\n') text.pop_back();
  const std::size_t at = text.rfind('\n');
  return at == std::string::npos ? text : text.substr(at + 1);
}

}  // namespace

TEST_CASE("an LBM run writes view.py with its case's facts and ends naming hopsim plot and view.py",
          "[integration]") {
  ScratchDir scratch("view_script_run");
  // A space in the path: the closing line quotes it, so that its commands can be pasted.
  const fs::path out = scratch.path() / "out dir";
  const CommandResult r = runHopsim("run " + source("inputs/lbm/cylinder2d.yaml") +
                                    " --set run.steps=20 --set output.every=10 --output '" + out.string() + "'");
  INFO(r.output);
  REQUIRE(r.code == 0);
  REQUIRE(fs::exists(out / "view.py"));
  const std::string script = readText(out / "view.py");
  const std::string begin = "CASE = json.loads(r'''\n";
  const std::size_t from = script.find(begin) + begin.size();
  REQUIRE(from > begin.size());
  const nlohmann::json facts = nlohmann::json::parse(script.substr(from, script.find("''')\n", from) - from));
  CHECK(facts["case"] == "cylinder2d.yaml");
  CHECK(facts["dimensions"] == 2);
  CHECK(facts["cells"] == nlohmann::json::array({300, 62, 1}));
  CHECK(facts["fields"] == nlohmann::json::array({"density", "velocity", "flags"}));
  CHECK(facts["series"] == nlohmann::json::array({"fields.xmf"}));
  CHECK(fs::equivalent(facts["written_in"].get<std::string>(), out));

  const std::string dir = "'" + out.string() + "'";
  const std::string scriptWord = "'" + (out / "view.py").string() + "'";
  CHECK(lastLine(r.output) == "output in " + dir + "; plots: hopsim plot " + dir + "; view: pvpython " + scriptWord +
                                  " or paraview --script=" + scriptWord);

  // The filled-in script is Python (ParaView runs it; python3 parses it without ParaView).
  if (runCommand("command -v python3 >/dev/null 2>&1").code == 0) {
    const CommandResult parsed = runCommand("python3 -c 'import ast, sys; ast.parse(open(sys.argv[1]).read())' '" +
                                            (out / "view.py").string() + "' 2>&1");
    INFO(parsed.output);
    CHECK(parsed.code == 0);
  }
}

TEST_CASE("an MD run ends naming hopsim plot and the particle series, and writes no view.py", "[integration][md]") {
  ScratchDir scratch("view_script_md");
  const fs::path out = scratch.path() / "md";
  const CommandResult r = runHopsim("run " + source("inputs/md/lj_from_lammps.yaml") +
                                    " --set run.steps=10 --set output.every=10 --output " + out.string());
  INFO(r.output);
  REQUIRE(r.code == 0);
  CHECK_FALSE(fs::exists(out / "view.py"));
  // The case writes H5MD only (formats: [h5md]); VTK builds would name particles.pvd for formats: [h5md, vtk].
  const std::string view = "paraview " + (out / "trajectory.xmf").string() + " (with the \"XDMF Reader\")";
  CHECK(lastLine(r.output) ==
        "output in " + out.string() + "; plots: hopsim plot " + out.string() + "; view: " + view);
}

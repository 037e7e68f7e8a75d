// hopsim command line: run, validate, bench, compare, plot, info.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <exception>
#include <string>

#include "apps/Commands.h"
#include "core/Interrupt.h"
#include "core/Mpi.h"
#include "io/CaseReader.h"
#include "solvers/common/BenchCompare.h"
#include "solvers/common/RunInfo.h"

int main(int argc, char** argv) {
  hopsim::mpi::Session mpiSession(argc, argv);
  CLI::App app{"hopsim: lattice Boltzmann flow and Lennard-Jones molecular dynamics from YAML cases, on CPUs and GPUs"};
  app.require_subcommand(1);
  const nlohmann::json build = hopsim::buildInfo();
  app.set_version_flag("--version", fmt::format("hopsim {} (commit {}, {})", HOPSIM_VERSION,
                                                build["git_commit"].get<std::string>(),
                                                build["build_type"].get<std::string>()));

  std::string backend, kernels;
  hopsim::RunOptions options;
  const auto addDeviceOptions = [&](CLI::App* sub) {
    sub->add_option("--backend", backend, "Override device.backend")->check(CLI::IsMember({"auto", "cpu", "cuda"}));
    sub->add_option("--kernels", kernels, "Override device.kernels")
        ->check(CLI::IsMember({"auto", "portable", "hopper"}));
  };
  const auto addVerbosityFlags = [&](CLI::App* sub, const std::string& logged) {
    auto* quiet = sub->add_flag("--quiet", options.quiet, "Terminal: warnings and errors only" + logged);
    sub->add_flag("--verbose", options.verbose, "Debug lines too" + logged)->excludes(quiet);
  };

  std::string caseFile;
  std::vector<std::string> overrides;
  auto* run = app.add_subcommand("run", "Run a case file");
  run->add_option("case", caseFile, "Case file (YAML)")->required();
  run->add_option("--set", overrides, "Override a case value: key.path=value (repeatable)")->take_all();
  run->add_option("--output", options.outputDir, "Output directory (replaces output.dir)");
  run->add_option("--restart", options.restart,
                  "Continue from a checkpoint: an output folder (its newest checkpoint), a checkpoint_<step> folder "
                  "or a file in one");
  addVerbosityFlags(run, " (hopsim.log in the output directory has info lines either way)");
  addDeviceOptions(run);

  std::vector<std::string> names;
  bool all = false, list = false;
  auto* validate = app.add_subcommand("validate", "Run validation cases against analytic and published results");
  validate->add_option("names", names, "Case names or prefixes (default: every quick case)");
  validate->add_flag("--all", all, "Include the slow cases");
  validate->add_flag("--list", list, "List the cases and exit");
  addDeviceOptions(validate);

  hopsim::app::BenchArgs bench;
  auto* benchCmd = app.add_subcommand("bench", "Measure steps/s and MLUPS (or atom-steps/s) against copy bandwidth");
  benchCmd->add_option("case", bench.caseFile, "Case file (default: D3Q19 256^3 periodic, single precision)");
  benchCmd->add_option("--set", bench.overrides, "Override a case value: key.path=value (repeatable)")->take_all();
  benchCmd->add_option("--steps", bench.steps, "Timed steps per repeat (default: about 0.5 s of work)")
      ->check(CLI::PositiveNumber);
  benchCmd->add_option("--repeats", bench.repeats, "Timed repeats (median reported)")->check(CLI::Range(1, 1000));
  benchCmd->add_option("--json", bench.json, "Also write the JSON result to this file");
  benchCmd->add_flag("--with-output", bench.withOutput,
                     "Also run the case as a user does into a temporary folder (LBM: 1000 steps, fields every 100, "
                     "observables every 10; MD: 2000 steps, thermo every 10, a frame every 50) and report its rate "
                     "over the wall time beside the disk's write bandwidth");
  benchCmd->add_option("--kernels", bench.kernels, "Kernel variants to compare: portable,hopper")
      ->delimiter(',')
      ->check(CLI::IsMember({"auto", "portable", "hopper"}));
  benchCmd->add_option("--layouts", bench.layouts, "Population layouts to compare: two-lattice,in-place")
      ->delimiter(',');
  benchCmd->add_option("--backend", backend, "Override device.backend")->check(CLI::IsMember({"auto", "cpu", "cuda"}));
  addVerbosityFlags(benchCmd, " (the JSON on stdout is the same)");
  auto* suiteOption = benchCmd->add_option("--suite", bench.suite, "Run a fixed, versioned suite of cases: standard")
                          ->check(CLI::IsMember({"standard"}));
  suiteOption->excludes("case");
  for (const char* single : {"--steps", "--kernels", "--layouts", "--set", "--repeats"})
    suiteOption->excludes(benchCmd->get_option(single));
  benchCmd->add_option("--out", bench.outDir, "Folder for the suite's JSON file (default: the current folder)")
      ->needs(suiteOption);
  benchCmd->add_option("--scale", bench.scale, "Suite sizes: full, or tiny (seconds, for CI)")
      ->check(CLI::IsMember({"full", "tiny"}))
      ->needs(suiteOption);

  hopsim::app::CompareArgs compare;
  auto* compareCmd = app.add_subcommand("compare", "Compare bench results of several machines run by run");
  compareCmd
      ->add_option("files", compare.files, "Bench JSON files (hopsim bench --json, --suite); the first is the baseline")
      ->required()
      ->check(CLI::ExistingFile);
  compareCmd->add_option("--baseline", compare.baseline, "The file the others are compared with (name or path)");
  compareCmd->add_option("--format", compare.format, "Output: table, markdown, csv or json")
      ->check(CLI::IsMember({"table", "markdown", "csv", "json"}));
  compareCmd->add_option("--json", compare.json, "Also write the comparison as JSON to this file");
  auto* plotOption = compareCmd->add_option(
      "--plot", compare.plot, "Also draw step times and speed ratios as a bar chart: FILE.svg, .png or .pdf");
  std::vector<std::string> projectable;
  for (const auto& gpu : hopsim::knownGpus()) projectable.push_back(gpu.key);
  compareCmd->add_option("--project", compare.project, "Project one measured file onto a GPU by its datasheet")
      ->check(CLI::IsMember(projectable))
      ->excludes(plotOption);

  hopsim::app::PlotArgs plot;
  auto* plotCmd = app.add_subcommand("plot", "Plot a run's observables, forces and thermo as PNGs in its folder");
  plotCmd->add_option("outdir", plot.outDir, "The run's output folder")->required();
  plotCmd->add_flag("--if-available", plot.ifAvailable,
                    "Without matplotlib or anything to draw: a one-line note and exit 0 (not 1)");
  plotCmd->add_flag("--quiet", plot.quiet, "Print only errors, not the paths of the plots");

  app.add_subcommand("info", "Version, build options, CPU threads and GPUs");

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --version
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // CLI11's own codes (105-109 and others) would say nothing a script can rely on: a bad command line is bad input.
    (void)app.exit(e);
    return hopsim::kExitBadInput;
  }

  try {
    if (!backend.empty()) options.backend = hopsim::backendFrom(backend);
    if (!kernels.empty()) options.kernels = hopsim::kernelVariantFrom(kernels);
    if (run->parsed()) {
      // A run stops cleanly on SIGINT, SIGTERM and SIGUSR1 (README, "Long runs"); validate and bench keep the
      // default action, ending at once.
      hopsim::interrupt::installHandlers();
      return hopsim::app::runCommand(caseFile, overrides, options);
    }
    if (validate->parsed()) return hopsim::app::validateCommand(names, options, all, list);
    if (benchCmd->parsed()) return hopsim::app::benchCommand(bench, options);
    if (compareCmd->parsed()) return hopsim::app::compareCommand(compare);
    if (plotCmd->parsed()) return hopsim::app::plotCommand(plot);
    return hopsim::app::infoCommand();
  } catch (const hopsim::io::CaseError& e) {
    return hopsim::mpi::endWithFailure(hopsim::kExitBadInput, e.what());
  } catch (const hopsim::InputError& e) {
    return hopsim::mpi::endWithFailure(hopsim::kExitBadInput, std::string("error: ") + e.what());
  } catch (const std::exception& e) {
    // A rank that fails alone (rank 0 cannot create the output folder) must not leave the others waiting for it.
    return hopsim::mpi::endWithFailure(hopsim::kExitFailure, std::string("error: ") + e.what());
  }
}

// Molecular dynamics validation cases for `hopsim validate` (the quick ones also run in CI through Catch2).
#include "validation/md/MdValidation.h"

#include "validation/md/MdChecks.h"

namespace hopsim::validation {

std::vector<Case> mdCases() {
  using namespace md;
  std::vector<Case> cases;
  cases.push_back({"md.forces_finite_difference", "LJ forces vs central differences of the energy (double)", true,
                   [](const Context&) { return std::vector<Row>{forcesVsFiniteDifferences(200, 7)}; }});
  cases.push_back({"md.lammps_bench_step0", "LAMMPS LJ benchmark, step 0: pe, etotal, press vs LAMMPS's output", true,
                   [](const Context& c) { return lammpsBenchmarkStepZero(c); }});
  cases.push_back({"md.lammps_peer_plain", "same data file in LAMMPS and hopsim, lj/cut 2.5, 100 steps NVE", true,
                   [](const Context& c) { return lammpsPeer(c, "plain", 100); }});
  cases.push_back({"md.lammps_peer_shift", "as plain, with pair_modify shift yes", true,
                   [](const Context& c) { return lammpsPeer(c, "shift", 100); }});
  cases.push_back({"md.lammps_peer_tail", "as plain, with pair_modify tail yes", true,
                   [](const Context& c) { return lammpsPeer(c, "tail", 100); }});
  cases.push_back({"md.nve_drift_2000", "NVE energy drift, 4,000 atoms, 2,000 steps (CI variant)", true,
                   [](const Context& c) { return std::vector<Row>{nveEnergyDrift(c, 10, 2000)}; }});
  cases.push_back({"md.nve_drift_10000", "NVE energy drift at the LAMMPS bench state, 32,000 atoms, 10,000 steps",
                   false, [](const Context& c) { return std::vector<Row>{nveEnergyDrift(c, 20, 10000)}; }});
  cases.push_back({"md.nist_lj_0.776", "NIST LJ T*=0.85 rho 0.776: NVT potential energy", false,
                   [](const Context& c) { return nistLjEnergy(c, 0.776, 60000); }});
  cases.push_back({"md.nist_lj_0.86", "NIST LJ T*=0.85 rho 0.86: NVT potential energy", false,
                   [](const Context& c) { return nistLjEnergy(c, 0.86, 60000); }});
  return cases;
}

}  // namespace hopsim::validation

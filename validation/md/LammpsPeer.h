// LAMMPS as a peer: runs the `lmp` binary on a generated input and reads its thermo table back.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace hopsim::validation::md {

struct LammpsThermoRow {
  long long step = 0;
  double temp = 0, pe = 0, ke = 0, etotal = 0, press = 0;
};

// The LAMMPS binary: $HOPSIM_LAMMPS, else lmp, lmp_serial or lmp_mpi on the PATH; nullopt when none runs.
std::optional<std::string> findLammps();

// Runs LAMMPS with `input` in `workDir` (log in workDir/log.lammps) and returns the rows of the last thermo table.
// Throws std::runtime_error with the tail of the log when LAMMPS fails.
std::vector<LammpsThermoRow> runLammps(const std::string& binary, const std::string& workDir, const std::string& input);

}  // namespace hopsim::validation::md

// Running LAMMPS and parsing its log.
#include "validation/md/LammpsPeer.h"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "io/AtomicFile.h"

namespace hopsim::validation::md {

namespace {
bool runs(const std::string& candidate) {
  const std::string cmd = fmt::format("'{}' -h > /dev/null 2>&1", candidate);
  return std::system(cmd.c_str()) == 0;
}
}  // namespace

std::optional<std::string> findLammps() {
  if (const char* env = std::getenv("HOPSIM_LAMMPS")) {
    if (runs(env)) return std::string(env);
    return std::nullopt;
  }
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin");
  std::string dir;
  std::vector<std::string> searchDirs;
  while (std::getline(dirs, dir, ':')) searchDirs.push_back(dir);
  searchDirs.push_back("/usr/bin");
  for (const char* name : {"lmp", "lmp_serial", "lmp_mpi"})
    for (const auto& d : searchDirs) {
      const auto p = std::filesystem::path(d) / name;
      std::error_code ec;
      if (std::filesystem::exists(p, ec) && runs(p.string())) return p.string();
    }
  return std::nullopt;
}

std::vector<LammpsThermoRow> runLammps(const std::string& binary, const std::string& workDir, const std::string& input) {
  io::ensureDirectory(workDir);
  io::writeFileAtomic(std::filesystem::path(workDir) / "in.hopsim", input);
  const std::string cmd = fmt::format("cd '{}' && OMP_NUM_THREADS=1 '{}' -in in.hopsim -log log.lammps -screen none "
                                      "> lammps.out 2>&1",
                                      workDir, binary);
  const int status = std::system(cmd.c_str());
  std::ifstream log(std::filesystem::path(workDir) / "log.lammps");
  std::vector<std::string> lines;
  for (std::string l; std::getline(log, l);) lines.push_back(l);
  if (status != 0 || lines.empty()) {
    std::string tail;
    for (std::size_t i = lines.size() > 15 ? lines.size() - 15 : 0; i < lines.size(); ++i) tail += lines[i] + "\n";
    throw std::runtime_error(fmt::format("LAMMPS ({}) failed in {} (exit status {}):\n{}", binary, workDir, status, tail));
  }
  // The last table: a header line starting with "Step", rows until "Loop time".
  std::vector<LammpsThermoRow> rows;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::istringstream h(lines[i]);
    std::string first;
    h >> first;
    if (first != "Step") continue;
    std::vector<std::string> cols{first};
    for (std::string c; h >> c;) cols.push_back(c);
    rows.clear();
    for (std::size_t k = i + 1; k < lines.size() && lines[k].rfind("Loop time", 0) != 0; ++k) {
      std::istringstream r(lines[k]);
      std::vector<double> v;
      for (double x; r >> x;) v.push_back(x);
      if (v.size() != cols.size()) continue;  // warnings interleaved with the table
      LammpsThermoRow row;
      for (std::size_t c = 0; c < cols.size(); ++c) {
        if (cols[c] == "Step") row.step = static_cast<long long>(v[c]);
        else if (cols[c] == "Temp") row.temp = v[c];
        else if (cols[c] == "PotEng") row.pe = v[c];
        else if (cols[c] == "KinEng") row.ke = v[c];
        else if (cols[c] == "TotEng") row.etotal = v[c];
        else if (cols[c] == "Press") row.press = v[c];
      }
      rows.push_back(row);
    }
  }
  if (rows.empty()) throw std::runtime_error(fmt::format("no thermo table in {}/log.lammps", workDir));
  return rows;
}

}  // namespace hopsim::validation::md

// MD checkpoint contents: description, compatibility check, engine state as blocks.
#include "solvers/md/MdCheckpoint.h"

#include <fmt/format.h>

#include <cstring>
#include <utility>
#include <vector>

#include "core/ExitCode.h"

namespace hopsim::md {
namespace {

template <class T>
std::vector<std::byte> bytesOf(const std::vector<T>& v) {
  std::vector<std::byte> b(v.size() * sizeof(T));
  if (!v.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}

template <class T>
std::vector<T> valuesOf(const io::CheckpointPart& part, const std::string& name) {
  const std::vector<std::byte>& b = part.block(name);
  if (b.size() % sizeof(T) != 0)
    throw InputError(fmt::format("the checkpoint's '{}' data is {} bytes, not a whole number of values", name,
                                 b.size()));
  std::vector<T> v(b.size() / sizeof(T));
  if (!v.empty()) std::memcpy(v.data(), b.data(), b.size());
  return v;
}

}  // namespace

nlohmann::json checkpointDescription(const MdCase& c, std::size_t atoms, const Box& box, double mass,
                                     const std::string& engine, const std::array<int, 3>& processGrid) {
  nlohmann::json d;
  d["solver"] = "md";
  d["atoms"] = atoms;
  d["box"] = box.length;
  d["mass"] = mass;
  d["potential"] = {{"epsilon", c.lj.epsilon}, {"sigma", c.lj.sigma}, {"cutoff", c.lj.cutoff},
                    {"shift", c.lj.shift}, {"tail_correction", c.lj.tailCorrection}};
  d["precision"] = toString(c.precision);
  d["engine"] = engine;
  d["process_grid"] = processGrid;
  d["hopsim_version"] = HOPSIM_VERSION;
  return d;
}

void checkCheckpoint(const nlohmann::json& written, const nlohmann::json& here, const std::filesystem::path& folder) {
  const std::pair<const char*, const char*> checks[] = {
      {"solver", "solver"},
      {"atoms", "atom count (system)"},
      {"box", "box (system)"},
      {"mass", "atom mass"},
      {"potential", "potential"},
      {"precision", "precision"},
      {"engine", "engine (device.backend, device.kernels and whether the box is decomposed)"},
      {"process_grid", "process grid (device.ranks, or the MPI rank count)"}};
  for (const auto& [key, what] : checks) {
    const nlohmann::json theirs = written.value(key, nlohmann::json()), ours = here.at(key);
    if (theirs == ours) continue;
    const std::string solver = written.value("solver", std::string("lbm"));
    if (std::string(key) == "solver" || solver != "md")
      throw InputError(fmt::format("the checkpoint {} does not fit this case: it was written by a {} run, this is an "
                                   "MD run; restart with the case that wrote it",
                                   folder.string(), solver == "md" ? "md" : "lattice Boltzmann (" + solver + ")"));
    throw InputError(fmt::format(
        "the checkpoint {} does not fit this case: its {} is {}, this run's is {}; restart with the case, ranks, "
        "backend and build that wrote it (written by hopsim {})",
        folder.string(), what, theirs.dump(), ours.dump(), written.value("hopsim_version", std::string("unknown"))));
  }
}

void addStateBlocks(const EngineState& s, io::CheckpointPart& part) {
  const std::pair<const char*, const std::vector<double>*> arrays[] = {
      {"x", &s.x},   {"y", &s.y},   {"z", &s.z},   {"x0", &s.x0}, {"y0", &s.y0}, {"z0", &s.z0},
      {"vx", &s.vx}, {"vy", &s.vy}, {"vz", &s.vz}, {"fx", &s.fx}, {"fy", &s.fy}, {"fz", &s.fz}};
  for (const auto& [name, v] : arrays) part.blocks.emplace_back(name, bytesOf(*v));
  part.blocks.emplace_back("id", bytesOf(s.id));
  part.blocks.emplace_back("box", bytesOf(std::vector<double>{s.box.length[0], s.box.length[1], s.box.length[2],
                                                              s.mass}));
  // Binary, not JSON numbers: the sums go back bitwise whatever they are.
  part.blocks.emplace_back("sums", bytesOf(std::vector<double>{s.potential, s.virial, s.twoKinetic, s.nhXi,
                                                               s.nhTwoKinetic}));
}

EngineState stateFromBlocks(const io::CheckpointPart& part, std::size_t atomsInAll) {
  EngineState s;
  s.atomsInAll = atomsInAll;
  const std::vector<double> shape = valuesOf<double>(part, "box");
  if (shape.size() != 4) throw InputError("the checkpoint's 'box' data is not three box lengths and a mass");
  s.box.length = {shape[0], shape[1], shape[2]};
  s.mass = shape[3];
  const std::pair<const char*, std::vector<double>*> arrays[] = {
      {"x", &s.x},   {"y", &s.y},   {"z", &s.z},   {"x0", &s.x0}, {"y0", &s.y0}, {"z0", &s.z0},
      {"vx", &s.vx}, {"vy", &s.vy}, {"vz", &s.vz}, {"fx", &s.fx}, {"fy", &s.fy}, {"fz", &s.fz}};
  for (const auto& [name, v] : arrays) *v = valuesOf<double>(part, name);
  s.id = valuesOf<long long>(part, "id");
  for (const auto& [name, v] : arrays)
    if (v->size() != s.id.size())
      throw InputError(fmt::format("the checkpoint holds {} atom ids but {} '{}' values", s.id.size(), v->size(),
                                   name));
  const std::vector<double> sums = valuesOf<double>(part, "sums");
  if (sums.size() != 5) throw InputError("the checkpoint's 'sums' data is not the five sums of an MD state");
  s.potential = sums[0], s.virial = sums[1], s.twoKinetic = sums[2], s.nhXi = sums[3], s.nhTwoKinetic = sums[4];
  return s;
}

}  // namespace hopsim::md

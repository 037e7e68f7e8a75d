// LBM checkpoint parts, and restarts on the process grid that wrote them or on another.
#include "solvers/lbm/LbmCheckpoint.h"

#include <fmt/format.h>

#include <array>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/ExitCode.h"

namespace hopsim::lbm {
namespace {

// A rank's box as its part describes it: global coordinates of its first cell (ghost layers included, so possibly
// -1 on a periodic axis), its extent, and its owned range.
struct PartBox {
  std::array<long long, 3> origin{}, n{}, ownFirst{}, ownCount{};
  long long cells = 1;
  std::size_t header = 0;  // bytes before the populations (the CUDA backend's launch parity)

  long long index(long long x, long long y, long long z) const { return (z * n[1] + y) * n[0] + x; }
  bool owns(const std::array<long long, 3>& g) const {
    for (int a = 0; a < 3; ++a)
      if (g[a] < ownFirst[a] || g[a] >= ownFirst[a] + ownCount[a]) return false;
    return true;
  }
};

nlohmann::json partitionJson(const LbmPartition& p) {
  return {{"first", p.first}, {"count", p.count}, {"ghost", p.ghost}};
}

PartBox boxOf(const LbmPartition& p, std::size_t header) {
  PartBox b;
  for (int a = 0; a < 3; ++a) {
    b.origin[a] = p.first[a] - p.ghost[2 * a];
    b.n[a] = p.count[a] + p.ghost[2 * a] + p.ghost[2 * a + 1];
    b.ownFirst[a] = p.first[a];
    b.ownCount[a] = p.count[a];
    b.cells *= b.n[a];
  }
  b.header = header;
  return b;
}

// The box of a rank holding `p`, whose backend state (LbmBackend::savePopulations) is `stateBytes` long: the header
// is what comes before Q populations of every cell.
PartBox boxOf(const LbmPartition& p, const LbmCase& c, std::size_t stateBytes) {
  PartBox b = boxOf(p, 0);
  const std::size_t values = static_cast<std::size_t>(populationCount(c.lattice)) * static_cast<std::size_t>(b.cells) *
                             static_cast<std::size_t>(storageBytes(c.precision));
  if (stateBytes < values)
    throw std::logic_error(fmt::format("a backend state of {} bytes for {} cells of {} {}", stateBytes, b.cells,
                                       toString(c.lattice), toString(c.precision)));
  b.header = stateBytes - values;
  return b;
}

PartBox boxOf(const nlohmann::json& description, const std::filesystem::path& file) {
  if (!description.contains("partition") || !description.contains("population_header_bytes"))
    throw InputError(fmt::format("{} does not say which cells it holds (a checkpoint of an older hopsim): restart on "
                                 "the ranks and process grid that wrote it",
                                 file.string()));
  const nlohmann::json& p = description["partition"];
  LbmPartition part;
  part.first = p.at("first").get<std::array<long long, 3>>();
  part.count = p.at("count").get<std::array<long long, 3>>();
  part.ghost = p.at("ghost").get<std::array<int, 6>>();
  return boxOf(part, description["population_header_bytes"].get<std::size_t>());
}

// Throws InputError naming the first difference that makes `written` (a checkpoint's description) unusable here.
void checkCompatible(const nlohmann::json& written, const nlohmann::json& here, const std::filesystem::path& folder) {
  const std::pair<const char*, const char*> checks[] = {
      {"solver", "solver"},
      {"lattice", "lattice"},
      {"precision", "precision"},
      {"cells", "domain.cells"},
      {"geometry", "domain, boundaries or obstacles"},
      {"population_layout", "population layout (backend, storage and layout of the build and device plan)"}};
  for (const auto& [key, what] : checks) {
    const nlohmann::json theirs = written.value(key, nlohmann::json()), ours = here.at(key);
    if (theirs == ours) continue;
    const bool text = std::string(key) != "geometry";
    throw InputError(fmt::format(
        "the checkpoint {} does not fit this case: its {} is {}, this run's is {}; restart with the case, "
        "backend and build that wrote it (written by hopsim {})",
        folder.string(), what, text ? theirs.dump() : "another", text ? ours.dump() : "different",
        written.value("hopsim_version", std::string("unknown"))));
  }
}

// The populations of this rank's box gathered from the parts of a checkpoint written on another process grid.
// `mine` comes in as the fresh backend's state (what its constructor put in every slot) and goes out with every
// cell that some part owned replaced by that part's values; cells outside the domain (ghosts beyond a non-periodic
// face do not exist, so none) keep what they had.
void gatherFromParts(const std::filesystem::path& folder, int writtenRanks, const LbmCase& c, const PartBox& box,
                     std::vector<std::byte>& mine) {
  const int q = populationCount(c.lattice);
  const std::size_t value = static_cast<std::size_t>(storageBytes(c.precision));
  // Global coordinates of each cell of this box, wrapped on periodic axes; -1 outside the domain.
  const auto global = [&](int a, long long local) {
    long long g = box.origin[a] + local;
    const long long n = c.cells[a];
    if (c.periodic[a]) g = (g % n + n) % n;
    return g >= 0 && g < n ? g : -1;
  };
  long long ownedFound = 0;
  bool headerTaken = false;
  for (int r = 0; r < writtenRanks; ++r) {
    const std::filesystem::path file = io::checkpointPartFile(folder, r);
    const PartBox theirs = boxOf(io::readCheckpointDescription(file), file);
    // Only the parts whose owned cells meet this box are read whole.
    bool meets = true;
    for (int a = 0; a < 3 && meets; ++a) {
      bool any = false;
      for (long long l = 0; l < box.n[a] && !any; ++l) {
        const long long g = global(a, l);
        any = g >= theirs.ownFirst[a] && g < theirs.ownFirst[a] + theirs.ownCount[a];
      }
      meets = any;
    }
    if (!meets) continue;
    const io::CheckpointPart part = io::readCheckpointPart(file);
    const std::vector<std::byte>& bytes = part.block("populations");
    if (bytes.size() != theirs.header + static_cast<std::size_t>(q) * theirs.cells * value ||
        theirs.header != box.header)
      throw InputError(fmt::format("{}: {} bytes of populations for its box of {} cells", file.string(),
                                   bytes.size(), theirs.cells));
    if (!headerTaken) {
      // Every part's header is the same (the launch parity follows the step count).
      std::memcpy(mine.data(), bytes.data(), box.header);
      headerTaken = true;
    }
    for (long long z = 0; z < box.n[2]; ++z)
      for (long long y = 0; y < box.n[1]; ++y)
        for (long long x = 0; x < box.n[0]; ++x) {
          const std::array<long long, 3> g{global(0, x), global(1, y), global(2, z)};
          if (g[0] < 0 || g[1] < 0 || g[2] < 0 || !theirs.owns(g)) continue;
          const long long from = theirs.index(g[0] - theirs.origin[0], g[1] - theirs.origin[1],
                                              g[2] - theirs.origin[2]);
          const long long to = box.index(x, y, z);
          for (int i = 0; i < q; ++i)
            std::memcpy(mine.data() + box.header + (static_cast<std::size_t>(i) * box.cells + to) * value,
                        bytes.data() + theirs.header + (static_cast<std::size_t>(i) * theirs.cells + from) * value,
                        value);
          const std::array<long long, 3> unwrapped{box.origin[0] + x, box.origin[1] + y, box.origin[2] + z};
          const bool owned = box.owns(unwrapped);
          if (owned) ++ownedFound;
        }
  }
  const long long owned = box.ownCount[0] * box.ownCount[1] * box.ownCount[2];
  if (ownedFound != owned)
    throw InputError(fmt::format("the checkpoint {} holds {} of the {} cells this rank owns: its parts do not tile "
                                 "the domain (a part missing or written by another case)",
                                 folder.string(), ownedFound, owned));
}

}  // namespace

nlohmann::json stateDescription(const io::CaseDocument& doc, const LbmCase& c, LbmSimulation& sim) {
  const nlohmann::json caseJson = doc.toJson();
  nlohmann::json geometry = nlohmann::json::object();
  for (const char* key : {"domain", "boundaries", "obstacles"})
    if (caseJson.contains(key)) geometry[key] = caseJson[key];
  nlohmann::json d;
  d["solver"] = "lbm";
  d["lattice"] = toString(c.lattice);
  d["precision"] = toString(c.precision);
  d["cells"] = c.cells;
  d["process_grid"] = sim.decomposition() ? nlohmann::json(sim.decomposition()->dims()) : nlohmann::json({1, 1, 1});
  d["geometry"] = geometry.dump();
  d["population_layout"] = sim.backend().populationLayout();
  d["hopsim_version"] = HOPSIM_VERSION;
  return d;
}

io::CheckpointPart checkpointPart(const io::CaseDocument& doc, const LbmCase& c, LbmSimulation& sim) {
  io::CheckpointPart part;
  part.description = stateDescription(doc, c, sim);
  part.description["step"] = sim.step();
  part.description["time"] = static_cast<double>(sim.step());
  part.description["case"] = doc.toJson();
  part.description["case_file"] = c.sourceFile;
  part.blocks.emplace_back("populations", std::vector<std::byte>{});
  std::vector<std::byte>& populations = part.blocks.back().second;
  sim.saveState(populations);
  part.description["partition"] = partitionJson(sim.partition());
  part.description["population_header_bytes"] = boxOf(sim.partition(), c, populations.size()).header;
  return part;
}

void restoreCheckpoint(const std::filesystem::path& folder, const io::CaseDocument& doc, const LbmCase& c,
                       LbmSimulation& sim) {
  // Every rank reads rank 0's description, so that all of them reach the same verdict.
  const nlohmann::json first = io::readCheckpointDescription(io::checkpointPartFile(folder, 0));
  const nlohmann::json here = stateDescription(doc, c, sim);
  checkCompatible(first, here, folder);
  const long long step = first.at("step").get<long long>();
  const int writtenRanks = io::checkpointRanks(folder);
  const bool sameGrid = writtenRanks == sim.comm().size() && first.value("process_grid", nlohmann::json()) ==
                                                                 here.at("process_grid");
  try {
    if (sameGrid) {
      const io::CheckpointPart part = io::readCheckpoint(folder, sim.comm());
      sim.restoreState(step, part.block("populations"));
      return;
    }
    std::vector<std::byte> mine;
    sim.saveState(mine);
    gatherFromParts(folder, writtenRanks, c, boxOf(sim.partition(), c, mine.size()), mine);
    sim.restoreState(step, mine);
  } catch (const std::invalid_argument& e) {
    throw InputError(fmt::format("the checkpoint {} does not fit this case: {}", folder.string(), e.what()));
  }
}

}  // namespace hopsim::lbm

// The field writers of an LBM run: HDF5 + XDMF (one file, per rank or collective) and, built with VTK, .vti + .pvd.
#include "io/FieldOutput.h"

#include <stdexcept>

#include "io/FieldWriter.h"
#include "io/vtk/VtkFieldWriter.h"

namespace hopsim::io {

bool vtkAvailable() { return HOPSIM_WITH_VTK; }

const char* const kVtkUnavailable =
    "output format vtk needs a build with VTK (configure with -DHOPSIM_WITH_VTK=ON, VTK 9 installed); this build "
    "writes hdf5 (open the .xmf file in ParaView)";

bool collectiveHdf5(const lbm::OutputSpec& output, bool decomposed) {
  if (!decomposed) return false;
  switch (output.hdf5) {
    case lbm::Hdf5Layout::Collective: return true;  // the parser refused it in a build without parallel HDF5
    case lbm::Hdf5Layout::PerRank: return false;
    case lbm::Hdf5Layout::Auto: return CollectiveFieldSeriesWriter::available();
  }
  return false;
}

std::string seriesFileName(lbm::OutputFormat format, const std::string& baseName) {
  // The extensions the writers give their series files (FieldWriter.cpp, vtk/VtkFieldWriter.cpp).
  return baseName + (format == lbm::OutputFormat::Hdf5 ? ".xmf" : ".pvd");
}

namespace {

std::unique_ptr<FieldSeriesSink> makeVtkWriter([[maybe_unused]] const std::filesystem::path& dir,
                                               [[maybe_unused]] const std::string& baseName,
                                               [[maybe_unused]] const GridGeometry& grid,
                                               [[maybe_unused]] bool singlePrecision,
                                               [[maybe_unused]] const std::vector<GridBlock>& blocks,
                                               [[maybe_unused]] const mpi::Comm& comm) {
#if HOPSIM_WITH_VTK
  // VTK is always one .vti piece per rank of a split grid, joined by a .pvti per step.
  if (!blocks.empty())
    return std::make_unique<PartitionedVtkSeriesWriter>(dir, baseName, grid, blocks, singlePrecision, comm);
  return std::make_unique<VtkSeriesWriter>(dir, baseName, grid, singlePrecision);
#else
  throw std::runtime_error(kVtkUnavailable);
#endif
}

}  // namespace

std::vector<std::unique_ptr<FieldSeriesSink>> makeFieldWriters(const lbm::OutputSpec& output,
                                                               const std::filesystem::path& dir,
                                                               const std::string& baseName, const GridGeometry& grid,
                                                               bool singlePrecision,
                                                               const std::vector<GridBlock>& blocks,
                                                               const mpi::Comm& comm) {
  const bool split = !blocks.empty();
  std::vector<std::unique_ptr<FieldSeriesSink>> writers;
  if (!split && !comm.isRoot()) return writers;
  for (const lbm::OutputFormat format : output.formats) {
    switch (format) {
      case lbm::OutputFormat::Hdf5:
        // A split grid gathers nothing: with parallel HDF5 every rank writes its block into the step's one file, the
        // file one rank writes of the whole grid; otherwise each rank writes a file of its own, rank 0 joining them
        // in the .xmf as a spatial collection per step.
        if (collectiveHdf5(output, split))
          writers.push_back(std::make_unique<CollectiveFieldSeriesWriter>(dir, baseName, grid, blocks, singlePrecision,
                                                                          comm, output.compression));
        else if (split)
          writers.push_back(std::make_unique<PartitionedFieldSeriesWriter>(dir, baseName, grid, blocks,
                                                                           singlePrecision, comm, output.compression));
        else
          writers.push_back(
              std::make_unique<FieldSeriesWriter>(dir, baseName, grid, singlePrecision, output.compression));
        break;
      case lbm::OutputFormat::Vtk:
        writers.push_back(makeVtkWriter(dir, baseName, grid, singlePrecision, blocks, comm));
        break;
    }
  }
  return writers;
}

}  // namespace hopsim::io

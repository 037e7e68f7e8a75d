// The field writers of an LBM run, made from its case's output formats and HDF5 layout: the one place that knows
// which writers a build has (VTK, parallel HDF5), so the run loop only holds a list of FieldSeriesSink.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "core/Mpi.h"
#include "core/lbm/LbmCase.h"
#include "io/FieldSeries.h"

namespace hopsim::io {

// Whether this build writes VTK fields (HOPSIM_WITH_VTK).
bool vtkAvailable();
// Why a case that asks for VTK fields cannot have them in this build.
extern const char* const kVtkUnavailable;

// Whether a run split over ranks (`decomposed`) writes its HDF5 fields into one file per step collectively (parallel
// HDF5) rather than one file per rank; output.hdf5 decides, auto taking the collective file where the build has it.
bool collectiveHdf5(const lbm::OutputSpec& output, bool decomposed);

// The file that lists the steps of the series `format`'s writers write as dir/<baseName>.*: <baseName>.xmf (HDF5),
// <baseName>.pvd (VTK). What a reader opens.
std::string seriesFileName(lbm::OutputFormat format, const std::string& baseName);

// One writer per format in output.formats, in that order, each writing dir/<baseName>.* series. `blocks` is the grid
// split over the ranks of `comm`, blocks[r] rank r's; the writers are then collective, and every rank gets them.
// Empty `blocks`: rank 0 of comm holds the whole grid and alone gets writers (the other ranks an empty list).
// Throws std::runtime_error for a format this build cannot write (the case parser refuses it first, with its place).
std::vector<std::unique_ptr<FieldSeriesSink>> makeFieldWriters(const lbm::OutputSpec& output,
                                                               const std::filesystem::path& dir,
                                                               const std::string& baseName, const GridGeometry& grid,
                                                               bool singlePrecision,
                                                               const std::vector<GridBlock>& blocks,
                                                               const mpi::Comm& comm);

}  // namespace hopsim::io

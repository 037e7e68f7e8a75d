// VTK .vti + .pvd time series of cell-centred grid fields.
#include "io/vtk/VtkFieldWriter.h"

#include <fmt/format.h>
#include <vtkCellData.h>
#include <vtkDoubleArray.h>
#include <vtkFieldData.h>
#include <vtkFloatArray.h>
#include <vtkImageData.h>
#include <vtkNew.h>
#include <vtkSmartPointer.h>
#include <vtkTypeInt64Array.h>
#include <vtkXMLImageDataWriter.h>

#include <algorithm>
#include <stdexcept>
#include <system_error>

#include "io/AtomicFile.h"

namespace hopsim::io {
namespace {

vtkSmartPointer<vtkDataArray> toArray(const FieldView& f, long long cells, bool single) {
  vtkSmartPointer<vtkDataArray> a;
  if (single)
    a = vtkSmartPointer<vtkFloatArray>::New();
  else
    a = vtkSmartPointer<vtkDoubleArray>::New();
  a->SetName(f.name.c_str());
  a->SetNumberOfComponents(f.components);
  a->SetNumberOfTuples(cells);
  const long long n = cells * f.components;
  if (single) {
    auto* out = static_cast<vtkFloatArray*>(a.Get())->GetPointer(0);
    for (long long i = 0; i < n; ++i) out[i] = static_cast<float>(f.data[i]);
  } else {
    std::copy(f.data, f.data + n, static_cast<vtkDoubleArray*>(a.Get())->GetPointer(0));
  }
  return a;
}

void writeImage(const std::filesystem::path& path, const GridGeometry& grid, bool single, long long step,
                double time, const std::vector<FieldView>& fields) {
  vtkNew<vtkImageData> image;
  // VTK counts points; a 2D grid stays one cell thick in z, like the XDMF mesh, so both series look alike.
  image->SetDimensions(static_cast<int>(grid.cells[0] + 1), static_cast<int>(grid.cells[1] + 1),
                       static_cast<int>(grid.cells[2] + 1));
  image->SetOrigin(grid.origin[0], grid.origin[1], grid.origin[2]);
  image->SetSpacing(grid.spacing, grid.spacing, grid.spacing);
  const long long cells = grid.cellCount();
  auto* cellData = image->GetCellData();
  for (const auto& f : fields) {
    cellData->AddArray(toArray(f, cells, single));
    if (f.components == 1 && !cellData->GetScalars()) cellData->SetActiveScalars(f.name.c_str());
    if (f.components == 3 && !cellData->GetVectors()) cellData->SetActiveVectors(f.name.c_str());
  }
  // TimeValue is the field-data name VTK's XML readers take as the data set's time when read on its own.
  vtkNew<vtkDoubleArray> timeValue;
  timeValue->SetName("TimeValue");
  timeValue->InsertNextValue(time);
  image->GetFieldData()->AddArray(timeValue);
  vtkNew<vtkTypeInt64Array> stepValue;
  stepValue->SetName("Step");
  stepValue->InsertNextValue(step);
  image->GetFieldData()->AddArray(stepValue);

  vtkNew<vtkXMLImageDataWriter> writer;
  writer->SetFileName(path.c_str());
  writer->SetInputData(image);
  writer->SetDataModeToAppended();
  writer->EncodeAppendedDataOff();  // raw binary: base64 would cost a third more space for nothing
  writer->SetCompressorTypeToZLib();
  writer->SetHeaderTypeToUInt64();  // pieces over 4 GiB need 64-bit block headers
  if (writer->Write() != 1 || writer->GetErrorCode() != 0)
    throw std::runtime_error(fmt::format("VTK vtkXMLImageDataWriter::Write failed for {} (error code {})",
                                         path.string(), writer->GetErrorCode()));
}

}  // namespace

VtkSeriesWriter::VtkSeriesWriter(std::filesystem::path dir, std::string baseName, GridGeometry grid,
                                 bool singlePrecision)
    : dir_(std::move(dir)), base_(std::move(baseName)), grid_(grid), single_(singlePrecision) {
  checkGrid(grid_);
  if (!isSafeName(base_, true))
    throw std::invalid_argument(fmt::format("output base name '{}' must be letters, digits, '_', '-' or '.'", base_));
  constexpr long long maxPoints = 2147483647;  // vtkImageData extents are int
  for (long long n : grid_.cells)
    if (n + 1 > maxPoints) throw std::invalid_argument(fmt::format("grid of {} cells is too large for VTK", n));
}

std::filesystem::path VtkSeriesWriter::seriesPath() const { return dir_ / (base_ + ".pvd"); }

std::filesystem::path VtkSeriesWriter::stepPath(long long step) const {
  return dir_ / stepFileName(base_, step, ".vti");
}

void VtkSeriesWriter::write(long long step, double time, const std::vector<FieldView>& fields) {
  checkFields(fields);
  const auto finalPath = stepPath(step);
  ensureDirectory(dir_);
  const auto tmp = temporaryPathFor(finalPath);
  try {
    writeImage(tmp, grid_, single_, step, time, fields);
  } catch (...) {
    std::error_code ec;
    std::filesystem::remove(tmp, ec);
    throw;
  }
  commitFile(tmp, finalPath);

  auto same = std::find_if(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.step == step; });
  if (same != entries_.end())
    same->time = time;
  else
    entries_.push_back({step, time});
  std::stable_sort(entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) { return a.step < b.step; });
  writeFileAtomic(seriesPath(), pvd());
}

std::string VtkSeriesWriter::pvd() const {
  std::string out = "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\">\n  <Collection>\n";
  for (const auto& e : entries_)
    out += fmt::format("    <DataSet timestep=\"{}\" group=\"\" part=\"0\" file=\"{}\"/>\n", e.time,
                       stepFileName(base_, e.step, ".vti"));
  out += "  </Collection>\n</VTKFile>\n";
  return out;
}

}  // namespace hopsim::io

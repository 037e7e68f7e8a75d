// VTK .vti + .pvd time series of cell-centred grid fields.
#include "io/vtk/VtkFieldWriter.h"

#include <fmt/format.h>
#include <vtkCellData.h>
#include <vtkDoubleArray.h>
#include <vtkFieldData.h>
#include <vtkFloatArray.h>
#include <vtkImageData.h>
#include <vtkInformation.h>
#include <vtkInformationStringKey.h>
#include <vtkStringArray.h>
#include <vtkNew.h>
#include <vtkSmartPointer.h>
#include <vtkTypeInt64Array.h>
#include <vtkXMLImageDataWriter.h>

#include <algorithm>
#include <bit>
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
  // VTK's own key for an array's units; the XML writers keep it in the file.
  if (!f.units.empty()) a->GetInformation()->Set(vtkDataArray::UNITS_LABEL(), f.units.c_str());
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

// `block`: a piece of a split grid, written with its extent in the whole grid (points first .. first + count).
void writeImage(const std::filesystem::path& path, const GridGeometry& grid, bool single, long long step,
                double time, const std::vector<FieldView>& fields, const GridBlock* block = nullptr) {
  vtkNew<vtkImageData> image;
  // VTK counts points; a 2D grid stays one cell thick in z, like the XDMF mesh, so both series look alike.
  if (block)
    image->SetExtent(static_cast<int>(block->first[0]), static_cast<int>(block->first[0] + block->count[0]),
                     static_cast<int>(block->first[1]), static_cast<int>(block->first[1] + block->count[1]),
                     static_cast<int>(block->first[2]), static_cast<int>(block->first[2] + block->count[2]));
  else
    image->SetDimensions(static_cast<int>(grid.cells[0] + 1), static_cast<int>(grid.cells[1] + 1),
                         static_cast<int>(grid.cells[2] + 1));
  image->SetOrigin(grid.origin[0], grid.origin[1], grid.origin[2]);
  image->SetSpacing(grid.spacing, grid.spacing, grid.spacing);
  const long long cells = block ? block->cellCount() : grid.cellCount();
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
  if (!grid.lengthUnit.empty()) {
    // The coordinates' unit, where ParaView's Information panel lists field data.
    vtkNew<vtkStringArray> lengthUnit;
    lengthUnit->SetName("LengthUnit");
    lengthUnit->InsertNextValue(grid.lengthUnit);
    image->GetFieldData()->AddArray(lengthUnit);
  }

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

// The checks both series writers make of their grid before writing anything (their SeriesIndex checks the base
// name): a valid grid that fits in vtkImageData's int extents.
void checkVtkGrid(const GridGeometry& grid) {
  checkGrid(grid);
  constexpr long long maxPoints = 2147483647;  // vtkImageData extents are int
  for (long long n : grid.cells)
    if (n + 1 > maxPoints) throw std::invalid_argument(fmt::format("grid of {} cells is too large for VTK", n));
}

// The .pvd collection listing each step's file (<base>_<step><extension>) at its time.
std::string collection(const SeriesIndex& series, const char* extension) {
  std::string out = "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\">\n  <Collection>\n";
  for (const auto& e : series.entries())
    out += fmt::format("    <DataSet timestep=\"{}\" group=\"\" part=\"0\" file=\"{}\"/>\n", e.time,
                       stepFileName(series.baseName(), e.step, extension));
  out += "  </Collection>\n</VTKFile>\n";
  return out;
}

}  // namespace

VtkSeriesWriter::VtkSeriesWriter(std::filesystem::path dir, std::string baseName, GridGeometry grid,
                                 bool singlePrecision)
    : series_(std::move(dir), std::move(baseName), ".pvd"), grid_(grid), single_(singlePrecision) {
  checkVtkGrid(grid_);
}

void VtkSeriesWriter::write(long long step, double time, const std::vector<FieldView>& fields) {
  checkFields(fields);
  writeFileVia(stepPath(step), [&](const auto& tmp) { writeImage(tmp, grid_, single_, step, time, fields); });
  series_.record(step, time, fields, [&] { return collection(series_, ".vti"); });
}

PartitionedVtkSeriesWriter::PartitionedVtkSeriesWriter(std::filesystem::path dir, std::string baseName,
                                                       GridGeometry grid, std::vector<GridBlock> blocks,
                                                       bool singlePrecision, mpi::Comm comm)
    : PartitionedSeriesSink(std::move(blocks), comm), series_(std::move(dir), std::move(baseName), ".pvd"),
      grid_(grid), single_(singlePrecision) {
  checkVtkGrid(grid_);
  checkBlocks(grid_, this->blocks());  // `blocks`, the argument, is moved from
}

void PartitionedVtkSeriesWriter::writePiece(long long step, double time, int piece,
                                            const std::vector<FieldView>& fields) const {
  checkFields(fields);
  checkPiece(piece, blocks());
  writeFileVia(piecePath(step, piece),
               [&](const auto& tmp) { writeImage(tmp, grid_, single_, step, time, fields, &blocks()[piece]); });
}

void PartitionedVtkSeriesWriter::commitStep(long long step, double time, const std::vector<FieldView>& fields) {
  const std::filesystem::path summary = stepPath(step);  // throws for a negative step
  ensureDirectory(summary.parent_path());
  writeFileAtomic(summary, pvti(fields, step));
  series_.record(step, time, fields, [&] { return collection(series_, ".pvti"); });
}

// The summary file is written here rather than by vtkXMLPImageDataWriter: that writer takes the pieces' extents
// from VTK's own extent translator (its split, not hopsim's decomposition) and gathers them over a VTK
// vtkMultiProcessController, where here every rank already knows every block. The pieces themselves are written
// by VTK's vtkXMLImageDataWriter; this is the same PImageData layout VTK's writer produces.
std::string PartitionedVtkSeriesWriter::pvti(const std::vector<FieldView>& fields, long long step) const {
  const auto& c = grid_.cells;
  const auto& o = grid_.origin;
  const double h = grid_.spacing;
  const char* type = single_ ? "Float32" : "Float64";
  std::string out = fmt::format(
      "<?xml version=\"1.0\"?>\n<VTKFile type=\"PImageData\" version=\"1.0\" byte_order=\"{}\" "
      "header_type=\"UInt64\">\n",
      std::endian::native == std::endian::little ? "LittleEndian" : "BigEndian");
  out += fmt::format(
      "  <PImageData WholeExtent=\"0 {} 0 {} 0 {}\" GhostLevel=\"0\" Origin=\"{} {} {}\" Spacing=\"{} {} {}\" "
      "Direction=\"1 0 0 0 1 0 0 0 1\">\n",
      c[0], c[1], c[2], o[0], o[1], o[2], h, h, h);
  // The same active scalars and vectors as the pieces: the first scalar and the first vector field.
  std::string active;
  for (const auto& f : fields)
    if (f.components == 1) {
      active += fmt::format(" Scalars=\"{}\"", f.name);
      break;
    }
  for (const auto& f : fields)
    if (f.components == 3) {
      active += fmt::format(" Vectors=\"{}\"", f.name);
      break;
    }
  out += fmt::format("    <PCellData{}>\n", active);
  for (const auto& f : fields) {
    out += fmt::format("      <PDataArray type=\"{}\" Name=\"{}\"", type, f.name);
    if (f.components != 1) out += fmt::format(" NumberOfComponents=\"{}\"", f.components);
    out += "/>\n";
  }
  out += "    </PCellData>\n";
  for (std::size_t b = 0; b < blocks().size(); ++b) {
    const GridBlock& k = blocks()[b];
    out += fmt::format("    <Piece Extent=\"{} {} {} {} {} {}\" Source=\"{}\"/>\n", k.first[0],
                       k.first[0] + k.count[0], k.first[1], k.first[1] + k.count[1], k.first[2],
                       k.first[2] + k.count[2], pieceFileName(series_.baseName(), step, static_cast<int>(b), ".vti"));
  }
  out += "  </PImageData>\n</VTKFile>\n";
  return out;
}

}  // namespace hopsim::io

// VTK XML PolyData particles (vertices with velocity and id) and the .pvd collection that lists them.
#include "io/vtk/VtkParticleWriter.h"

#include <fmt/format.h>
#include <vtkCellArray.h>
#include <vtkDoubleArray.h>
#include <vtkIdTypeArray.h>
#include <vtkNew.h>
#include <vtkPointData.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkXMLPolyDataWriter.h>

#include <stdexcept>

#include "io/AtomicFile.h"

namespace hopsim::io {

VtkParticleWriter::VtkParticleWriter(std::filesystem::path dir, std::string name)
    : dir_(std::move(dir)), name_(std::move(name)) {}

VtkParticleWriter::~VtkParticleWriter() = default;

void VtkParticleWriter::write(long long step, double time, const hopsim::md::ParticleState& s) {
  const auto n = static_cast<vtkIdType>(s.size());
  vtkNew<vtkPoints> points;
  points->SetDataTypeToDouble();
  points->SetNumberOfPoints(n);
  vtkNew<vtkDoubleArray> velocity;
  velocity->SetName("velocity");
  velocity->SetNumberOfComponents(3);
  velocity->SetNumberOfTuples(n);
  vtkNew<vtkIdTypeArray> ids;
  ids->SetName("id");
  ids->SetNumberOfTuples(n);
  vtkNew<vtkCellArray> vertices;
  for (vtkIdType i = 0; i < n; ++i) {
    points->SetPoint(i, s.x[i], s.y[i], s.z[i]);
    velocity->SetTuple3(i, s.vx[i], s.vy[i], s.vz[i]);
    ids->SetValue(i, static_cast<vtkIdType>(s.id[i]));
    vertices->InsertNextCell(1, &i);
  }
  vtkNew<vtkPolyData> poly;
  poly->SetPoints(points);
  poly->SetVerts(vertices);
  poly->GetPointData()->AddArray(velocity);
  poly->GetPointData()->AddArray(ids);

  const std::string file = fmt::format("{}_{:09d}.vtp", name_, step);
  const auto finalPath = dir_ / file;
  const auto tmp = temporaryPathFor(finalPath);
  vtkNew<vtkXMLPolyDataWriter> writer;
  writer->SetFileName(tmp.c_str());
  writer->SetInputData(poly);
  writer->SetDataModeToAppended();
  writer->EncodeAppendedDataOff();
  if (writer->Write() != 1) throw std::runtime_error(fmt::format("cannot write {}", tmp.string()));
  commitFile(tmp, finalPath);
  pieces_.emplace_back(time, file);
  writeSeries();
}

void VtkParticleWriter::listEarlier(long long step, double time) {
  const std::string file = fmt::format("{}_{:09d}.vtp", name_, step);
  if (std::filesystem::exists(dir_ / file)) pieces_.emplace_back(time, file);
}

void VtkParticleWriter::writeSeries() const {
  std::string out = "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\">\n  <Collection>\n";
  for (const auto& [t, f] : pieces_) out += fmt::format("    <DataSet timestep=\"{:.17g}\" file=\"{}\"/>\n", t, f);
  out += "  </Collection>\n</VTKFile>\n";
  writeFileAtomic(dir_ / (name_ + ".pvd"), out);
}

void VtkParticleWriter::finish() {}

}  // namespace hopsim::io

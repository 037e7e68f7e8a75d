// STL surface files, ASCII and binary: read with errors that say where and what is wrong, written whole or not at all.
#pragma once

#include <stdexcept>
#include <string>

#include "core/geometry/TriangleMesh.h"

namespace hopsim::io {

// A file that cannot be read as STL; the message starts with the path (and the line, for ASCII files).
class StlError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The triangles of an ASCII or binary STL file, in file order. A file is binary when its size is exactly 84 + 50 n
// bytes for the count n in its header (binary headers may begin with "solid" too), else ASCII when it starts with
// "solid" and reads as text. Several solids in one ASCII file are joined. Normals are ignored (the vertex order
// gives the orientation); coordinates must be finite. Throws StlError.
geometry::TriangleMesh readStl(const std::string& path);

// Writes the mesh as binary STL (coordinates rounded to float, as the format stores them) or ASCII STL (each
// coordinate in the shortest text that reads back as the same double), under a temporary name renamed into place
// when complete. Throws StlError for non-finite coordinates or more triangles than binary STL can count.
void writeStl(const std::string& path, const geometry::TriangleMesh& mesh, bool binary);

}  // namespace hopsim::io

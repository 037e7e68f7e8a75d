// A CSV time series (observables.csv, forces.csv, thermo.csv): rows appended during the run to a .part file,
// renamed to its final name when the run ends, so a final name never holds a half-written table.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace hopsim::io {

class CsvSeries {
 public:
  CsvSeries(std::filesystem::path path, std::vector<std::string> columns);
  ~CsvSeries();  // an unfinished series stays as NAME.part, never under the final name
  CsvSeries(const CsvSeries&) = delete;
  CsvSeries& operator=(const CsvSeries&) = delete;

  // One row; numbers are written with full precision (%.17g for doubles).
  void row(const std::vector<std::string>& cells);
  static std::string cell(double v);
  static std::string cell(long long v);
  void finish();  // flush and rename into place
  const std::filesystem::path& path() const { return final_; }

 private:
  std::filesystem::path final_, part_;
  std::ofstream out_;
  std::size_t columns_;
  bool finished_ = false;
};

}  // namespace hopsim::io

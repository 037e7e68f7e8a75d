// A CSV time series (observables.csv, forces.csv, thermo.csv): rows appended during the run to a .part file,
// renamed to its final name when the run ends, so a final name never holds a half-written table.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace hopsim::io {

class CsvSeries {
 public:
  CsvSeries(std::filesystem::path path, std::vector<std::string> columns);
  // Continues the series an earlier run left (a restart from the checkpoint of step `lastStep`): its rows up to
  // `lastStep` (the first column is the step) are kept, later ones and a cut last row dropped, and rows go on from
  // there. The earlier series is NAME.part where that run did not finish, else NAME; without either the series
  // starts afresh. Throws std::runtime_error when the earlier header is not `columns`.
  CsvSeries(std::filesystem::path path, std::vector<std::string> columns, long long lastStep);
  ~CsvSeries();  // an unfinished series stays as NAME.part, never under the final name
  CsvSeries(const CsvSeries&) = delete;
  CsvSeries& operator=(const CsvSeries&) = delete;

  // One row; numbers are written with full precision (%.17g for doubles). Each row goes to the file at once, so a
  // killed run leaves every finished row in NAME.part. A failed write (disk full) throws std::runtime_error naming
  // the file and the cause, and removes NAME.part, which may end in a cut row.
  void row(const std::vector<std::string>& cells);
  // The cells of the last row of the series (written by this run, or kept from the earlier one), empty before the
  // first: a row that derives a value from the row before it (a rate) reads it here, a continued run included.
  const std::vector<std::string>& lastRow() const { return last_; }
  static std::string cell(double v);
  static std::string cell(long long v);
  void finish();  // close and rename into place
  const std::filesystem::path& path() const { return final_; }

 private:
  void open(int flags);
  void write(const std::string& text);
  [[noreturn]] void fail(const std::string& what, int error);

  std::filesystem::path final_, part_;
  int fd_ = -1;
  std::size_t columns_;
  std::vector<std::string> last_;
  bool finished_ = false;
  int removeSlot_ = -1;  // NAME.part is removed by an immediate exit (core/Interrupt.h)
};

}  // namespace hopsim::io

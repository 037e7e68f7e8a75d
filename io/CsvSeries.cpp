// CSV series with whole-file semantics under the final name.
#include "io/CsvSeries.h"

#include <fmt/format.h>

#include <stdexcept>

#include "io/AtomicFile.h"

namespace hopsim::io {

CsvSeries::CsvSeries(std::filesystem::path path, std::vector<std::string> columns)
    : final_(std::move(path)), part_(final_.string() + ".part"), out_(part_), columns_(columns.size()) {
  if (!out_) throw std::runtime_error(fmt::format("cannot write {}", part_.string()));
  row(columns);
}

CsvSeries::~CsvSeries() {
  if (!finished_) out_.flush();
}

std::string CsvSeries::cell(double v) { return fmt::format("{:.17g}", v); }
std::string CsvSeries::cell(long long v) { return fmt::format("{}", v); }

void CsvSeries::row(const std::vector<std::string>& cells) {
  if (cells.size() != columns_)
    throw std::logic_error(fmt::format("{}: row of {} cells for {} columns", final_.string(), cells.size(), columns_));
  for (std::size_t i = 0; i < cells.size(); ++i) out_ << (i ? "," : "") << cells[i];
  out_ << '\n';
}

void CsvSeries::finish() {
  if (finished_) return;
  out_.flush();
  const bool ok = static_cast<bool>(out_);
  out_.close();
  if (!ok) throw std::runtime_error(fmt::format("writing {} failed (disk full?)", part_.string()));
  commitFile(part_, final_);
  finished_ = true;
}

}  // namespace hopsim::io

// CSV series with whole-file semantics under the final name.
#include "io/CsvSeries.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include "core/Interrupt.h"
#include "io/AtomicFile.h"

namespace hopsim::io {

CsvSeries::CsvSeries(std::filesystem::path path, std::vector<std::string> columns)
    : final_(std::move(path)), part_(final_.string() + ".part"), columns_(columns.size()) {
  open(O_TRUNC);
  row(columns);
  last_.clear();  // the header is no row
}

CsvSeries::CsvSeries(std::filesystem::path path, std::vector<std::string> columns, long long lastStep)
    : final_(std::move(path)), part_(final_.string() + ".part"), columns_(columns.size()) {
  std::string header;
  for (std::size_t i = 0; i < columns.size(); ++i) header += (i ? "," : "") + columns[i];
  const std::filesystem::path earlier = std::filesystem::exists(part_) ? part_ : final_;
  std::ifstream in(earlier, std::ios::binary);
  if (!in) {
    open(O_TRUNC);
    row(columns);
    last_.clear();
    return;
  }
  std::stringstream all;
  all << in.rdbuf();
  const std::string text = all.str();
  std::string kept;
  std::size_t at = 0;
  for (std::size_t end; (end = text.find('\n', at)) != std::string::npos; at = end + 1) {
    const std::string line = text.substr(at, end - at);
    if (at == 0) {
      if (line != header)
        throw std::runtime_error(fmt::format("cannot continue {}: its header '{}' is not '{}'", earlier.string(), line,
                                             header));
      kept = line + '\n';
      continue;
    }
    // A row whose step is not a number is no row of this series: the earlier run was cut while writing it.
    long long step = 0;
    const auto comma = line.find(',');
    try {
      std::size_t used = 0;
      step = std::stoll(line.substr(0, comma), &used);
      if (used != std::min(comma, line.size())) continue;
    } catch (const std::exception&) {
      continue;
    }
    if (step > lastStep) continue;
    kept += line + '\n';
    last_.clear();
    std::stringstream cells(line);
    for (std::string c; std::getline(cells, c, ',');) last_.push_back(c);
  }
  if (kept.empty()) kept = header + '\n';
  // The rows kept go to NAME.part whole before the old one is replaced: a run killed now loses nothing.
  writeFileAtomic(part_, kept);
  open(O_APPEND);
}

void CsvSeries::open(int flags) {
  fd_ = ::open(part_.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | flags, 0644);
  if (fd_ < 0) throw std::runtime_error(fmt::format("cannot write {}: {}", part_.string(), std::strerror(errno)));
  removeSlot_ = interrupt::registerFileToRemove(part_.string());
}

CsvSeries::~CsvSeries() {
  interrupt::unregisterFileToRemove(removeSlot_);
  if (fd_ >= 0) ::close(fd_);
}

std::string CsvSeries::cell(double v) { return fmt::format("{:.17g}", v); }
std::string CsvSeries::cell(long long v) { return fmt::format("{}", v); }

void CsvSeries::row(const std::vector<std::string>& cells) {
  if (cells.size() != columns_)
    throw std::logic_error(fmt::format("{}: row of {} cells for {} columns", final_.string(), cells.size(), columns_));
  std::string line;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (i) line += ',';
    line += cells[i];
  }
  line += '\n';
  write(line);
  last_ = cells;
}

void CsvSeries::write(const std::string& text) {
  if (fd_ < 0) throw std::logic_error(fmt::format("{}: row after the series ended", final_.string()));
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd_, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("writing", n < 0 ? errno : ENOSPC);
    done += static_cast<std::size_t>(n);
  }
}

void CsvSeries::fail(const std::string& what, int error) {
  ::close(fd_);
  fd_ = -1;
  std::error_code ignored;
  std::filesystem::remove(part_, ignored);
  throw std::runtime_error(fmt::format("{} {} failed: {}; the series is not kept (its rows so far were in {})", what,
                                       final_.string(), std::strerror(error), part_.string()));
}

void CsvSeries::finish() {
  if (finished_) return;
  // close reports what the file system could not store (NFS and others defer errors to it).
  if (::close(fd_) != 0) {
    const int error = errno;
    fd_ = -1;
    std::error_code ignored;
    std::filesystem::remove(part_, ignored);
    throw std::runtime_error(fmt::format("closing {} failed: {}; the series is not kept", part_.string(),
                                         std::strerror(error)));
  }
  fd_ = -1;
  commitFile(part_, final_);
  finished_ = true;
}

}  // namespace hopsim::io

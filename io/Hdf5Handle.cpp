// Checked HDF5 calls and owning handles.
#include "io/Hdf5Handle.h"

#include <fmt/format.h>

#include <stdexcept>

namespace hopsim::io::h5 {
namespace {

herr_t firstMessage(unsigned n, const H5E_error2_t* err, void* out) {
  // Walking upward, entry 0 is where HDF5 detected the problem: the most specific description.
  if (n == 0 && err && err->desc) *static_cast<std::string*>(out) = err->desc;
  return 0;
}

[[noreturn]] void fail(std::string_view call, const std::filesystem::path& file, std::string_view detail) {
  std::string why;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, firstMessage, &why);
  H5Eclear2(H5E_DEFAULT);
  throw std::runtime_error(fmt::format("HDF5 {} failed{}{} for {}: {}", call, detail.empty() ? "" : " ", detail,
                                       file.string(), why.empty() ? "no detail from HDF5" : why));
}

}  // namespace

std::mutex& libraryMutex() {
  static std::mutex m;
  return m;
}

hid_t check(hid_t id, std::string_view call, const std::filesystem::path& file, std::string_view detail) {
  if (id < 0) fail(call, file, detail);
  return id;
}

herr_t checkStatus(herr_t status, std::string_view call, const std::filesystem::path& file, std::string_view detail) {
  if (status < 0) fail(call, file, detail);
  return status;
}

void Handle::close(std::string_view call, const std::filesystem::path& file) {
  if (id_ < 0) return;
  const hid_t id = id_;
  id_ = H5I_INVALID_HID;
  checkStatus(closer_(id), call, file);
}

void Handle::reset() noexcept {
  if (id_ >= 0 && closer_) closer_(id_);
  id_ = H5I_INVALID_HID;
}

Handle own(hid_t id, Handle::Closer closer, std::string_view call, const std::filesystem::path& file,
           std::string_view detail) {
  return Handle(check(id, call, file, detail), closer);
}

QuietErrors::QuietErrors() {
  H5Eget_auto2(H5E_DEFAULT, &func_, &data_);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

QuietErrors::~QuietErrors() { H5Eset_auto2(H5E_DEFAULT, func_, data_); }

}  // namespace hopsim::io::h5

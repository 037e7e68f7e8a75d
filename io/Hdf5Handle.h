// Owning HDF5 identifiers and checked HDF5 calls: a failure names the call and the file, and every handle closes.
#pragma once

#include <hdf5.h>

#include <filesystem>
#include <mutex>
#include <string>
#include <string_view>

namespace hopsim::io::h5 {

// The HDF5 library builds that hopsim uses (Debian's, parallel ones) are not thread-safe: no two threads may be in
// it at once. Whoever writes or reads HDF5 while the run's field writer thread may be writing (a checkpoint during
// the run) holds this lock for the whole file, as the field writer does.
std::mutex& libraryMutex();

// Throws std::runtime_error "HDF5 <call> failed [<detail>] for <file>: <innermost HDF5 message>" when id < 0.
hid_t check(hid_t id, std::string_view call, const std::filesystem::path& file, std::string_view detail = {});
herr_t checkStatus(herr_t status, std::string_view call, const std::filesystem::path& file,
                   std::string_view detail = {});

class Handle {
 public:
  using Closer = herr_t (*)(hid_t);
  Handle() = default;
  Handle(hid_t id, Closer closer) : id_(id), closer_(closer) {}
  ~Handle() { reset(); }
  Handle(Handle&& o) noexcept : id_(o.id_), closer_(o.closer_) { o.id_ = H5I_INVALID_HID; }
  Handle& operator=(Handle&& o) noexcept {
    if (this != &o) {
      reset();
      id_ = o.id_;
      closer_ = o.closer_;
      o.id_ = H5I_INVALID_HID;
    }
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;

  hid_t get() const { return id_; }
  // Closes and checks the result; for a file this is where buffered data reaches the disk, so it must not be
  // left to the destructor, which cannot report.
  void close(std::string_view call, const std::filesystem::path& file);
  void reset() noexcept;

 private:
  hid_t id_ = H5I_INVALID_HID;
  Closer closer_ = nullptr;
};

// Checks id and takes ownership of it.
Handle own(hid_t id, Handle::Closer closer, std::string_view call, const std::filesystem::path& file,
           std::string_view detail = {});

// Silences HDF5's automatic error-stack printing while alive: failures are reported once, by our exception.
class QuietErrors {
 public:
  QuietErrors();
  ~QuietErrors();
  QuietErrors(const QuietErrors&) = delete;
  QuietErrors& operator=(const QuietErrors&) = delete;

 private:
  H5E_auto2_t func_ = nullptr;
  void* data_ = nullptr;
};

}  // namespace hopsim::io::h5

// A scratch folder that every rank of an MPI test names alike, for a run whose output all ranks write into.
#pragma once

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "core/Mpi.h"

// <temp>/hopsim_mpi_<name>_<n>ranks_<pid>: one folder for all ranks, named after rank 0's process so that concurrent
// runs differ. Collective (every rank learns rank 0's PID).
inline std::filesystem::path sharedScratch(const std::string& name) {
  namespace mpi = hopsim::mpi;
  const double pid = mpi::allreduceMax(mpi::isRoot() ? static_cast<double>(::getpid()) : 0.0);
  return std::filesystem::temp_directory_path() /
         fmt::format("hopsim_mpi_{}_{}ranks_{}", name, mpi::size(), static_cast<long long>(pid));
}

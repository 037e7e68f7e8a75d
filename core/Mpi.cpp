// The MPI layer: real calls when built with MPI and initialised, one-process behaviour otherwise.
#include "core/Mpi.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#if HOPSIM_WITH_MPI
#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif
#endif

namespace hopsim::mpi {

namespace {
constexpr int kWorld = 1, kSelf = 2;  // handles used before MPI is up, or without MPI

#if HOPSIM_WITH_MPI
void check(int rc, const char* call) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw std::runtime_error(std::string(call) + " failed: " + std::string(text, static_cast<std::size_t>(len)));
}
MPI_Comm native(int handle) { return MPI_Comm_f2c(handle); }
// A copy of the world communicator that only endWithFailure uses: its barrier never meets a collective of the run,
// which a rank still inside the run may be waiting in.
MPI_Comm failureComm = MPI_COMM_NULL;
int partner(int r) { return r == kNoRank ? MPI_PROC_NULL : r; }
#endif
}  // namespace

Session::Session([[maybe_unused]] int& argc, [[maybe_unused]] char**& argv) {
#if HOPSIM_WITH_MPI
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    // Errors come back as codes and turn into exceptions that name the call, rather than aborting every rank.
    check(MPI_Init(&argc, &argv), "MPI_Init");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_dup(MPI_COMM_WORLD, &failureComm);
    owns_ = true;
  }
#endif
}

Session::~Session() {
#if HOPSIM_WITH_MPI
  if (owns_) {
    if (failureComm != MPI_COMM_NULL) MPI_Comm_free(&failureComm);
    MPI_Finalize();
  }
#endif
}

int endWithFailure(int exitCode, const std::string& message, double waitSeconds) {
  const auto report = [&] { std::fprintf(stderr, "%s\n", message.c_str()); std::fflush(stderr); };
#if HOPSIM_WITH_MPI
  if (active() && size() > 1) {
    // Every rank that fails enters the barrier; if all do within the wait (the same bad input on every rank), they
    // leave together and rank 0 reports for all. Otherwise some rank is still running, or waiting in a collective of the
    // run that this rank will never join: report here and end them all.
    bool allFailed = false;
    if (failureComm != MPI_COMM_NULL) {
      MPI_Request request;
      if (MPI_Ibarrier(failureComm, &request) == MPI_SUCCESS) {
        const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(waitSeconds);
        int done = 0;
        while (!done && std::chrono::steady_clock::now() < until) {
          MPI_Test(&request, &done, MPI_STATUS_IGNORE);
          if (!done) std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        allFailed = done != 0;
      }
    }
    if (allFailed) {
      // Rank 0 reports each distinct error once, in rank order: usually one, but where a single rank failed to
      // write and the others only learnt that some rank did (throwIfAnyFailed), its cause is one of them. All ranks
      // are here, so these gathers cannot meet a collective of the run.
      const int n = size();
      int length = static_cast<int>(message.size());
      std::vector<int> lengths(rank() == 0 ? n : 0), offsets(rank() == 0 ? n : 0);
      MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, failureComm);
      std::string all;
      if (rank() == 0) {
        for (int r = 0, at = 0; r < n; at += lengths[r], ++r) offsets[r] = at;
        all.resize(static_cast<std::size_t>(offsets[n - 1] + lengths[n - 1]));
      }
      MPI_Gatherv(message.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, 0,
                  failureComm);
      if (rank() == 0) {
        std::vector<std::string> seen;
        for (int r = 0; r < n; ++r) {
          std::string m = all.substr(static_cast<std::size_t>(offsets[r]), static_cast<std::size_t>(lengths[r]));
          if (std::find(seen.begin(), seen.end(), m) != seen.end()) continue;
          std::fprintf(stderr, "%s\n", m.c_str());
          seen.push_back(std::move(m));
        }
        std::fflush(stderr);
      }
      return exitCode;
    }
    report();
    MPI_Abort(MPI_COMM_WORLD, exitCode);
  }
#endif
  (void)waitSeconds;
  report();
  return exitCode;
}

bool active() {
#if HOPSIM_WITH_MPI
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  return initialized && !finalized;
#else
  return false;
#endif
}

Comm Comm::world() {
#if HOPSIM_WITH_MPI
  if (active()) return Comm(static_cast<int>(MPI_Comm_c2f(MPI_COMM_WORLD)));
#endif
  return Comm(kWorld);
}

Comm Comm::self() {
#if HOPSIM_WITH_MPI
  if (active()) return Comm(static_cast<int>(MPI_Comm_c2f(MPI_COMM_SELF)));
#endif
  return Comm(kSelf);
}

int Comm::rank() const {
#if HOPSIM_WITH_MPI
  if (active()) {
    int r = 0;
    MPI_Comm_rank(native(handle_), &r);
    return r;
  }
#endif
  return 0;
}

int Comm::size() const {
#if HOPSIM_WITH_MPI
  if (active()) {
    int s = 1;
    MPI_Comm_size(native(handle_), &s);
    return s;
  }
#endif
  return 1;
}

double Comm::allreduceSum(double v) const {
  std::vector<double> a{v};
  allreduceSum(a);
  return a[0];
}

double Comm::allreduceMax(double v) const {
  std::vector<double> a{v};
  allreduceMax(a);
  return a[0];
}

long long Comm::allreduceSum(long long v) const {
#if HOPSIM_WITH_MPI
  if (active()) {
    long long out = 0;
    check(MPI_Allreduce(&v, &out, 1, MPI_LONG_LONG, MPI_SUM, native(handle_)), "MPI_Allreduce");
    return out;
  }
#endif
  return v;
}

void Comm::allreduceSum([[maybe_unused]] std::vector<double>& v) const {
#if HOPSIM_WITH_MPI
  if (active() && !v.empty())
    check(MPI_Allreduce(MPI_IN_PLACE, v.data(), static_cast<int>(v.size()), MPI_DOUBLE, MPI_SUM, native(handle_)),
          "MPI_Allreduce");
#endif
}

void Comm::allreduceMax([[maybe_unused]] std::vector<double>& v) const {
#if HOPSIM_WITH_MPI
  if (active() && !v.empty())
    check(MPI_Allreduce(MPI_IN_PLACE, v.data(), static_cast<int>(v.size()), MPI_DOUBLE, MPI_MAX, native(handle_)),
          "MPI_Allreduce");
#endif
}

void Comm::barrier() const {
#if HOPSIM_WITH_MPI
  if (active()) check(MPI_Barrier(native(handle_)), "MPI_Barrier");
#endif
}

std::string Comm::broadcast(const std::string& text, [[maybe_unused]] int root) const {
  std::string out = text;
#if HOPSIM_WITH_MPI
  if (active()) {
    long long length = static_cast<long long>(out.size());
    check(MPI_Bcast(&length, 1, MPI_LONG_LONG, root, native(handle_)), "MPI_Bcast");
    out.resize(static_cast<std::size_t>(length));
    check(MPI_Bcast(out.data(), static_cast<int>(length), MPI_CHAR, root, native(handle_)), "MPI_Bcast");
  }
#endif
  return out;
}

void Comm::sendrecv(const std::vector<double>& send, int dest, std::vector<double>& recv, int source,
                    [[maybe_unused]] int tag) const {
#if HOPSIM_WITH_MPI
  if (active()) {
    // Lengths first, so the receiver can size its buffer; then the data.
    long long sendCount = static_cast<long long>(send.size()), recvCount = 0;
    check(MPI_Sendrecv(&sendCount, 1, MPI_LONG_LONG, partner(dest), 2 * tag, &recvCount, 1, MPI_LONG_LONG,
                       partner(source), 2 * tag, native(handle_), MPI_STATUS_IGNORE),
          "MPI_Sendrecv");
    if (source == kNoRank) recvCount = 0;
    recv.resize(static_cast<std::size_t>(recvCount));
    check(MPI_Sendrecv(send.data(), static_cast<int>(send.size()), MPI_DOUBLE, partner(dest), 2 * tag + 1,
                       recv.data(), static_cast<int>(recvCount), MPI_DOUBLE, partner(source), 2 * tag + 1,
                       native(handle_), MPI_STATUS_IGNORE),
          "MPI_Sendrecv");
    return;
  }
#endif
  // One process: the only possible partner is this rank itself.
  if (source == kNoRank) recv.clear();
  else if (dest != kNoRank) recv = send;
  else recv.clear();
}

void Comm::sendrecvBytes(std::span<const std::byte> send, int dest, std::span<std::byte> recv, int source,
                         [[maybe_unused]] int tag) const {
  constexpr std::size_t kMaxCount = 0x7fffffff;
  if (send.size() > kMaxCount || recv.size() > kMaxCount)
    throw std::runtime_error("a halo message of more than 2 GiB; use more ranks along the other axes");
#if HOPSIM_WITH_MPI
  if (active()) {
    check(MPI_Sendrecv(send.data(), dest == kNoRank ? 0 : static_cast<int>(send.size()), MPI_BYTE, partner(dest), tag,
                       recv.data(), source == kNoRank ? 0 : static_cast<int>(recv.size()), MPI_BYTE, partner(source),
                       tag, native(handle_), MPI_STATUS_IGNORE),
          "MPI_Sendrecv");
    return;
  }
#endif
  // One process: the only possible partner is this rank itself.
  if (dest != kNoRank && source != kNoRank) {
    if (send.size() != recv.size()) throw std::logic_error("sendrecvBytes to itself with different sizes");
    std::copy(send.begin(), send.end(), recv.begin());
  }
}

std::vector<double> Comm::gather(const std::vector<double>& local, [[maybe_unused]] int root) const {
#if HOPSIM_WITH_MPI
  if (active()) {
    const int n = size();
    int count = static_cast<int>(local.size());
    std::vector<int> counts(rank() == root ? n : 0), offsets;
    check(MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, root, native(handle_)), "MPI_Gather");
    std::vector<double> all;
    if (rank() == root) {
      offsets.resize(n);
      long long total = 0;
      for (int r = 0; r < n; ++r) offsets[r] = static_cast<int>(total), total += counts[r];
      all.resize(static_cast<std::size_t>(total));
    }
    check(MPI_Gatherv(local.data(), count, MPI_DOUBLE, all.data(), counts.data(), offsets.data(), MPI_DOUBLE, root,
                      native(handle_)),
          "MPI_Gatherv");
    return all;
  }
#endif
  return local;
}

int Comm::nodeRank() const {
#if HOPSIM_WITH_MPI
  if (active()) {
    MPI_Comm node;
    check(MPI_Comm_split_type(native(handle_), MPI_COMM_TYPE_SHARED, rank(), MPI_INFO_NULL, &node),
          "MPI_Comm_split_type");
    int r = 0;
    MPI_Comm_rank(node, &r);
    MPI_Comm_free(&node);
    return r;
  }
#endif
  return 0;
}

int Comm::nodeSize() const {
#if HOPSIM_WITH_MPI
  if (active()) {
    MPI_Comm node;
    check(MPI_Comm_split_type(native(handle_), MPI_COMM_TYPE_SHARED, rank(), MPI_INFO_NULL, &node),
          "MPI_Comm_split_type");
    int s = 1;
    MPI_Comm_size(node, &s);
    MPI_Comm_free(&node);
    return s;
  }
#endif
  return 1;
}

bool Comm::sharesNodeWith([[maybe_unused]] const std::vector<int>& others) const {
#if HOPSIM_WITH_MPI
  if (active()) {
    MPI_Comm node;
    check(MPI_Comm_split_type(native(handle_), MPI_COMM_TYPE_SHARED, rank(), MPI_INFO_NULL, &node),
          "MPI_Comm_split_type");
    MPI_Group all, local;
    MPI_Comm_group(native(handle_), &all);
    MPI_Comm_group(node, &local);
    bool shared = true;
    for (int other : others) {
      if (other == kNoRank) continue;
      int there = MPI_UNDEFINED;
      check(MPI_Group_translate_ranks(all, 1, &other, local, &there), "MPI_Group_translate_ranks");
      shared = shared && there != MPI_UNDEFINED;
    }
    MPI_Group_free(&local);
    MPI_Group_free(&all);
    MPI_Comm_free(&node);
    return shared;
  }
#endif
  return true;
}

void throwIfAnyFailed(const Comm& comm, const std::string& error, const std::string& what) {
  const long long failed = comm.allreduceSum(error.empty() ? 0LL : 1LL);
  if (failed == 0) return;
  if (!error.empty()) throw std::runtime_error("rank " + std::to_string(comm.rank()) + ": " + error);
  throw std::runtime_error(std::to_string(failed) + " rank(s) could not write " + what);
}

const char* cudaAwareness() {
#if HOPSIM_WITH_MPI
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return active() && MPIX_Query_cuda_support() ? "yes" : "no";
#elif defined(MPIX_CUDA_AWARE_SUPPORT)
  return "no";
#else
  return "unknown";
#endif
#else
  return "no MPI";
#endif
}

void Comm::createDims(int dims[3]) const {
#if HOPSIM_WITH_MPI
  if (active()) {
    check(MPI_Dims_create(size(), 3, dims), "MPI_Dims_create");
    return;
  }
#endif
  for (int d = 0; d < 3; ++d) dims[d] = std::max(dims[d], 1);
}

}  // namespace hopsim::mpi

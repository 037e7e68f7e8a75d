// A thin MPI layer: the few collectives and exchanges hopsim needs, as single-process no-ops without MPI.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace hopsim::mpi {

// A partner that does not exist (the edge of a non-periodic axis): exchanges with it send and receive nothing.
inline constexpr int kNoRank = -1;

// MPI_Init / MPI_Finalize for the lifetime of main(). Without MPI, or when MPI is already initialised (a test
// harness), it does nothing.
class Session {
 public:
  Session(int& argc, char**& argv);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

 private:
  bool owns_ = false;
};

// True between MPI_Init and MPI_Finalize. Outside of that every communicator behaves as one process, so code that
// never creates a Session (the single-process test binary) runs unchanged.
bool active();

// A communicator. Held as MPI's Fortran handle (MPI_Comm_c2f) so that mpi.h stays out of every other file.
class Comm {
 public:
  static Comm world();
  static Comm self();  // one rank: the reference runs that tests compare a decomposed run with

  int rank() const;
  int size() const;
  bool isRoot() const { return rank() == 0; }

  double allreduceSum(double v) const;
  double allreduceMax(double v) const;
  long long allreduceSum(long long v) const;
  // Element-wise, in place.
  void allreduceSum(std::vector<double>& v) const;
  void allreduceMax(std::vector<double>& v) const;
  void barrier() const;
  // root's `text` on every rank (what rank 0 decided, with the words to report it).
  std::string broadcast(const std::string& text, int root = 0) const;

  // Sends `send` to `dest` while receiving from `source` a message of any length into `recv` (resized). Either
  // partner may be kNoRank; both may be this rank (a periodic axis with one rank copies through MPI or memory).
  void sendrecv(const std::vector<double>& send, int dest, std::vector<double>& recv, int source, int tag) const;

  // Sends `send` to `dest` while receiving exactly recv.size() bytes from `source`: both sides know the sizes (halo
  // planes). Either partner may be kNoRank (nothing travels that way); without MPI the partner is this rank.
  void sendrecvBytes(std::span<const std::byte> send, int dest, std::span<std::byte> recv, int source, int tag) const;

  // Concatenates every rank's `local` in rank order on `root`; other ranks get an empty vector.
  std::vector<double> gather(const std::vector<double>& local, int root = 0) const;

  // Rank and number of ranks among those sharing this node's memory (MPI_COMM_TYPE_SHARED): picks the GPU.
  int nodeRank() const;
  int nodeSize() const;
  // Whether all of `others` run on this rank's node (share its memory); kNoRank entries count as yes. Collective:
  // every rank calls it, with its own list.
  bool sharesNodeWith(const std::vector<int>& others) const;

  // MPI_Dims_create: fills the zero entries of `dims` so that their product is size(); non-zero entries are kept.
  void createDims(int dims[3]) const;

  // The Fortran handle, for a .cpp that hands the communicator to another MPI-based library (parallel HDF5) and
  // turns it back with MPI_Comm_f2c. Names an MPI communicator only while active().
  int fortranHandle() const { return handle_; }

 private:
  explicit Comm(int handle) : handle_(handle) {}
  int handle_ = 0;
};

// Throws on every rank when any rank has an error (a non-empty `error`): that rank gets "rank <r>: <error>", the
// others "<n> rank(s) could not write <what>". Collective: every rank calls it, so that none is left waiting in
// the next collective after another has thrown.
void throwIfAnyFailed(const Comm& comm, const std::string& error, const std::string& what);

// Reports `message` (one line to stderr) once and ends the run with `exitCode`, after this rank failed. With one
// rank it prints and returns exitCode. With several, the other ranks may be waiting for this one in a collective
// and would hang: ranks that all fail within `waitSeconds` (the same bad input everywhere) return exitCode after
// rank 0 has printed each distinct message once; otherwise this rank prints and calls MPI_Abort(exitCode), which
// ends every rank.
int endWithFailure(int exitCode, const std::string& message, double waitSeconds = 2.0);

// What the MPI library says of GPU buffers: "yes" (CUDA-aware, MPIX_Query_cuda_support), "no", or "unknown" (no
// such query in this MPI) — and "no MPI" without MPI. hopsim never hands device memory to MPI (halo planes go
// through pinned host memory, or GPU to GPU by CUDA IPC within a node); the answer goes into the run log and bench
// JSON.
const char* cudaAwareness();

// The world communicator's view, for code that only needs to know who prints.
inline int rank() { return Comm::world().rank(); }
inline int size() { return Comm::world().size(); }
inline bool isRoot() { return Comm::world().isRoot(); }
inline double allreduceSum(double v) { return Comm::world().allreduceSum(v); }
inline double allreduceMax(double v) { return Comm::world().allreduceMax(v); }
inline void barrier() { Comm::world().barrier(); }

}  // namespace hopsim::mpi

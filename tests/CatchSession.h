// Catch2's session, run from the test binaries' own main() functions (TestMain.cpp, mpi/MpiTestMain.cpp).
#pragma once

namespace hopsim::testing {

// Catch::Session().run(argc, argv): compiled once, in CatchSession.cpp, for both binaries.
int runCatchSession(int argc, char* argv[]);

}  // namespace hopsim::testing

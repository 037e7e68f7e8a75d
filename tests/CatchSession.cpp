// Catch2's session for both test binaries. With Catch2 2.x this file also compiles the framework itself
// (CATCH_CONFIG_RUNNER before the include: ~24 s on CI's cores), once for the two binaries instead of once in each
// main(); Catch2 3.x is a library.
#if !defined(HOPSIM_CATCH2_V3)
#define CATCH_CONFIG_RUNNER
#endif
#include "CatchCompat.h"
#include "CatchSession.h"

int hopsim::testing::runCatchSession(int argc, char* argv[]) { return Catch::Session().run(argc, argv); }

# Finds hopsim's libraries and gives the ones whose target names differ between distributions one name each.

find_package(yaml-cpp REQUIRED)
add_library(hopsim::yaml INTERFACE IMPORTED)
if(TARGET yaml-cpp::yaml-cpp)          # yaml-cpp 0.8 (Ubuntu 24.04)
  target_link_libraries(hopsim::yaml INTERFACE yaml-cpp::yaml-cpp)
elseif(TARGET yaml-cpp)                # yaml-cpp 0.7 (Debian 12)
  target_link_libraries(hopsim::yaml INTERFACE yaml-cpp)
else()
  message(FATAL_ERROR "yaml-cpp was found but exports neither yaml-cpp::yaml-cpp nor yaml-cpp")
endif()

if(HOPSIM_WITH_MPI)
  find_package(MPI REQUIRED COMPONENTS C CXX)
endif()

# Parallel HDF5 lets a decomposed run write one file per step collectively; serial HDF5 means one file per rank.
# VTK 9 links its own HDF5 (Debian's libvtk9 the serial libhdf5_serial), and a process must not load two HDF5
# libraries: they share symbol names, so one silently serves calls meant for the other. Hence parallel HDF5 is
# preferred only in builds with MPI on and VTK off; builds with VTK keep the serial library and the per-rank files.
if(HOPSIM_WITH_MPI AND NOT HOPSIM_WITH_VTK)
  set(HDF5_PREFER_PARALLEL TRUE)
endif()
find_package(HDF5 REQUIRED COMPONENTS C)
add_library(hopsim::hdf5 INTERFACE IMPORTED)
if(TARGET hdf5::hdf5)
  target_link_libraries(hopsim::hdf5 INTERFACE hdf5::hdf5)
else()
  target_include_directories(hopsim::hdf5 INTERFACE ${HDF5_INCLUDE_DIRS})
  target_link_libraries(hopsim::hdf5 INTERFACE ${HDF5_C_LIBRARIES})
  target_compile_definitions(hopsim::hdf5 INTERFACE ${HDF5_DEFINITIONS})
endif()
set(HOPSIM_HDF5_PARALLEL OFF)
if(HDF5_IS_PARALLEL)
  # A parallel hdf5.h includes mpi.h.
  if(NOT HOPSIM_WITH_MPI)
    find_package(MPI QUIET COMPONENTS C)
  endif()
  if(TARGET MPI::MPI_C)
    target_link_libraries(hopsim::hdf5 INTERFACE MPI::MPI_C)
  endif()
  if(NOT HOPSIM_WITH_MPI)
    message(STATUS "HDF5 ${HDF5_VERSION} is parallel, but MPI is off: fields are written by one process")
  elseif(HOPSIM_WITH_VTK)
    message(WARNING "the HDF5 found (${HDF5_INCLUDE_DIRS}) is parallel while VTK is on: unless VTK links this same "
                    "library, the process loads two HDF5 libraries. Configure a fresh build folder so that the "
                    "serial HDF5 is found (a folder first configured with VTK off keeps the parallel one in its "
                    "cache). Fields stay one file per rank.")
  else()
    set(HOPSIM_HDF5_PARALLEL ON)
  endif()
endif()
if(HOPSIM_HDF5_PARALLEL)
  message(STATUS "HDF5 ${HDF5_VERSION} is parallel: a decomposed run writes one field file per step collectively")
elseif(HOPSIM_WITH_MPI AND HOPSIM_WITH_VTK AND NOT HDF5_IS_PARALLEL)
  message(STATUS "HDF5 ${HDF5_VERSION}, serial (VTK is on and links the serial HDF5; parallel HDF5 is used only "
                 "with -DHOPSIM_WITH_VTK=OFF): a decomposed run writes one field file per rank and step")
elseif(HOPSIM_WITH_MPI)
  message(STATUS "HDF5 ${HDF5_VERSION} is serial: a decomposed run writes one field file per rank and step "
                 "(install a parallel HDF5, e.g. libhdf5-openmpi-dev, for one file written collectively)")
endif()

find_package(CLI11 REQUIRED)
find_package(fmt REQUIRED)
# The run log (core/Log.cpp, the only file that includes spdlog). Debian 12's spdlog 1.10 and Ubuntu 24.04's 1.12 are
# both built against the system's fmt (SPDLOG_FMT_EXTERNAL, the fmt found above) and export the compiled library as
# spdlog::spdlog: its implementation is compiled once by the distribution, not in every build of hopsim.
find_package(spdlog CONFIG REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(OpenMP REQUIRED COMPONENTS CXX)

if(HOPSIM_WITH_VTK)
  find_package(VTK 9 REQUIRED COMPONENTS CommonCore CommonDataModel IOXML)
endif()

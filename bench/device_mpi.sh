#!/usr/bin/env bash
# Device session for the decomposed LBM: build (hopsim + MPI tests, sm_90, MPI on), the decomposed GPU tests on 1, 2
# and 4 ranks sharing the GPU, the halo-exchange overhead (D3Q19 256^3 on 1, 2, 4 ranks), ncu counters of the bulk
# kernel in FP32 and FP16 storage, memcheck of a decomposed run. Logs packed into $OUT/mpi.tgz.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH=/usr/local/cuda/bin:$PATH OMP_NUM_THREADS=2
F=${OUT:?}
R=/tmp/gpu-out
rm -rf "$R" && mkdir -p "$R"
rm -f tests/gpu/lbm/test_lbm_cell_update_host.cpp
t0=$SECONDS
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DHOPSIM_WITH_CUDA=ON -DHOPSIM_WITH_VTK=OFF \
  -DHOPSIM_WITH_MPI=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DHOPSIM_BUILD_TESTS=ON > "$R/build.log" 2>&1 &&
  timeout 280 cmake --build build -j16 --target hopsim hopsim_mpi_tests >> "$R/build.log" 2>&1
echo "build: exit $? in $((SECONDS - t0)) s" | tee "$R/status.txt"
M="mpiexec --allow-run-as-root --oversubscribe --bind-to none"
run() { local name=$1 limit=$2; shift 2; local s=$SECONDS; timeout "$limit" "$@" > "$R/$name.log" 2>&1;
        echo "$name: exit $? in $((SECONDS - s)) s" | tee -a "$R/status.txt"; }
for n in 1 2 4; do run "mpi_gpu_$n" 60 $M -n $n build/tests/hopsim_mpi_tests "[gpu]"; done
for n in 1 2 4; do
  run "bench_ranks_$n" 60 $M -n $n build/hopsim bench bench/lbm_d3q19_256_single.yaml --repeats 3 --json "$R/bench_ranks_$n.json"
done
NCU="ncu --clock-control none -k regex:bulkStepKernel -c 2 --metrics dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active,sm__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,launch__occupancy_limit_registers,smsp__inst_executed.sum,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio"
run ncu_single 90 $NCU build/hopsim bench bench/lbm_d3q19_256_single.yaml --steps 64 --repeats 1
run ncu_half 90 $NCU build/hopsim bench bench/lbm_d3q19_256_half.yaml --steps 64 --repeats 1
run memcheck_mpi2 100 $M -n 2 compute-sanitizer --tool memcheck --error-exitcode 1 build/tests/hopsim_mpi_tests "[gpu]"
tar czf "$F/mpi.tgz" -C /tmp gpu-out
cat "$R/status.txt"
grep -h -E "cuda, .*ranks" "$R"/mpi_gpu_*.log | cut -c1-150 | head -40
grep -h -E "test cases|assertions" "$R"/mpi_gpu_*.log
grep -h -A4 "MLUPS aggregate" "$R"/bench_ranks_*.log
grep -h "ERROR SUMMARY" "$R/memcheck_mpi2.log"

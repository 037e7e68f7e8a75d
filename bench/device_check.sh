#!/usr/bin/env bash
# One device call that builds (sm_90, MPI on, VTK off) and then runs, most important first, what the arguments name,
# each step under its own time limit and none started past a deadline (the device tool stops a call at 600 s).
# Steps: md (GPU MD tests, benchmarks to 16.4M atoms, NIST 0.86 on CUDA), hopper (tests, portable vs hopper
# benchmarks, sanitizers), half (FP16 kernels), mpi (decomposed LBM: GPU tests, 1/2/4 ranks with and without MPS and
# with the exchange skipped, sanitizers), lbm (all [gpu][lbm] tests). Logs in $OUT/session.tgz.
# Usage: OUT=dir bash bench/device_check.sh md hopper mpi   (PREBUILT=prebuilt.tgz: binaries from bench/prebuild.sh)
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH=/usr/local/cuda/bin:$PATH OMP_NUM_THREADS=2 NCCL_NVLS_ENABLE=0
F=${OUT:?}
R=${LOGS:-/tmp/gpu-out}  # LOGS=$OUT/logs: the logs come back even where the call is stopped at its limit
DEADLINE=${DEADLINE:-540}
rm -rf "$R" && mkdir -p "$R"
t0=$SECONDS
if [ -n "${PREBUILT:-}" ]; then
  # Binaries built on the workstation with the same configuration (bench/prebuild.sh), with the shared libraries
  # this machine lacks: saves the build's device time.
  rm -rf build prebuilt && tar xf "$PREBUILT" && mkdir -p build/tests && cp prebuilt/hopsim build/ &&
    cp prebuilt/hopsim_*tests build/tests/ && { [ ! -f prebuilt/hopsim_voxelize_bench ] || cp prebuilt/hopsim_voxelize_bench build/; }
  export LD_LIBRARY_PATH=$PWD/prebuilt/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  build/hopsim --version > "$R/build.log" 2>&1
else
  # Host-only tests (slow to compile; they run in CI):
  rm -f tests/gpu/lbm/test_lbm_cell_update_host.cpp tests/gpu/lbm/test_lbm_half_pairs_host.cpp \
    tests/gpu/lbm/test_lbm_hopper_host.cpp tests/gpu/lbm/test_lbm_temporal_host.cpp
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DHOPSIM_WITH_CUDA=ON -DHOPSIM_WITH_VTK=OFF \
    -DHOPSIM_WITH_MPI=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DHOPSIM_BUILD_TESTS=ON > "$R/build.log" 2>&1 &&
    timeout ${BUILD_LIMIT:-330} cmake --build build -j16 --target ${TARGETS:-hopsim hopsim_tests hopsim_mpi_tests} >> "$R/build.log" 2>&1
fi
echo "build: exit $? in $((SECONDS - t0)) s" | tee "$R/status.txt"
M="mpiexec --allow-run-as-root --oversubscribe --bind-to none"
T=build/tests/hopsim_tests
run() { local name=$1 limit=$2; shift 2
        if [ $((SECONDS + 5)) -ge "$DEADLINE" ]; then echo "$name: skipped (deadline)" | tee -a "$R/status.txt"; return; fi
        [ $((SECONDS + limit)) -gt "$DEADLINE" ] && limit=$((DEADLINE - SECONDS))
        local s=$SECONDS; timeout "$limit" "$@" > "$R/$name.log" 2>&1
        echo "$name: exit $? in $((SECONDS - s)) s" | tee -a "$R/status.txt"; }
B="build/hopsim bench"
# One step of a case under ncu: each kernel's time, DRAM bytes, warp instructions, warps active and registers.
NCU_STEP="ncu --clock-control none --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread"
# mdb NAME RANKS "MPIEXEC OPTIONS" [HOPSIM OPTIONS...]: the LJ benchmark at 1M atoms (mixed) on RANKS ranks.
mdb() { local name=$1 n=$2 opts=$3; shift 3
        run "$name" 120 $M -n $n $opts $B inputs/md/lj_liquid.yaml --set "system.lattice.cells=[64,64,64]" \
          --set precision=mixed --set device.backend=cuda --steps 500 --repeats 3 --json "$R/$name.json" "$@"; }
# ncuMdList NAME LIMIT: ncu of the MD list kernel's first two launches at 16.4M atoms (mixed): time, warp
# instructions, lanes active, DRAM bytes, scheduler, warp states and occupancy.
ncuMdList() { run "$1" "$2" ncu --clock-control none -k regex:buildList -c 2 --section WarpStateStats \
                --section SchedulerStats --section Occupancy --metrics gpu__time_duration.sum,smsp__inst_executed.sum,\
smsp__thread_inst_executed_per_inst_executed.ratio,dram__bytes_read.sum,dram__bytes_write.sum $B \
                inputs/md/lj_liquid.yaml --set "system.lattice.cells=[160,160,160]" --set precision=mixed \
                --set device.backend=cuda --steps 20 --repeats 1; }
# The CUDA MPS daemon, so that ranks sharing the GPU run their kernels side by side.
startMps() {
  export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps-pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps-log
  mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
  nvidia-cuda-mps-control -d > "$R/mps_start.log" 2>&1; echo "mps start: $?" | tee -a "$R/status.txt"
}
# The reference rows of a bounded-case group PREFIX: the 3-D cavity and the periodic D3Q19 box at 256^3, FP32.
references() {
  run "$1_cavity3d_256_single" 45 $B bench/lbm_cavity3d_256_single.yaml --kernels portable --repeats 5 \
    --json "$R/$1_cavity3d_256_single.json"
  run "$1_periodic_d3q19_single" 45 $B bench/lbm_d3q19_256_single.yaml --kernels portable --repeats 5 \
    --json "$R/$1_periodic_d3q19_single.json"
}
# Schaefer-Turek 2D-2 (validation/lbm/cylinder2d_schaefer_turek.yaml) on the GPU at D cells across the cylinder and
# the given inflow peak; every fifth of the forces sampled every 10 steps (step, cd, cl) into $R/st_NAME.csv.xz.
# RE=20: 2D-1 instead (Re 20); ST_BOUNDARY: the cylinder's boundary (interpolated, quadratic or staircase).
st() { local name=$1 D=$2 peak=$3 steps=$4; shift 4
  run "st_$name" ${ST_LIMIT:-150} build/hopsim run validation/lbm/cylinder2d_schaefer_turek.yaml --set device.backend=cuda \
    --set "domain.cells=[$((22 * D)),$((41 * D / 10))]" \
    --set "fluid={viscosity: $(python3 -c "print($peak / 1.5 * $D / ${RE:-100})")}" \
    --set "boundaries.x-={type: velocity_inlet, profile: parabolic, velocity: [$peak, 0]}" \
    --set "obstacles=[{name: cylinder, shape: circle, center: [$((2 * D)), $((2 * D))], radius: $((D / 2)), \
           boundary: ${ST_BOUNDARY:-interpolated}}]" \
    --set "output.forces={every: 10, reference: {velocity: $(python3 -c "print($peak / 1.5)"), length: $D, \
           density: 1.0}}" \
    --set output.every=0 --set run.steps=$steps "$@" --output /tmp/st_$name
  awk -F, 'NR == 1 || NR % 5 == 1 {print $1 "," $6 "," $7}' /tmp/st_$name/forces.csv | xz -9 > "$R/st_$name.csv.xz"
  rm -rf /tmp/st_$name; }
# The bounded cases of the side-stream groups by short name, into the array `args` (the bench case and its --set):
# ch3 the 3-D channel with a cylinder (FP32, staircase), ch3i its cylinder interpolated, ch3h in FP16 storage; ch2i
# the 2-D channel with an interpolated cylinder, ch2h in FP16 storage (staircase); c3h the 3-D cavity in FP16;
# ch3q27 the 3-D channel on D3Q27, ch3d in double precision.
boundedCase() {
  case $1 in
    ch3) args=(bench/lbm_channel3d_cylinder_single.yaml) ;;
    ch3i) args=(bench/lbm_channel3d_cylinder_single.yaml --set "obstacles=[{name: cylinder, shape: cylinder, \
                center: [128, 63.5, 64], radius: 16, axis: z, boundary: interpolated}]") ;;
    ch3h) args=(bench/lbm_channel3d_cylinder_single.yaml --set precision=half) ;;
    ch2i) args=(bench/lbm_channel2d_cylinder_single.yaml --set "obstacles=[{name: cylinder, shape: circle, \
                center: [1024, 511.5], radius: 64, boundary: interpolated}]") ;;
    ch2h) args=(bench/lbm_channel2d_cylinder_single.yaml --set precision=half) ;;
    c3h) args=(bench/lbm_cavity3d_256_single.yaml --set precision=half) ;;
    ch3q27) args=(bench/lbm_channel3d_cylinder_single.yaml --set lattice=D3Q27) ;;
    ch3d) args=(bench/lbm_channel3d_cylinder_single.yaml --set precision=double) ;;
    c3h27) args=(bench/lbm_cavity3d_256_single.yaml --set precision=half --set lattice=D3Q27) ;;
    ch3h27) args=(bench/lbm_channel3d_cylinder_single.yaml --set precision=half --set lattice=D3Q27) ;;
    ch3ih) args=(bench/lbm_channel3d_cylinder_single.yaml --set precision=half --set "obstacles=[{name: cylinder, \
                 shape: cylinder, center: [128, 63.5, 64], radius: 16, axis: z, boundary: interpolated}]") ;;
    *) echo "boundedCase: unknown case $1" >&2; return 1 ;;
  esac; }
# The words as given on round 1 and reversed on round 2: a group's variants, each in its own process, run in both
# orders so that a drift of the machine over the call shows as a difference between the rounds.
inRound() { local round=$1 k out=(); shift
            if [ "$round" = 2 ]; then for ((k = $#; k >= 1; --k)); do out+=("${!k}"); done; else out=("$@"); fi
            echo "${out[*]}"; }
# Issue 22's sampled-step measurements, group TAG: the sampled step's GPU test; the issue's case (cavity 256^3 FP32,
# 1000 steps, no fields) with observables every E of EVERIES steps for each variant ("name:command", the command run
# as `command run CASE`), in two rounds of opposite order, beside the update alone (`hopsim bench`) of this build;
# ncu of two sampled and two plain steps of this build.
sampledRounds() { local tag=$1 everies=$2; shift 2
  local variants=("$@") round v e name k
  run ss_test 150 $T "CUDA LBM: observables summed in the sampled step agree with the separate pass's"
  local c22="bench/lbm_cavity3d_256_single.yaml --set run.steps=1000 --set output.every=0"
  for round in 1 2; do
    local order=("${variants[@]}")
    if [ $round = 2 ]; then order=(); for ((k = ${#variants[@]} - 1; k >= 0; --k)); do order+=("${variants[k]}"); done; fi
    for v in "${order[@]}"; do for e in $everies; do
      name="${tag}_${v%%:*}_every${e}_$round"
      run "$name" 60 ${v#*:} run $c22 --set output.observables.every=$e --output /tmp/ss
      cp /tmp/ss/run.json "$R/$name.json" 2>/dev/null; rm -rf /tmp/ss
    done; done
    run "${tag}_bench_$round" 60 $B bench/lbm_cavity3d_256_single.yaml --kernels portable --repeats 5 \
      --json "$R/${tag}_bench_$round.json"
  done
  run "ncu_$tag" 120 $NCU_STEP -k "regex:bulk|observ|fold" -c 12 build/hopsim run $c22 --set run.steps=4 \
    --set output.observables.every=2 --output /tmp/ss_ncu; }
# OLD_SRC=old.tar: the source of an earlier commit (git archive), built here once (hopsim only, same configuration)
# into /tmp/old/prebuilt/hopsim, where the `archbench` group finds it for the old-vs-new benchmarks of one call. It
# stays there while the machine is warm; OLD=old.tgz (bench/prebuild.sh at that commit) unpacks a binary instead.
if [ -n "${OLD_SRC:-}" ] && ! [ -x /tmp/old/prebuilt/hopsim ]; then
  rm -rf /tmp/oldsrc && mkdir -p /tmp/oldsrc /tmp/old/prebuilt && tar xf "$OLD_SRC" -C /tmp/oldsrc &&
    cmake -S /tmp/oldsrc -B /tmp/oldbuild -G Ninja -DCMAKE_BUILD_TYPE=Release -DHOPSIM_WITH_CUDA=ON \
      -DHOPSIM_WITH_VTK=OFF -DHOPSIM_WITH_MPI=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DHOPSIM_BUILD_TESTS=OFF \
      >> "$R/build_old.log" 2>&1 &&
    timeout 300 cmake --build /tmp/oldbuild -j16 --target hopsim >> "$R/build_old.log" 2>&1 &&
    cp /tmp/oldbuild/hopsim /tmp/old/prebuilt/
  echo "old build: exit $? in $((SECONDS - t0)) s" | tee -a "$R/status.txt"
elif [ -n "${OLD:-}" ]; then
  rm -rf /tmp/old && mkdir -p /tmp/old && tar xf "$OLD" -C /tmp/old
elif [ -f prebuilt/hopsim_old ]; then  # bench/prebuild.sh with OLD_HOPSIM: the old binary in the same tarball
  rm -rf /tmp/old && mkdir -p /tmp/old/prebuilt && cp -r prebuilt/lib /tmp/old/prebuilt/ &&
    cp prebuilt/hopsim_old /tmp/old/prebuilt/hopsim
fi
OH="env LD_LIBRARY_PATH=/tmp/old/prebuilt/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} /tmp/old/prebuilt/hopsim"
OB="$OH bench"
# mdSizes PREFIX BENCH SIZES: the mixed LJ liquid benchmarked by the bench command BENCH at SIZES (160: 16.4M atoms,
# 64: 1M, 20: 32,000), each into $R/PREFIX_SIZE.json.
mdSizes() { local prefix=$1 bench=$2 cells steps; shift 2
  for cells in "$@"; do
    case $cells in 160) steps="--steps 200 --repeats 3" ;; 64) steps="--steps 1000 --repeats 3" ;;
                   *) steps="--steps 2000 --repeats 5" ;; esac
    run "${prefix}_$cells" 60 $bench inputs/md/lj_liquid.yaml --set precision=mixed --set device.backend=cuda \
      --set "system.lattice.cells=[$cells,$cells,$cells]" $steps --json "$R/${prefix}_$cells.json"
  done; }
for step in "$@"; do case $step in
archtests)
  # An architecture change, part 1: every GPU test of the new build.
  run arch_gpu_tests 300 $T "[gpu]" ;;
archmpi)
  # Part 2: the decomposed GPU tests on 2 and 4 ranks sharing the GPU, and the sanitizers.
  run arch_mpi_gpu_2 150 $M -n 2 build/tests/hopsim_mpi_tests "[gpu]"
  run arch_mpi_gpu_4 150 $M -n 4 build/tests/hopsim_mpi_tests "[gpu]"
  run arch_memcheck 120 compute-sanitizer --tool memcheck --error-exitcode 1 $T "[sanitize],[hopper-sanitize]"
  run arch_racecheck 120 compute-sanitizer --tool racecheck --error-exitcode 1 $T "[hopper-sanitize]"
  run arch_memcheck_mpi2 90 $M -n 2 compute-sanitizer --tool memcheck --error-exitcode 1 \
    build/tests/hopsim_mpi_tests "decomposed LBM on the GPU*" ;;
archbench)
  # Part 3: the benchmark cases of the old (OLD) and new builds in this one call (the figures must agree within 2%):
  # the LBM boxes and the 3-D cavity at 256^3 (the bounded row) old-new then new-old, MD once each.
  for round in 1 2; do
    order=$(inRound $round old new)
    for c in d3q19_256_single d3q19_256_half d2q9_4096_single cavity256; do
      for who in $order; do
        bin=$B; [ $who = old ] && bin=$OB
        if [ $c = cavity256 ]; then
          run "arch_${who}_${c}_$round" 45 $bin inputs/lbm/cavity3d.yaml --set "domain.cells=[256,256,256]" \
            --set precision=single --set device.backend=cuda --repeats 5 --json "$R/arch_${who}_${c}_$round.json"
        else
          run "arch_${who}_${c}_$round" 45 $bin "bench/lbm_$c.yaml" --repeats 5 --json "$R/arch_${who}_${c}_$round.json"
        fi
      done
    done
  done
  for who in old new; do
    bin=$B; [ $who = old ] && bin=$OB
    run "arch_${who}_md20" 45 $bin inputs/md/lj_liquid.yaml --set "system.lattice.cells=[20,20,20]" \
      --set precision=mixed --set device.backend=cuda --steps 2000 --repeats 3 --json "$R/arch_${who}_md20.json"
    run "arch_${who}_md160" 60 $bin inputs/md/lj_liquid.yaml --set "system.lattice.cells=[160,160,160]" \
      --set precision=mixed --set device.backend=cuda --steps 200 --repeats 3 --json "$R/arch_${who}_md160.json"
  done ;;
archhopper)
  run arch_hopper_tests 120 $T "[hopper]" ;;
md)
  run md_gpu_tests 150 $T "[gpu][md]"
  run md_bench_160 90 $B inputs/md/lj_liquid.yaml --set "system.lattice.cells=[160,160,160]" --set precision=mixed \
    --set device.backend=cuda --steps 200 --repeats 3 --json "$R/md_bench_160.json"
  run md_bench_64 60 $B inputs/md/lj_liquid.yaml --set "system.lattice.cells=[64,64,64]" --set precision=mixed \
    --set device.backend=cuda --steps 1000 --repeats 3 --json "$R/md_bench_64.json"
  run md_bench_20 60 $B inputs/md/lj_liquid.yaml --set "system.lattice.cells=[20,20,20]" --set precision=mixed \
    --set device.backend=cuda --steps 2000 --repeats 3 --json "$R/md_bench_20.json"
  run nist_cuda 150 build/hopsim validate --all --backend cuda md.nist_lj_0.86 ;;
hopper)
  run hopper_tests 150 $T "[hopper]"
  for c in d3q19_256_single d3q19_256_half d2q9_4096_single; do
    run "hopper_bench_$c" 60 $B "bench/lbm_$c.yaml" --kernels portable,hopper --repeats 5 --json "$R/hopper_bench_$c.json"
  done
  run hopper_memcheck 90 compute-sanitizer --tool memcheck --error-exitcode 1 $T "[hopper-sanitize]"
  run hopper_racecheck 90 compute-sanitizer --tool racecheck --error-exitcode 1 $T "[hopper-sanitize]" ;;
temporal)
  # The Hopper temporal kernel (k steps per launch; "2c4": 2 steps, clusters of 4 blocks): tests, each variant against
  # portable in one process per variant, DRAM bytes per cell-step from ncu, sanitizers.
  # TEMPORAL_VARIANTS overrides the variants benchmarked (default: off 1 2 2c4 2c8 4).
  run temporal_tests 200 $T "Hopper LBM temporal*"
  for c in d3q19_256_single d2q9_4096_single d3q19_256_half; do
    for v in ${TEMPORAL_VARIANTS:-off 1 2 2c4 2c8 4}; do
      case $c$v in d2q9*c*) continue ;; esac
      k=${v%%c*}; cl=1; [ "$k" != "$v" ] && cl=${v#*c}
      run "temporal_${c}_k$v" 60 env HOPSIM_HOPPER_STEPS=$k HOPSIM_HOPPER_TEMPORAL_CLUSTER=$cl $B "bench/lbm_$c.yaml" \
        --kernels portable,hopper --layouts two-lattice --repeats 5 --json "$R/temporal_${c}_k$v.json"
    done
  done
  NCU="ncu --clock-control none --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__average_warp_latency_issue_stalled_barrier.ratio,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_short_scoreboard.ratio"
  for c in d3q19_256_single d2q9_4096_single; do
    for v in ${NCU_VARIANTS:-1 2 2c4 2c8 4}; do
      case $c$v in d2q9*c*) continue ;; esac
      k=${v%%c*}; cl=1; [ "$k" != "$v" ] && cl=${v#*c}
      run "ncu_${c}_k$v" 60 env HOPSIM_HOPPER_STEPS=$k HOPSIM_HOPPER_TEMPORAL_CLUSTER=$cl $NCU -k regex:temporal -c 1 \
        $B "bench/lbm_$c.yaml" --kernels hopper --steps 16 --repeats 1
    done
  done
  run temporal_memcheck 120 compute-sanitizer --tool memcheck --error-exitcode 1 $T "[hopper-sanitize]"
  run temporal_racecheck 120 compute-sanitizer --tool racecheck --error-exitcode 1 $T "[hopper-sanitize]"
  run temporal_synccheck 120 compute-sanitizer --tool synccheck --error-exitcode 1 $T "[hopper-sanitize]" ;;
hopperfinal)
  # Every Hopper test, the quick LBM validation cases on the Hopper kernels (Taylor-Green 2D runs the temporal
  # kernel) and with kernels: auto, and kernels: auto next to portable on the two benchmark boxes.
  run hopper_all_tests 200 $T "[hopper]"
  Q="lbm.poiseuille2d lbm.couette2d lbm.taylor_green2d lbm.channel2d lbm.poiseuille3d lbm.duct3d lbm.mass_conservation lbm.cavity_re100_small"
  run validate_hopper 120 build/hopsim validate --backend cuda --kernels hopper $Q
  run validate_auto_tg2d 60 build/hopsim validate --backend cuda lbm.taylor_green2d
  for c in d2q9_4096_single d3q19_256_single; do
    run "auto_bench_$c" 60 $B "bench/lbm_$c.yaml" --kernels portable,auto --layouts two-lattice --repeats 5 \
      --json "$R/auto_bench_$c.json"
  done ;;
half)
  run half_tests 90 $T "CUDA LBM FP16: the two-cells-per-thread bulk kernel gives bitwise the one-cell kernel's state"
  for p in 0 1; do
    run "half_bench_pairs$p" 60 env HOPSIM_LBM_HALF_PAIRS=$p $B bench/lbm_d3q19_256_half.yaml \
      --kernels portable --layouts two-lattice --repeats 5 --json "$R/half_bench_pairs$p.json"
  done
  run ncu_half_pairs 60 ncu --clock-control none -k regex:bulkPair -c 2 --metrics sm__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum \
    $B bench/lbm_d3q19_256_half.yaml --kernels portable --layouts two-lattice --steps 64 --repeats 1 ;;
mpi)
  run mpi_gpu_4 60 $M -n 4 build/tests/hopsim_mpi_tests "[gpu]"
  export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps-pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps-log
  mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
  nvidia-cuda-mps-control -d > "$R/mps_start.log" 2>&1; echo "mps start: $?" | tee -a "$R/status.txt"
  for n in 1 2 4; do run "lbm_ranks_${n}_mps" 60 $M -n $n $B bench/lbm_d3q19_256_single.yaml --repeats 3 --json "$R/lbm_ranks_${n}_mps.json"; done
  for n in 2 4; do run "lbm_ranks_${n}_mps_skip" 60 $M -n $n -x HOPSIM_LBM_SKIP_HALO=1 $B bench/lbm_d3q19_256_single.yaml --repeats 3 --json "$R/lbm_ranks_${n}_mps_skip.json"; done
  echo quit | nvidia-cuda-mps-control
  run memcheck_mpi2 60 $M -n 2 compute-sanitizer --tool memcheck --error-exitcode 1 build/tests/hopsim_mpi_tests "[gpu]"
  run racecheck_mpi2 90 $M -n 2 compute-sanitizer --tool racecheck --error-exitcode 1 build/tests/hopsim_mpi_tests "[gpu]" ;;
halo)
  # The two halo transports (staged through pinned host memory, CUDA IPC) on ranks sharing GPU 0 and, where the
  # machine has two GPUs, one rank per GPU: bitwise tests, then D3Q19 FP32 steps with each transport.
  GPUS=$(nvidia-smi -L | wc -l)
  run halo_tests_2 150 $M -n 2 build/tests/hopsim_mpi_tests "[lbm][gpu]"
  run halo_tests_4 150 $M -n 4 build/tests/hopsim_mpi_tests "[lbm][gpu]"
  export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps-pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps-log
  mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
  nvidia-cuda-mps-control -d > "$R/mps_start.log" 2>&1; echo "mps start: $?" | tee -a "$R/status.txt"
  run halo_one_rank 60 $B bench/lbm_d3q19_256_single.yaml --set device.gpu=0 --repeats 3 --json "$R/halo_one_rank.json"
  for n in 2 4; do for h in staged ipc; do
    run "halo_1gpu_${n}r_$h" 60 $M -n $n $B bench/lbm_d3q19_256_single.yaml --set device.gpu=0 --set device.halo=$h \
      --repeats 3 --json "$R/halo_1gpu_${n}r_$h.json"
  done; done
  run halo_1gpu_2r_skip 60 $M -n 2 -x HOPSIM_LBM_SKIP_HALO=1 $B bench/lbm_d3q19_256_single.yaml --set device.gpu=0 \
    --repeats 3 --json "$R/halo_1gpu_2r_skip.json"
  echo quit | nvidia-cuda-mps-control
  if [ "$GPUS" -ge 2 ]; then
    run halo_2gpu_1r 90 $B bench/lbm_d3q19_256_single.yaml --set "domain.cells=[512,512,512]" --repeats 3 \
      --json "$R/halo_2gpu_1r.json"
    for h in staged ipc; do
      run "halo_2gpu_weak_$h" 120 $M -n 2 $B bench/lbm_d3q19_256_single.yaml --set "domain.cells=[512,512,1024]" \
        --set device.halo=$h --repeats 3 --json "$R/halo_2gpu_weak_$h.json"
      run "halo_2gpu_strong_$h" 90 $M -n 2 $B bench/lbm_d3q19_256_single.yaml --set "domain.cells=[512,512,512]" \
        --set device.halo=$h --repeats 3 --json "$R/halo_2gpu_strong_$h.json"
    done
    run halo_2gpu_weak_skip 120 $M -n 2 -x HOPSIM_LBM_SKIP_HALO=1 $B bench/lbm_d3q19_256_single.yaml \
      --set "domain.cells=[512,512,1024]" --repeats 3 --json "$R/halo_2gpu_weak_skip.json"
  fi
  run halo_memcheck_2 90 $M -n 2 compute-sanitizer --tool memcheck --error-exitcode 1 build/tests/hopsim_mpi_tests \
    "decomposed LBM on the GPU*" ;;
mpihopper)
  # Issue 19, the Hopper LBM kernels split over ranks sharing the GPU: the bitwise tests on 1, 2 and 4 ranks, then
  # memcheck and racecheck on 2 (HOPSIM_TEST_QUICK: the first grid of each case only).
  for n in 1 2 4; do run "mpih_tests_$n" 150 $M -n $n build/tests/hopsim_mpi_tests "[hopper]"; done
  run mpih_memcheck_2 150 $M -n 2 -x HOPSIM_TEST_QUICK=1 compute-sanitizer --tool memcheck --error-exitcode 1 \
    build/tests/hopsim_mpi_tests "[hopper]"
  run mpih_racecheck_2 200 $M -n 2 -x HOPSIM_TEST_QUICK=1 compute-sanitizer --tool racecheck --error-exitcode 1 \
    build/tests/hopsim_mpi_tests "[hopper]" ;;
walltemporal)
  # Issue 14: the temporal kernel's wall variant (walls, moving lid bounced back inside its levels) against the
  # portable kernels, both in one process per case, two rounds: the 2-D cavity 4096^2 FP32 and FP16 (4 steps per
  # launch), the 3-D cavity 256^3 FP32 at 1 and 2 steps per launch.
  for round in 1 2; do
    run "wt_cavity2d_single_$round" 60 $B bench/lbm_cavity2d_4096_single.yaml --kernels portable,hopper --repeats 5 \
      --json "$R/wt_cavity2d_single_$round.json"
    run "wt_cavity2d_half_$round" 60 $B bench/lbm_cavity2d_4096_single.yaml --set precision=half \
      --kernels portable,hopper --repeats 5 --json "$R/wt_cavity2d_half_$round.json"
    run "wt_cavity3d_k1_$round" 60 $B bench/lbm_cavity3d_256_single.yaml --kernels portable,hopper --repeats 5 \
      --json "$R/wt_cavity3d_k1_$round.json"
    run "wt_cavity3d_k2_$round" 60 env HOPSIM_HOPPER_STEPS=2 $B bench/lbm_cavity3d_256_single.yaml \
      --kernels portable,hopper --repeats 5 --json "$R/wt_cavity3d_k2_$round.json"
  done ;;
wallrings)
  # Issue 14: the temporal kernel's wall variant on the plain variant's rings (a wall cell's own populations with
  # c_A = -1 held in registers instead of a second ring plane; the D2Q9 FP32 kernel at 4 steps: 4 blocks per SM
  # instead of 3). Its tests and sanitizers first, then walltemporal's benchmarks (run that group after this one),
  # and ncu of one 4-step launch of the 2-D FP32 cavity: blocks per SM, warps active, stalls.
  run wr_tests 200 $T "[hopper]"
  run wr_memcheck 120 compute-sanitizer --tool memcheck --error-exitcode 1 $T "[hopper-sanitize]"
  run wr_racecheck 120 compute-sanitizer --tool racecheck --error-exitcode 1 $T "[hopper-sanitize]"
  run wr_synccheck 120 compute-sanitizer --tool synccheck --error-exitcode 1 $T "[hopper-sanitize]"
  run ncu_wr_cavity2d 90 ncu --clock-control none --section SpeedOfLight --section Occupancy --section LaunchStats \
    --section WarpStateStats -k regex:temporal -c 1 $B bench/lbm_cavity2d_4096_single.yaml --kernels hopper \
    --steps 8 --repeats 1
  # The periodic box with a solid circle (the wall variant too; 86,956 against 51,373 portable on 2026-12-04).
  run wr_circle 60 $B bench/lbm_d2q9_4096_single.yaml \
    --set "obstacles=[{name: circle, shape: circle, center: [2048, 2048], radius: 20}]" --kernels portable,hopper \
    --repeats 5 --json "$R/wr_circle.json" ;;
openchannel)
  # Issue 14: the temporal kernel's Open variant (inlet and outlet faces across x wrapped, their ghost values computed
  # inside the levels; D2Q9 at 4 steps; the seam tiles' blocks on shorter segments) at 3 and 4 blocks per SM
  # (HOPSIM_HOPPER_OPEN_BLOCKS), and the wall variant at 4: every [hopper] test (walls and channels against portable,
  # the planner's refusals), the 2-D cavity and the 2-D channel with a cylinder (8192 x 1024) against the portable
  # kernels, the channel in FP16 storage, memcheck and racecheck on the small cases, ncu of the channel's launches
  # (the SMs' active cycles, mean and most, against the elapsed: the seam tiles' balance), a second round of the
  # benchmarks, the periodic box with a circle, synccheck.
  run oc_tests 240 $T "[hopper]"
  oc() { run "oc_cavity2d_single_$1" 60 $B bench/lbm_cavity2d_4096_single.yaml --kernels portable,hopper \
           --repeats 5 --json "$R/oc_cavity2d_single_$1.json"
         run "oc_channel2d_single_$1" 60 $B bench/lbm_channel2d_cylinder_single.yaml --kernels portable,hopper \
           --repeats 5 --json "$R/oc_channel2d_single_$1.json"
         run "oc_channel2d_single_b4_$1" 60 env HOPSIM_HOPPER_OPEN_BLOCKS=4 $B \
           bench/lbm_channel2d_cylinder_single.yaml --kernels hopper --repeats 5 \
           --json "$R/oc_channel2d_single_b4_$1.json"; }
  oc 1
  run oc_channel2d_half 60 $B bench/lbm_channel2d_cylinder_single.yaml --set precision=half \
    --kernels portable,hopper --repeats 5 --json "$R/oc_channel2d_half.json"
  run oc_memcheck 120 compute-sanitizer --tool memcheck --error-exitcode 1 $T "[hopper-sanitize]"
  run oc_racecheck 120 compute-sanitizer --tool racecheck --error-exitcode 1 $T "[hopper-sanitize]"
  balance=gpu__time_duration.sum,sm__cycles_active.avg,sm__cycles_active.max,sm__cycles_elapsed.max
  balance+=,dram__bytes_read.sum,dram__bytes_write.sum,launch__registers_per_thread
  for b in 3 4; do
    run "ncu_oc_channel2d_b$b" 60 env HOPSIM_HOPPER_OPEN_BLOCKS=$b ncu --clock-control none --metrics $balance \
      -k regex:"temporal|openMoments|wrapGhosts" -c 3 $B bench/lbm_channel2d_cylinder_single.yaml --kernels hopper \
      --steps 8 --repeats 1
  done
  oc 2
  run oc_circle 60 $B bench/lbm_d2q9_4096_single.yaml \
    --set "obstacles=[{name: circle, shape: circle, center: [2048, 2048], radius: 20}]" --kernels portable,hopper \
    --repeats 5 --json "$R/oc_circle.json"
  run oc_synccheck 120 compute-sanitizer --tool synccheck --error-exitcode 1 $T "[hopper-sanitize]" ;;
mpihbench)
  # Issue 19's figures under MPS, `--kernels portable,hopper` in one process per rank count, two rounds: D2Q9 FP32
  # 4096^2 periodic (the temporal kernel, ghost layers 4 deep), D3Q19 FP32 256^3 periodic at 2 steps per launch,
  # and the bounded row, the 3-D cavity 256^3 FP32 (the cluster kernel on the interior).
  startMps
  for round in 1 2; do
    for n in 1 2 4; do
      run "mpih_d2q9_${n}r_$round" 90 $M -n $n $B bench/lbm_d2q9_4096_single.yaml --kernels portable,hopper \
        --repeats 3 --json "$R/mpih_d2q9_${n}r_$round.json"
    done
  done
  for n in 1 2; do
    run "mpih_d3q19_${n}r" 90 $M -n $n -x HOPSIM_HOPPER_STEPS=2 $B bench/lbm_d3q19_256_single.yaml \
      --kernels portable,hopper --repeats 3 --json "$R/mpih_d3q19_${n}r.json"
    run "mpih_cavity_${n}r" 90 $M -n $n $B bench/lbm_cavity3d_256_single.yaml --kernels portable,hopper \
      --repeats 3 --json "$R/mpih_cavity_${n}r.json"
  done
  echo quit | nvidia-cuda-mps-control ;;
bounded)
  # The bounded benchmark cases (bench/lbm_{cavity,channel}*.yaml) in FP32 and FP16 storage, portable and Hopper
  # kernels, then ncu of the 3-D cavity's kernels: time, DRAM bytes, instructions, occupancy, load efficiency.
  for c in cavity3d_256 channel3d_cylinder cavity2d_4096 channel2d_cylinder; do
    for p in single half; do
      run "bounded_${c}_$p" 60 $B "bench/lbm_${c}_single.yaml" --set precision=$p --kernels ${BOUNDED_KERNELS:-portable,hopper} \
        --repeats 5 --json "$R/bounded_${c}_$p.json"
    done
  done
  run bounded_periodic_d3q19_single 45 $B bench/lbm_d3q19_256_single.yaml --kernels portable --repeats 5 \
    --json "$R/bounded_periodic_d3q19_single.json"
  NCU="ncu --clock-control none --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__occupancy_limit_registers,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,smsp__thread_inst_executed_per_inst_executed.ratio"
  for c in cavity3d_256 channel3d_cylinder; do
    for p in single half; do
      run "ncu_bounded_${c}_$p" 90 $NCU -k "regex:${NCU_KERNELS:-Step|Pair}" -c ${NCU_COUNT:-6} $B "bench/lbm_${c}_single.yaml" \
        --set precision=$p --kernels portable --steps 8 --repeats 1
    done
  done ;;
walls)
  # The wall cells in the bulk kernel (issue 14): the LBM GPU tests, the bounded cases with the walls in the bulk
  # kernel (default) and in the boundary kernel (HOPSIM_LBM_WALLS_IN_BULK=0), each in its own process against the copy
  # bandwidth measured there, the periodic references, ncu of the new bulk kernels, memcheck.
  run walls_gpu_lbm_tests 200 $T "[gpu][lbm]"
  run walls_resources 30 sh -c 'for l in D2Q9 D3Q19 D3Q27; do cuobjdump --dump-resource-usage \
    build/CMakeFiles/hopsim_lib.dir/kernels/lbm/cuda/CudaLbm$l.cu.o | grep -A1 -E "bulkStepKernel|bulkPairStepKernel"; done'
  for c in cavity3d_256 channel3d_cylinder cavity2d_4096 channel2d_cylinder; do
    for p in single half; do
      for w in 1 0; do
        run "walls_${c}_${p}_w$w" 45 env HOPSIM_LBM_WALLS_IN_BULK=$w $B "bench/lbm_${c}_single.yaml" --set precision=$p \
          --kernels portable --repeats 5 --json "$R/walls_${c}_${p}_w$w.json"
      done
    done
  done
  for c in d3q19_256_single d3q19_256_half d2q9_4096_single; do
    run "walls_periodic_$c" 45 $B "bench/lbm_$c.yaml" --kernels portable --repeats 5 --json "$R/walls_periodic_$c.json"
  done
  run walls_periodic_d2q9_4096_half 45 $B bench/lbm_d2q9_4096_single.yaml --set precision=half --kernels portable \
    --repeats 5 --json "$R/walls_periodic_d2q9_4096_half.json"
  NCU="ncu --clock-control none --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,sm__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed"
  for c in cavity3d_256 channel3d_cylinder; do
    for p in single half; do
      run "ncu_walls_${c}_$p" 60 $NCU -k "regex:Step|Pair" -c 4 $B "bench/lbm_${c}_single.yaml" --set precision=$p \
        --kernels portable --steps 8 --repeats 1
    done
  done
  ;;
openmoments|openmoments2)
  # The inlet and outlet face cells' moments once per step (issue 14). openmoments: the LBM GPU tests, the cases with
  # open faces with the moments in their own pass (HOPSIM_LBM_OPEN_MOMENTS=1, the default) and rebuilt by every
  # ghost-node link (=0), each in its own process against the copy bandwidth measured there; the cavity and the
  # periodic box as references (no open faces: unchanged). openmoments2 (the next call, machine still warm): the same
  # cases in the other order, ncu of the 3-D channel's kernels, memcheck.
  round=1; order="1 0"
  [ $step = openmoments2 ] && round=2 && order="0 1"
  [ $round = 1 ] && run om_gpu_lbm_tests 240 $T "[gpu][lbm]"
  for c in channel3d_cylinder channel2d_cylinder; do
    for p in single half; do
      for m in $order; do
        run "om_${c}_${p}_m${m}_$round" 45 env HOPSIM_LBM_OPEN_MOMENTS=$m $B "bench/lbm_${c}_single.yaml" \
          --set precision=$p --kernels portable --repeats 5 --json "$R/om_${c}_${p}_m${m}_$round.json"
      done
    done
  done
  if [ $round = 1 ]; then
    references om
  else
    for p in single half; do
      for m in 1 0; do
        run "ncu_om_channel3d_${p}_m$m" 60 env HOPSIM_LBM_OPEN_MOMENTS=$m $NCU_STEP -k "regex:Step|Pair|Moments" -c 6 \
          $B bench/lbm_channel3d_cylinder_single.yaml --set precision=$p --kernels portable --steps 8 --repeats 1
      done
    done
    run om_memcheck 120 compute-sanitizer --tool memcheck --error-exitcode 1 $T "[sanitize]"
  fi ;;
collide)
  # BGK and TRT in pair form with the momentum's sums free of multiplies by zero (kernels/lbm/Collision.h; a third
  # fewer instructions per cell in the micro kernel, docs/performance.md "The collision in pair form"): every
  # [gpu][lbm] test (the GPU against the cpu backend, which shares the code), then the cases whose kernels the last
  # figures found issue- or latency-bound, TRT and BGK, against the figures of 2026-12-03/04 measured before it; ncu
  # of the FP16 cavity's step (warp instructions per step, 412 M one cell per thread before).
  run collide_gpu_lbm_tests 240 $T "[gpu][lbm]"
  for col in trt bgk; do
    for p in single half; do
      run "collide_cavity3d_${p}_$col" 45 $B bench/lbm_cavity3d_256_single.yaml --set precision=$p \
        --set "collision={model: $col}" --kernels portable --repeats 5 --json "$R/collide_cavity3d_${p}_$col.json"
      run "collide_periodic_d3q19_${p}_$col" 45 $B bench/lbm_d3q19_256_single.yaml --set precision=$p \
        --set "collision={model: $col}" --kernels portable --repeats 5 --json "$R/collide_periodic_d3q19_${p}_$col.json"
    done
  done
  for c in ch3 ch3h; do
    boundedCase $c
    run "collide_$c" 45 $B "${args[@]}" --kernels portable --repeats 5 --json "$R/collide_$c.json"
  done
  run collide_cavity2d_half 45 $B bench/lbm_cavity2d_4096_single.yaml --set precision=half --kernels portable \
    --repeats 5 --json "$R/collide_cavity2d_half.json"
  run collide_d2q9_temporal 45 $B bench/lbm_d2q9_4096_single.yaml --kernels portable,hopper --repeats 5 \
    --json "$R/collide_d2q9_temporal.json"
  run ncu_collide_cavity3d_half 60 $NCU_STEP -k "regex:Step|Pair" -c 4 $B bench/lbm_cavity3d_256_single.yaml \
    --set precision=half --kernels portable --steps 8 --repeats 1 ;;
wrap|wrap2)
  # The face pass's ghost values wrapped into the opposite face (issue 14, KernelPlan::openWrap, off unless asked
  # until this group has measured it: the inlet and outlet cells bulk or wall cells). wrap: its GPU tests beside the
  # other open-face tests, then the 3-D channel with a cylinder with and without it (FP32 staircase and interpolated,
  # FP16), each in its own process against the copy bandwidth measured there, two rounds in opposite order; the 2-D
  # channel (FP32) with the face pass (off by default on 2-D lattices: measured slower without the wrap) wrapped and
  # not, and as planned; the cavity and periodic box as references; ncu of a step. wrap2: memcheck of the small
  # cases (the wrapped channels among them), every [gpu][lbm] test, racecheck.
  if [ $step = wrap ]; then
    run wrap_tests 150 $T "CUDA LBM: inlet*,CUDA LBM: wall cells*,CUDA LBM: the boundary passes*"
    for round in 1 2; do
      for w in $(inRound $round 1 0); do
        for c in ch3 ch3h ch3i; do
          boundedCase $c
          run "wrap_${c}_w${w}_$round" 45 env HOPSIM_LBM_OPEN_WRAP=$w $B "${args[@]}" --kernels portable --repeats 5 \
            --json "$R/wrap_${c}_w${w}_$round.json"
        done
        run "wrap_ch2_m1w${w}_$round" 45 env HOPSIM_LBM_OPEN_MOMENTS=1 HOPSIM_LBM_OPEN_WRAP=$w $B \
          bench/lbm_channel2d_cylinder_single.yaml --kernels portable --repeats 5 \
          --json "$R/wrap_ch2_m1w${w}_$round.json"
      done
    done
    run wrap_ch2_planned 45 $B bench/lbm_channel2d_cylinder_single.yaml --kernels portable --repeats 5 \
      --json "$R/wrap_ch2_planned.json"
    references wrap
    for w in 1 0; do
      run "ncu_wrap_channel3d_w$w" 60 env HOPSIM_LBM_OPEN_WRAP=$w $NCU_STEP -k "regex:Step|Ghosts|Moments" -c 8 \
        $B bench/lbm_channel3d_cylinder_single.yaml --kernels portable --steps 8 --repeats 1
    done
  else
    run wrap2_memcheck 120 compute-sanitizer --tool memcheck --error-exitcode 1 $T "[sanitize]"
    run wrap2_gpu_lbm_tests 240 $T "[gpu][lbm]"
    run wrap2_racecheck 90 compute-sanitizer --tool racecheck --error-exitcode 1 $T "[sanitize]"
  fi ;;
wrapplanned)
  # The wrapped open faces as the planner now takes them on 3-D lattices (openWrapMeasuredFaster): every [gpu][lbm]
  # test and the quick LBM validation cases on the GPU with the new default, then the 3-D channel on D3Q27 and in
  # double precision (not measured by `wrap`) with and without the wrap, each in its own process, two rounds in
  # opposite order; memcheck of the small cases.
  run wp_gpu_lbm_tests 240 $T "[gpu][lbm]"
  run wp_validate 120 build/hopsim validate --backend cuda lbm.poiseuille2d lbm.couette2d lbm.channel2d \
    lbm.poiseuille3d lbm.duct3d lbm.mass_conservation lbm.cavity_re100_small lbm.sphere_array
  for round in 1 2; do
    for w in $(inRound $round 1 0); do
      for c in ch3q27 ch3d; do
        boundedCase $c
        run "wp_${c}_w${w}_$round" 45 env HOPSIM_LBM_OPEN_WRAP=$w $B "${args[@]}" --kernels portable --repeats 5 \
          --json "$R/wp_${c}_w${w}_$round.json"
      done
    done
  done
  run wp_memcheck 120 compute-sanitizer --tool memcheck --error-exitcode 1 $T "[sanitize]" ;;
openbulk|openbulk2)
  # The inlet and outlet cells in the bulk kernel's pass (issue 14, KernelPlan::openInBulk). openbulk: its GPU tests
  # (against the boundary kernel, and the open-face tests beside it), the 3-D channel with a cylinder in FP32 with
  # and without it and in FP16 (wall cells now in the pair kernel there), each in its own process against the copy
  # bandwidth measured there, both orders; the cavity and periodic box as references. openbulk2 (next call, machine
  # warm, or the same call after openbulk): ncu of the 3-D channel's kernels, memcheck of the small cases, every
  # [gpu][lbm] test, racecheck.
  if [ $step = openbulk ]; then
    run ob_tests 120 $T "CUDA LBM: inlet*,CUDA LBM: wall cells*,CUDA LBM: the boundary passes*"
    for round in 1 2; do
      order=$(inRound $round 1 0)
      for o in $order; do
        run "ob_channel3d_single_o${o}_$round" 45 env HOPSIM_LBM_OPEN_IN_BULK=$o $B bench/lbm_channel3d_cylinder_single.yaml \
          --kernels portable --repeats 5 --json "$R/ob_channel3d_single_o${o}_$round.json"
      done
    done
    for w in 1 0; do
      run "ob_channel3d_half_w$w" 45 env HOPSIM_LBM_WALLS_IN_BULK=$w $B bench/lbm_channel3d_cylinder_single.yaml \
        --set precision=half --kernels portable --repeats 5 --json "$R/ob_channel3d_half_w$w.json"
    done
    references ob
  else
    for o in 1 0; do
      run "ncu_ob_channel3d_o$o" 60 env HOPSIM_LBM_OPEN_IN_BULK=$o $NCU_STEP -k "regex:Step|Faces|Moments" -c 6 \
        $B bench/lbm_channel3d_cylinder_single.yaml --kernels portable --steps 8 --repeats 1
    done
    run ob2_memcheck 120 compute-sanitizer --tool memcheck --error-exitcode 1 $T "[sanitize]"
    run ob2_gpu_lbm_tests 240 $T "[gpu][lbm]"
    run ob2_racecheck 90 compute-sanitizer --tool racecheck --error-exitcode 1 $T "[sanitize]"
  fi ;;
omwalls)
  # With the face moments pass: does the FP16 3-D channel now gain from the wall cells in the pair kernel (the
  # planner keeps them in the boundary kernel there)? Both orders.
  for w in 1 0 0 1; do
    run "omwalls_channel3d_half_w$w" 45 env HOPSIM_LBM_WALLS_IN_BULK=$w $B bench/lbm_channel3d_cylinder_single.yaml \
      --set precision=half --kernels portable --repeats 5 --json "$R/omwalls_channel3d_half_w${w}_$SECONDS.json"
  done ;;
wallsfinal)
  # After `walls`: the LBM GPU tests, the Hopper tests (wall cells are boundary-kernel cells there), memcheck on the
  # small 3-D cases (the wall pass runs on their obstacle and walls), the LBM validation on the portable kernels,
  # the 3-D cavity in FP16 with BGK and TRT, racecheck.
  run wallsfinal_gpu_lbm_tests 150 $T "[gpu][lbm]"
  run wallsfinal_hopper_tests 120 $T "[hopper]"
  run wallsfinal_memcheck 90 compute-sanitizer --tool memcheck --error-exitcode 1 $T "[sanitize]"
  # (lbm.cylinder2d_st left out: its interpolated cylinder runs on the cpu backend.)
  run wallsfinal_validate 120 build/hopsim validate --backend cuda lbm.poiseuille2d lbm.couette2d lbm.channel2d \
    lbm.poiseuille3d lbm.duct3d lbm.mass_conservation lbm.cavity_re100_small lbm.cavity_re1000
  for m in bgk trt; do
    run "wallsfinal_cavity3d_half_$m" 30 $B bench/lbm_cavity3d_256_single.yaml --set precision=half \
      --set collision.model=$m --kernels portable --repeats 5 --json "$R/wallsfinal_cavity3d_half_$m.json"
  done
  run wallsfinal_periodic_half_trt 30 $B bench/lbm_d3q19_256_half.yaml --set collision.model=trt --kernels portable \
    --repeats 5 --json "$R/wallsfinal_periodic_half_trt.json"
  run wallsfinal_racecheck 90 compute-sanitizer --tool racecheck --error-exitcode 1 $T "[sanitize]" ;;
runtimes)
  # The run summary (issue 22) on the bounded case with output, as a user runs it (fields every 100 steps,
  # observables every 10; its `hopsim bench` figure is in docs/performance.md), then a CUDA checkpoint round trip
  # through the binary: 200 steps straight against 100 + checkpoint + restart to 200, fields compared bitwise.
  OUTC="--set output.every=100 --set output.fields=[density,velocity] --set output.formats=[hdf5] --set output.observables.every=10"
  run runtimes_cavity256 120 build/hopsim run bench/lbm_cavity3d_256_single.yaml --set run.steps=1000 $OUTC \
    --output /tmp/rt_cavity
  cp /tmp/rt_cavity/run.json "$R/runtimes_cavity256_run.json" 2>/dev/null
  CK="inputs/lbm/cavity3d.yaml --set device.backend=cuda --set output.every=100 --set output.observables.every=10"
  run ckpt_straight 60 build/hopsim run $CK --set run.steps=200 --output /tmp/ck_a
  run ckpt_first 60 build/hopsim run $CK --set run.steps=100 --set output.checkpoint.every=100 --output /tmp/ck_b
  run ckpt_restart 60 build/hopsim run $CK --set run.steps=200 --restart /tmp/ck_b --output /tmp/ck_b
  run ckpt_compare 30 python3 -c "
import h5py, glob, numpy as np, sys
a = sorted(glob.glob('/tmp/ck_a/*200*.h5')); b = sorted(glob.glob('/tmp/ck_b/*200*.h5'))
print(a, b); assert a and b
fa, fb = h5py.File(a[0]), h5py.File(b[0]); bad = 0
def walk(name, obj):
    global bad
    if isinstance(obj, h5py.Dataset):
        x, y = obj[()], fb[name][()]; same = np.array_equal(x, y); bad += not same; print(name, x.shape, 'bitwise' if same else 'DIFFERENT')
fa.visititems(walk); sys.exit(1 if bad else 0)" ;;
mdmpiquick)
  # mdmpimps's figures first where device time is short: the 1M-atom bench on 1, 2 and 4 ranks under MPS, two rounds
  # in opposite order, then the decomposed engine's GPU tests on 2 ranks.
  startMps
  for round in 1 2; do
    for n in $(inRound $round 1 2 4); do mdb "md_mpi_bench_${n}r_mps_$round" $n ""; done
  done
  echo quit | nvidia-cuda-mps-control
  run md_mpi_gpu_2 150 $M -n 2 build/tests/hopsim_mpi_tests "[md][gpu]" ;;
mdmpi)
  # Decomposed MD on the CUDA backend: thermo against the one-rank CUDA engine on 1, 2 and 4 ranks sharing GPU 0
  # (and the GPU rebuild with GPU-to-GPU ghosts against the host rebuild with staged ghosts, bit for bit; the MD MPI
  # cases as a whole on 4), memcheck on 2 ranks, then the LJ benchmark at 1M atoms on 1, 2 and 4 ranks: ghosts by
  # CUDA IPC (auto) and staged, the host rebuild beside them, then again under MPS.
  for n in 1 2 4; do run "md_mpi_gpu_$n" 200 $M -n $n build/tests/hopsim_mpi_tests "[md][gpu]"; done
  run md_mpi_all_4 150 $M -n 4 build/tests/hopsim_mpi_tests "[md]"
  # (Two processes each running the one-rank reference engine, whose step graphs hold conditional nodes, under
  # memcheck at once hit an unreported illegal address; alone it is clean: so memcheck takes the decomposed engine
  # without the reference on 2 ranks, and the reference case on 1.)
  run md_mpi_memcheck_2 200 $M -n 2 compute-sanitizer --tool memcheck --error-exitcode 1 build/tests/hopsim_mpi_tests \
    "decomposed CUDA: the rebuild*"
  run md_mpi_memcheck_1 100 $M -n 1 compute-sanitizer --tool memcheck --error-exitcode 1 build/tests/hopsim_mpi_tests \
    "decomposed CUDA NVE*"
  for mps in "" _mps; do
    [ -n "$mps" ] && startMps
    for n in 1 2 4; do mdb "md_mpi_bench_${n}r$mps" $n ""; done
    for n in 2 4; do mdb "md_mpi_bench_${n}r_staged$mps" $n "" --set device.halo=staged; done
    mdb "md_mpi_bench_2r_hostrebuild$mps" 2 "-x HOPSIM_MD_HOST_REBUILD=1" --set device.halo=staged
  done
  echo quit | nvidia-cuda-mps-control ;;
mdtests)
  # The GPU MD tests of hopsim_tests (one rank: portable and Hopper paths), memcheck on the Hopper force test.
  run mdt_hopper_tests 150 $T "[hopper]"
  run mdt_gpu_md_tests 150 $T "[gpu][md]"
  run mdt_memcheck 150 compute-sanitizer --tool memcheck --error-exitcode 1 $T "gpu md hopper: forces*"
  run mdt_racecheck 150 compute-sanitizer --tool racecheck --error-exitcode 1 $T "[md-sanitize]"
  run mdt_synccheck 150 compute-sanitizer --tool synccheck --error-exitcode 1 $T "[md-sanitize]" ;;
mdmpimps)
  # The decomposed CUDA MD engine's tests on 2 and 4 ranks, memcheck of the rebuild test on 2, and the 1M-atom bench
  # on 1, 2 and 4 ranks under MPS (ghosts GPU to GPU, and staged on 2), rounds in opposite order.
  for n in 2 4; do run "md_mpi_gpu_$n" 200 $M -n $n build/tests/hopsim_mpi_tests "[md][gpu]"; done
  run md_mpi_memcheck_2 200 $M -n 2 compute-sanitizer --tool memcheck --error-exitcode 1 build/tests/hopsim_mpi_tests \
    "decomposed CUDA: the rebuild*"
  startMps
  for round in 1 2; do
    for n in $(inRound $round 1 2 4); do mdb "md_mpi_bench_${n}r_mps_$round" $n ""; done
  done
  mdb "md_mpi_bench_2r_staged_mps" 2 "" --set device.halo=staged
  echo quit | nvidia-cuda-mps-control ;;
lbmbench)
  # The portable kernels on the benchmark cases, each against the copy bandwidth measured in the same process.
  for c in d3q19_256_single d3q19_256_half d2q9_4096_single d3q27_256_single; do
    run "lbmbench_$c" 60 $B "bench/lbm_$c.yaml" --kernels portable --repeats 5 --json "$R/lbmbench_$c.json"
  done ;;
cpulayouts)
  # The cpu backend on the host's 16 cores (issue 21): two lattices against one in place, periodic and bounded
  # boxes, FP32 (and the D3Q19 box in FP64 and FP16 storage), each against the copy bandwidth of its own process;
  # two rounds, the binary as built here (HOPSIM_NATIVE off in prebuilt binaries: the x86-64 baseline).
  for round in 1 2; do
    for c in "d3q19_256_single" "cavity3d_256_single" "d2q9_4096_single" "cavity2d_4096_single" \
             "d3q19_256_single --set precision=double" "d3q19_256_half"; do
      name="cpulayouts_${round}_$(echo "$c" | tr -c 'a-z0-9_\n' '_')"
      run "$name" 90 env OMP_NUM_THREADS=16 OMP_PROC_BIND=close OMP_PLACES=cores $B bench/lbm_${c%% *}.yaml \
        $([ "$c" != "${c%% *}" ] && echo "${c#* }") --set device.backend=cpu --layouts two-lattice,in-place \
        --repeats 5 --json "$R/$name.json"
    done
  done ;;
halfprof)
  # Which pipe limits the FP16 pair kernel: ncu's compute, scheduler and warp-state sections, and the one-cell and
  # FP32 kernels beside it.
  for k in bulkPair bulkStep; do
    run "halfprof_$k" 120 env HOPSIM_LBM_HALF_PAIRS=$([ $k = bulkPair ] && echo 1 || echo 0) \
      ncu --clock-control none -k regex:$k -c 1 --section ComputeWorkloadAnalysis \
      --section SchedulerStats --section WarpStateStats --section Occupancy --section LaunchStats \
      --section MemoryWorkloadAnalysis --section InstructionStats $B bench/lbm_d3q19_256_half.yaml --kernels portable \
      --layouts two-lattice --steps 8 --repeats 1
  done ;;
lbm)
  run lbm_gpu_tests 200 $T "[gpu][lbm]" ;;
overlap)
  # Issue 22 on the bounded case as a user runs it (fields every 100 steps, observables every 10): the overlapped
  # output against the synchronous path (same files, byte for byte), observables every step, and
  # `bench --with-output` (wall/update and the disk's write bandwidth, same process).
  C22="bench/lbm_cavity3d_256_single.yaml --set run.steps=1000 --set output.every=100 --set output.fields=[density,velocity] --set output.formats=[hdf5] --set output.observables.every=10"
  run overlap_async 120 build/hopsim run $C22 --output /tmp/ov_async
  run overlap_sync 120 env HOPSIM_SYNC_OUTPUT=1 build/hopsim run $C22 --output /tmp/ov_sync
  run overlap_cmp 60 bash -c 'for f in /tmp/ov_async/*.h5 /tmp/ov_async/*.csv /tmp/ov_async/fields.xmf; do cmp "$f" "/tmp/ov_sync/$(basename "$f")" || exit 1; done; echo "every file the same bytes"'
  run overlap_obs1 120 build/hopsim run $C22 --set output.observables.every=1 --set output.every=0 --output /tmp/ov_obs1
  run overlap_update 60 build/hopsim bench bench/lbm_cavity3d_256_single.yaml --repeats 5 --json "$R/overlap_update.json"
  run overlap_bench 180 build/hopsim bench bench/lbm_cavity3d_256_single.yaml --with-output --json "$R/overlap_bench.json"
  for d in ov_async ov_sync ov_obs1; do cp /tmp/$d/run.json "$R/${d}_run.json" 2>/dev/null; done
  rm -rf /tmp/ov_async /tmp/ov_sync /tmp/ov_obs1 ;;
obsfold)
  # Issue 22: the observables' two-level fold. The GPU LBM tests (observables against the CPU backend, ring against
  # the synchronous path), then the issue's case with observables every 10 steps, every step and once, and the update
  # alone in `hopsim bench`.
  run of_lbm_tests 120 $T "[gpu][lbm]"
  C22="bench/lbm_cavity3d_256_single.yaml --set run.steps=1000 --set output.every=100 --set output.fields=[density,velocity] --set output.formats=[hdf5] --set output.observables.every=10"
  run of_run10 60 build/hopsim run $C22 --output /tmp/of10
  run of_run1 60 build/hopsim run $C22 --set output.observables.every=1 --set output.every=0 --output /tmp/of1
  run of_run1000 60 build/hopsim run $C22 --set output.observables.every=1000 --set output.every=0 --output /tmp/of1000
  run of_bench 60 build/hopsim bench bench/lbm_cavity3d_256_single.yaml --repeats 5 --json "$R/of_bench.json"
  rm -rf /tmp/of10 /tmp/of1 /tmp/of1000 ;;
sampled)
  # Issue 22: the observables summed in the sampled step's bulk kernel (KernelPlan::sampleInStep), against the
  # observables kernel's pass (HOPSIM_LBM_SAMPLE_IN_STEP=0), observables every step, every 10 and once.
  sampledRounds ss "1 10 1000" "s1:env HOPSIM_LBM_SAMPLE_IN_STEP=1 build/hopsim" \
    "s0:env HOPSIM_LBM_SAMPLE_IN_STEP=0 build/hopsim" ;;
sampled2)
  # Issue 22, observables every step and every 10: this build and each variant binary in $VARIANTS (paths, e.g.
  # prebuilt/hopsim_floatsums).
  variants=()
  for bin in build/hopsim ${VARIANTS:-}; do variants+=("$(basename "$bin"):$bin"); done
  sampledRounds s2 "1 10" "${variants[@]}" ;;
flows)
  # Issue 18 on the GPU: the sphere array against Zick & Homsy (the quick row and the radius study), the GPU test of a
  # 67M-cell box's observables, and Schaefer-Turek 2D-2 runs long enough to show how cd_max and cl_max settle (the
  # forces into $R/st_*.csv.xz): D = 40 and 80 at the validation case's peak Mach number 0.052, D = 40 at
  # half of it, and D = 40 with the regularised operator.
  run obs67m 90 $T "CUDA LBM: the observables of a box of 67M cells count every cell"
  run sphere_array 60 build/hopsim validate lbm.sphere_array --backend cuda
  run sphere_study 200 build/hopsim validate lbm.sphere_study --backend cuda
  st d40 40 0.03 1200000
  st d80 80 0.03 1600000
  st d40_ma2 40 0.015 2400000
  st d40_reg 40 0.03 1200000 --set "collision={model: regularized}" ;;
flows2)
  # Issue 18, Schaefer-Turek 2D-2 at D = 40 (700,000 steps: settled by 600,000) with the TRT magic parameter 1/4 and
  # 1/12 (3/16 in flows), BGK, and D = 60 for the order of convergence; the sphere array study again.
  run sphere_study 200 build/hopsim validate lbm.sphere_study --backend cuda
  st d40_m4 40 0.03 700000 --set "collision={model: trt, magic: 0.25}"
  st d40_m12 40 0.03 700000 --set "collision={model: trt, magic: 0.0833333333333333}"
  st d40_bgk 40 0.03 700000 --set "collision={model: bgk}"
  st d60 60 0.03 1000000
  # Issue 22: where the sampled step's bulk kernel spends its extra time, ncu's stall, scheduler, occupancy and
  # launch sections for two sampled steps and two plain ones of the cavity 256^3.
  run ncu_sampled 120 ncu --clock-control none --section WarpStateStats --section SchedulerStats --section Occupancy \
    --section LaunchStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis -k "regex:bulk" -c 4 \
    build/hopsim run bench/lbm_cavity3d_256_single.yaml --set run.steps=4 --set output.every=0 \
    --set output.observables.every=2 --output /tmp/ncu_sampled ;;
flows3)
  # Issue 18: Schaefer-Turek 2D-2 at D = 40 with the outlet twice as far (a channel of 4.4 instead of 2.2): whether the
  # pressure outlet (not the benchmark's do-nothing outflow) holds cl_max low.
  st d40_long 40 0.03 700000 --set "domain.cells=[1760,164]" ;;
flows4)
  # Issue 18: the cylinder with quadratic interpolated bounce-back against the linear form: 2D-2 at D = 40 (the linear
  # form's run is flows' st d40), 2D-1 at D = 20 and 40 with both.
  ST_BOUNDARY=quadratic st d40_quad 40 0.03 700000
  for D in 20 40; do for b in interpolated quadratic; do
    RE=20 ST_BOUNDARY=$b st "re20_d${D}_$b" $D 0.03 $((D * 11000))
  done; done ;;
flows5)
  # Issue 18: 2D-2 with quadratic interpolated bounce-back at D = 60 and 80 (the linear form's rows: flows, flows2).
  ST_BOUNDARY=quadratic st d60_quad 60 0.03 1000000
  ST_LIMIT=240 ST_BOUNDARY=quadratic st d80_quad 80 0.03 1600000 ;;
flows6)
  # Issue 18: 2D-2 at D = 40, quadratic, at half the Mach number (peak 0.015, tau 0.512; twice the steps).
  ST_LIMIT=120 ST_BOUNDARY=quadratic st d40_quad_ma 40 0.015 2400000 ;;
flows7)
  # Issue 18: 2D-2 at D = 40, quadratic, and its mirror image about the channel's mid-height (the cylinder's centre
  # at 84 instead of 80 of 164 cells): a mirror-symmetric discretisation gives cl'(t) = -cl(t), cl_max' = -cl_min.
  ST_BOUNDARY=quadratic st d40_quad_c80 40 0.03 700000
  ST_BOUNDARY=quadratic st d40_quad_c84 40 0.03 700000 \
    --set "obstacles=[{name: cylinder, shape: circle, center: [80, 84], radius: 20, boundary: quadratic}]" ;;
pairs)
  # FP16 storage, two cells per thread (the default) against one (HOPSIM_LBM_HALF_PAIRS=0) on each lattice, periodic
  # and bounded, each run its own process, two rounds in opposite order: D3Q27's and D2Q9's pair kernels had not been
  # measured against their one-cell kernels (D3Q19's: docs/performance.md, "two cells per thread").
  P27="bench/lbm_d3q27_256_single.yaml"
  C27="bench/lbm_cavity3d_256_single.yaml --set lattice=D3Q27"
  for round in 1 2; do
    order=$(inRound $round 1 0)
    for pp in $order; do
      for c in "p27:$P27" "c27:$C27" "p19:bench/lbm_d3q19_256_single.yaml" "c19:bench/lbm_cavity3d_256_single.yaml" \
               "p9:bench/lbm_d2q9_4096_single.yaml" "c9:bench/lbm_cavity2d_4096_single.yaml"; do
        run "pairs_${c%%:*}_${pp}_$round" 45 env HOPSIM_LBM_HALF_PAIRS=$pp $B ${c#*:} --set precision=half \
          --kernels portable --layouts two-lattice --repeats 5 --json "$R/pairs_${c%%:*}_${pp}_$round.json"
      done
    done
  done ;;
pairs2)
  # The planner's FP16 choice (one cell per thread on 3-D boxes with wall cells): the 3-D channel with a cylinder
  # (walls, inlet/outlet, an obstacle) both ways and as planned, the 3-D cavities and a periodic box as planned.
  for round in 1 2; do
    order=$(inRound $round 1 0)
    for pp in $order; do
      run "pairs2_ch19_${pp}_$round" 45 env HOPSIM_LBM_HALF_PAIRS=$pp $B bench/lbm_channel3d_cylinder_single.yaml \
        --set precision=half --kernels portable --repeats 5 --json "$R/pairs2_ch19_${pp}_$round.json"
    done
  done
  for c in "ch19:bench/lbm_channel3d_cylinder_single.yaml" "c19:bench/lbm_cavity3d_256_single.yaml" \
           "c27:bench/lbm_cavity3d_256_single.yaml --set lattice=D3Q27" "p19:bench/lbm_d3q19_256_single.yaml"; do
    run "pairs2_${c%%:*}_auto" 45 $B ${c#*:} --set precision=half --repeats 5 --json "$R/pairs2_${c%%:*}_auto.json"
  done ;;
halfch)
  # ncu of one step of the FP16 3-D channel and cavity, one cell per thread (the plan) and two: each kernel's time,
  # DRAM bytes, warp instructions, occupancy, registers, and its long-scoreboard stalls.
  for c in "ch19:bench/lbm_channel3d_cylinder_single.yaml" "c19:bench/lbm_cavity3d_256_single.yaml"; do
    for pp in 0 1; do
      run "ncu_halfch_${c%%:*}_$pp" 90 env HOPSIM_LBM_HALF_PAIRS=$pp $NCU_STEP,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__thread_inst_executed_per_inst_executed.ratio \
        -k "regex:Step|Pair|Moments" -c 6 $B ${c#*:} --set precision=half --kernels portable --steps 8 --repeats 1
    done
  done ;;
prefetch|prefetch2)
  # The portable bulk kernel's L2 prefetch (HOPSIM_LBM_PREFETCH_WAVES=0|1|2|4; kernels/lbm/cuda/L2Prefetch.cuh; one
  # cell per thread only). prefetch: its GPU test and memcheck, then the bounded cases at each distance, each run its
  # own process: the 3-D cavity and channel in FP16 and FP32, the 2-D cavity in FP16 one cell per thread (and its
  # pair kernel, the default, without); then ncu of one step of the FP16 3-D cavity without and with (DRAM bytes:
  # prefetched lines evicted before their block reads them would show as more). prefetch2: the same cases in the
  # opposite order, and the FP32 periodic box (the prefetch's cost where the kernel runs at the copy bandwidth).
  pt="CUDA LBM: the bulk kernel's L2 prefetch changes no value"
  if [ "$step" = prefetch ]; then
    run prefetch_test 120 $T "$pt"
    run prefetch_memcheck 150 compute-sanitizer --tool memcheck $T "$pt"
    run prefetch_c9h_pairs_1 45 $B bench/lbm_cavity2d_4096_single.yaml --set precision=half --kernels portable \
      --repeats 3 --json "$R/prefetch_c9h_pairs_1.json"
    round=1
  else
    round=2
  fi
  for w in $(inRound $round 0 1 2 4); do
    for c in c3h ch3h c3 ch3 c9h; do
      case $c in
        c3) args=(bench/lbm_cavity3d_256_single.yaml) ;;
        c9h) args=(bench/lbm_cavity2d_4096_single.yaml --set precision=half) ;;
        *) boundedCase $c ;;
      esac
      run "prefetch_${c}_${w}_$round" 45 env HOPSIM_LBM_PREFETCH_WAVES=$w HOPSIM_LBM_HALF_PAIRS=0 $B "${args[@]}" \
        --kernels portable --repeats 3 --json "$R/prefetch_${c}_${w}_$round.json"
    done
  done
  if [ "$step" = prefetch ]; then
    for w in 0 1; do
      run "ncu_prefetch_c3h_$w" 90 env HOPSIM_LBM_PREFETCH_WAVES=$w $NCU_STEP -k "regex:bulkStep" -c 2 $B \
        bench/lbm_cavity3d_256_single.yaml --set precision=half --kernels portable --steps 4 --repeats 1
    done
  else
    for w in 0 1; do
      run "prefetch_p19_$w" 45 env HOPSIM_LBM_PREFETCH_WAVES=$w $B bench/lbm_d3q19_256_single.yaml \
        --kernels portable --repeats 3 --json "$R/prefetch_p19_$w.json"
    done
  fi ;;
prefetch3)
  # The decisions the 2026-12-07 H100 call left open (docs/performance.md, "L2 prefetch ahead of the bulk kernel's
  # blocks"; "The seam tiles on shorter segments"): the prefetch 0 against 1 wave on the FP16 3-D bounded cases of both
  # 3-D lattices (the cavity, the channel with a staircase and an interpolated cylinder) and the FP32 periodic box, two
  # rounds in opposite order; the 2-D channel with a cylinder (the temporal kernel's Open variant at 3 blocks per SM)
  # and the 2-D cavity (its wall variant), portable against hopper in one process, two rounds; first every [hopper]
  # test and the prefetch's GPU test (the seam tiles' segments and the planner's defaults changed with them).
  run prefetch3_hopper_tests 240 $T "[hopper]"
  run prefetch3_test 120 $T "CUDA LBM: the bulk kernel's L2 prefetch changes no value"
  for round in 1 2; do
    for w in $(inRound $round 0 1); do
      for c in c3h ch3h ch3ih c3h27 ch3h27; do
        boundedCase $c
        run "prefetch3_${c}_${w}_$round" 45 env HOPSIM_LBM_PREFETCH_WAVES=$w $B "${args[@]}" --kernels portable \
          --repeats 3 --json "$R/prefetch3_${c}_${w}_$round.json"
      done
    done
    run "prefetch3_channel2d_$round" 60 $B bench/lbm_channel2d_cylinder_single.yaml --kernels portable,hopper \
      --repeats 5 --json "$R/prefetch3_channel2d_$round.json"
    run "prefetch3_cavity2d_$round" 60 $B bench/lbm_cavity2d_4096_single.yaml --kernels portable,hopper \
      --repeats 5 --json "$R/prefetch3_cavity2d_$round.json"
  done
  for w in 0 1; do
    run "prefetch3_p19_$w" 45 env HOPSIM_LBM_PREFETCH_WAVES=$w $B bench/lbm_d3q19_256_single.yaml \
      --kernels portable --repeats 3 --json "$R/prefetch3_p19_$w.json"
  done
  # The channel's launch balance at the seam weight of this build (the SMs' active cycles, mean and most).
  run ncu_prefetch3_channel2d 60 ncu --clock-control none --metrics gpu__time_duration.sum,sm__cycles_active.avg,\
sm__cycles_active.max,sm__cycles_elapsed.max,dram__bytes_read.sum,dram__bytes_write.sum -k regex:temporal -c 2 \
    $B bench/lbm_channel2d_cylinder_single.yaml --kernels hopper --steps 8 --repeats 1 ;;
prefetch200)
  # Issue 14 on an H200 (the prefetch was measured on H100s only): the FP16 3-D bounded cases of both lattices at 0
  # and 1 wave of L2 prefetch (the planner takes 1), two rounds in opposite order.
  for round in 1 2; do
    for w in $(inRound $round 0 1); do
      for c in c3h ch3h c3h27; do
        boundedCase $c
        run "prefetch200_${c}_${w}_$round" 45 env HOPSIM_LBM_PREFETCH_WAVES=$w $B "${args[@]}" --kernels portable \
          --repeats 3 --json "$R/prefetch200_${c}_${w}_$round.json"
      done
    done
  done ;;
sidecap)
  # The side stream's list kernels (face moments, boundary, curved) on at most N blocks (HOPSIM_LBM_SIDE_BLOCKS;
  # unset: one thread per cell) beside the bulk kernel: the 3-D channel (FP32 staircase and interpolated, FP16) and
  # the 2-D one with an interpolated cylinder, each N its own process, two rounds in opposite order.
  for round in 1 2; do
    caps=$(inRound $round none 33 66 132 264)
    for n in $caps; do
      for c in ch3 ch3i ch3h ch2i; do
        boundedCase $c
        e=""; [ $n != none ] && e="HOPSIM_LBM_SIDE_BLOCKS=$n"
        run "sidecap_${c}_${n}_$round" 45 env $e $B "${args[@]}" --kernels portable --repeats 5 \
          --json "$R/sidecap_${c}_${n}_$round.json"
      done
    done
  done ;;
graphprio)
  # The steps' graphs with the captured stream priorities (HOPSIM_LBM_GRAPH_PRIORITY=1, the default) against CUDA's
  # default of the launch stream's priority for every node (=0), and one stream (HOPSIM_LBM_SIDE_STREAM=0): the 3-D
  # channel (FP32 staircase and interpolated, FP16) and the 2-D one (interpolated, FP16), the 3-D cavity FP16; each
  # run its own process, two rounds in opposite order.
  for round in 1 2; do
    for v in $(inRound $round prio1 prio0 side0); do
      case $v in
        prio1) e=HOPSIM_LBM_GRAPH_PRIORITY=1 ;; prio0) e=HOPSIM_LBM_GRAPH_PRIORITY=0 ;; side0) e=HOPSIM_LBM_SIDE_STREAM=0 ;;
      esac
      for c in ch3 ch3i ch3h ch2i ch2h c3h; do
        boundedCase $c
        run "graphprio_${c}_${v}_$round" 45 env $e $B "${args[@]}" --kernels portable --repeats 5 \
          --json "$R/graphprio_${c}_${v}_$round.json"
      done
    done
  done ;;
mdgroup)
  # Issue 17, the small system's step: the force kernel with 1-32 threads per atom (HOPSIM_MD_THREADS_PER_ATOM; auto
  # is the engine's choice) at 32,000, 1,048,576 and 16,384,000 atoms, mixed precision, each run its own process,
  # two rounds in opposite order at 32,000; the GPU MD tests, the sanitizers on three of them (2,048 atoms).
  run mdg_gpu_md_tests 150 $T "[gpu][md]"
  SAN="gpu md: the force kernel with*,gpu md: CUDA and CPU trajectories agree in double (NVE*,gpu md: the list grows*"
  run mdg_memcheck 120 compute-sanitizer --tool memcheck --error-exitcode 1 $T "$SAN"
  run mdg_racecheck 120 compute-sanitizer --tool racecheck --error-exitcode 1 $T "$SAN"
  MDC="inputs/md/lj_liquid.yaml --set precision=mixed --set device.backend=cuda"
  for round in 1 2; do
    for g in $(inRound $round auto 1 2 4 8 16 32); do
      e=""; [ $g != auto ] && e="HOPSIM_MD_THREADS_PER_ATOM=$g"
      run "mdg_20_${g}_$round" 40 env $e $B $MDC --set "system.lattice.cells=[20,20,20]" --steps 2000 --repeats 5 \
        --json "$R/mdg_20_${g}_$round.json"
    done
  done
  for g in auto 1 2 4; do
    e=""; [ $g != auto ] && e="HOPSIM_MD_THREADS_PER_ATOM=$g"
    run "mdg_64_$g" 40 env $e $B $MDC --set "system.lattice.cells=[64,64,64]" --steps 1000 --repeats 3 \
      --json "$R/mdg_64_$g.json"
  done
  for g in auto 2; do
    e=""; [ $g != auto ] && e="HOPSIM_MD_THREADS_PER_ATOM=$g"
    run "mdg_160_$g" 60 env $e $B $MDC --set "system.lattice.cells=[160,160,160]" --steps 200 --repeats 3 \
      --json "$R/mdg_160_$g.json"
  done
  for g in 1 8; do
    run "mdg_ncu_20_$g" 60 env HOPSIM_MD_THREADS_PER_ATOM=$g $NCU_STEP -k regex:forceKernel -c 2 $B $MDC \
      --set "system.lattice.cells=[20,20,20]" --steps 20 --repeats 1
  done ;;
mdforce)
  # Issue 17: the force kernel without branches (docs/performance.md, "The MD force kernel without branches"), the
  # old binary (prebuilt/hopsim_old) against this one. The MD GPU tests (the arithmetic check among them) and memcheck
  # of the force tests; the same 400 steps of the mixed liquid (thermo every step, positions and velocities every 200)
  # from both, whose frames must agree bit for bit (the thermo's sums meet in atomics: its last digits differ from
  # run to run, mdforcevar); then 16.4M, 1M and 32,000 atoms in two rounds of opposite order, and ncu of the first
  # two force launches (thermo steps) at 16.4M atoms from each.
  run mdf_gpu_md_tests 150 $T "[gpu][md]"
  run mdf_memcheck 150 compute-sanitizer --tool memcheck --error-exitcode 1 $T \
    "gpu md: the force kernel with*,gpu md: lanes of one warp far apart*,gpu md: the force kernel's reciprocal*"
  MDC="inputs/md/lj_liquid.yaml --set precision=mixed --set device.backend=cuda"
  for who in old new; do
    bin=build/hopsim; [ $who = old ] && bin=$OH
    for cells in 20 64; do
      run "mdf_run_${who}_$cells" 60 $bin run $MDC --set "system.lattice.cells=[$cells,$cells,$cells]" \
        --set run.steps=400 --set thermo.every=1 --set output.every=200 --set "output.formats=[h5md]" \
        --output /tmp/mdf_${who}_$cells
    done
  done
  for cells in 20 64; do
    python3 - /tmp/mdf_old_$cells/trajectory.h5 /tmp/mdf_new_$cells/trajectory.h5 \
      > "$R/mdf_traj_cmp_$cells.log" 2>&1 <<'PY'
import sys, h5py, numpy as np
a, b = h5py.File(sys.argv[1]), h5py.File(sys.argv[2])
for p in ['particles/all/position/value', 'particles/all/velocity/value']:
    if p in a: print(p, a[p].shape, 'bitwise' if np.array_equal(a[p][()], b[p][()]) else 'DIFFERENT')
PY
  done
  for round in 1 2; do
    for who in $(inRound $round old new); do
      bin=$B; [ $who = old ] && bin=$OB
      mdSizes "mdf_${who}_$round" "$bin" 160 64 20
    done
  done
  for who in old new; do
    bin=build/hopsim; [ $who = old ] && bin=$OH
    run "mdf_ncu_$who" 90 ncu --clock-control none -k regex:forceKernel -c 2 --section Occupancy \
      --metrics gpu__time_duration.sum,smsp__inst_executed.sum,smsp__thread_inst_executed_per_inst_executed.ratio,\
dram__bytes_read.sum,dram__bytes_write.sum,sm__warps_active.avg.pct_of_peak_sustained_active,\
launch__registers_per_thread,smsp__issue_active.avg.pct_of_peak_sustained_active,l1tex__t_sector_hit_rate.pct,\
lts__t_sector_hit_rate.pct,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio $bin bench $MDC \
      --set "system.lattice.cells=[160,160,160]" --steps 20 --repeats 1
  done ;;
mdforcevar)
  # Variants of the force kernel built beside this one (prebuilt/hopsim_var_NAME, e.g. other launch bounds or batch
  # sizes) against it and the old binary: 16.4M and 1M atoms, two rounds in opposite order; then the old binary's
  # thermo twice, to tell its run-to-run spread (the energy sums meet in atomics of block sums) from a change.
  vars=(new old); for f in prebuilt/hopsim_var_*; do [ -f "$f" ] && vars+=("${f#prebuilt/hopsim_}"); done
  MDC="inputs/md/lj_liquid.yaml --set precision=mixed --set device.backend=cuda"
  for round in 1 2; do
    for who in $(inRound $round "${vars[@]}"); do
      case $who in new) bin=$B ;; old) bin=$OB ;; *) bin="prebuilt/hopsim_$who bench" ;; esac
      mdSizes "mdv_${who}_$round" "$bin" 160 64
    done
  done
  for k in old_1 old_2 new_1; do
    bin=build/hopsim; [ ${k%_*} = old ] && bin=$OH
    run "mdv_run_$k" 60 $bin run $MDC --set run.steps=400 --set thermo.every=1 --set output.every=0 \
      --output /tmp/mdv_$k
  done
  cmp /tmp/mdv_old_1/thermo.csv /tmp/mdv_old_2/thermo.csv > "$R/mdv_old_thermo_cmp.log" 2>&1
  echo "mdv old thermo twice: cmp exit $?" | tee -a "$R/status.txt"
  paste -d'\n' /tmp/mdv_old_1/thermo.csv /tmp/mdv_old_2/thermo.csv /tmp/mdv_new_1/thermo.csv | head -16 \
    > "$R/mdv_thermo_lines.log" ;;
mdhopper)
  # Issue 17, the Hopper MD force path (forces from cells in thread block clusters, no list) against the portable
  # list kernels: its tests, the bench at 1M, 16.4M and 32,000 atoms (mixed; both kernels each size, in opposite
  # order at 1M), ncu of both force kernels at 1M atoms, the MD GPU suite, memcheck and racecheck on its force test.
  [ -z "${MDH_BENCH_ONLY:-}" ] && run mdh_tests 150 $T "[hopper]"
  MDC="inputs/md/lj_liquid.yaml --set precision=mixed --set device.backend=cuda"
  for k in ${MDH_ORDER:-portable hopper hopper portable}; do
    n=1; [ -f "$R/mdh_64_${k}_1.json" ] && n=2
    run "mdh_64_${k}_$n" 40 $B $MDC --kernels $k --set "system.lattice.cells=[64,64,64]" --steps 1000 --repeats 3 \
      --json "$R/mdh_64_${k}_$n.json"
  done
  for k in portable hopper; do
    run "mdh_160_$k" 60 $B $MDC --kernels $k --set "system.lattice.cells=[160,160,160]" --steps 200 --repeats 3 \
      --json "$R/mdh_160_$k.json"
    run "mdh_20_$k" 40 $B $MDC --kernels $k --set "system.lattice.cells=[20,20,20]" --steps 2000 --repeats 5 \
      --json "$R/mdh_20_$k.json"
  done
  NCU_MD="$NCU_STEP,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,lts__t_bytes.sum,l1tex__t_bytes.sum,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_barrier.ratio,smsp__thread_inst_executed_per_inst_executed.ratio"
  for k in portable hopper; do
    run "mdh_ncu_64_$k" 90 $NCU_MD -k regex:"orceKernel" -c 2 $B $MDC --kernels $k \
      --set "system.lattice.cells=[64,64,64]" --steps 20 --repeats 1
  done
  [ -n "${MDH_BENCH_ONLY:-}" ] && continue  # the benches alone (a tarball without hopsim_tests)
  run mdh_gpu_md_tests 150 $T "[gpu][md]"
  run mdh_memcheck 150 compute-sanitizer --tool memcheck --error-exitcode 1 $T "gpu md hopper: forces*"
  run mdh_racecheck 150 compute-sanitizer --tool racecheck --error-exitcode 1 $T "gpu md hopper: forces*" ;;
openmm)
  # Issue 17's live peer: OpenMM (wheels carried in .whl: openmm and openmm-cuda-13 8.6.1) on the LJ benchmark
  # system (bench/openmm_lj.py) and hopsim's bench at the same sizes, mixed precision, two rounds in opposite order.
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
    > "$R/openmm_install.log" 2>&1
  for round in 1 2; do
    for who in $(inRound $round openmm hopsim); do
      if [ $who = openmm ]; then
        run "peer_openmm_20_$round" 60 env PYTHONPATH=/tmp/site python3 bench/openmm_lj.py --cells 20 --steps 2000 \
          --repeats 5
        run "peer_openmm_64_$round" 90 env PYTHONPATH=/tmp/site python3 bench/openmm_lj.py --cells 64 --steps 200 \
          --repeats 3
      else
        run "peer_hopsim_20_$round" 40 $B inputs/md/lj_liquid.yaml --set precision=mixed --set device.backend=cuda \
          --set "system.lattice.cells=[20,20,20]" --steps 2000 --repeats 5 --json "$R/peer_hopsim_20_$round.json"
        run "peer_hopsim_64_$round" 40 $B inputs/md/lj_liquid.yaml --set precision=mixed --set device.backend=cuda \
          --set "system.lattice.cells=[64,64,64]" --steps 1000 --repeats 3 --json "$R/peer_hopsim_64_$round.json"
      fi
    done
  done ;;
sanitize)
  # compute-sanitizer's memcheck and racecheck on the small cases made for them (portable LBM kernels).
  run memcheck 150 compute-sanitizer --tool memcheck --error-exitcode 1 $T "[sanitize]"
  run racecheck 150 compute-sanitizer --tool racecheck --error-exitcode 1 $T "[sanitize]" ;;
mdthermo)
  # Issue 22, MD thermo every step (17.6% slower than every 10 on 2026-12-01): the same run with thermo every 1, 2
  # and 10 (no frames), and ncu of the force kernel with and without the energy sums (thermo every 2: one of each);
  # the GPU MD tests where hopsim_tests was built.
  [ -x $T ] && run mdt_gpu_md_tests 150 $T "[gpu][md]"
  CMD="inputs/md/lj_liquid.yaml --set system.lattice.cells=[64,64,64] --set precision=mixed --set device.backend=cuda"
  for e in 1 2 10; do
    run "mdt_every$e" 90 build/hopsim run $CMD --set run.steps=2000 --set thermo.every=$e --set output.every=0 \
      --output /tmp/mdt_$e
    cp /tmp/mdt_$e/run.json "$R/mdt_every${e}_run.json" 2>/dev/null; rm -rf /tmp/mdt_$e
  done
  run ncu_mdt 120 ncu --clock-control none --metrics gpu__time_duration.sum,dram__bytes_read.sum,smsp__inst_executed.sum,launch__registers_per_thread \
    -k "regex:force|integrate|kinetic|nextStep" -c 24 build/hopsim run $CMD --set run.steps=12 --set thermo.every=2 \
    --set output.every=0 --output /tmp/mdt_ncu ;;
mdoverlap)
  # Issue 22 for MD, as the issue measured it: the LJ liquid at 1,048,576 atoms (mixed precision) for 2000 steps,
  # thermo every 10, a trajectory frame every 50: the overlapped run, the synchronous path (same positions), thermo
  # every step, `bench --with-output` (update-only and with output in one process, the disk's write bandwidth), and
  # the GPU MD tests with memcheck on the new ones.
  CMD="inputs/md/lj_liquid.yaml --set system.lattice.cells=[64,64,64] --set precision=mixed --set device.backend=cuda"
  OUTM="--set run.steps=2000 --set thermo.every=10 --set output.every=50 --set output.formats=[h5md]"
  run md_gpu_tests 120 $T "[gpu][md]"
  run md_async 90 build/hopsim run $CMD $OUTM --output /tmp/md_async
  run md_sync 90 env HOPSIM_SYNC_OUTPUT=1 build/hopsim run $CMD $OUTM --output /tmp/md_sync
  run md_cmp 60 python3 -c "
import h5py, numpy as np, sys
a, b = h5py.File('/tmp/md_async/trajectory.h5'), h5py.File('/tmp/md_sync/trajectory.h5')
p = 'particles/all/position/value'; same = np.array_equal(a[p][()], b[p][()])
print(p, a[p].shape, a[p].dtype, 'bitwise' if same else 'DIFFERENT'); sys.exit(0 if same else 1)"
  run md_thermo1 90 build/hopsim run $CMD --set run.steps=2000 --set thermo.every=1 --set output.every=0 --output /tmp/md_t1
  run md_bench 150 build/hopsim bench $CMD --with-output --json "$R/md_bench.json"
  for d in md_async md_sync md_t1; do cp /tmp/$d/run.json "$R/${d}_run.json" 2>/dev/null; done
  rm -rf /tmp/md_async /tmp/md_sync /tmp/md_t1
  run md_memcheck 90 compute-sanitizer --tool memcheck --error-exitcode 1 $T "gpu md: a frame copy*"
  run lbm_async_gpu 60 $T "CUDA LBM: the observables ring*" ;;
ranks)
  # A CUDA run restarted on another number of ranks (sharing the GPU): the CPU test's script, on the cuda backend,
  # with wall cells in the boundary pass on every rank count (HOPSIM_LBM_WALLS_IN_BULK=0) and h5py for h5diff.
  mkdir -p /tmp/shim && printf '%s\n' '#!/usr/bin/env python3' 'import sys, h5py, numpy as np' \
    'a, b = h5py.File(sys.argv[-3] if len(sys.argv) > 3 else sys.argv[-2]), h5py.File(sys.argv[-2] if len(sys.argv) > 3 else sys.argv[-1])' \
    'names = [sys.argv[-1].lstrip("/")] if len(sys.argv) > 3 else [k for k in a if isinstance(a[k], h5py.Dataset)]' \
    'sys.exit(0 if all(np.array_equal(a[n][()], b[n][()]) for n in names) else 1)' > /tmp/shim/h5diff && chmod +x /tmp/shim/h5diff
  sed 's/backend: cpu/backend: cuda/' tests/integration/checkpoint_other_ranks.sh > /tmp/ranks_cuda.sh
  run ranks_cuda 120 env PATH=/tmp/shim:$PATH HOPSIM_LBM_WALLS_IN_BULK=0 bash /tmp/ranks_cuda.sh build/hopsim "$(command -v mpiexec)" ;;
ckpt)
  # Checkpoints on the GPU: the populations' round trip and a continued run against an uninterrupted one.
  run checkpoint_gpu_tests 120 $T "[gpu][checkpoint]"
  run md_gpu_tests 120 $T "[gpu][md]"
  run mpi_gpu_2 150 $M -n 2 build/tests/hopsim_mpi_tests "[gpu]" ;;
suite)
  # The standard suite (the reference results of docs/bench/), then what a user sees of it: compare against a copy
  # of itself, the projections onto the GPUs known by datasheet, and the chart (where matplotlib is installed).
  mkdir -p "$R/suite"
  run suite 420 build/hopsim bench --suite standard --out "$R/suite"
  f=$(ls "$R"/suite/suite-standard-*.json 2>/dev/null | head -1)
  if [ -n "$f" ]; then
    cp "$f" "$R/suite/again.json"
    run suite_compare 20 build/hopsim compare "$f" "$R/suite/again.json" --format markdown
    for gpu in a100-40gb a100-80gb h100-pcie h100-sxm; do
      run "suite_project_$gpu" 20 build/hopsim compare "$f" --project $gpu --format markdown
    done
  fi ;;
keepfaces|keepfaces2)
  # The face values kept by the bulk kernel for the next step (issue 14, KernelPlan::keepFaces, off unless asked until
  # this group has measured it). keepfaces: its GPU test beside the wrap's, then the 3-D channel with a cylinder (FP32
  # staircase and interpolated, FP16, D3Q27, FP64) and the 2-D channel (with the face pass and the wrap, which it
  # does not run by default) with and without it, each in its own process against the copy bandwidth measured there,
  # two rounds in opposite order; the references; ncu of a step with and without it. keepfaces2: every [gpu][lbm]
  # test (their plans as the planner makes them), the LBM validation cases with an inlet and an outlet (2-D: the face
  # pass and the wrap asked for too) with it asked for, memcheck and racecheck of the small cases (which run it).
  if [ $step = keepfaces ]; then
    run kf_tests 150 $T "CUDA LBM: inlet and outlet face values kept*,CUDA LBM: inlet and outlet cells with*"
    for round in 1 2; do
      for k in $(inRound $round 1 0); do
        for c in ch3 ch3h ch3i ch3q27 ch3d; do
          boundedCase $c
          run "kf_${c}_k${k}_$round" 45 env HOPSIM_LBM_KEEP_FACES=$k $B "${args[@]}" --kernels portable --repeats 5 \
            --json "$R/kf_${c}_k${k}_$round.json"
        done
        # The 2-D channel, which runs no face pass by default: with the pass, the wrap and the values kept.
        run "kf_ch2_m1w1k${k}_$round" 45 env HOPSIM_LBM_OPEN_MOMENTS=1 HOPSIM_LBM_OPEN_WRAP=1 HOPSIM_LBM_KEEP_FACES=$k \
          $B bench/lbm_channel2d_cylinder_single.yaml --kernels portable --repeats 5 \
          --json "$R/kf_ch2_m1w1k${k}_$round.json"
      done
    done
    run kf_ch2_planned 45 $B bench/lbm_channel2d_cylinder_single.yaml --kernels portable --repeats 5 \
      --json "$R/kf_ch2_planned.json"
    references kf
    for k in 1 0; do
      run "ncu_kf_channel3d_k$k" 60 env HOPSIM_LBM_KEEP_FACES=$k $NCU_STEP -k "regex:Step|Ghosts|Moments" -c 8 \
        $B bench/lbm_channel3d_cylinder_single.yaml --kernels portable --steps 8 --repeats 1
    done
  else
    run kf_gpu_lbm_tests 240 $T "[gpu][lbm]"
    run kf_validate 120 env HOPSIM_LBM_OPEN_MOMENTS=1 HOPSIM_LBM_OPEN_WRAP=1 HOPSIM_LBM_KEEP_FACES=1 build/hopsim \
      validate --backend cuda lbm.channel2d lbm.cylinder2d_st lbm.cylinder_re20_d40
    run kf_memcheck 120 compute-sanitizer --tool memcheck --error-exitcode 1 $T "[sanitize]"
    run kf_racecheck 90 compute-sanitizer --tool racecheck --error-exitcode 1 $T "[sanitize]"
  fi ;;
probe)
  # Where the FP16 bounded kernels wait (issue 14): the bounded set's FP32 and FP16 rows on this GPU (the cavity, the
  # 3-D channel, the periodic box), then ncu's warp-state and source sections of one step of the FP16 cavity (one
  # cell per thread) and of the FP16 periodic box (two cells per thread).
  for c in c3h ch3 ch3h; do
    boundedCase $c
    run "probe_$c" 45 $B "${args[@]}" --kernels portable --repeats 5 --json "$R/probe_$c.json"
  done
  references probe
  run probe_periodic_half 45 $B bench/lbm_d3q19_256_half.yaml --kernels portable --repeats 5 \
    --json "$R/probe_periodic_half.json"
  NCU_WAIT="ncu --clock-control none --section SpeedOfLight --section Occupancy --section LaunchStats \
    --section WarpStateStats --section SchedulerStats --section InstructionStats --section SourceCounters"
  run ncu_probe_c3h 90 $NCU_WAIT -k "regex:Step|Pair" -c 1 $B bench/lbm_cavity3d_256_single.yaml \
    --set precision=half --kernels portable --steps 4 --repeats 1
  run ncu_probe_periodic_half 90 $NCU_WAIT -k "regex:Step|Pair" -c 1 $B bench/lbm_d3q19_256_half.yaml \
    --kernels portable --steps 4 --repeats 1 ;;
lbmall)
  # Everything the two CUDA LBM backends share: all [gpu][lbm] tests, the decomposed GPU tests on 2 ranks.
  run lbm_gpu_tests 200 $T "[gpu][lbm]"
  run mpi_gpu_2 90 $M -n 2 build/tests/hopsim_mpi_tests "[gpu]" ;;
output)
  # A decomposed GPU run writes per-rank files that join into the one-rank fields.
  run out_1 60 build/hopsim run inputs/lbm/cylinder2d.yaml --backend cuda --set run.steps=400 --set output.every=200 --output /tmp/o1
  run out_2 60 $M -n 2 build/hopsim run inputs/lbm/cylinder2d.yaml --backend cuda --set run.steps=400 --set output.every=200 --output /tmp/o2
  run out_compare 60 python3 - <<'PY'
import glob, h5py, numpy as np
for one in sorted(glob.glob("/tmp/o1/fields_*.h5")):
    step = one.split("_")[-1][:-3]
    a = h5py.File(one)
    parts = [h5py.File(p) for p in sorted(glob.glob("/tmp/o2/fields_%s/r*.h5" % step))]
    for name in ("density", "velocity"):
        whole = a[name][()]
        got = np.full_like(whole, np.nan)
        for p in parts:
            f = p.attrs["first"]; blk = p[name][()]
            got[f[2]:f[2] + blk.shape[0], f[1]:f[1] + blk.shape[1], f[0]:f[0] + blk.shape[2]] = blk
        print(step, name, "max |diff|", np.nanmax(np.abs(got - whole)), "unfilled", int(np.isnan(got).sum()))
PY
  ;;
curvedtests)
  # Interpolated bounce-back on the GPU (issue 18): the [gpu][lbm] tests (the curved flow's agreement with the CPU
  # backend, FP16 against FP32, Hopper against portable; the enstrophy against the CPU's), the decomposed GPU runs,
  # memcheck.
  run curved_gpu_lbm_tests 240 $T "[gpu][lbm]"
  run curved_mpi_gpu_2 120 $M -n 2 build/tests/hopsim_mpi_tests "decomposed LBM on the GPU*"
  run curved_memcheck 120 compute-sanitizer --tool memcheck --error-exitcode 1 $T "[sanitize]" ;;
curved)
  # The cylinder validation cases on cuda, then the bounded channels with a staircase and an interpolated cylinder,
  # FP32 and FP16 storage, each in its own process.
  run curved_validate 240 build/hopsim validate --backend cuda lbm.offlattice2d lbm.cylinder2d_st lbm.cylinder_re20_d40 \
    lbm.cylinder_re100_d40
  for prec in single half; do
    for b in staircase interpolated; do
      run "curved_bench_2d_${prec}_$b" 45 $B bench/lbm_channel2d_cylinder_single.yaml --set precision=$prec \
        --set "obstacles=[{name: cylinder, shape: circle, center: [1024, 511.5], radius: 64, boundary: $b}]" \
        --kernels portable --repeats 5 --json "$R/curved_bench_2d_${prec}_$b.json"
      run "curved_bench_3d_${prec}_$b" 45 $B bench/lbm_channel3d_cylinder_single.yaml --set precision=$prec \
        --set "obstacles=[{name: cylinder, shape: cylinder, center: [128, 63.5, 64], radius: 16, axis: z, boundary: $b}]" \
        --kernels portable --repeats 5 --json "$R/curved_bench_3d_${prec}_$b.json"
    done
  done ;;
sidestream)
  # The boundary passes on a side stream beside the bulk update (HOPSIM_LBM_SIDE_STREAM=1, the default) against
  # after it (=0), each run its own process: the bounded benchmark channels (staircase and interpolated cylinder),
  # FP32 in both orders, FP16 storage once; then its test. (The 3-D cavity has no boundary pass in the steps
  # without forces: 24,686 and 24,673 MLUPS FP32 with 0 and 1 in the first call.)
  for round in 1 2; do
    order=$(inRound $round 0 1)
    for prec in single half; do
      [ $round = 2 ] && [ $prec = half ] && continue
      for side in $order; do
        for b in staircase interpolated; do
          run "side${side}_2d_${prec}_${b}_$round" 45 env HOPSIM_LBM_SIDE_STREAM=$side $B \
            bench/lbm_channel2d_cylinder_single.yaml --set precision=$prec --kernels portable --repeats 5 \
            --set "obstacles=[{name: cylinder, shape: circle, center: [1024, 511.5], radius: 64, boundary: $b}]" \
            --json "$R/side${side}_2d_${prec}_${b}_$round.json"
          run "side${side}_3d_${prec}_${b}_$round" 45 env HOPSIM_LBM_SIDE_STREAM=$side $B \
            bench/lbm_channel3d_cylinder_single.yaml --set precision=$prec --kernels portable --repeats 5 \
            --set "obstacles=[{name: cylinder, shape: cylinder, center: [128, 63.5, 64], radius: 16, axis: z, boundary: $b}]" \
            --json "$R/side${side}_3d_${prec}_${b}_$round.json"
        done
      done
    done
  done
  run side_tests 120 $T "CUDA LBM: the boundary passes on a side stream*" ;;
les)
  # Issue 20, Smagorinsky LES: every [gpu][lbm] test (LES runs in the agreement loops), then the 3-D Taylor-Green
  # vortex at Re 1600 on 128^3 and 256^3 (BGK and TRT + LES, Cs 0.1) against the DNS peak of the dissipation rate.
  run les_tests 240 $T "[gpu][lbm]"
  run les_validate 150 build/hopsim validate --backend cuda lbm.tgv3d_re1600_bgk_les lbm.tgv3d_re1600_trt_les
  run les_memcheck 120 compute-sanitizer --tool memcheck --error-exitcode 1 $T "[sanitize]" ;;
lesbench)
  # The LES kernels against the plain ones, each in its own process against the copy bandwidth measured there, in
  # both orders: the periodic box (BGK) FP32 and FP16, the 3-D cavity (TRT, the bounded row) FP32 and FP16, and D2Q9
  # with the Hopper temporal kernel beside the portable one (kernels: auto keeps LES off it until measured).
  LES="les: {model: smagorinsky, cs: 0.1}"
  CAV="inputs/lbm/cavity3d.yaml --set domain.cells=[256,256,256] --set device.backend=cuda"
  for round in 1 2; do
    order=$(inRound $round plain les)
    for who in $order; do
      for c in d3q19_256_single d3q19_256_half; do
        set -- ; [ $who = les ] && set -- --set "collision={model: bgk, $LES}"
        run "lesb_${c}_${who}_$round" 45 $B bench/lbm_$c.yaml --repeats 5 "$@" --json "$R/lesb_${c}_${who}_$round.json"
      done
      for p in single half; do
        set -- ; [ $who = les ] && set -- --set "collision={model: trt, $LES}"
        run "lesb_cavity_${p}_${who}_$round" 45 $B $CAV --set precision=$p --repeats 5 "$@" \
          --json "$R/lesb_cavity_${p}_${who}_$round.json"
      done
    done
  done
  run lesb_d2q9_les 60 $B bench/lbm_d2q9_4096_single.yaml --repeats 5 --kernels portable,hopper \
    --set "collision={model: bgk, $LES}" --json "$R/lesb_d2q9_les.json" ;;
regtests)
  # Issue 20, the regularised operator: every [gpu][lbm] test (it runs in the agreement loops, FP16 against FP32, the
  # Hopper kernels against the portable ones, the temporal kernel), then memcheck on the small 3-D case.
  run reg_tests 300 $T "[gpu][lbm]"
  run reg_memcheck 120 compute-sanitizer --tool memcheck --error-exitcode 1 $T "[sanitize]" ;;
regbench)
  # The regularised operator against BGK, each in its own process against the copy bandwidth measured there, in
  # both orders: D3Q19 256^3 periodic FP32 and FP16, D3Q27 256^3 FP32 (the issue's >= 0.9 of the roofline), the
  # 3-D cavity 256^3 FP32 (the bounded row; TRT there as a user's case, the regularised operator against it).
  CAV="inputs/lbm/cavity3d.yaml --set domain.cells=[256,256,256] --set device.backend=cuda --set precision=single"
  for round in 1 2; do
    order=$(inRound $round plain reg)
    for who in $order; do
      for c in d3q19_256_single d3q19_256_half d3q27_256_single; do
        set -- ; [ $who = reg ] && set -- --set "collision={model: regularized}"
        run "regb_${c}_${who}_$round" 45 $B bench/lbm_$c.yaml --repeats 5 "$@" --json "$R/regb_${c}_${who}_$round.json"
      done
      set -- ; [ $who = reg ] && set -- --set "collision={model: regularized}"
      run "regb_cavity_${who}_$round" 45 $B $CAV --repeats 5 "$@" --json "$R/regb_cavity_${who}_$round.json"
    done
  done
  run regb_d3q19_les 45 $B bench/lbm_d3q19_256_single.yaml --repeats 5 \
    --set "collision={model: regularized, les: {model: smagorinsky, cs: 0.1}}" --json "$R/regb_d3q19_les.json" ;;
regtgv)
  # The Re 1600 Taylor-Green rows of the regularised operator, without and with LES, 128^3 and 256^3.
  run reg_validate 200 build/hopsim validate --backend cuda lbm.tgv3d_re1600_regularized ;;
regmap)
  # Stability map of the regularised operator (without LES): the Taylor-Green vortex as in `tgvmap`, the 3-D
  # cavity as in `cavitymap`.
  for n in 64 128 256; do
    for re in 1600 3200 6400 25600 1000000; do
      [ $n = 256 ] && case $re in 1600|25600|1000000) ;; *) continue ;; esac
      nu=$(python3 -c "import math; print(0.05 * $n / (2 * math.pi) / $re)")
      steps=$(python3 -c "import math; print(int(math.ceil(12 * $n / (2 * math.pi) / 0.05)))")
      every=$(python3 -c "import math; print(max(1, round(0.025 * $n / (2 * math.pi) / 0.05)))")
      run "tgv_${n}_reg_$re" 60 build/hopsim run inputs/lbm/taylor_green3d.yaml --backend cuda --quiet \
        --set "domain.cells=[$n,$n,$n]" --set "fluid={viscosity: $nu}" --set "collision={model: regularized}" \
        --set run.steps=$steps \
        --set "output={every: 0, fields: [density], dir: $R/tgv_${n}_reg_$re, observables: {every: $every}}"
    done
  done
  python3 bench/tgv_summary.py "$R" > "$R/tgv_summary.txt" 2>&1; cat "$R/tgv_summary.txt"
  for re in 1000 4000 16000 64000 1000000; do
    nu=$(python3 -c "print(0.05 * 128 / $re)")
    run "cav_reg_$re" 40 build/hopsim run inputs/lbm/cavity3d.yaml --backend cuda --quiet \
      --set "domain.cells=[128,128,128]" --set "fluid={viscosity: $nu}" --set "collision={model: regularized}" \
      --set run.steps=20000 --set "output={every: 0, fields: [density], dir: $R/cav_reg_$re, observables: {every: 1000}}"
  done ;;
tgvmap)
  # Issue 20: the highest stable Reynolds number of the 3-D Taylor-Green vortex (Brachet) for BGK, TRT and both with
  # Smagorinsky LES (Cs 0.1) at 64^3, 128^3 and 256^3, u0 0.05 (Ma 0.087), FP32, to t U0 / L = 12 (exit 3:
  # unstable), and at Re 1600 TRT + LES with Cs 0.05 and 0.17 beside 0.1; bench/tgv_summary.py reads the peak
  # dissipation rate and its time from each run's observables.
  LES="les: {model: smagorinsky"
  for n in 64 128 256; do
    for tagmodel in "bgk|bgk" "trt|trt" "bgk_les|bgk, $LES, cs: 0.1}" "trt_les|trt, $LES, cs: 0.1}" \
        "trt_lesc05|trt, $LES, cs: 0.05}" "trt_lesc17|trt, $LES, cs: 0.17}"; do
      tag=${tagmodel%%|*} model=${tagmodel#*|}
      for re in 400 800 1600 3200 6400 25600 1000000; do
        case $tag in trt_lesc*) [ $re = 1600 ] && [ $n != 64 ] || continue ;; esac
        [ $n = 256 ] && case $re in 1600|25600|1000000) ;; *) continue ;; esac
        nu=$(python3 -c "import math; print(0.05 * $n / (2 * math.pi) / $re)")
        steps=$(python3 -c "import math; print(int(math.ceil(12 * $n / (2 * math.pi) / 0.05)))")
        every=$(python3 -c "import math; print(max(1, round(0.025 * $n / (2 * math.pi) / 0.05)))")  # t* 0.025
        run "tgv_${n}_${tag}_$re" 60 build/hopsim run inputs/lbm/taylor_green3d.yaml --backend cuda --quiet \
          --set "domain.cells=[$n,$n,$n]" --set "fluid={viscosity: $nu}" --set "collision={model: $model}" \
          --set run.steps=$steps \
          --set "output={every: 0, fields: [density], dir: $R/tgv_${n}_${tag}_$re, observables: {every: $every}}"
      done
    done
  done
  python3 bench/tgv_summary.py "$R" > "$R/tgv_summary.txt" 2>&1; cat "$R/tgv_summary.txt" ;;
cavitymap)
  # Issue 20: the lid-driven cavity 128^3 (lid 0.05, Ma 0.087) at rising Reynolds numbers, BGK, TRT and both with
  # LES (Cs 0.1), FP32, 20,000 steps (8 lid transits): stable or not (exit 3).
  for model in "bgk" "trt" "bgk, les: {model: smagorinsky, cs: 0.1}" "trt, les: {model: smagorinsky, cs: 0.1}"; do
    tag=${model%%,*}; case $model in *les*) tag=${tag}_les ;; esac
    for re in 1000 4000 16000 64000 1000000; do
      nu=$(python3 -c "print(0.05 * 128 / $re)")
      run "cav_${tag}_$re" 40 build/hopsim run inputs/lbm/cavity3d.yaml --backend cuda --quiet \
        --set "domain.cells=[128,128,128]" --set "fluid={viscosity: $nu}" --set "collision={model: $model}" \
        --set run.steps=20000 --set "output={every: 0, fields: [density], dir: $R/cav_${tag}_$re, observables: {every: 1000}}"
    done
  done ;;
voxel)
  # STL voxelisation on the GPU (issue 18): cell for cell the CPU's, then 1M triangles into 512^3 (target < 5 s).
  run voxel_tests 120 $T "[gpu][voxel]"
  run voxel_bench_torus 90 build/hopsim_voxelize_bench --cells 512 --shape torus --triangles 1000000 --repeats 5
  run voxel_bench_sphere 90 build/hopsim_voxelize_bench --cells 512 --shape sphere --repeats 5 ;;
validate)
  run validate_cuda 200 build/hopsim validate --backend cuda ;;
nist)
  run nist_cuda 150 build/hopsim validate --all --backend cuda md.nist_lj ;;
mdlistprof)
  # Issue 17's next lever (docs/performance.md, "Next for the 16.4M-atom step: the list build's floors"): what bounds
  # the MD list kernel at 16.4M atoms, before a warp-cooperative build is written: its time, warp instructions, lanes
  # active per instruction, occupancy and stall reasons (long scoreboard: waiting on its position loads).
  ncuMdList ncu_md_list 180 ;;
mdlistsrc)
  # The MD list kernel at 16.4M atoms line by line (mdlistprof found it issuing on 59% of the cycles, 7.8 G warp
  # instructions a build): ncu's source counters of its first launch (instructions executed and stall samples per
  # SASS instruction and per source line; the build's line tables), as CSV.
  run ncu_md_list_rep 240 ncu --clock-control none -k regex:buildList -c 1 --section SourceCounters \
    --section WarpStateStats --import-source yes -o "$R/mdlist" $B inputs/md/lj_liquid.yaml \
    --set "system.lattice.cells=[160,160,160]" --set precision=mixed --set device.backend=cuda --steps 10 --repeats 1
  run ncu_md_list_sass 60 ncu -i "$R/mdlist.ncu-rep" --page source --csv --print-source sass
  run ncu_md_list_cuda 60 ncu -i "$R/mdlist.ncu-rep" --page source --csv --print-source cuda
  run ncu_md_list_details 60 ncu -i "$R/mdlist.ncu-rep" --page details ;;
mdlist2)
  # The list kernel's lighter appends and flushes (docs/performance.md, "The list build's appends and flushes"): the GPU
  # MD tests (the warp whose lanes run far apart among them), memcheck and racecheck of that test, ncu of the kernel at
  # 16.4M atoms as mdlistprof measured it before, and the benchmarks at 16.4M, 1M and 32,000 atoms.
  run mdlist2_gpu_md_tests 150 $T "[gpu][md]"
  SAN="gpu md: lanes of one warp far apart*"
  run mdlist2_memcheck 120 compute-sanitizer --tool memcheck --error-exitcode 1 $T "$SAN"
  run mdlist2_racecheck 120 compute-sanitizer --tool racecheck --error-exitcode 1 $T "$SAN"
  ncuMdList ncu_mdlist2 120
  for c in 160:200 64:1000 20:2000; do
    k=${c%%:*}
    run "mdlist2_bench_$k" 90 $B inputs/md/lj_liquid.yaml --set "system.lattice.cells=[$k,$k,$k]" \
      --set precision=mixed --set device.backend=cuda --steps ${c##*:} --repeats 3 --json "$R/mdlist2_bench_$k.json"
  done ;;
profile)
  # Where the time goes: the Hopper cluster kernel against the portable one, and each kernel of an MD list build.
  NCU="ncu --clock-control none --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__average_warp_latency_issue_stalled_barrier.ratio,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,launch__cluster_dim_z,launch__occupancy_cluster_pct"
  run ncu_hopper 90 $NCU -k regex:"cluster|bulkStep" -c 4 $B bench/lbm_d3q19_256_single.yaml --kernels hopper --steps 64 --repeats 1
  run ncu_md_build 120 ncu --clock-control none --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed -c 40     $B inputs/md/lj_liquid.yaml --set "system.lattice.cells=[160,160,160]" --set precision=mixed --set device.backend=cuda --steps 20 --repeats 1 ;;
esac; done
if [ -n "${PACK:-}" ] && [ -z "${PREBUILT:-}" ]; then
  # The binaries of this call for the next ones (PREBUILT=prebuilt.tgz), which then spend no time building.
  rm -rf prebuilt && mkdir -p prebuilt/lib &&
    cp build/hopsim build/tests/hopsim_tests build/tests/hopsim_mpi_tests build/hopsim_voxelize_bench prebuilt/ &&
    strip prebuilt/* 2>/dev/null; tar czf "$F/prebuilt.tgz" prebuilt && ls -l "$F/prebuilt.tgz"
fi
tar czf "$F/session.tgz" -C "$(dirname "$R")" "$(basename "$R")"
cat "$R/status.txt"
grep -h -E "test cases|assertions|FAILED" "$R"/*_tests.log "$R"/mpi_gpu_4.log "$R"/arch_mpi*.log 2>/dev/null | tail -16
grep -h -E "PASS|FAIL" "$R/nist_cuda.log" 2>/dev/null | tail -4
grep -h "ERROR SUMMARY\|RACECHECK SUMMARY" "$R"/*check*.log 2>/dev/null
python3 - "$R" <<'PY'
import glob, json, os, sys
for p in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    j = json.load(open(p))
    for r in j.get("runs", [j]):
        if "error" in r: print(os.path.basename(p), "ERROR", r["error"][:150]); continue
        keys = {k: r[k] for k in ("kernels", "backend", "halo_transport", "mlups", "fraction_of_copy_bandwidth", "atom_steps_per_second", "ms_per_step", "halo_fraction_of_step", "neighbor_ms_per_build", "mean_neighbors") if k in r}
        print(os.path.basename(p), json.dumps(keys)[:420])
PY

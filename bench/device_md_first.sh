set -o pipefail
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee $OUT/gpu.txt
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DHOPSIM_WITH_CUDA=ON -DHOPSIM_WITH_VTK=OFF -DHOPSIM_WITH_MPI=OFF -DCMAKE_CUDA_ARCHITECTURES="80;90" > $OUT/configure.log 2>&1 || { tail -30 $OUT/configure.log; exit 1; }
time cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error|Error" $OUT/build.log | head -30; exit 1; }
./build/hopsim info | tee $OUT/info.txt
./build/tests/hopsim_tests "[unit]" 2>&1 | tail -3
timeout 200 ./build/tests/hopsim_tests "[gpu][md]" 2>&1 | tee $OUT/gpu_md.log | tail -30
timeout 120 ./build/hopsim run inputs/md/lj_liquid.yaml --set precision=mixed --set device.backend=cuda --set run.steps=200 --output /tmp/o 2>&1 | tail -8
for c in 20 64 160; do timeout 100 ./build/hopsim bench inputs/md/lj_liquid.yaml --set "system.lattice.cells=[$c,$c,$c]" --set precision=mixed --set device.backend=cuda --steps $([ $c = 160 ] && echo 100 || echo 500) --repeats 3 > $OUT/md_bench_$c.json 2>$OUT/md_bench_$c.err; echo "cells $c rc $?"; python3 -c "import json;j=json.load(open('$OUT/md_bench_$c.json'));print(j['atoms'], j['atom_steps_per_second'], j['steps_per_second_median'], j['ms_per_step'])" 2>&1 | tail -2; done

#!/usr/bin/env python3
"""OpenMM on hopsim's LJ benchmark system (inputs/md/lj_liquid.yaml, LAMMPS's in.lj state), the live MD peer of
docs/performance.md: fcc at density 0.8442 with N^3 unit cells (4 N^3 atoms), velocities for T* 1.44, LJ cut at
2.5 sigma without shift or tail correction, NVE (Verlet) with dt* 0.005, CUDA platform, mixed precision.

Reduced units map onto OpenMM's with sigma = 1 nm, epsilon = 1 kJ/mol and mass = 1 amu (so tau = 1 ps and
T* = 1 means epsilon / k_B = 120.27 K). Prints one JSON line: atoms, steps per repeat, steps/s of each repeat
(timed from a getState() that waits for the GPU to another), and their median.

    python3 bench/openmm_lj.py --cells 20 --steps 2000 --repeats 5
"""
import argparse
import json
import statistics
import time

import numpy as np
import openmm
from openmm import unit


def fcc(cells, density):
    a = (4.0 / density) ** (1.0 / 3.0)
    basis = np.array([[0, 0, 0], [0.5, 0.5, 0], [0.5, 0, 0.5], [0, 0.5, 0.5]])
    grid = np.stack(np.meshgrid(*[np.arange(cells)] * 3, indexing="ij"), axis=-1).reshape(-1, 1, 3)
    return ((grid + basis[None, :, :]).reshape(-1, 3) + 0.25) * a, a * cells


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--cells", type=int, default=20)
    p.add_argument("--steps", type=int, default=2000)
    p.add_argument("--repeats", type=int, default=5)
    args = p.parse_args()

    positions, box = fcc(args.cells, 0.8442)
    n = len(positions)
    system = openmm.System()
    system.setDefaultPeriodicBoxVectors(openmm.Vec3(box, 0, 0), openmm.Vec3(0, box, 0), openmm.Vec3(0, 0, box))
    lj = openmm.NonbondedForce()
    lj.setNonbondedMethod(openmm.NonbondedForce.CutoffPeriodic)
    lj.setCutoffDistance(2.5)
    lj.setUseSwitchingFunction(False)
    lj.setUseDispersionCorrection(False)
    for _ in range(n):
        system.addParticle(1.0)
        lj.addParticle(0.0, 1.0, 1.0)
    system.addForce(lj)
    # CutoffPeriodic applies a reaction field to charges; with every charge zero the LJ is the plain cut LJ.
    integrator = openmm.VerletIntegrator(0.005)
    platform = openmm.Platform.getPlatformByName("CUDA")
    context = openmm.Context(system, integrator, platform, {"Precision": "mixed"})
    context.setPositions(positions)
    kelvin_per_t = 1.0 / (unit.MOLAR_GAS_CONSTANT_R.value_in_unit(unit.kilojoule_per_mole / unit.kelvin))
    context.setVelocitiesToTemperature(1.44 * kelvin_per_t, 87287)

    integrator.step(max(20, args.steps // 10))  # warm-up: kernels compiled, the neighbour list sized
    context.getState(getEnergy=True)
    rates = []
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        integrator.step(args.steps)
        context.getState(getEnergy=True)  # waits for the GPU
        rates.append(args.steps / (time.perf_counter() - t0))
    state = context.getState(getEnergy=True)
    pe = state.getPotentialEnergy().value_in_unit(unit.kilojoule_per_mole) / n
    ke = state.getKineticEnergy().value_in_unit(unit.kilojoule_per_mole)
    print(json.dumps({"peer": "openmm", "version": openmm.__version__, "platform": "CUDA mixed", "atoms": n,
                      "steps": args.steps, "steps_per_second": rates,
                      "steps_per_second_median": statistics.median(rates),
                      "atom_steps_per_second_median": n * statistics.median(rates),
                      "pe_per_atom": pe, "temperature_reduced": 2 * ke / (3 * n - 3)}))


if __name__ == "__main__":
    main()

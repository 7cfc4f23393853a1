#!/usr/bin/env python3
"""The usage rollup side by side: budcore vs pandas groupby vs DuckDB, same data, same run.

usage: cost_rollup.py [--records N] [--repeat R] [--threads T]

Generates N usage records with numpy (30 days of per-minute samples: start second, tenant and
GPU type as dictionary codes, GPU-seconds in nano-units and cost in pico-units, all int64/
int32, seed 42), then rolls them up by hour x tenant x gpu type (sum of GPU-seconds, sum of
cost, record count) with each engine, R times each, and reports the best time:

- budcore: budcore.cost.rollup_arrays over the numpy arrays (zero-copy), result as numpy arrays;
- pandas:  DataFrame.groupby([hour, tenant, gpu_type]).agg(sum, sum, size) with the hour
           bucket computed as start // 3600 * 3600 inside the timed part;
- DuckDB:  the same GROUP BY over a DuckDB table loaded from the same arrays (loading not
           timed), fetched as numpy arrays (fetchnumpy).

Every engine must produce the same rows (checked) and sums that are exact integers.
Needs the budcore Python package (a Release build: see benchmarks/RESULTS.md), pandas, duckdb.
"""
import argparse
import os
import time

import duckdb
import numpy as np
import pandas as pd

import budcore
from budcore import cost


def generate(n, seed=42):
    rng = np.random.default_rng(seed)
    start = 1_777_593_600 + np.sort(rng.integers(0, 30 * 86_400, n, dtype=np.int64)) // 60 * 60
    tenant = rng.integers(0, 20, n, dtype=np.int32)
    gpu_type = rng.integers(0, 8, n, dtype=np.int32)
    gpus = rng.integers(1, 9, n, dtype=np.int64)
    gpu_nanos = gpus * 60 * 1_000_000_000  # one minute of `gpus` devices
    price_pico_per_hour = np.array([2_490, 1_190, 400, 160, 1_640, 890, 860, 430], dtype=np.int64)[gpu_type] * 10**9
    cost_pico = gpu_nanos // 1_000_000_000 * price_pico_per_hour // 3_600
    return start, tenant, gpu_type, gpu_nanos, cost_pico


def best(fn, repeat):
    times, result = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return min(times), result


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--records", type=int, default=10_000_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--threads", type=int, default=0, help="budcore threads (0: all cores, as DuckDB uses)")
    args = ap.parse_args()
    start, tenant, gpu_type, gpu_nanos, cost_pico = generate(args.records)
    frame = pd.DataFrame({"start": start, "tenant": tenant, "gpu_type": gpu_type, "gpu_nanos": gpu_nanos,
                          "cost_pico": cost_pico})
    con = duckdb.connect()
    con.execute("CREATE TABLE usage AS SELECT * FROM frame")
    query = ("SELECT start // 3600 * 3600 AS hour, tenant, gpu_type, sum(gpu_nanos)::HUGEINT AS gpu_nanos, "
             "sum(cost_pico)::HUGEINT AS cost_pico, count(*) AS records FROM usage "
             "GROUP BY ALL ORDER BY hour, tenant, gpu_type")

    def run_budcore():
        return cost.rollup_arrays(start, tenant, gpu_type, gpu_nanos, cost_pico, granularity="hour",
                                  threads=args.threads)

    def run_pandas():
        g = frame.assign(hour=frame["start"] // 3600 * 3600).groupby(["hour", "tenant", "gpu_type"], sort=True)
        return g.agg(gpu_nanos=("gpu_nanos", "sum"), cost_pico=("cost_pico", "sum"),
                     records=("start", "size")).reset_index()

    def run_duckdb():
        return con.execute(query).fetchnumpy()

    t_b, r_b = best(run_budcore, args.repeat)
    t_p, r_p = best(run_pandas, args.repeat)
    t_d, r_d = best(run_duckdb, args.repeat)

    assert np.array_equal(r_b["bucket_start"], r_p["hour"].to_numpy())
    assert np.array_equal(r_b["tenant"], r_p["tenant"].to_numpy())
    assert np.array_equal(r_b["gpu_type"], r_p["gpu_type"].to_numpy())
    assert np.array_equal(r_b["cost_pico"], r_p["cost_pico"].to_numpy())
    assert np.array_equal(r_b["gpu_nanos"], r_p["gpu_nanos"].to_numpy())
    assert np.array_equal(r_b["records"], r_p["records"].to_numpy())
    assert np.array_equal(r_b["bucket_start"], np.asarray(r_d["hour"], dtype=np.int64))
    assert [int(x) for x in r_b["cost_pico"]] == [int(x) for x in r_d["cost_pico"]]
    assert np.array_equal(r_b["records"], np.asarray(r_d["records"], dtype=np.int64))

    rows = len(r_b["records"])
    print(f"{args.records:,} records -> {rows:,} rows (hour x tenant x gpu type); best of {args.repeat}; "
          f"load average {os.getloadavg()[0]:.1f}")
    print(f"budcore {budcore.__version__}: {t_b * 1000:8.1f} ms")
    print(f"pandas {pd.__version__}:   {t_p * 1000:8.1f} ms   budcore is {t_p / t_b:5.1f}x faster")
    print(f"duckdb {duckdb.__version__}:   {t_d * 1000:8.1f} ms   budcore is {t_d / t_b:5.1f}x faster")


if __name__ == "__main__":
    main()

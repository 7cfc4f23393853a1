#!/usr/bin/env python3
"""The durable serverless queue's delivery guarantee under kill -9 (docs/serverless.md "Durable
queue"), with real processes on one store (a SQLite file or a PostgreSQL server from
tests/backends/pg_fixture.sh):

  - `budcore serverless queue enqueue` accepts requests in batches (killed once mid-run and
    started again); an id it printed is an accepted request;
  - two `budcore serverless queue work` processes claim, serve (a simulated service time) and
    complete in batches, and one of them is killed with SIGKILL --kills times, mid-dispatch, and
    started again; then one worker drains the queue.

Checks: every accepted request is in the store; every request in the store ended in exactly one
terminal state (COMPLETED, FAILED or TIMEOUT) and nothing is pending or in flight; no request was
completed twice (each id has at most one successful completion across every worker's log, and
the store's row carries that completion's claim token); at least one request was delivered again
after a kill (the kills did land mid-dispatch).

Usage: queue_chaos.py --budcore PATH --store sqlite|postgres --work DIR [--kills N] [--requests N]
Exit 0 on success (or when PostgreSQL's binaries are missing: skipped), 1 on a violation."""
import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests/backends/pg_fixture.sh"
TERMINAL = {"completed", "failed", "timeout"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--budcore", required=True)
    ap.add_argument("--store", choices=["sqlite", "postgres"], required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--kills", type=int, default=20)
    ap.add_argument("--requests", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    work = Path(a.work)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)

    state = work / "pg"
    if a.store == "sqlite":
        uri = "sqlite://" + str(work / "queue.db")
    else:
        subprocess.run(["bash", str(FIXTURE), "start", str(state)], check=True)
        r = subprocess.run(["bash", str(FIXTURE), "schema", str(state), "squeue"], capture_output=True, text=True)
        if r.returncode == 3:
            print("skipped: no PostgreSQL server binaries")
            return 0
        r.check_returncode()
        uri = r.stdout.strip()
    try:
        return run(a, rng, work, uri)
    finally:
        if a.store == "postgres":
            subprocess.run(["bash", str(FIXTURE), "stop", str(state)], check=False)


def run(a, rng, work, uri):
    endpoint = work / "endpoint.json"
    endpoint.write_text(json.dumps({
        "schema_version": 1, "name": "chat", "model": "m",
        "sla": {"max_wait_seconds": 3600, "max_process_seconds": 600},
        "queue": {"max_queue_size": 1000000, "dedup_window_seconds": 0, "max_retries": 100},
        "tenants": {"default_concurrency": 1000000},
    }))
    base = [a.budcore, "serverless", "queue"]
    common = ["--store", uri, "--endpoint", str(endpoint)]
    # Create the schema once, before several processes race to.
    r = subprocess.run(base + ["status"] + common, capture_output=True, text=True)
    if r.returncode != 0:
        print("budcore serverless queue status failed:", r.stderr)
        return 1

    logs = []

    def worker(name):
        log = work / f"{name}.log"
        logs.append(log)
        return subprocess.Popen(base + ["work"] + common + ["--worker", name, "--batch", "5", "--lease-seconds", "1",
                                                          "--service-ms", "4", "--idle-ms", "20", "--log", str(log)],
                                stdout=subprocess.DEVNULL, stderr=open(work / f"{name}.err", "w"))

    def enqueuer(count, n):
        return subprocess.Popen(base + ["enqueue"] + common + ["--count", str(count), "--batch", "50",
                                                             "--tenant", "acme"],
                                stdout=open(work / f"enqueue{n}.out", "w"), stderr=open(work / f"enqueue{n}.err", "w"))

    half = a.requests // 2
    enq = enqueuer(half, 1)
    workers = {"w0": worker("w0"), "w1": worker("w1")}
    # The first enqueuer is killed early (mid-batch when it is still running); a second one
    # enqueues the other half while the workers are killed.
    time.sleep(rng.uniform(0.05, 0.2))
    enqueuer_killed = enq.poll() is None
    if enqueuer_killed:
        enq.send_signal(signal.SIGKILL)
    enq.wait()
    enq = enqueuer(a.requests - half, 2)
    generation = 0
    for k in range(a.kills):
        time.sleep(rng.uniform(0.15, 0.45))
        victim = rng.choice(sorted(workers))
        p = workers[victim]
        if p.poll() is None:
            p.send_signal(signal.SIGKILL)
        p.wait()
        generation += 1
        workers[victim] = worker(f"{victim}-{generation}")
    if enq.wait() != 0:
        print("the second enqueuer failed:", (work / "enqueue2.err").read_text())
        return 1
    print(f"first enqueuer killed mid-run: {enqueuer_killed}")
    for p in workers.values():
        p.send_signal(signal.SIGKILL)
        p.wait()
    drain = subprocess.run(base + ["work"] + common + ["--worker", "drain", "--batch", "100", "--lease-seconds", "5",
                                                     "--until-empty", "--log", str(work / "drain.log")],
                           capture_output=True, text=True, timeout=600)
    logs.append(work / "drain.log")
    if drain.returncode != 0:
        print("the draining worker failed:", drain.stderr)
        return 1
    return check(base, common, work, logs)


def check(base, common, work, logs):
    problems = []
    accepted = set()
    for out in sorted(work.glob("enqueue*.out")):
        for line in out.read_text().splitlines():
            try:
                doc = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line cut by the kill
            if doc["refused"]:
                problems.append(f"{out.name}: refusals {doc['refused'][:2]}")
            accepted.update(doc["accepted"])
    rows = {}
    after = 0
    while True:
        r = subprocess.run(base + ["list"] + common + ["--after", str(after), "--limit", "10000"],
                           check=True, capture_output=True, text=True)
        page = json.loads(r.stdout)
        if not page:
            break
        for row in page:
            rows[row["id"]] = row
        after = page[-1]["id"]
    status = json.loads(subprocess.run(base + ["status"] + common, check=True, capture_output=True, text=True).stdout)
    completions = {}
    claims = {}
    for log in logs:
        if not log.exists():
            continue
        for line in log.read_text().splitlines():
            parts = line.split()
            if len(parts) != 3:
                continue
            kind, rid, token = parts[0], int(parts[1]), int(parts[2])
            if kind == "complete":
                completions.setdefault(rid, []).append((log.name, token))
            elif kind == "claim":
                claims.setdefault(rid, []).append(token)
    missing = accepted - rows.keys()
    if missing:
        problems.append(f"{len(missing)} accepted requests are not in the store: {sorted(missing)[:10]}")
    open_rows = [r for r in rows.values() if r["status"] not in TERMINAL]
    if open_rows:
        problems.append(f"{len(open_rows)} requests did not end: {[(r['id'], r['status']) for r in open_rows[:10]]}")
    if status["pending"] or status["in_flight"]:
        problems.append(f"status still shows work: {status}")
    for rid, done in completions.items():
        if len(done) > 1:
            problems.append(f"request {rid} was completed {len(done)} times: {done}")
        row = rows.get(rid)
        if row is None or row["status"] != "completed" or row["claim"] != done[0][1]:
            problems.append(f"request {rid} completed under claim {done[0][1]} but the store shows {row}")
    redelivered = sum(1 for r in rows.values() if r["claim"] > 1)
    attempts = sum(r["attempts"] for r in rows.values())
    by_status = {}
    for r in rows.values():
        by_status[r["status"]] = by_status.get(r["status"], 0) + 1
    print(f"accepted {len(accepted)}, stored {len(rows)}, by status {by_status}, "
          f"redelivered {redelivered} (attempts {attempts}), completions logged {len(completions)}")
    if redelivered == 0:
        problems.append("no request was delivered twice: the kills did not land mid-dispatch")
    for p in problems:
        print("VIOLATION:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Chaos on the Kubernetes test bed (docs/ha.md, docs/kubernetes.md): two `budcore platform serve`
replicas on one SQLite file drive the test bed's Kueue (`cluster.backend: kubernetes`) while
clients submit GPU jobs with idempotency keys and the leader is killed with -9 mid-run. The test
bed runs no kubelet: this script plays it, completing a Job a few seconds after Kueue unsuspends it.

At the end, from the cluster and the store:
- no run has two Jobs, and no Job two Workloads;
- every job reached a terminal state in the store, matching its Job on the cluster (completed
  where the Job completed; no unsuspended Job left unfinished);
- the quota in use on the ClusterQueue (flavorsUsage, admitted and reserving workloads) equals
  what the store's admitted runs hold (nothing, once every job ended);
- the checks of chaos.py that hold on any cluster: acknowledged submits took effect once, legal
  transition chains, epochs never go back, the audit chains verify.

Usage: k8s_chaos.py --budcore BIN --work DIR [--kills N] [--jobs-per-round N] [--seed N]
The test bed comes from $BUDCORE_K8S_STATE_DIR (the ctest fixture); without it the script exits 77.
"""
import argparse
import json
import os
import random
import shutil
import signal
import ssl
import sys
import threading
import time
import urllib.parse
import urllib.request
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import chaos  # noqa: E402  (the store, the replicas and the store checks)

SKIP = 77
GPUS = 4  # the ClusterQueue's nominal quota of nvidia.com/gpu
# Longer than chaos.py's: a new leader's recovery adopts every run through the API server, on
# the thread that renews the lease, and a loaded test bed can take seconds for it.
LEASE, RENEW, RETRY = 5.0, 1.0, 0.2
TERMINAL = ("completed", "failed", "cancelled")
ADMITTED = ("scheduled", "running")


class Api:
    """The test bed's apiserver as its admin (the env file of k8s-testbed.sh)."""

    def __init__(self, state_dir):
        env = dict(line.strip().split("=", 1) for line in open(Path(state_dir) / "env") if "=" in line)
        self.server, self.token = env["BUDCORE_K8S_SERVER"], env["BUDCORE_K8S_TOKEN"]
        self.tls = ssl.create_default_context(cafile=env["BUDCORE_K8S_CA_FILE"])

    def call(self, method, path, body=None, content_type="application/json"):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.server + path, data=data, method=method)
        req.add_header("Authorization", "Bearer " + self.token)
        if data is not None:
            req.add_header("Content-Type", content_type)
        with urllib.request.urlopen(req, context=self.tls, timeout=30) as r:
            return json.loads(r.read() or b"{}")

    def items(self, path, prefix):
        """Every object of a list path, across namespaces, in namespaces starting with prefix."""
        out = self.call("GET", path)["items"]
        return [o for o in out if o["metadata"].get("namespace", "").startswith(prefix)]


def now_rfc3339():
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def condition(obj, kind):
    return any(c.get("type") == kind and c.get("status") == "True" for c in obj.get("status", {}).get("conditions", []))


class Kubelet(threading.Thread):
    """Completes an unsuspended Job once it has run for its job's duration (no pods run here)."""

    def __init__(self, api, prefix, durations):
        super().__init__(daemon=True)
        self.api, self.prefix, self.durations = api, prefix, durations
        self.started = {}  # Job uid -> (monotonic, RFC 3339) when first seen running
        self.stop = threading.Event()
        self.errors = []

    def step(self):
        for job in self.api.items("/apis/batch/v1/jobs?labelSelector=app.kubernetes.io%2Fmanaged-by%3Dbudcore", self.prefix):
            meta = job["metadata"]
            if job["spec"].get("suspend", False) or condition(job, "Complete") or condition(job, "Failed"):
                continue
            t0, at = self.started.setdefault(meta["uid"], (time.monotonic(), now_rfc3339()))
            if time.monotonic() - t0 < self.durations.get(meta["labels"].get("budcore.io/job-id"), 2):
                continue
            now = now_rfc3339()
            cond = [{"type": t, "status": "True", "lastProbeTime": now, "lastTransitionTime": now}
                    for t in ("SuccessCriteriaMet", "Complete")]
            path = f"/apis/batch/v1/namespaces/{meta['namespace']}/jobs/{meta['name']}/status"
            self.api.call("PATCH", path, {"status": {"startTime": at, "completionTime": now, "succeeded": 1,
                                                     "conditions": cond}}, "application/merge-patch+json")

    def run(self):
        while not self.stop.is_set():
            try:
                self.step()
            except Exception as e:  # a Job deleted between list and patch: the next step sees it
                self.errors.append(str(e))
            time.sleep(0.3)


def config(store, work, kubeconfig, sfx):
    q, flavor = f"kc-{sfx}", f"kcf-{sfx}"
    text = f"""store: {{uri: '{store.uri}', durable: false}}
clock: system
ha: {{replica: r0, lease_seconds: {LEASE}, renew_seconds: {RENEW}, retry_seconds: {RETRY}}}
cluster: {{backend: kubernetes, kubernetes: {{kubeconfig: {kubeconfig}}}}}
queues: {{service: {q}, batch: {q}, training: {q}, usecase: {q}, tenant_namespace_prefix: kc{sfx}-}}
quota:
  resource_flavors: [{{name: {flavor}, node_labels: {{gpu.type: {flavor}}}}}]
  cluster_queues:
  - name: {q}
    resource_groups:
    - covered_resources: [cpu, memory, nvidia.com/gpu]
      flavors:
      - name: {flavor}
        resources: [{{name: cpu, nominal: '64'}}, {{name: memory, nominal: 256Gi}}, {{name: nvidia.com/gpu, nominal: '{GPUS}'}}]
"""
    path = work / "platform.yaml"
    path.write_text(text)
    return path, q, f"kc{sfx}-"


def submit_round(budcore, cfg, work, state, n):
    for _ in range(n):
        i = state["next"]
        state["next"] += 1
        tenant, key = random.choice(chaos.TENANTS), f"k{i}"
        f = work / "job.json"
        f.write_text(json.dumps({"name": f"j{i}", "job_type": "batch", "deployment_type": "docker",
                                 "gpu_count": random.choice([1, 2]), "cpu_cores": "1", "memory_gb": 1,
                                 "spec": {"image": "busybox:1.36"}}))
        # A submit the store did not acknowledge (the CLI failed) is retried with its key.
        for _attempt in range(5):
            rc, out = chaos.cli(budcore, cfg, "submit", str(f), "--tenant", tenant, "--key", key)
            if rc == 0:
                jid = json.loads(out)["job"]["id"]
                state["acked"][key] = (tenant, jid)
                state["durations"][jid] = random.choice([1, 3, 5])
                break
            time.sleep(0.5)


def kill_leader(api, prefix, store, reps, report):
    running = lambda: [j for j in api.items("/apis/batch/v1/jobs?labelSelector=app.kubernetes.io%2Fmanaged-by%3Dbudcore",
                                            prefix) if not j["spec"].get("suspend", False) and not condition(j, "Complete")]
    wait_for(lambda: running(), 10)  # mid-run: a Job runs on the cluster
    report["running_at_kills"].append(len(running()))
    holder, epoch = chaos.leader(store)
    rid = chaos.replica_of(holder)
    proc = reps.procs.get(rid)
    if proc is None or proc.poll() is not None:
        return
    t0 = time.monotonic()
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    report["kills"] += 1
    while time.monotonic() - t0 < 4 * LEASE + 10:
        h, e = chaos.leader(store)
        if e > epoch and h != holder:
            report["failovers"].append(round(time.monotonic() - t0, 3))
            break
        time.sleep(0.05)
    # A replica id whose process reported within the lease is refused as in use (docs/ha.md):
    # the killed replica comes back once its last report is a lease old.
    time.sleep(max(0.0, LEASE + 0.2 - (time.monotonic() - t0)))
    reps.start(rid)


def run(args):
    state_dir = os.environ.get("BUDCORE_K8S_STATE_DIR")
    if not state_dir or not (Path(state_dir) / "env").exists():
        print("no Kubernetes test bed (BUDCORE_K8S_STATE_DIR): skipped")
        return SKIP
    random.seed(args.seed)
    work = Path(args.work)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    api = Api(state_dir)
    sfx = "%08x" % random.SystemRandom().getrandbits(32)  # fresh names: namespaces never go away
    store = chaos.Store("sqlite", work)
    cfg, queue, prefix = config(store, work, Path(state_dir) / "kubeconfig", sfx)
    state = {"next": 0, "acked": {}, "durations": {}}
    report = {"kills": 0, "running_at_kills": [], "failovers": [], "problems": []}
    problems = report["problems"]
    reps = chaos.Replicas(args.budcore, cfg, work, n=2)
    kubelet = Kubelet(api, prefix, state["durations"])
    kubelet.start()
    try:
        for _ in range(args.kills):
            submit_round(args.budcore, cfg, work, state, args.jobs_per_round)
            time.sleep(random.uniform(1.0, 3.0))  # some admitted and running, some waiting
            kill_leader(api, prefix, store, reps, report)
        submit_round(args.budcore, cfg, work, state, args.jobs_per_round)
        if not wait_for(lambda: not open_jobs(store), args.drain_seconds):
            problems.append("jobs left open: " + json.dumps(open_jobs(store)))
            problems += [describe(api, prefix, jid) for jid, _ in open_jobs(store)]
        for rid, p in sorted(reps.procs.items()):
            if p.poll() is not None:
                problems.append(f"replica {rid} exited with {p.returncode}")
        # Kueue releases a finished workload's quota asynchronously.
        wait_for(lambda: not quota_problems(api, store, queue, prefix), 20)
        problems += cluster_problems(api, store, prefix)
        problems += quota_problems(api, store, queue, prefix)
    finally:
        kubelet.stop.set()
        reps.stop_all()
    chaos.A100_GPUS = 10 ** 9  # admissions are Kueue's on this cluster: its own usage is checked above
    problems += chaos.check(store, state, args)
    ended = dict(store.rows("SELECT status, COUNT(*) FROM jobs GROUP BY status"))
    report.update(acknowledged=len(state["acked"]), jobs=ended, kubelet_errors=kubelet.errors[:5], problems=problems[:50],
                  ok=not problems)
    print(json.dumps(report))
    return 0 if not problems else 1


def wait_for(pred, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(0.5)
    return pred()


def open_jobs(store):
    return store.rows("SELECT id, status FROM jobs WHERE status NOT IN ('completed', 'failed', 'cancelled')")


def describe(api, prefix, jid):
    """What the cluster holds for a job: its Jobs and Workloads with their conditions."""
    def conds(o):
        return [f"{c.get('type')}={c.get('status')}:{c.get('reason', '')}:{c.get('message', '')[:120]}"
                for c in o.get("status", {}).get("conditions", [])]
    jobs = [j for j in api.items("/apis/batch/v1/jobs", prefix)
            if j["metadata"].get("labels", {}).get("budcore.io/job-id") == jid]
    uids = {j["metadata"]["uid"] for j in jobs}
    wls = [w for w in api.items("/apis/kueue.x-k8s.io/v1beta2/workloads", prefix)
           if any(r.get("uid") in uids for r in w["metadata"].get("ownerReferences", []))
           or w["metadata"].get("labels", {}).get("budcore.io/job-id") == jid]
    return json.dumps({"job": jid,
                       "jobs": [{"name": j["metadata"]["name"], "ns": j["metadata"]["namespace"],
                                 "suspend": j["spec"].get("suspend"), "conditions": conds(j)} for j in jobs],
                       "workloads": [{"name": w["metadata"]["name"], "conditions": conds(w)} for w in wls]})


def cluster_problems(api, store, prefix):
    problems = []
    jobs = api.items("/apis/batch/v1/jobs?labelSelector=app.kubernetes.io%2Fmanaged-by%3Dbudcore", prefix)
    runs, by_uid = {}, {}
    for j in jobs:
        labels = j["metadata"]["labels"]
        run = (labels.get("budcore.io/job-id"), labels.get("budcore.io/run", "1"))
        runs.setdefault(run, []).append(j["metadata"]["name"])
        by_uid[j["metadata"]["uid"]] = (run, j)
    for run, names in sorted(runs.items()):
        if len(names) > 1:
            problems.append(f"run {run} has {len(names)} Jobs: {names}")
    owners = {}
    for w in api.items("/apis/kueue.x-k8s.io/v1beta2/workloads", prefix):
        for ref in w["metadata"].get("ownerReferences", []):
            if ref.get("kind") == "Job":
                owners.setdefault(ref["uid"], []).append(w["metadata"]["name"])
    for uid, names in sorted(owners.items()):
        if len(names) > 1:
            problems.append(f"Job {by_uid.get(uid, (uid,))[0]} has {len(names)} Workloads: {names}")
    # The store and the cluster agree on every job's end.
    status = dict(store.rows("SELECT id, status FROM jobs"))
    latest = {}
    for (jid, run), _ in runs.items():
        latest[jid] = max(latest.get(jid, 0), int(run))
    for (run, j) in by_uid.values():
        jid = run[0]
        done = condition(j, "Complete")
        if int(run[1]) == latest[jid]:
            if status.get(jid) == "completed" and not done:
                problems.append(f"job {jid} completed in the store, its Job {j['metadata']['name']} did not")
            if done and status.get(jid) != "completed":
                problems.append(f"job {jid} is {status.get(jid)} in the store, its Job {j['metadata']['name']} completed")
        if not j["spec"].get("suspend", False) and not done and not condition(j, "Failed"):
            problems.append(f"Job {j['metadata']['name']} of job {jid} ({status.get(jid)}) is still running on the cluster")
    for jid, s in status.items():
        if s == "completed" and jid not in latest:
            problems.append(f"job {jid} completed in the store has no Job on the cluster")
    return problems


def quota_problems(api, store, queue, prefix):
    """The ClusterQueue's usage equals what the store's admitted runs hold."""
    problems = []
    held = store.rows("SELECT COUNT(*), COALESCE(SUM(gpu_count), 0) FROM jobs WHERE status IN ('scheduled', 'running')")
    runs, gpus = int(held[0][0]), int(held[0][1])
    cq = api.call("GET", f"/apis/kueue.x-k8s.io/v1beta2/clusterqueues/{queue}").get("status", {})
    used = sum(int(r.get("total", "0")) for f in cq.get("flavorsUsage", []) for r in f.get("resources", [])
               if r.get("name") == "nvidia.com/gpu")
    if used != gpus:
        problems.append(f"ClusterQueue {queue} uses {used} GPUs, the store's admitted runs hold {gpus}")
    for field in ("admittedWorkloads", "reservingWorkloads"):
        if int(cq.get(field, 0)) != runs:
            problems.append(f"ClusterQueue {queue} has {cq.get(field, 0)} {field}, the store {runs} admitted runs")
    reserved = [w["metadata"]["name"] for w in api.items("/apis/kueue.x-k8s.io/v1beta2/workloads", prefix)
                if condition(w, "QuotaReserved") and not condition(w, "Finished")]
    if len(reserved) != runs:
        problems.append(f"{len(reserved)} Workloads hold quota ({reserved[:5]}), the store {runs} admitted runs")
    return problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--budcore", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--kills", type=int, default=4)
    ap.add_argument("--jobs-per-round", type=int, default=4)
    ap.add_argument("--drain-seconds", type=float, default=60.0)
    ap.add_argument("--seed", type=int, default=1)
    sys.exit(run(ap.parse_args()))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The peer of `budcore pipeline plan` (contract 3) written with networkx.

usage: networkx_plan.py FILE   (JSON pipeline document; prints the plan JSON)

Parses the same JSON, builds a DiGraph (depends_on edges plus CONDITION then/else edges),
computes a topological order, levels (longest chain of edges from a source) and the longest
duration path with nx.dag_longest_path. Only valid documents are handled; a cycle raises.
"""
import json
import sys

import networkx as nx


def duration(step):
    cfg = step.get("config") or {}
    t = str(step.get("step_type", "")).upper()
    if t == "JOB":
        return cfg.get("estimated_duration_seconds") or 0
    if t == "WAIT":
        return cfg.get("duration_seconds") or 0
    return 0


def plan(doc):
    steps = doc["steps"]
    g = nx.DiGraph()
    index = {}
    for i, s in enumerate(steps):
        index[s["id"]] = i
        g.add_node(s["id"], w=duration(s))
    for s in steps:
        for d in s.get("depends_on") or []:
            g.add_edge(d, s["id"])
        if str(s.get("step_type", "")).upper() == "CONDITION":
            cfg = s.get("config") or {}
            for t in (cfg.get("then_steps") or []) + (cfg.get("else_steps") or []):
                g.add_edge(s["id"], t)
    order = list(nx.topological_sort(g))
    level = {}
    for v in order:
        level[v] = max((level[u] + 1 for u in g.predecessors(v)), default=0)
    levels = [[] for _ in range(max(level.values(), default=-1) + 1)]
    for s in steps:
        levels[level[s["id"]]].append(s["id"])
    # Node weights become edge weights into the node; a virtual source carries the first weight.
    h = nx.DiGraph()
    src = ("__source__",)
    for v in g.nodes:
        h.add_edge(src, v, w=g.nodes[v]["w"])
    for u, v in g.edges:
        h.add_edge(u, v, w=g.nodes[v]["w"])
    path = nx.dag_longest_path(h, weight="w")[1:]
    seconds = sum(g.nodes[v]["w"] for v in path)
    jobs = [s["id"] for s in steps if str(s.get("step_type", "")).upper() == "JOB"]
    return {"valid": True, "order": order, "levels": levels, "critical_path": path,
            "critical_path_seconds": seconds, "job_steps": jobs}


def main():
    path = sys.argv[1]
    with (sys.stdin if path == "-" else open(path)) as f:
        doc = json.load(f)
    json.dump(plan(doc), sys.stdout, separators=(",", ":"))
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Scenarios translated from kubernetes-sigs/kueue pkg/scheduler/scheduler_test.go (TestSchedule,
@ ff69552e). One Kueue schedule() call = one cycle. Writes tests/quota/data/kueue_sched_*.json.

Translation notes: Kueue's CEL rejects borrowWithinCohort without reclaimWithinCohort (the unit test
skips webhooks), so that case uses reclaim LowerPriority, which finds no extra candidates there; namespace selectors are dropped (every case keeps namespaces consistent with
them); queues without a cohort lose their borrowing limits (Kueue's CEL forbids them; same meaning); Kueue's tie on equal
creation/reservation timestamps is mapped to list order; pre-admitted workloads get one shared
reservation_seq so candidate order falls back to the name as Kueue falls back to the UID."""
import json, os, re

OUT = os.path.join(os.path.dirname(__file__), "..", "data")


def rq(name, nominal, bl=None, ll=None):
    r = {"name": name, "nominal": nominal}
    if bl is not None: r["borrowing_limit"] = bl
    if ll is not None: r["lending_limit"] = ll
    return r


def fq(flavor, *res):
    return {"name": flavor, "resources": list(res)}


def rg(*flavors):
    covered = [r["name"] for r in flavors[0]["resources"]]
    return {"covered_resources": covered, "flavors": list(flavors)}


def cq(name, *groups, cohort=None, strict=False, within=None, reclaim=None, bwc=None, bwc_max=None, wcb=None, wcp=None, pref=None):
    q = {"name": name, "cohort": cohort, "queueing_strategy": "StrictFIFO" if strict else "BestEffortFIFO",
         "resource_groups": list(groups)}
    pre = {"within_cluster_queue": within or "Never", "reclaim_within_cohort": reclaim or "Never"}
    if bwc: pre["borrow_within_cohort"] = {"policy": bwc, "max_priority_threshold": bwc_max}
    q["preemption"] = pre
    ff = {}
    if wcb: ff["when_can_borrow"] = wcb
    if wcp: ff["when_can_preempt"] = wcp
    if pref: ff["preference"] = pref
    if ff: q["flavor_fungibility"] = ff
    return q


def lq(ns, name, cq_name):
    return {"namespace": ns, "name": name, "cluster_queue": cq_name}


def cohort(name, parent=None, *groups):
    return {"name": name, "parent": parent, "resource_groups": list(groups)}


def ps(name, count, req, min_count=None):
    return {"name": name, "count": count, "min_count": min_count, "requests": req}


def wl(key, queue=None, req=None, prio=0, pod_sets=None, adm=None, seq=None):
    ns, name = key.split("/")
    w = {"name": name, "namespace": ns, "queue": queue or "", "priority": prio,
         "pod_sets": pod_sets or [ps("main", 1, req)]}
    if seq is not None: w["creation_seq"] = seq
    if adm:
        cqn, flv = adm  # flv: {podset: {res: flavor}} or a flavor name for every resource of every pod set
        if isinstance(flv, str):
            flv = {p["name"]: {r: flv for r in p["requests"]} for p in w["pod_sets"]}
        w["admitted"] = {"cluster_queue": cqn, "flavors": flv, "reservation_seq": 0}
    return w


FLAVORS = [{"name": n} for n in ["default", "on-demand", "spot", "model-a"]] + [
    {"name": "spot-tainted", "node_taints": [{"key": "key", "value": "val", "effect": "NoSchedule"}]},
    {"name": "spot-tainted-2", "node_taints": [{"key": "key", "value": "val2", "effect": "NoSchedule"}]}]
BASE_CQS = [
    cq("sales", rg(fq("default", rq("cpu", "50"))), strict=True),
    cq("eng-alpha", rg(fq("on-demand", rq("cpu", "50", "50")), fq("spot", rq("cpu", "100", "0"))), cohort="eng", strict=True),
    cq("eng-beta", rg(fq("on-demand", rq("cpu", "50", "10")), fq("spot", rq("cpu", "0", "100"))),
       rg(fq("model-a", rq("example.com/gpu", "20", "0"))), cohort="eng", strict=True, within="LowerPriority", reclaim="Any"),
    cq("lend-a", rg(fq("default", rq("cpu", "3", None, "2"))), cohort="lend"),
    cq("lend-b", rg(fq("default", rq("cpu", "2", None, "2"))), cohort="lend"),
]
BASE_LQS = [lq("sales", "main", "sales"), lq("eng-alpha", "main", "eng-alpha"), lq("eng-beta", "main", "eng-beta"),
            lq("lend", "lend-a-queue", "lend-a"), lq("lend", "lend-b-queue", "lend-b")]

CASES = []


def case(title, workloads, admitted, preempted=(), pending=(), cqs=(), lqs=(), cohorts=(), cycles=1):
    CASES.append(dict(title=title, workloads=workloads, admitted=admitted, preempted=list(preempted),
                      pending=list(pending), cqs=list(cqs), lqs=list(lqs), cohorts=list(cohorts), cycles=cycles))


CPU = lambda v: {"cpu": v}
GPU = lambda v: {"gpu": v}

case("use second flavor when the first has no preemption candidates; WhenCanPreempt: MayStopSearch",
     [wl("eng-alpha/admitted", "other", CPU("50"), adm=("other-alpha", "on-demand")), wl("eng-alpha/new", "other", CPU("20"))],
     {"eng-alpha/new": ("other-alpha", {"main": {"cpu": "spot"}})},
     cqs=[cq("other-alpha", rg(fq("on-demand", rq("cpu", "50")), fq("spot", rq("cpu", "100"))), within="LowerPriority", wcp="MayStopSearch")],
     lqs=[lq("eng-alpha", "other", "other-alpha")])
case("workload fits in single clusterQueue",
     [wl("sales/foo", "main", pod_sets=[ps("one", 10, CPU("1"))])], {"sales/foo": ("sales", {"one": {"cpu": "default"}})})
case("flavors with mixed misconfiguration and insufficient quota",
     [wl("sales/existing-on-demand-job", "custom-q", CPU("10"), adm=("custom-cq", "on-demand")), wl("sales/new-job", "custom-q", CPU("10"))],
     {}, pending=["sales/new-job"],
     cqs=[cq("custom-cq", rg(fq("spot-tainted", rq("cpu", "20")), fq("on-demand", rq("cpu", "15"))), strict=True)],
     lqs=[lq("sales", "custom-q", "custom-cq")])
case("flavors with mixed taint mismatch and exceeding limits",
     [wl("sales/new-job2", "custom-q2", CPU("10"))], {}, pending=["sales/new-job2"],
     cqs=[cq("custom-cq2", rg(fq("spot-tainted", rq("cpu", "20")), fq("on-demand", rq("cpu", "5"))), strict=True)],
     lqs=[lq("sales", "custom-q2", "custom-cq2")])
case("flavors are structurally incompatible",
     [wl("sales/new-job3", "custom-q3", CPU("1"))], {}, pending=["sales/new-job3"],
     cqs=[cq("custom-cq3", rg(fq("spot-tainted", rq("cpu", "20")), fq("spot-tainted-2", rq("cpu", "5"))), strict=True)],
     lqs=[lq("sales", "custom-q3", "custom-cq3")])
case("skip workload with missing ClusterQueue",
     [wl("sales/missing-cq-workload", "non-existent-queue", pod_sets=[ps("set", 1, CPU("1"))])], {}, pending=["sales/missing-cq-workload"])
case("single clusterQueue full",
     [wl("sales/new", "main", pod_sets=[ps("one", 11, CPU("1"))]),
      wl("sales/assigned", "main", pod_sets=[ps("one", 40, CPU("1"))], adm=("sales", "default"))], {}, pending=["sales/new"])
case("admit in different cohorts",
     [wl("sales/new", "main", pod_sets=[ps("one", 1, CPU("1"))]), wl("eng-alpha/new", "main", pod_sets=[ps("one", 51, CPU("1"))])],
     {"sales/new": ("sales", {"one": {"cpu": "default"}}), "eng-alpha/new": ("eng-alpha", {"one": {"cpu": "on-demand"}})})
case("admit in same cohort with no borrowing",
     [wl("eng-alpha/new", "main", pod_sets=[ps("one", 40, CPU("1"))]), wl("eng-beta/new", "main", pod_sets=[ps("one", 40, CPU("1"))])],
     {"eng-alpha/new": ("eng-alpha", {"one": {"cpu": "on-demand"}}), "eng-beta/new": ("eng-beta", {"one": {"cpu": "on-demand"}})})
case("assign multiple resources and flavors",
     [wl("eng-beta/new", "main", pod_sets=[ps("one", 10, {"cpu": "6", "example.com/gpu": "1"}), ps("two", 40, CPU("1"))])],
     {"eng-beta/new": ("eng-beta", {"one": {"cpu": "on-demand", "example.com/gpu": "model-a"}, "two": {"cpu": "spot"}})})
case("cannot borrow if cohort was assigned and would result in overadmission",
     [wl("eng-alpha/new", "main", pod_sets=[ps("one", 45, CPU("1"))]), wl("eng-beta/new", "main", pod_sets=[ps("one", 56, CPU("1"))])],
     {"eng-alpha/new": ("eng-alpha", {"one": {"cpu": "on-demand"}})}, pending=["eng-beta/new"])
case("can borrow if cohort was assigned and will not result in overadmission",
     [wl("eng-alpha/new", "main", pod_sets=[ps("one", 45, CPU("1"))]), wl("eng-beta/new", "main", pod_sets=[ps("one", 55, CPU("1"))])],
     {"eng-alpha/new": ("eng-alpha", {"one": {"cpu": "on-demand"}}), "eng-beta/new": ("eng-beta", {"one": {"cpu": "on-demand"}})})
case("can borrow if needs reclaim from cohort in different flavor",
     [wl("eng-alpha/can-reclaim", "main", CPU("100")), wl("eng-beta/needs-to-borrow", "main", CPU("1")),
      wl("eng-beta/user-on-demand", "main", CPU("50"), adm=("eng-beta", "on-demand")),
      wl("eng-beta/user-spot", "main", CPU("1"), adm=("eng-beta", "spot"))],
     {"eng-beta/needs-to-borrow": ("eng-beta", {"main": {"cpu": "on-demand"}})}, pending=["eng-alpha/can-reclaim"])
case("workload exceeds lending limit when borrow in cohort",
     [wl("lend/a", "lend-b-queue", CPU("2"), adm=("lend-b", "default")), wl("lend/b", "lend-b-queue", CPU("3"))], {}, pending=["lend/b"])
HIER_CQS = lambda lend: [cq("cq-lender", rg(fq("on-demand", rq("cpu", "10", None, lend))), cohort="child"),
                         cq("cq-borrower", rg(fq("on-demand", rq("cpu", "5", "10"))), cohort="child")]
HIER_LQS = [lq("eng-alpha", "lq-lender", "cq-lender"), lq("eng-alpha", "lq-borrower", "cq-borrower")]
HIER_COH = [cohort("root"), cohort("child", "root")]
case("hierarchical cohort respects lending limit when borrowing",
     [wl("eng-alpha/wl-existing", "lq-borrower", CPU("5"), adm=("cq-borrower", "on-demand")), wl("eng-alpha/wl-pending", "lq-borrower", CPU("4"))],
     {}, pending=["eng-alpha/wl-pending"], cqs=HIER_CQS("3"), lqs=HIER_LQS, cohorts=HIER_COH)
case("hierarchical cohort allows borrowing up to lending limit",
     [wl("eng-alpha/wl-existing", "lq-borrower", CPU("5"), adm=("cq-borrower", "on-demand")), wl("eng-alpha/wl-borrowing", "lq-borrower", CPU("5"))],
     {"eng-alpha/wl-borrowing": ("cq-borrower", {"main": {"cpu": "on-demand"}})}, cqs=HIER_CQS("5"), lqs=HIER_LQS, cohorts=HIER_COH)
case("preempt workloads in ClusterQueue and cohort",
     [wl("eng-beta/preemptor", "main", CPU("20")),
      wl("eng-alpha/use-all-spot", "main", CPU("100"), adm=("eng-alpha", "spot")),
      wl("eng-beta/low-1", "main", CPU("30"), prio=-1, adm=("eng-beta", "on-demand")),
      wl("eng-beta/low-2", "main", CPU("10"), prio=-2, adm=("eng-beta", "on-demand")),
      wl("eng-alpha/borrower", "main", CPU("60"), adm=("eng-alpha", "on-demand"))],
     {}, preempted=["eng-alpha/borrower", "eng-beta/low-2"], pending=["eng-beta/preemptor"])
case("multiple CQs need preemption",
     [wl("eng-beta/preemptor", "other", CPU("1"), prio=-1), wl("eng-alpha/pending", "other", CPU("1"), prio=1),
      wl("eng-alpha/use-all", "other", CPU("100"), adm=("other-alpha", "on-demand"))],
     {}, preempted=["eng-alpha/use-all"], pending=["eng-beta/preemptor", "eng-alpha/pending"],
     cqs=[cq("other-alpha", rg(fq("on-demand", rq("cpu", "50", "50"))), cohort="other"),
          cq("other-beta", rg(fq("on-demand", rq("cpu", "50", "10"))), cohort="other", reclaim="Any", within="LowerPriority")],
     lqs=[lq("eng-alpha", "other", "other-alpha"), lq("eng-beta", "other", "other-beta")])
case("cannot borrow resource not listed in clusterQueue",
     [wl("eng-alpha/new", "main", {"example.com/gpu": "1"})], {}, pending=["eng-alpha/new"])
case("not enough resources to borrow, fallback to next flavor; WhenCanPreempt: TryNextFlavor",
     [wl("eng-alpha/new", "main", pod_sets=[ps("one", 60, CPU("1"))]),
      wl("eng-beta/existing", "main", pod_sets=[ps("one", 45, CPU("1"))], adm=("eng-beta", "on-demand"))],
     {"eng-alpha/new": ("eng-alpha", {"one": {"cpu": "spot"}})})
case("no overadmission while borrowing",
     [wl("eng-beta/new", "main", pod_sets=[ps("one", 50, CPU("1"))], seq=1),
      wl("eng-alpha/new-alpha", "main", pod_sets=[ps("one", 1, CPU("1"))], seq=2),
      wl("eng-gamma/new-gamma", "main", pod_sets=[ps("one", 50, CPU("1"))], seq=3),
      wl("eng-gamma/existing", "main", pod_sets=[ps("borrow-on-demand", 51, CPU("1")), ps("use-all-spot", 100, CPU("1"))],
         adm=("eng-gamma", {"borrow-on-demand": {"cpu": "on-demand"}, "use-all-spot": {"cpu": "spot"}}), seq=0)],
     {"eng-beta/new": ("eng-beta", {"one": {"cpu": "on-demand"}}), "eng-alpha/new-alpha": ("eng-alpha", {"one": {"cpu": "on-demand"}})},
     pending=["eng-gamma/new-gamma"],
     cqs=[cq("eng-gamma", rg(fq("on-demand", rq("cpu", "50", "10")), fq("spot", rq("cpu", "0", "100"))), cohort="eng", reclaim="Any")],
     lqs=[lq("eng-gamma", "main", "eng-gamma")])
case("partial admission single variable pod set",
     [wl("sales/new", "main", pod_sets=[ps("one", 50, CPU("2"), 20)])], {"sales/new": ("sales", {"one": {"cpu": "default"}}, {"one": 25})})
case("partial admission single variable pod set, preempt first",
     [wl("eng-beta/new", "main", prio=4, pod_sets=[ps("one", 20, {"example.com/gpu": "1"}, 10)]),
      wl("eng-beta/old", "main", prio=-4, pod_sets=[ps("one", 10, {"example.com/gpu": "1"})], adm=("eng-beta", "model-a"))],
     {}, preempted=["eng-beta/old"], pending=["eng-beta/new"])
case("partial admission single variable pod set, preempt with partial admission",
     [wl("eng-beta/new", "main", prio=4, pod_sets=[ps("one", 30, {"example.com/gpu": "1"}, 10)]),
      wl("eng-beta/old", "main", prio=-4, pod_sets=[ps("one", 10, {"example.com/gpu": "1"})], adm=("eng-beta", "model-a"))],
     {}, preempted=["eng-beta/old"], pending=["eng-beta/new"])
case("partial admission multiple variable pod sets",
     [wl("sales/new", "main", pod_sets=[ps("one", 20, CPU("1")), ps("two", 30, CPU("1"), 10), ps("three", 15, CPU("1"), 5)])],
     {"sales/new": ("sales", {"one": {"cpu": "default"}, "two": {"cpu": "default"}, "three": {"cpu": "default"}}, {"two": 20, "three": 10})})
R12 = rg(fq("default", rq("r1", "10", "10"), rq("r2", "10", "10")))
CO3 = [cq(n, R12, cohort="co", reclaim="Any") for n in ("cq1", "cq2", "cq3")]
LQ3 = [lq("sales", "lq%d" % i, "cq%d" % i) for i in (1, 2, 3)]
case("two workloads can borrow different resources from the same flavor in the same cycle",
     [wl("sales/wl1", "lq1", {"r1": "16"}, prio=-1), wl("sales/wl2", "lq2", {"r2": "16"}, prio=-2)],
     {"sales/wl1": ("cq1", {"main": {"r1": "default"}}), "sales/wl2": ("cq2", {"main": {"r2": "default"}})}, cqs=CO3, lqs=LQ3)
case("two workloads can borrow the same resources from the same flavor in the same cycle if fits in the cohort quota",
     [wl("sales/wl1", "lq1", {"r1": "16"}, prio=-1), wl("sales/wl2", "lq2", {"r1": "14"}, prio=-2)],
     {"sales/wl1": ("cq1", {"main": {"r1": "default"}}), "sales/wl2": ("cq2", {"main": {"r1": "default"}})}, cqs=CO3, lqs=LQ3)
case("only one workload can borrow one resources from the same flavor in the same cycle if cohort quota cannot fit",
     [wl("sales/wl1", "lq1", {"r1": "16"}, prio=-1), wl("sales/wl2", "lq2", {"r1": "16"}, prio=-2)],
     {"sales/wl1": ("cq1", {"main": {"r1": "default"}})}, pending=["sales/wl2"], cqs=CO3, lqs=LQ3)
case("preemption while borrowing, workload waiting for preemption should not block a borrowing workload in another CQ",
     [wl("eng-alpha/a", "lq_a", CPU("3"), seq=1), wl("eng-beta/b", "lq_b", CPU("1"), seq=2),
      wl("eng-alpha/admitted_a", "lq_a", CPU("2"), adm=("cq_a", "default"), seq=0)],
     {"eng-beta/b": ("cq_b", {"main": {"cpu": "default"}})}, pending=["eng-alpha/a"],
     cqs=[cq("cq_shared", rg(fq("default", rq("cpu", "4", "0"))), cohort="pwb"),
          cq("cq_a", rg(fq("default", rq("cpu", "0", "3"))), cohort="pwb", reclaim="LowerPriority", bwc="LowerPriority"),
          cq("cq_b", rg(fq("default", rq("cpu", "0"))), cohort="pwb", reclaim="LowerPriority", bwc="LowerPriority")],
     lqs=[lq("eng-alpha", "lq_a", "cq_a"), lq("eng-beta", "lq_b", "cq_b")])
OTHER3 = [cq("other-alpha", rg(fq("on-demand", rq("cpu", "2"))), cohort="other", reclaim="Any", within="LowerPriority"),
          cq("other-beta", rg(fq("on-demand", rq("cpu", "2"))), cohort="other"),
          cq("other-gamma", rg(fq("on-demand", rq("cpu", "2"))), cohort="other")]
OTHER_LQ = [lq("eng-alpha", "other", "other-alpha"), lq("eng-beta", "other", "other-beta"), lq("eng-gamma", "other", "other-gamma")]
case("minimal preemptions when target queue is exhausted",
     [wl("eng-alpha/a1", "other", CPU("1"), prio=-2, adm=("other-alpha", "on-demand")),
      wl("eng-alpha/a2", "other", CPU("1"), prio=-2, adm=("other-alpha", "on-demand")),
      wl("eng-alpha/a3", "other", CPU("1"), prio=-1, adm=("other-alpha", "on-demand")),
      wl("eng-beta/b1", "other", CPU("1"), adm=("other-beta", "on-demand")),
      wl("eng-beta/b2", "other", CPU("1"), adm=("other-beta", "on-demand")),
      wl("eng-beta/b3", "other", CPU("1"), adm=("other-beta", "on-demand")),
      wl("eng-alpha/incoming", "other", CPU("2"))],
     {}, preempted=["eng-alpha/a1", "eng-alpha/a2"], pending=["eng-alpha/incoming"], cqs=OTHER3, lqs=OTHER_LQ)
case("A workload is only eligible to do preemptions if it fits fully within nominal quota",
     [wl("eng-alpha/a1", "other", CPU("1"), prio=-1, adm=("other-alpha", "on-demand")),
      wl("eng-beta/b1", "other", CPU("1"), prio=-1, adm=("other-beta", "on-demand")),
      wl("eng-alpha/incoming", "other", CPU("3"), prio=1)],
     {}, pending=["eng-alpha/incoming"], cqs=OTHER3[:2], lqs=OTHER_LQ[:2])
OTHER2W = lambda a, b, **kw: [cq("other-alpha", rg(fq("default", rq("cpu", a))), cohort="other", within="LowerPriority", **kw),
                              cq("other-beta", rg(fq("default", rq("cpu", b))), cohort="other", within="LowerPriority", **kw)]
case("multiple preemptions without borrowing",
     [wl("eng-alpha/a1", "other", CPU("2"), adm=("other-alpha", "default")), wl("eng-beta/b1", "other", CPU("2"), adm=("other-beta", "default")),
      wl("eng-alpha/preemptor", "other", CPU("2"), prio=100), wl("eng-beta/preemptor", "other", CPU("2"), prio=100)],
     {}, preempted=["eng-alpha/a1", "eng-beta/b1"], pending=["eng-alpha/preemptor", "eng-beta/preemptor"],
     cqs=OTHER2W("2", "2"), lqs=OTHER_LQ[:2])
case("multiple preemptions preemption possible after earlier workload fits",
     [wl("eng-beta/b1", "other", CPU("2"), adm=("other-beta", "default")), wl("eng-alpha/fit", "other", CPU("1"), prio=100),
      wl("eng-beta/preemptor", "other", CPU("2"), prio=99)],
     {"eng-alpha/fit": ("other-alpha", {"main": {"cpu": "default"}})}, preempted=["eng-beta/b1"], pending=["eng-beta/preemptor"],
     cqs=OTHER2W("1", "2"), lqs=OTHER_LQ[:2])
case("multiple preemptions skip preemption when shared limited resource",
     [wl("eng-alpha/a1", "other", CPU("2"), adm=("other-alpha", "default")), wl("eng-beta/b1", "other", CPU("2"), adm=("other-beta", "default")),
      wl("eng-alpha/preemptor", "other", CPU("3"), prio=100), wl("eng-beta/pretending-preemptor", "other", CPU("3"), prio=99)],
     {}, preempted=["eng-alpha/a1"], pending=["eng-alpha/preemptor", "eng-beta/pretending-preemptor"],
     cqs=OTHER2W("2", "2", bwc="LowerPriority", reclaim="LowerPriority") + [cq("resource-bank", rg(fq("default", rq("cpu", "1"))), cohort="other")],
     lqs=OTHER_LQ[:2])
case("not enough resources",
     [wl("sales/new", "main", pod_sets=[ps("one", 1, CPU("100"))])], {}, pending=["sales/new"])
GPU2 = lambda beta_pre: [cq("other-alpha", rg(fq("on-demand", rq("gpu", "10")), fq("spot", rq("gpu", "10"))), cohort="other", within="LowerPriority", reclaim="LowerPriority"),
                         cq("other-beta", rg(fq("on-demand", rq("gpu", "0")), fq("spot", rq("gpu", "0"))), cohort="other",
                            **({"within": "LowerPriority", "reclaim": "LowerPriority"} if beta_pre else {}))]
case("prefer reclamation over cq priority based preemption",
     [wl("eng-alpha/a1", "other", GPU("5"), prio=50, adm=("other-alpha", "on-demand")),
      wl("eng-beta/b1", "other", GPU("5"), prio=50, adm=("other-beta", "spot")),
      wl("eng-alpha/preemptor", "other", GPU("6"), prio=100)],
     {}, preempted=["eng-beta/b1"], pending=["eng-alpha/preemptor"], cqs=GPU2(True), lqs=OTHER_LQ[:2])
case("prefer first preemption flavor when second flavor requires both reclaim and cq priority preemption",
     [wl("eng-alpha/a1", "other", GPU("5"), prio=50, adm=("other-alpha", "on-demand")),
      wl("eng-alpha/a2", "other", GPU("5"), prio=50, adm=("other-alpha", "spot")),
      wl("eng-beta/b1", "other", GPU("5"), prio=50, adm=("other-beta", "spot")),
      wl("eng-alpha/preemptor", "other", GPU("6"), prio=100)],
     {}, preempted=["eng-alpha/a1"], pending=["eng-alpha/preemptor"], cqs=GPU2(False), lqs=OTHER_LQ[:2])
case("prefer first preemption flavor when second flavor also requires cq preemption",
     [wl("eng-alpha/a1", "other", GPU("6"), prio=50, adm=("other-alpha", "on-demand")),
      wl("eng-alpha/a2", "other", GPU("5"), prio=50, adm=("other-alpha", "spot")),
      wl("eng-beta/b1", "other", GPU("5"), prio=9001, adm=("other-beta", "spot")),
      wl("eng-alpha/preemptor", "other", GPU("5"), prio=100)],
     {}, preempted=["eng-alpha/a1"], pending=["eng-alpha/preemptor"], cqs=GPU2(False), lqs=OTHER_LQ[:2])
case("workload requiring reclaimation prioritized over wl in another full cq",
     [wl("eng-alpha/Admitted-Workload-1", "lq", GPU("5"), adm=("CQ1", "on-demand"), seq=0),
      wl("eng-alpha/WL1", "lq", GPU("10"), seq=1), wl("eng-beta/WL2", "lq", GPU("10"), seq=2),
      wl("eng-gamma/Admitted-Workload-2", "lq", GPU("5"), adm=("CQ3", "on-demand"), seq=0),
      wl("eng-gamma/Admitted-Workload-3", "lq", GPU("5"), prio=1, adm=("CQ3", "on-demand"), seq=0)],
     {}, preempted=["eng-gamma/Admitted-Workload-2"], pending=["eng-alpha/WL1", "eng-beta/WL2"],
     cqs=[cq("CQ1", rg(fq("on-demand", rq("gpu", "10"))), cohort="other"),
          cq("CQ2", rg(fq("on-demand", rq("gpu", "10"))), cohort="other", reclaim="Any"),
          cq("CQ3", rg(fq("on-demand", rq("gpu", "0"))), cohort="other")],
     lqs=[lq("eng-alpha", "lq", "CQ1"), lq("eng-beta", "lq", "CQ2"), lq("eng-gamma", "lq", "CQ3")])
for policy, admitted_b in (("Any", True), ("LowerPriority", False), ("Never", False)):
    case("capacity blocked or not when lending clusterqueue reclaim policy is " + policy,
         [wl("eng-alpha/a1-admitted", "lq", GPU("1"), adm=("ClusterQueueA", "on-demand"), seq=0),
          wl("eng-alpha/a2-pending", "lq", GPU("2"), seq=1), wl("eng-beta/b1-pending", "lq", GPU("1"), seq=2)],
         {"eng-beta/b1-pending": ("ClusterQueueB", {"main": {"gpu": "on-demand"}})} if admitted_b else {},
         pending=["eng-alpha/a2-pending"] + ([] if admitted_b else ["eng-beta/b1-pending"]),
         cqs=[cq("ClusterQueueA", rg(fq("on-demand", rq("gpu", "2"))), cohort="root", reclaim=policy),
              cq("ClusterQueueB", rg(fq("on-demand", rq("gpu", "0"))), cohort="root")],
         lqs=[lq("eng-alpha", "lq", "ClusterQueueA"), lq("eng-beta", "lq", "ClusterQueueB")])
case("in a hierarchical cohort, workload borrowing less is scheduled first",
     [wl("eng-alpha/guaranteed", "lq-guaranteed", pod_sets=[ps("one", 1, CPU("4"))]),
      wl("eng-alpha/best-effort", "lq-best-effort", prio=3, pod_sets=[ps("one", 1, CPU("4"))])],
     {"eng-alpha/guaranteed": ("guaranteed", {"one": {"cpu": "default"}})}, pending=["eng-alpha/best-effort"],
     cohorts=[cohort("root"), cohort("guaranteed", "root", rg(fq("default", rq("cpu", "4"))))],
     cqs=[cq("guaranteed", rg(fq("default", rq("cpu", "0"))), cohort="guaranteed"),
          cq("best-effort", rg(fq("default", rq("cpu", "0"))), cohort="root")],
     lqs=[lq("eng-alpha", "lq-guaranteed", "guaranteed"), lq("eng-alpha", "lq-best-effort", "best-effort")])
case("don't assign flavor if there are no candidates for preemption",
     [wl("eng-alpha/admitted", "lq2", CPU("1"), adm=("cq2", "on-demand")), wl("eng-alpha/new", "lq1", CPU("1"), prio=100)],
     {"eng-alpha/new": ("cq1", {"main": {"cpu": "spot"}})},
     cqs=[cq("cq1", rg(fq("on-demand", rq("cpu", "0", "1")), fq("spot", rq("cpu", "0", "1"))), cohort="cohort",
             within="LowerPriority", reclaim="Any", bwc="LowerPriority", wcp="MayStopSearch", wcb="MayStopSearch"),
          cq("cq2", rg(fq("on-demand", rq("cpu", "1")), fq("spot", rq("cpu", "1"))), cohort="cohort")],
     lqs=[lq("eng-alpha", "lq1", "cq1"), lq("eng-alpha", "lq2", "cq2")])
case("nofit and fit flavors",
     [wl("eng-beta/pending-check", "main", CPU("80"))], {"eng-beta/pending-check": ("eng-beta", {"main": {"cpu": "spot"}})})
case("admit to second flavor when first needs preemption; WhenCanPreempt: TryNextFlavor",
     [wl("eng-alpha/blocker", "preempt-attempts-lq", CPU("1"), prio=50, adm=("preempt-attempts-cq", "on-demand")),
      wl("eng-alpha/test-wl", "preempt-attempts-lq", CPU("1"), prio=100)],
     {"eng-alpha/test-wl": ("preempt-attempts-cq", {"main": {"cpu": "spot"}})},
     cqs=[cq("preempt-attempts-cq", rg(fq("on-demand", rq("cpu", "1")), fq("spot", rq("cpu", "1"))), within="LowerPriority", wcp="TryNextFlavor")],
     lqs=[lq("eng-alpha", "preempt-attempts-lq", "preempt-attempts-cq")])
case("admit workload with zero-quantity request for resource not in ClusterQueue",
     [wl("sales/zero-resource-wl", "main", {"cpu": "1", "example.com/gpu": "0"})], {"sales/zero-resource-wl": ("sales", {"main": {"cpu": "default"}})})
case("preempt when workload requests zero of a resource not defined in ClusterQueue",
     [wl("sales/preemptor", "preempt-zero-gpu-lq", {"cpu": "2", "example.com/gpu": "0"}),
      wl("sales/low-priority", "preempt-zero-gpu-lq", CPU("4"), prio=-1, adm=("preempt-zero-gpu-cq", "default"))],
     {}, preempted=["sales/low-priority"], pending=["sales/preemptor"],
     cqs=[cq("preempt-zero-gpu-cq", rg(fq("default", rq("cpu", "4"))), within="LowerPriority")],
     lqs=[lq("sales", "preempt-zero-gpu-lq", "preempt-zero-gpu-cq")])
for pref, exp in (("PreemptionOverBorrowing", "preempt"), ("BorrowingOverPreemption", "borrow")):
    p = "pob" if exp == "preempt" else "bop"
    case(pref + " preference with a lender in the second flavor",
         [wl("default/low-" + p, p + "-queue", CPU("5"), prio=-1, adm=(p + "-cq", "on-demand")), wl("default/high-" + p, p + "-queue", CPU("5"))],
         {} if exp == "preempt" else {"default/high-" + p: (p + "-cq", {"main": {"cpu": "spot"}})},
         preempted=["default/low-" + p] if exp == "preempt" else [], pending=["default/high-" + p] if exp == "preempt" else [],
         cqs=[cq(p + "-cq", rg(fq("on-demand", rq("cpu", "5", "0")), fq("spot", rq("cpu", "0", "5"))), cohort=p + "-cohort",
                 within="LowerPriority", wcb="TryNextFlavor", wcp="TryNextFlavor", pref=pref),
              cq(p + "-lender", rg(fq("on-demand", rq("cpu", "0")), fq("spot", rq("cpu", "5"))), cohort=p + "-cohort")],
         lqs=[lq("default", p + "-queue", p + "-cq")])
case("PreemptionOverBorrowing preference: select fitting second flavor over first flavor with no preemption candidates",
     [wl("default/admitted-nopc", "nopc-queue", CPU("5"), adm=("nopc-cq", "on-demand")), wl("default/pending-nopc", "nopc-queue", CPU("5"))],
     {"default/pending-nopc": ("nopc-cq", {"main": {"cpu": "spot"}})},
     cohorts=[cohort("nopc-root", None, rg(fq("on-demand", rq("cpu", "0")), fq("spot", rq("cpu", "5")))), cohort("nopc-mid", "nopc-root")],
     cqs=[cq("nopc-cq", rg(fq("on-demand", rq("cpu", "5", "0")), fq("spot", rq("cpu", "0"))), cohort="nopc-mid",
             within="LowerPriority", wcb="TryNextFlavor", wcp="TryNextFlavor", pref="PreemptionOverBorrowing"),
          cq("nopc-sibling", rg(fq("on-demand", rq("cpu", "5")), fq("spot", rq("cpu", "0"))), cohort="nopc-mid")],
     lqs=[lq("default", "nopc-queue", "nopc-cq")])


def emit(prefix, cases, flavors, base_cqs, base_lqs):
    os.makedirs(OUT, exist_ok=True)
    for c in cases:
        wls = []
        for i, w in enumerate(c["workloads"]):
            w = dict(w)
            w.setdefault("creation_seq", i + 1)
            wls.append(w)
        names = [w["name"] for w in wls]
        def out_key(k):
            ns, n = k.split("/")
            return n if names.count(n) == 1 else k
        exp_adm = {}
        for k, v in c["admitted"].items():
            e = {"cluster_queue": v[0], "flavors": v[1]}
            if len(v) > 2: e["count"] = v[2]
            exp_adm[out_key(k)] = e
        scenario = {"source": "kubernetes-sigs/kueue " + prefix + ": " + c["title"], "cycles": c["cycles"],
                    "resource_flavors": flavors, "cohorts": c["cohorts"], "cluster_queues": base_cqs + c["cqs"],
                    "local_queues": base_lqs + c["lqs"], "workloads": wls}
        if c.get("fair_sharing"): scenario["fair_sharing"] = c["fair_sharing"]
        doc = {"scenario": scenario, "expected": {"admitted": exp_adm, "preempted": [out_key(k) for k in c["preempted"]],
                                                  "pending": [out_key(k) for k in c["pending"]]}}
        slug = re.sub(r"[^a-z0-9]+", "_", c["title"].lower()).strip("_")[:70]
        with open(os.path.join(OUT, "kueue_%s_%s.json" % (prefix, slug)), "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    emit("sched", CASES, FLAVORS, BASE_CQS, BASE_LQS)
    print(len(CASES), "scheduler scenarios")

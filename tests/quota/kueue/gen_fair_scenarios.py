#!/usr/bin/env python3
"""Fair-sharing scenarios translated from kubernetes-sigs/kueue (@ ff69552e)
pkg/scheduler/preemption/preemption_fair_test.go (TestFairPreemptions). Each case: admitted
workloads, an incoming workload queued to the target ClusterQueue, fair sharing on, one cycle;
expected = the victims Kueue's fairPreemptions picks, the incoming workload pending.
Kueue's test gives every admitted workload the same reservation time, so candidates tie-break on
UID; here they share one reservation_seq and fall back to the name, as the Go test's UIDs do.
Workloads live in namespace "default", one LocalQueue per ClusterQueue named after it.
Writes tests/quota/data/kueue_fair_*.json; run from this directory."""
from gen_scheduler_scenarios import cq, rg, fq, rq, lq, wl, cohort, emit

FLAVORS = [{"name": "default"}]
BASE_PRE = dict(within="LowerPriority", reclaim="Any", bwc="LowerPriority", bwc_max=-3)


def cpu_cq(name, nominal, cohort_name="all", weight=None, **pre):
    q = cq(name, rg(fq("default", rq("cpu", nominal))), cohort=cohort_name, **pre)
    if weight is not None: q["fair_weight"] = weight
    return q


BASE_CQS = [cpu_cq("a", "3", **BASE_PRE), cpu_cq("b", "3", **BASE_PRE), cpu_cq("c", "3", **BASE_PRE), cpu_cq("preemptible", "0")]
CASES = []


def case(title, admitted, target, incoming, preempted=(), cqs=None, cohorts=(), strategies=None):
    """admitted: (name, cq, cpu, priority); incoming: (name, cpu, priority)."""
    queues = cqs or BASE_CQS
    wls = []
    for n, q, c, p in admitted:
        w = wl("default/" + n, q, {"cpu": c}, prio=p, adm=(q, "default"))
        wls.append(w)
    n, c, p = incoming
    wls.append(wl("default/" + n, target, {"cpu": c}, prio=p))
    fs = {"enable": True}
    if strategies: fs["preemption_strategies"] = strategies
    CASES.append(dict(title=title, workloads=wls, admitted={}, preempted=["default/" + v for v in preempted],
                      pending=["default/" + n], cqs=queues, lqs=[lq("default", q["name"], q["name"]) for q in queues],
                      cohorts=list(cohorts), cycles=1, fair_sharing=fs))


def units(prefix_counts, prio=0):
    out = []
    for q, k in prefix_counts:
        out += [(q + str(i), q, "1", prio) for i in range(1, k + 1)]
    return out


case("reclaim nominal from user using the most", units([("a", 3), ("b", 5), ("c", 1)]), "c", ("c_incoming", "1", 0), ["b1"])
case("can reclaim from queue using less, if taking the latest workload from user using the most isn't enough",
     [("a1", "a", "3", 0), ("a2", "a", "1", 0), ("b1", "b", "2", 0), ("b2", "b", "3", 0)], "c", ("c_incoming", "3", 0), ["a1"])
case("reclaim borrowable quota from user using the most", units([("a", 3), ("b", 5), ("c", 1)]), "a", ("a_incoming", "1", 0), ["b1"])
case("preempt one from each CQ borrowing",
     [("a1", "a", "0.5", 0), ("a2", "a", "0.5", 0), ("a3", "a", "3", 0), ("b1", "b", "0.5", 0), ("b2", "b", "0.5", 0), ("b3", "b", "3", 0)],
     "c", ("c_incoming", "2", 0), ["a1", "b1"])
case("can't preempt when everyone under nominal", units([("a", 3), ("b", 3), ("c", 3)]), "c", ("c_incoming", "1", 0))
case("can't preempt when it would switch the imbalance", units([("a", 3), ("b", 5)]), "a", ("a_incoming", "2", 0))
case("can preempt lower priority workloads from same CQ",
     [("a1_low", "a", "1", -1), ("a2_low", "a", "1", -1), ("a3", "a", "1", 0), ("a4", "a", "1", 0)] + units([("b", 5)]),
     "a", ("a_incoming", "2", 0), ["a1_low", "a2_low"])
case("can preempt a combination of same CQ and highest user",
     [("a_low", "a", "1", -1), ("a2", "a", "1", 0), ("a3", "a", "1", 0)] + units([("b", 6)]),
     "a", ("a_incoming", "2", 0), ["a_low", "b1"])
case("preempt huge workload if there is no other option, as long as the target CQ gets a lower share",
     [("b1", "b", "9", 0)], "a", ("a_incoming", "2", 0), ["b1"])
case("can't preempt huge workload if the incoming is also huge", [("a1", "a", "2", 0), ("b1", "b", "7", 0)], "a", ("a_incoming", "5", 0))
case("can't preempt 2 smaller workloads if the incoming is huge",
     [("b1", "b", "2", 0), ("b2", "b", "2", 0), ("b3", "b", "3", 0)], "a", ("a_incoming", "6", 0))
case("preempt from target and others even if over nominal",
     [("a1_low", "a", "2", -1), ("a2_low", "a", "1", -1), ("b1", "b", "3", 0), ("b2", "b", "3", 0)],
     "a", ("a_incoming", "4", 0), ["a1_low", "b1"])
case("prefer to preempt workloads that don't make the target CQ have the biggest share",
     [("b1", "b", "2", 0), ("b2", "b", "1", 0), ("b3", "b", "2", 0), ("c1", "c", "1", 0)], "a", ("a_incoming", "3.5", 0), ["b2"])
case("preempt from different cluster queues if the end result has a smaller max share",
     [("b1", "b", "2", 0), ("b2", "b", "2.5", 0), ("c1", "c", "2", 0), ("c2", "c", "2.5", 0)], "a", ("a_incoming", "3.5", 0), ["b1", "c1"])
case("scenario above does not flap", [("a1", "a", "3.5", 0), ("b2", "b", "2.5", 0), ("c2", "c", "2.5", 0)], "b", ("b_incoming", "2", 0))
case("cannot preempt if it would make the candidate CQ go under nominal after preempting one element",
     [("b1", "b", "3", 0), ("b2", "b", "3", 0), ("c1", "c", "3", 0)], "a", ("a_incoming", "4", 0))
case("workloads under priority threshold not capriciously preempted",
     units([("a", 3), ("b", 3)]) + units([("preemptible", 3)], prio=-3), "a", ("a_incoming", "2", 0))
case("preempt lower priority first, even if big", [("a1", "a", "3", 0), ("b_low", "b", "5", 0), ("b_high", "b", "1", 1)],
     "a", ("a_incoming", "1", 0), ["b_low"], strategies=["LessThanInitialShare"])
case("preempt workload that doesn't transfer the imbalance, even if high priority",
     [("a1", "a", "3", 0), ("b_low", "b", "5", 0), ("b_high", "b", "1", 1)],
     "a", ("a_incoming", "1", 0), ["b_high"], strategies=["LessThanOrEqualToFinalShare"])
SIMPLE = dict(within="LowerPriority", reclaim="Any")
case("CQ with higher weight can preempt more", units([("a", 3), ("b", 6)]), "a", ("a_incoming", "2", 0), ["b1", "b2"],
     cqs=[cpu_cq("a", "3", weight="2", **SIMPLE), cpu_cq("b", "3", **SIMPLE), cpu_cq("c", "3", **SIMPLE)])
case("can preempt anything borrowing from CQ with 0 weight", units([("a", 3), ("b", 6)]), "a", ("a_incoming", "3", 0), ["b1", "b2", "b3"],
     cqs=[cpu_cq("a", "3", **SIMPLE), cpu_cq("b", "3", weight="0", **SIMPLE), cpu_cq("c", "3", **SIMPLE)])
case("can't preempt nominal from CQ with 0 weight", units([("a", 3), ("b", 3)]), "a", ("a_incoming", "1", 0),
     cqs=[cpu_cq("a", "3", **SIMPLE), cpu_cq("b", "3", weight="0", **SIMPLE)])
right = cohort("right-cohort", "root", rg(fq("default", rq("cpu", "1"))))
right["fair_weight"] = "0"
case("can't preempt nominal from Cohort with 0 weight", [("right-1", "right-cq", "1", 0)], "left-cq", ("left-1", "1", 0),
     cqs=[cpu_cq("left-cq", "0", "root", reclaim="Any"), cpu_cq("right-cq", "0", "right-cohort", weight="0", reclaim="Any")], cohorts=[right])
case("can preempt within cluster queue when no cohort", [("a1", "a", "1", 0)], "a", ("a_incoming", "1", 1000), ["a1"],
     cqs=[cpu_cq("a", "1", None, within="LowerPriority")])
hier_cohorts = [cohort("ROOT", None, rg(fq("default", rq("cpu", "5")))), cohort("LEFT", "ROOT", rg(fq("default", rq("cpu", "5")))),
                cohort("RIGHT", "ROOT", rg(fq("default", rq("cpu", "5"))))]
hier_cohorts[1]["fair_weight"] = "2"
case("hierarchical preemption", [(q + str(i), q, "1", i) for q in "bcde" for i in range(1, 6)], "a", ("unit", "5", 0),
     ["b1", "b2", "c1", "c2", "e1"],
     cqs=[cpu_cq("a", "1", "LEFT", weight="2", reclaim="Any"), cpu_cq("b", "1", "LEFT"), cpu_cq("c", "1", "ROOT"),
          cpu_cq("d", "1", "RIGHT"), cpu_cq("e", "1", "RIGHT", weight="0.99")], cohorts=hier_cohorts)

# pkg/scheduler/scheduler_fs_test.go (TestScheduleForFairSharing), on TestSchedule's base queues.
import gen_scheduler_scenarios as sched
SCHED_CASES = []


def sched_case(title, workloads, admitted, pending=(), preempted=(), cqs=(), lqs=(), cohorts=()):
    SCHED_CASES.append(dict(title=title, workloads=workloads, admitted=admitted, preempted=list(preempted), pending=list(pending),
                            cqs=list(cqs), lqs=list(lqs), cohorts=list(cohorts), cycles=1, fair_sharing={"enable": True}))


sched_case("with fair sharing: schedule workload with lowest share first",
           [sched.wl("eng-alpha/all_nominal", "main", pod_sets=[sched.ps("one", 50, {"cpu": "1"})], adm=("eng-alpha", "on-demand")),
            sched.wl("eng-beta/borrowing", "main", pod_sets=[sched.ps("one", 55, {"cpu": "1"})], adm=("eng-beta", "on-demand")),
            sched.wl("eng-beta/older_new", "main", pod_sets=[sched.ps("one", 1, {"cpu": "1"})], seq=1),
            sched.wl("eng-alpha/new", "main", pod_sets=[sched.ps("one", 5, {"cpu": "1"})], seq=2)],
           {"eng-alpha/new": ("eng-alpha", {"one": {"cpu": "on-demand"}})}, pending=["eng-beta/older_new"],
           cqs=[cq("eng-shared", rg(fq("on-demand", rq("cpu", "10", "0"))), cohort="eng")])

S = sched
OD, SP = "on-demand", "spot"


def one(key, q, cpu, prio=0, seq=None, adm=None, res="cpu", count=1):
    return S.wl(key, q, pod_sets=[S.ps("one", count, {res: cpu})], prio=prio, seq=seq, adm=adm)


def ocq(name, cohort_name, *flavors, **kw):
    """flavors: (flavor, nominal[, borrowing_limit]) for cpu, one resource group."""
    return cq(name, rg(*[fq(f[0], rq("cpu", *f[1:])) for f in flavors]), cohort=cohort_name, **kw)


def first(flv, _unused=None):
    return {"one": {"cpu": flv}}


sched_case("with fair sharing: nominal-first ordering admits workload fitting within nominal despite higher CQ DRS",
           [one("eng-alpha/spot-heavy", "fs-nom", "1", count=80, adm=("fs-nom-a", SP)),
            one("eng-beta/light-usage", "fs-nom", "1", count=5, adm=("fs-nom-b", OD)),
            one("eng-beta/borrow-wl", "fs-nom", "1", count=15), one("eng-alpha/nom-wl", "fs-nom", "1", count=45)],
           {"eng-alpha/nom-wl": ("fs-nom-a", first(OD, 0))}, pending=["eng-beta/borrow-wl"],
           # Kueue's test gives each flavor its own resource group over cpu (no webhook there); one group with both
           # flavors decides the same here, since the assignment is fixed at nomination.
           cqs=[cq("fs-nom-a", rg(fq(OD, rq("cpu", "50", "0")), fq(SP, rq("cpu", "50", "50"))), cohort="fs-nom"),
                cq("fs-nom-b", rg(fq(OD, rq("cpu", "10", "50")), fq(SP, rq("cpu", "50", "0"))), cohort="fs-nom")],
           lqs=[lq("eng-alpha", "fs-nom", "fs-nom-a"), lq("eng-beta", "fs-nom", "fs-nom-b")])
LQ_ABC = lambda *names: [lq("eng-alpha", "lq-" + n, n) for n in names]
sched_case("with fair sharing: hierarchical nominal-first prefers non-borrowing subtree",
           [one("eng-alpha/c0", "lq-cq-c", "10", adm=("cq-c", OD)), one("eng-alpha/wl-a", "lq-cq-a", "5"),
            one("eng-alpha/wl-b", "lq-cq-b", "5")],
           {"eng-alpha/wl-a": ("cq-a", first(OD, 0))}, pending=["eng-alpha/wl-b"],
           cohorts=[cohort("root"), cohort("Cohort-A", "root", rg(fq(OD, rq("cpu", "10")))), cohort("Cohort-B", "root")],
           cqs=[ocq("cq-a", "Cohort-A", (OD, "0")), ocq("cq-b", "Cohort-B", (OD, "5")), ocq("cq-c", "Cohort-B", (OD, "0"))],
           lqs=LQ_ABC("cq-a", "cq-b", "cq-c"))
sched_case("with fair sharing: hierarchical nominal-first with deeper nesting",
           [one("eng-alpha/c0", "lq-cq-c", "10", adm=("cq-c", OD)), one("eng-alpha/wl-a", "lq-cq-a", "5"),
            one("eng-alpha/wl-b", "lq-cq-b", "5")],
           {"eng-alpha/wl-a": ("cq-a", first(OD, 0))}, pending=["eng-alpha/wl-b"],
           cohorts=[cohort("root"), cohort("Cohort-A", "root"), cohort("SUB-A", "Cohort-A", rg(fq(OD, rq("cpu", "10")))),
                    cohort("Cohort-B", "root")],
           cqs=[ocq("cq-a", "SUB-A", (OD, "0")), ocq("cq-b", "Cohort-B", (OD, "5")), ocq("cq-c", "Cohort-B", (OD, "0"))],
           lqs=LQ_ABC("cq-a", "cq-b", "cq-c"))
sched_case("with fair sharing: hierarchical nominal-first with mixed CQ and cohort quotas",
           [one("eng-alpha/a2-admitted", "lq-cq-a2", "6", adm=("cq-a2", OD)), one("eng-alpha/c-admitted", "lq-cq-c", "20", adm=("cq-c", OD)),
            one("eng-alpha/wl-a1", "lq-cq-a1", "7"), one("eng-alpha/wl-b", "lq-cq-b", "4")],
           {"eng-alpha/wl-a1": ("cq-a1", first(OD, 0))}, pending=["eng-alpha/wl-b"],
           cohorts=[cohort("root"), cohort("Cohort-A", "root", rg(fq(OD, rq("cpu", "10")))),
                    cohort("Cohort-B", "root", rg(fq(OD, rq("cpu", "10"))))],
           cqs=[ocq("cq-a1", "Cohort-A", (OD, "5")), ocq("cq-a2", "Cohort-A", (OD, "3")), ocq("cq-b", "Cohort-B", (OD, "5")),
                ocq("cq-c", "Cohort-B", (OD, "3"))],
           lqs=LQ_ABC("cq-a1", "cq-a2", "cq-b", "cq-c"))
sched_case("with fair sharing: hierarchical nominal-first per-flavor ignores cross-flavor borrowing",
           [one("eng-alpha/spot-admitted", "lq-cq-a", "5", adm=("cq-a", SP)), one("eng-alpha/od-admitted", "lq-cq-b", "8", adm=("cq-b", OD)),
            one("eng-alpha/wl-a", "lq-cq-a", "4"), one("eng-alpha/wl-b", "lq-cq-b", "4")],
           {"eng-alpha/wl-a": ("cq-a", first(OD, 0))}, pending=["eng-alpha/wl-b"],
           cohorts=[cohort("root"), cohort("Cohort-A", "root", rg(fq(OD, rq("cpu", "10")))),
                    cohort("Cohort-B", "root", rg(fq(SP, rq("cpu", "10"))))],
           cqs=[ocq("cq-a", "Cohort-A", (OD, "0"), (SP, "0")), ocq("cq-b", "Cohort-B", (OD, "5"), (SP, "0"))],
           lqs=LQ_ABC("cq-a", "cq-b"))
sched_case("hierarchical fair sharing schedule workload which wins tournament",
           [one("eng-alpha/d0", "lq-d", "10", adm=("d", OD)), one("eng-alpha/e0", "lq-e", "20", adm=("e", OD)),
            one("eng-alpha/g0", "lq-g", "100", adm=("g", OD)), one("eng-alpha/d1", "lq-d", "70"), one("eng-alpha/e1", "lq-e", "61"),
            one("eng-alpha/f1", "lq-f", "1"), one("eng-alpha/g1", "lq-g", "1")],
           {"eng-alpha/d1": ("d", first(OD, 0))}, pending=["eng-alpha/e1", "eng-alpha/f1", "eng-alpha/g1"],
           cohorts=[cohort("A", None, rg(fq(OD, rq("cpu", "200")))), cohort("B", "A"), cohort("C", "A")],
           cqs=[ocq(n, p, (OD, "0")) for n, p in [("d", "B"), ("e", "B"), ("f", "C"), ("g", "C")]], lqs=LQ_ABC("d", "e", "f", "g"))
sched_case("fair sharing schedule workload with lowest drf after admission",
           [one("eng-alpha/b0", "lq-b", "10", adm=("b", OD)), one("eng-alpha/b1", "lq-b", "50"), one("eng-alpha/c1", "lq-c", "75")],
           {"eng-alpha/b1": ("b", first(OD, 0))}, pending=["eng-alpha/c1"],
           cohorts=[cohort("A", None, rg(fq(OD, rq("cpu", "100"))))],
           cqs=[ocq("b", "A", (OD, "0")), ocq("c", "A", (OD, "0"))], lqs=LQ_ABC("b", "c"))
for title, weight in [("fair sharing two queues with weight 0 schedules workload which borrows less", "0"),
                      ("fair sharing two queues with high weight schedules workload which borrows less", "123456789")]:
    qs = [ocq("b", "A", (OD, "0"), reclaim="Any"), ocq("c", "A", (OD, "0"), reclaim="Any")]
    for q in qs: q["fair_weight"] = weight
    sched_case(title, [one("eng-alpha/b0", "lq-b", "4", adm=("b", OD)), one("eng-alpha/b1", "lq-b", "4", prio=9001),
                       one("eng-alpha/c1", "lq-c", "4")],
               {"eng-alpha/c1": ("c", first(OD, 0))}, pending=["eng-alpha/b1"],
               cohorts=[cohort("A", None, rg(fq(OD, rq("cpu", "8"))))], cqs=qs, lqs=LQ_ABC("b", "c"))
sched_case("fair sharing schedule singleton cqs and cq without cohort",
           [one("eng-alpha/a1", "lq-a", "10"), one("eng-alpha/b1", "lq-b", "10"), one("eng-alpha/c1", "lq-c", "10")],
           {"eng-alpha/a1": ("a", first(OD, 0)), "eng-alpha/b1": ("b", first(OD, 0)), "eng-alpha/c1": ("c", first(OD, 0))},
           cohorts=[cohort("A", None, rg(fq(OD, rq("cpu", "10")))), cohort("B")],
           cqs=[ocq("a", "A", (OD, "0")), ocq("b", "B", (OD, "10")), ocq("c", None, (OD, "10"))], lqs=LQ_ABC("a", "b", "c"))
AB = dict(cohorts=[cohort("A", None, rg(fq(OD, rq("cpu", "10")))), cohort("B")],
          cqs=[ocq("b", "A", (OD, "0")), ocq("c", "A", (OD, "0"))], lqs=LQ_ABC("b", "c"))
sched_case("fair sharing schedule highest priority first",
           [one("eng-alpha/b1", "lq-b", "10", prio=99), one("eng-alpha/c1", "lq-c", "10", prio=101)],
           {"eng-alpha/c1": ("c", first(OD, 0))}, pending=["eng-alpha/b1"], **AB)
sched_case("fair sharing schedule earliest timestamp first",
           [one("eng-alpha/b1", "lq-b", "10", prio=101, seq=2), one("eng-alpha/c1", "lq-c", "10", prio=101, seq=1)],
           {"eng-alpha/c1": ("c", first(OD, 0))}, pending=["eng-alpha/b1"], **AB)
sched_case("with fair sharing: preempt workload from CQ with the highest share",
           [S.wl("eng-alpha/all_spot", None, {"cpu": "100"}, adm=("eng-alpha", SP))]
           + [S.wl("eng-alpha/alpha%d" % i, None, {"cpu": "20"}, adm=("eng-alpha", OD)) for i in range(1, 5)]
           + [S.wl("eng-gamma/gamma%d" % i, None, {"cpu": c}, adm=("eng-gamma", OD)) for i, c in [(1, "10"), (2, "20"), (3, "20"), (4, "20")]]
           + [S.wl("eng-beta/preemptor", "main", {"cpu": "30"})],
           {}, pending=["eng-beta/preemptor"], preempted=["eng-alpha/alpha1", "eng-gamma/gamma1"],
           cqs=[cq("eng-gamma", rg(fq(OD, rq("cpu", "50", "0"))), cohort="eng")])
# Left out: "multiple preemptions within cq when fair sharing" (its queues set only withinClusterQueue; Kueue's unit
# test skips API defaulting, so reclaimWithinCohort stays "" and counts as not Never, enabling preemption while
# borrowing; with the API default, Never, the preemptors cannot fit) and "multiple preemptions skip overlapping
# preemption targets" (needs the RecomputeAssignmentUponPreemptionTargetsOverlap gate off).
sched_case("not enough resources with fair sharing enabled",
           [S.wl("sales/new", "main", pod_sets=[S.ps("one", 1, {"cpu": "100"})])], {}, pending=["sales/new"])
sched_case("with fair sharing: prefer reclamation over cq priority based preemption; with preemption while borrowing",
           [S.wl("eng-alpha/a1", "other", {"gpu": "5"}, prio=50, adm=("other-alpha", OD)),
            S.wl("eng-beta/b1", "other", {"gpu": "5"}, prio=50, adm=("other-beta", SP)),
            S.wl("eng-alpha/preemptor", "other", {"gpu": "8"}, prio=100)],
           {}, pending=["eng-alpha/preemptor"], preempted=["eng-beta/b1"],
           cqs=[cq("other-alpha", rg(fq(OD, rq("gpu", "7")), fq(SP, rq("gpu", "7"))), cohort="other", within="LowerPriority",
                   reclaim="LowerPriority"),
                cq("other-beta", rg(fq(OD, rq("gpu", "3")), fq(SP, rq("gpu", "3"))), cohort="other")],
           lqs=[lq("eng-alpha", "other", "other-alpha"), lq("eng-beta", "other", "other-beta")])
for title, fs_on in [("prefer flavor with most local capacity", True), ("prefer flavor with most local capacity (FS=false)", False)]:
    sched_case(title, [S.wl("default/a1", "queue1", {"gpu": "8"}, adm=("queue1", OD)), S.wl("default/a2", "queue1", {"gpu": "3"}, adm=("queue1", SP)),
                       S.wl("default/a3", "queue1", {"gpu": "1"})],
               {"default/a3": ("queue1", {"main": {"gpu": SP}})},
               cohorts=[cohort("root-cohort", None, rg(fq(OD, rq("gpu", "2")), fq(SP, rq("gpu", "0")))),
                        cohort("child-cohort", "root-cohort", rg(fq(OD, rq("gpu", "5")), fq(SP, rq("gpu", "7"))))],
               cqs=[cq("queue1", rg(fq(OD, rq("gpu", "3")), fq(SP, rq("gpu", "3"))), cohort="child-cohort", within="LowerPriority",
                       reclaim="Any", wcb="TryNextFlavor", wcp="TryNextFlavor")],
               lqs=[lq("default", "queue1", "queue1")])
    if not fs_on: SCHED_CASES[-1]["fair_sharing"] = None
sched_case("fair sharing: in-CQ preemption for CQ without cohort; repro for nil pointer panic",
           [S.wl("default/nc-low", "no-cohort-queue", {"cpu": "4"}, prio=-1, adm=("no-cohort-cq", "default")),
            S.wl("default/nc-high", "no-cohort-queue", {"cpu": "4"}, prio=100)],
           {}, pending=["default/nc-high"], preempted=["default/nc-low"],
           cqs=[cq("no-cohort-cq", rg(fq("default", rq("cpu", "4"))), within="LowerPriority")],
           lqs=[lq("default", "no-cohort-queue", "no-cohort-cq")])
pob = cq("fs-pob-cq", rg(fq(OD, rq("cpu", "5", "0")), fq(SP, rq("cpu", "0", "5"))), cohort="fs-pob-cohort", within="LowerPriority",
         wcb="TryNextFlavor", wcp="TryNextFlavor", pref="PreemptionOverBorrowing")
pob["fair_weight"] = "1"
lender = cq("fs-pob-lender", rg(fq(OD, rq("cpu", "0")), fq(SP, rq("cpu", "5"))), cohort="fs-pob-cohort")
lender["fair_weight"] = "1"
sched_case("PreemptionOverBorrowing with fair sharing: preempt in first flavor instead of borrowing in second",
           [S.wl("default/fs-low-pob", "fs-pob-queue", {"cpu": "5"}, prio=-1, adm=("fs-pob-cq", OD)),
            S.wl("default/fs-high-pob", "fs-pob-queue", {"cpu": "5"})],
           {}, pending=["default/fs-high-pob"], preempted=["default/fs-low-pob"], cqs=[pob, lender],
           lqs=[lq("default", "fs-pob-queue", "fs-pob-cq")])


if __name__ == "__main__":
    emit("fair", CASES, FLAVORS, [], [])
    emit("fairsched", SCHED_CASES, sched.FLAVORS, sched.BASE_CQS, sched.BASE_LQS)
    print(len(CASES) + len(SCHED_CASES), "fair sharing scenarios")

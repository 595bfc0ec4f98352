"""Scenarios: plain Kubernetes YAML with timing annotations (see docs/SIMULATOR.md).

Annotations (all optional):

* ``kubepreempt.io/arrival`` (Pod, Node): when the object appears; default 0. A Pod with
  ``spec.nodeName`` and *no* arrival annotation is running at time 0; one *with* it
  arrives straight at its node and goes through kubelet admission then.
* ``kubepreempt.io/duration`` (Pod): run time once bound; default forever.
* ``kubepreempt.io/exit-after-signal`` (Pod): seconds a preempted/evicted pod takes to
  exit after SIGTERM; capped at ``terminationGracePeriodSeconds`` (default: the full period).
* ``kubepreempt.io/ungate-after`` (Pod with ``spec.schedulingGates``): seconds after its
  arrival at which its gates are removed; until then it never enters activeQ.
* ``kubepreempt.io/removal`` (Node): when the node leaves; its pods are deleted then.
* ``kubepreempt.io/replicas`` (Pod): the pod is a template for N pods named ``NAME-0``...;
  they arrive every ``kubepreempt.io/interval`` (default 0: together) or as a Poisson
  process with ``kubepreempt.io/rate`` (``2/m``, ``30/h``, ``0.5/s`` or plain per second;
  seeded by ``--seed``), starting at the arrival time.
* ``kubepreempt.io/memory-usage``, ``kubepreempt.io/ephemeral-storage-usage`` (Pod): what
  the pod uses once running (quantities such as ``1Gi``), for node-pressure eviction
  (``--node-pressure``); default: the pod's request.
* ``kubepreempt.io/arrival`` on a ``scheduling.k8s.io`` PodGroup: when it is created
  (default 0); PodGroups and Workloads are kept apart (:attr:`Scenario.group_objects`)
  and played by :mod:`kubepreempt.sim.pod_groups` when the workload API is on.
* ``kubepreempt.io/arrival`` on a Deployment, ReplicaSet, StatefulSet, Job or DaemonSet:
  when the object is created; its controller then runs in the simulation
  (:mod:`kubepreempt.sim.controllers`). Its pod template's annotations (``duration``,
  ``exit-after-signal``, ``*-usage``) time each pod it creates.

Times are ``90s``, ``15m``, ``2h``, ``1h30m``, ``500ms`` or plain seconds.

A scenario may expand to at most ``max_pods`` pods (default :data:`DEFAULT_MAX_PODS`,
``simulate --max-pods``): a mistyped replica count is a clear error, not an exhausted
machine.
"""

from __future__ import annotations

import difflib
import math
import random
import re
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, TextIO

from kubepreempt.api.errors import InputError
from kubepreempt.api.objects import Node, Pod, parse_node, parse_pod
from kubepreempt.api.podgroup import is_scheduling_object
from kubepreempt.api.quantity import parse_quantity
from kubepreempt.cluster import Cluster, build_cluster
from kubepreempt.manifests import Documents, RawObject, load_documents, reading

PREFIX = "kubepreempt.io/"
ARRIVAL = PREFIX + "arrival"
DURATION = PREFIX + "duration"
EXIT_AFTER = PREFIX + "exit-after-signal"
REMOVAL = PREFIX + "removal"
UNGATE_AFTER = PREFIX + "ungate-after"
REPLICAS = PREFIX + "replicas"
INTERVAL = PREFIX + "interval"
RATE = PREFIX + "rate"
USAGE = {"memory": PREFIX + "memory-usage",
         "ephemeral-storage": PREFIX + "ephemeral-storage-usage"}
SIM_KINDS = ("PodMetrics",)
# ~2 KB per pod while simulating: a million pods is about 2 GB.
DEFAULT_MAX_PODS = 1_000_000
KUEUE_KINDS = ("ResourceFlavor", "ClusterQueue", "Cohort", "LocalQueue",
               "WorkloadPriorityClass", "Workload", "Configuration")
QUEUE_NAME_LABEL = "kueue.x-k8s.io/queue-name"
CONTROLLER_KINDS = ("Deployment", "ReplicaSet", "StatefulSet", "Job", "DaemonSet")
#: Every annotation the simulator reads; another ``kubepreempt.io/`` one is a warning (a
#: typo like ``kubepreempt.io/arival`` would otherwise silently do nothing).
KNOWN_ANNOTATIONS = frozenset({ARRIVAL, DURATION, EXIT_AFTER, REMOVAL, REPLICAS, INTERVAL,
                               RATE, UNGATE_AFTER, *USAGE.values(),
                               # sim/autoscaler.py's node groups
                               *(PREFIX + n for n in ("node-group", "node-group-min",
                                                      "node-group-max",
                                                      "node-group-priority"))})

_UNIT = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}
_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")
_PLAIN = re.compile(r"\d+(?:\.\d+)?")
_RATE = re.compile(r"(\d+(?:\.\d+)?)(?:/(s|m|h))?")


def parse_duration(value: object) -> float:
    """``90s``, ``15m``, ``2h``, ``1h30m``, ``500ms`` or plain seconds -> seconds.

    Raises ``ValueError`` with a short reason for anything else (negative, empty, units
    like ``d``).
    """
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is not a duration")
    if isinstance(value, int | float):
        if not 0 <= value < 1e300:  # also refuses NaN, infinity and integers beyond floats
            raise ValueError(f"{str(value)[:40]} is not a non-negative number of seconds")
        return float(value)
    text = str(value).strip()
    if _PLAIN.fullmatch(text):
        seconds = float(text)
        if not math.isfinite(seconds):
            raise ValueError(f"{text[:40]!r} is too large a number of seconds")
        return seconds
    pos, total = 0, 0.0
    for m in _PART.finditer(text):
        if m.start() != pos:
            break
        total += float(m.group(1)) * _UNIT[m.group(2)]
        pos = m.end()
    if pos == 0 or pos != len(text):
        raise ValueError(f"{text!r} is not a duration (use e.g. 90s, 15m, 2h or plain "
                         "seconds)")
    if not math.isfinite(total):
        raise ValueError(f"{text[:40]!r} is too large a duration")
    return total


def parse_rate(value: object) -> float:
    """``2/m``, ``30/h``, ``0.5/s`` or plain per-second -> events per second (> 0)."""
    text = str(value).strip()
    m = _RATE.fullmatch(text)
    if m is None or not 0 < float(m.group(1)) < math.inf:
        raise ValueError(f"{text[:40]!r} is not a positive rate (use e.g. 0.5/s, 2/m, 30/h)")
    rate = float(m.group(1)) / _UNIT[m.group(2) or "s"]
    if not 1e-12 <= rate <= 1e12:  # gaps of 1/rate seconds must stay finite and nonzero
        raise ValueError(f"{text[:40]!r} is outside 1e-12..1e12 per second")
    return rate


@dataclass(slots=True)
class PodPlan:
    """One pod of the scenario and its timing."""

    pod: Pod
    arrival: float
    duration: float | None  # None: runs until deleted
    exit_after: float | None  # None: uses the whole grace period
    via_kubelet: bool = False  # arrives with spec.nodeName: kubelet admission
    template: str = ""  # pods of one template share scheduling answers
    usage: dict[str, int] = field(default_factory=dict)  # modelled usage (bytes)
    ungate_after: float | None = None  # seconds after arrival its gates are removed
    admitted: bool = False  # passed quota admission already (a controller created it)


@dataclass(slots=True)
class NodePlan:
    """A node that arrives after time 0 and/or leaves at some time."""

    node: Node
    arrival: float = 0.0
    removal: float | None = None


@dataclass(slots=True)
class WorkloadPlan:
    """A workload object of the scenario and when it arrives."""

    obj: RawObject
    arrival: float = 0.0


@dataclass(slots=True)
class Scenario:
    """The cluster at time 0 plus everything that happens later."""

    cluster: Cluster
    pods: list[PodPlan] = field(default_factory=list)
    nodes: list[NodePlan] = field(default_factory=list)
    initial: dict[str, PodPlan] = field(default_factory=dict)  # running at time 0
    kueue: Documents | None = None  # Kueue objects and queued Jobs (sim/kueue_actor.py)
    rng: random.Random | None = None  # the seeded source of Poisson arrivals
    workloads: list[WorkloadPlan] = field(default_factory=list)  # run by controllers
    # scheduling.k8s.io PodGroups and Workloads (Kubernetes 1.37's workload API)
    group_objects: Documents = field(default_factory=Documents)

    @property
    def horizon(self) -> float:
        """The last scheduled arrival or removal (for progress bars)."""
        times = [p.arrival for p in self.pods] + [n.arrival for n in self.nodes]
        times += [w.arrival for w in self.workloads]
        times += [n.removal for n in self.nodes if n.removal is not None]
        return max(times, default=0.0)


def _annotations(obj: RawObject) -> dict:
    meta = obj.body.get("metadata")
    ann = meta.get("annotations") if isinstance(meta, dict) else None
    return ann if isinstance(ann, dict) else {}


def _time(obj: RawObject, key: str, default: float | None) -> float | None:
    raw = _annotations(obj).get(key)
    if raw is None:
        return default
    try:
        return parse_duration(raw)
    except ValueError as exc:
        name = _pod_name(obj) if obj.kind == "Pod" else obj.name
        raise InputError(f"annotation {key}: {exc}", obj.source, obj.kind, name) from None


def arrival_of(obj: RawObject) -> float:
    """An object's ``kubepreempt.io/arrival`` in seconds (0 when absent)."""
    return _time(obj, ARRIVAL, 0.0) or 0.0


def _pod_name(obj: RawObject) -> str:
    return f"{obj.namespace or 'default'}/{obj.name}"


def _usage(obj: RawObject) -> dict[str, int]:
    """The ``*-usage`` annotations in bytes (rounded up, as quantities are)."""
    out: dict[str, int] = {}
    ann = _annotations(obj)
    for resource, key in USAGE.items():
        raw = ann.get(key)
        if raw is None:
            continue
        try:
            value = parse_quantity(str(raw).strip())
            if value < 0:
                raise ValueError(f"{raw!r} is negative")
        except ValueError as exc:
            raise InputError(f"annotation {key}: {exc}", obj.source, "Pod",
                             _pod_name(obj)) from None
        out[resource] = math.ceil(value)
    return out


def _replicas(obj: RawObject) -> int:
    raw = _annotations(obj).get(REPLICAS)
    if raw is None:
        return 1
    text = str(raw).strip()
    if not text.isascii() or not text.isdigit() or int(text) < 1:
        raise InputError(f"annotation {REPLICAS}: {text[:40]!r} is not a positive integer",
                         obj.source, "Pod", _pod_name(obj))
    return int(text)


def _arrivals(obj: RawObject, start: float, n: int, rng: random.Random) -> list[float]:
    ann = _annotations(obj)
    if RATE in ann:
        if INTERVAL in ann:
            raise InputError(f"set {INTERVAL} or {RATE}, not both", obj.source, "Pod",
                             _pod_name(obj))
        try:
            rate = parse_rate(ann[RATE])
        except ValueError as exc:
            raise InputError(f"annotation {RATE}: {exc}", obj.source, "Pod",
                             _pod_name(obj)) from None
        out, t = [], start
        for _ in range(n):
            t += rng.expovariate(rate)
            out.append(t)
        return out
    step = _time(obj, INTERVAL, 0.0) or 0.0
    return [start + i * step for i in range(n)]


def is_kueue_object(obj: RawObject) -> bool:
    """Kueue's own kinds, and Jobs and JobSets labelled ``kueue.x-k8s.io/queue-name``
    (Kueue's job integrations own them: the Kueue actor admits them and creates their
    pods)."""
    if obj.kind in KUEUE_KINDS:
        return True
    if obj.kind not in ("Job", "JobSet"):
        return False
    meta = obj.body.get("metadata")
    labels = meta.get("labels") if isinstance(meta, dict) else None
    return isinstance(labels, dict) and bool(labels.get(QUEUE_NAME_LABEL))


def load_scenario(paths: Iterable[str], seed: int | None = None,
                  max_pods: int = DEFAULT_MAX_PODS) -> Scenario:
    """Load scenario files into the time-0 cluster and the timed pods and nodes."""
    return build_scenario(load_documents(paths), seed, max_pods)


def warn_unknown_annotations(docs: Documents, stream: TextIO | None = None) -> None:
    """One warning line naming the ``kubepreempt.io/`` annotations nothing reads (on an
    object or on a workload's pod template)."""
    unknown: dict[str, str] = {}
    for objs in docs.by_kind.values():
        for obj in objs:
            for meta in _metadata_and_templates(obj.body):
                notes = meta.get("annotations")
                if not isinstance(notes, Mapping):
                    continue
                for key in notes:
                    if (isinstance(key, str) and key.startswith(PREFIX)
                            and key not in KNOWN_ANNOTATIONS):
                        unknown.setdefault(key, f"{obj.source}: {obj.kind} {obj.name}")
    for key, where in sorted(unknown.items()):
        hint = difflib.get_close_matches(key, sorted(KNOWN_ANNOTATIONS), n=1)
        print(f"warning: {where}: unknown annotation {key}, ignored"
              + (f" (did you mean {hint[0]}?)" if hint else ""), file=stream or sys.stderr)


def _metadata_and_templates(body: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    """An object's metadata, its pod template's, and a CronJob's Job template's and pod
    template's: where the simulator reads annotations."""

    def at(*path: str) -> Any:
        node: Any = body
        for key in path:
            node = node.get(key) if isinstance(node, Mapping) else None
        return node

    for node in (body, at("spec", "template"), at("spec", "jobTemplate"),
                 at("spec", "jobTemplate", "spec", "template")):
        meta = node.get("metadata") if isinstance(node, Mapping) else None
        if isinstance(meta, Mapping):
            yield meta


def build_scenario(docs: Documents, seed: int | None = None,
                   max_pods: int = DEFAULT_MAX_PODS) -> Scenario:
    """:func:`load_scenario` on already loaded documents."""
    rng = random.Random(seed)
    warn_unknown_annotations(docs)
    base = Documents()
    later_pods: list[tuple[RawObject, float | None]] = []
    node_plans: list[tuple[RawObject, float, float | None]] = []
    kueue = Documents()
    workloads: list[WorkloadPlan] = []
    groups = Documents()
    for kind, objs in docs.by_kind.items():
        for obj in objs:
            if is_scheduling_object(kind, obj.body):
                arrival_of(obj)  # validate early
                groups.add(obj)  # never Kueue's Workload, never in the time-0 cluster
                continue
            if is_kueue_object(obj):
                kueue.add(obj)
                continue
            if kind == "PriorityClass":
                kueue.add(obj)  # Workloads may name a PriorityClass too (and stay below)
            if kind == "Node":
                arrival = _time(obj, ARRIVAL, 0.0) or 0.0
                removal = _time(obj, REMOVAL, None)
                if arrival > 0 or removal is not None:
                    node_plans.append((obj, arrival, removal))
                if arrival > 0:
                    continue
            elif kind == "Pod":
                arrival = _time(obj, ARRIVAL, None)
                _time(obj, DURATION, None)  # validate early, before the cluster is built
                _time(obj, EXIT_AFTER, None)
                _time(obj, UNGATE_AFTER, None)
                _usage(obj)
                later_pods.append((obj, arrival))
                continue
            elif kind in CONTROLLER_KINDS:
                workloads.append(WorkloadPlan(obj, _time(obj, ARRIVAL, 0.0) or 0.0))
                continue
            base.add(obj)
    cluster = build_cluster(base, warn=True, extra_kinds=SIM_KINDS)
    scen = Scenario(cluster, workloads=sorted(workloads, key=lambda w: w.arrival), rng=rng,
                    group_objects=groups)
    if any(kind != "PriorityClass" for kind in kueue.by_kind):
        scen.kueue = kueue
    for obj, arrival, removal in node_plans:
        with reading(obj):
            scen.nodes.append(NodePlan(parse_node(obj.body, obj.source), arrival, removal))
    _add_pods(scen, later_pods, rng, max_pods)
    return scen


def _add_pods(scen: Scenario, objs: list[tuple[RawObject, float | None]],
              rng: random.Random, max_pods: int) -> None:
    total = 0
    for obj, _ in objs:  # count first: expanding a runaway template is the danger
        total += _replicas(obj)
        if total > max_pods:
            raise InputError(f"the scenario expands to more than {max_pods} pods here (raise "
                             "the limit with simulate --max-pods)", obj.source, "Pod",
                             _pod_name(obj))
    cluster = scen.cluster
    seen: set[str] = set()
    initial_starts: list[PodPlan] = []
    for obj, arrival in objs:
        with reading(obj):
            pod = parse_pod(cluster.runtime_classes.admit(obj.body, obj.source), obj.source,
                            cluster.priority.resolve)
        if pod.phase in ("Succeeded", "Failed"):
            continue
        duration = _time(obj, DURATION, None)
        exit_after = _time(obj, EXIT_AFTER, None)
        ungate_after = _time(obj, UNGATE_AFTER, None)
        if ungate_after is not None and not pod.scheduling_gates:
            raise InputError(f"{UNGATE_AFTER} is for pods with spec.schedulingGates",
                             obj.source, "Pod", pod.key)
        usage = _usage(obj)
        n = _replicas(obj)
        if pod.node_name and n > 1:
            raise InputError(f"{REPLICAS} is for pending pod templates, not pods with "
                             "spec.nodeName", obj.source, "Pod", pod.key)
        if pod.node_name and pod.node_name not in cluster.node_index and not any(
                p.node.name == pod.node_name for p in scen.nodes):
            raise InputError(f"bound to node {pod.node_name!r}, which is not in the input",
                             obj.source, "Pod", pod.key)
        if n == 1 and _annotations(obj).get(RATE) is None:
            pods, times = [pod], [arrival or 0.0]
        else:
            times = _arrivals(obj, arrival or 0.0, n, rng)
            pods = [replace(pod, name=f"{pod.name}-{i}") for i in range(n)]
        for p, t in zip(pods, times, strict=True):
            if p.key in seen:
                raise InputError("duplicate object", obj.source, "Pod", p.key)
            seen.add(p.key)
            plan = PodPlan(p, t, duration, exit_after, template=pod.key if n > 1 else "",
                           usage=usage, ungate_after=ungate_after)
            if p.node_name and arrival is None:
                scen.initial[p.key] = plan  # running at time 0
                initial_starts.append(plan)
            else:
                plan.via_kubelet = bool(p.node_name)
                scen.pods.append(plan)
    # Input start times are wall-clock; shift them so the latest is time 0 and keep order.
    known = [p.pod.start_time for p in initial_starts if p.pod.start_time is not None]
    epoch = max(known, default=0.0)
    for plan in initial_starts:
        st = plan.pod.start_time
        plan.pod.start_time = 0.0 if st is None else st - epoch
    scen.pods.sort(key=lambda p: p.arrival)  # stable: input order among equal times

"""Turn workload objects into the pods their controllers would create.

Each kind follows its upstream controller (kubernetes ``pkg/controller``):

* ReplicaSet: ``syncReplicaSet`` first claims the namespace's active pods its selector
  matches that have no controller (``claimPods`` adopts orphans) or already name it as
  their controller, then ``manageReplicas`` creates only the difference to
  ``spec.replicas``, each from ``controller.GetPodFromTemplate`` — template labels,
  annotations and finalizers, ``generateName`` ``<rs>-`` (``getPodsPrefix``), one
  controller ownerReference (``metav1.NewControllerRef``).
* Deployment (not paused): the new ReplicaSet ``<deployment>-<pod-template-hash>`` whose
  template and selector carry ``pod-template-hash`` (``deployment/sync.go
  getNewReplicaSet``), then its pods. The hash is taken from a ReplicaSet of the input
  owned by the Deployment with an equal template (``FindNewReplicaSet`` /
  ``EqualIgnoreHash``) when there is one.
* StatefulSet: ``<set>-<ordinal>`` from ``spec.ordinals.start``
  (``newStatefulSetPod``/``initIdentity``): labels ``statefulset.kubernetes.io/pod-name``,
  ``apps.kubernetes.io/pod-index``, ``controller-revision-hash`` = the revision name
  ``<set>-<hash>`` (``history.NewControllerRevision``), ``hostname``/``subdomain``;
  ``OrderedReady`` sets create one pod at a time.
* Job: ``min(parallelism, completions)`` pods (none when suspended); Indexed jobs take
  the lowest indices, with the ``batch.kubernetes.io/job-completion-index`` annotation and
  label, hostname
  ``<job>-<index>`` and ``generateName`` ``<job>-<index>-`` (``podGenerateNameWithIndex``);
  selector labels ``batch.kubernetes.io/controller-uid`` / ``job-name`` (and the legacy
  ``controller-uid`` / ``job-name``) as the API server's ``generateSelector`` adds; the
  ``batch.kubernetes.io/job-tracking`` finalizer.
* CronJob (not suspended): the Job ``<cronjob>-<scheduled time in minutes>``
  (``getJobName``) from ``spec.jobTemplate`` for the next schedule time after ``now`` in
  ``spec.timeZone`` (a new CronJob has missed none), then its pods.
* DaemonSet: one pod per node where ``NodeShouldRunDaemonPod`` holds (node name, required
  node affinity/selector, no untolerated NoSchedule/NoExecute taint after the daemon
  tolerations are added), pinned by ``ReplaceDaemonSetPodNodeNameNodeAffinity``;
  ``AddOrUpdateDaemonPodTolerations``; labels ``controller-revision-hash`` and
  ``pod-template-generation`` (``CreatePodTemplate``).

Hashes. StatefulSet revision names are exact: upstream hashes (FNV-1, 32 bit) the JSON
patch ``{"spec":{"template":{...,"$patch":"replace"}}}`` of the *defaulted* template, plus
the collision count; :func:`default_pod_template` applies the API server's pod defaults
that appear in that JSON for plain templates (upstream's own compatibility vector is
reproduced in the tests). ``pod-template-hash`` (Deployment) and the DaemonSet's
``controller-revision-hash`` come from upstream ``controller.ComputeHash``, which feeds
FNV-1a with Go's in-memory ``spew`` dump of the template struct; that dump cannot be
rebuilt from a manifest, so :func:`compute_hash` feeds the same FNV-1a / collision count /
``SafeEncodeString`` pipeline with the canonical JSON of the template instead: the value
has upstream's form, not upstream's digits. Put the Deployment's ReplicaSet in the input
for the real value.

Validation. The apiserver refuses a Deployment, ReplicaSet, StatefulSet or DaemonSet
with an empty selector or one that does not match its template's labels
(``ValidateDeploymentSpec`` / ``ValidateReplicaSetSpec`` / ``ValidateStatefulSetSpec`` /
``ValidateDaemonSetSpec`` with ``ValidatePodTemplateSpecForReplicaSet``);
:func:`validate_selector` words it as the apiserver does. A workload without a selector
(refused upstream) is read as selecting its template's labels.

Random parts. ``generateName`` suffixes (5 characters of ``rand.String``'s alphabet) and
UIDs are random upstream; here they derive from ``seed`` and the object (SHA-256 of
``seed/namespace/base/attempt``; UUID 5 of ``seed/kind/namespace/name``), so a run is
repeatable and another seed gives other names.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import orjson
from croniter import croniter

from kubepreempt.api.errors import InputError, Source
from kubepreempt.api.objects import (
    NO_EXECUTE,
    NO_SCHEDULE,
    PREEMPT_LOWER_PRIORITY,
    Node,
    Pod,
    parse_pod,
    tolerates_all,
)
from kubepreempt.api.selectors import LabelSelector, SelectorError
from kubepreempt.apimachinery.field import FieldError, invalid, invalid_message
from kubepreempt.scheduler.plugins.node_match import pod_matches_node_selector_and_affinity

WORKLOAD_KINDS = ("Deployment", "ReplicaSet", "StatefulSet", "Job", "CronJob", "DaemonSet")

# k8s.io/apimachinery/pkg/util/rand: the alphabet of rand.String and SafeEncodeString.
ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789"
# k8s.io/apiserver/pkg/storage/names: maxNameLength 63 - randomLength 5.
RANDOM_LENGTH = 5
MAX_GENERATED_NAME_LENGTH = 63 - RANDOM_LENGTH

POD_TEMPLATE_HASH = "pod-template-hash"  # apps.DefaultDeploymentUniqueLabelKey
REVISION_HASH = "controller-revision-hash"  # apps.ControllerRevisionHashLabelKey
STS_POD_NAME = "statefulset.kubernetes.io/pod-name"  # apps.StatefulSetPodNameLabel
POD_INDEX = "apps.kubernetes.io/pod-index"  # apps.PodIndexLabel
TEMPLATE_GENERATION = "pod-template-generation"  # extensions.DaemonSetTemplateGenerationKey
TEMPLATE_GENERATION_ANNOTATION = "deprecated.daemonset.template.generation"
COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index"
JOB_CONTROLLER_UID = "batch.kubernetes.io/controller-uid"
JOB_NAME = "batch.kubernetes.io/job-name"
LEGACY_CONTROLLER_UID = "controller-uid"
LEGACY_JOB_NAME = "job-name"
JOB_TRACKING_FINALIZER = "batch.kubernetes.io/job-tracking"
CRONJOB_SCHEDULED = "batch.kubernetes.io/cronjob-scheduled-timestamp"

# AddOrUpdateDaemonPodTolerations (pkg/controller/daemon/util/daemonset_util.go).
DAEMON_TOLERATIONS = (
    ("node.kubernetes.io/not-ready", NO_EXECUTE),
    ("node.kubernetes.io/unreachable", NO_EXECUTE),
    ("node.kubernetes.io/disk-pressure", NO_SCHEDULE),
    ("node.kubernetes.io/memory-pressure", NO_SCHEDULE),
    ("node.kubernetes.io/pid-pressure", NO_SCHEDULE),
    ("node.kubernetes.io/unschedulable", NO_SCHEDULE),
)
NETWORK_UNAVAILABLE = ("node.kubernetes.io/network-unavailable", NO_SCHEDULE)


# ---- hashing -----------------------------------------------------------------------------
def fnv32(data: bytes) -> int:
    """Go ``hash/fnv.New32`` (FNV-1): multiply, then xor."""
    h = 0x811C9DC5
    for b in data:
        h = (h * 0x01000193) & 0xFFFFFFFF
        h ^= b
    return h


def fnv32a(data: bytes) -> int:
    """Go ``hash/fnv.New32a`` (FNV-1a): xor, then multiply."""
    h = 0x811C9DC5
    for b in data:
        h ^= b
        h = (h * 0x01000193) & 0xFFFFFFFF
    return h


def safe_encode_string(s: str) -> str:
    """apimachinery ``rand.SafeEncodeString``: each rune mapped into ``ALPHANUMS``."""
    return "".join(ALPHANUMS[ord(c) % len(ALPHANUMS)] for c in s)


def go_json(obj: Any) -> bytes:
    """Go ``json.Marshal`` of decoded JSON: sorted keys, compact, ``<>&`` escaped."""
    text = json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    for ch, esc in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                    ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(ch, esc)
    return text.encode()


def compute_hash(template: Mapping[str, Any], collision_count: int | None) -> str:
    """``controller.ComputeHash``'s pipeline over the template's canonical JSON.

    FNV-1a of the template, then the collision count as 8 little-endian bytes (its uint32
    in the first four) when set, then ``SafeEncodeString`` of the decimal sum. Upstream
    hashes a ``spew`` dump of the Go struct instead of JSON (see the module docstring).
    """
    data = go_json(template)
    if collision_count is not None:
        data += (collision_count & 0xFFFFFFFF).to_bytes(4, "little") + bytes(4)
    h = fnv32a(data)
    return safe_encode_string(str(h))


def hash_controller_revision(raw: bytes, probe: int | None) -> str:
    """``history.HashControllerRevision``: FNV-1 of the data, then the probe's decimal."""
    data = raw if probe is None else raw + str(probe).encode()
    return safe_encode_string(str(fnv32(data)))


def controller_revision_name(prefix: str, hash_: str) -> str:
    """``history.ControllerRevisionName``: the prefix cut to 223 bytes, a dash, the hash."""
    return f"{prefix[:223]}-{hash_}"


# github.com/distribution/reference regexp.go: the reference grammar ``ParseImageName``
# (pkg/util/parsers) parses an image with (``ParseNormalizedNamed``).
_ALPHANUMERIC = r"[a-z0-9]+"
_PATH_COMPONENT = rf"{_ALPHANUMERIC}(?:(?:[._]|__|-+){_ALPHANUMERIC})*"
_DOMAIN_COMPONENT = r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
_DOMAIN = (rf"(?:{_DOMAIN_COMPONENT}(?:\.{_DOMAIN_COMPONENT})*|\[[a-fA-F0-9:]+\])"
           r"(?::[0-9]+)?")
_REFERENCE = re.compile(
    rf"((?:{_DOMAIN}/)?{_PATH_COMPONENT}(?:/{_PATH_COMPONENT})*)"
    r"(?::([\w][\w.-]{0,127}))?"
    r"(?:@([A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}))?",
    re.ASCII)
# go-digest: the algorithms a Go binary links (crypto/sha256, crypto/sha512) and the
# length of their lower-case hex encodings.
_DIGEST_HEX_LENGTH = {"sha256": 64, "sha384": 96, "sha512": 128}
_NAME_TOTAL_LENGTH_MAX = 255


def _docker_domain_split(name: str) -> tuple[str, str]:
    """``splitDockerDomain``: the first path segment is a registry when it has a dot, a
    colon or upper case, or is ``localhost``; otherwise the image is on docker.io."""
    first, slash, rest = name.partition("/")
    if not slash or (not any(c in first for c in ".:") and first != "localhost"
                     and first.lower() == first):
        domain, remainder = "docker.io", name
    else:
        domain, remainder = first, rest
    if domain == "index.docker.io":
        domain = "docker.io"
    if domain == "docker.io" and "/" not in remainder:
        remainder = "library/" + remainder
    return domain, remainder


def parse_image_tag(image: str) -> tuple[str, str] | None:
    """``ParseImageName``'s tag and digest (``None``: not a valid reference, an error
    upstream); the tag is ``latest`` when the reference has neither."""
    if re.fullmatch(r"[a-f0-9]{64}", image):  # anchoredIdentifierRegexp: an image ID
        return None
    domain, remainder = _docker_domain_split(image)
    remote = remainder.split(":", 1)[0]
    if remote.lower() != remote:  # "repository name must be lowercase"
        return None
    match = _REFERENCE.fullmatch(f"{domain}/{remainder}")
    if match is None or len(match[1]) > _NAME_TOTAL_LENGTH_MAX:
        return None
    tag, digest = match[2] or "", match[3] or ""
    if digest:  # digest.Parse: a linked algorithm and its exact lower-case hex encoding
        algorithm, encoded = digest.split(":", 1)
        length = _DIGEST_HEX_LENGTH.get(algorithm)
        if length is None or not re.fullmatch(f"[a-f0-9]{{{length}}}", encoded):
            return None
    if not tag and not digest:
        tag = "latest"
    return tag, digest


def _image_pull_policy(image: str) -> str:
    """``SetDefaults_Container``: Always when ``ParseImageName`` gives the tag ``latest``
    (written, or defaulted for a reference with neither tag nor digest), else
    IfNotPresent — also for an image that does not parse (the error is ignored there and
    the tag is empty; API validation does not check the image's format)."""
    parsed = parse_image_tag(image)
    return "Always" if parsed is not None and parsed[0] == "latest" else "IfNotPresent"


def _default_container(c: dict[str, Any]) -> None:
    c.setdefault("imagePullPolicy", _image_pull_policy(str(c.get("image") or "")))
    c.setdefault("resources", {})
    c.setdefault("terminationMessagePath", "/dev/termination-log")
    c.setdefault("terminationMessagePolicy", "File")
    for p in c.get("ports") or []:
        if isinstance(p, dict):
            p.setdefault("protocol", "TCP")


def default_pod_template(template: Mapping[str, Any]) -> dict[str, Any]:
    """The template as the API server stores it (``SetDefaults_PodSpec``, containers).

    Covers the defaults a plain template shows (restart/DNS policy, scheduler name,
    security context, grace period, container pull policy, termination message, resources,
    port protocol). Probes, volumes and the rest keep what the input says; a dump from
    ``kubectl get -o yaml`` is already defaulted.
    """
    out = copy.deepcopy(dict(template))
    out.pop("status", None)
    meta = out.get("metadata")
    if isinstance(meta, dict):
        meta.pop("creationTimestamp", None)  # omitted when zero since 1.34 (omitzero)
    spec = out.setdefault("spec", {})
    spec.setdefault("dnsPolicy", "ClusterFirst")
    spec.setdefault("restartPolicy", "Always")
    spec.setdefault("schedulerName", "default-scheduler")
    spec.setdefault("securityContext", {})
    spec.setdefault("terminationGracePeriodSeconds", 30)
    for key in ("containers", "initContainers"):
        for c in spec.get(key) or []:
            if isinstance(c, dict):
                _default_container(c)
    return out


def statefulset_revision(set_: Mapping[str, Any]) -> str:
    """The update revision name ``<set>-<hash>`` (``newRevision`` / ``getPatch``)."""
    spec = set_.get("spec") or {}
    patch = {"spec": {"template": {**default_pod_template(spec.get("template") or {}),
                                   "$patch": "replace"}}}
    status = set_.get("status") or {}
    # UpdateStatefulSet passes &collisionCount, 0 when status.collisionCount is unset.
    probe = int(status.get("collisionCount") or 0)
    name = str((set_.get("metadata") or {}).get("name") or "")
    return controller_revision_name(name, hash_controller_revision(go_json(patch), probe))


# ---- names and identities ------------------------------------------------------------------
@dataclass(slots=True)
class Names:
    """Deterministic stand-ins for upstream's random generated names and UIDs."""

    seed: int = 0
    taken: set[str] = field(default_factory=set)  # ns/name keys already used
    _draws: dict[tuple[str, str], int] = field(default_factory=dict)  # next draw per base

    def generate(self, namespace: str, base: str) -> str:
        """``SimpleNameGenerator.GenerateName``: base cut to 58 + 5 random characters.

        The API server rejects a generated name that exists; the controller retries, so
        a taken name is skipped here.
        """
        base = base[:MAX_GENERATED_NAME_LENGTH]
        attempt = self._draws.get((namespace, base), 0)
        while True:
            digest = hashlib.sha256(
                f"{self.seed}/{namespace}/{base}/{attempt}".encode()).digest()
            name = base + "".join(ALPHANUMS[b % len(ALPHANUMS)]
                                  for b in digest[:RANDOM_LENGTH])
            attempt += 1
            if self.claim(namespace, name):
                self._draws[(namespace, base)] = attempt
                return name

    def claim(self, namespace: str, name: str) -> bool:
        """Reserve ``namespace/name``; False when it is taken."""
        key = f"{namespace}/{name}"
        if key in self.taken:
            return False
        self.taken.add(key)
        return True

    def uid(self, kind: str, namespace: str, name: str) -> str:
        """A UUID for an object the controllers (or the API server) would create."""
        return str(uuid.uuid5(uuid.NAMESPACE_URL,
                              f"kubepreempt:{self.seed}/{kind}/{namespace}/{name}"))


def _meta(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    meta = obj.get("metadata")
    return meta if isinstance(meta, Mapping) else {}


def _controller_ref(api_version: str, kind: str, name: str, uid: str) -> dict[str, Any]:
    """``metav1.NewControllerRef``."""
    return {"apiVersion": api_version, "kind": kind, "name": name, "uid": uid,
            "controller": True, "blockOwnerDeletion": True}


def pods_prefix(controller_name: str) -> str:
    """``getPodsPrefix``: ``<name>-`` unless that is not a valid pod name prefix.

    ``ValidatePodName(prefix, true)`` checks ``maskTrailingDash(prefix)``, which replaces
    the last *two* characters by ``a``: a prefix of up to 254 characters passes the
    253-character DNS subdomain limit, so the dash stays for names of up to 253.
    """
    prefix = f"{controller_name}-"
    return prefix if len(prefix) - 1 <= 253 else controller_name


def pod_from_template(template: Mapping[str, Any], namespace: str,
                      owner: dict[str, Any] | None) -> dict[str, Any]:
    """``controller.GetPodFromTemplate``: labels, annotations, finalizers and spec copied,
    the controller reference set; the caller names the pod."""
    tmeta = _meta(template)
    meta: dict[str, Any] = {"namespace": namespace,
                            "labels": dict(tmeta.get("labels") or {}),
                            "annotations": dict(tmeta.get("annotations") or {})}
    if tmeta.get("finalizers"):
        meta["finalizers"] = list(tmeta["finalizers"])
    if owner is not None:
        meta["ownerReferences"] = [owner]
    spec = _copy_json(template.get("spec") or {})
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec,
            "status": {"phase": "Pending"}}


def _copy_json(obj: Any) -> dict[str, Any]:
    """A deep copy; an orjson round trip is ~10x faster than ``copy.deepcopy`` for the
    plain JSON a manifest is (YAML timestamps and the like take the slow path)."""
    try:
        return orjson.loads(orjson.dumps(obj))
    except TypeError:
        return copy.deepcopy(dict(obj))


def _int(raw: Any, default: int, what: str) -> int:
    if raw is None:
        return default
    if isinstance(raw, bool) or not isinstance(raw, int) or raw < 0:
        raise ValueError(f"{what} must be a non-negative integer, got {raw!r:.60}")
    if raw >= 1 << 31:  # an int32 field: the apiserver refuses larger numbers
        raise ValueError(f"{what} {raw} does not fit in a 32-bit integer")
    return raw


# Pods one workload may expand to: a mistyped replica count is an error, not hours of work
# and gigabytes of pods (the simulator's --max-pods default).
MAX_PODS = 1_000_000


def _pod_count(n: int, what: str) -> int:
    if n > MAX_PODS:
        raise ValueError(f"{what} {n} is more pods than kubepreempt expands ({MAX_PODS})")
    return n


# ---- the result ----------------------------------------------------------------------------
@dataclass(slots=True)
class Expansion:
    """The pods one workload object turns into, in creation order."""

    kind: str
    namespace: str
    name: str
    pods: list[dict[str, Any]]
    # Objects created on the way (a Deployment's ReplicaSet, a CronJob's Job): they select
    # the pods (system-default topology spreading reads ReplicaSets).
    created: list[dict[str, Any]] = field(default_factory=list)
    ordered_ready: bool = False  # StatefulSet OrderedReady: one pod at a time
    source: Source = field(default_factory=Source)
    # existing pods (``namespace/name``) the controller claimed instead of creating them
    adopted: list[str] = field(default_factory=list)

    @property
    def key(self) -> str:
        """``Kind/namespace/name``."""
        return f"{self.kind}/{self.namespace}/{self.name}"


def _name_pod(pod: dict[str, Any], names: Names, namespace: str, generate_name: str) -> None:
    pod["metadata"]["generateName"] = generate_name
    pod["metadata"]["name"] = names.generate(namespace, generate_name)
    pod["metadata"]["uid"] = names.uid("Pod", namespace, pod["metadata"]["name"])


# ---- per kind ------------------------------------------------------------------------------
def claim_pods(rs: Mapping[str, Any], pods: Iterable[Pod]) -> list[str]:
    """``claimPods`` of a ReplicaSet: keys of the namespace's active pods (not finished,
    not being deleted: ``FilterActivePods``) that match its selector and either have no
    controller (orphans it adopts) or already have it as their controller."""
    meta = _meta(rs)
    ns, name = str(meta.get("namespace") or "default"), str(meta["name"])
    try:
        selector = LabelSelector.parse((rs.get("spec") or {}).get("selector"))
    except SelectorError:
        return []
    if selector is None or selector.is_empty:  # nothing / refused by validation
        return []
    out = []
    for pod in pods:
        if (pod.namespace != ns or pod.phase in ("Succeeded", "Failed")
                or pod.deletion_timestamp is not None or not selector.matches(pod.labels)):
            continue
        controller = _controller_of(pod)
        if controller is None or controller == ("ReplicaSet", name):
            out.append(pod.key)
    return out


def _controller_of(pod: Pod) -> tuple[str, str] | None:
    """``(kind, name)`` of the pod's controller ownerReference, if any."""
    meta = pod.raw.get("metadata") if isinstance(pod.raw, Mapping) else None
    for ref in (meta or {}).get("ownerReferences") or []:
        if isinstance(ref, Mapping) and ref.get("controller"):
            return str(ref.get("kind") or ""), str(ref.get("name") or "")
    return None


def expand_replicaset(rs: Mapping[str, Any], names: Names,
                      existing: Iterable[Pod] = ()) -> Expansion:
    """``syncReplicaSet`` for a new ReplicaSet: claim the matching orphans among
    ``existing``, then ``manageReplicas`` creates ``replicas`` minus those pods."""
    meta = _meta(rs)
    ns, name = str(meta.get("namespace") or "default"), str(meta["name"])
    uid = str(meta.get("uid") or names.uid("ReplicaSet", ns, name))
    spec = rs.get("spec") or {}
    replicas = _pod_count(_int(spec.get("replicas"), 1, "spec.replicas"), "spec.replicas")
    adopted = claim_pods(rs, existing)
    owner = _controller_ref("apps/v1", "ReplicaSet", name, uid)
    pods = []
    # manageReplicas: diff < 0 creates -diff pods; a surplus would be deleted (not modelled:
    # a new ReplicaSet deletes nothing it did not adopt)
    for _ in range(max(0, replicas - len(adopted))):
        pod = pod_from_template(spec.get("template") or {}, ns, owner)
        _name_pod(pod, names, ns, pods_prefix(name))
        pods.append(pod)
    return Expansion("ReplicaSet", ns, name, pods, adopted=adopted)


def _equal_ignore_hash(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """``EqualIgnoreHash``: templates equal once pod-template-hash labels are dropped."""
    def strip(t: Mapping[str, Any]) -> Any:
        t = copy.deepcopy(dict(t))
        labels = (t.get("metadata") or {}).get("labels")
        if isinstance(labels, dict):
            labels.pop(POD_TEMPLATE_HASH, None)
        return t
    return bool(strip(a) == strip(b))


def deployment_hash(dep: Mapping[str, Any], replicasets: Iterable[Mapping[str, Any]]) -> str:
    """The new ReplicaSet's pod-template-hash: from an owned ReplicaSet with an equal
    template (``FindNewReplicaSet``), else :func:`compute_hash`."""
    meta = _meta(dep)
    ns, name = str(meta.get("namespace") or "default"), str(meta.get("name"))
    template = (dep.get("spec") or {}).get("template") or {}
    for rs in replicasets:
        rmeta = _meta(rs)
        if str(rmeta.get("namespace") or "default") != ns:
            continue
        owners = rmeta.get("ownerReferences") or []
        if not any(o.get("kind") == "Deployment" and o.get("name") == name
                   and o.get("controller") for o in owners if isinstance(o, Mapping)):
            continue
        rtemplate = (rs.get("spec") or {}).get("template") or {}
        value = ((rtemplate.get("metadata") or {}).get("labels") or {}).get(POD_TEMPLATE_HASH)
        if value and _equal_ignore_hash(rtemplate, template):
            return str(value)
    status = dep.get("status") or {}
    count = status.get("collisionCount")
    return compute_hash(template, None if count is None else int(count))


def expand_deployment(dep: Mapping[str, Any], names: Names,
                      replicasets: Iterable[Mapping[str, Any]] = (),
                      existing: Iterable[Pod] = ()) -> Expansion:
    """``getNewReplicaSet`` then the ReplicaSet's pods (all replicas: a new Deployment;
    the ReplicaSet adopts ``existing`` orphans its hashed selector matches)."""
    meta = _meta(dep)
    ns, name = str(meta.get("namespace") or "default"), str(meta["name"])
    uid = str(meta.get("uid") or names.uid("Deployment", ns, name))
    spec = dep.get("spec") or {}
    if spec.get("paused"):  # a paused Deployment creates no new ReplicaSet (sync only)
        return Expansion("Deployment", ns, name, [])
    hash_ = deployment_hash(dep, replicasets)
    template = copy.deepcopy(dict(spec.get("template") or {}))
    tmeta = template.setdefault("metadata", {})
    tmeta["labels"] = {**(tmeta.get("labels") or {}), POD_TEMPLATE_HASH: hash_}
    selector = copy.deepcopy(dict(spec.get("selector") or {}))
    selector["matchLabels"] = {**(selector.get("matchLabels") or {}), POD_TEMPLATE_HASH: hash_}
    rs_name = f"{name}-{hash_}"
    rs = {"apiVersion": "apps/v1", "kind": "ReplicaSet",
          "metadata": {"name": rs_name, "namespace": ns,
                       "uid": names.uid("ReplicaSet", ns, rs_name),
                       "labels": dict(tmeta["labels"]),
                       "ownerReferences": [_controller_ref("apps/v1", "Deployment", name, uid)]},
          "spec": {"replicas": _int(spec.get("replicas"), 1, "spec.replicas"),
                   "selector": selector, "template": template}}
    inner = expand_replicaset(rs, names, existing)
    return Expansion("Deployment", ns, name, inner.pods, [rs], adopted=inner.adopted)


def expand_statefulset(set_: Mapping[str, Any], names: Names) -> Expansion:
    """``newVersionedStatefulSetPod`` for ordinals ``start .. start+replicas-1``."""
    meta = _meta(set_)
    ns, name = str(meta.get("namespace") or "default"), str(meta["name"])
    uid = str(meta.get("uid") or names.uid("StatefulSet", ns, name))
    spec = set_.get("spec") or {}
    replicas = _pod_count(_int(spec.get("replicas"), 1, "spec.replicas"), "spec.replicas")
    start = _int((spec.get("ordinals") or {}).get("start"), 0, "spec.ordinals.start")
    revision = statefulset_revision(set_)
    owner = _controller_ref("apps/v1", "StatefulSet", name, uid)
    pods = []
    for ordinal in range(start, start + replicas):
        pod = pod_from_template(spec.get("template") or {}, ns, owner)
        pod_name = f"{name}-{ordinal}"  # getPodName
        names.claim(ns, pod_name)
        pod["metadata"]["name"] = pod_name
        pod["metadata"]["generateName"] = pods_prefix(name)
        pod["metadata"]["uid"] = names.uid("Pod", ns, pod_name)
        labels = pod["metadata"]["labels"]
        labels[STS_POD_NAME] = pod_name
        labels[POD_INDEX] = str(ordinal)
        labels[REVISION_HASH] = revision  # setPodRevision
        pod["spec"]["hostname"] = pod_name
        if spec.get("serviceName"):
            pod["spec"]["subdomain"] = str(spec["serviceName"])
        pods.append(pod)
    ordered = (spec.get("podManagementPolicy") or "OrderedReady") == "OrderedReady"
    return Expansion("StatefulSet", ns, name, pods, ordered_ready=ordered)


def _job_template_labels(job: Mapping[str, Any], ns: str, name: str, uid: str,
                         template: dict[str, Any]) -> None:
    """The API server's ``generateSelector`` labels (unless manualSelector)."""
    if (job.get("spec") or {}).get("manualSelector"):
        return
    tmeta = template.setdefault("metadata", {})
    labels = tmeta["labels"] = dict(tmeta.get("labels") or {})
    labels.setdefault(JOB_CONTROLLER_UID, uid)
    labels.setdefault(JOB_NAME, name)
    labels.setdefault(LEGACY_CONTROLLER_UID, uid)
    labels.setdefault(LEGACY_JOB_NAME, name)


def expand_job(job: Mapping[str, Any], names: Names) -> Expansion:
    """``Controller.manageJob`` for a new Job: ``min(parallelism, completions)`` pods."""
    meta = _meta(job)
    ns, name = str(meta.get("namespace") or "default"), str(meta["name"])
    uid = str(meta.get("uid") or names.uid("Job", ns, name))
    spec = job.get("spec") or {}
    # A suspended Job has no active pods (manageJob deletes them / creates none).
    parallelism = 0 if spec.get("suspend") else _int(spec.get("parallelism"), 1,
                                                       "spec.parallelism")
    completions = spec.get("completions")
    want = _pod_count(parallelism if completions is None else min(
        parallelism, _int(completions, 1, "spec.completions")), "spec.parallelism")
    indexed = spec.get("completionMode") == "Indexed"
    if indexed and completions is None:
        raise ValueError("an Indexed Job needs spec.completions")
    template = copy.deepcopy(dict(spec.get("template") or {}))
    _job_template_labels(job, ns, name, uid, template)
    owner = _controller_ref("batch/v1", "Job", name, uid)
    pods = []
    for i in range(want):
        pod = pod_from_template(template, ns, owner)
        pod["metadata"].setdefault("finalizers", [])
        if JOB_TRACKING_FINALIZER not in pod["metadata"]["finalizers"]:
            pod["metadata"]["finalizers"].append(JOB_TRACKING_FINALIZER)
        generate = pods_prefix(name)
        if indexed:  # the lowest missing indices first (firstPendingIndexes)
            pod["metadata"]["annotations"][COMPLETION_INDEX] = str(i)
            pod["metadata"]["labels"][COMPLETION_INDEX] = str(i)
            pod["spec"]["hostname"] = f"{name}-{i}"
            generate = pod_generate_name_with_index(name, i)
        _name_pod(pod, names, ns, generate)
        pods.append(pod)
    return Expansion("Job", ns, name, pods)


def pod_generate_name_with_index(job_name: str, index: int) -> str:
    """``podGenerateNameWithIndex``: ``<job>-<index>-``, the job name cut to fit 58."""
    append = f"-{index}-"
    prefix = job_name + append
    if len(prefix) > MAX_GENERATED_NAME_LENGTH:
        prefix = prefix[:MAX_GENERATED_NAME_LENGTH - len(append)] + append
    return prefix


def next_schedule_time(cj: Mapping[str, Any], now: float) -> datetime:
    """The CronJob's next schedule time after ``now``, in its ``spec.timeZone`` (UTC when
    unset, as a controller-manager in UTC). A new CronJob has no missed schedule
    (``mostRecentScheduleTime`` from its creation time), so its first Job is this one."""
    spec = cj.get("spec") or {}
    schedule = str(spec.get("schedule") or "")
    zone_name = spec.get("timeZone")
    try:
        zone = ZoneInfo(str(zone_name)) if zone_name else UTC
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"unknown spec.timeZone {zone_name!r}") from None
    if not schedule or not croniter.is_valid(schedule):
        raise ValueError(f"spec.schedule {schedule!r} is not a cron expression")
    start = datetime.fromtimestamp(now, tz=zone)
    return croniter(schedule, start).get_next(datetime)


def _rfc3339(t: datetime) -> str:
    """Go ``time.RFC3339``: ``Z`` for UTC, else the numeric offset."""
    text = t.strftime("%Y-%m-%dT%H:%M:%S%z")
    if text.endswith("+0000"):
        return text[:-5] + "Z"
    return text[:-2] + ":" + text[-2:]


def cronjob_job(cj: Mapping[str, Any], names: Names, now: float) -> dict[str, Any]:
    """``getJobFromTemplate2``: the Job a CronJob creates at its next schedule time."""
    meta = _meta(cj)
    ns, name = str(meta.get("namespace") or "default"), str(meta["name"])
    uid = str(meta.get("uid") or names.uid("CronJob", ns, name))
    scheduled = next_schedule_time(cj, now)
    job_name = f"{name}-{int(scheduled.timestamp()) // 60}"  # getJobName: minutes
    jt = (cj.get("spec") or {}).get("jobTemplate") or {}
    jmeta = _meta(jt)
    return {"apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": job_name, "namespace": ns,
                         "labels": dict(jmeta.get("labels") or {}),
                         "annotations": {**(jmeta.get("annotations") or {}),
                                         CRONJOB_SCHEDULED: _rfc3339(scheduled)},
                         "ownerReferences": [_controller_ref("batch/v1", "CronJob", name, uid)]},
            "spec": copy.deepcopy(dict(jt.get("spec") or {}))}


def expand_cronjob(cj: Mapping[str, Any], names: Names, now: float) -> Expansion:
    """The Job for schedule time ``now``, then its pods (none while suspended)."""
    meta = _meta(cj)
    if (cj.get("spec") or {}).get("suspend"):
        return Expansion("CronJob", str(meta.get("namespace") or "default"),
                         str(meta["name"]), [])
    job = cronjob_job(cj, names, now)
    inner = expand_job(job, names)
    return Expansion("CronJob", str(meta.get("namespace") or "default"), str(meta["name"]),
                     inner.pods, [job])


def _match_key(t: Mapping[str, Any]) -> tuple[Any, ...]:
    """What ``Toleration.MatchToleration`` compares: key, operator, value, effect."""
    return (t.get("key") or "", t.get("operator") or "", t.get("value") or "",
            t.get("effect") or "")


def add_or_update_toleration(tolerations: list[Any], new: dict[str, Any]) -> list[Any]:
    """``AddOrUpdateTolerationInPodSpec``: each toleration ``MatchToleration`` pairs with
    ``new`` is replaced by ``new`` (so a ``tolerationSeconds`` of the template's is
    dropped); without a match ``new`` is appended. Upstream's early return for an equal
    toleration never fires: it compares ``*Toleration`` with ``Toleration`` through
    ``Semantic.DeepEqual``, which is false for values of different types."""
    wanted = _match_key(new)
    out, matched = [], False
    for t in tolerations:
        if isinstance(t, Mapping) and _match_key(t) == wanted:
            out.append(dict(new))
            matched = True
        else:
            out.append(t)
    if not matched:
        out.append(new)
    return out


def add_daemon_tolerations(spec: dict[str, Any]) -> None:
    """``AddOrUpdateDaemonPodTolerations``: each daemon toleration added or updated."""
    tolerations = list(spec.get("tolerations") or [])
    wanted = list(DAEMON_TOLERATIONS)
    if spec.get("hostNetwork"):
        wanted.append(NETWORK_UNAVAILABLE)
    for key, effect in wanted:
        tolerations = add_or_update_toleration(
            tolerations, {"key": key, "operator": "Exists", "effect": effect})
    spec["tolerations"] = tolerations


def replace_node_name_affinity(spec: dict[str, Any], node_name: str) -> None:
    """``ReplaceDaemonSetPodNodeNameNodeAffinity``: the required terms become one
    ``matchFields metadata.name In [node]`` term; preferred terms stay."""
    term = {"matchFields": [{"key": "metadata.name", "operator": "In",
                             "values": [node_name]}]}
    affinity = spec.setdefault("affinity", {}) or {}
    spec["affinity"] = affinity
    node_affinity = affinity.setdefault("nodeAffinity", {}) or {}
    affinity["nodeAffinity"] = node_affinity
    required = node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
    if not isinstance(required, dict):
        required = {}
    required["nodeSelectorTerms"] = [term]
    node_affinity["requiredDuringSchedulingIgnoredDuringExecution"] = required


def daemon_pod_probe(pod: Mapping[str, Any]) -> Pod:
    """The typed pod ``NodeShouldRunDaemonPod`` checks (``NewPod``: template + tolerations)."""
    named = {**pod, "metadata": {**pod["metadata"], "name": "daemon-pod-probe"}}
    try:
        return parse_pod(named, Source(), lambda _: (0, PREEMPT_LOWER_PRIORITY))
    except InputError as exc:
        # A fault of the template: no pod exists yet, so it is the DaemonSet's to name.
        raise InputError(exc.message) from None


def node_should_run_daemon_pod(pod: Pod, node: Node) -> bool:
    """``NodeShouldRunDaemonPod``'s shouldRun for a DaemonSet pod (daemon tolerations
    already added): node name, required node affinity / nodeSelector, and no untolerated
    NoSchedule or NoExecute taint (``predicates``)."""
    if pod.node_name and pod.node_name != node.name:
        return False
    if not pod_matches_node_selector_and_affinity(pod, node):
        return False
    return all(tolerates_all(pod.tolerations, t) for t in node.taints
               if t.effect in (NO_SCHEDULE, NO_EXECUTE))


def expand_daemonset(ds: Mapping[str, Any], names: Names, nodes: Iterable[Node]) -> Expansion:
    """``syncNodes`` for a new DaemonSet: one pod per node that should run it (name order)."""
    meta = _meta(ds)
    ns, name = str(meta.get("namespace") or "default"), str(meta["name"])
    uid = str(meta.get("uid") or names.uid("DaemonSet", ns, name))
    spec = ds.get("spec") or {}
    template = copy.deepcopy(dict(spec.get("template") or {}))
    status = ds.get("status") or {}
    count = status.get("collisionCount")
    hash_ = compute_hash(spec.get("template") or {}, None if count is None else int(count))
    tmeta = template.setdefault("metadata", {})
    labels = dict(tmeta.get("labels") or {})
    # GetTemplateGeneration reads the deprecated annotation; the API server writes it from
    # spec.templateGeneration, 1 for a new DaemonSet.
    annotations = meta.get("annotations") or {}
    labels[TEMPLATE_GENERATION] = str(annotations.get(TEMPLATE_GENERATION_ANNOTATION) or 1)
    labels[REVISION_HASH] = hash_
    tmeta["labels"] = labels
    template["spec"] = dict(template.get("spec") or {})
    add_daemon_tolerations(template["spec"])
    owner = _controller_ref("apps/v1", "DaemonSet", name, uid)
    probe = daemon_pod_probe(pod_from_template(template, ns, owner))
    pods = []
    for node in sorted(nodes, key=lambda n: n.name):
        if not node_should_run_daemon_pod(probe, node):
            continue
        pod = pod_from_template(template, ns, owner)
        replace_node_name_affinity(pod["spec"], node.name)
        _name_pod(pod, names, ns, pods_prefix(name))
        pods.append(pod)
    return Expansion("DaemonSet", ns, name, pods)


# The kinds whose apiserver validation requires a selector matching the template's labels,
# with the qualified kind the error names and the word its empty-selector error uses.
SELECTOR_KINDS = {"Deployment": ("Deployment.apps", "deployment"),
                  "ReplicaSet": ("ReplicaSet.apps", "deployment"),  # upstream's wording
                  "StatefulSet": ("StatefulSet.apps", "statefulset"),
                  "DaemonSet": ("DaemonSet.apps", "daemonset")}


def validate_selector(obj: Mapping[str, Any]) -> str | None:
    """The apiserver's refusal of a workload whose selector is empty or does not match
    its template's labels (None: accepted): ``spec.selector: Invalid value: {}: empty
    selector is invalid for <kind>``, or ``spec.template.metadata.labels: Invalid value:
    {...}: `selector` does not match template `labels```
    (``ValidatePodTemplateSpecForReplicaSet``). A workload without ``spec.selector``
    (``Required value`` upstream) is taken as selecting its template's labels."""
    kind = str(obj.get("kind") or "")
    spec = obj.get("spec")
    if kind not in SELECTOR_KINDS or not isinstance(spec, Mapping):
        return None
    raw = spec.get("selector")
    if raw is None:
        return None
    qualified, word = SELECTOR_KINDS[kind]
    try:
        selector = LabelSelector.parse(raw)
    except SelectorError:
        return None  # the loader's selector validation words these
    assert selector is not None
    template = spec.get("template") if isinstance(spec.get("template"), Mapping) else {}
    tlabels = _meta(template).get("labels")
    labels = dict(tlabels) if isinstance(tlabels, Mapping) else {}
    errors: list[FieldError] = []
    if selector.is_empty:
        errors.append(invalid("spec.selector", raw, f"empty selector is invalid for {word}"))
    elif not selector.matches({str(k): str(v) for k, v in labels.items()}):
        errors.append(invalid("spec.template.metadata.labels", labels,
                              "`selector` does not match template `labels`"))
    if not errors:
        return None
    return invalid_message(qualified, str(_meta(obj).get("name") or ""), errors)


def expand(obj: Mapping[str, Any], names: Names, *, nodes: Iterable[Node] = (),
           replicasets: Iterable[Mapping[str, Any]] = (), now: float = 0.0,
           source: Source | None = None, existing: Iterable[Pod] = ()) -> Expansion:
    """The pods the controller of ``obj`` (one of ``WORKLOAD_KINDS``) would create.

    ``nodes`` are the DaemonSet's candidates; ``replicasets`` the input's ReplicaSets (a
    Deployment reuses the hash of its own); ``now`` is the CronJob's schedule time;
    ``existing`` the pods that exist (a ReplicaSet adopts the orphans it selects). An
    object the apiserver would refuse (:func:`validate_selector`) is an input error.
    """
    kind = str(obj.get("kind") or "")
    meta = _meta(obj)
    key = f"{meta.get('namespace') or 'default'}/{meta.get('name') or ''}"
    if not meta.get("name"):
        raise InputError("object has no metadata.name", source, kind)
    refusal = validate_selector(obj)
    if refusal is not None:
        raise InputError(refusal, source, kind, key)
    try:
        if kind == "Deployment":
            out = expand_deployment(obj, names, replicasets, existing)
        elif kind == "ReplicaSet":
            out = expand_replicaset(obj, names, existing)
        elif kind == "StatefulSet":
            out = expand_statefulset(obj, names)
        elif kind == "Job":
            out = expand_job(obj, names)
        elif kind == "CronJob":
            out = expand_cronjob(obj, names, now)
        elif kind == "DaemonSet":
            out = expand_daemonset(obj, names, nodes)
        else:
            raise ValueError(f"kind {kind!r} is not one of {', '.join(WORKLOAD_KINDS)}")
    except InputError as exc:
        raise exc.located(source, kind, key) from None
    except (ValueError, TypeError, AttributeError, KeyError, RecursionError) as exc:
        raise InputError(f"cannot expand: {exc}", source, kind, key) from None
    if source is not None:
        out.source = source
    return out

"""Flavor assignment as Kueue's ``flavorassigner`` does it (current Kueue; v0.7.0's rules
where :class:`~kubepreempt.kueue.semantics.Semantics` says so).

For each pod set and resource group, flavors are tried in ClusterQueue order; a flavor is
skipped when its taints are not tolerated or its node labels do not match the pod set's
node selector / required node affinity (restricted to the flavor's own label keys; v0.7:
the keys the group's flavors use). Each candidate gets a mode per resource (Fit,
Preempt, NoFit; current Kueue asks the preemption oracle which flavor would find
targets); flavorFungibility decides whether to stop at a flavor or try the next one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import IntEnum

from kubepreempt.api.objects import Taint, Toleration
from kubepreempt.api.quantity import format_amount
from kubepreempt.api.selectors import NodeSelectorTerm, Requirement
from kubepreempt.apimachinery.field import aggregate, invalid
from kubepreempt.apimachinery.validation import label_value
from kubepreempt.kueue.objects import (
    BORROW,
    NEVER,
    PREEMPT,
    PREEMPTION_OVER_BORROWING,
    TRY_NEXT_FLAVOR,
    FlavorQuotas,
    PodSet,
    ResourceFlavor,
    ResourceGroup,
    ResourceQuota,
)
from kubepreempt.kueue.quota import (
    FR,
    CQState,
    PodSetResources,
    Usage,
    WorkloadInfo,
    lowest_subtree_that_fits,
)
from kubepreempt.kueue.semantics import SEMANTICS, V0_7, Semantics

# The preemption oracle: (flavor-resource, quantity) -> granular mode after simulating
# preemption (NoCandidates, Preempt or Reclaim) and the borrowing level it leaves.
Oracle = Callable[[FR, int], "Granular"]


class Mode(IntEnum):
    """Flavor assignment modes, ordered from least to most preferred."""

    NO_FIT = 0
    PREEMPT = 1
    FIT = 2

    def __str__(self) -> str:
        return {0: "NoFit", 1: "Preempt", 2: "Fit"}[self.value]


# Current Kueue's finer modes inside flavor assignment (``preemptionMode``), best last.
G_NO_FIT, G_NO_CANDIDATES, G_PREEMPT, G_RECLAIM, G_FIT = range(5)
Granular = tuple[int, int]  # (preemption mode, borrowing level: 0 = within own quota)


def _public(mode: int) -> Mode:
    return Mode.FIT if mode == G_FIT else Mode.NO_FIT if mode == G_NO_FIT else Mode.PREEMPT


def is_preferred(a: Granular, b: Granular, preference: str = "") -> bool:
    """``isPreferred``: a usable mode beats NoFit, a mode with preemption targets beats one
    without; then, with BorrowingOverPreemption (the default), the better preemption mode
    and then the more local borrowing level, with PreemptionOverBorrowing (the
    ClusterQueue's ``flavorFungibility.preference``) the other way round."""
    if a[0] == G_NO_FIT:
        return False
    if b[0] == G_NO_FIT:
        return True
    if (a[0] == G_NO_CANDIDATES) != (b[0] == G_NO_CANDIDATES):
        return a[0] != G_NO_CANDIDATES
    if preference == PREEMPTION_OVER_BORROWING:
        if a[1] != b[1]:
            return a[1] < b[1]
        return a[0] > b[0]
    if a[0] != b[0]:
        return a[0] > b[0]
    return a[1] < b[1]


@dataclass(slots=True)
class FlavorAssignment:
    """The flavor chosen for one resource of a pod set, with its mode. ``borrow`` is the
    borrowing level (v0.7: 1 when borrowing; current: the height of the lowest cohort
    subtree whose quota holds the request)."""

    name: str
    mode: Mode
    borrow: int = 0


@dataclass(slots=True)
class PodSetAssignment:
    """Flavors per resource for one pod set, and why flavors could not fit right away."""

    name: str
    flavors: dict[str, FlavorAssignment] | None
    reasons: list[str] = field(default_factory=list)
    requests: dict[str, int] = field(default_factory=dict)
    count: int = 0
    fits: bool = True  # False when any reason was recorded (upstream: Status != nil)
    error: str | None = None  # Status.err: the pod set's node affinity does not parse

    @property
    def mode(self) -> Mode:
        """Worst mode among the assigned flavors (NoFit when nothing was assigned)."""
        if self.fits:
            return Mode.FIT
        if not self.flavors:
            return Mode.NO_FIT
        return min(f.mode for f in self.flavors.values())


@dataclass(slots=True)
class Assignment:
    """The flavors of every pod set; ``mode`` is the worst mode among them."""

    pod_sets: list[PodSetAssignment] = field(default_factory=list)
    borrowing: bool = False
    # Upstream ``Borrows()``: how far up the cohort tree it borrows (0: within its own
    # quota; v0.7: 1 when borrowing), the highest level among its flavors.
    borrow_level: int = 0

    @property
    def mode(self) -> Mode:
        """Representative mode (upstream ``RepresentativeMode``)."""
        if not self.pod_sets:
            return Mode.NO_FIT
        return min(ps.mode for ps in self.pod_sets)

    def message(self) -> str:
        """Why the workload does not fit, as Kueue words it (an error replaces all else)."""
        parts = []
        for ps in self.pod_sets:
            if ps.error is not None:
                return f"failed to assign flavors to pod set {ps.name}: {ps.error}"
            if not ps.fits:
                parts.append(f"couldn't assign flavors to pod set {ps.name}: "
                             f"{', '.join(sorted(ps.reasons))}")
        return "; ".join(parts)

    def flavors(self) -> dict[str, dict[str, str]]:
        """``{podSet: {resource: flavor}}``."""
        return {ps.name: {r: f.name for r, f in sorted((ps.flavors or {}).items())}
                for ps in self.pod_sets}

    def total_requests_for(self, info: WorkloadInfo) -> Usage:
        """The workload's requests per assigned flavor and resource."""
        out: Usage = {}
        for i, ps in enumerate(info.total_requests):
            flavors = self.pod_sets[i].flavors or {} if i < len(self.pod_sets) else {}
            for res, q in ps.requests.items():
                fa = flavors.get(res)
                if fa is None:
                    continue
                out.setdefault(fa.name, {})
                out[fa.name][res] = out[fa.name].get(res, 0) + q
        return out


def _untolerated(taints: tuple[Taint, ...], tolerations: tuple[Toleration, ...]) -> Taint | None:
    for t in taints:
        if t.effect not in ("NoSchedule", "NoExecute"):
            continue  # upstream filters on these two effects only
        if not any(tol.tolerates(t) for tol in tolerations):
            return t
    return None


def _label_keys(rg: ResourceGroup, flavors: dict[str, ResourceFlavor]) -> set[str]:
    keys: set[str] = set()
    for fq in rg.flavors:
        f = flavors.get(fq.name)
        if f is not None:
            keys.update(f.node_labels)
    return keys


def _requirement_errors(path: str, req: Requirement) -> list[str]:
    """``labels.NewRequirement``'s field errors for In/NotIn values that are not label
    values (the apiserver does not validate them in a Workload's pod template)."""
    if req.operator not in ("In", "NotIn"):
        return []
    errs: list[str] = []
    for k, v in enumerate(req.values):
        why = label_value(v)
        if why:
            errs.append(str(invalid(f"{path}.values[{k}][{req.key}]", v, "; ".join(why))))
    return errs


def _selector_matches(ps: PodSet, keys: set[str],
                      labels: dict[str, str]) -> tuple[bool, str | None]:
    """``flavorSelector(...).Match``: node selector and required affinity cut down to
    ``keys``. Terms are parsed lazily (``LazyErrorNodeSelector``): a term that does not
    parse is skipped, and when no term matches, its parse errors are the result."""
    for k, v in ps.node_selector.items():
        if k in keys and labels.get(k) != v:
            return False, None
    if ps.node_terms is None:
        return True, None
    terms = []
    for t in ps.node_terms:
        exprs = tuple(e for e in t.match_expressions if e.key in keys)
        if not exprs:
            # An emptied term matches every flavor; terms are ORed, so drop affinity.
            return True, None
        terms.append(NodeSelectorTerm(exprs))
    errs: list[str] = []
    for i, t in enumerate(terms):
        term_errs = [err for j, e in enumerate(t.match_expressions) for err in
                     _requirement_errors(f"nodeSelectorTerms[{i}].matchExpressions[{j}]", e)]
        if term_errs:
            errs.extend(term_errs)
            continue
        if t.matches(labels, ""):
            return True, None
    return False, (aggregate(errs) if errs else None)


class _AffinityParseError(Exception):
    """``Status.err`` of findFlavorForPodSetResource: the selector's lazy parse error."""


def _taint_text(t: Taint) -> str:
    """The taint as upstream's ``%s`` prints the ``corev1.Taint`` value that
    ``FindMatchingUntoleratedTaint`` returns: Go's struct form (its ``String`` method is on
    the pointer), ``timeAdded`` a nil pointer."""
    return f"{{{t.key} {t.value} {t.effect} <nil>}}"


class FlavorAssigner:
    """Assigns flavors to a pending workload in one ClusterQueue."""

    def __init__(self, info: WorkloadInfo, pod_sets: tuple[PodSet, ...], cq: CQState,
                 flavors: dict[str, ResourceFlavor], fair_sharing: bool,
                 semantics: Semantics = SEMANTICS[V0_7],
                 oracle: Oracle | None = None) -> None:
        self.info = info
        self.pod_sets = pod_sets
        self.cq = cq
        self.flavors = flavors
        self.fair_sharing = fair_sharing
        self.semantics = semantics
        self.oracle = oracle
        self.preference = cq.spec.fungibility_preference  # read once per assignment

    def assign(self) -> Assignment:
        """Assign flavors to every pod set (stops at the first pod set that cannot)."""
        out = Assignment()
        usage: Usage = {}
        for i, ps_res in enumerate(self.info.total_requests):
            if self.cq.spec.group_for("pods") is not None:
                # Mutates the workload's requests as upstream does, so preemption sees pods.
                ps_res.requests["pods"] = ps_res.count
            psa = PodSetAssignment(ps_res.name, {}, requests=dict(ps_res.requests),
                                   count=ps_res.count)
            for res in sorted(ps_res.requests):
                if psa.flavors is not None and res in psa.flavors:
                    continue  # assigned together with its resource group
                if (self.semantics.skip_zero_undeclared and ps_res.requests[res] == 0
                        and self.cq.spec.group_for(res) is None):
                    continue  # a zero request needs no flavor (issue #8079)
                try:
                    flavors, reasons, fits = self._find(i, ps_res, res, usage)
                except _AffinityParseError as exc:
                    psa.flavors, psa.fits, psa.error = None, False, str(exc)
                    break
                if not flavors:
                    psa.flavors = None
                    psa.reasons.extend(reasons)
                    psa.fits = False
                    break
                assert psa.flavors is not None
                psa.flavors.update(flavors)
                if not fits:
                    psa.fits = False
                    psa.reasons.extend(reasons)
            out.pod_sets.append(psa)
            for res, fa in (psa.flavors or {}).items():
                out.borrowing = out.borrowing or fa.borrow > 0
                out.borrow_level = max(out.borrow_level, fa.borrow)
                usage.setdefault(fa.name, {})
                usage[fa.name][res] = usage[fa.name].get(res, 0) + ps_res.requests[res]
            if psa.error is not None or (ps_res.requests and not psa.flavors):
                break
        return out

    def _find(self, i: int, ps_res: PodSetResources, res: str,
              usage: Usage) -> tuple[dict[str, FlavorAssignment], list[str], bool]:
        """``findFlavorForPodSetResource``: (assignments, reasons, fits)."""
        cq = self.cq.spec
        rg = cq.group_for(res)
        if rg is None:
            return {}, [f"resource {res} unavailable in ClusterQueue"], False
        reasons: list[str] = []
        requests = {r: v for r, v in ps_res.requests.items() if r in rg.covered}
        ps = self.pod_sets[i]
        keys = _label_keys(rg, self.flavors)
        best: dict[str, FlavorAssignment] = {}
        best_mode = Mode.NO_FIT
        best_g: Granular = (G_NO_FIT, 1 << 62)
        assignments: dict[str, FlavorAssignment]
        for fq in rg.flavors:
            flavor = self.flavors.get(fq.name)
            if flavor is None:
                reasons.append(f"flavor {fq.name} not found")
                continue
            tolerations = ps.tolerations + flavor.tolerations \
                if flavor.tolerations and self.semantics.flavor_tolerations else ps.tolerations
            taint = _untolerated(flavor.node_taints, tolerations)
            if taint is not None:
                reasons.append(f"untolerated taint {_taint_text(taint)} in flavor {fq.name}")
                continue
            own = set(flavor.node_labels) if self.semantics.flavor_own_label_keys else keys
            match, err = _selector_matches(ps, own, flavor.node_labels)
            if err is not None:
                raise _AffinityParseError(err)  # the pod set fails; no other flavor is tried
            if not match:
                reasons.append(f"flavor {fq.name} doesn't match node affinity")
                continue
            if self.semantics.available_quota:
                done, rep, assignments = self._try_flavor(fq, requests, usage, reasons)
                if done:
                    best, best_g = assignments, rep
                    break
                if is_preferred(rep, best_g, self.preference):
                    best, best_g = assignments, rep
                continue
            needs_borrowing = False
            assignments = {}
            mode = Mode.FIT
            for r in sorted(requests):
                val = requests[r] + usage.get(fq.name, {}).get(r, 0)
                m, borrow, why = self._fits_quota(fq.name, r, val, fq.resources[r])
                reasons.extend(why)
                mode = min(mode, m)
                needs_borrowing = needs_borrowing or borrow
                if mode == Mode.NO_FIT:
                    break
                assignments[r] = FlavorAssignment(fq.name, m, int(borrow))
            # FlavorFungibility (beta, on by default in v0.7).
            if not self._try_next(mode, needs_borrowing):
                best, best_mode = assignments, mode
                break
            if mode > best_mode:
                best, best_mode = assignments, mode
        if self.semantics.available_quota:
            best_mode = _public(best_g[0])
        if best_mode == Mode.FIT:
            return best, [], True
        return best, reasons, False

    def _try_flavor(self, fq: FlavorQuotas, requests: dict[str, int], usage: Usage,
                    reasons: list[str]) -> tuple[bool, Granular, dict[str, FlavorAssignment]]:
        """Current Kueue: the flavor's representative (worst) mode over the group's
        resources, and whether the search stops here (``shouldTryNextFlavor``)."""
        rep: Granular = (G_FIT, 0)
        assignments: dict[str, FlavorAssignment] = {}
        for r in sorted(requests):
            assumed = usage.get(fq.name, {}).get(r, 0)
            g, why = self._fits_quota_available(fq.name, r, assumed, requests[r],
                                                fq.resources[r])
            reasons.extend(why)
            if is_preferred(rep, g, self.preference):
                rep = g
            if rep[0] == G_NO_FIT:
                break
            assignments[r] = FlavorAssignment(fq.name, _public(g[0]), g[1])
        cq = self.cq.spec
        try_next = (rep[0] in (G_NO_FIT, G_NO_CANDIDATES)
                    or (rep[0] in (G_PREEMPT, G_RECLAIM) and cq.when_can_preempt == TRY_NEXT_FLAVOR)
                    or (rep[1] > 0 and cq.when_can_borrow == TRY_NEXT_FLAVOR))
        return not try_next, rep, assignments

    def _fits_quota_available(self, flavor: str, res: str, assumed: int, request: int,
                              q: ResourceQuota) -> tuple[Granular, list[str]]:
        """Current ``fitsResourceQuota``: NoFit above the potential capacity, Fit within
        the available quota, else a preemption mode (asking the oracle when given)."""
        st = self.cq
        fr = (flavor, res)
        val = assumed + request
        max_capacity = st.potential_available(fr)
        if val > max_capacity:
            return (G_NO_FIT, 0), [
                f"insufficient quota for {res} in flavor {flavor}, previously considered "
                f"podsets requests ({format_amount(res, assumed)}) + current podset request "
                f"({format_amount(res, request)}) > maximum capacity "
                f"({format_amount(res, max_capacity)})"]
        available = max(0, st.available(fr))
        level, may_reclaim = lowest_subtree_that_fits(st, fr, val)
        if val <= available:
            return (G_FIT, level), []
        why = [f"insufficient unused quota for {res} in flavor {flavor}, "
               f"{format_amount(res, val - available)} more needed"]
        # Only then are victims looked for: a borrowing request may not preempt inside
        # its own ClusterQueue unless it may preempt while borrowing.
        if q.nominal >= val or may_reclaim or self.can_preempt_while_borrowing():
            if self.oracle is None:
                return (G_PREEMPT, level), why
            return self.oracle(fr, val), why
        return (G_NO_FIT, level), why

    def _try_next(self, mode: Mode, needs_borrowing: bool) -> bool:
        """``shouldTryNextFlavor``."""
        cq = self.cq.spec
        if mode == Mode.PREEMPT and cq.when_can_preempt == PREEMPT and (
                not needs_borrowing or cq.when_can_borrow == BORROW):
            return False
        if mode == Mode.FIT and needs_borrowing and cq.when_can_borrow == BORROW:
            return False
        return not (mode == Mode.FIT and not needs_borrowing)

    def can_preempt_while_borrowing(self) -> bool:
        """borrowWithinCohort is enabled, or fair sharing with reclaimWithinCohort."""
        p = self.cq.spec.preemption
        return p.borrow_within_cohort != NEVER or (
            self.fair_sharing and p.reclaim_within_cohort != NEVER)

    def _fits_quota(self, flavor: str, res: str, val: int,
                    q: ResourceQuota) -> tuple[Mode, bool, list[str]]:
        """``fitsResourceQuota``: mode, whether it borrows, and reasons."""
        st = self.cq
        used = st.used(flavor, res)
        mode = Mode.PREEMPT if val <= q.nominal else Mode.NO_FIT
        borrow = False
        cohort_available = q.nominal if st.cohort is None else st.requestable_cohort_quota(
            flavor, res)
        if self.can_preempt_while_borrowing() and (
                q.within_borrowing_limit(val) and val <= cohort_available):
            mode = Mode.PREEMPT
            borrow = val > q.nominal
        if not q.within_borrowing_limit(used + val):
            return mode, borrow, [f"borrowing limit for {res} in flavor {flavor} exceeded"]
        cohort_used = used if st.cohort is None else st.used_cohort_quota(flavor, res)
        lack = cohort_used + val - cohort_available
        if lack <= 0:
            return Mode.FIT, used + val > q.nominal, []
        amount = format_amount(res, lack)
        msg = (f"insufficient unused quota in cohort for {res} in flavor {flavor}, "
               f"{amount} more needed")
        if st.cohort is None:
            if mode == Mode.NO_FIT:
                msg = f"insufficient quota for {res} in flavor {flavor} in ClusterQueue"
            else:
                msg = (f"insufficient unused quota for {res} in flavor {flavor}, "
                       f"{amount} more needed")
        return mode, borrow, [msg]

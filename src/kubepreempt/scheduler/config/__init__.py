"""``kubescheduler.config.k8s.io/v1`` ``KubeSchedulerConfiguration``: read, default,
validate, build profiles — as kube-scheduler does with its ``--config`` file.

:func:`parse_scheduler_config` takes one parsed document; :func:`load_scheduler_config`
a file (YAML or JSON; the file may hold other documents, exactly one configuration).
Every problem is one :class:`~kubepreempt.api.errors.InputError` line naming the file.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kubepreempt.api.errors import InputError, Source
from kubepreempt.scheduler.config.build import ProfileError, build_profile, check_implemented
from kubepreempt.scheduler.config.defaults import API_VERSION, KIND, set_defaults
from kubepreempt.scheduler.config.fielderrors import aggregate
from kubepreempt.scheduler.config.strict import strict_error
from kubepreempt.scheduler.config.validation import validate
from kubepreempt.scheduler.profile import Profile

__all__ = ["API_VERSION", "KIND", "SchedulerConfig", "load_scheduler_config",
           "parse_scheduler_config"]


@dataclass(slots=True)
class SchedulerConfig:
    """The built profiles (first = the one pods of unknown names are NOT given to) and
    the defaulted configuration they came from."""

    profiles: list[Profile]
    percentage_of_nodes_to_score: int
    defaulted: dict[str, Any]
    source: Source | None = None
    # Filter only until percentageOfNodesToScore feasible nodes are found, as upstream
    # (``--sample-nodes``); off: every node is filtered and the globally best one wins.
    sample_nodes: bool = False

    @property
    def scheduler_names(self) -> list[str]:
        """The ``spec.schedulerName`` values the profiles serve, in order."""
        return [p.scheduler_name for p in self.profiles]


def _shape_errors(raw: Mapping[str, Any]) -> str | None:
    """Type errors the Go decoder would reject before defaulting (the fields read)."""
    def is_int(v: Any) -> bool:
        return isinstance(v, int) and not isinstance(v, bool)

    for key in ("parallelism", "percentageOfNodesToScore", "podInitialBackoffSeconds",
                "podMaxBackoffSeconds"):
        if raw.get(key) is not None and not is_int(raw[key]):
            return f"{key}: must be an integer, got {raw[key]!r}"
    profiles = raw.get("profiles")
    if profiles is not None and not isinstance(profiles, list):
        return "profiles: must be a list"
    for i, p in enumerate(profiles or []):
        if not isinstance(p, Mapping):
            return f"profiles[{i}]: must be a mapping"
        if p.get("percentageOfNodesToScore") is not None and \
                not is_int(p["percentageOfNodesToScore"]):
            return f"profiles[{i}].percentageOfNodesToScore: must be an integer"
        plugins = p.get("plugins")
        if plugins is not None and not isinstance(plugins, Mapping):
            return f"profiles[{i}].plugins: must be a mapping"
        for point, spec in (plugins or {}).items():
            if spec is None:
                continue
            if not isinstance(spec, Mapping):
                return f"profiles[{i}].plugins.{point}: must be a mapping"
            for part in ("enabled", "disabled"):
                for j, entry in enumerate(spec.get(part) or []):
                    if not isinstance(entry, Mapping) or not isinstance(entry.get("name"), str):
                        return f"profiles[{i}].plugins.{point}.{part}[{j}]: needs a name"
                    w = entry.get("weight")
                    if w is not None and not is_int(w):
                        return f"profiles[{i}].plugins.{point}.{part}[{j}].weight: " \
                            "must be an integer"
        for j, cfg in enumerate(p.get("pluginConfig") or []):
            if not isinstance(cfg, Mapping) or not isinstance(cfg.get("name"), str):
                return f"profiles[{i}].pluginConfig[{j}]: needs a name"
            if cfg.get("args") is not None and not isinstance(cfg["args"], Mapping):
                return f"profiles[{i}].pluginConfig[{j}].args: must be a mapping"
    return None


def parse_scheduler_config(doc: Mapping[str, Any], source: Source | None = None
                           ) -> SchedulerConfig:
    """Default, validate and build one ``KubeSchedulerConfiguration`` document."""
    def fail(message: str) -> InputError:
        return InputError(message, source, KIND)

    if doc.get("kind") != KIND:
        raise fail(f"expected kind {KIND}, got {doc.get('kind')!r}")
    if doc.get("apiVersion") != API_VERSION:
        hint = ""
        if "disablePreemption" in doc:  # the componentconfig/v1alpha1 switch (seed 003)
            hint = ("; disablePreemption is gone: disable the DefaultPreemption plugin "
                    "(plugins.multiPoint.disabled)")
        raise fail(f"apiVersion {doc.get('apiVersion')!r} is not supported: kubepreempt "
                   f"reads {API_VERSION} (the only version kube-scheduler 1.36 accepts)"
                   + hint)
    if "disablePreemption" in doc:
        raise fail("disablePreemption is not a v1 field: disable the DefaultPreemption "
                   "plugin (plugins.multiPoint.disabled)")
    shape = _shape_errors(doc)
    if shape is not None:
        raise fail(shape)
    unknown = strict_error(doc)
    if unknown is not None:
        raise fail(unknown)
    try:
        cfg = set_defaults(dict(doc))
        errors = validate(cfg)
    except (TypeError, KeyError, ValueError) as exc:  # a mistyped nested field
        raise fail(f"malformed configuration: {exc}") from None
    if errors:
        raise fail(aggregate(errors))
    raw_profiles = list(doc.get("profiles") or [{}])
    try:
        for raw in raw_profiles:
            check_implemented(raw)
        profiles = [build_profile(p, cfg["percentageOfNodesToScore"]) for p in cfg["profiles"]]
    except ProfileError as exc:
        raise fail(str(exc)) from None
    except (TypeError, KeyError, ValueError) as exc:
        raise fail(f"malformed configuration: {exc}") from None
    return SchedulerConfig(profiles, cfg["percentageOfNodesToScore"], cfg, source)


def load_scheduler_config(path: str) -> SchedulerConfig:
    """The one ``KubeSchedulerConfiguration`` in the file at ``path``."""
    from kubepreempt.manifests import load_documents

    docs = load_documents([path]).of(KIND)
    if len(docs) != 1:
        raise InputError(f"--scheduler-config: expected exactly one {KIND} document, found "
                         f"{len(docs)}", Source(path))
    return parse_scheduler_config(docs[0].body, docs[0].source)


def default_scheduler_config() -> SchedulerConfig:
    """An empty configuration, defaulted: upstream's default profile."""
    return parse_scheduler_config({"apiVersion": API_VERSION, "kind": KIND})


def use_scheduler_config(cluster, path: str | None, sample_nodes: bool = False) -> None:
    """``--scheduler-config FILE`` (it wins over a configuration document among the
    inputs) and ``--sample-nodes`` (percentageOfNodesToScore sampling)."""
    if path is not None:
        cluster.scheduler_config = load_scheduler_config(path)
    if sample_nodes:
        if cluster.scheduler_config is None:
            cluster.scheduler_config = default_scheduler_config()
        cluster.scheduler_config.sample_nodes = True


SAMPLE_NODES_HELP = ("Stop filtering once percentageOfNodesToScore feasible nodes are found "
                     "(upstream's adaptive default: 50% minus 1% per 125 nodes, at least 5%, "
                     "at least 100 nodes), walking from where the last attempt stopped, as "
                     "kube-scheduler does. Default: every node, the globally best wins.")


CLI_HELP = ("A kubescheduler.config.k8s.io/v1 KubeSchedulerConfiguration (kube-scheduler's "
            "--config file): profiles, plugins, plugin args. Default: upstream's default "
            "profile, or a configuration document among the inputs.")

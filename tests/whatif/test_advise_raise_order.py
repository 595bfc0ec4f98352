"""Which maxSkew raises advise tries when more than three have the same size.

advise keeps, per PodTopologySpread raise vector, the number of rejected nodes that need
exactly it, and tries the three smallest raises, those needed by the most nodes first
(``_suggestions``); ``filter_report`` then verifies each and keeps the smallest change
per plugin, of equal sizes the one admitting the most rejected nodes (docs/WHAT-IF.md,
``filters``). Whether a node is rejected, and by how much each constraint's
maxSkew must rise, is upstream's PodTopologySpread Filter
(``pkg/scheduler/framework/plugins/podtopologyspread/filtering.go``: a node fails a
constraint when ``matchNum + selfMatchNum - minMatchNum > maxSkew``, the counts taken
in PreFilter over the nodes carrying every constraint's topology key).
"""

from __future__ import annotations

from builders import cluster_of, node, pod

from kubepreempt.whatif.advise import filter_report

NOW = 1e9
KEYS = ("k1", "k2", "k3", "k4")


def test_the_raise_most_rejected_nodes_need_survives_the_cut_to_three() -> None:
    """Four constraints, over ``k1`` .. ``k4``, each maxSkew 1, select ``app=s``. The full
    node ``h`` (every key ``hi``) holds the one ``app=s`` pod, so for every key domain
    ``hi`` counts 1 and ``lo`` 0 (the minimum). A node labelled ``hi`` on one key has skew
    1 + 1 - 0 = 2 there and 0 + 1 - 0 = 1 on the others: n1, n2, n3 each need one
    different constraint raised to 2, and n4, n5, n6 all need the ``k4`` one. Four raises
    of one step each; the ``k4`` raise, needed by three nodes, is among the three tried
    (ahead of n1's, n2's and n3's, needed by one node each) and admits three nodes, more
    than any other: it is the suggestion."""
    spread = [{"maxSkew": 1, "topologyKey": k, "whenUnsatisfiable": "DoNotSchedule",
               "labelSelector": {"matchLabels": {"app": "s"}}} for k in KEYS]

    def labelled(name: str, hi: str, cpu: str = "4") -> dict:
        return node(name, cpu=cpu, labels={k: "hi" if k == hi or hi == "all" else "lo"
                                           for k in KEYS})
    cluster = cluster_of(
        labelled("h", "all", cpu="1"),
        labelled("n1", "k1"), labelled("n2", "k2"), labelled("n3", "k3"),
        labelled("n4", "k4"), labelled("n5", "k4"), labelled("n6", "k4"),
        pod("held", "1", node_name="h", labels={"app": "s"}, priority=100),
        pod("p", "1", labels={"app": "s"}, spec_extra={"topologySpreadConstraints": spread}))
    report = {e["plugin"]: e for e in filter_report(cluster, cluster.find_pod("default/p"), NOW)}
    entry = report["PodTopologySpread"]
    assert entry["nodes"] == 6
    assert entry["suggestion"]["change"] == "raise maxSkew of the k4 constraint from 1 to 2"
    assert entry["suggestion"]["admits"] == 3
    assert entry["suggestion"]["node"] in ("n4", "n5", "n6")

"""ImageLocality score arithmetic (upstream image_locality.go)."""

from builders import cluster_of, node, pod

from kubepreempt.decide import schedule
from kubepreempt.scheduler.plugins.image_locality import normalized_image_name

MB = 1024 * 1024


def _with_images(n: dict, *images: tuple[str, int]) -> dict:
    n["status"]["images"] = [{"names": [name], "sizeBytes": size} for name, size in images]
    return n


def test_normalized_names() -> None:
    assert normalized_image_name("nginx") == "nginx:latest"
    assert normalized_image_name("gcr.io/x/nginx:1.2") == "gcr.io/x/nginx:1.2"
    assert normalized_image_name("localhost:5000/nginx") == "localhost:5000/nginx:latest"


def test_image_present_on_one_of_two_nodes() -> None:
    # 500Mi image on n1 only: spread 1/2 -> 250Mi; one container: max threshold 1000Mi.
    # score = 100 * (250 - 23) / (1000 - 23) = 23 (integer division); n2: 0.
    c = cluster_of(_with_images(node("n1"), ("big:1", 500 * MB)), node("n2"),
                   pod("p", "1", spec_extra={"containers": [{"name": "c", "image": "big:1"}]}))
    d = schedule(c, "default/p")
    assert d.scores["n1"]["ImageLocality"] == 100 * (250 * MB - 23 * MB) // (977 * MB)
    assert d.scores["n1"]["ImageLocality"] == 23
    assert d.scores["n2"]["ImageLocality"] == 0
    assert d.node == "n1"

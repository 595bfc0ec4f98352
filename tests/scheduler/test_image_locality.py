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
    # A registry port and a tag: the tag is after the last "/", so nothing is added.
    assert normalized_image_name("localhost:5000/nginx:1.2") == "localhost:5000/nginx:1.2"


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


def test_init_container_images_count_and_raise_the_threshold() -> None:
    # sumImageScores adds the images of init containers and of containers;
    # calculatePriority's maxThreshold is maxContainerThreshold * (inits + containers).
    # n1 holds both images (1 of 2 nodes): 500Mi/2 + 300Mi/2 = 400Mi, threshold 2000Mi:
    # 100 * (400 - 23) // (2000 - 23) = 19.
    c = cluster_of(_with_images(node("n1"), ("init:1", 500 * MB), ("app:1", 300 * MB)),
                   node("n2"),
                   pod("p", "1", spec_extra={
                       "initContainers": [{"name": "i", "image": "init:1"}],
                       "containers": [{"name": "c", "image": "app:1"}]}))
    d = schedule(c, "default/p")
    assert d.scores["n1"]["ImageLocality"] == 100 * (400 * MB - 23 * MB) // (1977 * MB)
    assert d.scores["n1"]["ImageLocality"] == 19
    assert d.scores["n2"]["ImageLocality"] == 0

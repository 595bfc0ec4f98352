"""``ParseImageName`` (``pkg/util/parsers``) with ``github.com/distribution/reference``'s
``ParseNormalizedNamed``, and the pull policy ``SetDefaults_Container`` derives from it:
``Always`` only for the tag ``latest``; a reference that does not parse leaves the tag
empty (the error is ignored) and so defaults to ``IfNotPresent``."""

from __future__ import annotations

import pytest

from kubepreempt.controllers.expand import default_pod_template, parse_image_tag

SHA256 = "sha256:" + "a" * 64


@pytest.mark.parametrize(("image", "parsed"), [
    ("nginx", ("latest", "")),
    ("docker.io/library/nginx:1.27", ("1.27", "")),
    ("index.docker.io/nginx:latest", ("latest", "")),
    # splitDockerDomain: localhost, a dot, a port or upper case make the first segment a
    # registry (whose domain components may be upper case)
    ("localhost/app:v1", ("v1", "")),
    ("Registry.Example/team/app", ("latest", "")),
    ("[::1]:5000/app:v1", ("v1", "")),
    (f"nginx@{SHA256}", ("", SHA256)),
    ("nginx@sha512:" + "b" * 128, ("", "sha512:" + "b" * 128)),
    # the tag grammar: a word character, then up to 127 of [\w.-]
    ("app:" + "t" * 128, ("t" * 128, "")),
    ("app:" + "t" * 129, None),
    ("app:.v1", None),
    # ParseNormalizedNamed errors
    ("", None),                      # ErrNameEmpty
    ("Nginx", None),                 # repository name must be lowercase
    ("team/App:v1", None),
    ("a" * 64, None),                # a 64-hex image ID, not a name
    ("nginx:latest:x", None),        # two tags
    ("team/app:latest/x", None),     # a colon inside the path
    ("nginx@sha256:abc", None),      # ErrDigestInvalidLength
    ("nginx@sha256:" + "A" * 64, None),   # sha256 encodings are lower-case hex
    ("nginx@md5:" + "c" * 32, None),  # ErrDigestUnsupported
    ("-app", None),                  # a path component starts with [a-z0-9]
    ("app__x", ("latest", "")),      # double underscore separates components
    ("app___x", None),
    ("registry.example/" + "a" * 239, None),  # a 256-character name (NameTotalLengthMax)
    ("registry.example/" + "a" * 238, ("latest", "")),
])
def test_parse_image_tag(image: str, parsed: tuple[str, str] | None) -> None:
    assert parse_image_tag(image) == parsed


@pytest.mark.parametrize(("image", "policy"), [
    ("Nginx", "IfNotPresent"), ("", "IfNotPresent"), ("nginx:latest:x", "IfNotPresent"),
    ("nginx:x:latest", "IfNotPresent"), ("team/app:latest/x", "IfNotPresent"),
    ("localhost/app", "Always"), ("Registry.Example/app:latest", "Always"),
])
def test_pull_policy_of_images_that_do_not_parse(image: str, policy: str) -> None:
    """The stored template's pull policy for references ``ParseImageName`` refuses (API
    validation only checks an image is set and has no surrounding spaces)."""
    stored = default_pod_template({"spec": {"containers": [{"name": "c", "image": image}]}})
    assert stored["spec"]["containers"][0]["imagePullPolicy"] == policy


def test_a_container_without_an_image_defaults_to_if_not_present() -> None:
    """``ParseImageName("")`` fails (``ErrNameEmpty``), so the tag stays empty."""
    stored = default_pod_template({"spec": {"containers": [{"name": "c"}]}})
    assert stored["spec"]["containers"][0]["imagePullPolicy"] == "IfNotPresent"


@pytest.mark.parametrize(("image", "parsed"), [
    # splitDockerDomain: a first segment with upper case is a registry (whose domain
    # components may be upper case); the lower-case check is on the rest
    ("TEAM/app", ("latest", "")), ("Team/app", ("latest", "")),
    ("nginx:V1", ("V1", "")),        # only the repository must be lower case, not the tag
    # NameTotalLengthMax (255) counts the normalized name: docker.io/library/<name> ...
    ("a" * 237, ("latest", "")), ("a" * 238, None),
    # ... docker.io/<team>/<name> ...
    ("team/" + "a" * 240, ("latest", "")), ("team/" + "a" * 241, None),
    # ... index.docker.io normalized to docker.io (then library/) ...
    ("index.docker.io/" + "a" * 237, ("latest", "")), ("index.docker.io/" + "a" * 238, None),
    ("index.docker.io/team/" + "a" * 240, ("latest", "")),  # the registry is the first part
    # ... and a localhost registry as written
    ("localhost/" + "a" * 245, ("latest", "")), ("localhost/" + "a" * 246, None),
])
def test_normalization_before_the_grammar(image: str, parsed: tuple[str, str] | None) -> None:
    assert parse_image_tag(image) == parsed

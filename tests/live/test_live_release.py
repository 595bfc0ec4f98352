"""With --cluster and no --kube-version, the server's own release is modelled (GET
/version), or the nearest modelled one, said in one line on stderr."""

from __future__ import annotations

import json

import pytest
from conftest import VERSION, serve_lists

from kubepreempt.cli import main

POD = "shop/checkout-0"


def schedule(kubeconfig, capsys, *extra: str) -> tuple[int, dict, str]:
    code = main(["schedule", "--kubeconfig", str(kubeconfig), "--pod", POD, "-o", "json",
                 *extra])
    out = capsys.readouterr()
    return code, json.loads(out.out) if code == 0 else {}, out.err


def test_the_servers_own_release_silently(apiserver, kubeconfig, capsys) -> None:
    code, out, err = schedule(kubeconfig, capsys)
    assert code == 0 and err == ""
    assert out["modelled"]["kubernetes"] == "1.36"  # the recording is of v1.36.2


@pytest.mark.parametrize(("minor", "modelled"), [("38", "1.37"), ("35", "1.36"),
                                                 ("39+", "1.37")])
def test_an_unmodelled_server_gets_the_nearest_release(httpserver, kubeconfig, capsys,
                                                        minor, modelled) -> None:
    # Registered first, so it answers before serve_lists' own /version.
    httpserver.expect_request("/version").respond_with_json({**VERSION, "minor": minor})
    serve_lists(httpserver)
    code, out, err = schedule(kubeconfig, capsys)
    assert code == 0
    assert out["modelled"]["kubernetes"] == modelled
    server = f"1.{minor.rstrip('+')}"
    assert err == (f"warning: the cluster runs Kubernetes {server}, which kubepreempt does "
                   f"not model; modelling the nearest release, {modelled} (--kube-version "
                   "chooses)\n")


def test_kube_version_overrides_the_server(apiserver, kubeconfig, capsys) -> None:
    code, out, err = schedule(kubeconfig, capsys, "--kube-version", "1.37")
    assert code == 0 and err == ""
    assert out["modelled"]["kubernetes"] == "1.37"


def test_a_server_that_does_not_say_its_version(httpserver, kubeconfig, capsys) -> None:
    httpserver.expect_request("/version").respond_with_data("nope", status=404)
    serve_lists(httpserver)
    code, out, err = schedule(kubeconfig, capsys)
    assert code == 0
    assert out["modelled"]["kubernetes"] == "1.37"
    assert err == ("warning: the cluster did not say its Kubernetes version; modelling 1.37 "
                   "(--kube-version chooses)\n")

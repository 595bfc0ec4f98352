"""Kubeconfig handling as kubectl does it: bearer token, exec credential plugin, client
certificate over TLS, in-cluster service account, KUBECONFIG merging and --context."""

from __future__ import annotations

import datetime
import ipaddress
import ssl
import stat
import sys
from base64 import b64encode
from pathlib import Path

import pytest
from builders.live import exec_plugin
from conftest import TOKEN, serve_lists, write_kubeconfig
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from pytest_httpserver import HTTPServer

from kubepreempt.api.errors import InputError
from kubepreempt.live.client import ApiClient
from kubepreempt.live.kubeconfig import resolve
from kubepreempt.live.lister import list_all
from kubepreempt.live.resources import RESOURCES

NODES = RESOURCES["Node"]


def node_names(client: ApiClient) -> list[str]:
    return [n["metadata"]["name"] for n in list_all(client, NODES).items]


@pytest.mark.parametrize("api_version", ["client.authentication.k8s.io/v1",
                                         "client.authentication.k8s.io/v1beta1"])
def test_exec_credential_plugin(httpserver, tmp_path, api_version) -> None:
    serve_lists(httpserver, token="from-plugin")
    plugin = exec_plugin(tmp_path, api_version, "from-plugin")
    runs = tmp_path / "runs.txt"
    kc = write_kubeconfig(tmp_path / "kc", httpserver.url_for("/").rstrip("/"), {"exec": {
        "apiVersion": api_version, "command": str(plugin), "args": [str(runs)],
        "env": [{"name": "PLUGIN_ENV", "value": "from-kubeconfig"}],
        "interactiveMode": "Never"}})
    with ApiClient(resolve(str(kc))) as client:
        assert len(node_names(client)) == 12
        assert len(node_names(client)) == 12
    assert runs.read_text() == "ran\n"  # the token is cached, not fetched per request


def test_exec_plugin_failure_is_an_input_error(httpserver, tmp_path) -> None:
    kc = write_kubeconfig(tmp_path / "kc", httpserver.url_for("/").rstrip("/"), {"exec": {
        "apiVersion": "client.authentication.k8s.io/v1", "command": str(tmp_path / "nope"),
        "installHint": "install the nope plugin"}})
    with ApiClient(resolve(str(kc))) as client, \
            pytest.raises(InputError, match="install the nope plugin"):
        node_names(client)


def test_wrong_token_is_rejected_by_the_server(httpserver, tmp_path) -> None:
    serve_lists(httpserver)  # requires TOKEN; anything else gets no handler (500)
    kc = write_kubeconfig(tmp_path / "kc", httpserver.url_for("/").rstrip("/"),
                          {"token": "wrong"})
    with ApiClient(resolve(str(kc))) as client, pytest.raises(InputError, match="HTTP 500"):
        node_names(client)


# ---- TLS: a throwaway CA, a server certificate for 127.0.0.1, a client certificate ----

def _cert(subject: str, key, issuer_key, issuer_name: x509.Name | None, *, ca: bool = False,
          server: bool = False) -> x509.Certificate:
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)])
    now = datetime.datetime.now(datetime.UTC)
    builder = (x509.CertificateBuilder().subject_name(name).issuer_name(issuer_name or name)
               .public_key(key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(now - datetime.timedelta(minutes=5))
               .not_valid_after(now + datetime.timedelta(hours=1))
               .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
    if ca:
        builder = builder.add_extension(x509.KeyUsage(
            digital_signature=True, key_cert_sign=True, crl_sign=True, content_commitment=False,
            key_encipherment=False, data_encipherment=False, key_agreement=False,
            encipher_only=False, decipher_only=False), critical=True)
    if server:
        builder = builder.add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False).add_extension(
            x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
    elif not ca:
        builder = builder.add_extension(
            x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False)
    return builder.sign(issuer_key, hashes.SHA256())


def _pem(cert: x509.Certificate) -> bytes:
    return cert.public_bytes(serialization.Encoding.PEM)


def _key_pem(key) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


@pytest.fixture
def pki(tmp_path: Path) -> dict[str, bytes]:
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = _cert("test-ca", ca_key, ca_key, None, ca=True)
    server_key = ec.generate_private_key(ec.SECP256R1())
    server = _cert("127.0.0.1", server_key, ca_key, ca.subject, server=True)
    client_key = ec.generate_private_key(ec.SECP256R1())
    client = _cert("alice", client_key, ca_key, ca.subject)
    return {"ca": _pem(ca), "server": _pem(server), "server_key": _key_pem(server_key),
            "client": _pem(client), "client_key": _key_pem(client_key)}


def tls_server(tmp_path: Path, pki: dict[str, bytes], client_cert: bool) -> HTTPServer:
    for name in ("ca", "server", "server_key"):
        (tmp_path / f"{name}.pem").write_bytes(pki[name])
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(tmp_path / "server.pem", tmp_path / "server_key.pem")
    if client_cert:
        ctx.verify_mode = ssl.CERT_REQUIRED  # the handshake fails without our client cert
        ctx.load_verify_locations(tmp_path / "ca.pem")
    server = HTTPServer(host="127.0.0.1", port=0, ssl_context=ctx, threaded=True)
    server.start()
    return server


def test_client_certificate_over_tls(tmp_path, pki) -> None:
    server = tls_server(tmp_path, pki, client_cert=True)
    try:
        serve_lists(server, token=None)
        b64 = {k: b64encode(v).decode() for k, v in pki.items()}
        kc = write_kubeconfig(tmp_path / "kc", server.url_for("/").rstrip("/"),
                              {"client-certificate-data": b64["client"],
                               "client-key-data": b64["client_key"]},
                              cluster={"certificate-authority-data": b64["ca"]})
        with ApiClient(resolve(str(kc))) as client:
            assert len(node_names(client)) == 12
        # Files relative to the kubeconfig work too, as kubectl resolves them.
        (tmp_path / "client.pem").write_bytes(pki["client"])
        (tmp_path / "client-key.pem").write_bytes(pki["client_key"])
        kc2 = write_kubeconfig(tmp_path / "kc2", server.url_for("/").rstrip("/"),
                               {"client-certificate": "client.pem",
                                "client-key": "client-key.pem"},
                               cluster={"certificate-authority": "ca.pem"})
        with ApiClient(resolve(str(kc2))) as client:
            assert len(node_names(client)) == 12
        # Without the client certificate the server refuses the handshake: one-line error.
        kc3 = write_kubeconfig(tmp_path / "kc3", server.url_for("/").rstrip("/"), {},
                               cluster={"certificate-authority-data": b64["ca"]})
        with ApiClient(resolve(str(kc3))) as client, \
                pytest.raises(InputError, match="cannot reach the cluster"):
            node_names(client)
    finally:
        server.stop()


def test_untrusted_server_certificate_is_refused(tmp_path, pki) -> None:
    server = tls_server(tmp_path, pki, client_cert=False)
    try:
        serve_lists(server)
        kc = write_kubeconfig(tmp_path / "kc", server.url_for("/").rstrip("/"),
                              {"token": TOKEN})  # no CA: the system store does not trust it
        with ApiClient(resolve(str(kc))) as client, \
                pytest.raises(InputError, match="CERTIFICATE_VERIFY_FAILED"):
            node_names(client)
    finally:
        server.stop()


def test_in_cluster_service_account(tmp_path, pki, monkeypatch) -> None:
    server = tls_server(tmp_path, pki, client_cert=False)
    try:
        serve_lists(server, token="sa-token")
        sa = tmp_path / "sa"
        sa.mkdir()
        (sa / "token").write_text("sa-token")
        (sa / "namespace").write_text("shop")
        (sa / "ca.crt").write_bytes(pki["ca"])
        monkeypatch.setenv("KUBERNETES_SERVICE_HOST", "127.0.0.1")
        monkeypatch.setenv("KUBERNETES_SERVICE_PORT", str(server.port))
        target = resolve(service_account=str(sa))
        assert target.namespace == "shop"
        assert target.server == f"https://127.0.0.1:{server.port}"
        with ApiClient(target) as client:
            assert len(node_names(client)) == 12
    finally:
        server.stop()


def test_kubeconfig_env_list_is_merged_first_wins(tmp_path, monkeypatch) -> None:
    a = write_kubeconfig(tmp_path / "a", "https://a.example:6443", {"token": "a"})
    b = tmp_path / "b"
    b.write_text("""
current-context: other
clusters: [{name: test, cluster: {server: "https://ignored:1"}},
           {name: other, cluster: {server: "https://b.example:6443"}}]
contexts: [{name: other, context: {cluster: other, user: other, namespace: batch}}]
users: [{name: other, user: {token: b}}]
""")
    monkeypatch.setenv("KUBECONFIG", f"{a}:{tmp_path / 'missing'}:{b}")
    assert resolve().server == "https://a.example:6443"  # a's current-context and cluster
    other = resolve(context="other")
    assert other.server == "https://b.example:6443" and other.namespace == "batch"
    with pytest.raises(InputError, match="context 'nope' not found"):
        resolve(context="nope")


def test_default_kubeconfig_then_in_cluster(tmp_path, monkeypatch) -> None:
    with pytest.raises(InputError, match="no kubeconfig found"):
        resolve()
    home = Path(str(tmp_path / "home"))
    (home / ".kube").mkdir(parents=True)
    write_kubeconfig(home / ".kube" / "config", "https://home.example", {"token": "t"})
    assert resolve().server == "https://home.example"
    with pytest.raises(InputError, match="--kubeconfig /nope: no such file"):
        resolve("/nope")


def test_exec_token_rejected_with_401_is_fetched_again(httpserver, tmp_path) -> None:
    from conftest import recording
    from werkzeug import Request, Response

    runs = tmp_path / "runs.txt"
    plugin = tmp_path / "rotating.py"
    plugin.write_text(f"""#!{sys.executable}
import json, pathlib
runs = pathlib.Path({str(runs)!r})
n = len(runs.read_text().splitlines()) + 1 if runs.exists() else 1
runs.write_text("ran\\n" * n)
print(json.dumps({{"apiVersion": "client.authentication.k8s.io/v1", "kind": "ExecCredential",
                  "status": {{"token": f"t{{n}}"}}}}))
""")
    plugin.chmod(plugin.stat().st_mode | stat.S_IEXEC)
    nodes = recording("nodes")

    def handler(request: Request) -> Response:
        if request.headers.get("Authorization") != "Bearer t2":  # t1 has been revoked
            rec = recording("error-401")
            return Response(rec["body"], status=401, content_type="application/json")
        return Response(nodes["body"], content_type="application/json")

    httpserver.expect_request("/api/v1/nodes").respond_with_handler(handler)
    kc = write_kubeconfig(tmp_path / "kc", httpserver.url_for("/").rstrip("/"), {"exec": {
        "apiVersion": "client.authentication.k8s.io/v1", "command": str(plugin)}})
    with ApiClient(resolve(str(kc))) as client:
        assert len(node_names(client)) == 12
        assert len(node_names(client)) == 12
    assert runs.read_text() == "ran\nran\n"

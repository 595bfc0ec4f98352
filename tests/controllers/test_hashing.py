"""The hashing pipelines, byte for byte: Go ``encoding/json.Marshal`` (HTML-safe escapes
in lower-case hex, U+2028/U+2029 escaped, other non-ASCII kept as UTF-8),
``controller.ComputeHash`` (FNV-1a of the template, then the collision count as 8 bytes,
``binary.LittleEndian.PutUint32`` into the first four) and
``history.HashControllerRevision`` (FNV-1 of the data, then the probe's decimal when
set)."""

from __future__ import annotations

from kubepreempt.controllers.expand import (
    compute_hash,
    fnv32,
    fnv32a,
    go_json,
    hash_controller_revision,
    safe_encode_string,
)

TEMPLATE = {"metadata": {"labels": {"app": "web"}},
            "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}]}}


def test_go_json_escapes_as_encoding_json_does() -> None:
    assert go_json({"b": "<x>&é\u2028\u2029", "a": 1}) == (
        b'{"a":1,"b":"\\u003cx\\u003e\\u0026\xc3\xa9\\u2028\\u2029"}')


def test_compute_hash_feeds_the_template_then_eight_count_bytes() -> None:
    data = go_json(TEMPLATE)
    assert compute_hash(TEMPLATE, None) == safe_encode_string(str(fnv32a(data)))
    assert compute_hash(TEMPLATE, 1) == safe_encode_string(
        str(fnv32a(data + b"\x01\x00\x00\x00\x00\x00\x00\x00")))
    # uint32(*collisionCount): a count of 2^32 + 3 is written as 3
    assert compute_hash(TEMPLATE, (1 << 32) + 3) == safe_encode_string(
        str(fnv32a(data + b"\x03" + bytes(7))))
    other = {**TEMPLATE, "metadata": {"labels": {"app": "api"}}}
    assert compute_hash(other, None) != compute_hash(TEMPLATE, None)


def test_hash_controller_revision_without_a_probe_hashes_the_data_alone() -> None:
    raw = b'{"spec":{}}'
    assert hash_controller_revision(raw, None) == safe_encode_string(str(fnv32(raw)))
    assert hash_controller_revision(raw, 7) == safe_encode_string(str(fnv32(raw + b"7")))

"""The apimachinery layer against upstream's own test tables and wording.

Good and bad values are k8s.io/apimachinery's (``pkg/util/validation/validation_test.go``:
TestIsQualifiedName, TestIsValidLabelValue, TestIsDNS1123Label, TestIsDNS1123Subdomain);
the messages are those ``pkg/api/validate/content`` (label keys and values: bytes) and
``pkg/util/validation`` (DNS names: characters) of Kubernetes 1.36 build.
"""

from __future__ import annotations

import pytest

from kubepreempt.apimachinery.field import (
    GoStruct,
    aggregate,
    duplicate,
    forbidden,
    invalid,
    invalid_message,
    not_supported,
    required,
)
from kubepreempt.apimachinery.validation import (
    dns1123_label,
    dns1123_subdomain,
    is_dns1123_subdomain,
    is_valid_label_value,
    label_value,
    qualified_name,
    regex_error,
)

QUALIFIED_GOOD = [
    "simple", "now-with-dashes", "1-starts-with-num", "1234", "simple/simple",
    "now-with-dashes/simple", "now-with-dashes/now-with-dashes", "now.with.dots/simple",
    "now-with.dashes-and.dots/simple", "1-num.2-num/3-num", "1234/5678", "1.2.3.4/5678",
    "Uppercase_Is_OK_123", "example.com/Uppercase_Is_OK_123", "requests.storage-foo",
    "a" * 63, "a" * 253 + "/" + "b" * 63,
]
QUALIFIED_BAD = [
    "nospecialchars%^=@", "cantendwithadash-", "-cantstartwithadash-", "only/one/slash",
    "Example.com/abc", "example_com/abc", "example.com/", "/simple", "a" * 64,
    "a" * 254 + "/abc",
]
LABEL_VALUE_GOOD = ["simple", "now-with-dashes", "1-starts-with-num", "end-with-num-1", "1234",
                    "a" * 63, ""]
LABEL_VALUE_BAD = ["nospecialchars%^=@", "Tama-nui-te-rā.is.Māori.sun", "\\backslashes\\are\\bad",
                   "-starts-with-dash", "ends-with-dash-", ".starts.with.dot", "ends.with.dot.",
                   "a" * 64]
DNS_LABEL_GOOD = ["a", "ab", "abc", "a1", "a-1", "a--1--2--b", "0", "01", "012", "1a", "1-a",
                  "1--a--b--2", "a" * 63]
DNS_LABEL_BAD = ["", "A", "ABC", "aBc", "A1", "A-1", "1-A", "-", "a-", "-a", "1-", "-1",
                 "_", "a_", "_a", "a_b", "1_", "_1", "1_2", ".", "a.", ".a", "a.b", "1.", ".1",
                 "1.2", " ", "a ", " a", "a b", "1 ", " 1", "1 2", "a" * 64]
DNS_SUBDOMAIN_GOOD = [
    "a", "ab", "abc", "a1", "a-1", "a--1--2--b", "0", "01", "012", "1a", "1-a", "1--a--b--2",
    "a.a", "ab.a", "abc.a", "a1.a", "a-1.a", "a--1--2--b.a", "a.1", "ab.1", "abc.1", "a1.1",
    "a-1.1", "a--1--2--b.1", "0.a", "01.a", "012.a", "1a.a", "1-a.a", "1--a--b--2", "0.1",
    "01.1", "012.1", "1a.1", "1-a.1", "1--a--b--2.1", "a.b.c.d.e", "aa.bb.cc.dd.ee",
    "1.2.3.4.5", "11.22.33.44.55", "a" * 253,
]
DNS_SUBDOMAIN_BAD = [
    "", "A", "ABC", "aBc", "A1", "A-1", "1-A", "-", "a-", "-a", "1-", "-1", "_", "a_", "_a",
    "a_b", "1_", "_1", "1_2", ".", "a.", ".a", "a..b", "1.", ".1", "1..2", " ", "a ", " a",
    "a b", "1 ", " 1", "1 2", "A.a", "aB.a", "ab.A", "A1.a", "a1.A", "A.1", "aB.1", "A1.1",
    "1A.1", "0.A", "01.A", "012.A", "1A.a", "1a.A", "A.B.C.D.E", "AA.BB.CC.DD.EE",
    "a.B.c.d.e", "aa.bB.cc.dd.ee", "a@b", "a,b", "a_b", "a;b", "a:b", "a%b", "a?b", "a$b",
    "a" * 254,
]

NAME_REGEX = ("must consist of alphanumeric characters, '-', '_' or '.', and must start and "
              "end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or "
              "'123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?"
              "[A-Za-z0-9]')")
LABEL_VALUE_REGEX = ("a valid label must be an empty string or consist of alphanumeric "
                     "characters, '-', '_' or '.', and must start and end with an alphanumeric "
                     "character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for "
                     "validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")
SUBDOMAIN_REGEX = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
                   "characters, '-' or '.', and must start and end with an alphanumeric "
                   "character (e.g. 'example.com', regex used for validation is "
                   "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
LABEL_REGEX = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters "
               "or '-', and must start and end with an alphanumeric character (e.g. 'my-name',"
               "  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')")


@pytest.mark.parametrize("value", QUALIFIED_GOOD)
def test_qualified_name_good(value: str) -> None:
    assert qualified_name(value) == ()


@pytest.mark.parametrize("value", QUALIFIED_BAD)
def test_qualified_name_bad(value: str) -> None:
    assert qualified_name(value)


@pytest.mark.parametrize("value", LABEL_VALUE_GOOD)
def test_label_value_good(value: str) -> None:
    assert label_value(value) == ()
    assert is_valid_label_value(value)


@pytest.mark.parametrize("value", LABEL_VALUE_BAD)
def test_label_value_bad(value: str) -> None:
    assert label_value(value)
    assert not is_valid_label_value(value)


@pytest.mark.parametrize("value", DNS_LABEL_GOOD)
def test_dns1123_label_good(value: str) -> None:
    assert dns1123_label(value) == ()
    assert dns1123_label(value) == ()  # the remembered answer too


@pytest.mark.parametrize("value", DNS_LABEL_BAD)
def test_dns1123_label_bad(value: str) -> None:
    assert dns1123_label(value)


@pytest.mark.parametrize("value", DNS_SUBDOMAIN_GOOD)
def test_dns1123_subdomain_good(value: str) -> None:
    assert dns1123_subdomain(value) == ()
    assert is_dns1123_subdomain(value)


@pytest.mark.parametrize("value", DNS_SUBDOMAIN_BAD)
def test_dns1123_subdomain_bad(value: str) -> None:
    assert dns1123_subdomain(value)
    assert not is_dns1123_subdomain(value)


@pytest.mark.parametrize(("value", "messages"), [
    # content.IsLabelKey: MaxLenError in bytes, and the regex checked even when too long.
    ("a" * 64, ("name part must be no more than 63 bytes",)),
    ("a" * 63 + "-", ("name part must be no more than 63 bytes", "name part " + NAME_REGEX)),
    ("cantendwithadash-", ("name part " + NAME_REGEX,)),
    # An empty name fails both the emptiness and the regex check.
    ("example.com/", ("name part must be non-empty", "name part " + NAME_REGEX)),
    ("/simple", ("prefix part must be non-empty",)),
    # The prefix is checked by the content package's IsDNS1123Subdomain: bytes again.
    ("a" * 254 + "/abc", ("prefix part must be no more than 253 bytes",)),
    ("Example.com/abc", ("prefix part " + SUBDOMAIN_REGEX,)),
    ("only/one/slash", ("a valid label key " + NAME_REGEX + " with an optional DNS subdomain "
                        "prefix and '/' (e.g. 'example.com/MyName')",)),
])
def test_qualified_name_messages(value: str, messages: tuple[str, ...]) -> None:
    assert qualified_name(value) == messages


def test_label_value_messages() -> None:
    assert label_value("a" * 64) == ("must be no more than 63 bytes",)
    assert label_value("-a") == (LABEL_VALUE_REGEX,)
    # Go's len counts UTF-8 bytes: 40 characters of two bytes each are too long.
    assert label_value("é" * 40) == ("must be no more than 63 bytes", LABEL_VALUE_REGEX)


def test_dns_messages_keep_util_validation_wording() -> None:
    assert dns1123_label("a" * 64) == ("must be no more than 63 characters",)
    assert dns1123_label("a.b") == ("must not contain dots",)
    assert dns1123_label("A") == (LABEL_REGEX,)
    assert dns1123_subdomain("a" * 254) == ("must be no more than 253 characters",)
    assert dns1123_subdomain("a_b") == (SUBDOMAIN_REGEX,)


def test_regex_error_without_examples() -> None:
    assert regex_error("bad", "x+") == "bad (regex used for validation is 'x+')"


def test_field_errors_render_as_field_error() -> None:
    assert str(invalid("spec.x", "v", "bad")) == 'spec.x: Invalid value: "v": bad'
    assert str(invalid("spec.x", 3, "bad")) == "spec.x: Invalid value: 3: bad"
    assert str(invalid("spec.x", True, "bad")) == "spec.x: Invalid value: true: bad"
    assert str(invalid("spec", GoStruct(Key="k", Value=None), "bad")) == (
        'spec: Invalid value: {"Key":"k","Value":null}: bad')
    assert str(required("spec.x")) == "spec.x: Required value"
    assert str(required("spec.x", "why")) == "spec.x: Required value: why"
    assert str(forbidden("spec.x", "why")) == "spec.x: Forbidden: why"
    assert str(duplicate("spec.x", "a")) == 'spec.x: Duplicate value: "a"'
    assert str(not_supported("spec.x", "b", ["A", "C"])) == (
        'spec.x: Unsupported value: "b": supported values: "A", "C"')


def test_aggregate_and_new_invalid() -> None:
    one, two = invalid("a", 1, "x"), required("b")
    assert aggregate([one]) == "a: Invalid value: 1: x"
    assert aggregate([one, two, one]) == "[a: Invalid value: 1: x, b: Required value]"
    assert aggregate(["plain", "plain"]) == "plain"
    assert invalid_message("PriorityClass.scheduling.k8s.io", "p", [two]) == (
        'PriorityClass.scheduling.k8s.io "p" is invalid: b: Required value')

"""Name and label formats, worded as k8s.io/apimachinery 1.36 words them.

Two upstream packages share the work and differ in one word:

* ``pkg/api/validate/content`` (``kube.go``, ``dns.go``, ``errors.go``): ``IsLabelKey``
  (alias ``IsQualifiedName``) and ``IsLabelValue``, which ``util/validation``'s
  ``IsQualifiedName`` and ``IsValidLabelValue`` now are. Its ``MaxLenError`` (errors.go)
  says ``must be no more than 63 bytes``, and a label key's prefix is checked with the
  content package's own ``IsDNS1123Subdomain``, so its length error says bytes too.
* ``pkg/util/validation/validation.go``: ``IsDNS1123Label`` and ``IsDNS1123Subdomain``,
  which object names, namespaces and container names are checked with; its own
  ``MaxLenError`` still says ``must be no more than 63 characters``.

Each check returns its messages, empty when the value is valid. Lengths are counted in
bytes of UTF-8, as Go's ``len`` counts them.
"""

from __future__ import annotations

import re
from functools import lru_cache

QUALIFIED_NAME_MAX_LENGTH = 63
LABEL_VALUE_MAX_LENGTH = 63
DNS1123_LABEL_MAX_LENGTH = 63
DNS1123_SUBDOMAIN_MAX_LENGTH = 253

_LABEL_KEY_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_KEY = re.compile(_LABEL_KEY_FMT)
_LABEL_KEY_MSG = ("must consist of alphanumeric characters, '-', '_' or '.', and must start and "
                  "end with an alphanumeric character")
_LABEL_VALUE_FMT = f"({_LABEL_KEY_FMT})?"
_LABEL_VALUE = re.compile(_LABEL_VALUE_FMT)
_LABEL_VALUE_MSG = ("a valid label must be an empty string or consist of alphanumeric "
                    "characters, '-', '_' or '.', and must start and end with an alphanumeric "
                    "character")
_DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_LABEL = re.compile(_DNS1123_LABEL_FMT)
_DNS1123_LABEL_MSG = ("a lowercase RFC 1123 label must consist of lower case alphanumeric "
                      "characters or '-', and must start and end with an alphanumeric character")
_DNS1123_SUBDOMAIN_FMT = _DNS1123_LABEL_FMT + r"(\." + _DNS1123_LABEL_FMT + ")*"
_DNS1123_SUBDOMAIN = re.compile(_DNS1123_SUBDOMAIN_FMT)
_DNS1123_SUBDOMAIN_MSG = ("a lowercase RFC 1123 subdomain must consist of lower case "
                          "alphanumeric characters, '-' or '.', and must start and end with an "
                          "alphanumeric character")


def regex_error(msg: str, fmt: str, *examples: str) -> str:
    """``RegexError``: the message, its examples and the regex (each example is followed by
    ``", "``, so a double space precedes every ``or``, as upstream prints it)."""
    if not examples:
        return f"{msg} (regex used for validation is '{fmt}')"
    text = msg + " (e.g. "
    for i, example in enumerate(examples):
        if i:
            text += " or "
        text += f"'{example}', "
    return text + f"regex used for validation is '{fmt}')"


def max_len_error(length: int) -> str:
    """``content.MaxLenError`` (api/validate/content/errors.go): label keys and values."""
    return f"must be no more than {length} bytes"


def max_len_characters_error(length: int) -> str:
    """``util/validation.MaxLenError`` (validation.go): DNS-1123 names."""
    return f"must be no more than {length} characters"


def empty_error() -> str:
    """``EmptyError``."""
    return "must be non-empty"


def _byte_len(value: str) -> int:
    # Go's len counts UTF-8 bytes; every valid value is ASCII, so encode only the others.
    return len(value) if value.isascii() else len(value.encode("utf-8", "surrogatepass"))


def _subdomain_errors(value: str, too_long: str) -> tuple[str, ...]:
    errs = []
    if _byte_len(value) > DNS1123_SUBDOMAIN_MAX_LENGTH:
        errs.append(too_long)
    if not _DNS1123_SUBDOMAIN.fullmatch(value):
        errs.append(regex_error(_DNS1123_SUBDOMAIN_MSG, _DNS1123_SUBDOMAIN_FMT, "example.com"))
    return tuple(errs)


def dns1123_subdomain(value: str) -> tuple[str, ...]:
    """``util/validation.IsDNS1123Subdomain``: object names, node names."""
    # Object names are nearly all unique and valid: one match, no cache to thrash.
    if len(value) <= DNS1123_SUBDOMAIN_MAX_LENGTH and _DNS1123_SUBDOMAIN.fullmatch(value):
        return ()
    return _subdomain_errors(value, max_len_characters_error(DNS1123_SUBDOMAIN_MAX_LENGTH))


#: The DNS-1123 subdomain format alone (the length is the caller's), as a bound method: the
#: pod fast acceptor calls it once per pod, where a wrapper's call costs 3% of validation.
match_dns1123_subdomain_format = _DNS1123_SUBDOMAIN.fullmatch


def is_dns1123_subdomain(value: str) -> bool:
    """True when :func:`dns1123_subdomain` finds nothing wrong."""
    return len(value) <= DNS1123_SUBDOMAIN_MAX_LENGTH and bool(_DNS1123_SUBDOMAIN.fullmatch(value))


# Valid DNS labels seen (namespaces and container names repeat over every pod); the pod
# fast acceptor reads it, only dns1123_label fills it.
KNOWN_DNS1123_LABELS: set[str] = set()


def dns1123_label(value: str) -> tuple[str, ...]:
    """``util/validation.IsDNS1123Label``: namespaces, container names."""
    if value in KNOWN_DNS1123_LABELS:
        return ()
    if len(value) <= DNS1123_LABEL_MAX_LENGTH and _DNS1123_LABEL.fullmatch(value):
        if len(KNOWN_DNS1123_LABELS) < 65536:
            KNOWN_DNS1123_LABELS.add(value)
        return ()
    errs = []
    if _byte_len(value) > DNS1123_LABEL_MAX_LENGTH:
        errs.append(max_len_characters_error(DNS1123_LABEL_MAX_LENGTH))
    if not _DNS1123_LABEL.fullmatch(value):
        if _DNS1123_SUBDOMAIN.fullmatch(value):
            # A valid subdomain but not a label: the length is checked above, so dots.
            errs.append("must not contain dots")
        else:
            errs.append(regex_error(_DNS1123_LABEL_MSG, _DNS1123_LABEL_FMT, "my-name", "123-abc"))
    return tuple(errs)



@lru_cache(maxsize=65536)
def qualified_name(value: str) -> tuple[str, ...]:
    """``content.IsLabelKey`` (``IsQualifiedName``): label keys, taint and toleration keys,
    topology keys, resource names."""
    parts = value.split("/")
    errs: list[str] = []
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part " + empty_error())
        else:
            errs += ["prefix part " + m for m in _subdomain_errors(
                prefix, max_len_error(DNS1123_SUBDOMAIN_MAX_LENGTH))]
    else:
        return ("a valid label key " + regex_error(_LABEL_KEY_MSG, _LABEL_KEY_FMT, "MyName",
                                                   "my.name", "123-abc")
                + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",)
    if not name:
        errs.append("name part " + empty_error())
    elif _byte_len(name) > QUALIFIED_NAME_MAX_LENGTH:
        errs.append("name part " + max_len_error(QUALIFIED_NAME_MAX_LENGTH))
    if not _LABEL_KEY.fullmatch(name):
        errs.append("name part " + regex_error(_LABEL_KEY_MSG, _LABEL_KEY_FMT, "MyName",
                                               "my.name", "123-abc"))
    return tuple(errs)


@lru_cache(maxsize=65536)
def label_value(value: str) -> tuple[str, ...]:
    """``content.IsLabelValue`` (``IsValidLabelValue``)."""
    errs = []
    if _byte_len(value) > LABEL_VALUE_MAX_LENGTH:
        errs.append(max_len_error(LABEL_VALUE_MAX_LENGTH))
    if not _LABEL_VALUE.fullmatch(value):
        errs.append(regex_error(_LABEL_VALUE_MSG, _LABEL_VALUE_FMT, "MyValue", "my_value",
                                "12345"))
    return tuple(errs)


def is_valid_label_value(value: str) -> bool:
    """True when ``value`` is a valid label value (empty included)."""
    return len(value) <= LABEL_VALUE_MAX_LENGTH and _LABEL_VALUE.fullmatch(value) is not None

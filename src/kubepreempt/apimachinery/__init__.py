"""The apimachinery layer every validator shares, worded as k8s.io/apimachinery words it.

``validation``: names, label keys and values, DNS-1123 labels and subdomains; ``field``:
field errors, their rendering and ``NewInvalid``. Nothing here knows a Kubernetes kind.
"""

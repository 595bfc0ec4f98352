"""Read-only live cluster input: kubeconfig and auth, paginated lists, watch streams.

kubepreempt never writes to a cluster. Transport and kubeconfig handling come from
lightkube (see docs/LIVE.md for the choice); list and watch bodies are parsed with orjson
straight into the raw documents the file loader produces (:mod:`kubepreempt.manifests`),
so ``--cluster`` and a dump of the same objects build the same snapshot.
"""

"""Typed Kubernetes objects and the rules Kubernetes applies to them."""

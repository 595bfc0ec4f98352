"""One module per upstream kube-scheduler plugin."""

"""kube-scheduler reproduced: framework, plugins, queue, nominator, preemption."""

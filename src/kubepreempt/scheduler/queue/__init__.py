"""kube-scheduler's scheduling queue (upstream ``pkg/scheduler/backend/queue``).

* :mod:`.scheduling_queue` — activeQ, backoffQ and the unschedulable pool (or the old FIFO).
* :mod:`.events` — the cluster events that can move a pending pod.
* :mod:`.hints` — ``isPodWorthRequeuing``: each plugin's registered events and queueing
  hints (the plugins' ``events_to_register``), and the AssignedPodAdd pre-check.
* :mod:`.priority_queue` — the queue with its requeue rules: which pods an event, a failed
  attempt, the leftover flush or an ungating moves, and the events seen during an attempt.

The modules are imported by name (no re-exports here): plugins import :mod:`.events`, and
:mod:`.hints` imports the plugins.
"""

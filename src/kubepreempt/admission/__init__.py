"""What the apiserver does to a pod before it exists (DESIGN.md "Admission before
scheduling"): ResourceQuota admission here; RuntimeClass admission in
:mod:`kubepreempt.api.runtimeclass`. Both ``schedule -f`` / ``advise`` and the simulator call
:func:`kubepreempt.admission.quota.QuotaAdmission.admit` for every pod they create."""

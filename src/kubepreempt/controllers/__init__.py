"""What the workload controllers (Deployment, ReplicaSet, StatefulSet, Job, CronJob,
DaemonSet) would create, as plain manifests."""

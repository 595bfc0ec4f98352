"""What-if for whole workloads: expand, place one pod at a time, and advise."""

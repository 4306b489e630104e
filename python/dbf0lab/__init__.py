"""dbf0lab: the Python side of dbf0 — benchmark sweeps and their analysis.

grid        the axes, presets and trials of a sweep
sweep       runs trials (locally or over SSH) into a JSONL results file, resumably
hosts       this machine and remote hosts reached with OpenSSH
machine     describes the host a trial ran on
results     the results file format: reading, appending
analysis    loads results (ours and the 2020 study's), medians, best configurations
figures     the figures of benchmarks/analysis.ipynb and scripts/analyze.py
notebook    runs the notebook headless with the results as a parameter
redis_compare  the same redis-benchmark runs against Redis and dbf0, in alternation
"""

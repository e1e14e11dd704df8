"""Shared internals: argument checks, labels, threads, workers, memory bounds, files.

Every module here imports nothing of the package beyond this folder.
"""

"""The project: every Python file of a repository, a small summary of each module, and an index
over them (helper chains, subclasses, star imports), built once before per-file work.

``layout``: the project root and module names; ``summary``: what one module seeds, draws and
calls, small and picklable; ``index``: the summaries joined across imports, and the programs
(entry points with everything they call) that RNG004 decides on.
"""

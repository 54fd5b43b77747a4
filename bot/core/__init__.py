"""The Discord-free core: settings, storage, the session service, timers and the simulator.

Nothing here imports discord. Layers point one way: games ← core ← adapter ← app.
"""

"""`python -m bot play`: every game in a browser, through the real bot and a local Discord.

A composition root beside ``bot.app``: it wires the emulator (``emulator/``), the bot and a
small web server. Only ``bot.__main__`` imports it.
"""

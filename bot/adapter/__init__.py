"""The Discord adapter: turns interactions into calls on the core, and views into messages.

It decides no rule. Each handler gets the few things it needs (the session service, the table
sync, the Discord client) when the composition root (bot.app) builds it.
"""

"""The session service's parts, by what each serves. ``bot.core.sessions`` assembles them
into ``SessionService``, the one interface the front ends and the bot players use."""

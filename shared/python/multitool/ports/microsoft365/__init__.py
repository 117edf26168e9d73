"""Microsoft 365's adapters: the directory, calendar and mail ports on Microsoft Graph, its HTTP
(one request, Graph's errors mapped once), the mailbox, and Entra token sources.
"""

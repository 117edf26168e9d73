"""Google Workspace's adapters: the directory, calendar and mail ports, Gmail's mailbox, the HTTP to
Google's APIs, and its token sources (a fixed token, domain-wide delegation).
"""

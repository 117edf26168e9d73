"""Ports: the small interfaces domain code takes as arguments.

Each module holds an interface (a ``Protocol``) and the AWS adapter beside it;
adapters take their boto3 client as an argument and never read the environment.
"""

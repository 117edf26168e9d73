"""The ``multitool`` command's subcommands, one module each (:mod:`multitool.local.cli` is the entry point).

Each module declares its arguments beside its code (``add_parser``, which sets ``run``) and stays
import-light: what a command needs (moto, boto3, the local server) loads when it runs.
"""
